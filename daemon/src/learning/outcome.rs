//! What became of a tool call advice was given for. Advice given with the call's result
//! (PostToolUse, PostToolUseFailure) knows it from that event; advice given before the call
//! (PreToolUse) takes the first later result of the same call in its session (by `tool_use_id`,
//! else the next result of the same tool). This says what the tool did, not whether the advice
//! helped: a call that succeeded is never, by itself, evidence that a lesson was useful. Pure.

use crate::store::sessions::SessionEvent;

fn is_result(e: &SessionEvent) -> bool {
    e.event == "PostToolUse" || e.event == "PostToolUseFailure"
}

/// What became of the tool call `e` advised on: `succeeded`, `failed` or `failed: <error>`;
/// `None` for an event that is not a tool call, or whose result is not in the log (yet).
pub fn of_tool_call(e: &SessionEvent, session: &[SessionEvent]) -> Option<String> {
    if is_result(e) {
        return Some(result(e));
    }
    if e.event != "PreToolUse" {
        return None;
    }
    // The session is in log order: start just after this event (found by its time and kind).
    let at = session
        .iter()
        .position(|x| x.at == e.at && x.event == e.event && x.tool_name == e.tool_name && x.tool_use_id == e.tool_use_id)
        .map_or_else(|| session.iter().position(|x| x.at > e.at).unwrap_or(session.len()), |p| p + 1);
    let found = session[at..].iter().filter(|x| is_result(x)).find(|x| match (&e.tool_use_id, &x.tool_use_id) {
        (Some(a), Some(b)) => a == b,
        _ => x.tool_name == e.tool_name,
    })?;
    Some(result(found))
}

/// What a result event says: the failure's error, or whether the response reports one.
fn result(x: &SessionEvent) -> String {
    if x.event == "PostToolUseFailure" {
        let error = x.payload.get("error").and_then(|v| v.as_str()).unwrap_or("").chars().take(120).collect::<String>();
        return if error.is_empty() { "failed".into() } else { format!("failed: {error}") };
    }
    let response = x.payload.get("tool_response");
    let failed = response.and_then(|r| r.get("is_error").or_else(|| r.get("isError"))).and_then(|v| v.as_bool()).unwrap_or(false)
        || response.and_then(|r| r.get("exit_code").or_else(|| r.get("exitCode"))).and_then(|v| v.as_i64()).is_some_and(|c| c != 0);
    if failed { "failed".into() } else { "succeeded".into() }
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
            meaning: None,
            payload,
            advised: Vec::new(),
            decision: None,
            shadow: Vec::new(),
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
        assert_eq!(of_tool_call(&pre, &session).as_deref(), Some("failed: exit status 1"));
        // Without ids (older Claude Code), the next result of the same tool.
        let pre = ev("2026-01-01T00:00:01Z", "PreToolUse", "Edit", None, json!({}));
        let session = vec![pre.clone(), ev("2026-01-01T00:00:02Z", "PostToolUse", "Edit", None, json!({"tool_response": {"success": true}}))];
        assert_eq!(of_tool_call(&pre, &session).as_deref(), Some("succeeded"));
        assert_eq!(of_tool_call(&pre, std::slice::from_ref(&pre)), None, "not known yet");
        // A result that says it failed, in either spelling.
        let session = vec![pre.clone(), ev("2026-01-01T00:00:02Z", "PostToolUse", "Edit", None, json!({"tool_response": {"isError": true}}))];
        assert_eq!(of_tool_call(&pre, &session).as_deref(), Some("failed"));
        // Advice given with the result knows the outcome from its own event.
        let post = ev("2026-01-01T00:00:02Z", "PostToolUseFailure", "Bash", Some("t2"), json!({"error": "rejected"}));
        assert_eq!(of_tool_call(&post, &[]).as_deref(), Some("failed: rejected"));
        let post = ev("2026-01-01T00:00:02Z", "PostToolUse", "Bash", Some("t3"), json!({"tool_response": {"stdout": "ok"}}));
        assert_eq!(of_tool_call(&post, &[]).as_deref(), Some("succeeded"));
        let prompt = SessionEvent { event: "UserPromptSubmit".into(), ..pre.clone() };
        assert_eq!(of_tool_call(&prompt, &session), None, "a prompt is not a tool call");
    }
}
