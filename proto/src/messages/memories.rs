//! Memories one at a time (`add`, `edit`, `list`) and in bulk (`import`).

use serde::{Deserialize, Serialize};

use super::Scope;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct NewMemory {
    pub text: String,
    #[serde(default)]
    pub category: Option<String>,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub context: Option<String>,
    #[serde(default)]
    pub source: Option<String>,
    #[serde(default)]
    pub scope: Scope,
    /// Moments the lesson applies to (`--example`).
    #[serde(default)]
    pub examples: Vec<String>,
    /// Moments it does not apply to (`--not-example`).
    #[serde(default)]
    pub not_examples: Vec<String>,
    /// What kind of action it records (`--action-type`: decision, bug_fix, ...).
    #[serde(default)]
    pub action_type: Option<String>,
    /// Why it exists, in the user's words (`--rationale`).
    #[serde(default)]
    pub rationale: Option<String>,
    /// Memories (or situations) it came from (`--caused-by`).
    #[serde(default)]
    pub caused_by: Vec<String>,
    /// Its dependencies come from every project's memories of the hour before, not only its
    /// own project's (`--cross-project`).
    #[serde(default)]
    pub cross_project: bool,
}

/// Fields to change; `None` leaves a field as it is.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct MemoryEdit {
    pub id: String,
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub category: Option<String>,
    #[serde(default)]
    pub tags: Option<Vec<String>>,
    #[serde(default)]
    pub context: Option<String>,
    /// Replaces the moments the lesson applies to.
    #[serde(default)]
    pub examples: Option<Vec<String>>,
    /// Replaces the moments it does not apply to.
    #[serde(default)]
    pub not_examples: Option<Vec<String>>,
    #[serde(default)]
    pub action_type: Option<String>,
    #[serde(default)]
    pub rationale: Option<String>,
    /// Replaces what it came from.
    #[serde(default)]
    pub caused_by: Option<Vec<String>>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ListQuery {
    #[serde(default)]
    pub scope: Scope,
    /// Every project, not just the scope's.
    #[serde(default)]
    pub all: bool,
    /// Cursor from the previous page.
    #[serde(default)]
    pub after: Option<String>,
    pub limit: u32,
}

/// One raw line of an import file with its 1-based line number.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ImportLine {
    pub line: u64,
    pub text: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ImportBatch {
    pub lines: Vec<ImportLine>,
    /// Project for lines that name none (`--project`/`--global`); `global` when unset.
    #[serde(default)]
    pub default_project: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ImportReport {
    pub added: u64,
    pub updated: u64,
    /// Lines that changed nothing (a re-import of the same lessons).
    #[serde(default)]
    pub unchanged: u64,
    pub rejected: Vec<Rejection>,
    /// Lines of the user's Claude Code memory files the quality gate found no lesson in (an
    /// introduction, a statistic, a fragment): not stored, and no error.
    #[serde(default)]
    pub left_out: Vec<Rejection>,
    /// Lines of the user's Claude Code memory files that say an earlier line of the same import
    /// again (the reason names it): one lesson, the first; the repeats are not stored.
    #[serde(default)]
    pub repeated: Vec<Rejection>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Rejection {
    pub line: u64,
    pub reason: String,
    /// The line's lesson as the daemon read it (secrets redacted), for lines it read as one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}
