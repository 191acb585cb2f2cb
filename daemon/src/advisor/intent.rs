//! The action of a hook event in a few words, for retrieval: no tool metadata, JSON or long paths.
//! A first cut per tool; the advisor issue refines it. Pure; no I/O.

use serde_json::Value;

use crate::event::{EventKind, HookEvent};

/// Longest intent kept, in characters.
const MAX_INTENT_CHARS: usize = 400;

fn field<'a>(input: &'a Value, key: &str) -> &'a str {
    input.get(key).and_then(Value::as_str).unwrap_or("")
}

fn clip(text: &str, max: usize) -> &str {
    match text.char_indices().nth(max) {
        Some((i, _)) => &text[..i],
        None => text,
    }
}

/// The last few components of a path, which say what the file is without the machine's layout.
fn path_gist(path: &str) -> String {
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    let keep = parts.len().saturating_sub(3);
    parts[keep..].join("/")
}

fn url_gist(url: &str) -> &str {
    url.split_once("://").map_or(url, |(_, rest)| rest)
}

fn join(parts: &[&str]) -> String {
    let words: Vec<&str> = parts.iter().map(|p| p.trim()).filter(|p| !p.is_empty()).collect();
    clip(&words.join(" "), MAX_INTENT_CHARS).trim().to_string()
}

/// The intent of a tool call or prompt.
pub fn intent(event: &HookEvent) -> String {
    match event.kind {
        EventKind::UserPromptSubmit => return join(&[event.prompt.as_deref().unwrap_or("")]),
        EventKind::SessionStart => return format!("start of session ({})", event.source.as_deref().unwrap_or("startup")),
        _ => {}
    }
    let input = &event.tool_input;
    let tool = event.tool_name.as_deref().unwrap_or("");
    match tool {
        "Bash" => join(&[field(input, "description"), clip(field(input, "command"), 300)]),
        "Edit" | "MultiEdit" | "Write" | "NotebookEdit" => {
            let path = [field(input, "file_path"), field(input, "notebook_path")].concat();
            let change = [field(input, "new_string"), field(input, "content"), field(input, "new_source")].concat();
            join(&["edit", &path_gist(&path), clip(&change, 200)])
        }
        "Read" => join(&["read", &path_gist(field(input, "file_path"))]),
        "Grep" => join(&["search for", field(input, "pattern"), &path_gist(field(input, "path"))]),
        "Glob" => join(&["find files", field(input, "pattern")]),
        "WebFetch" => join(&["fetch", url_gist(field(input, "url")), clip(field(input, "prompt"), 200)]),
        "WebSearch" => join(&["web search", field(input, "query")]),
        "Task" => join(&[field(input, "description"), clip(field(input, "prompt"), 200)]),
        _ => {
            // MCP tools (mcp__server__tool) and anything new: the tool's words plus its text arguments.
            let name = tool.trim_start_matches("mcp__").replace("__", " ").replace('_', " ");
            let mut parts = vec![name];
            if let Value::Object(map) = input {
                parts.extend(map.values().filter_map(Value::as_str).map(|s| clip(s, 120).to_string()));
            }
            join(&parts.iter().map(String::as_str).collect::<Vec<_>>())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ev(tool: &str, input: Value) -> HookEvent {
        HookEvent::from_payload(&json!({"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input}))
    }

    #[test]
    fn bash_uses_description_and_command() {
        assert_eq!(intent(&ev("Bash", json!({"command": "pwd", "description": "Print working directory"}))), "Print working directory pwd");
    }

    #[test]
    fn edits_keep_the_path_tail_and_change() {
        let i = intent(&ev("Edit", json!({"file_path": "/home/u/work/app/src/auth/token.rs", "old_string": "a", "new_string": "fn validate()"})));
        assert_eq!(i, "edit src/auth/token.rs fn validate()");
    }

    #[test]
    fn reads_searches_and_web() {
        assert_eq!(intent(&ev("Read", json!({"file_path": "/a/b/c/d/e.md"}))), "read c/d/e.md");
        assert_eq!(intent(&ev("Grep", json!({"pattern": "TODO", "path": "/x/src"}))), "search for TODO x/src");
        assert_eq!(intent(&ev("WebFetch", json!({"url": "https://docs.rs/sled", "prompt": "flush"}))), "fetch docs.rs/sled flush");
    }

    #[test]
    fn mcp_tools_use_their_name_and_text_arguments() {
        assert_eq!(intent(&ev("mcp__github__create_issue", json!({"title": "Crash on start", "n": 3}))), "github create issue Crash on start");
    }

    #[test]
    fn prompts_are_their_own_intent() {
        let e = HookEvent::from_payload(&json!({"hook_event_name": "UserPromptSubmit", "prompt": "  fix the login bug "}));
        assert_eq!(intent(&e), "fix the login bug");
    }

    #[test]
    fn long_inputs_are_clipped() {
        let cmd = "x".repeat(5000);
        assert!(intent(&ev("Bash", json!({"command": cmd}))).chars().count() <= MAX_INTENT_CHARS);
    }
}
