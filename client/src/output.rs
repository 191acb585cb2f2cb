//! Shapes the daemon's advice into Claude Code's hook output. Only events that accept
//! `hookSpecificOutput.additionalContext` get it; everything stays under the 10,000-character cap.

use serde_json::json;

/// Events whose answer may carry `additionalContext`.
pub const CONTEXT_EVENTS: &[&str] = &["PreToolUse", "UserPromptSubmit", "SessionStart"];

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

/// The JSON line to print, or `None` when the hook should print nothing.
pub fn hook_output(event: &str, context: Option<&str>) -> Option<String> {
    let context = context.map(str::trim).filter(|c| !c.is_empty())?;
    if !CONTEXT_EVENTS.contains(&event) {
        return None;
    }
    let mut limit = CONTEXT_CAP;
    loop {
        let out = json!({"hookSpecificOutput": {"hookEventName": event, "additionalContext": clip(context, limit)}}).to_string();
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
            let out: Value = serde_json::from_str(&hook_output(event, Some("advice")).unwrap()).unwrap();
            assert_eq!(out["hookSpecificOutput"]["hookEventName"], *event);
            assert_eq!(out["hookSpecificOutput"]["additionalContext"], "advice");
        }
    }

    #[test]
    fn other_events_and_empty_advice_print_nothing() {
        for event in ["PostToolUse", "PostToolUseFailure", "Stop", "SessionEnd", "Notification", ""] {
            assert!(hook_output(event, Some("advice")).is_none());
        }
        assert!(hook_output("PreToolUse", None).is_none());
        assert!(hook_output("PreToolUse", Some("  ")).is_none());
    }

    #[test]
    fn output_stays_under_the_cap_even_with_escapes() {
        for text in ["a".repeat(50_000), "\"".repeat(50_000), "\u{1}".repeat(20_000), "é".repeat(20_000)] {
            let out = hook_output("PreToolUse", Some(&text)).unwrap();
            assert!(out.chars().count() < OUTPUT_CAP, "{}", out.len());
            serde_json::from_str::<Value>(&out).unwrap();
        }
    }
}
