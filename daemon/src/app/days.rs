//! Each day's activity per project, counted as it happens (events, advice said, outcomes,
//! feedback, the hook's time) and written to the store's `daily` tree every half minute and at
//! shutdown, so the hook path adds an in-memory count, never a disk write. A `kill -9` loses at
//! most the counts since the last write; the memories and the session log are not affected.

use std::collections::HashMap;

use cairn_proto::DayStats;
use parking_lot::Mutex;

use crate::store::daily::{self, count_event};
use crate::store::outcomes::OutcomeRecord;
use crate::store::sessions::SessionEvent;
use crate::store::{Store, StoreError};

/// Days kept in the store (the overview's longest range is 400).
pub const KEEP_DAYS: i64 = 800;

#[derive(Default)]
pub struct Days {
    /// (day, project) -> the day's counts so far and whether they changed since the last write.
    open: Mutex<HashMap<(String, String), (DayStats, bool)>>,
}

impl Days {
    /// Changes one day's counts (read from the store the first time it is touched this run).
    fn with(&self, store: &Store, at: &str, project: &str, change: impl FnOnce(&mut DayStats)) {
        let Some(day) = daily::day_of(at) else { return };
        let mut open = self.open.lock();
        let key = (day.to_string(), project.to_string());
        if !open.contains_key(&key) {
            let stored = match store.day_stats(day, project) {
                Ok(s) => s,
                Err(e) => {
                    tracing::warn!(error = %e, "cannot read a day's counts; counting from zero");
                    None
                }
            };
            open.insert(key.clone(), (stored.unwrap_or_else(|| DayStats { day: day.to_string(), ..Default::default() }), false));
        }
        let (stats, dirty) = open.get_mut(&key).expect("inserted above");
        change(stats);
        *dirty = true;
    }

    /// A hook event recorded, and (for one weighed for advice) the daemon's time over it.
    pub fn event(&self, store: &Store, e: &SessionEvent, hook_ms: Option<f64>) {
        self.with(store, &e.at, &e.project, |d| {
            count_event(d, e);
            if let Some(ms) = hook_ms {
                d.time_hook(ms);
            }
        });
    }

    /// A lesson outcome written: its verdict moves from what it was (if anything) to now.
    pub fn outcome(&self, store: &Store, before: Option<&OutcomeRecord>, after: &OutcomeRecord) {
        if daily::counts(after) {
            self.with(store, &after.at, &after.project, |d| d.move_verdict(before.map(|b| b.verdict.as_str()), &after.verdict));
        }
    }

    /// Feedback on a lesson, counted on the day and project of the moment it is about (for
    /// `not_useful`, which has none, now and the lesson's project): `used` (said there),
    /// `missed` (used where it was not said), `not_relevant` or `not_useful`.
    pub fn feedback(&self, store: &Store, at: &str, project: &str, verb: &str) {
        self.with(store, at, project, |d| match verb {
            "used" => d.used += 1,
            "missed" => d.missed += 1,
            "not_relevant" => d.not_relevant += 1,
            "not_useful" => d.not_useful += 1,
            _ => {}
        });
    }

    /// The days held in memory, written or not: never older than the store's copy, so they are
    /// laid over it when reading (a write between the two reads loses nothing).
    pub fn open(&self) -> Vec<(String, DayStats)> {
        self.open.lock().iter().map(|((_, p), (s, _))| (p.clone(), s.clone())).collect()
    }

    /// Whether counts wait to be written.
    #[cfg(test)]
    fn unwritten(&self) -> usize {
        self.open.lock().values().filter(|(_, dirty)| *dirty).count()
    }

    /// Writes the changed days; keeps only today's in memory afterwards.
    pub fn flush(&self, store: &Store, today: &str) -> Result<(), StoreError> {
        let mut open = self.open.lock();
        for ((_, project), (stats, dirty)) in open.iter_mut() {
            if *dirty {
                store.put_day_stats(project, stats)?;
                *dirty = false;
            }
        }
        open.retain(|(day, _), _| day.as_str() >= today);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(at: &str, advised: usize) -> SessionEvent {
        let item = serde_json::json!({"id": "m", "text": "t", "score": 1.0, "why": "w"});
        serde_json::from_value(serde_json::json!({"at": at, "session_id": "s", "event": "PostToolUse", "project": "/p", "intent": "x", "payload": {}, "advised": vec![item; advised]})).unwrap()
    }

    #[tokio::test]
    async fn counts_reach_the_store_on_flush_and_add_to_what_it_held() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s"), 8 << 20).unwrap();
        store.put_day_stats("/p", &DayStats { day: "2026-11-24".into(), events: 5, ..Default::default() }).unwrap();
        let days = Days::default();
        days.event(&store, &event("2026-11-24T23:59:00.000Z", 2), Some(1.5));
        days.event(&store, &event("2026-11-25T00:01:00.000Z", 0), None);
        days.feedback(&store, "2026-11-25T00:02:00.000Z", "/p", "used");
        days.feedback(&store, "2026-11-25T00:02:00.000Z", "/p", "missed");
        let rec = |v: &str| OutcomeRecord { at: "2026-11-24T23:59:00.000Z".into(), session_id: "s".into(), event: "PostToolUse".into(), tool_use_id: None, project: "/p".into(), memory: "m".into(), verdict: v.into(), settled: false, evidence: "e".into(), decided_at: "t".into() };
        days.outcome(&store, None, &rec("unknown"));
        days.outcome(&store, Some(&rec("unknown")), &rec("followed"));
        assert_eq!(days.unwritten(), 2);
        days.flush(&store, "2026-11-25").unwrap();
        assert_eq!(days.unwritten(), 0);
        assert_eq!(days.open().len(), 1, "today's stays open after its write");
        let y = store.day_stats("2026-11-24", "/p").unwrap().unwrap();
        assert_eq!((y.events, y.advised, y.said, y.followed, y.unknown, y.hook_requests()), (6, 1, 2, 1, 0, 1));
        let t = store.day_stats("2026-11-25", "/p").unwrap().unwrap();
        assert_eq!((t.events, t.weighed, t.advised, t.used, t.missed), (1, 1, 0, 1, 1));
        // Only today's stay open; a later count of yesterday reads the store again.
        days.event(&store, &event("2026-11-24T23:59:30.000Z", 0), None);
        days.flush(&store, "2026-11-25").unwrap();
        assert_eq!(store.day_stats("2026-11-24", "/p").unwrap().unwrap().events, 7);
    }
}
