//! What the dashboard reads: the overview (memories counted by the write path's census, each
//! day's activity from the day counts) and the advice log a page at a time. Both are bounded
//! whatever the store holds: the census is in memory, the days are one small record per project
//! and day, and a page of the log reads at most [`SCAN_BUDGET`] events.

use std::collections::{BTreeMap, HashMap};

use cairn_proto::{AdvicePage, AdvicePageQuery, AdviceRow, DayStats, Overview, OverviewQuery, GLOBAL_PROJECT};
use ulid::Ulid;

use super::daemon::Daemon;
use super::error::{Error, Result};
use crate::base::clock;
use crate::store::outcomes::outcome_key;
use crate::store::sessions::SessionEvent;

/// Most days an overview covers.
pub const MAX_DAYS: u32 = 400;
/// Most rows of one advice page.
pub const MAX_PAGE: u32 = 200;
/// Most events one advice page reads; a rare filter answers what it found and where to go on.
pub const SCAN_BUDGET: usize = 20_000;

/// The `YYYY-MM-DD` of each day from `days - 1` days before `today` to today, oldest first.
fn day_range(today: time::Date, days: u32) -> Vec<String> {
    (0..days as i64).rev().map(|back| (today - time::Duration::days(back)).to_string()).collect()
}

/// Lays the per-project day records over the range: one [`DayStats`] per day (zeros included)
/// for the projects `keep` keeps, and their sum.
fn series(range: &[String], records: impl IntoIterator<Item = (String, DayStats)>, keep: impl Fn(&str) -> bool) -> (Vec<DayStats>, DayStats) {
    let mut by_day: BTreeMap<&str, DayStats> = range.iter().map(|d| (d.as_str(), DayStats { day: d.clone(), ..Default::default() })).collect();
    for (project, stats) in records {
        if keep(&project)
            && let Some(day) = by_day.get_mut(stats.day.as_str())
        {
            day.merge(&stats);
        }
    }
    let days: Vec<DayStats> = by_day.into_values().collect();
    let mut total = DayStats { day: format!("{}..{}", range.first().map_or("", |s| s), range.last().map_or("", |s| s)), ..Default::default() };
    for d in &days {
        total.merge(d);
    }
    (days, total)
}

pub async fn overview(d: &Daemon, q: OverviewQuery) -> Result<Overview> {
    if q.days == 0 || q.days > MAX_DAYS {
        return Err(Error::Invalid(format!("days must be between 1 and {MAX_DAYS}")));
    }
    let now = time::OffsetDateTime::now_utc();
    let range = day_range(now.date(), q.days);
    // The store's records, with the counts held in memory laid over them.
    let mut records: HashMap<(String, String), DayStats> = HashMap::new();
    for (project, stats) in d.store().days_between(&range[0], &range[range.len() - 1])? {
        records.insert((project, stats.day.clone()), stats);
    }
    for (project, stats) in d.days().open() {
        records.insert((project, stats.day.clone()), stats);
    }
    let project = q.project.clone();
    let (miss_count, last_miss, misses) = super::status::hook_miss_days(d);
    let (mut days, mut total) = series(&range, records.into_iter().map(|((p, _), s)| (p, s)), |p| project.as_deref().is_none_or(|want| p == want));
    // The hook-miss log names no project: its misses show on every project's overview.
    for day in &mut days {
        day.hook_misses = misses.get(&day.day).copied().unwrap_or(0);
        total.hook_misses += day.hook_misses;
    }
    // A project's memories include the global ones, as its advice does.
    let (counted, mut projects) = d.memories().census(|p| project.as_deref().is_none_or(|want| p == want || p == GLOBAL_PROJECT), now.unix_timestamp());
    projects.extend(d.store().day_projects()?);
    projects.sort();
    projects.dedup();
    Ok(Overview {
        generated_at: clock::now(),
        project: q.project,
        memories: counted.memories,
        by_project: counted.by_project,
        by_category: counted.by_category,
        by_source: counted.by_source,
        by_tier: counted.by_tier,
        candidates: counted.candidates,
        days,
        total,
        projects,
        status: super::status::with_misses(d, miss_count, last_miss),
    })
}

/// Whether an event that carried advice passes the page's filters.
fn passes(d: &Daemon, q: &AdvicePageQuery, e: &SessionEvent) -> bool {
    if e.advised.is_empty() && e.decision.is_none() {
        return false;
    }
    if q.project.as_ref().is_some_and(|p| &e.project != p) || q.session.as_ref().is_some_and(|s| &e.session_id != s) {
        return false;
    }
    if q.lesson.as_ref().is_some_and(|l| !e.advised.iter().any(|a| &a.id == l)) {
        return false;
    }
    match q.outcome.as_deref() {
        None => true,
        Some(want) => e.advised.iter().filter(|a| q.lesson.as_ref().is_none_or(|l| &a.id == l)).any(|a| {
            let verdict = d.store().get_outcome(&outcome_key(&e.at, &e.session_id, &e.event, e.tool_use_id.as_deref(), &a.id)).ok().flatten().map(|r| r.verdict);
            verdict.as_deref().unwrap_or("none") == want
        }),
    }
}

const VERDICTS: [&str; 5] = ["followed", "ignored", "contradicted", "unknown", "none"];

pub async fn advice_page(d: &Daemon, q: AdvicePageQuery) -> Result<AdvicePage> {
    if q.limit == 0 || q.limit > MAX_PAGE {
        return Err(Error::Invalid(format!("limit must be between 1 and {MAX_PAGE}")));
    }
    if let Some(o) = q.outcome.as_deref().filter(|o| !VERDICTS.contains(o)) {
        return Err(Error::Invalid(format!("outcome {o:?} is not one of {}", VERDICTS.join(", "))));
    }
    let before = match q.before.as_deref() {
        Some(b) => Some(Ulid::from_string(b).map_err(|_| Error::Invalid(format!("{b:?} is not a page cursor")))?),
        None => None,
    };
    // What a filter names appears in a matching event's stored JSON exactly as JSON writes it:
    // events without it are passed over undecoded.
    let needles: Vec<Vec<u8>> = [&q.project, &q.session, &q.lesson].into_iter().flatten().map(|v| serde_json::to_vec(v).unwrap_or_default()).collect();
    let (found, scanned, next) = tokio::task::block_in_place(|| d.store().events_before(before, q.limit as usize, SCAN_BUDGET, &needles, |e| passes(d, &q, e)))?;
    let mut sessions = HashMap::new();
    let mut rows = Vec::with_capacity(found.len());
    for (id, e) in found {
        rows.push(AdviceRow { key: id.to_string(), entry: super::log::entry(d, e, &mut sessions)? });
    }
    Ok(AdvicePage { rows, next: next.map(|n| n.to_string()), scanned, oldest: d.store().oldest_event()? })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_has_every_day_and_keeps_only_the_projects_asked() {
        let today = time::macros::date!(2026 - 03 - 01);
        let range = day_range(today, 3);
        assert_eq!(range, ["2026-02-27", "2026-02-28", "2026-03-01"]);
        let rec = |p: &str, day: &str, said: u64| (p.to_string(), DayStats { day: day.into(), said, ..Default::default() });
        let records = vec![rec("/a", "2026-02-27", 2), rec("/b", "2026-02-27", 5), rec("/a", "2026-03-01", 1), rec("/a", "2026-01-01", 9)];
        let (days, total) = series(&range, records.clone(), |_| true);
        assert_eq!(days.iter().map(|d| d.said).collect::<Vec<_>>(), [7, 0, 1]);
        assert_eq!(total.said, 8, "a day outside the range is not counted");
        let (days, total) = series(&range, records, |p| p == "/a");
        assert_eq!((days[0].said, total.said), (2, 3));
    }
}
