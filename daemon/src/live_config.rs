//! The settings in force, loaded from the config folder and kept live: a notify watcher on the
//! folder (debounced) reloads `tuneables.json` and `trigger_rules.yaml` when they change. A file
//! that fails to parse or validate leaves the last good settings in force, and its error (with
//! its line) is kept for `status`, `doctor` and `config show`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use notify_debouncer_mini::notify::RecursiveMode;
use notify_debouncer_mini::{new_debouncer, DebounceEventResult};

use crate::config::Tuneables;
use crate::state::Daemon;
use crate::triggers::TriggerRules;

/// Quiet time after the last change before a file is read again (editors write in bursts).
const DEBOUNCE: Duration = Duration::from_millis(200);

#[derive(Debug, Clone, Default)]
pub struct ConfigState {
    pub tuneables: Tuneables,
    /// The last good tuneables file's content, to tell which values it set.
    pub tuneables_file: serde_json::Value,
    pub tuneables_error: Option<String>,
    pub unknown_keys: Vec<String>,
    pub rules: TriggerRules,
    pub rules_error: Option<String>,
    /// The rules in force, built once per change of either file: cairn's built-in rules (unless
    /// turned off) and the user's, and the same with the seed pack's. Kept, not rebuilt per
    /// event: a compiled pattern keeps its matching state warm between events.
    pub effective_rules: std::sync::Arc<Vec<crate::triggers::TriggerRule>>,
    pub effective_rules_with_seeds: std::sync::Arc<Vec<crate::triggers::TriggerRule>>,
}

impl ConfigState {
    /// Loads both files; a bad file leaves defaults in force and its error recorded.
    pub fn load(tuneables: &Path, rules: &Path) -> ConfigState {
        let mut state = ConfigState::default();
        state.reload_tuneables(tuneables);
        state.reload_rules(rules);
        // Even with both files bad, cairn's own rules apply.
        state.refresh_effective();
        state
    }

    fn refresh_effective(&mut self) {
        let base = crate::triggers::effective(&self.rules.rules, self.tuneables.triggers.builtin_rules);
        let mut with_seeds = base.clone();
        with_seeds.extend(crate::seeds::rules().iter().cloned());
        self.effective_rules = std::sync::Arc::new(base);
        self.effective_rules_with_seeds = std::sync::Arc::new(with_seeds);
    }

    /// Re-reads `tuneables.json`; keeps the current settings when it is bad.
    pub fn reload_tuneables(&mut self, path: &Path) {
        match Tuneables::load(path) {
            Ok(loaded) => {
                if !loaded.unknown_keys.is_empty() {
                    tracing::warn!(keys = ?loaded.unknown_keys, "unknown keys in tuneables.json (kept, ignored)");
                }
                self.tuneables = loaded.tuneables;
                self.tuneables_file = loaded.file_value;
                self.unknown_keys = loaded.unknown_keys;
                self.tuneables_error = None;
                self.refresh_effective();
            }
            Err(e) => {
                tracing::error!(error = %e, "tuneables.json rejected; the last good settings stay in force");
                self.tuneables_error = Some(e.to_string());
            }
        }
    }

    /// Re-reads `trigger_rules.yaml`; keeps the current rules when it is bad.
    pub fn reload_rules(&mut self, path: &Path) {
        match TriggerRules::load(path) {
            Ok(rules) => {
                if !rules.unknown_keys.is_empty() {
                    tracing::warn!(keys = ?rules.unknown_keys, "unknown keys in trigger_rules.yaml (kept, ignored)");
                }
                self.rules = rules;
                self.rules_error = None;
                self.refresh_effective();
            }
            Err(e) => {
                tracing::error!(error = %e, "trigger_rules.yaml rejected; the last good rules stay in force");
                self.rules_error = Some(e.to_string());
            }
        }
    }

    /// `ok`, or every file's error.
    pub fn summary(&self) -> String {
        let errors: Vec<&str> = [&self.tuneables_error, &self.rules_error].into_iter().flatten().map(String::as_str).collect();
        if errors.is_empty() { "ok".to_string() } else { errors.join("; ") }
    }
}

/// What the watcher's thread waits for.
enum Message {
    Events(DebounceEventResult),
    Stop,
}

/// Keeps the watcher alive; dropping it stops watching and waits for its thread, so the thread
/// never outlives the daemon's shutdown with the store in hand.
pub struct Watch {
    stop: std::sync::mpsc::Sender<Message>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.stop.send(Message::Stop);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// What identifies one version of a file: reading a file fires watch events too, so a reload
/// happens only when this changes (else every read would trigger the next).
type Version = Option<(u64, u64, u64, i64, i64)>;

fn version(path: &Path) -> Version {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino(), m.len(), m.mtime(), m.mtime_nsec()))
}

/// Folders to watch: the config folder, its parent (to see the folder itself come back after
/// being deleted), and the real folders of config files that are symlinks (dotfile managers).
fn watched_dirs(config_dir: &Path, files: &[PathBuf]) -> Vec<PathBuf> {
    let mut dirs = vec![config_dir.to_path_buf()];
    if let Some(parent) = config_dir.parent() {
        dirs.push(parent.to_path_buf());
    }
    for file in files {
        if std::fs::symlink_metadata(file).is_ok_and(|m| m.file_type().is_symlink())
            && let Some(dir) = std::fs::canonicalize(file).ok().and_then(|t| t.parent().map(Path::to_path_buf))
            && !dirs.contains(&dir)
        {
            dirs.push(dir);
        }
    }
    dirs
}

fn reload_all(d: &Daemon, tuneables: &Path, rules: &Path) {
    let mut config = d.config.write().expect("config lock");
    let before = (config.tuneables.clone(), config.tuneables_error.clone(), config.rules_error.clone(), config.rules.rules.len());
    config.reload_tuneables(tuneables);
    config.reload_rules(rules);
    let after = (config.tuneables.clone(), config.tuneables_error.clone(), config.rules_error.clone(), config.rules.rules.len());
    if before != after {
        tracing::info!(config = %config.summary(), rules = config.rules.rules.len(), "config reloaded");
    }
}

/// Watches the config files and reloads them when anything about them changes: edits in place,
/// saves by rename, the folder deleted and made again, symlinked files changing at their target.
/// Both files are read once more after the watch is in place, so nothing changed during start-up
/// is missed.
pub fn watch(daemon: Arc<Daemon>) -> Result<Watch, notify_debouncer_mini::notify::Error> {
    let tuneables: PathBuf = daemon.paths.tuneables_file();
    let rules: PathBuf = daemon.paths.trigger_rules_file();
    let config_dir = daemon.paths.config_dir.clone();
    let (tx, rx) = std::sync::mpsc::channel::<Message>();
    let events_tx = tx.clone();
    let mut debouncer = new_debouncer(DEBOUNCE, move |r| {
        let _ = events_tx.send(Message::Events(r));
    })?;
    let files = [tuneables.clone(), rules.clone()];
    let mut armed = Vec::new();
    for dir in watched_dirs(&config_dir, &files) {
        if debouncer.watcher().watch(&dir, RecursiveMode::NonRecursive).is_ok() {
            armed.push(dir);
        }
    }
    // Weak: the watcher's thread must not keep the daemon (and its store) alive at shutdown.
    let weak = Arc::downgrade(&daemon);
    let mut seen = [version(&tuneables), version(&rules)];
    reload_all(&daemon, &tuneables, &rules);
    let thread = std::thread::Builder::new().name("cairn-config-watch".into()).spawn(move || {
        // Blocks until something happens: an idle daemon's watcher costs nothing.
        while let Ok(Message::Events(result)) = rx.recv() {
            let events = match result {
                Ok(events) => events,
                Err(e) => {
                    tracing::warn!(error = %e, "config watch error");
                    continue;
                }
            };
            let targets: Vec<PathBuf> = files.iter().filter_map(|f| std::fs::canonicalize(f).ok()).collect();
            let relevant = events.iter().any(|e| e.path == config_dir || e.path.parent() == Some(config_dir.as_path()) || targets.contains(&e.path));
            if !relevant {
                continue;
            }
            // Re-arm for folders that came (back) into being: the config folder, symlink targets.
            for dir in watched_dirs(&config_dir, &files) {
                if !armed.contains(&dir) || events.iter().any(|e| e.path == dir) {
                    let _ = debouncer.watcher().unwatch(&dir);
                    if debouncer.watcher().watch(&dir, RecursiveMode::NonRecursive).is_ok() && !armed.contains(&dir) {
                        armed.push(dir);
                    }
                }
            }
            let now = [version(&tuneables), version(&rules)];
            if now == seen {
                continue;
            }
            seen = now;
            let Some(d) = weak.upgrade() else { return };
            reload_all(&d, &tuneables, &rules);
        }
    }).map_err(notify_debouncer_mini::notify::Error::io)?;
    Ok(Watch { stop: tx, thread: Some(thread) })
}
