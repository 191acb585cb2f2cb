//! Retrieval over the daemon's live indexes, for the hook and for people alike: keywords always,
//! embeddings when the model is loaded (and, for the hook, when the graphs are not being written
//! to at this instant).

use super::daemon::Daemon;
use crate::config::Tuneables;
use crate::retrieval::hybrid::Fusion;
use crate::retrieval::situations::Moment;
use crate::retrieval::{LearnedQuery, Retrieval, SemanticQuery};
use crate::semantic::Wait;

/// Whether a caller may wait for the model and the semantic index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Patience {
    /// The hook: never waits for the model to load or for the index; a model busy with another
    /// answer it waits for at most `model.hook_wait_ms`. Without either it goes by keywords.
    Hook,
    /// A person's command: waits for the index (the caller has waited for the model).
    Human,
}

/// A moment of a project to advise on: its situations learned from feedback take part (when
/// `learning.enabled`).
pub struct AtMoment<'a> {
    pub project: &'a str,
    pub words: &'a str,
    /// The shape of the shell command it runs, if any.
    pub command: Option<&'a str>,
    /// Its kind of action ([`crate::base::event::action_kind`]).
    pub kind: &'a str,
    /// What the action itself puts in place, without its description.
    pub deed: &'a str,
}

/// Runs `f` with the retrieval for `meaning` under the settings `t` (the caller's one copy of
/// them, so that one answer reads one version of the settings); for advice, `moment` brings in
/// what was learned in its project.
/// Longest text a person's query may be (`search`, `advise TEXT`, `review judge`): retrieval's
/// work grows with a query's words, and a megabyte of them kept the daemon busy for minutes after
/// the caller had gone. A hook event's intent is cut far shorter where it is made.
pub const MAX_QUERY_CHARS: usize = 4_000;

/// `Ok` for a query within [`MAX_QUERY_CHARS`], else why not.
pub fn bounded_query(text: &str) -> super::error::Result<()> {
    match text.chars().nth(MAX_QUERY_CHARS) {
        Some(_) => Err(super::error::Error::Invalid(format!("the text is longer than {MAX_QUERY_CHARS} characters: give its gist"))),
        None => Ok(()),
    }
}

pub fn with_retrieval<R>(d: &Daemon, t: &Tuneables, meaning: &str, patience: Patience, fusion: Fusion, moment: Option<AtMoment<'_>>, f: impl FnOnce(&Retrieval<'_>) -> R) -> R {
    // The model if loaded and wanted; never waits for a load (the hook's path).
    let embedder = if t.model.enabled { d.semantic().model().embedder_now() } else { None };
    let wait = match patience {
        Patience::Human => Wait::Always,
        Patience::Hook => Wait::UpTo(std::time::Duration::from_millis(t.model.hook_wait_ms)),
    };
    let vector = embedder.and_then(|e| match d.semantic().query_vector(e.as_ref(), meaning, wait) {
        Ok(v) => v,
        Err(e) => {
            tracing::error!(error = %e, "cannot embed a query; keywords only");
            None
        }
    });
    let lexical = d.memories().lexical();
    let graphs = match patience {
        Patience::Hook => d.semantic().graphs().try_read(),
        Patience::Human => Some(d.semantic().graphs().read()),
    };
    let semantic = match (&vector, graphs.as_deref()) {
        (Some(v), Some(Some(index))) => Some(SemanticQuery { vector: v.as_slice(), index }),
        _ => None,
    };
    let situations = d.memories().situations();
    let learned = moment.filter(|_| t.learning.enabled && (!situations.is_empty() || situations.has_between())).map(|m| {
        let vector = semantic.as_ref().map(|s| (s.index.fingerprint(), s.vector));
        let now = crate::base::clock::now_unix_ms() as f64 / 1000.0;
        let moment = Moment::new(m.project, m.words, vector).running(m.command, t.learning.same_command).acting(m.kind, t.learning.same_anchors).doing(m.deed).fading(now, t.learning.situation_half_life_days * 86_400.0);
        // The project's situations compared once for the moment, not once per candidate.
        let started = std::time::Instant::now();
        let moment = situations.prepare(moment, t.learning.situation_floor);
        tracing::trace!(prepare_us = started.elapsed().as_micros() as u64, near = moment.near_count(), by_meaning = moment.vector.is_some(), "situations prepared");
        LearnedQuery { situations: &situations, moment, floor: t.learning.situation_floor }
    });
    f(&Retrieval { lexical: &lexical, semantic, fusion, learned, recall: Some(d.memories().recall()) })
}
