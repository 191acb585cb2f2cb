//! Shapes the daemon's advice into Claude Code's hook output. Only events that accept
//! `hookSpecificOutput.additionalContext` get it (a tool call's result, PostToolUse or
//! PostToolUseFailure, shows it to the model beside that result, as PreToolUse does); an interrupt (opt-in) adds PreToolUse's
//! `permissionDecision` (`ask` or `deny`) and its reason; everything stays under the
//! 10,000-character cap.

use cairn_proto::HookDecision;
use serde_json::json;

/// Events whose answer may carry `additionalContext`.
pub const CONTEXT_EVENTS: &[&str] = &["PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "SessionStart"];

/// Claude Code's cap on hook output, in characters.
pub const OUTPUT_CAP: usize = 10_000;
/// Room kept for the JSON around the context and its escapes.
const CONTEXT_CAP: usize = 9_000;

fn clip(text: &str, max_chars: usize) -> &str {
    match text.char_indices().nth(max_chars) {
        Some((i, _)) => &text[..i],
        None => text,
    }
}

/// Decisions Claude Code accepts from a PreToolUse hook that cairn may give.
const DECISIONS: &[&str] = &["ask", "deny"];
/// Longest decision reason, in characters.
const REASON_CAP: usize = 1_000;

/// The JSON line to print, or `None` when the hook should print nothing.
pub fn hook_output(event: &str, context: Option<&str>, decision: Option<&HookDecision>) -> Option<String> {
    let context = context.map(str::trim).filter(|c| !c.is_empty());
    let decision = decision.filter(|d| event == "PreToolUse" && DECISIONS.contains(&d.permission.as_str()));
    if !CONTEXT_EVENTS.contains(&event) || (context.is_none() && decision.is_none()) {
        return None;
    }
    let mut limit = CONTEXT_CAP;
    loop {
        let mut specific = json!({"hookEventName": event});
        if let Some(c) = context {
            specific["additionalContext"] = json!(clip(c, limit));
        }
        if let Some(d) = decision {
            specific["permissionDecision"] = json!(d.permission);
            specific["permissionDecisionReason"] = json!(clip(&d.reason, REASON_CAP.min(limit)));
        }
        let out = json!({"hookSpecificOutput": specific}).to_string();
        if out.chars().count() < OUTPUT_CAP {
            return Some(out);
        }
        // Escapes made it longer than its characters; cut harder.
        limit /= 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn context_events_get_hook_specific_output() {
        for event in CONTEXT_EVENTS {
            let out: Value = serde_json::from_str(&hook_output(event, Some("advice"), None).unwrap()).unwrap();
            assert_eq!(out["hookSpecificOutput"]["hookEventName"], *event);
            assert_eq!(out["hookSpecificOutput"]["additionalContext"], "advice");
        }
    }

    #[test]
    fn an_interrupt_asks_on_pre_tool_use_only() {
        let d = HookDecision { permission: "ask".into(), reason: "cairn: rule force_push (critical)".into() };
        let out: Value = serde_json::from_str(&hook_output("PreToolUse", Some("advice"), Some(&d)).unwrap()).unwrap();
        assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "ask");
        assert_eq!(out["hookSpecificOutput"]["permissionDecisionReason"], "cairn: rule force_push (critical)");
        assert_eq!(out["hookSpecificOutput"]["additionalContext"], "advice");
        let alone: Value = serde_json::from_str(&hook_output("PreToolUse", None, Some(&d)).unwrap()).unwrap();
        assert_eq!(alone["hookSpecificOutput"]["permissionDecision"], "ask");
        let prompt: Value = serde_json::from_str(&hook_output("UserPromptSubmit", Some("advice"), Some(&d)).unwrap()).unwrap();
        assert!(prompt["hookSpecificOutput"].get("permissionDecision").is_none(), "only a tool call can be stopped");
        let after: Value = serde_json::from_str(&hook_output("PostToolUse", Some("advice"), Some(&d)).unwrap()).unwrap();
        assert!(after["hookSpecificOutput"].get("permissionDecision").is_none(), "a call that ran cannot be stopped");
        assert_eq!(after["hookSpecificOutput"]["additionalContext"], "advice");
        let odd = HookDecision { permission: "allow".into(), reason: String::new() };
        assert!(hook_output("PreToolUse", None, Some(&odd)).is_none(), "cairn never allows on the user's behalf");
    }

    #[test]
    fn other_events_and_empty_advice_print_nothing() {
        for event in ["Stop", "SessionEnd", "Notification", "PreCompact", ""] {
            assert!(hook_output(event, Some("advice"), None).is_none());
        }
        assert!(hook_output("PreToolUse", None, None).is_none());
        assert!(hook_output("PreToolUse", Some("  "), None).is_none());
    }

    #[test]
    fn output_stays_under_the_cap_even_with_escapes() {
        for text in ["a".repeat(50_000), "\"".repeat(50_000), "\u{1}".repeat(20_000), "é".repeat(20_000)] {
            let out = hook_output("PreToolUse", Some(&text), None).unwrap();
            assert!(out.chars().count() < OUTPUT_CAP, "{}", out.len());
            serde_json::from_str::<Value>(&out).unwrap();
        }
    }
}
