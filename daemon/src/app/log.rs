//! `log`: the advice given, newest last: what was said, when, for which event and tool call, why
//! (as it was then), any interrupt, and what became of the tool call where the session log
//! knows.

use std::collections::HashMap;

use cairn_proto::{LessonOutcome, LogEntry, LogQuery};

use super::daemon::Daemon;
use super::error::{Error, Result};
use crate::learning::outcome;
use crate::store::outcomes::outcome_key;
use crate::store::sessions::SessionEvent;

const MAX_LAST: u32 = 10_000;

pub async fn log(d: &Daemon, q: LogQuery) -> Result<Vec<LogEntry>> {
    if q.last == 0 || q.last > MAX_LAST {
        return Err(Error::Invalid(format!("--last must be between 1 and {MAX_LAST}")));
    }
    // With a session named, its events wherever they happened unless a project is named too;
    // otherwise the project's own (the current directory's by default), or every one with --all.
    let named = q.scope.project.is_some() || q.scope.global;
    let project = (!q.all && (q.session.is_none() || named)).then(|| d.project_for(&q.scope));
    let advised = |e: &SessionEvent| (!e.advised.is_empty() || e.decision.is_some()) && project.as_ref().is_none_or(|p| &e.project == p);
    let mut events: Vec<SessionEvent> = match &q.session {
        Some(s) => {
            let mut with_advice: Vec<SessionEvent> = d.store().session_events(s)?.into_iter().filter(advised).collect();
            let cut = with_advice.len().saturating_sub(q.last as usize);
            with_advice.drain(..cut);
            with_advice
        }
        None => {
            let mut recent = d.store().recent_events(q.last as usize, advised)?;
            recent.reverse();
            recent
        }
    };
    let mut sessions = HashMap::new();
    let mut entries = Vec::with_capacity(events.len());
    for e in events.drain(..) {
        entries.push(entry(d, e, &mut sessions)?);
    }
    Ok(entries)
}

/// An event that carried advice as the log shows it: what became of its tool call (from the
/// result itself, or for a PreToolUse from its session's events, read once per session into
/// `sessions`) and of each lesson said.
pub fn entry(d: &Daemon, e: SessionEvent, sessions: &mut HashMap<String, Vec<SessionEvent>>) -> Result<LogEntry> {
    // A tool call's result carries its own outcome; only a call advised before it ran
    // (PreToolUse) needs its session's later events.
    let outcome = if e.event == "PreToolUse" {
        if !sessions.contains_key(&e.session_id) {
            sessions.insert(e.session_id.clone(), d.store().session_events(&e.session_id)?);
        }
        outcome::of_tool_call(&e, &sessions[&e.session_id])
    } else {
        outcome::of_tool_call(&e, &[])
    };
    let mut outcomes = Vec::new();
    for item in &e.advised {
        if let Some(r) = d.store().get_outcome(&outcome_key(&e.at, &e.session_id, &e.event, e.tool_use_id.as_deref(), &item.id))? {
            outcomes.push(LessonOutcome { memory: r.memory, verdict: r.verdict, settled: r.settled, evidence: r.evidence });
        }
    }
    Ok(LogEntry {
        items: e.advised,
        at: e.at,
        session_id: e.session_id,
        event: e.event,
        project: e.project,
        tool_name: e.tool_name,
        tool_use_id: e.tool_use_id,
        intent: e.intent,
        decision: e.decision,
        outcome,
        outcomes,
    })
}
