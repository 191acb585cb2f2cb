//! What a use case can fail with. The service turns these into the protocol's errors.

use std::path::PathBuf;

use crate::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("no memory with id {0}")]
    NotFound(String),
    /// The request cannot be carried out as asked; the message says what to give instead.
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot write {}: {source}", .path.display())]
    Write { path: PathBuf, source: std::io::Error },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
