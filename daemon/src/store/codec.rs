//! How records are written in the store (JSON, so that added fields need no migration), and
//! what a store operation can fail with.

use std::path::PathBuf;

use serde::de::DeserializeOwned;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot open the store at {path}: {source}")]
    Open { path: PathBuf, source: sled::Error },
    #[error("store error: {0}")]
    Sled(#[from] sled::Error),
    /// The disk under the store refused a write; nothing more is written until it takes writes
    /// again, when the daemon reopens the store by itself.
    #[error("cannot write to {}: {reason}; memories are still read and advice still given, and cairn writes again by itself once the disk takes writes", .dir.display())]
    Unwritable { dir: PathBuf, reason: String },
    #[error("store is corrupt: {0}")]
    Corrupt(String),
    #[error("the store was written by a newer cairn (schema {found}; this cairn reads up to {supported}); upgrade cairn")]
    TooNew { found: u32, supported: u32 },
}

/// A transaction over several trees ends in a storage error (cairn's never abort).
impl From<sled::transaction::TransactionError<()>> for StoreError {
    fn from(e: sled::transaction::TransactionError<()>) -> StoreError {
        match e {
            sled::transaction::TransactionError::Storage(e) => StoreError::Sled(e),
            sled::transaction::TransactionError::Abort(()) => StoreError::Corrupt("a transaction aborted".into()),
        }
    }
}

pub fn decode<T: DeserializeOwned>(key: &[u8], bytes: &[u8]) -> Result<T, StoreError> {
    serde_json::from_slice(bytes)
        .map_err(|e| StoreError::Corrupt(format!("record {:?}: {e}", String::from_utf8_lossy(key))))
}

pub fn encode<T: serde::Serialize>(value: &T) -> Vec<u8> {
    serde_json::to_vec(value).expect("records serialise")
}

/// The outcome record a session's co-use is kept under (not a lesson said).
pub const CO_USED: &str = "co_used";

/// A day count's key (`daily`): the day first, so a range of days is a range of keys.
pub fn day_key(day: &str, project: &str) -> Vec<u8> {
    [day.as_bytes(), b"\0", project.as_bytes()].concat()
}

/// The day (UTC) of a stored timestamp (`YYYY-MM-DD...`), or `None` when it is not one.
pub fn day_of(at: &str) -> Option<&str> {
    let day = at.get(..10)?;
    let b = day.as_bytes();
    (b[4] == b'-' && b[7] == b'-' && b.iter().enumerate().all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())).then_some(day)
}

/// The memories (and situations) an adjustment-log line is about: its node, its edge's ends.
pub fn adjustment_subjects(line: &serde_json::Value) -> Vec<&str> {
    let mut ids: Vec<&str> = line["node"].as_str().into_iter().collect();
    if let Some(e) = line["edge"].as_array() {
        ids.extend(e.iter().take(2).filter_map(|v| v.as_str()));
    }
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// An entry of the adjustment log's index by subject: the subject, then the line's id.
pub fn adjustment_index_key(subject: &str, id: &[u8]) -> Vec<u8> {
    [subject.as_bytes(), b"\0", id].concat()
}
