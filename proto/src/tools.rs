//! Claude Code's tools sorted by what they do, shared by the daemon (salience) and the client
//! (which tools `hooks install` wires cairn to).

/// The hook events Claude Code sends, by name. Anything else is logged as `unknown`: a name
/// comes from the payload and is not trusted.
pub const HOOK_EVENTS: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionRequest",
    "UserPromptSubmit",
    "Notification",
    "Stop",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "SessionStart",
    "SessionEnd",
];

/// Tools that only look around: they read, search or list, and change nothing. No labelled moment
/// on one expects a lesson, so cairn's hooks are not installed for them (unless `hooks install
/// --all-tools`): inside Claude Code each hook process costs about 10 ms before cairn does anything,
/// and these are about half the calls of a working session.
pub const LOOK_AROUND: &[&str] = &[
    "Read",
    "Grep",
    "Glob",
    "LS",
    "BashOutput",
    "WebSearch",
    "WebFetch",
    "TodoWrite",
    "KillShell",
    "ListMcpResourcesTool",
    "ReadMcpResourceTool",
];

/// Whether `tool` only looks around.
pub fn looks_around(tool: &str) -> bool {
    LOOK_AROUND.contains(&tool)
}

/// The hook matcher for every tool but the look-arounds: a regex with a negative look-ahead,
/// which Claude Code matches against the whole tool name.
pub fn acting_matcher() -> String {
    format!("^(?!({})$).*", LOOK_AROUND.join("|"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape only: what Claude Code does with it is checked through the real client
    /// (`tests/e2e/claude.rs`), since Rust's regex has no look-ahead.
    #[test]
    fn the_matcher_names_each_look_around_whole() {
        let m = acting_matcher();
        let inner = m.strip_prefix("^(?!(").and_then(|m| m.strip_suffix(")$).*")).expect("anchored look-ahead");
        assert_eq!(inner.split('|').collect::<Vec<_>>(), LOOK_AROUND);
        assert!(looks_around("Read") && !looks_around("Bash") && !looks_around("read"));
    }
}
