//! Prediction (Wake's layer 3, what next), pure: how likely a memory is to be needed next, from
//! three components, each in [0, 1], with the reasons a person can check, and when it is likely
//! to be needed.
//!
//! - **temporal**: `exp(-hours since the last access / 24)`; never accessed, by its tier (active
//!   0.3, recent 0.2, archived 0.1, expired 0).
//! - **causal**: what rests on it. A root (no cause of its own) that others descend from: 0.5 +
//!   0.1 per direct dependent, at most 1; a memory in the middle of a chain with dependents: 0.3 +
//!   0.1 each, at most 0.7; one nothing rests on: 0.2. (Wake counts a memory's own dependencies
//!   here; what rests on a memory is what makes it worth bringing forward, so cairn counts its
//!   dependents.)
//! - **frequency**: `ln(accesses + 1) / ln(101)`, capped at 1 (10 accesses about 0.5, 100 about 1).
//!
//! The score is the weighted sum, by default 0.4 / 0.3 / 0.3 (Wake's), per project learned from
//! which predictions were followed by an access and which were not (layer 4).

use cairn_proto::Tier;

/// The default weights of temporal, causal and frequency.
pub const DEFAULT_WEIGHTS: [f64; 3] = [0.4, 0.3, 0.3];
/// The components' names, in the weights' order.
pub const COMPONENTS: [&str; 3] = ["temporal", "causal", "frequency"];

/// Temporal component from the hours since the last access, else the tier.
pub fn temporal(hours_since_access: Option<f64>, tier: Tier) -> f64 {
    match hours_since_access {
        Some(h) => (-h.max(0.0) / 24.0).exp(),
        None => match tier {
            Tier::Active => 0.3,
            Tier::Recent => 0.2,
            Tier::Archived => 0.1,
            Tier::Expired => 0.0,
        },
    }
}

/// Causal component from whether the memory has a cause and how many memories name it.
pub fn causal(has_cause: bool, dependents: usize) -> f64 {
    match (has_cause, dependents) {
        (false, n) if n > 0 => (0.5 + 0.1 * n as f64).min(1.0),
        (true, n) if n > 0 => (0.3 + 0.1 * n as f64).min(0.7),
        _ => 0.2,
    }
}

/// Frequency component from the number of accesses.
pub fn frequency(accesses: u64) -> f64 {
    if accesses == 0 {
        return 0.0;
    }
    ((accesses as f64 + 1.0).ln() / 101f64.ln()).min(1.0)
}

/// The weighted score.
pub fn score(components: [f64; 3], weights: [f64; 3]) -> f64 {
    components.iter().zip(weights).map(|(c, w)| c * w).sum::<f64>().clamp(0.0, 1.0)
}

/// Why a memory scores as it does, in the words Wake uses.
pub fn reasons(score: f64, hours_since_access: Option<f64>, accesses: u64, causal: f64, tier: Tier) -> Vec<String> {
    let mut out = Vec::new();
    if score >= 0.7 {
        out.push("high_composite_score".into());
    }
    match hours_since_access {
        Some(h) if h < 1.0 => out.push("recently_accessed".into()),
        Some(h) if h < 24.0 => out.push("accessed_today".into()),
        _ => {}
    }
    if accesses >= 10 {
        out.push("high_access_frequency".into());
    } else if accesses >= 3 {
        out.push("moderate_access_frequency".into());
    }
    if causal >= 0.5 {
        out.push("causal_chain_root".into());
    } else if causal >= 0.3 {
        out.push("causal_chain_member".into());
    }
    if tier == Tier::Active {
        out.push("active_memory_tier".into());
    }
    if out.is_empty() {
        out.push("baseline_prediction".into());
    }
    out
}

/// When the memory is likely to be needed next, in Unix seconds: a day after a single access;
/// after several, the last access plus the average interval since creation; never more than a
/// week from now; `None` without an access to go by.
pub fn next_access(created_s: i64, last_access_s: Option<i64>, accesses: u64, now_s: i64) -> Option<i64> {
    let last = last_access_s?;
    if accesses == 0 {
        return None;
    }
    let next = if accesses == 1 { last + 86_400 } else { last + (last - created_s).max(0) / accesses as i64 };
    Some(next.min(now_s + 7 * 86_400))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_component_follows_its_formula() {
        assert!((temporal(Some(0.0), Tier::Expired) - 1.0).abs() < 1e-12);
        assert!((temporal(Some(24.0), Tier::Active) - (-1f64).exp()).abs() < 1e-12);
        assert_eq!(temporal(None, Tier::Recent), 0.2);
        assert_eq!(temporal(None, Tier::Expired), 0.0);
        assert_eq!(causal(false, 0), 0.2);
        assert!((causal(false, 2) - 0.7).abs() < 1e-12);
        assert_eq!(causal(false, 9), 1.0);
        assert!((causal(true, 2) - 0.5).abs() < 1e-12);
        assert_eq!(causal(true, 9), 0.7);
        assert_eq!(frequency(0), 0.0);
        assert!((frequency(10) - 11f64.ln() / 101f64.ln()).abs() < 1e-12);
        assert_eq!(frequency(1000), 1.0);
        assert!((score([1.0, 0.5, 0.0], DEFAULT_WEIGHTS) - 0.55).abs() < 1e-12);
    }

    #[test]
    fn reasons_name_what_the_score_rests_on() {
        assert_eq!(reasons(0.8, Some(0.5), 12, 0.6, Tier::Active), vec!["high_composite_score", "recently_accessed", "high_access_frequency", "causal_chain_root", "active_memory_tier"]);
        assert_eq!(reasons(0.2, None, 0, 0.2, Tier::Expired), vec!["baseline_prediction"]);
        assert_eq!(reasons(0.3, Some(5.0), 4, 0.3, Tier::Recent), vec!["accessed_today", "moderate_access_frequency", "causal_chain_member"]);
    }

    #[test]
    fn the_next_access_follows_the_pattern_and_stays_within_a_week() {
        let now = 1_000_000;
        assert_eq!(next_access(0, None, 0, now), None);
        assert_eq!(next_access(0, Some(now), 1, now), Some(now + 86_400));
        // Created 10 days ago, accessed 5 times: every two days.
        assert_eq!(next_access(now - 10 * 86_400, Some(now), 5, now), Some(now + 2 * 86_400));
        assert_eq!(next_access(now - 100 * 86_400, Some(now), 2, now), Some(now + 7 * 86_400), "capped at a week");
    }
}
