//! A Claude Code hook payload read into the fields cairn uses. Every field is optional and
//! unknown fields are ignored: payloads differ between Claude Code versions (older ones have no
//! `tool_use_id`). Pure; no I/O.

use serde_json::Value;

/// The hook events cairn distinguishes; anything else is kept by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventKind {
    PreToolUse,
    PostToolUse,
    PostToolUseFailure,
    UserPromptSubmit,
    SessionStart,
    SessionEnd,
    Stop,
    Other(String),
}

impl EventKind {
    pub fn parse(name: &str) -> EventKind {
        match name {
            "PreToolUse" => EventKind::PreToolUse,
            "PostToolUse" => EventKind::PostToolUse,
            "PostToolUseFailure" => EventKind::PostToolUseFailure,
            "UserPromptSubmit" => EventKind::UserPromptSubmit,
            "SessionStart" => EventKind::SessionStart,
            "SessionEnd" => EventKind::SessionEnd,
            "Stop" => EventKind::Stop,
            other => EventKind::Other(other.to_string()),
        }
    }

    pub fn name(&self) -> &str {
        match self {
            EventKind::PreToolUse => "PreToolUse",
            EventKind::PostToolUse => "PostToolUse",
            EventKind::PostToolUseFailure => "PostToolUseFailure",
            EventKind::UserPromptSubmit => "UserPromptSubmit",
            EventKind::SessionStart => "SessionStart",
            EventKind::SessionEnd => "SessionEnd",
            EventKind::Stop => "Stop",
            EventKind::Other(name) => name,
        }
    }

    /// Events whose answer may carry advice. A tool call is advised on after it ran
    /// (PostToolUse, PostToolUseFailure): Claude Code shows a hook's context to the model beside
    /// the call's result either way, so advice given before the call (PreToolUse, still answered
    /// for older installs and for interrupts) reaches the model no sooner, and one hook process
    /// per call instead of two halves what hooks cost a session.
    pub fn advises(&self) -> bool {
        matches!(self, EventKind::PreToolUse | EventKind::PostToolUse | EventKind::PostToolUseFailure | EventKind::UserPromptSubmit | EventKind::SessionStart)
    }
}

/// What kind of action a moment is, for telling moments of one kind from another: every edit of
/// a file (`Edit`, `MultiEdit`, `Write`, `NotebookEdit`) is `edit`, a prompt is `prompt`, any
/// other tool call is its tool's name and anything else its event's. Before or after the call
/// is the same action.
pub fn action_kind(event: &str, tool: Option<&str>) -> String {
    match (event, tool) {
        ("UserPromptSubmit", _) => "prompt".to_string(),
        (_, Some("Edit" | "MultiEdit" | "Write" | "NotebookEdit")) => "edit".to_string(),
        (_, Some(tool)) if !tool.is_empty() => tool.to_string(),
        (event, _) => event.to_string(),
    }
}

#[derive(Debug, Clone)]
pub struct HookEvent {
    pub kind: EventKind,
    pub session_id: Option<String>,
    pub cwd: Option<String>,
    pub tool_name: Option<String>,
    pub tool_use_id: Option<String>,
    pub tool_input: Value,
    pub tool_response: Option<Value>,
    pub prompt: Option<String>,
    /// SessionStart's `source` (startup, resume, clear, compact).
    pub source: Option<String>,
}

fn string(payload: &Value, key: &str) -> Option<String> {
    payload.get(key).and_then(Value::as_str).map(str::to_string)
}

impl HookEvent {
    /// Its kind, tool and source alone: no ids, input, response or prompt.
    pub fn bare(e: &HookEvent) -> HookEvent {
        HookEvent { kind: e.kind.clone(), session_id: None, cwd: None, tool_name: e.tool_name.clone(), tool_use_id: None, tool_input: Value::Null, tool_response: None, prompt: None, source: e.source.clone() }
    }

    /// Reads what it can; a payload that is not an object yields an `Other("")` event.
    pub fn from_payload(payload: &Value) -> HookEvent {
        HookEvent {
            kind: EventKind::parse(payload.get("hook_event_name").and_then(Value::as_str).unwrap_or("")),
            session_id: string(payload, "session_id"),
            cwd: string(payload, "cwd"),
            tool_name: string(payload, "tool_name"),
            tool_use_id: string(payload, "tool_use_id"),
            tool_input: payload.get("tool_input").cloned().unwrap_or(Value::Null),
            tool_response: payload.get("tool_response").or_else(|| payload.get("error")).cloned(),
            prompt: string(payload, "prompt"),
            source: string(payload, "source"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_known_fields_and_tolerates_missing_ones() {
        let e = HookEvent::from_payload(&json!({
            "session_id": "s", "cwd": "/p", "hook_event_name": "PreToolUse",
            "tool_name": "Bash", "tool_input": {"command": "ls"}, "unknown": 1
        }));
        assert_eq!(e.kind, EventKind::PreToolUse);
        assert_eq!(e.tool_name.as_deref(), Some("Bash"));
        assert_eq!(e.tool_use_id, None);
        assert_eq!(e.tool_input["command"], "ls");
        assert!(e.kind.advises());
    }

    #[test]
    fn unknown_events_are_kept_by_name() {
        let e = HookEvent::from_payload(&json!({"hook_event_name": "PreCompact"}));
        assert_eq!(e.kind, EventKind::Other("PreCompact".into()));
        assert_eq!(e.kind.name(), "PreCompact");
        assert!(!e.kind.advises());
        let e = HookEvent::from_payload(&json!([1, 2]));
        assert_eq!(e.kind, EventKind::Other(String::new()));
    }

    #[test]
    fn an_action_s_kind_joins_the_edits_and_ignores_the_phase() {
        assert_eq!(action_kind("PostToolUse", Some("Write")), action_kind("PreToolUse", Some("Edit")));
        assert_eq!(action_kind("PostToolUse", Some("Bash")), action_kind("PostToolUseFailure", Some("Bash")));
        assert_ne!(action_kind("PostToolUse", Some("Bash")), action_kind("PostToolUse", Some("Edit")));
        assert_eq!(action_kind("UserPromptSubmit", None), "prompt");
        assert_eq!(action_kind("SessionStart", Some("")), "SessionStart");
    }
}
