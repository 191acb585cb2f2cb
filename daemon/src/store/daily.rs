//! Each day's activity per project (`daily`: `YYYY-MM-DD\0project` to a [`DayStats`]), counted
//! as it happens so that the dashboard's overview reads a year in a few hundred records instead
//! of the session log. Kept longer than the log (it is small), bounded in days.

use cairn_proto::DayStats;

pub use super::codec::{day_key as key, day_of, CO_USED};
use super::codec::{decode, encode, StoreError};
use super::outcomes::OutcomeRecord;
use super::sessions::SessionEvent;
use super::Store;

/// What one recorded event adds to its day: an event, weighed when cairn weighed it for advice
/// (it then has an intent), and the lessons it carried.
pub fn count_event(day: &mut DayStats, e: &SessionEvent) {
    day.count_event(e.intent.is_some() || !e.advised.is_empty(), e.advised.len() as u64);
}

/// The outcome records that count: one per lesson said (not a session's co-use bookkeeping).
pub fn counts(r: &OutcomeRecord) -> bool {
    r.memory != CO_USED
}

impl Store {
    pub fn day_stats(&self, day: &str, project: &str) -> Result<Option<DayStats>, StoreError> {
        let k = key(day, project);
        self.daily.get(&k)?.map(|v| decode(&k, &v)).transpose()
    }

    pub fn put_day_stats(&self, project: &str, stats: &DayStats) -> Result<(), StoreError> {
        self.writable()?;
        self.daily.insert(key(&stats.day, project), encode(stats))?;
        Ok(())
    }

    /// Every (project, day) record from `from` to `to` (days, inclusive), oldest first.
    pub fn days_between(&self, from: &str, to: &str) -> Result<Vec<(String, DayStats)>, StoreError> {
        let mut out = Vec::new();
        let end = [to.as_bytes(), b"\x01"].concat();
        for item in self.daily.range(from.as_bytes()..end.as_slice()) {
            let (k, v) = item?;
            let project = k.iter().position(|b| *b == 0).map(|i| String::from_utf8_lossy(&k[i + 1..]).into_owned()).unwrap_or_default();
            out.push((project, decode(&k, &v)?));
        }
        Ok(out)
    }

    /// Projects with any day recorded.
    pub fn day_projects(&self) -> Result<std::collections::BTreeSet<String>, StoreError> {
        let mut out = std::collections::BTreeSet::new();
        for item in self.daily.iter() {
            let (k, _) = item?;
            if let Some(i) = k.iter().position(|b| *b == 0) {
                out.insert(String::from_utf8_lossy(&k[i + 1..]).into_owned());
            }
        }
        Ok(out)
    }

    /// Drops the days before `cutoff` (a `YYYY-MM-DD`). Returns how many records went.
    pub fn prune_days(&self, cutoff: &str) -> Result<u64, StoreError> {
        let mut n = 0;
        for item in self.daily.range(..cutoff.as_bytes()) {
            let (k, _) = item?;
            self.daily.remove(k)?;
            n += 1;
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_parse_and_verdicts_move_once() {
        assert_eq!(day_of("2026-11-25T10:00:00.000Z"), Some("2026-11-25"));
        assert_eq!(day_of("garbage"), None);
        assert_eq!(day_of("2026/11/25T"), None);
        let mut d = DayStats::default();
        d.move_verdict(None, "unknown");
        d.move_verdict(Some("unknown"), "followed");
        d.move_verdict(Some("followed"), "followed");
        assert_eq!((d.unknown, d.followed), (0, 1));
    }

    #[tokio::test]
    async fn days_round_trip_range_and_prune() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s"), 8 << 20).unwrap();
        for (day, p) in [("2026-01-01", "/a"), ("2026-01-02", "/a"), ("2026-01-02", "/b"), ("2026-01-03", "/a")] {
            store.put_day_stats(p, &DayStats { day: day.into(), events: 1, ..Default::default() }).unwrap();
        }
        let got = store.days_between("2026-01-02", "2026-01-03").unwrap();
        assert_eq!(got.iter().map(|(p, d)| (p.as_str(), d.day.as_str())).collect::<Vec<_>>(), [("/a", "2026-01-02"), ("/b", "2026-01-02"), ("/a", "2026-01-03")]);
        assert_eq!(store.day_projects().unwrap().len(), 2);
        assert_eq!(store.prune_days("2026-01-02").unwrap(), 1);
        assert!(store.day_stats("2026-01-01", "/a").unwrap().is_none());
    }
}
