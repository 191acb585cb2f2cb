//! Request and response types carried by the service, shared verbatim by client and daemon.
//!
//! Every optional field has a serde default so that a newer peer can add fields without breaking
//! an older one within the same protocol version.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::memory::Memory;

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
    /// The embedding model in use, once loaded.
    #[serde(default)]
    pub model_info: Option<ModelInfo>,
    /// How the semantic index compares with the store.
    #[serde(default)]
    pub index: IndexReport,
    /// The background job running or last finished (embedding, reindex).
    #[serde(default)]
    pub job: Option<JobProgress>,
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

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SearchRequest {
    pub text: String,
    #[serde(default)]
    pub scope: Scope,
    /// Most results (default 10).
    #[serde(default)]
    pub k: Option<u32>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SearchResults {
    pub results: Vec<SearchHit>,
    /// `hybrid` (keywords and embeddings) or `keywords` (no model).
    pub mode: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SearchHit {
    pub id: String,
    pub text: String,
    pub project: String,
    pub category: String,
    /// The fused relevance, 0 to 1.
    pub score: f64,
    /// Cosine similarity of the embeddings; `null` without the model.
    pub similarity: Option<f64>,
    pub bm25: f64,
    pub why: String,
}

/// The effective configuration and where each value came from (`cairn config show`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ConfigReport {
    pub tuneables_file: String,
    /// `ok` or the file's error (the last good settings stay in force).
    pub tuneables_state: String,
    pub settings: Vec<SettingView>,
    #[serde(default)]
    pub unknown_keys: Vec<String>,
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

/// Which memories a request is about. Resolution happens in the daemon: an explicit project
/// wins, then `global`, then the project of `cwd`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Scope {
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub project: Option<String>,
    #[serde(default)]
    pub global: bool,
}

/// The daemon's answer to a hook event, before the client shapes it for Claude Code.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct HookReply {
    /// Text for `hookSpecificOutput.additionalContext`, when there is advice worth giving.
    #[serde(default)]
    pub additional_context: Option<String>,
    /// An interrupt (opt-in): the tool call needs the user's say (`ask`) or is refused (`deny`).
    #[serde(default)]
    pub decision: Option<HookDecision>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HookDecision {
    /// `ask` or `deny`: Claude Code's `permissionDecision`.
    pub permission: String,
    /// Names the rule and the lesson.
    pub reason: String,
}

/// What `cairn seed` asks for.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum SeedAction {
    List,
    /// Turn the whole pack (`None`) or one seed on again; seeds never loaded are loaded.
    Enable(Option<String>),
    /// Turn the whole pack (`None`) or one seed off; nothing is deleted.
    Disable(Option<String>),
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SeedReport {
    pub pack_enabled: bool,
    pub seeds: Vec<SeedView>,
    /// What a change did, in words.
    #[serde(default)]
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SeedView {
    pub id: String,
    pub category: String,
    pub priority: String,
    pub text: String,
    /// `on`, `off` (this seed), `pack off`, `yours` (edited, no longer a seed), `forgotten`, or
    /// `not loaded`.
    pub state: String,
    /// Whether the seed comes with trigger patterns.
    pub triggers: bool,
}

/// Which advice `cairn log` shows.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct LogQuery {
    #[serde(default)]
    pub session: Option<String>,
    /// The project whose advice to show (by default the current directory's; with a session,
    /// every project unless one is named).
    #[serde(default)]
    pub scope: Scope,
    /// Every project.
    #[serde(default)]
    pub all: bool,
    /// Most entries, newest last.
    pub last: u32,
}

/// One event that carried advice.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LogEntry {
    pub at: String,
    pub session_id: String,
    pub event: String,
    pub project: String,
    #[serde(default)]
    pub tool_name: Option<String>,
    #[serde(default)]
    pub tool_use_id: Option<String>,
    #[serde(default)]
    pub intent: Option<String>,
    pub items: Vec<LogItem>,
    /// An interrupt's decision, when there was one.
    #[serde(default)]
    pub decision: Option<String>,
    /// What became of the tool call afterwards, where the log knows: `succeeded`, `failed: ...`.
    #[serde(default)]
    pub outcome: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LogItem {
    pub id: String,
    pub text: String,
    #[serde(default)]
    pub category: String,
    pub score: f64,
    pub why: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
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

/// One page of a long answer; `next` is the cursor for the following page.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Page<T> {
    pub items: Vec<T>,
    #[serde(default)]
    pub next: Option<String>,
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
    pub rejected: Vec<Rejection>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Rejection {
    pub line: u64,
    pub reason: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct AdviseRequest {
    /// Free text to advise on.
    #[serde(default)]
    pub text: Option<String>,
    /// A Claude Code hook payload to advise on instead.
    #[serde(default)]
    pub hook_input: Option<serde_json::Value>,
    #[serde(default)]
    pub scope: Scope,
    #[serde(default)]
    pub limit: Option<u32>,
    /// With a session, cooldowns apply and the advice is recorded; without, a pure dry run.
    #[serde(default)]
    pub session: Option<String>,
    /// Also answer what was considered and not said, with the verdict for each.
    #[serde(default)]
    pub explain: bool,
}

/// Advice before formatting: what the hook would emit and why.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Advice {
    pub intent: String,
    pub project: String,
    pub advice: Vec<AdviceItem>,
    /// How much the action warranted advice at all (0 to 1), and why.
    #[serde(default)]
    pub salience: f64,
    #[serde(default)]
    pub salience_reason: String,
    /// With `explain`: the candidates not said, each with its verdict.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub considered: Vec<ConsideredItem>,
    /// The interrupt the hook would answer with (`ask` or `deny`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<String>,
}

/// A candidate the advisor weighed and did not say.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ConsideredItem {
    pub id: String,
    pub text: String,
    pub category: String,
    pub score: f64,
    pub why: String,
    /// Why it was not said: gated, not decided, cooldown, redundant, category cap, limit.
    pub verdict: String,
    pub signals: Signals,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AdviceItem {
    pub id: String,
    pub text: String,
    pub category: String,
    pub score: f64,
    pub why: String,
    /// Every signal that went into the score, each under its own name.
    pub signals: Signals,
    /// `semantic` (retrieval found it), `trigger` (a rule put it forward) or `both`.
    #[serde(default)]
    pub source: String,
}

/// Errors a request can end with; each says what to do about it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
pub enum RpcError {
    #[error("no memory with id {0}")]
    NotFound(String),
    #[error("invalid request: {0}")]
    Invalid(String),
    #[error("cairnd speaks protocol {daemon} but this client speaks {client}")]
    ProtocolMismatch { daemon: u32, client: u32 },
    #[error("store error: {0}")]
    Store(String),
    #[error("cairnd is shutting down")]
    ShuttingDown,
}

/// Signals in an [`AdviceItem`], named once so client and daemon agree.
pub type Signals = BTreeMap<String, f64>;

impl Memory {
    /// A compact one-line view for listings.
    pub fn one_line(&self) -> String {
        let text: String = self.text.chars().take(100).collect();
        let ellipsis = if self.text.chars().count() > 100 { "..." } else { "" };
        format!("{}  [{}] ({})  {}{}", self.id, self.category, self.project, text, ellipsis)
    }
}
