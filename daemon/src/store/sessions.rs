//! The session log: what happened in each agent session (events, tool calls, the advice given),
//! kept for a bounded time and count.
//!
//! Events are keyed by ULID, so the log is in time order and pruning walks from the front; a
//! secondary index (session id, ULID) finds one session's events.

use std::sync::atomic::Ordering;

use cairn_proto::AdviceItem;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sled::transaction::ConflictableTransactionResult;
use sled::Transactional;
use ulid::Ulid;

use super::codec::{decode, encode, StoreError};
use super::Store;

/// One recorded hook event.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SessionEvent {
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
    /// The intent's natural-language form (what the model embedded), redacted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meaning: Option<String>,
    /// The payload as received, truncated by the hook and redacted by the daemon.
    pub payload: Value,
    /// What was said (text, reason and signals as they were then, the reason redacted).
    #[serde(default)]
    pub advised: Vec<AdviceItem>,
    /// An interrupt's decision (`ask: ...`, `deny: ...`), when the answer carried one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<String>,
    /// Captured candidates that would have been said here (id, probability): read by the
    /// capture worker into each candidate's shadow record.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shadow: Vec<(String, f64)>,
}

/// A page of the log read backwards: the events kept with their ULIDs, how many were read, and
/// where the next page starts (`None` at the log's start).
pub type EventsPage = (Vec<(Ulid, SessionEvent)>, u64, Option<Ulid>);

/// A session log key's ULID.
fn key_id(key: &[u8]) -> Result<Ulid, StoreError> {
    let bytes: [u8; 16] = key.try_into().map_err(|_| StoreError::Corrupt("session log key is not a ULID".into()))?;
    Ok(Ulid::from_bytes(bytes))
}

fn index_key(session: &str, id: &Ulid) -> Vec<u8> {
    [session.as_bytes(), b"\0", &id.to_bytes()].concat()
}

impl Store {
    pub fn event_count(&self) -> u64 {
        self.event_count.load(Ordering::Relaxed)
    }

    pub fn append_event(&self, event: &SessionEvent) -> Result<(), StoreError> {
        self.writable()?;
        // In the order they were recorded: attribution reads "what came next" from it.
        let id = self.event_ids.lock().generate().unwrap_or_else(|_| Ulid::new());
        let (key, bytes, index) = (id.to_bytes(), encode(event), index_key(&event.session_id, &id));
        // The line and its session's index entry together: a crash between the two would leave
        // an event its session never finds (feedback and attribution read it through the index).
        (&self.session_log, &self.session_index).transaction(|(log, by)| -> ConflictableTransactionResult<(), ()> {
            log.insert(&key[..], bytes.as_slice())?;
            by.insert(index.as_slice(), &[] as &[u8])?;
            Ok(())
        })?;
        self.event_count.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// The newest events first, at most `limit`, read back from the end of the log.
    pub fn recent_events(&self, limit: usize, keep: impl Fn(&SessionEvent) -> bool) -> Result<Vec<SessionEvent>, StoreError> {
        self.events_since(0, limit, keep)
    }

    /// The newest events recorded at or after `since_ms` (Unix milliseconds) that `keep` keeps,
    /// newest first, at most `limit`: the log is read backwards and no further than `since_ms`.
    pub fn events_since(&self, since_ms: u64, limit: usize, keep: impl Fn(&SessionEvent) -> bool) -> Result<Vec<SessionEvent>, StoreError> {
        let mut out = Vec::new();
        for item in self.session_log.iter().rev() {
            let (key, value) = item?;
            // From the start of time, the key's time is not read (nor checked).
            if since_ms > 0 && key_id(&key)?.timestamp_ms() < since_ms {
                break;
            }
            let event: SessionEvent = decode(&key, &value)?;
            if keep(&event) {
                out.push(event);
                if out.len() >= limit {
                    break;
                }
            }
        }
        Ok(out)
    }

    /// Events older than `before` (newest first) that `keep` keeps, at most `limit` of them and
    /// reading at most `budget` events: the kept ones with their ULIDs, how many were read, and
    /// where to go on from (`None` at the log's start). An event whose stored bytes lack one of
    /// `needles` is passed over without decoding it (a filter's value as JSON encodes it).
    pub fn events_before(
        &self,
        before: Option<Ulid>,
        limit: usize,
        budget: usize,
        needles: &[Vec<u8>],
        keep: impl Fn(&SessionEvent) -> bool,
    ) -> Result<EventsPage, StoreError> {
        let iter = match before {
            Some(b) => self.session_log.range(..b.to_bytes().to_vec()),
            None => self.session_log.range::<Vec<u8>, _>(..),
        };
        let (mut out, mut read) = (Vec::new(), 0u64);
        for item in iter.rev() {
            let (key, value) = item?;
            let id = key_id(&key)?;
            read += 1;
            if needles.iter().all(|n| memchr::memmem::find(&value, n).is_some()) {
                let event: SessionEvent = decode(&key, &value)?;
                if keep(&event) {
                    out.push((id, event));
                }
            }
            if out.len() >= limit || read as usize >= budget {
                // More may be older: the caller goes on from here.
                let more = self.session_log.range(..id.to_bytes().to_vec()).next_back().is_some();
                return Ok((out, read, more.then_some(id)));
            }
        }
        Ok((out, read, None))
    }

    /// The oldest event's time, if the log holds any.
    pub fn oldest_event(&self) -> Result<Option<String>, StoreError> {
        match self.session_log.iter().next() {
            Some(item) => {
                let (k, v) = item?;
                Ok(Some(decode::<SessionEvent>(&k, &v)?.at))
            }
            None => Ok(None),
        }
    }

    /// One session's newest events, newest first, at most `limit` (the index read backwards).
    pub fn session_events_newest(&self, session: &str, limit: usize) -> Result<Vec<SessionEvent>, StoreError> {
        let prefix = [session.as_bytes(), b"\0"].concat();
        let mut out = Vec::new();
        for item in self.session_index.scan_prefix(&prefix).rev() {
            let (key, _) = item?;
            if let Some(bytes) = self.session_log.get(&key[prefix.len()..])? {
                out.push(decode(&key, &bytes)?);
            }
            if out.len() >= limit {
                break;
            }
        }
        Ok(out)
    }

    /// One session's events, oldest first.
    pub fn session_events(&self, session: &str) -> Result<Vec<SessionEvent>, StoreError> {
        let prefix = [session.as_bytes(), b"\0"].concat();
        let mut out = Vec::new();
        for item in self.session_index.scan_prefix(&prefix) {
            let (key, _) = item?;
            let id = &key[prefix.len()..];
            if let Some(bytes) = self.session_log.get(id)? {
                out.push(decode(&key, &bytes)?);
            }
        }
        Ok(out)
    }

    /// Drops events older than `cutoff_ms` (Unix milliseconds) and the oldest beyond `max_events`.
    /// Returns how many were dropped.
    pub fn prune_events(&self, cutoff_ms: u64, max_events: u64) -> Result<u64, StoreError> {
        // One pruner at a time, so two never retire the same event and miscount.
        let _one = self.prune_lock.lock();
        let mut dropped = 0;
        for item in self.session_log.iter() {
            let (key, value) = item?;
            let id = key_id(&key)?;
            let over = self.event_count() > max_events;
            if !over && id.timestamp_ms() >= cutoff_ms {
                break;
            }
            let event: SessionEvent = decode(&key, &value)?;
            self.session_index.remove(index_key(&event.session_id, &id))?;
            if self.session_log.remove(&key)?.is_some() {
                self.event_count.fetch_sub(1, Ordering::Relaxed);
                dropped += 1;
            }
        }
        Ok(dropped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(session: &str) -> SessionEvent {
        SessionEvent {
            at: crate::base::clock::now(),
            session_id: session.into(),
            event: "PostToolUse".into(),
            project: "/p".into(),
            tool_name: Some("Bash".into()),
            tool_use_id: None,
            intent: None,
            meaning: None,
            payload: Value::Null,
            advised: vec![],
            decision: None,
            shadow: Vec::new(),
        }
    }

    #[tokio::test]
    async fn pages_go_back_in_time_within_a_budget_and_skip_what_lacks_a_needle() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s"), 8 << 20).unwrap();
        for i in 0..10 {
            store.append_event(&event(if i % 2 == 0 { "even" } else { "odd" })).unwrap();
        }
        let (page, read, next) = store.events_before(None, 3, 100, &[], |_| true).unwrap();
        assert_eq!((page.len(), read), (3, 3));
        let (older, _, _) = store.events_before(next, 100, 100, &[], |_| true).unwrap();
        assert_eq!(older.len(), 7, "the next page starts where the first stopped");
        assert!(older[0].0 < page[2].0);
        // A rare filter: the budget ends the page, which says where to go on.
        let needle = vec![serde_json::to_vec("odd").unwrap()];
        let (found, read, next) = store.events_before(None, 100, 4, &needle, |_| true).unwrap();
        assert_eq!((found.len(), read), (2, 4), "in the order recorded, even within a millisecond");
        assert!(found.iter().all(|(_, e)| e.session_id == "odd"));
        let (rest, _, end) = store.events_before(next, 100, 100, &needle, |_| true).unwrap();
        assert_eq!((rest.len(), end), (3, None), "every odd one, once, to the log's start");
    }

    #[tokio::test]
    async fn events_of_one_millisecond_keep_their_order() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s"), 8 << 20).unwrap();
        for i in 0..200 {
            store.append_event(&SessionEvent { intent: Some(i.to_string()), ..event("s") }).unwrap();
        }
        let read: Vec<String> = store.session_events("s").unwrap().into_iter().map(|e| e.intent.unwrap()).collect();
        assert_eq!(read, (0..200).map(|i| i.to_string()).collect::<Vec<_>>());
    }

    #[test]
    fn records_of_the_first_schema_still_read() {
        // Advice as the first releases recorded it: no signals, no source.
        let old = r#"{"at":"2026-11-20T10:00:00.000Z","session_id":"s","event":"PreToolUse","project":"/p","payload":null,
            "advised":[{"id":"m1","score":0.91,"path":[],"text":"Never force-push","category":"git","why":"trigger force_push"}]}"#;
        let e: SessionEvent = serde_json::from_str(old).unwrap();
        assert_eq!((e.advised[0].id.as_str(), e.advised[0].score, e.advised[0].why.as_str()), ("m1", 0.91, "trigger force_push"));
        assert!(e.advised[0].signals.is_empty() && e.advised[0].source.is_empty());
    }

    #[tokio::test]
    async fn retention_bounds_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s"), 8 << 20).unwrap();
        for i in 0..10 {
            store.append_event(&event(if i % 2 == 0 { "a" } else { "b" })).unwrap();
        }
        assert_eq!(store.session_events("a").unwrap().len(), 5);
        assert_eq!(store.events_since(0, 3, |e| e.session_id == "a").unwrap().len(), 3);
        assert!(store.events_since(u64::MAX, 100, |_| true).unwrap().is_empty(), "nothing is that new");
        assert_eq!(store.prune_events(0, 4).unwrap(), 6);
        assert_eq!(store.event_count(), 4);
        assert_eq!(store.session_events("a").unwrap().len() + store.session_events("b").unwrap().len(), 4);
        // Everything is older than a cutoff in the future.
        assert_eq!(store.prune_events(u64::MAX, 100).unwrap(), 4);
        assert_eq!(store.event_count(), 0);
    }
}
