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
        outln!("ok    {what}: {}", detail.as_ref());
    }
    fn warn(&mut self, what: &str, detail: impl AsRef<str>, fix: impl AsRef<str>) {
        outln!("warn  {what}: {} -> {}", detail.as_ref(), fix.as_ref());
    }
    /// A setup step not taken yet: not a failure.
    fn todo(&mut self, what: &str, detail: impl AsRef<str>, fix: impl AsRef<str>) {
        outln!("todo  {what}: {} -> {}", detail.as_ref(), fix.as_ref());
    }
    fn fail(&mut self, what: &str, detail: impl AsRef<str>, fix: impl AsRef<str>) {
        self.failed += 1;
        outln!("FAIL  {what}: {} -> {}", detail.as_ref(), fix.as_ref());
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

/// The built-in model's files: present, and each with its published sha256.
fn model_files(r: &mut Report, paths: &Paths) {
    let mut bad = 0;
    for file in cairn_proto::model::FILES.iter().filter(|f| f.role != cairn_proto::model::Role::Notice) {
        if file.role == cairn_proto::model::Role::Runtime && !cairn_proto::model::runtime_supported() {
            continue;
        }
        let path = file.in_dir(&paths.models_dir);
        let found = std::fs::File::open(&path).and_then(|mut f| {
            use sha2::Digest;
            let mut h = sha2::Sha256::new();
            std::io::copy(&mut f, &mut h)?;
            Ok(format!("{:x}", h.finalize()))
        });
        match found {
            Ok(h) if h == file.sha256 => {}
            Ok(h) => {
                bad += 1;
                r.fail("model files", format!("{} has sha256 {h}, expected {}", path.display(), file.sha256), "cairn setup --force");
            }
            Err(e) => {
                bad += 1;
                r.fail("model files", format!("{}: {e}", path.display()), "cairn setup");
            }
        }
    }
    if bad == 0 {
        r.ok("model files", format!("runtime, model and tokenizer in {} match their sha256", paths.models_dir.display()));
    }
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

    let mut interrupts_on = false;
    let status = match connect::open(&paths).await {
        Ok((client, hello)) => {
            r.ok("daemon", format!("cairnd {} answers on {} (protocol {})", hello.version, paths.socket.display(), hello.protocol));
            // Loading is the real check of the runtime library: ask for it (lazy in --lite).
            match client.load_model(ctx()).await {
                Ok(state) if state == "loaded" => r.ok("ONNX Runtime", "loads, and the model embeds"),
                Ok(state) if state.starts_with("off") => {}
                Ok(state) => {
                    let (what, fix) = state.split_once("; ").unwrap_or((&state, "cairn setup"));
                    r.fail("ONNX Runtime", what, fix.trim_end_matches(" (keyword ranking meanwhile)"));
                }
                Err(e) => r.fail("ONNX Runtime", format!("cairnd did not answer: {e}"), "cairn logs"),
            }
            // Whether interrupts are on: they need a hook before the command (checked below).
            if let Ok(config) = client.config_show(ctx()).await {
                interrupts_on = config.settings.iter().any(|v| v.key == "triggers.interrupts" && v.value.as_str().is_some_and(|m| m != "off"));
            }
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
    let own_model = status
        .as_ref()
        .and_then(|s| s.model_info.as_ref())
        .filter(|m| std::path::Path::new(&m.model_file) != cairn_proto::model::MODEL.in_dir(&paths.models_dir));
    match own_model {
        Some(m) => r.ok("model files", format!("a model of your own: {} (model.embedding_model)", m.model_file)),
        None => model_files(&mut r, &paths),
    }
    if let Some(s) = &status {
        if s.config == "ok" {
            r.ok("config", "tuneables.json and trigger_rules.yaml are valid (or absent)");
        } else {
            r.fail("config", &s.config, "fix the file at that line; the last good settings stay in force meanwhile");
        }
        if !s.renamed_config_keys.is_empty() {
            r.warn("config", format!("renamed keys: {}", s.renamed_config_keys.join("; ")), "rename or remove them in tuneables.json as each says (they work meanwhile)");
        }
        if !s.unknown_config_keys.is_empty() {
            r.warn("config", format!("unknown keys: {}", s.unknown_config_keys.join(", ")), "check their spelling (`cairn config show`)");
        }
        if let Some(m) = &s.model_info {
            r.ok("model", format!("{} loaded ({} dimensions) from {}", m.name, m.dimension, m.model_file));
        } else if s.model.starts_with("off") {
            r.warn("model", &s.model, "set model.enabled to true for retrieval by meaning");
        }
        let ix = &s.index;
        match &s.job {
            _ if !ix.loaded => r.warn("index", "not loaded: it loads with the model", "fix the model (above)"),
            _ if ix.pending == 0 => r.ok("index", format!("{} of {} memories embedded and indexed", ix.indexed, ix.memories)),
            Some(job) if !job.finished => r.warn("index", format!("{} memories not yet indexed; {} is running ({}/{})", ix.pending, job.kind, job.done, job.total), "wait for it (`cairn status`)"),
            _ if s.model_info.is_none() => r.warn("index", format!("{} memories not indexed: no model loaded", ix.pending), "fix the model (above); they are embedded as soon as it loads"),
            _ => r.fail("index", format!("{} of {} memories are not in the semantic index", ix.pending, ix.memories), "cairn reindex"),
        }
        if let Some(failure) = &s.store_failure {
            let fix = if failure.contains("the disk is full") {
                "free some space on that disk; cairn picks up again by itself within seconds"
            } else {
                "see `cairn logs` and the disk's health; cairn reopens the store by itself once the disk takes writes (at most once a minute)"
            };
            r.fail("store", failure, fix);
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

    let report = hooks::report();
    let before_commands = report.iter().any(|(_, found)| found.as_ref().is_ok_and(|f| f.iter().any(|(e, _, _)| e == "PreToolUse")));
    for (path, found) in &report {
        let old = found.as_ref().is_ok_and(|f| f.iter().any(|(e, _, m)| e == "PreToolUse" && m.as_deref() != Some(crate::settings::INTERRUPTS_MATCHER)));
        if old {
            r.warn("hooks", format!("{} has an earlier release's wiring: a hook before and after every tool call, twice the cost", path.display()), "cairn hooks install (add --interrupts if you use interrupts)");
        }
    }
    let installed: Vec<_> = report.into_iter().filter_map(|(path, found)| found.ok().filter(|f| !f.is_empty()).map(|f| (path, f))).collect();
    let plugin = hooks::plugin_enabled();
    if plugin {
        r.ok("hooks", "the cairn plugin is enabled in Claude Code");
    }
    if installed.is_empty() && !plugin {
        // A step not taken yet (right after install.sh), not something broken.
        r.todo("hooks", "not installed in Claude Code yet", "cairn hooks install (or install the plugin)");
    }
    for (path, list) in &installed {
        let n = list.len();
        if plugin {
            r.warn("hooks", format!("{n} cairn hooks in {} as well as the plugin: every event runs cairn twice", path.display()), "cairn hooks uninstall, or remove the plugin");
        } else {
            r.ok("hooks", format!("{n} cairn hooks in {}", path.display()));
        }
        let mut commands: Vec<&str> = list.iter().map(|(_, c, _)| c.as_str()).collect();
        commands.dedup();
        for reach in commands.into_iter().filter_map(hooks::reach) {
            let said = format!("{} reaches {}", reach.command, hooks::describe_reach(&reach));
            match (reach.answers, reach.same_as_here, reach.home.is_some()) {
                (true, true, _) => r.ok("hook reach", said),
                // Reaching no daemon is the usual state before `cairn up` only when it is the
                // home this shell uses; the daemon check above says so.
                (false, true, _) => r.warn("hook reach", said, "cairn up"),
                // A command that names no home uses Claude Code's environment, which may set
                // CAIRN_HOME as this shell does: likely, not certain, to miss.
                (_, false, false) => r.warn("hook reach", said, "unless Claude Code starts with this shell's CAIRN_HOME, run `cairn hooks install` here to write the home into the hook"),
                _ => r.fail("hook reach", said, "run `cairn hooks install` in a shell with the CAIRN_HOME the daemon uses"),
            }
        }
    }

    if interrupts_on && !before_commands {
        r.warn("interrupts", "triggers.interrupts is on, but no cairn hook runs before a command, so none can be stopped (their lessons are still said)", "cairn hooks install --interrupts");
    }

    if r.failed > 0 {
        return Err(Failure::new(1, format!("{} check(s) failed", r.failed)));
    }
    Ok(())
}
