//! What a use case can fail with. The service turns these into the protocol's errors.

use std::path::PathBuf;

use crate::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("no memory with id {0}")]
    NotFound(String),
    /// The request is malformed (bad usage); the message says what to give instead.
    #[error("{0}")]
    Invalid(String),
    /// The request is well formed but cannot be carried out: what it names is not there or not
    /// in a state that allows it. The message says why.
    #[error("{0}")]
    Failed(String),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot write {}: {source}", .path.display())]
    Write { path: PathBuf, source: std::io::Error },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
