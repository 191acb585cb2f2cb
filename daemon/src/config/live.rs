//! The settings kept live: [`LiveConfig`] holds the settings in force, and a notify watcher on
//! the config folder (debounced) reloads `tuneables.json` and `trigger_rules.yaml` when they
//! change. A file that fails to parse or validate leaves the last good settings in force, and
//! its error (with its line) is kept for `status`, `doctor` and `config show`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::{RwLock, RwLockReadGuard};
use std::time::Duration;

use notify_debouncer_mini::notify::RecursiveMode;
use notify_debouncer_mini::{new_debouncer, DebounceEventResult};

use super::state::ConfigState;
use super::tuneables::Tuneables;

/// Quiet time after the last change before a file is read again (editors write in bursts).
const DEBOUNCE: Duration = Duration::from_millis(200);

/// The settings in force and the files they come from.
pub struct LiveConfig {
    state: RwLock<ConfigState>,
    tuneables: PathBuf,
    rules: PathBuf,
    dir: PathBuf,
}

impl LiveConfig {
    /// Reads both files in `dir` (named `tuneables` and `rules`); a bad file leaves defaults.
    pub fn load(dir: &Path, tuneables: &Path, rules: &Path) -> LiveConfig {
        LiveConfig { state: RwLock::new(ConfigState::load(tuneables, rules)), tuneables: tuneables.to_path_buf(), rules: rules.to_path_buf(), dir: dir.to_path_buf() }
    }

    /// The settings in force, their files' errors and the rules.
    pub fn read(&self) -> RwLockReadGuard<'_, ConfigState> {
        self.state.read()
    }

    /// A copy of the tuneables in force.
    pub fn tuneables(&self) -> Tuneables {
        self.read().tuneables.clone()
    }

    /// Reads both files again, keeping the last good settings of a file that is bad now.
    pub fn reload(&self) {
        let mut config = self.state.write();
        let before = (config.tuneables.clone(), config.tuneables_error.clone(), config.rules_error.clone(), config.rules.rules.len());
        config.reload_tuneables(&self.tuneables);
        config.reload_rules(&self.rules);
        let after = (config.tuneables.clone(), config.tuneables_error.clone(), config.rules_error.clone(), config.rules.rules.len());
        if before != after {
            tracing::info!(config = %config.summary(), rules = config.rules.rules.len(), "config reloaded");
        }
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

/// Watches the config files and reloads them when anything about them changes: edits in place,
/// saves by rename, the folder deleted and made again, symlinked files changing at their target.
/// Both files are read once more after the watch is in place, so nothing changed during start-up
/// is missed.
pub fn watch(live: &Arc<LiveConfig>) -> Result<Watch, notify_debouncer_mini::notify::Error> {
    let tuneables = live.tuneables.clone();
    let rules = live.rules.clone();
    let config_dir = live.dir.clone();
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
    // Weak: the watcher's thread must not keep the settings alive past the daemon's shutdown.
    let weak = Arc::downgrade(live);
    let mut seen = [version(&tuneables), version(&rules)];
    live.reload();
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
            let Some(live) = weak.upgrade() else { return };
            live.reload();
        }
    }).map_err(notify_debouncer_mini::notify::Error::io)?;
    Ok(Watch { stop: tx, thread: Some(thread) })
}
