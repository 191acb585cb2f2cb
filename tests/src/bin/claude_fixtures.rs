//! Captures the hook payloads the real Claude Code sends (not a test): one scripted session of
//! `claude -p` against the stand-in of the Messages API, with a hook for every event that writes
//! its payload to a file. Each kind of event (and tool) is kept once, its temporary paths and
//! ids replaced by fixed ones, into `tests/fixtures/claude-code-<version>/`, where the hook tests
//! read them beside the older fixtures.
//!
//! Run: `CAIRN_CLAUDE=<claude> cargo run -p cairn-tests --bin cairn-claude-fixtures` (the Claude
//! Code CLI from `scripts/claude-code.sh`).

use std::collections::BTreeMap;
use std::path::Path;

use cairn_tests::claude::{claude_version, Claude, Route, Turn};
use cairn_tests::Home;
use serde_json::{json, Value};

/// Every event a hook can be registered for, as Claude Code names them.
const EVENTS: &[&str] = &["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "Notification", "Stop", "SubagentStop", "PreCompact", "SessionEnd"];

/// The file a payload is kept in: the event, and the tool for tool events.
fn name_of(payload: &Value) -> String {
    let event = payload["hook_event_name"].as_str().unwrap_or("Unknown");
    match payload["tool_name"].as_str() {
        Some(tool) => format!("{event}.{tool}.json"),
        None => format!("{event}.json"),
    }
}

/// Replaces what differs from run to run: the project's and HOME's paths (and Claude Code's
/// folder name for the project), session ids.
fn normalise(text: &str, project: &Path, home: &Path, session: &str) -> String {
    let project = project.canonicalize().unwrap_or_else(|_| project.to_path_buf()).display().to_string();
    let slug: String = project.chars().map(|c| if c.is_alphanumeric() { c } else { '-' }).collect();
    text.replace(&project, "/home/user/project").replace(&slug, "-home-user-project").replace(&home.display().to_string(), "/home/user").replace(session, "00000000-0000-4000-8000-000000000000")
}

fn main() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("repo root").to_path_buf();
    let version = claude_version();
    let out_dir = repo.join(format!("tests/fixtures/claude-code-{version}"));
    let home = Home::new();
    let claude = Claude::new(&home, Route::Without);
    let captured = tempfile::tempdir().expect("capture folder");

    // One hook for every event, writing its stdin to a file of its own, in order.
    let hook = claude.user_home().join("capture.sh");
    std::fs::write(&hook, format!("#!/bin/sh\ncat > \"{}/$(date +%s%N)-$$.json\"\n", captured.path().display())).expect("capture hook");
    std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("executable");
    let entry = json!([{"matcher": "*", "hooks": [{"type": "command", "command": hook}]}]);
    let hooks: serde_json::Map<String, Value> = EVENTS.iter().map(|e| (e.to_string(), entry.clone())).collect();
    std::fs::create_dir_all(claude.user_home().join(".claude")).expect(".claude");
    std::fs::write(claude.user_home().join(".claude/settings.json"), json!({"hooks": hooks}).to_string()).expect("settings");

    std::fs::write(claude.project().join("README.md"), "# shop\n\nThe web shop's checkout service.\n").expect("README");
    std::fs::create_dir_all(claude.project().join("src")).expect("src");
    std::fs::write(claude.project().join("src/cart.py"), "def subtotal(items):\n    return sum(i.price * i.qty for i in items)\n").expect("cart");
    let turns = vec![
        Turn::bash("ls", "List files"),
        Turn::tool("Read", json!({"file_path": claude.project().join("README.md")})),
        Turn::tool("Grep", json!({"pattern": "subtotal", "path": claude.project()})),
        Turn::tool("Glob", json!({"pattern": "**/*.py"})),
        Turn::tool("Edit", json!({"file_path": claude.project().join("README.md"), "old_string": "checkout service", "new_string": "checkout and cart service"})),
        Turn::tool("Write", json!({"file_path": claude.project().join("src/tax.py"), "content": "RATE = 0.2\n"})),
        Turn::bash("git push --force origin main", "Push the branch"),
        Turn::text("Finished."),
    ];
    let session = claude.run("Tidy the README and push", turns, &["Bash", "Read", "Grep", "Glob", "Edit", "Write"]);
    session.assert_completed("Finished.");
    let session_id = session.result["session_id"].as_str().unwrap_or_default().to_string();

    let mut files: Vec<_> = std::fs::read_dir(captured.path()).expect("captured").map(|e| e.expect("entry").path()).collect();
    files.sort();
    let mut kept: BTreeMap<String, String> = BTreeMap::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("payload");
        let mut payload: Value = serde_json::from_str(&text).expect("a payload is JSON");
        // Ids that differ from run to run.
        for (key, fixed) in [("prompt_id", "00000000-0000-4000-8000-000000000001")] {
            if payload.get(key).is_some() {
                payload[key] = json!(fixed);
            }
        }
        let pretty = serde_json::to_string_pretty(&payload).expect("serialise");
        kept.entry(name_of(&payload)).or_insert_with(|| normalise(&pretty, claude.project(), claude.user_home(), &session_id) + "\n");
    }
    std::fs::create_dir_all(&out_dir).expect("fixture folder");
    for (name, text) in &kept {
        std::fs::write(out_dir.join(name), text).expect("fixture");
    }
    let readme = format!(
        "# Hook payloads of Claude Code {version}\n\nCaptured from the real `claude -p` (version {version}) in one scripted session against cairn's\nstand-in of the Messages API, by `cargo run -p cairn-tests --bin cairn-claude-fixtures`: a hook\nregistered for every event wrote what it was given. One file per event and tool, the first of\neach kind; the project's and HOME's paths and the session's ids are replaced by fixed ones.\nEvents fired: {}.\n",
        kept.keys().map(|k| k.split('.').next().unwrap_or_default()).collect::<std::collections::BTreeSet<_>>().into_iter().collect::<Vec<_>>().join(", ")
    );
    std::fs::write(out_dir.join("README.md"), readme).expect("readme");
    let events: Vec<&str> = kept.keys().map(|k| k.split('.').next().unwrap_or_default()).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
    println!("Claude Code {version}: {} payloads of {} events into {}: {}", kept.len(), events.len(), out_dir.display(), events.join(", "));
}
