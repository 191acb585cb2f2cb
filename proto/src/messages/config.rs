//! `config show`: the effective settings and trigger rules, each value with its source.

use serde::{Deserialize, Serialize};

/// The effective configuration and where each value came from (`cairn config show`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ConfigReport {
    pub tuneables_file: String,
    /// `ok` or the file's error (the last good settings stay in force).
    pub tuneables_state: String,
    pub settings: Vec<SettingView>,
    #[serde(default)]
    pub unknown_keys: Vec<String>,
    /// Keys the file gives under a former name: "semantic.min_similarity is now ranking.min_similarity".
    #[serde(default)]
    pub renamed_keys: Vec<String>,
    pub rules_file: String,
    pub rules_state: String,
    pub rules: Vec<RuleView>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SettingView {
    pub key: String,
    pub value: serde_json::Value,
    /// `tuneables.json` or `default`.
    pub source: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RuleView {
    pub name: String,
    pub pattern: String,
    pub surface: Vec<String>,
    pub priority: String,
    pub interrupt: bool,
    pub learned: bool,
}
