//! `cairn hooks install|uninstall|status`: cairn's entries in Claude Code's `settings.json`,
//! user-wide (`~/.claude/settings.json`) or for the current checkout (`.claude/settings.json` at
//! its top). A timestamped backup is written beside the file before any change; a file that does
//! not parse is refused and left as it is. What an install created (the file, its folder,
//! containers inside it) is recorded in cairn's data folder, so that uninstall takes away
//! exactly that.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::Failure;
use crate::settings;

/// Which settings file.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Target {
    User,
    Project,
}

pub fn settings_path(target: Target) -> Result<PathBuf, Failure> {
    Ok(match target {
        Target::User => super::user_home()?.join(".claude/settings.json"),
        Target::Project => cairn_proto::project::checkout_root(&std::env::current_dir()?).join(".claude/settings.json"),
    })
}

/// The file to edit, the same whether or not it exists yet: a symlinked settings file (dotfile
/// managers) is edited where it points, even when its target does not exist yet, and the folders
/// on the way are resolved as far as they exist.
fn resolve(path: &Path) -> PathBuf {
    let mut path = path.to_path_buf();
    for _ in 0..16 {
        match std::fs::read_link(&path) {
            Ok(target) => path = path.parent().map_or(target.clone(), |dir| dir.join(&target)),
            Err(_) => break,
        }
    }
    // Canonicalise the longest existing ancestor and keep the rest as written.
    let mut rest = Vec::new();
    let mut base = path.as_path();
    loop {
        if let Ok(real) = std::fs::canonicalize(base) {
            return rest.iter().rev().fold(real, |acc: PathBuf, part| acc.join(part));
        }
        match (base.parent(), base.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                base = parent;
            }
            _ => return path,
        }
    }
}

/// What `install` created in one settings file.
#[derive(Default, serde::Serialize, serde::Deserialize)]
struct Record {
    created_file: bool,
    created_dir: bool,
    created: settings::Created,
}

fn records_path() -> Result<PathBuf, Failure> {
    Ok(cairn_proto::Paths::from_env()?.data_dir.join("hooks-installed.json"))
}

fn load_records() -> std::collections::BTreeMap<String, Record> {
    records_path().ok().and_then(|p| std::fs::read_to_string(p).ok()).and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default()
}

fn save_records(records: &std::collections::BTreeMap<String, Record>) -> Result<(), Failure> {
    let path = records_path()?;
    let io = |e: std::io::Error| Failure::new(1, format!("cannot write {}: {e}", path.display()));
    if let Some(dir) = path.parent() {
        cairn_proto::paths::create_private_dir(dir).map_err(|e| Failure::new(1, e.to_string()))?;
    }
    std::fs::write(&path, serde_json::to_string_pretty(records).expect("records serialise")).map_err(io)
}

/// Copies `path` beside itself as `settings.json.cairn-backup-<UTC time>`.
fn backup(path: &Path) -> Result<PathBuf, Failure> {
    let stamp = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string().replace(':', "");
    let name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
    // Never overwrite an earlier backup, even one from the same second.
    let target = (0..)
        .map(|n| path.with_file_name(if n == 0 { format!("{name}.cairn-backup-{stamp}") } else { format!("{name}.cairn-backup-{stamp}-{n}") }))
        .find(|p| !p.exists())
        .expect("an unused backup name");
    std::fs::copy(path, &target).map_err(|e| Failure::new(1, format!("cannot back up {}: {e}", path.display())))?;
    Ok(target)
}

/// The settings as JSON; `None` when the file does not exist. A file that does not parse is an
/// error that says where, so the user can fix it.
fn read(path: &Path) -> Result<Option<Value>, Failure> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Failure::new(1, format!("cannot read {}: {e}", path.display()))),
    };
    if text.trim().is_empty() {
        return Ok(Some(Value::Object(Default::default())));
    }
    serde_json::from_str(&text).map(Some).map_err(|e| {
        let message = e.to_string();
        let message = message.rsplit_once(" at line ").map_or(message.as_str(), |(m, _)| m);
        Failure::new(1, format!("cannot parse {}: line {} column {}: {message}; nothing was changed: fix the file or restore a backup", path.display(), e.line(), e.column()))
    })
}

/// Backs up the current file (if any), then replaces it atomically, keeping its permissions.
fn write(path: &Path, value: &Value) -> Result<Option<PathBuf>, Failure> {
    let io = |e: std::io::Error| Failure::new(1, format!("cannot write {}: {e}", path.display()));
    let saved = if path.exists() { Some(backup(path)?) } else { None };
    let tmp = path.with_extension("json.cairn-tmp");
    let mut text = serde_json::to_string_pretty(value).expect("settings serialise");
    text.push('\n');
    std::fs::write(&tmp, text).map_err(io)?;
    if let Ok(meta) = std::fs::metadata(path) {
        std::fs::set_permissions(&tmp, meta.permissions()).map_err(io)?;
    }
    std::fs::rename(&tmp, path).map_err(io)?;
    Ok(saved)
}

/// Claude Code's timeout for the hook, in whole seconds, well past the hook's own deadline.
fn timeout_s() -> u64 {
    let deadline_ms: u64 = std::env::var("CAIRN_HOOK_DEADLINE_MS").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(crate::hook::DEFAULT_DEADLINE_MS);
    (deadline_ms.div_ceil(1000) + 2).max(5)
}

fn describe_error(path: &Path, e: settings::SettingsError) -> Failure {
    Failure::new(1, format!("{}: {e}; nothing was changed", path.display()))
}

/// The home the user chose (`CAIRN_HOME`), made absolute; `None` for the default home.
fn chosen_home() -> Result<Option<PathBuf>, Failure> {
    match std::env::var_os("CAIRN_HOME").filter(|h| !h.is_empty()) {
        Some(home) => Ok(Some(std::path::absolute(PathBuf::from(home))?)),
        None => Ok(None),
    }
}

/// Where an installed hook command leads: the socket of the home it uses (the one it names, else
/// the default), and whether a daemon answers there.
pub struct Reach {
    pub command: String,
    pub socket: PathBuf,
    /// The home the command names, if any.
    pub home: Option<PathBuf>,
    pub answers: bool,
    /// Whether it is the daemon this shell's `cairn` talks to.
    pub same_as_here: bool,
}

/// Follows an installed hook command to its daemon. Claude Code runs it with its own
/// environment: a command that names no home uses the default one.
pub fn reach(command: &str) -> Option<Reach> {
    let (_, home) = settings::command_parts(command)?;
    let lookup = |k: &str| match k {
        "CAIRN_HOME" => home.as_ref().map(|h| h.clone().into_os_string()),
        _ => std::env::var_os(k).filter(|v| !v.is_empty()),
    };
    let paths = cairn_proto::Paths::resolve(lookup, cairn_proto::paths::uid()).ok()?;
    let here = cairn_proto::Paths::from_env().ok().map(|p| p.socket);
    let answers = std::os::unix::net::UnixStream::connect(&paths.socket).is_ok();
    Some(Reach { command: command.to_string(), same_as_here: here.as_ref() == Some(&paths.socket), socket: paths.socket, home, answers })
}

pub fn install(target: Target, wiring: settings::Wiring) -> Result<(), Failure> {
    let shown = settings_path(target)?;
    let path = resolve(&shown);
    let cairn = std::env::current_exe().map_err(|e| Failure::new(1, format!("cannot tell where this cairn binary is: {e}")))?;
    let existing = read(&path)?;
    let created_file = existing.is_none();
    let created_dir = created_file && path.parent().is_some_and(|d| !d.exists());
    let mut value = existing.unwrap_or_else(|| Value::Object(Default::default()));
    let home = chosen_home()?;
    let (changed, created) = settings::install(&mut value, &settings::hook_command(&cairn, home.as_deref()), timeout_s(), wiring).map_err(|e| describe_error(&path, e))?;
    if changed == 0 {
        outln!("cairn's hooks are already installed in {}", shown.display());
        return Ok(());
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Failure::new(1, format!("cannot create {}: {e}", dir.display())))?;
    }
    // Keep the first install's record, and add what a later install created (a container for
    // an event the first did not wire), so that uninstall takes all of it away.
    let mut records = load_records();
    let key = path.display().to_string();
    match records.get_mut(&key) {
        Some(record) if !created_file => {
            for event in created.events {
                if !record.created.events.contains(&event) {
                    record.created.events.push(event);
                }
            }
        }
        _ => {
            records.insert(key, Record { created_file, created_dir, created });
        }
    }
    save_records(&records)?;
    let saved = write(&path, &value)?;
    outln!("installed cairn's hooks for {} events in {}", settings::wired_events(wiring).len(), shown.display());
    if !wiring.all_tools {
        outln!("tool calls that only look around ({}...) run without cairn; `--all-tools` includes them", cairn_proto::tools::LOOK_AROUND[..3].join(", "));
    }
    if !wiring.interrupts {
        outln!("no hook before a command runs, so interrupts cannot stop one; `--interrupts` adds it");
    }
    if let Some(b) = saved {
        outln!("backup of the previous file: {}", b.display());
    }
    Ok(())
}

/// After an uninstall that found nothing: the other settings file's cairn hooks, if it has some,
/// and the flag that removes them.
fn name_the_others(target: Target) {
    let (other, flag) = match target {
        Target::User => (Target::Project, "--project"),
        Target::Project => (Target::User, "--user"),
    };
    let (Ok(mine), Ok(theirs)) = (settings_path(target), settings_path(other)) else { return };
    if resolve(&mine) == resolve(&theirs) {
        return;
    }
    if let Ok(Some(v)) = read(&resolve(&theirs)) {
        let n = settings::installed(&v).len();
        if n > 0 {
            outln!("{n} cairn hooks are in {}; `cairn hooks uninstall {flag}` removes them", theirs.display());
        }
    }
}

/// Where Claude Code reads MCP servers for a target: the project's `.mcp.json`, or the user's
/// `~/.claude.json`.
pub fn mcp_path(target: Target) -> Result<PathBuf, Failure> {
    Ok(match target {
        Target::User => super::user_home()?.join(".claude.json"),
        Target::Project => cairn_proto::project::checkout_root(&std::env::current_dir()?).join(".mcp.json"),
    })
}

/// Registers `cairn mcp` for Claude Code (`hooks install --mcp`).
pub fn install_mcp(target: Target) -> Result<(), Failure> {
    let shown = mcp_path(target)?;
    let path = resolve(&shown);
    let cairn = std::env::current_exe().map_err(|e| Failure::new(1, format!("cannot tell where this cairn binary is: {e}")))?;
    let existing = read(&path)?;
    let created_file = existing.is_none();
    let mut value = existing.unwrap_or_else(|| Value::Object(Default::default()));
    let entry = settings::mcp_entry(&cairn, chosen_home()?.as_deref());
    if !settings::add_mcp(&mut value, entry).map_err(|e| describe_error(&path, e))? {
        outln!("cairn's MCP server is already registered in {}", shown.display());
        return Ok(());
    }
    if created_file {
        // Made by cairn: uninstall takes the file away again, as the settings file's.
        let mut records = load_records();
        records.insert(path.display().to_string(), Record { created_file: true, created_dir: false, created: settings::Created::default() });
        save_records(&records)?;
    }
    let saved = write(&path, &value)?;
    outln!("registered cairn's MCP server (`cairn mcp`) in {}{}", shown.display(), saved.map(|b| format!(" (backup: {})", b.display())).unwrap_or_default());
    if target == Target::Project {
        outln!("Claude Code asks once before it uses a project's MCP servers; its tools are named mcp__cairn__*");
    }
    Ok(())
}

/// Removes cairn's MCP server entry (`hooks uninstall`), leaving every other server.
fn uninstall_mcp(target: Target) -> Result<(), Failure> {
    let shown = mcp_path(target)?;
    let path = resolve(&shown);
    let Some(mut value) = read(&path)? else { return Ok(()) };
    if settings::remove_mcp(&mut value) {
        let mut records = load_records();
        let key = path.display().to_string();
        let created = records.get(&key).is_some_and(|r| r.created_file);
        let emptied = value.as_object().is_some_and(|o| o.is_empty() || (o.len() == 1 && o.get("mcpServers").is_some_and(|m| m.as_object().is_some_and(|m| m.is_empty()))));
        if created && emptied {
            remove_created(&path)?;
            outln!("removed cairn's MCP server and the file cairn had created, {}", shown.display());
        } else {
            rewrite(&path, &value, &format!("removed cairn's MCP server from {}", shown.display()))?;
        }
        records.remove(&key);
        save_records(&records)?;
    }
    Ok(())
}

/// Removes a file cairn created (settings or MCP), now empty of cairn's entries.
fn remove_created(path: &Path) -> Result<(), Failure> {
    std::fs::remove_file(path).map_err(|e| Failure::new(1, format!("cannot remove {}: {e}", path.display())))
}

/// Writes `value` back to the file at `path`, says `what` was done, and where the backup of the
/// previous file is.
fn rewrite(path: &Path, value: &Value, what: &str) -> Result<(), Failure> {
    let saved = write(path, value)?;
    outln!("{what}");
    if let Some(b) = saved {
        outln!("backup of the previous file: {}", b.display());
    }
    Ok(())
}

/// Whether the MCP file of `target` can be read (before anything is changed for `install --mcp`).
pub fn check_mcp(target: Target) -> Result<(), Failure> {
    read(&resolve(&mcp_path(target)?)).map(|_| ())
}

/// Removes cairn's hooks, then its MCP server entry: a file of one that cannot be read does not
/// keep the other in place.
pub fn uninstall(target: Target) -> Result<(), Failure> {
    let hooks = uninstall_hooks(target);
    let mcp = uninstall_mcp(target);
    hooks.and(mcp)
}

fn uninstall_hooks(target: Target) -> Result<(), Failure> {
    let shown = settings_path(target)?;
    let path = resolve(&shown);
    let Some(mut value) = read(&path)? else {
        outln!("no settings file at {}; nothing to remove", shown.display());
        name_the_others(target);
        return Ok(());
    };
    let mut records = load_records();
    let key = path.display().to_string();
    let record = records.get(&key);
    let removed = settings::uninstall(&mut value, record.map(|r| &r.created)).map_err(|e| describe_error(&path, e))?;
    if removed == 0 {
        outln!("no cairn hooks in {}", shown.display());
        name_the_others(target);
        return Ok(());
    }
    let emptied = value.as_object().is_some_and(|o| o.is_empty());
    if emptied && record.is_some_and(|r| r.created_file) {
        // cairn made this file (and perhaps its folder): it goes, as if never there. Nothing of
        // the user's is in it, so no backup is left behind either.
        remove_created(&path)?;
        if record.is_some_and(|r| r.created_dir)
            && let Some(dir) = path.parent()
        {
            let _ = std::fs::remove_dir(dir);
        }
        outln!("removed {removed} cairn hooks and the settings file cairn had created, {}", shown.display());
    } else {
        rewrite(&path, &value, &format!("removed {removed} cairn hooks from {}", shown.display()))?;
    }
    records.remove(&key);
    save_records(&records)?;
    Ok(())
}

/// One settings file's cairn hooks as (event, command, matcher), or why it could not be read.
pub type Installed = Result<Vec<(String, String, Option<String>)>, String>;

/// What is installed where; used by `status` and `doctor`. Each file once, even when the
/// project's settings are the user's (run from the home folder).
pub fn report() -> Vec<(PathBuf, Installed)> {
    let mut paths: Vec<PathBuf> = [Target::User, Target::Project].into_iter().filter_map(|t| settings_path(t).ok()).collect();
    paths.dedup_by(|a, b| resolve(a) == resolve(b));
    paths
        .into_iter()
        .map(|path| {
            let found = match read(&path) {
                Ok(Some(v)) => Ok(settings::installed(&v)),
                Ok(None) => Ok(Vec::new()),
                Err(f) => Err(f.message),
            };
            (path, found)
        })
        .collect()
}

/// Whether the cairn plugin is enabled in the user's Claude Code settings (`enabledPlugins`).
pub fn plugin_enabled() -> bool {
    let Ok(path) = settings_path(Target::User) else { return false };
    let Ok(Some(settings)) = read(&path) else { return false };
    settings.get("enabledPlugins").and_then(Value::as_object).is_some_and(|p| p.iter().any(|(k, v)| k.starts_with("cairn@") && v == &Value::Bool(true)))
}

/// A hook's reach in words, with what to do when it does not reach this home's daemon.
pub fn describe_reach(r: &Reach) -> String {
    let home = r.home.as_ref().map_or("the default home".to_string(), |h| format!("home {}", h.display()));
    match (r.answers, r.same_as_here) {
        (true, true) => format!("the running daemon ({home}, {})", r.socket.display()),
        (true, false) => format!("a daemon of {home} ({}), not the one this shell's cairn uses: run `cairn hooks install` with the CAIRN_HOME you want", r.socket.display()),
        (false, true) => format!("no daemon answers on {} ({home}): start it with `cairn up`", r.socket.display()),
        (false, false) => format!(
            "no daemon answers on {} ({home}), and this shell's cairn uses another home: run `cairn hooks install` with the CAIRN_HOME you want",
            r.socket.display()
        ),
    }
}

pub fn status() -> Result<(), Failure> {
    if plugin_enabled() {
        outln!("the cairn plugin is enabled in Claude Code (its hooks come from the plugin)");
    }
    for (path, found) in report() {
        match found {
            Err(e) => outln!("{}: {e}", path.display()),
            Ok(list) if list.is_empty() => outln!("{}: no cairn hooks", path.display()),
            Ok(list) => {
                let before = list.iter().find(|(e, _, _)| e == "PreToolUse").map(|(_, _, m)| m.clone());
                let interrupts = before.is_some();
                if before.as_ref().is_some_and(|m| m.as_deref() != Some(settings::INTERRUPTS_MATCHER)) {
                    outln!("  an earlier release's wiring (a hook before every tool call): run `cairn hooks install` to bring it up to date (one hook process per call instead of two)");
                }
                let wanted = settings::wired_events(settings::Wiring { all_tools: false, interrupts });
                let missing: Vec<&str> = wanted.into_iter().filter(|e| !list.iter().any(|(ev, _, _)| ev == e)).collect();
                outln!("{}: cairn hooks for {} events{}", path.display(), list.len(), if missing.is_empty() { String::new() } else { format!(" (missing: {})", missing.join(", ")) });
                if let Some((_, _, matcher)) = list.iter().find(|(e, _, _)| e == "PostToolUse") {
                    let every = matcher.as_deref() == Some("*");
                    outln!("  tool calls: {}", if every { "every tool (`--all-tools`)" } else { "every tool but the look-arounds (Read, Grep, Glob...)" });
                }
                outln!("  interrupts: {}", if interrupts { "a hook runs before each shell command (`--interrupts`)" } else { "off (no hook before a command; `--interrupts` adds one)" });
                let mut commands: Vec<&str> = list.iter().map(|(_, c, _)| c.as_str()).collect();
                commands.dedup();
                for c in commands {
                    let binary = settings::command_parts(c).map(|(p, _)| p).unwrap_or_default();
                    let state = if binary.is_file() { "" } else { "  (binary not found: run `cairn hooks install` again)" };
                    outln!("  runs: {c}{state}");
                    if let Some(r) = reach(c) {
                        outln!("  reaches: {}", describe_reach(&r));
                    }
                }
            }
        }
    }
    Ok(())
}
