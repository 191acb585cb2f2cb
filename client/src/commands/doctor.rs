//! `cairn doctor`: checks what cairn needs, one line per check with the fix for what fails.
//! Exits 1 when any check fails.

use std::os::unix::fs::{MetadataExt, PermissionsExt};

use cairn_proto::Paths;

use super::{ctx, hooks, Failure};
use crate::connect::{self, ClientError};

struct Report {
    failed: usize,
}

impl Report {
    fn ok(&mut self, what: &str, detail: impl AsRef<str>) {
        println!("ok    {what}: {}", detail.as_ref());
    }
    fn warn(&mut self, what: &str, detail: impl AsRef<str>, fix: impl AsRef<str>) {
        println!("warn  {what}: {} -> {}", detail.as_ref(), fix.as_ref());
    }
    fn fail(&mut self, what: &str, detail: impl AsRef<str>, fix: impl AsRef<str>) {
        self.failed += 1;
        println!("FAIL  {what}: {} -> {}", detail.as_ref(), fix.as_ref());
    }
}

fn private(path: &std::path::Path) -> Result<(), String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if meta.uid() != cairn_proto::paths::uid() {
        return Err(format!("owned by uid {}", meta.uid()));
    }
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(format!("mode {mode:o} lets others in"));
    }
    Ok(())
}

pub async fn doctor() -> Result<(), Failure> {
    let mut r = Report { failed: 0 };
    let paths = Paths::from_env()?;

    match paths.check_socket_dir() {
        Ok(()) => r.ok("socket folder", paths.socket_dir().display().to_string()),
        Err(e) => r.fail("socket folder", e.to_string(), "remove the folder or set CAIRN_HOME"),
    }
    for dir in [&paths.data_dir, &paths.config_dir, &paths.logs_dir] {
        match private(dir) {
            Ok(()) => r.ok("permissions", format!("{} is yours alone", dir.display())),
            Err(e) if !dir.exists() => r.warn("permissions", format!("{} does not exist yet ({e})", dir.display()), "`cairn up` creates it"),
            Err(e) => r.fail("permissions", format!("{}: {e}", dir.display()), format!("chmod 700 {}", dir.display())),
        }
    }

    let status = match connect::open(&paths).await {
        Ok((client, hello)) => {
            r.ok("daemon", format!("cairnd {} answers on {} (protocol {})", hello.version, paths.socket.display(), hello.protocol));
            client.status(ctx()).await.ok()
        }
        Err(e @ ClientError::ProtocolMismatch { .. }) => {
            r.fail("daemon", e.to_string(), "cairn down && cairn up");
            None
        }
        Err(e) => {
            r.fail("daemon", e.to_string(), "cairn up");
            None
        }
    };
    if let Some(s) = &status {
        if s.config == "ok" {
            r.ok("config", "tuneables.json and trigger_rules.yaml are valid (or absent)");
        } else {
            r.fail("config", &s.config, "fix the file at that line; the last good settings stay in force meanwhile");
        }
        if !s.unknown_config_keys.is_empty() {
            r.warn("config", format!("unknown keys: {}", s.unknown_config_keys.join(", ")), "check their spelling (`cairn config show`)");
        }
        if s.model.starts_with("missing") {
            r.warn("model", &s.model, "advice uses keyword ranking until the semantic engine is set up");
        } else {
            r.ok("model", &s.model);
        }
        if s.hook_misses > 0 {
            r.warn("hook", format!("{} hook runs gave up at their deadline (last at {})", s.hook_misses, s.last_hook_miss.as_deref().unwrap_or("?")), "see `cairn logs`; raise CAIRN_HOOK_DEADLINE_MS if the machine is slow");
        } else {
            r.ok("hook", "no deadline misses");
        }
        if !s.paused.is_empty() {
            r.warn("paused", s.paused.join(", "), "`cairn resume --project P` to advise there again");
        }
    }

    let installed: Vec<_> = hooks::report().into_iter().filter_map(|(path, found)| found.ok().filter(|f| !f.is_empty()).map(|f| (path, f.len()))).collect();
    let plugin = hooks::plugin_enabled();
    if plugin {
        r.ok("hooks", "the cairn plugin is enabled in Claude Code");
    }
    if installed.is_empty() && !plugin {
        r.fail("hooks", "no cairn hooks in Claude Code's settings and no cairn plugin", "cairn hooks install (or install the plugin)");
    }
    for (path, n) in &installed {
        if plugin {
            r.warn("hooks", format!("{n} cairn hooks in {} as well as the plugin: every event runs cairn twice", path.display()), "cairn hooks uninstall, or remove the plugin");
        } else {
            r.ok("hooks", format!("{n} cairn hooks in {}", path.display()));
        }
    }

    if r.failed > 0 {
        return Err(Failure::new(1, format!("{} check(s) failed", r.failed)));
    }
    Ok(())
}
