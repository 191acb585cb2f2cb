//! `cairn service install|uninstall|status`: cairnd as a systemd user service (Linux) or a
//! launchd agent (macOS), running in the foreground and restarted when it fails. The files come
//! from the templates in `hooks/`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cairn_proto::Paths;

use super::Failure;
use crate::launch;

const SYSTEMD_TEMPLATE: &str = include_str!("../../../hooks/cairnd.service");
const LAUNCHD_TEMPLATE: &str = include_str!("../../../hooks/dev.cairn.cairnd.plist");
const UNIT: &str = "cairnd.service";
const LABEL: &str = "dev.cairn.cairnd";
/// Environment carried into the service so it finds the same files as the shell that installed it.
/// TMPDIR and XDG_RUNTIME_DIR decide where the socket is when CAIRN_HOME is unset.
const CARRIED_ENV: &[&str] = &["CAIRN_HOME", "CAIRN_MODEL_DIR", "CAIRN_LOG", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR", "TMPDIR"];

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    Systemd,
    Launchd,
}

impl Kind {
    pub fn native() -> Kind {
        if cfg!(target_os = "macos") { Kind::Launchd } else { Kind::Systemd }
    }
}

pub fn file_path(kind: Kind) -> Result<PathBuf, Failure> {
    Ok(match kind {
        Kind::Systemd => {
            let config = std::env::var_os("XDG_CONFIG_HOME").filter(|v| !v.is_empty()).map(PathBuf::from).map_or_else(|| super::user_home().map(|h| h.join(".config")), Ok)?;
            config.join("systemd/user").join(UNIT)
        }
        Kind::Launchd => super::user_home()?.join("Library/LaunchAgents").join(format!("{LABEL}.plist")),
    })
}

fn carried() -> Vec<(&'static str, String)> {
    CARRIED_ENV.iter().filter_map(|k| std::env::var(k).ok().filter(|v| !v.is_empty()).map(|v| (*k, v))).collect()
}

/// systemd's quoting for one word of ExecStart or one Environment assignment.
fn systemd_quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\"").replace('%', "%%"))
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&apos;")
}

/// The service file for `daemon`, with `env` carried over.
pub fn render(kind: Kind, daemon: &Path, env: &[(&str, String)], stderr_log: &Path) -> String {
    let daemon = daemon.display().to_string();
    match kind {
        Kind::Systemd => {
            let environment: Vec<String> = env.iter().map(|(k, v)| format!("Environment={}", systemd_quote(&format!("{k}={v}")))).collect();
            SYSTEMD_TEMPLATE.replace("@CAIRND@", &systemd_quote(&daemon)).replace("@ENVIRONMENT@\n", &if environment.is_empty() { String::new() } else { environment.join("\n") + "\n" })
        }
        Kind::Launchd => {
            let environment: String = env.iter().map(|(k, v)| format!("\n    <key>{}</key>\n    <string>{}</string>", xml_escape(k), xml_escape(v))).collect();
            LAUNCHD_TEMPLATE
                .replace("@CAIRND@", &xml_escape(&daemon))
                .replace("@ENVIRONMENT@", &environment)
                .replace("@STDERR@", &xml_escape(&stderr_log.display().to_string()))
        }
    }
}

/// Runs a service-manager command with a time limit; its output, or why it failed.
fn manager(program: &str, args: &[&str]) -> Option<Result<String, String>> {
    let path = which::which(program).ok()?;
    let mut child = match Command::new(path).args(args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn() {
        Ok(c) => c,
        Err(e) => return Some(Err(e.to_string())),
    };
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() < Duration::from_secs(10) => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                return Some(Err(format!("{program} did not answer within 10 s")));
            }
        }
    }
    let out = child.wait_with_output().ok()?;
    let text = String::from_utf8_lossy(if out.status.success() { &out.stdout } else { &out.stderr }).trim().to_string();
    Some(if out.status.success() { Ok(text) } else { Err(text) })
}

fn uid() -> u32 {
    cairn_proto::paths::uid()
}

pub fn install(kind: Kind) -> Result<(), Failure> {
    // As found (absolute, symlinks kept): a versioned install behind a stable link keeps working.
    let daemon = launch::find_daemon().map_err(|e| Failure::new(1, e.to_string()))?;
    let paths = Paths::from_env()?;
    let path = file_path(kind)?;
    let text = render(kind, &daemon, &carried(), &paths.logs_dir.join("cairnd.stderr"));
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Failure::new(1, format!("cannot create {}: {e}", dir.display())))?;
    }
    std::fs::write(&path, text).map_err(|e| Failure::new(1, format!("cannot write {}: {e}", path.display())))?;
    outln!("wrote {}", path.display());
    outln!("it runs {} in the foreground and restarts it when it fails", daemon.display());
    outln!("if cairn is running from `cairn up`, stop it first with `cairn down`, then enable the service:");
    match kind {
        Kind::Systemd => outln!("  systemctl --user daemon-reload && systemctl --user enable --now {UNIT}"),
        Kind::Launchd => outln!("  launchctl bootstrap gui/{} {}", uid(), path.display()),
    }
    Ok(())
}

pub fn uninstall(kind: Kind) -> Result<(), Failure> {
    let path = file_path(kind)?;
    if !path.exists() {
        outln!("no service installed at {}", path.display());
        return Ok(());
    }
    // Stop and unregister first, so no running service is left without its file.
    let stopped = match kind {
        Kind::Systemd => manager("systemctl", &["--user", "disable", "--now", UNIT]),
        Kind::Launchd => manager("launchctl", &["bootout", &format!("gui/{}", uid()), &path.display().to_string()]),
    };
    if let Some(Err(e)) = &stopped {
        outln!("note: the service manager said: {e}");
    }
    std::fs::remove_file(&path).map_err(|e| Failure::new(1, format!("cannot remove {}: {e}", path.display())))?;
    if kind == Kind::Systemd {
        let _ = manager("systemctl", &["--user", "daemon-reload"]);
    }
    outln!("removed {}", path.display());
    Ok(())
}

pub fn status(kind: Kind) -> Result<(), Failure> {
    let path = file_path(kind)?;
    let Ok(text) = std::fs::read_to_string(&path) else {
        outln!("no service installed (would be {}); install it with `cairn service install`", path.display());
        return Ok(());
    };
    outln!("installed: {}", path.display());
    let binary = match kind {
        Kind::Systemd => text.lines().find_map(|l| l.strip_prefix("ExecStart=")).map(|v| v.trim_matches('"').to_string()),
        Kind::Launchd => text.split("<string>").nth(2).and_then(|s| s.split("</string>").next()).map(|s| s.replace("&amp;", "&")),
    };
    if let Some(b) = binary {
        let state = if Path::new(&b).is_file() { "" } else { " (not found: run `cairn service install` again)" };
        outln!("runs:      {b}{state}");
    }
    let state = match kind {
        Kind::Systemd => manager("systemctl", &["--user", "is-active", UNIT]),
        Kind::Launchd => manager("launchctl", &["print", &format!("gui/{}/{LABEL}", uid())]).map(|r| r.map(|_| "loaded".to_string())),
    };
    match state {
        Some(Ok(s)) => outln!("state:     {s}"),
        Some(Err(e)) if !e.is_empty() => outln!("state:     {e}"),
        _ => outln!("state:     unknown (no service manager answered)"),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn systemd_unit_runs_the_daemon_with_the_environment() {
        let unit = render(Kind::Systemd, Path::new("/opt/my tools/cairnd"), &[("CAIRN_HOME", "/h/x".into())], Path::new("/l/e"));
        assert!(unit.contains("ExecStart=\"/opt/my tools/cairnd\"\n"), "{unit}");
        assert!(unit.contains("Environment=\"CAIRN_HOME=/h/x\"\n"));
        assert!(unit.contains("Restart=on-failure"));
        assert!(!unit.contains('@'), "every placeholder filled: {unit}");
    }

    #[test]
    fn launchd_plist_escapes_and_fills_everything() {
        let plist = render(Kind::Launchd, Path::new("/a&b/cairnd"), &[("CAIRN_HOME", "/h/<x>".into())], Path::new("/l/e"));
        assert!(plist.contains("<string>/a&amp;b/cairnd</string>"));
        assert!(plist.contains("<key>CAIRN_HOME</key>\n    <string>/h/&lt;x&gt;</string>"));
        assert!(!plist.contains('@'), "{plist}");
    }
}
