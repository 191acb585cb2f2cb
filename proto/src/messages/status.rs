//! What the daemon is and how it is doing: the handshake, `status`, the model, the semantic
//! index and the long jobs clients poll.

use serde::{Deserialize, Serialize};

/// The one answer whose shape never changes: what the daemon is and which protocol it speaks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Handshake {
    pub version: String,
    pub protocol: u32,
}

/// Whether the daemon runs the full set of jobs or only the essential ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Lite,
    Full,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Lite => "lite",
            Mode::Full => "full",
        }
    }
}

/// What `cairn status` shows.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Status {
    pub version: String,
    pub protocol: u32,
    pub pid: u32,
    pub uptime_s: u64,
    /// `CAIRN_HOME`, or the data folder when it is unset.
    pub home: String,
    pub data_dir: String,
    pub socket: String,
    pub mode: Mode,
    pub memories: u64,
    /// `ok`, or the config error with its file and line.
    pub config: String,
    /// `loaded`, `missing: ...` or `lazy`.
    pub model: String,
    /// Events held in the session log.
    pub session_events: u64,
    /// Hook processes that gave up at their deadline, as counted in the hook-miss log.
    pub hook_misses: u64,
    #[serde(default)]
    pub last_hook_miss: Option<String>,
    /// Projects that get no advice and record nothing.
    #[serde(default)]
    pub paused: Vec<String>,
    /// Keys of the config files that cairn does not know (kept in the file, ignored).
    #[serde(default)]
    pub unknown_config_keys: Vec<String>,
    /// Keys of tuneables.json given under a former name (read under the new one).
    #[serde(default)]
    pub renamed_config_keys: Vec<String>,
    /// The embedding model in use, once loaded.
    #[serde(default)]
    pub model_info: Option<ModelInfo>,
    /// How the semantic index compares with the store.
    #[serde(default)]
    pub index: IndexReport,
    /// Memories per tier (active, recent, archived, expired), as last counted (hourly).
    #[serde(default)]
    pub tiers: std::collections::BTreeMap<String, u64>,
    /// Lessons cairn captured itself: candidates, promoted, rejected.
    #[serde(default)]
    pub capture: super::review::CaptureCounts,
    /// The background job running or last finished (embedding, reindex).
    #[serde(default)]
    pub job: Option<JobProgress>,
    /// Why the store refuses writes (its disk is full, ...), until it takes them again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store_failure: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ModelInfo {
    pub name: String,
    /// What an index built with this model records; a different one means a reindex.
    pub fingerprint: String,
    pub dimension: u64,
    pub model_file: String,
    pub tokenizer_file: String,
    pub runtime_file: String,
}

/// The semantic index against the store.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct IndexReport {
    /// Whether the index is loaded (it loads with the model).
    #[serde(default)]
    pub loaded: bool,
    /// Memories in the store.
    pub memories: u64,
    /// Memories with a current vector in the index.
    pub indexed: u64,
    /// Memories still to embed (they are found by keywords meanwhile).
    pub pending: u64,
    /// Whether changes since the last save are waiting to be written.
    pub unsaved: bool,
}

/// A long job the daemon runs in the background and the client polls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobProgress {
    pub id: u64,
    /// `embed` (memories without vectors) or `reindex`.
    pub kind: String,
    /// What the job is doing now, in words.
    pub phase: String,
    pub done: u64,
    pub total: u64,
    pub finished: bool,
    #[serde(default)]
    pub error: Option<String>,
    pub started_at: String,
    pub elapsed_ms: u64,
}
