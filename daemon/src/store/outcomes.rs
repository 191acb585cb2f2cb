//! What became of each lesson said: one record per (moment, lesson), keyed by the moment's time
//! first so that retention walks from the front like the session log's.

use serde::{Deserialize, Serialize};

use super::codec::{decode, encode, StoreError};
use super::Store;

/// The attribution of one lesson said at one moment (see `learning::attribution`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutcomeRecord {
    /// The moment: its time, session, event and tool call.
    pub at: String,
    pub session_id: String,
    pub event: String,
    #[serde(default)]
    pub tool_use_id: Option<String>,
    pub project: String,
    pub memory: String,
    /// `followed`, `ignored`, `contradicted` or `unknown`.
    pub verdict: String,
    pub settled: bool,
    pub evidence: String,
    pub decided_at: String,
}

/// The record's key: time, session, event, tool call, lesson.
pub fn outcome_key(at: &str, session: &str, event: &str, tool_use_id: Option<&str>, memory: &str) -> Vec<u8> {
    [at, session, event, tool_use_id.unwrap_or(""), memory].join("\0").into_bytes()
}

impl Store {
    pub fn get_outcome(&self, key: &[u8]) -> Result<Option<OutcomeRecord>, StoreError> {
        self.outcomes.get(key)?.map(|v| decode(key, &v)).transpose()
    }

    pub fn put_outcome(&self, key: &[u8], record: &OutcomeRecord) -> Result<(), StoreError> {
        self.outcomes.insert(key, encode(record))?;
        Ok(())
    }

    /// Drops the records of moments older than `before` (a stored timestamp, which sorts as
    /// text). Returns how many were dropped. The caller passes the oldest moment still in the
    /// session log: a record must live as long as its moment, or the outcome worker, reading that
    /// session again (a resumed session), would find a moment without its record and count its
    /// lessons once more.
    pub fn prune_outcomes(&self, before: &str) -> Result<u64, StoreError> {
        let mut dropped = 0;
        for item in self.outcomes.iter() {
            let (key, _) = item?;
            if key.as_ref() >= before.as_bytes() {
                break;
            }
            self.outcomes.remove(&key)?;
            dropped += 1;
        }
        Ok(dropped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn records_round_trip_and_retire_oldest_first() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s"), 8 << 20).unwrap();
        let rec = |at: &str| OutcomeRecord {
            at: at.into(),
            session_id: "s".into(),
            event: "PostToolUse".into(),
            tool_use_id: Some("t".into()),
            project: "/p".into(),
            memory: "m".into(),
            verdict: "followed".into(),
            settled: false,
            evidence: "e".into(),
            decided_at: at.into(),
        };
        for at in ["2026-01-01T00:00:01.000Z", "2026-01-02T00:00:01.000Z", "2026-01-03T00:00:01.000Z"] {
            store.put_outcome(&outcome_key(at, "s", "PostToolUse", Some("t"), "m"), &rec(at)).unwrap();
        }
        let key = outcome_key("2026-01-02T00:00:01.000Z", "s", "PostToolUse", Some("t"), "m");
        assert_eq!(store.get_outcome(&key).unwrap(), Some(rec("2026-01-02T00:00:01.000Z")));
        assert_eq!(store.prune_outcomes("2026-01-02T00:00:00.000Z").unwrap(), 1);
        assert_eq!(store.prune_outcomes("2026-01-02T00:00:00.000Z").unwrap(), 0, "what is not older stays");
        assert!(store.get_outcome(&key).unwrap().is_some());
        assert_eq!(store.prune_outcomes("2026-01-02T00:00:01.000Z").unwrap(), 0, "a record of the oldest moment kept stays");
        assert_eq!(store.prune_outcomes("2026-01-03T00:00:00.000Z").unwrap(), 1);
        assert!(store.get_outcome(&key).unwrap().is_none());
    }
}
