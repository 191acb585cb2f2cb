//! Shapes every area shares: which project a request is about, a page of a long answer, and
//! the errors a request can end with.

use serde::{Deserialize, Serialize};

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

/// One page of a long answer; `next` is the cursor for the following page.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Page<T> {
    pub items: Vec<T>,
    #[serde(default)]
    pub next: Option<String>,
}

/// Errors a request can end with; each says what to do about it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
pub enum RpcError {
    #[error("no memory with id {0}")]
    NotFound(String),
    #[error("invalid request: {0}")]
    Invalid(String),
    /// A well-formed request that cannot be carried out (a session with no such moment, a
    /// candidate promoted already): the message says why. Not bad usage, so exit 1, not 2.
    #[error("{0}")]
    Failed(String),
    #[error("cairnd speaks protocol {daemon} but this client speaks {client}")]
    ProtocolMismatch { daemon: u32, client: u32 },
    #[error("store error: {0}")]
    Store(String),
}
