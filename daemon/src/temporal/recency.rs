//! Recency: 1 for a memory touched just now, halving every half-life. Pure.

use cairn_proto::Memory;
use time::OffsetDateTime;

use crate::base::clock::parse_timestamp;

/// 1 for a memory touched now, halving every `half_life_days` (last access, else last change).
pub fn recency(memory: &Memory, now: OffsetDateTime, half_life_days: f64) -> f64 {
    let touched = memory.now.last_accessed.as_deref().and_then(parse_timestamp).or_else(|| parse_timestamp(&memory.updated_at));
    let Some(touched) = touched else { return 0.0 };
    let days = ((now - touched).as_seconds_f64() / 86_400.0).max(0.0);
    0.5f64.powf(days / half_life_days.max(1e-6))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touched(at: &str) -> Memory {
        let mut m = crate::exchange::new_memory("a".into(), "p".into(), "t".into(), "git".into(), "user".into(), vec![], String::new());
        m.updated_at = at.into();
        m
    }

    #[test]
    fn halves_every_half_life() {
        let now = time::macros::datetime!(2026-03-01 0:00 UTC);
        assert!((recency(&touched("2026-03-01T00:00:00Z"), now, 30.0) - 1.0).abs() < 1e-12);
        assert!((recency(&touched("2026-01-30T00:00:00Z"), now, 30.0) - 0.5).abs() < 1e-12);
        assert_eq!(recency(&touched("2026-04-01T00:00:00Z"), now, 30.0), 1.0, "the future counts as now");
        assert_eq!(recency(&touched("not a time"), now, 30.0), 0.0);
        let mut accessed = touched("2025-01-01T00:00:00Z");
        accessed.now.last_accessed = Some("2026-03-01T00:00:00Z".into());
        assert!((recency(&accessed, now, 30.0) - 1.0).abs() < 1e-12, "a recent access counts over an old change");
    }
}
