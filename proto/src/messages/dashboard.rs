//! What the dashboard asks of the daemon: the overview's aggregates (counted in the daemon, so a
//! page never carries the store) and the advice log a page at a time, with filters.

use serde::{Deserialize, Serialize};

use super::advice::LogEntry;
use super::status::Status;

/// Upper bounds (ms) of the hook timing buckets of [`DayStats::hook_ms`]; the last bucket is
/// everything slower than the last bound.
pub const HOOK_MS_BOUNDS: [f64; 14] = [0.5, 1.0, 2.0, 3.0, 5.0, 8.0, 13.0, 20.0, 35.0, 50.0, 100.0, 250.0, 500.0, 1000.0];

/// The overview of one project, or of every project when `project` is `None`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct OverviewQuery {
    #[serde(default)]
    pub project: Option<String>,
    /// Days of history in the series, ending today (1 to 400).
    pub days: u32,
}

/// A name and how many.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Count {
    pub name: String,
    pub count: u64,
}

/// One day (UTC) of one project's activity, as the daemon counts it when it happens: events,
/// advice said, what became of it, feedback and how long the daemon took over hook requests.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DayStats {
    /// `YYYY-MM-DD`.
    pub day: String,
    /// Hook events recorded.
    #[serde(default)]
    pub events: u64,
    /// Events cairn weighed for advice (tool results, prompts, session starts).
    #[serde(default)]
    pub weighed: u64,
    /// Weighed events that got at least one lesson.
    #[serde(default)]
    pub advised: u64,
    /// Lessons said (an event can carry several).
    #[serde(default)]
    pub said: u64,
    /// What became of the lessons said that day, as attributed so far.
    #[serde(default)]
    pub followed: u64,
    #[serde(default)]
    pub ignored: u64,
    #[serde(default)]
    pub contradicted: u64,
    #[serde(default)]
    pub unknown: u64,
    /// Feedback on that day's moments: `used` where the lesson was said there (a hit the user
    /// confirmed), `missed` where it was not (a moment that needed it); each counts once per
    /// verb given.
    #[serde(default)]
    pub used: u64,
    #[serde(default)]
    pub missed: u64,
    #[serde(default)]
    pub not_relevant: u64,
    #[serde(default)]
    pub not_useful: u64,
    /// Hook processes that gave up at their deadline that day, as the hook-miss log still holds
    /// them (filled when the overview is asked for; the stored record keeps 0).
    #[serde(default)]
    pub hook_misses: u64,
    /// The daemon's time per weighed hook request, counted in the buckets of [`HOOK_MS_BOUNDS`]
    /// (one more bucket for slower). Empty before any.
    #[serde(default)]
    pub hook_ms: Vec<u64>,
}

impl DayStats {
    /// Counts one recorded event: `weighed` when cairn weighed it for advice, with `said` the
    /// lessons it carried.
    pub fn count_event(&mut self, weighed: bool, said: u64) {
        self.events += 1;
        self.weighed += weighed as u64;
        if said > 0 {
            self.advised += 1;
            self.said += said;
        }
    }

    /// Moves a lesson outcome's count from the verdict it had (if any) to the one it has now.
    pub fn move_verdict(&mut self, before: Option<&str>, after: &str) {
        if before == Some(after) {
            return;
        }
        if let Some(c) = before.and_then(|v| self.verdict_mut(v)) {
            *c = c.saturating_sub(1);
        }
        if let Some(c) = self.verdict_mut(after) {
            *c += 1;
        }
    }

    /// Counts one hook request's time.
    pub fn time_hook(&mut self, ms: f64) {
        if self.hook_ms.len() != HOOK_MS_BOUNDS.len() + 1 {
            self.hook_ms.resize(HOOK_MS_BOUNDS.len() + 1, 0);
        }
        let i = HOOK_MS_BOUNDS.iter().position(|b| ms <= *b).unwrap_or(HOOK_MS_BOUNDS.len());
        self.hook_ms[i] += 1;
    }

    /// Adds another day's (or project's) counts to this one.
    pub fn merge(&mut self, o: &DayStats) {
        self.events += o.events;
        self.weighed += o.weighed;
        self.advised += o.advised;
        self.said += o.said;
        self.followed += o.followed;
        self.ignored += o.ignored;
        self.contradicted += o.contradicted;
        self.unknown += o.unknown;
        self.used += o.used;
        self.missed += o.missed;
        self.not_relevant += o.not_relevant;
        self.not_useful += o.not_useful;
        self.hook_misses += o.hook_misses;
        if o.hook_ms.len() > self.hook_ms.len() {
            self.hook_ms.resize(o.hook_ms.len(), 0);
        }
        for (a, b) in self.hook_ms.iter_mut().zip(&o.hook_ms) {
            *a += b;
        }
    }

    /// The counter of a lesson outcome's verdict, if it is one.
    pub fn verdict_mut(&mut self, verdict: &str) -> Option<&mut u64> {
        match verdict {
            "followed" => Some(&mut self.followed),
            "ignored" => Some(&mut self.ignored),
            "contradicted" => Some(&mut self.contradicted),
            "unknown" => Some(&mut self.unknown),
            _ => None,
        }
    }

    /// Moments known to have needed their lesson where it was said: followed, or marked used.
    pub fn hits(&self) -> u64 {
        self.followed + self.used
    }

    /// Of the moments known to have needed a lesson (it was followed, or the user marked it
    /// `used`, said there or not), the share where cairn said it.
    pub fn hit_rate(&self) -> Option<f64> {
        let known = self.hits() + self.missed;
        (known > 0).then(|| self.hits() as f64 / known as f64)
    }

    /// Share of the judged lessons (followed, ignored, contradicted) that were followed.
    pub fn followed_rate(&self) -> Option<f64> {
        let judged = self.followed + self.ignored + self.contradicted;
        (judged > 0).then(|| self.followed as f64 / judged as f64)
    }

    /// Hook requests timed.
    pub fn hook_requests(&self) -> u64 {
        self.hook_ms.iter().sum()
    }

    /// The upper bound (ms) of the bucket holding the `q` quantile of hook times (`None` before
    /// any, infinity when it is in the last, open bucket).
    pub fn hook_quantile(&self, q: f64) -> Option<f64> {
        let n = self.hook_requests();
        if n == 0 {
            return None;
        }
        let rank = ((q.clamp(0.0, 1.0) * n as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (i, c) in self.hook_ms.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Some(HOOK_MS_BOUNDS.get(i).copied().unwrap_or(f64::INFINITY));
            }
        }
        Some(f64::INFINITY)
    }
}

/// The dashboard's overview.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Overview {
    pub generated_at: String,
    /// The project shown, or `None` for all.
    #[serde(default)]
    pub project: Option<String>,
    /// Memories shown (the project's and global, or all), counted by each key, most first.
    pub memories: u64,
    pub by_project: Vec<Count>,
    pub by_category: Vec<Count>,
    pub by_source: Vec<Count>,
    /// active, recent, archived, expired, in that order.
    pub by_tier: Vec<Count>,
    /// Candidates captured and still earning their voice.
    pub candidates: u64,
    /// One entry per day of the range, oldest first, zeros included.
    pub days: Vec<DayStats>,
    /// The whole range summed.
    pub total: DayStats,
    /// Projects with any recorded activity or memories, for the filter.
    pub projects: Vec<String>,
    /// The daemon as `status` shows it: model, index, hook misses, jobs.
    pub status: Status,
}

/// One page of the advice log, newest first.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct AdvicePageQuery {
    #[serde(default)]
    pub project: Option<String>,
    #[serde(default)]
    pub session: Option<String>,
    /// Only events that said this lesson.
    #[serde(default)]
    pub lesson: Option<String>,
    /// Only events with a lesson whose outcome is this verdict (`followed`, `ignored`,
    /// `contradicted`, `unknown`, or `none` for no outcome yet).
    #[serde(default)]
    pub outcome: Option<String>,
    /// The previous page's `next`: older than this entry.
    #[serde(default)]
    pub before: Option<String>,
    pub limit: u32,
}

/// An entry of the advice log with its place in it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AdviceRow {
    /// Where the entry is in the log (a cursor).
    pub key: String,
    pub entry: LogEntry,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct AdvicePage {
    pub rows: Vec<AdviceRow>,
    /// Pass as `before` for the next, older page; `None` at the log's start.
    #[serde(default)]
    pub next: Option<String>,
    /// Events read for this page (a page reads at most a bounded number, so a rare filter may
    /// answer fewer rows and a `next`).
    pub scanned: u64,
    /// The oldest event the log still holds, if any.
    #[serde(default)]
    pub oldest: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hook_quantiles_come_from_the_buckets() {
        let mut d = DayStats::default();
        assert_eq!(d.hook_quantile(0.5), None);
        for ms in [0.3, 0.8, 1.5, 1.7, 4.0, 2000.0] {
            d.time_hook(ms);
        }
        assert_eq!(d.hook_requests(), 6);
        assert_eq!(d.hook_quantile(0.5), Some(2.0));
        assert_eq!(d.hook_quantile(0.0), Some(0.5));
        assert_eq!(d.hook_quantile(1.0), Some(f64::INFINITY));
    }

    #[test]
    fn rates_and_merge() {
        let mut a = DayStats { said: 4, followed: 1, ignored: 1, used: 1, missed: 2, ..Default::default() };
        assert_eq!(a.hit_rate(), Some(0.5), "two hits of four moments that needed a lesson");
        assert_eq!(a.followed_rate(), Some(0.5));
        let mut b = DayStats { said: 0, ..Default::default() };
        b.time_hook(3.0);
        a.merge(&b);
        assert_eq!(a.hook_requests(), 1);
        assert_eq!(DayStats::default().hit_rate(), None);
        *a.verdict_mut("contradicted").unwrap() += 2;
        assert_eq!(a.contradicted, 2);
        assert!(a.verdict_mut("bogus").is_none());
    }
}
