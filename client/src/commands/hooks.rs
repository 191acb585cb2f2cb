//! `cairn hooks install|uninstall|status`: cairn's entries in Claude Code's `settings.json`,
//! user-wide (`~/.claude/settings.json`) or for the current project (`.claude/settings.json` at
//! its root). A timestamped backup is written before any change; a file that does not parse is
//! refused and left as it is.

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
        Target::Project => {
            let cwd = std::env::current_dir()?;
            PathBuf::from(cairn_proto::project::project_of(&cwd)).join(".claude/settings.json")
        }
    })
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
    let backup = if path.exists() {
        let stamp = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string().replace(':', "");
        let name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
        // Never overwrite an earlier backup, even one from the same second.
        let backup = (0..)
            .map(|n| path.with_file_name(if n == 0 { format!("{name}.cairn-backup-{stamp}") } else { format!("{name}.cairn-backup-{stamp}-{n}") }))
            .find(|p| !p.exists())
            .expect("an unused backup name");
        std::fs::copy(path, &backup).map_err(io)?;
        Some(backup)
    } else {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        None
    };
    let tmp = path.with_extension("json.cairn-tmp");
    let mut text = serde_json::to_string_pretty(value).expect("settings serialise");
    text.push('\n');
    std::fs::write(&tmp, text).map_err(io)?;
    if let Ok(meta) = std::fs::metadata(path) {
        std::fs::set_permissions(&tmp, meta.permissions()).map_err(io)?;
    }
    std::fs::rename(&tmp, path).map_err(io)?;
    Ok(backup)
}

/// Claude Code's timeout for the hook, in whole seconds, well past the hook's own deadline.
fn timeout_s() -> u64 {
    let deadline_ms: u64 = std::env::var("CAIRN_HOOK_DEADLINE_MS").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(crate::hook::DEFAULT_DEADLINE_MS);
    (deadline_ms.div_ceil(1000) + 2).max(5)
}

fn describe_error(path: &Path, e: settings::SettingsError) -> Failure {
    Failure::new(1, format!("{}: {e}; nothing was changed", path.display()))
}

pub fn install(target: Target) -> Result<(), Failure> {
    let path = settings_path(target)?;
    let cairn = std::env::current_exe().and_then(std::fs::canonicalize).map_err(|e| Failure::new(1, format!("cannot tell where this cairn binary is: {e}")))?;
    let mut value = read(&path)?.unwrap_or_else(|| Value::Object(Default::default()));
    let changed = settings::install(&mut value, &settings::hook_command(&cairn), timeout_s()).map_err(|e| describe_error(&path, e))?;
    if changed == 0 {
        println!("cairn's hooks are already installed in {}", path.display());
        return Ok(());
    }
    let backup = write(&path, &value)?;
    println!("installed cairn's hooks for {} events in {}", settings::EVENTS.len(), path.display());
    if let Some(b) = backup {
        println!("backup of the previous file: {}", b.display());
    }
    Ok(())
}

pub fn uninstall(target: Target) -> Result<(), Failure> {
    let path = settings_path(target)?;
    let Some(mut value) = read(&path)? else {
        println!("no settings file at {}; nothing to remove", path.display());
        return Ok(());
    };
    let removed = settings::uninstall(&mut value).map_err(|e| describe_error(&path, e))?;
    if removed == 0 {
        println!("no cairn hooks in {}", path.display());
        return Ok(());
    }
    let backup = write(&path, &value)?;
    println!("removed {removed} cairn hooks from {}", path.display());
    if let Some(b) = backup {
        println!("backup of the previous file: {}", b.display());
    }
    Ok(())
}

/// What is installed where; used by `status` and `doctor`.
pub fn report() -> Vec<(PathBuf, Result<Vec<(String, String)>, String>)> {
    [Target::User, Target::Project]
        .into_iter()
        .filter_map(|t| settings_path(t).ok())
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

pub fn status() -> Result<(), Failure> {
    for (path, found) in report() {
        match found {
            Err(e) => println!("{}: {e}", path.display()),
            Ok(list) if list.is_empty() => println!("{}: no cairn hooks", path.display()),
            Ok(list) => {
                let missing: Vec<&str> = settings::EVENTS.iter().map(|(e, _)| *e).filter(|e| !list.iter().any(|(ev, _)| ev == e)).collect();
                println!("{}: cairn hooks for {} events{}", path.display(), list.len(), if missing.is_empty() { String::new() } else { format!(" (missing: {})", missing.join(", ")) });
                let mut commands: Vec<&str> = list.iter().map(|(_, c)| c.as_str()).collect();
                commands.dedup();
                for c in commands {
                    let binary = c.strip_suffix(" hook").unwrap_or(c).trim_matches('\'');
                    let state = if Path::new(binary).is_file() { "" } else { "  (binary not found: run `cairn hooks install` again)" };
                    println!("  runs: {c}{state}");
                }
            }
        }
    }
    Ok(())
}
