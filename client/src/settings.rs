//! Claude Code's `settings.json`, edited to add or remove cairn's hooks and nothing else: every
//! other key and hook stays where it was, in order. Pure; the file I/O is in `commands/hooks.rs`.

use std::path::Path;

use serde_json::{json, Map, Value};

/// The events cairn listens to, and whether each is a tool event (which takes a matcher).
pub const EVENTS: &[(&str, bool)] = &[
    ("PreToolUse", true),
    ("PostToolUse", true),
    ("PostToolUseFailure", true),
    ("UserPromptSubmit", false),
    ("SessionStart", false),
    ("Stop", false),
    ("SessionEnd", false),
];

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SettingsError {
    #[error("{0} is not a JSON object")]
    NotAnObject(String),
    #[error("{0} is not a JSON array")]
    NotAnArray(String),
}

/// The hook command for a `cairn` binary: its absolute path, quoted for the shell, then `hook`.
pub fn hook_command(cairn: &Path) -> String {
    let path = cairn.display().to_string();
    if path.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+".contains(c)) {
        format!("{path} hook")
    } else {
        format!("'{}' hook", path.replace('\'', r"'\''"))
    }
}

/// Whether `command` runs some `cairn` binary's `hook`: how cairn recognises its own entries,
/// wherever the binary was when they were written.
pub fn is_cairn_command(command: &str) -> bool {
    let Some(program) = command.trim().strip_suffix(" hook") else { return false };
    let program = program.trim();
    let unquoted = if program.len() >= 2 && (program.starts_with('\'') && program.ends_with('\'') || program.starts_with('"') && program.ends_with('"')) {
        program[1..program.len() - 1].replace(r"'\''", "'")
    } else {
        program.to_string()
    };
    Path::new(&unquoted).file_name().is_some_and(|n| n == "cairn")
}

fn object<'a>(value: &'a mut Value, what: &str) -> Result<&'a mut Map<String, Value>, SettingsError> {
    value.as_object_mut().ok_or_else(|| SettingsError::NotAnObject(what.to_string()))
}

fn commands_of(group: &Value) -> impl Iterator<Item = &str> {
    group.get("hooks").and_then(Value::as_array).into_iter().flatten().filter_map(|h| h.get("command").and_then(Value::as_str))
}

/// Adds cairn's hook to every event that lacks it; an existing cairn entry whose command differs
/// (the binary moved) is updated in place. Returns how many entries were added or changed.
pub fn install(settings: &mut Value, command: &str, timeout_s: u64) -> Result<usize, SettingsError> {
    let root = object(settings, "the settings file")?;
    let hooks = object(root.entry("hooks").or_insert_with(|| json!({})), "\"hooks\"")?;
    let mut changed = 0;
    for (event, is_tool) in EVENTS {
        let groups = hooks.entry(event.to_string()).or_insert_with(|| json!([]));
        let groups = groups.as_array_mut().ok_or_else(|| SettingsError::NotAnArray(format!("\"hooks\".\"{event}\"")))?;
        let mut found = false;
        for group in groups.iter_mut() {
            let Some(entries) = group.get_mut("hooks").and_then(Value::as_array_mut) else { continue };
            for entry in entries.iter_mut() {
                let Some(existing) = entry.get("command").and_then(Value::as_str) else { continue };
                if !is_cairn_command(existing) {
                    continue;
                }
                found = true;
                if existing != command || entry.get("timeout").and_then(Value::as_u64) != Some(timeout_s) {
                    entry["command"] = json!(command);
                    entry["timeout"] = json!(timeout_s);
                    changed += 1;
                }
            }
        }
        if !found {
            let hook = json!({"type": "command", "command": command, "timeout": timeout_s});
            groups.push(if *is_tool { json!({"matcher": "*", "hooks": [hook]}) } else { json!({"hooks": [hook]}) });
            changed += 1;
        }
    }
    Ok(changed)
}

/// Removes every cairn hook entry. A group, an event or the `hooks` object that this leaves
/// empty goes too; anything that was empty before is left alone. Returns how many were removed.
pub fn uninstall(settings: &mut Value) -> Result<usize, SettingsError> {
    let root = object(settings, "the settings file")?;
    let Some(hooks_value) = root.get_mut("hooks") else { return Ok(0) };
    let hooks = object(hooks_value, "\"hooks\"")?;
    let mut removed = 0;
    let events: Vec<String> = hooks.keys().cloned().collect();
    for event in events {
        let Some(groups) = hooks.get_mut(&event).and_then(Value::as_array_mut) else { continue };
        let before = groups.len();
        let mut emptied_here = false;
        groups.retain_mut(|group| {
            let Some(entries) = group.get_mut("hooks").and_then(Value::as_array_mut) else { return true };
            let had = entries.len();
            entries.retain(|e| !e.get("command").and_then(Value::as_str).is_some_and(is_cairn_command));
            removed += had - entries.len();
            // A group that only held cairn's hook goes with it.
            !(had > 0 && entries.is_empty())
        });
        if before > 0 && groups.is_empty() {
            emptied_here = true;
        }
        if emptied_here {
            hooks.remove(&event);
        }
    }
    if removed > 0 && hooks.is_empty() {
        root.remove("hooks");
    }
    Ok(removed)
}

/// The events where a cairn hook is installed, with its command.
pub fn installed(settings: &Value) -> Vec<(String, String)> {
    let Some(hooks) = settings.get("hooks").and_then(Value::as_object) else { return Vec::new() };
    let mut out = Vec::new();
    for (event, groups) in hooks {
        for group in groups.as_array().into_iter().flatten() {
            for command in commands_of(group).filter(|c| is_cairn_command(c)) {
                out.push((event.clone(), command.to_string()));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const CMD: &str = "/home/u/.local/bin/cairn hook";

    fn original() -> Value {
        serde_json::from_str(
            r#"{
              "model": "opus",
              "hooks": {
                "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/guard.sh"}]}],
                "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}]
              },
              "permissions": {"allow": ["Bash(ls:*)"]}
            }"#,
        )
        .unwrap()
    }

    #[test]
    fn recognises_its_own_commands() {
        assert!(is_cairn_command("/usr/local/bin/cairn hook"));
        assert!(is_cairn_command("'/Users/me/My Tools/cairn' hook"));
        assert!(is_cairn_command(&hook_command(Path::new("/odd path/it's/cairn"))));
        assert!(!is_cairn_command("/usr/bin/cairnd hook"));
        assert!(!is_cairn_command("/usr/bin/cairn status"));
        assert!(!is_cairn_command("~/bin/guard.sh"));
        assert_eq!(hook_command(Path::new("/a/b/cairn")), "/a/b/cairn hook");
    }

    #[test]
    fn install_adds_every_event_and_keeps_the_rest_in_order() {
        let mut s = original();
        assert_eq!(install(&mut s, CMD, 5).unwrap(), EVENTS.len());
        let keys: Vec<&String> = s.as_object().unwrap().keys().collect();
        assert_eq!(keys, vec!["model", "hooks", "permissions"], "top-level order kept");
        let pre = s["hooks"]["PreToolUse"].as_array().unwrap();
        assert_eq!(pre[0]["hooks"][0]["command"], "~/bin/guard.sh", "the user's hook stays first");
        assert_eq!(pre[1]["matcher"], "*");
        assert_eq!(pre[1]["hooks"][0]["command"], CMD);
        assert_eq!(pre[1]["hooks"][0]["timeout"], 5);
        assert!(s["hooks"]["SessionStart"][0].get("matcher").is_none(), "no matcher on non-tool events");
        assert_eq!(installed(&s).len(), EVENTS.len());
    }

    #[test]
    fn install_is_idempotent_and_follows_a_moved_binary() {
        let mut once = original();
        install(&mut once, CMD, 5).unwrap();
        let mut twice = once.clone();
        assert_eq!(install(&mut twice, CMD, 5).unwrap(), 0);
        assert_eq!(once, twice);
        assert_eq!(install(&mut twice, "/opt/cairn/cairn hook", 5).unwrap(), EVENTS.len());
        assert_eq!(installed(&twice).len(), EVENTS.len(), "updated in place, not duplicated");
    }

    #[test]
    fn uninstall_restores_the_original() {
        for start in [original(), json!({}), json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}})] {
            let mut s = start.clone();
            install(&mut s, CMD, 5).unwrap();
            assert_eq!(uninstall(&mut s).unwrap(), EVENTS.len());
            assert_eq!(s, start);
            assert_eq!(uninstall(&mut s).unwrap(), 0);
        }
    }

    #[test]
    fn a_cairn_hook_sharing_a_group_leaves_the_group() {
        let mut s = json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "other"}, {"type": "command", "command": CMD}]}]}});
        assert_eq!(uninstall(&mut s).unwrap(), 1);
        assert_eq!(s, json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "other"}]}]}}));
    }

    #[test]
    fn refuses_shapes_it_does_not_understand() {
        assert_eq!(install(&mut json!([]), CMD, 5), Err(SettingsError::NotAnObject("the settings file".into())));
        assert!(matches!(install(&mut json!({"hooks": []}), CMD, 5), Err(SettingsError::NotAnObject(_))));
        assert!(matches!(install(&mut json!({"hooks": {"Stop": {}}}), CMD, 5), Err(SettingsError::NotAnArray(_))));
    }
}
