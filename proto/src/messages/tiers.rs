//! Memory tiers and the archive: `cairn prune [--dry-run]`, `cairn archive list|restore ID`.

use serde::{Deserialize, Serialize};

use crate::memory::Memory;

/// A memory in (or bound for) the archive.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ArchivedView {
    pub id: String,
    pub project: String,
    pub text: String,
    pub source: String,
    /// When it was moved (absent in a dry run).
    #[serde(default)]
    pub archived_at: Option<String>,
    pub reason: String,
}

/// What a prune moved (or, in a dry run, would move) to the archive.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct PruneReport {
    pub dry_run: bool,
    pub archived: Vec<ArchivedView>,
    /// The archive's folder.
    pub archive: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "action")]
pub enum ArchiveAction {
    List,
    /// Back into the store, with its edges, exactly as it was.
    Restore { id: String },
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ArchiveReport {
    pub entries: Vec<ArchivedView>,
    #[serde(default)]
    pub restored: Option<Memory>,
    pub message: String,
}
