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

/// What an install created in a settings file, so that uninstall takes away exactly that.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Created {
    /// The `hooks` object did not exist.
    pub hooks: bool,
    /// Event lists that did not exist.
    pub events: Vec<String>,
}

fn object<'a>(value: &'a mut Value, what: &str) -> Result<&'a mut Map<String, Value>, SettingsError> {
    value.as_object_mut().ok_or_else(|| SettingsError::NotAnObject(what.to_string()))
}

/// A group that install wrote: matcher `*` or none, holding cairn's hook alone. A `cairn hook`
/// the user placed elsewhere (under another matcher, beside other hooks) is the user's.
fn is_own_group(group: &Value) -> bool {
    let matcher_ok = match group.get("matcher") {
        None => true,
        Some(m) => m == "*",
    };
    let entries = group.get("hooks").and_then(Value::as_array);
    matcher_ok
        && entries.is_some_and(|e| e.len() == 1 && e[0].get("command").and_then(Value::as_str).is_some_and(is_cairn_command))
}

/// Adds cairn's group to every event that lacks it; an existing one whose command or timeout
/// differs (the binary moved) is updated in place. Returns how many groups were added or changed,
/// and what the install created.
pub fn install(settings: &mut Value, command: &str, timeout_s: u64) -> Result<(usize, Created), SettingsError> {
    let root = object(settings, "the settings file")?;
    let mut created = Created { hooks: !root.contains_key("hooks"), events: Vec::new() };
    let hooks = object(root.entry("hooks").or_insert_with(|| json!({})), "\"hooks\"")?;
    let mut changed = 0;
    for (event, is_tool) in EVENTS {
        if !hooks.contains_key(*event) {
            created.events.push(event.to_string());
        }
        let groups = hooks.entry(event.to_string()).or_insert_with(|| json!([]));
        let groups = groups.as_array_mut().ok_or_else(|| SettingsError::NotAnArray(format!("\"hooks\".\"{event}\"")))?;
        match groups.iter_mut().find(|g| is_own_group(g)) {
            Some(group) => {
                let entry = &mut group["hooks"][0];
                if entry.get("command").and_then(Value::as_str) != Some(command) || entry.get("timeout").and_then(Value::as_u64) != Some(timeout_s) {
                    entry["command"] = json!(command);
                    entry["timeout"] = json!(timeout_s);
                    changed += 1;
                }
            }
            None => {
                let hook = json!({"type": "command", "command": command, "timeout": timeout_s});
                groups.push(if *is_tool { json!({"matcher": "*", "hooks": [hook]}) } else { json!({"hooks": [hook]}) });
                changed += 1;
            }
        }
    }
    Ok((changed, created))
}

/// Removes cairn's groups, and the containers the install created (`created`). Without that
/// record (an install by an older cairn), a container that removing cairn's groups left empty
/// goes too. Returns how many groups were removed.
pub fn uninstall(settings: &mut Value, created: Option<&Created>) -> Result<usize, SettingsError> {
    let root = object(settings, "the settings file")?;
    let Some(hooks_value) = root.get_mut("hooks") else { return Ok(0) };
    let hooks = object(hooks_value, "\"hooks\"")?;
    let mut removed = 0;
    let events: Vec<String> = hooks.keys().cloned().collect();
    for event in events {
        let Some(groups) = hooks.get_mut(&event).and_then(Value::as_array_mut) else { continue };
        let before = groups.len();
        groups.retain(|g| !is_own_group(g));
        let here = before - groups.len();
        removed += here;
        let was_created = created.map_or(here > 0, |c| c.events.contains(&event));
        if groups.is_empty() && was_created {
            hooks.remove(&event);
        }
    }
    let hooks_created = created.map_or(removed > 0, |c| c.hooks);
    if hooks.is_empty() && hooks_created {
        root.remove("hooks");
    }
    Ok(removed)
}

/// The events where cairn's group is installed, with its command.
pub fn installed(settings: &Value) -> Vec<(String, String)> {
    let Some(hooks) = settings.get("hooks").and_then(Value::as_object) else { return Vec::new() };
    let mut out = Vec::new();
    for (event, groups) in hooks {
        for group in groups.as_array().into_iter().flatten().filter(|g| is_own_group(g)) {
            if let Some(command) = group["hooks"][0].get("command").and_then(Value::as_str) {
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
        let (changed, created) = install(&mut s, CMD, 5).unwrap();
        assert_eq!(changed, EVENTS.len());
        assert!(!created.hooks && !created.events.contains(&"PreToolUse".to_string()) && created.events.contains(&"Stop".to_string()));
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
        assert_eq!(install(&mut twice, CMD, 5).unwrap().0, 0);
        assert_eq!(once, twice);
        assert_eq!(install(&mut twice, "/opt/cairn/cairn hook", 5).unwrap().0, EVENTS.len());
        assert_eq!(installed(&twice).len(), EVENTS.len(), "updated in place, not duplicated");
    }

    #[test]
    fn uninstall_restores_the_original() {
        let starts = [
            original(),
            json!({}),
            json!({"hooks": {}, "x": 1}),
            json!({"hooks": {"Stop": [], "PreToolUse": [{"hooks": [{"type": "command", "command": "x"}]}]}}),
        ];
        for start in starts {
            let mut s = start.clone();
            let (_, created) = install(&mut s, CMD, 5).unwrap();
            assert_eq!(uninstall(&mut s, Some(&created)).unwrap(), EVENTS.len());
            assert_eq!(s, start);
            assert_eq!(uninstall(&mut s, Some(&created)).unwrap(), 0);
            // Without the record, only containers that cairn's removal emptied go.
            let mut s = start.clone();
            install(&mut s, CMD, 5).unwrap();
            uninstall(&mut s, None).unwrap();
            assert_eq!(installed(&s), vec![]);
        }
    }

    #[test]
    fn the_users_own_cairn_entries_are_theirs() {
        let mine = json!({"hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": CMD}]},
            {"matcher": "*", "hooks": [{"type": "command", "command": "other"}, {"type": "command", "command": CMD}]}
        ]}});
        let mut s = mine.clone();
        let (_, created) = install(&mut s, "/new/cairn hook", 5).unwrap();
        assert_eq!(s["hooks"]["PreToolUse"][0], mine["hooks"]["PreToolUse"][0], "install leaves the user's entry alone");
        assert_eq!(s["hooks"]["PreToolUse"].as_array().unwrap().len(), 3, "and adds its own group");
        assert_eq!(uninstall(&mut s, Some(&created)).unwrap(), EVENTS.len());
        assert_eq!(s, mine, "uninstall removes only what install added");
    }

    #[test]
    fn refuses_shapes_it_does_not_understand() {
        assert_eq!(install(&mut json!([]), CMD, 5).unwrap_err(), SettingsError::NotAnObject("the settings file".into()));
        assert!(matches!(install(&mut json!({"hooks": []}), CMD, 5), Err(SettingsError::NotAnObject(_))));
        assert!(matches!(install(&mut json!({"hooks": {"Stop": {}}}), CMD, 5), Err(SettingsError::NotAnArray(_))));
    }
}
