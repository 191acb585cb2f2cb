//! The session-start brief, by how the session started: at startup (and after `/clear`) the
//! project's most useful lessons; after compaction what this session was already told; on
//! resume only what changed since the session was last active. Cooldowns do not apply: each of
//! these starts a context that has not seen the lessons.

use std::collections::HashMap;

use cairn_proto::{AdviceItem, Memory, Signals, GLOBAL_PROJECT};

use super::daemon::Daemon;
use crate::advisor::lookup::Quiet;
use crate::temporal::recency::recency;

/// Memories read for the startup brief, the latest touched first.
const BRIEF_POOL: usize = 200;
/// Session events read back for a brief, newest first: enough for a long session, bounded for
/// the hook's deadline.
const SESSION_LOOKBACK: usize = 2000;

fn brief_item(m: Memory, score: f64, why: String, signals: Signals) -> AdviceItem {
    AdviceItem { id: m.id, text: m.text, category: m.category, score, why, signals, source: "session".into(), verdict: None, rule: None, path: Vec::new() }
}

/// At startup (and after `/clear`) there is no action yet: the project's own most useful
/// lessons (not `global`), by effectiveness, recency and the prediction of what it needs next
/// (how lately and how often each was accessed, what rests on it).
fn most_useful(d: &Daemon, weights: BriefWeights, project: &str, quiet: &Quiet, limit: usize) -> Vec<AdviceItem> {
    if project == GLOBAL_PROJECT {
        return Vec::new();
    }
    // The project's most recently touched lessons (accessed or changed; a bounded pool, latest
    // first), never a scan of the whole project on the hook's path: what prediction brings
    // forward was accessed lately or often, so it is among them.
    let ids: Vec<String> = d.memories().recently_touched(project).into_iter().filter(|id| !quiet.silences(id)).take(BRIEF_POOL).collect();
    let memories: Vec<Memory> = ids.iter().filter_map(|id| d.memories().get(id)).filter(|m| m.project == project && !m.is_candidate()).collect();
    let now = time::OffsetDateTime::now_utc();
    let mut scored: Vec<(f64, f64, Memory)> = memories
        .into_iter()
        .map(|m| {
            let recency = recency(&m, now, weights.half_life);
            // What prediction says the project is likely to need next brings a lesson forward.
            (0.5 * m.worth.effectiveness + 0.3 * recency + weights.prediction * m.next.prediction_score, recency, m)
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| b.2.updated_at.cmp(&a.2.updated_at)));
    scored
        .into_iter()
        .take(limit)
        .map(|(score, recency, m)| {
            let predicted = if weights.prediction > 0.0 && m.next.last_predicted.is_some() { format!(", predicted {:.2} ({})", m.next.prediction_score, m.next.reasons.join(", ")) } else { String::new() };
            let why = format!("one of this project's most useful lessons: effectiveness {:.2}, recency {recency:.2}{predicted}", m.worth.effectiveness);
            let signals = [("effectiveness".to_string(), m.worth.effectiveness), ("recency".to_string(), recency), ("prediction".to_string(), m.next.prediction_score)].into();
            brief_item(m, score, why, signals)
        })
        .collect()
}

/// After compaction: what this session was already told that still matters (the memory is
/// still there, in the session's project or `global`, and not muted), the highest-scored first.
fn told_in_session(d: &Daemon, session: Option<&str>, project: &str, quiet: &Quiet, limit: usize) -> Vec<AdviceItem> {
    let Some(session) = session else { return Vec::new() };
    let events = d.store().session_events_newest(session, SESSION_LOOKBACK).unwrap_or_else(|e| {
        tracing::error!(error = %e, "cannot read the session log");
        Vec::new()
    });
    let mut best: HashMap<String, f64> = HashMap::new();
    for a in events.iter().flat_map(|e| &e.advised) {
        let s = best.entry(a.id.clone()).or_insert(a.score);
        *s = s.max(a.score);
    }
    let mut told: Vec<(String, f64)> = best.into_iter().filter(|(id, _)| !quiet.silences(id)).collect();
    told.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    told.into_iter()
        .filter_map(|(id, score)| d.memories().get(&id).filter(|m| (m.project == project || m.project == GLOBAL_PROJECT) && !m.is_candidate()).map(|m| (m, score)))
        .take(limit)
        .map(|(m, score)| brief_item(m, score, format!("told earlier in this session (score {score:.2}); repeated after the context was compacted"), [("score".to_string(), score)].into()))
        .collect()
}

/// On resume: nothing new, unless the project's lessons changed since the session was last
/// active; then those, the newest first.
fn changed_since_last_seen(d: &Daemon, session: Option<&str>, project: &str, quiet: &Quiet, limit: usize) -> Vec<AdviceItem> {
    let (Some(session), false) = (session, project == GLOBAL_PROJECT) else { return Vec::new() };
    let last_seen = d.store().session_events_newest(session, 1).ok().and_then(|mut e| e.pop()).map(|e| e.at);
    let Some(last_seen) = last_seen else { return Vec::new() };
    d.memories()
        .changed_since(project, &last_seen)
        .iter()
        .filter(|id| !quiet.silences(id))
        .filter_map(|id| d.memories().get(id).filter(|m| !m.is_candidate()))
        .filter(|m| m.project == project)
        .take(limit)
        .map(|m| {
            let why = format!("new or changed in this project ({}) since the session was last active", m.updated_at);
            brief_item(m, 1.0, why, Signals::new())
        })
        .collect()
}

/// What the startup brief weighs besides effectiveness: recency's half-life in days, and how much
/// prediction counts (`advice.brief_prediction`).
#[derive(Debug, Clone, Copy)]
pub struct BriefWeights {
    pub half_life: f64,
    pub prediction: f64,
}

/// The brief for `source` (startup, clear, compact, resume), with the short reason shown beside
/// each item.
pub fn session_start(d: &Daemon, weights: BriefWeights, project: &str, source: &str, session: Option<&str>, limit: usize) -> (Vec<AdviceItem>, &'static str) {
    let quiet = d.memories().quiet();
    match source {
        "compact" => (told_in_session(d, session, project, &quiet, limit), "told earlier in this session"),
        "resume" => (changed_since_last_seen(d, session, project, &quiet, limit), "changed since this session was last active"),
        _ => (most_useful(d, weights, project, &quiet, limit), "one of this project's most useful lessons"),
    }
}
