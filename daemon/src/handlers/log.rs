//! `log`: the advice given, newest last: what was said, when, for which event and tool call, why
//! (as it was then), any interrupt, and what became of the tool call where the session log knows
//! (the PostToolUse or PostToolUseFailure of the same tool call).

use std::collections::HashMap;

use cairn_proto::{LogEntry, LogItem, LogQuery, RpcError};

use crate::state::{store_error, Daemon};
use crate::store::sessions::SessionEvent;

const MAX_LAST: u32 = 10_000;

/// What became of the tool call `e` advised on: the first later result of the same tool call
/// (by `tool_use_id`, else the next result of the same tool) in its session.
fn outcome(e: &SessionEvent, session: &[SessionEvent]) -> Option<String> {
    if e.event != "PreToolUse" {
        return None;
    }
    // The session is in log order: start just after this event (found by its time and kind).
    let at = session
        .iter()
        .position(|x| x.at == e.at && x.event == e.event && x.tool_name == e.tool_name && x.tool_use_id == e.tool_use_id)
        .map_or_else(|| session.iter().position(|x| x.at > e.at).unwrap_or(session.len()), |p| p + 1);
    let result = session[at..].iter().filter(|x| x.event == "PostToolUse" || x.event == "PostToolUseFailure").find(|x| match (&e.tool_use_id, &x.tool_use_id) {
        (Some(a), Some(b)) => a == b,
        _ => x.tool_name == e.tool_name,
    })?;
    if result.event == "PostToolUseFailure" {
        let error = result.payload.get("error").and_then(|v| v.as_str()).unwrap_or("").chars().take(120).collect::<String>();
        return Some(if error.is_empty() { "failed".into() } else { format!("failed: {error}") });
    }
    let response = result.payload.get("tool_response");
    let failed = response.and_then(|r| r.get("is_error").or_else(|| r.get("isError"))).and_then(|v| v.as_bool()).unwrap_or(false)
        || response.and_then(|r| r.get("exit_code").or_else(|| r.get("exitCode"))).and_then(|v| v.as_i64()).is_some_and(|c| c != 0);
    Some(if failed { "failed".into() } else { "succeeded".into() })
}

pub async fn handle(d: &Daemon, q: LogQuery) -> Result<Vec<LogEntry>, RpcError> {
    if q.last == 0 || q.last > MAX_LAST {
        return Err(RpcError::Invalid(format!("--last must be between 1 and {MAX_LAST}")));
    }
    // With a session named, its events wherever they happened unless a project is named too;
    // otherwise the project's own (the current directory's by default), or every one with --all.
    let named = q.scope.project.is_some() || q.scope.global;
    let project = (!q.all && (q.session.is_none() || named)).then(|| d.project_for(&q.scope));
    let advised = |e: &SessionEvent| (!e.advised.is_empty() || e.decision.is_some()) && project.as_ref().is_none_or(|p| &e.project == p);
    let mut events: Vec<SessionEvent> = match &q.session {
        Some(s) => {
            let all = d.store.session_events(s).map_err(store_error)?;
            let mut with_advice: Vec<SessionEvent> = all.into_iter().filter(advised).collect();
            let cut = with_advice.len().saturating_sub(q.last as usize);
            with_advice.drain(..cut);
            with_advice
        }
        None => {
            let mut recent = d.store.recent_events(q.last as usize, advised).map_err(store_error)?;
            recent.reverse();
            recent
        }
    };
    // Each session's events once, to find what became of each tool call.
    let mut sessions: HashMap<String, Vec<SessionEvent>> = HashMap::new();
    for e in &events {
        if !sessions.contains_key(&e.session_id) {
            sessions.insert(e.session_id.clone(), d.store.session_events(&e.session_id).map_err(store_error)?);
        }
    }
    Ok(events
        .drain(..)
        .map(|e| {
            let outcome = outcome(&e, &sessions[&e.session_id]);
            LogEntry {
                items: e.advised.iter().map(|a| LogItem { id: a.id.clone(), text: a.text.clone(), category: a.category.clone(), score: a.score, why: a.why.clone() }).collect(),
                at: e.at,
                session_id: e.session_id,
                event: e.event,
                project: e.project,
                tool_name: e.tool_name,
                tool_use_id: e.tool_use_id,
                intent: e.intent,
                decision: e.decision,
                outcome,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ev(at: &str, event: &str, tool: &str, id: Option<&str>, payload: serde_json::Value) -> SessionEvent {
        SessionEvent {
            at: at.into(),
            session_id: "s".into(),
            event: event.into(),
            project: "p".into(),
            tool_name: Some(tool.into()),
            tool_use_id: id.map(str::to_string),
            intent: None,
            payload,
            advised: Vec::new(),
            decision: None,
        }
    }

    #[test]
    fn outcomes_follow_the_same_tool_call() {
        let pre = ev("2026-01-01T00:00:01Z", "PreToolUse", "Bash", Some("t1"), json!({}));
        let session = vec![
            pre.clone(),
            ev("2026-01-01T00:00:02Z", "PostToolUse", "Bash", Some("t0"), json!({"tool_response": {"exit_code": 0}})),
            ev("2026-01-01T00:00:03Z", "PostToolUseFailure", "Bash", Some("t1"), json!({"error": "exit status 1"})),
        ];
        assert_eq!(outcome(&pre, &session).as_deref(), Some("failed: exit status 1"));
        // Without ids (older Claude Code), the next result of the same tool.
        let pre = ev("2026-01-01T00:00:01Z", "PreToolUse", "Edit", None, json!({}));
        let session = vec![pre.clone(), ev("2026-01-01T00:00:02Z", "PostToolUse", "Edit", None, json!({"tool_response": {"success": true}}))];
        assert_eq!(outcome(&pre, &session).as_deref(), Some("succeeded"));
        assert_eq!(outcome(&pre, std::slice::from_ref(&pre)), None, "not known yet");
    }
}
