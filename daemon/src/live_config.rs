//! The settings in force, loaded from the config folder and kept live: a notify watcher on the
//! folder (debounced) reloads `tuneables.json` and `trigger_rules.yaml` when they change. A file
//! that fails to parse or validate leaves the last good settings in force, and its error (with
//! its line) is kept for `status`, `doctor` and `config show`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use notify_debouncer_mini::notify::RecursiveMode;
use notify_debouncer_mini::{new_debouncer, DebounceEventResult, Debouncer};

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
}

impl ConfigState {
    /// Loads both files; a bad file leaves defaults in force and its error recorded.
    pub fn load(tuneables: &Path, rules: &Path) -> ConfigState {
        let mut state = ConfigState::default();
        state.reload_tuneables(tuneables);
        state.reload_rules(rules);
        state
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

/// Keeps the watcher alive; dropping it stops watching.
pub struct Watch {
    _debouncer: Debouncer<notify_debouncer_mini::notify::RecommendedWatcher>,
}

/// Watches the config folder and reloads whichever file changed.
pub fn watch(daemon: Arc<Daemon>) -> Result<Watch, notify_debouncer_mini::notify::Error> {
    let tuneables: PathBuf = daemon.paths.tuneables_file();
    let rules: PathBuf = daemon.paths.trigger_rules_file();
    let dir = daemon.paths.config_dir.clone();
    // Weak: the watcher's thread must not keep the daemon (and its store) alive at shutdown.
    let weak = Arc::downgrade(&daemon);
    let mut debouncer = new_debouncer(DEBOUNCE, move |result: DebounceEventResult| {
        let Some(d) = weak.upgrade() else { return };
        let events = match result {
            Ok(events) => events,
            Err(e) => {
                tracing::warn!(error = %e, "config watch error");
                return;
            }
        };
        let touched = |file: &Path| events.iter().any(|e| e.path.file_name() == file.file_name());
        let (t, r) = (touched(&tuneables), touched(&rules));
        if !t && !r {
            return;
        }
        let mut config = d.config.write().expect("config lock");
        if t {
            config.reload_tuneables(&tuneables);
            tracing::info!(state = %config.tuneables_error.as_deref().unwrap_or("ok"), "tuneables.json reloaded");
        }
        if r {
            config.reload_rules(&rules);
            tracing::info!(state = %config.rules_error.as_deref().unwrap_or("ok"), rules = config.rules.rules.len(), "trigger_rules.yaml reloaded");
        }
    })?;
    debouncer.watcher().watch(&dir, RecursiveMode::NonRecursive)?;
    Ok(Watch { _debouncer: debouncer })
}
