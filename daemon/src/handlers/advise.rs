//! `advise`: what the hook would say for a text or a hook payload, before formatting. A dry run
//! unless a session is named, in which case cooldowns apply and the advice is recorded.
//! [`answer`] is the one advice routine the hook shares, so both always agree.

use std::time::{Duration, Instant};

use cairn_proto::{Advice, AdviceItem, AdviseRequest, RpcError, GLOBAL_PROJECT};

use crate::advisor::{self, format, intent, rank::Gates, MemoryLookup, Retrieval, SemanticQuery};
use crate::config::Tuneables;
use crate::hybrid::Fusion;
use crate::event::{EventKind, HookEvent};
use crate::redact;
use crate::state::{store_error, Daemon};
use crate::store::sessions::{Advised, SessionEvent};

/// Memories read for the session-start brief, newest first.
const BRIEF_POOL: usize = 100;

/// What to say for one event: the intent, the context text, and the items it holds.
pub struct Answer {
    pub intent: String,
    pub context: Option<String>,
    pub items: Vec<AdviceItem>,
}

/// Whether a caller may wait for the model and the semantic index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Patience {
    /// The hook: never waits; without a ready model or a free index it goes by keywords.
    Hook,
    /// A person's command: waits for the index (the caller has waited for the model).
    Human,
}

pub fn fusion(t: &Tuneables) -> Fusion {
    Fusion { weight_similarity: t.semantic.weight_similarity, similarity_floor: t.semantic.similarity_floor, similarity_ceiling: t.semantic.similarity_ceiling }
}

/// Runs `f` with the retrieval for `query`: keywords always, embeddings when the model is loaded
/// (and, for the hook, when the index is not being written to at this instant).
pub fn with_retrieval<R>(d: &Daemon, query: &str, patience: Patience, f: impl FnOnce(&Retrieval<'_>) -> R) -> R {
    let t = d.tuneables();
    let vector = d.embedder_now().and_then(|e| match d.semantic.query_vector(&e, query) {
        Ok(v) => Some(v),
        Err(e) => {
            tracing::error!(error = %e, "cannot embed a query; keywords only");
            None
        }
    });
    let lexical = d.lexical.read().expect("index lock");
    let graphs = match patience {
        Patience::Hook => d.semantic.index.try_read().ok(),
        Patience::Human => Some(d.semantic.index.read().expect("index lock")),
    };
    let semantic = match (&vector, graphs.as_deref()) {
        (Some(v), Some(Some(index))) => Some(SemanticQuery { vector: v.as_slice(), index }),
        _ => None,
    };
    f(&Retrieval { lexical: &lexical, semantic, fusion: fusion(&t) })
}

/// Ranked advice for `intent` in `project` (plus `global`), at most `limit` items, skipping what
/// `session` heard within its cooldown. Records nothing.
fn ranked_advice(d: &Daemon, intent: &str, project: &str, limit: usize, session: Option<&str>, patience: Patience) -> Vec<AdviceItem> {
    if intent.trim().is_empty() || limit == 0 {
        return Vec::new();
    }
    let t = d.tuneables();
    let gates = Gates {
        min_similarity: t.semantic.min_similarity,
        min_fusion_score: t.semantic.min_fusion_score,
        min_matched_terms: t.semantic.min_matched_terms,
        weight_outcome: t.semantic.weight_outcome,
    };
    let projects: Vec<&str> = if project == GLOBAL_PROJECT { vec![GLOBAL_PROJECT] } else { vec![project, GLOBAL_PROJECT] };
    let ranked = with_retrieval(d, intent, patience, |retrieval| advisor::advise(retrieval, &d.store, intent, &projects, &gates));
    let now = Instant::now();
    let cooldown = Duration::from_secs(t.advice.cooldown_s);
    let cooldowns = d.cooldowns.lock().expect("cooldown lock");
    ranked
        .into_iter()
        .filter(|r| session.is_none_or(|s| cooldowns.allows(s, &r.candidate.id, now, cooldown)))
        .take(limit)
        .map(|r| AdviceItem { id: r.candidate.id, text: r.candidate.text, category: r.candidate.category, score: r.score, why: r.why, signals: r.signals })
        .collect()
}

/// At session start there is no action yet: the project's own lessons (not `global`), the most
/// effective first, then the most recently changed.
fn session_start_brief(d: &Daemon, project: &str, limit: usize, session: Option<&str>) -> Vec<AdviceItem> {
    if project == GLOBAL_PROJECT || limit == 0 {
        return Vec::new();
    }
    let mut ids = d.lexical.read().expect("index lock").ids_in_project(project);
    ids.sort_unstable_by(|a, b| b.cmp(a));
    ids.truncate(BRIEF_POOL);
    let mut memories: Vec<_> = ids.iter().filter_map(|id| d.store.memory(id)).collect();
    memories.sort_by(|a, b| b.worth.effectiveness.total_cmp(&a.worth.effectiveness).then_with(|| b.updated_at.cmp(&a.updated_at)));
    let t = d.tuneables();
    let now = Instant::now();
    let cooldown = Duration::from_secs(t.advice.cooldown_s);
    let cooldowns = d.cooldowns.lock().expect("cooldown lock");
    memories
        .into_iter()
        .filter(|m| session.is_none_or(|s| cooldowns.allows(s, &m.id, now, cooldown)))
        .take(limit)
        .map(|m| AdviceItem {
            why: format!("a lesson of this project (effectiveness {:.2}), offered at session start", m.worth.effectiveness),
            signals: [("effectiveness".to_string(), m.worth.effectiveness)].into(),
            score: m.worth.effectiveness,
            id: m.id,
            text: m.text,
            category: m.category,
        })
        .collect()
}

/// The answer for an event of `kind` with `intent` in `project`: chosen, rendered within the
/// budget, and cut to what was rendered. With a session, what was said starts its cooldown.
pub fn answer(d: &Daemon, kind: &EventKind, intent: String, project: &str, session: Option<&str>, patience: Patience) -> Answer {
    let t = d.tuneables();
    let (items, budget) = match kind {
        EventKind::PreToolUse => (ranked_advice(d, &intent, project, t.advice.max_items_tool, session, patience), t.advice.char_budget_tool),
        EventKind::UserPromptSubmit => (ranked_advice(d, &intent, project, t.advice.max_items_prompt, session, patience), t.advice.char_budget_prompt),
        EventKind::SessionStart => (session_start_brief(d, project, t.advice.max_items_session_start, session), t.advice.char_budget_prompt),
        // Events that carry no advice in Claude Code's protocol get none here either.
        _ => (Vec::new(), 0),
    };
    let lines: Vec<format::Line<'_>> = items.iter().map(|a| format::Line { category: &a.category, text: &a.text }).collect();
    let Some((context, shown)) = format::render(&lines, budget) else {
        return Answer { intent, context: None, items: Vec::new() };
    };
    let mut items = items;
    items.truncate(shown);
    if let Some(s) = session {
        let now = Instant::now();
        let mut cooldowns = d.cooldowns.lock().expect("cooldown lock");
        for item in &items {
            cooldowns.record(s, &item.id, now);
        }
    }
    Answer { intent, context: Some(context), items }
}

pub fn advised(items: &[AdviceItem]) -> Vec<Advised> {
    items.iter().map(|a| Advised { id: a.id.clone(), score: a.score, path: vec![] }).collect()
}

pub async fn handle(d: &Daemon, req: AdviseRequest) -> Result<Advice, RpcError> {
    let explicit = req.scope.project.is_some() || req.scope.global;
    let (intent, project, kind) = match (&req.hook_input, &req.text) {
        (Some(payload), _) => {
            let event = HookEvent::from_payload(payload);
            let project = match (&event.cwd, explicit) {
                (Some(cwd), false) => d.projects.resolve(cwd),
                _ => d.project_for(&req.scope),
            };
            (intent::intent(&event), project, event.kind)
        }
        (None, Some(text)) if !text.trim().is_empty() => (text.trim().to_string(), d.project_for(&req.scope), EventKind::UserPromptSubmit),
        _ => return Err(RpcError::Invalid("give a text to advise on, or --hook-input FILE".into())),
    };
    if d.is_paused(&project) {
        return Ok(Advice { intent, project, advice: Vec::new() });
    }
    // A person asking may wait for the model, so the answer is the one the hook gives once warm.
    let _ = d.embedder_ready().await;
    let mut answer = tokio::task::block_in_place(|| answer(d, &kind, intent, &project, req.session.as_deref(), Patience::Human));
    if let Some(limit) = req.limit {
        answer.items.truncate(limit as usize);
    }
    if let Some(session) = &req.session {
        let event = SessionEvent {
            at: crate::exchange::now(),
            session_id: session.clone(),
            event: "Advise".into(),
            project: project.clone(),
            tool_name: None,
            tool_use_id: None,
            intent: Some(redact::redact_text(&answer.intent)),
            payload: serde_json::Value::Null,
            advised: advised(&answer.items),
        };
        d.store.append_event(&event).map_err(store_error)?;
        d.store.durable().await;
    }
    Ok(Advice { intent: answer.intent, project, advice: answer.items })
}
