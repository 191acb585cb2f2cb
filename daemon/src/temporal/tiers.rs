//! Memory tiers (Wake's layer 2, how relevant now), pure: ACTIVE (touched within the hour),
//! RECENT (within a day), ARCHIVED (within thirty days), EXPIRED (older), counted from the last
//! access (said, searched, shown, or given feedback) or else creation; and which expired
//! memories pruning may move to the archive.
//!
//! Pruning takes only what no one vouched for: an expired memory that never proved useful (no
//! helpful outcome) and that the user did not write or accept. The user's own lessons (`user`,
//! Claude Code's memory files), lessons accepted in review, and the seed pack (kept by `cairn
//! seed`) are never pruned automatically.

use cairn_proto::{Memory, Tier};
use time::OffsetDateTime;

use crate::base::clock::parse_timestamp;

const HOUR: i64 = 3600;
const DAY: i64 = 24 * HOUR;
const MONTH: i64 = 30 * DAY;

/// When a memory was last accessed, else created (`None` when neither time parses).
pub fn touched(m: &Memory) -> Option<OffsetDateTime> {
    m.now.last_accessed.as_deref().and_then(parse_timestamp).or_else(|| parse_timestamp(&m.created_at))
}

/// The tier of something last touched `age_s` seconds ago.
pub fn of_age(age_s: i64) -> Tier {
    match age_s.max(0) {
        a if a < HOUR => Tier::Active,
        a if a < DAY => Tier::Recent,
        a if a < MONTH => Tier::Archived,
        _ => Tier::Expired,
    }
}

/// A memory's tier now: from its last access, else its creation.
pub fn of(m: &Memory, now: OffsetDateTime) -> Tier {
    match touched(m) {
        Some(t) => of_age((now - t).whole_seconds()),
        // A record whose times do not parse has no age to go by: it is kept where it can be seen.
        None => Tier::Active,
    }
}

/// Sources whose memories pruning may take: what cairn or an agent wrote on its own.
const PRUNABLE_SOURCES: &[&str] = &["captured", "agent", "distilled"];

/// Why pruning may move `m` to the archive now, or `None` when it must stay.
pub fn prunable(m: &Memory, now: OffsetDateTime) -> Option<String> {
    if of(m, now) != Tier::Expired || m.worth.helpful > 0 {
        return None;
    }
    if !PRUNABLE_SOURCES.contains(&m.source.as_str()) {
        return None;
    }
    if m.capture.as_ref().and_then(|c| c.promoted.as_ref()).is_some_and(|p| p.by == "user") {
        return None;
    }
    let last = m.now.last_accessed.as_deref().unwrap_or(&m.created_at);
    Some(format!("expired (last touched {last}), never proved useful, written by {}", m.source))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiers_change_at_an_hour_a_day_and_thirty_days() {
        assert_eq!(of_age(0), Tier::Active);
        assert_eq!(of_age(HOUR - 1), Tier::Active);
        assert_eq!(of_age(HOUR), Tier::Recent);
        assert_eq!(of_age(DAY - 1), Tier::Recent);
        assert_eq!(of_age(DAY), Tier::Archived);
        assert_eq!(of_age(MONTH - 1), Tier::Archived);
        assert_eq!(of_age(MONTH), Tier::Expired);
        assert_eq!(of_age(-50), Tier::Active, "a clock set back counts as now");
    }

    fn memory(source: &str, created: &str, accessed: Option<&str>) -> Memory {
        let mut m = crate::exchange::new_memory("m".into(), "p".into(), "t".into(), "git".into(), source.into(), vec![], String::new());
        m.created_at = created.into();
        m.now.last_accessed = accessed.map(str::to_string);
        m
    }

    #[test]
    fn the_last_access_counts_before_creation() {
        let now = parse_timestamp("2026-06-01T00:00:00Z").unwrap();
        assert_eq!(of(&memory("user", "2026-01-01T00:00:00Z", None), now), Tier::Expired);
        assert_eq!(of(&memory("user", "2026-01-01T00:00:00Z", Some("2026-05-31T23:30:00Z")), now), Tier::Active);
        assert_eq!(of(&memory("user", "2026-05-31T12:00:00Z", None), now), Tier::Recent);
    }

    #[test]
    fn only_expired_unproven_lessons_no_one_vouched_for_are_pruned() {
        let now = parse_timestamp("2026-06-01T00:00:00Z").unwrap();
        let old = "2026-01-01T00:00:00Z";
        assert!(prunable(&memory("captured", old, None), now).is_some());
        assert!(prunable(&memory("agent", old, None), now).is_some());
        assert!(prunable(&memory("user", old, None), now).is_none(), "the user's own");
        assert!(prunable(&memory("claude-md", old, None), now).is_none(), "the user's files");
        assert!(prunable(&memory("seed", old, None), now).is_none(), "the pack is kept by `cairn seed`");
        assert!(prunable(&memory("captured", "2026-05-20T00:00:00Z", None), now).is_none(), "not expired");
        let mut useful = memory("captured", old, None);
        useful.worth.helpful = 1;
        assert!(prunable(&useful, now).is_none(), "it proved useful");
        let mut accepted = memory("captured", old, None);
        accepted.capture = Some(cairn_proto::Capture { promoted: Some(cairn_proto::Promotion { at: old.into(), by: "user".into() }), ..Default::default() });
        assert!(prunable(&accepted, now).is_none(), "accepted by the user");
        accepted.capture.as_mut().unwrap().promoted.as_mut().unwrap().by = "auto".into();
        assert!(prunable(&accepted, now).is_some());
    }
}
