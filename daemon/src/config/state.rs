//! The settings in force: the last good tuneables and trigger rules, each file's error when its
//! latest version was refused, the keys it did not take as written, and the rules in force
//! compiled once per change.

use std::path::Path;
use std::sync::Arc;

use super::rules::{self, TriggerRule, TriggerRules};
use super::tuneables::Tuneables;

#[derive(Debug, Clone, Default)]
pub struct ConfigState {
    pub tuneables: Tuneables,
    /// The values the last good tuneables file set, to tell them from defaults.
    pub tuneables_file: serde_json::Value,
    pub tuneables_error: Option<String>,
    pub unknown_keys: Vec<String>,
    /// Keys the file gives under a former name.
    pub renamed_keys: Vec<String>,
    pub rules: TriggerRules,
    pub rules_error: Option<String>,
    /// cairn's built-in rules (unless turned off) and the user's, built once per change of either
    /// file and kept: a compiled pattern keeps its matching state warm between events.
    pub effective_rules: Arc<Vec<TriggerRule>>,
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
        self.effective_rules = Arc::new(rules::effective(&self.rules.rules, self.tuneables.triggers.builtin_rules));
    }

    /// Re-reads `tuneables.json`; keeps the current settings when it is bad.
    pub fn reload_tuneables(&mut self, path: &Path) {
        match Tuneables::load(path) {
            Ok(loaded) => {
                if !loaded.unknown_keys.is_empty() {
                    tracing::warn!(keys = ?loaded.unknown_keys, "unknown keys in tuneables.json (kept, ignored)");
                }
                if !loaded.renamed_keys.is_empty() {
                    tracing::warn!(keys = ?loaded.renamed_keys, "keys to look at in tuneables.json (renamed, or an earlier default whose meaning changed)");
                }
                self.tuneables = loaded.tuneables;
                self.tuneables_file = loaded.file_value;
                self.unknown_keys = loaded.unknown_keys;
                self.renamed_keys = loaded.renamed_keys;
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

    /// Keys of both files that cairn does not know, for `status` and `doctor`.
    pub fn all_unknown_keys(&self) -> Vec<String> {
        self.unknown_keys.iter().cloned().chain(self.rules.unknown_keys.iter().map(|k| format!("trigger_rules.yaml: {k}"))).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_file_keeps_the_last_good_settings() {
        let dir = tempfile::tempdir().unwrap();
        let (t, r) = (dir.path().join("tuneables.json"), dir.path().join("trigger_rules.yaml"));
        std::fs::write(&t, r#"{"advice": {"cooldown_s": 60}, "semantic": {"min_fusion_score": 0.6}}"#).unwrap();
        let mut state = ConfigState::load(&t, &r);
        assert_eq!((state.tuneables.advice.cooldown_s, state.tuneables.ranking.min_fusion_score), (60, 0.6));
        assert_eq!(state.renamed_keys, vec!["semantic.min_fusion_score is now ranking.min_fusion_score"]);
        assert_eq!(state.summary(), "ok");
        assert!(!state.effective_rules.is_empty(), "cairn's own rules apply");
        std::fs::write(&t, "{ nope").unwrap();
        state.reload_tuneables(&t);
        assert_eq!(state.tuneables.advice.cooldown_s, 60, "the last good value stays");
        assert!(state.summary().contains("line 1"), "{}", state.summary());
        std::fs::write(&t, r#"{"triggers": {"builtin_rules": false}}"#).unwrap();
        state.reload_tuneables(&t);
        assert!(state.effective_rules.is_empty(), "the rules in force follow the settings");
        assert_eq!(state.summary(), "ok");
    }
}
