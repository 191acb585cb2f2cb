//! Claude Code's `settings.json`, edited to add or remove cairn's hooks and nothing else: every
//! other key and hook stays where it was, in order. Pure; the file I/O is in `commands/hooks.rs`.

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

/// Which tools an event's group covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tools {
    /// Not a tool event: no matcher.
    NotATool,
    /// Every tool but the look-arounds (`cairn_proto::tools::LOOK_AROUND`), unless the install
    /// asks for all: cairn neither advises on a read nor needs its success, and each hook process
    /// costs about 10 ms inside Claude Code.
    Acting,
    /// Every tool: failures are rare, cost nothing on a normal call, and a failed read is worth
    /// keeping.
    All,
    /// Only for interrupts (`--interrupts`), and only on shell commands, the one kind an
    /// interrupt stops: advice on a tool call is given with its result, which Claude Code shows
    /// the model at the same point, so without interrupts a hook before the call is a second
    /// process per call for nothing.
    Interrupts,
}

/// The events cairn listens to, and which tools each covers.
pub const EVENTS: &[(&str, Tools)] = &[
    ("PreToolUse", Tools::Interrupts),
    ("PostToolUse", Tools::Acting),
    ("PostToolUseFailure", Tools::All),
    ("UserPromptSubmit", Tools::NotATool),
    ("SessionStart", Tools::NotATool),
    ("Stop", Tools::NotATool),
    ("SessionEnd", Tools::NotATool),
];

/// The matcher of the interrupts' PreToolUse group: a regex, so that a plain `Bash` group the
/// user wrote around `cairn hook` stays theirs.
pub const INTERRUPTS_MATCHER: &str = "^Bash$";

/// What an install wires.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Wiring {
    /// `--all-tools`: the look-arounds too.
    pub all_tools: bool,
    /// `--interrupts`: a PreToolUse hook on shell commands, so that an interrupt can stop one.
    pub interrupts: bool,
}

/// Whether install puts cairn's group on an event of this kind, and with which matcher
/// (`Some(None)`: a group without one).
pub fn matcher(tools: Tools, wiring: Wiring) -> Option<Option<String>> {
    match tools {
        Tools::NotATool => Some(None),
        Tools::Interrupts if !wiring.interrupts => None,
        Tools::Interrupts => Some(Some(INTERRUPTS_MATCHER.to_string())),
        Tools::Acting if !wiring.all_tools => Some(Some(cairn_proto::tools::acting_matcher())),
        _ => Some(Some("*".to_string())),
    }
}

/// The events an install with `wiring` puts cairn on.
pub fn wired_events(wiring: Wiring) -> Vec<&'static str> {
    EVENTS.iter().filter(|(_, tools)| matcher(*tools, wiring).is_some()).map(|(e, _)| *e).collect()
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SettingsError {
    #[error("{0} is not a JSON object")]
    NotAnObject(String),
    #[error("{0} is not a JSON array")]
    NotAnArray(String),
}

/// A word quoted for the shell when it needs it.
fn shell_word(word: &str) -> String {
    if !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+".contains(c)) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The hook command for a `cairn` binary: its absolute path, quoted for the shell, then `hook`.
/// A home other than the default (`CAIRN_HOME` set where install ran) is written into the
/// command, so the hook reaches the daemon of that home rather than the default one.
pub fn hook_command(cairn: &Path, home: Option<&Path>) -> String {
    let program = format!("{} hook", shell_word(&cairn.display().to_string()));
    match home {
        Some(home) => format!("CAIRN_HOME={} {program}", shell_word(&home.display().to_string())),
        None => program,
    }
}

/// Reads one shell word at the start of `text` as `sh` would: plain characters, a backslash
/// escaping the next one, single quotes taken literally, double quotes in which a backslash
/// escapes `"`, `\`, `$` and `` ` ``. Returns the word unquoted and the rest; `None` for an
/// unterminated quote.
fn first_word(text: &str) -> Option<(String, &str)> {
    let text = text.trim_start();
    let mut word = String::new();
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            c if c.is_whitespace() => return Some((word, &text[i..])),
            '\\' => word.push(chars.next()?.1),
            '\'' => loop {
                match chars.next()? {
                    (_, '\'') => break,
                    (_, c) => word.push(c),
                }
            },
            '"' => loop {
                match chars.next()? {
                    (_, '"') => break,
                    (_, '\\') => {
                        let (_, next) = chars.next()?;
                        if !matches!(next, '"' | '\\' | '$' | '`') {
                            word.push('\\');
                        }
                        word.push(next);
                    }
                    (_, c) => word.push(c),
                }
            },
            c => word.push(c),
        }
    }
    (!word.is_empty()).then_some((word, ""))
}

/// A hook command taken apart: the variables it sets before the program (name, value), the
/// program, and what follows it.
type Parsed = (Vec<(String, String)>, String, String);

fn parse_command(command: &str) -> Option<Parsed> {
    let mut rest = command.trim();
    let mut vars = Vec::new();
    loop {
        let (word, after) = first_word(rest)?;
        match word.split_once('=') {
            Some((name, value)) if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !name.starts_with(|c: char| c.is_ascii_digit()) => {
                vars.push((name.to_string(), value.to_string()));
                rest = after;
            }
            _ => return Some((vars, word, after.trim().to_string())),
        }
    }
}

/// Whether `command` runs some `cairn` binary's `hook`: how cairn recognises its own entries,
/// wherever the binary was when they were written, with or without a home of its own.
pub fn is_cairn_command(command: &str) -> bool {
    parse_command(command).is_some_and(|(_, program, args)| args == "hook" && Path::new(&program).file_name().is_some_and(|n| n == "cairn"))
}

/// The program and the home (`CAIRN_HOME`, if the command sets one) of a cairn hook command.
pub fn command_parts(command: &str) -> Option<(PathBuf, Option<PathBuf>)> {
    let (vars, program, _) = parse_command(command)?;
    let home = vars.into_iter().rev().find(|(k, _)| k == "CAIRN_HOME").map(|(_, v)| PathBuf::from(v)).filter(|p| !p.as_os_str().is_empty());
    Some((PathBuf::from(program), home))
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

/// A group that install wrote: no matcher, `*`, or one that leaves out look-arounds (whichever
/// list a release of cairn wrote), holding cairn's hook alone. A `cairn hook` the user placed
/// elsewhere (under another matcher, beside other hooks) is the user's.
fn is_own_group(group: &Value) -> bool {
    let matcher_ok = match group.get("matcher") {
        None => true,
        Some(Value::String(m)) => m == "*" || m == INTERRUPTS_MATCHER || (m.starts_with("^(?!(") && m.ends_with(")$).*")),
        Some(_) => false,
    };
    let entries = group.get("hooks").and_then(Value::as_array);
    matcher_ok
        && entries.is_some_and(|e| e.len() == 1 && e[0].get("command").and_then(Value::as_str).is_some_and(is_cairn_command))
}

/// Adds cairn's group to every event `wiring` wants that lacks it; an existing one whose
/// command, timeout or matcher differs (the binary moved, other options) is updated in place, and
/// one on an event `wiring` does not want (an older install's PreToolUse) is taken out. Returns
/// how many groups were added, changed or taken out, and what the install created.
pub fn install(settings: &mut Value, command: &str, timeout_s: u64, wiring: Wiring) -> Result<(usize, Created), SettingsError> {
    let root = object(settings, "the settings file")?;
    let mut created = Created { hooks: !root.contains_key("hooks"), events: Vec::new() };
    let hooks = object(root.entry("hooks").or_insert_with(|| json!({})), "\"hooks\"")?;
    let mut changed = 0;
    for (event, tools) in EVENTS {
        let Some(matcher) = matcher(*tools, wiring) else {
            if let Some(groups) = hooks.get_mut(*event) {
                let groups = groups.as_array_mut().ok_or_else(|| SettingsError::NotAnArray(format!("\"hooks\".\"{event}\"")))?;
                let before = groups.len();
                groups.retain(|g| !is_own_group(g));
                changed += before - groups.len();
            }
            continue;
        };
        if !hooks.contains_key(*event) {
            created.events.push(event.to_string());
        }
        let groups = hooks.entry(event.to_string()).or_insert_with(|| json!([]));
        let groups = groups.as_array_mut().ok_or_else(|| SettingsError::NotAnArray(format!("\"hooks\".\"{event}\"")))?;
        match groups.iter_mut().find(|g| is_own_group(g)) {
            Some(group) => {
                let entry = &group["hooks"][0];
                let same = entry.get("command").and_then(Value::as_str) == Some(command)
                    && entry.get("timeout").and_then(Value::as_u64) == Some(timeout_s)
                    && group.get("matcher").and_then(Value::as_str) == matcher.as_deref();
                if !same {
                    group["hooks"][0]["command"] = json!(command);
                    group["hooks"][0]["timeout"] = json!(timeout_s);
                    if let (Some(m), Some(g)) = (&matcher, group.as_object_mut()) {
                        g.insert("matcher".into(), json!(m));
                    }
                    changed += 1;
                }
            }
            None => {
                let hook = json!({"type": "command", "command": command, "timeout": timeout_s});
                groups.push(match &matcher {
                    Some(m) => json!({"matcher": m, "hooks": [hook]}),
                    None => json!({"hooks": [hook]}),
                });
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

/// The events where cairn's group is installed, with its command and matcher.
pub fn installed(settings: &Value) -> Vec<(String, String, Option<String>)> {
    let Some(hooks) = settings.get("hooks").and_then(Value::as_object) else { return Vec::new() };
    let mut out = Vec::new();
    for (event, groups) in hooks {
        for group in groups.as_array().into_iter().flatten().filter(|g| is_own_group(g)) {
            if let Some(command) = group["hooks"][0].get("command").and_then(Value::as_str) {
                out.push((event.clone(), command.to_string(), group.get("matcher").and_then(Value::as_str).map(str::to_string)));
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
        assert!(is_cairn_command(&hook_command(Path::new("/odd path/it's/cairn"), None)));
        assert!(!is_cairn_command("/usr/bin/cairnd hook"));
        assert!(!is_cairn_command("/usr/bin/cairn status"));
        assert!(!is_cairn_command("~/bin/guard.sh"));
        assert_eq!(hook_command(Path::new("/a/b/cairn"), None), "/a/b/cairn hook");
        assert_eq!(hook_command(Path::new("/a/b/cairn"), Some(Path::new("/srv/my cairn"))), "CAIRN_HOME='/srv/my cairn' /a/b/cairn hook");
        for (command, program, home) in [
            ("CAIRN_HOME='/srv/my cairn' /a/b/cairn hook", "/a/b/cairn", Some("/srv/my cairn")),
            ("CAIRN_HOME=/h FOO=1 '/opt/it'\\''s/cairn' hook", "/opt/it's/cairn", Some("/h")),
            ("/usr/bin/cairn hook", "/usr/bin/cairn", None),
        ] {
            assert!(is_cairn_command(command), "{command}");
            assert_eq!(command_parts(command), Some((PathBuf::from(program), home.map(PathBuf::from))), "{command}");
        }
        assert!(!is_cairn_command("CAIRN_HOME=/h /usr/bin/other hook"));
        // Written by hand, the ways a shell allows.
        assert_eq!(command_parts(r"/my\ tools/cairn hook").map(|p| p.0), Some(PathBuf::from("/my tools/cairn")));
        assert_eq!(command_parts(r#""/my \"q\" tools/cairn" hook"#).map(|p| p.0), Some(PathBuf::from(r#"/my "q" tools/cairn"#)));
        assert!(is_cairn_command(r"/my\ tools/cairn hook"));
        assert!(!is_cairn_command("/usr/bin/cairn hooks"));
    }

    const FAST: Wiring = Wiring { all_tools: false, interrupts: false };
    const EVERY: Wiring = Wiring { all_tools: true, interrupts: true };

    fn n_events(w: Wiring) -> usize {
        wired_events(w).len()
    }

    #[test]
    fn install_adds_every_event_and_keeps_the_rest_in_order() {
        let mut s = original();
        let (changed, created) = install(&mut s, CMD, 5, FAST).unwrap();
        assert_eq!(changed, 6, "every event but PreToolUse");
        assert!(!created.hooks && !created.events.contains(&"PreToolUse".to_string()) && created.events.contains(&"Stop".to_string()));
        let keys: Vec<&String> = s.as_object().unwrap().keys().collect();
        assert_eq!(keys, vec!["model", "hooks", "permissions"], "top-level order kept");
        let pre = s["hooks"]["PreToolUse"].as_array().unwrap();
        assert_eq!(pre.len(), 1, "no hook before the call without interrupts: {pre:?}");
        assert_eq!(pre[0]["hooks"][0]["command"], "~/bin/guard.sh", "the user's hook stays");
        let post = &s["hooks"]["PostToolUse"][0];
        assert_eq!(post["matcher"], cairn_proto::tools::acting_matcher(), "look-arounds left out");
        assert_eq!(post["hooks"][0]["command"], CMD);
        assert_eq!(post["hooks"][0]["timeout"], 5);
        assert_eq!(s["hooks"]["PostToolUseFailure"][0]["matcher"], "*", "every failure is recorded");
        assert!(s["hooks"]["SessionStart"][0].get("matcher").is_none(), "no matcher on non-tool events");
        assert_eq!(installed(&s).len(), n_events(FAST));
        // With interrupts, a PreToolUse group on shell commands after the user's own.
        let (changed, _) = install(&mut s, CMD, 5, Wiring { interrupts: true, ..FAST }).unwrap();
        assert_eq!(changed, 1);
        assert_eq!(s["hooks"]["PreToolUse"][1]["matcher"], INTERRUPTS_MATCHER);
        assert_eq!(installed(&s).len(), EVENTS.len());
    }

    #[test]
    fn install_is_idempotent_and_follows_a_moved_binary() {
        for wiring in [FAST, EVERY] {
            let mut once = original();
            install(&mut once, CMD, 5, wiring).unwrap();
            let mut twice = once.clone();
            assert_eq!(install(&mut twice, CMD, 5, wiring).unwrap().0, 0);
            assert_eq!(once, twice);
            assert_eq!(install(&mut twice, "/opt/cairn/cairn hook", 5, wiring).unwrap().0, n_events(wiring));
            assert_eq!(installed(&twice).len(), n_events(wiring), "updated in place, not duplicated");
        }
    }

    #[test]
    fn uninstall_restores_the_original() {
        let starts = [
            original(),
            json!({}),
            json!({"hooks": {}, "x": 1}),
            json!({"hooks": {"Stop": [], "PreToolUse": [{"hooks": [{"type": "command", "command": "x"}]}]}}),
        ];
        for wiring in [FAST, EVERY] {
            for start in starts.clone() {
                let mut s = start.clone();
                let (_, created) = install(&mut s, CMD, 5, wiring).unwrap();
                assert_eq!(uninstall(&mut s, Some(&created)).unwrap(), n_events(wiring));
                assert_eq!(s, start);
                assert_eq!(uninstall(&mut s, Some(&created)).unwrap(), 0);
                // Without the record, only containers that cairn's removal emptied go.
                let mut s = start.clone();
                install(&mut s, CMD, 5, wiring).unwrap();
                uninstall(&mut s, None).unwrap();
                assert_eq!(installed(&s), vec![]);
            }
        }
    }

    #[test]
    fn the_users_own_cairn_entries_are_theirs() {
        let mine = json!({"hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": CMD}]},
            {"matcher": "*", "hooks": [{"type": "command", "command": "other"}, {"type": "command", "command": CMD}]}
        ]}});
        let mut s = mine.clone();
        let (_, created) = install(&mut s, "/new/cairn hook", 5, EVERY).unwrap();
        assert_eq!(s["hooks"]["PreToolUse"][0], mine["hooks"]["PreToolUse"][0], "install leaves the user's entry alone");
        assert_eq!(s["hooks"]["PreToolUse"].as_array().unwrap().len(), 3, "and adds its own group");
        // Without interrupts, the group cairn added goes again, and the user's stay.
        let mut fast = s.clone();
        assert_eq!(install(&mut fast, "/new/cairn hook", 5, FAST).unwrap().0, 2, "PreToolUse out, PostToolUse's matcher changed");
        assert_eq!(fast["hooks"]["PreToolUse"], mine["hooks"]["PreToolUse"]);
        assert_eq!(uninstall(&mut s, Some(&created)).unwrap(), EVENTS.len());
        assert_eq!(s, mine, "uninstall removes only what install added");
    }

    #[test]
    fn refuses_shapes_it_does_not_understand() {
        assert_eq!(install(&mut json!([]), CMD, 5, FAST).unwrap_err(), SettingsError::NotAnObject("the settings file".into()));
        assert!(matches!(install(&mut json!({"hooks": []}), CMD, 5, FAST), Err(SettingsError::NotAnObject(_))));
        assert!(matches!(install(&mut json!({"hooks": {"Stop": {}}}), CMD, 5, FAST), Err(SettingsError::NotAnArray(_))));
        assert!(matches!(install(&mut json!({"hooks": {"PreToolUse": {}}}), CMD, 5, FAST), Err(SettingsError::NotAnArray(_))));
    }

    #[test]
    fn an_older_install_is_brought_to_the_new_wiring() {
        let mut s = original();
        install(&mut s, CMD, 5, FAST).unwrap();
        let fast = s.clone();
        // Every tool and interrupts: PreToolUse added, PostToolUse's matcher changed.
        assert_eq!(install(&mut s, CMD, 5, EVERY).unwrap().0, 2);
        assert_eq!(s["hooks"]["PreToolUse"][1]["matcher"], INTERRUPTS_MATCHER);
        assert_eq!(s["hooks"]["PostToolUse"][0]["matcher"], "*");
        assert_eq!(installed(&s).len(), EVENTS.len(), "no duplicate groups");
        assert_eq!(install(&mut s, CMD, 5, FAST).unwrap().0, 2);
        assert_eq!(s, fast);
        // An older cairn's install (`*` on PreToolUse and PostToolUse) is its own: updated, the
        // hook before the call taken out, and uninstalled.
        let mut old = original();
        let hook = json!([{"matcher": "*", "hooks": [{"type": "command", "command": CMD, "timeout": 5}]}]);
        old["hooks"]["PreToolUse"].as_array_mut().unwrap().push(hook[0].clone());
        old["hooks"]["PostToolUse"] = hook;
        assert_eq!(installed(&old).len(), 2);
        install(&mut old, CMD, 5, FAST).unwrap();
        assert_eq!(old, fast);
        assert_eq!(uninstall(&mut old, None).unwrap(), n_events(FAST));
        assert_eq!(installed(&old), vec![]);
        // A matcher some other release wrote with a different list is recognised as well.
        let mut other = fast.clone();
        other["hooks"]["PostToolUse"][0]["matcher"] = json!("^(?!(Read|Grep)$).*");
        assert_eq!(installed(&other).len(), n_events(FAST));
    }

    proptest::proptest! {
        /// Whatever the paths of the binary and the home, the command install writes is read
        /// back as that binary and that home, and recognised as cairn's.
        #[test]
        fn written_commands_read_back(dir in "/[^\\x00]{0,30}", home in proptest::option::of("/[^\\x00]{1,30}")) {
            let cairn = Path::new(&dir).join("cairn");
            let command = hook_command(&cairn, home.as_deref().map(Path::new));
            proptest::prop_assert!(is_cairn_command(&command), "{}", command);
            proptest::prop_assert_eq!(command_parts(&command), Some((cairn.clone(), home.map(PathBuf::from))));
        }
    }
}

/// The name cairn's MCP server is registered under.
pub const MCP_NAME: &str = "cairn";

/// cairn's MCP server entry for Claude Code's `mcpServers`: this binary, `mcp`, and the home when
/// one is chosen.
pub fn mcp_entry(cairn: &std::path::Path, home: Option<&std::path::Path>) -> Value {
    let mut entry = serde_json::json!({"type": "stdio", "command": cairn.display().to_string(), "args": ["mcp"]});
    if let Some(home) = home {
        entry["env"] = serde_json::json!({"CAIRN_HOME": home.display().to_string()});
    }
    entry
}

/// Whether an `mcpServers` entry is cairn's own (`<...>/cairn mcp`).
fn is_cairn_mcp(entry: &Value) -> bool {
    let command = entry.get("command").and_then(Value::as_str).unwrap_or("");
    let ours = std::path::Path::new(command).file_name().is_some_and(|n| n == "cairn");
    ours && entry.get("args").and_then(Value::as_array).is_some_and(|a| a.len() == 1 && a[0] == "mcp")
}

/// Registers cairn's MCP server in a Claude Code config (`.mcp.json`, `~/.claude.json`), leaving
/// every other key as it was. `Ok(false)` when it was there already, the same; an entry named
/// `cairn` that is not cairn's is never overwritten.
pub fn add_mcp(config: &mut Value, entry: Value) -> Result<bool, SettingsError> {
    let root = config.as_object_mut().ok_or_else(|| SettingsError::NotAnObject("the file".into()))?;
    let servers = root.entry("mcpServers").or_insert_with(|| Value::Object(Default::default()));
    let servers = servers.as_object_mut().ok_or_else(|| SettingsError::NotAnObject("mcpServers".into()))?;
    match servers.get(MCP_NAME) {
        Some(existing) if *existing == entry => Ok(false),
        Some(existing) if !is_cairn_mcp(existing) => Err(SettingsError::NotAnObject("mcpServers.cairn (an entry of that name that is not cairn's)".into())),
        _ => {
            servers.insert(MCP_NAME.into(), entry);
            Ok(true)
        }
    }
}

/// Removes cairn's MCP server entry (only cairn's own); an `mcpServers` left empty goes too.
pub fn remove_mcp(config: &mut Value) -> bool {
    let Some(root) = config.as_object_mut() else { return false };
    let Some(servers) = root.get_mut("mcpServers").and_then(Value::as_object_mut) else { return false };
    if !servers.get(MCP_NAME).is_some_and(is_cairn_mcp) {
        return false;
    }
    servers.remove(MCP_NAME);
    if servers.is_empty() {
        root.remove("mcpServers");
    }
    true
}

#[cfg(test)]
mod mcp_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_mcp_entry_is_added_once_and_removed_alone() {
        let mut config = json!({"mcpServers": {"other": {"command": "x"}}, "numStartups": 3});
        let entry = mcp_entry(std::path::Path::new("/opt/bin/cairn"), Some(std::path::Path::new("/h")));
        assert!(add_mcp(&mut config, entry.clone()).unwrap());
        assert!(!add_mcp(&mut config, entry).unwrap(), "already there");
        assert_eq!(config["mcpServers"]["cairn"]["args"], json!(["mcp"]));
        assert_eq!(config["mcpServers"]["cairn"]["env"]["CAIRN_HOME"], "/h");
        assert!(remove_mcp(&mut config));
        assert_eq!(config, json!({"mcpServers": {"other": {"command": "x"}}, "numStartups": 3}), "everything else as it was");
        assert!(!remove_mcp(&mut config));
        let mut foreign = json!({"mcpServers": {"cairn": {"command": "/usr/bin/other-tool"}}});
        assert!(add_mcp(&mut foreign, mcp_entry(std::path::Path::new("/b/cairn"), None)).is_err(), "never overwrites another tool's entry");
        assert!(!remove_mcp(&mut foreign));
        let mut empty = json!({});
        add_mcp(&mut empty, mcp_entry(std::path::Path::new("/b/cairn"), None)).unwrap();
        assert!(remove_mcp(&mut empty) && empty == json!({}));
    }
}
