//! How the advisor decides, built from the settings in force by one function that the daemon
//! and the benchmarks share, so that what is tuned is what runs.

use std::collections::HashMap;

use crate::base::event::EventKind;
use crate::config::table;
use crate::config::tuneables::Tuneables;

/// Thresholds and weights of the gate, the fusion and the decision.
#[derive(Debug, Clone, PartialEq)]
pub struct Gates {
    pub min_similarity: f64,
    pub min_fusion_score: f64,
    /// Without embeddings, a memory must share at least this many query terms (fewer if the
    /// query has fewer).
    pub min_matched_terms: usize,
    pub weight_outcome: f64,
    pub weight_recency: f64,
    pub weight_salience: f64,
    pub trigger_base: f64,
    /// Added to a trigger's score by its priority: critical, high, normal, background.
    pub priority_bonus: [f64; 4],
}

impl Gates {
    pub fn from_settings(t: &Tuneables) -> Gates {
        let (r, b) = (&t.ranking, &t.triggers.priority_bonus);
        Gates {
            min_similarity: r.min_similarity,
            min_fusion_score: r.min_fusion_score,
            min_matched_terms: r.min_matched_terms,
            weight_outcome: r.weight_outcome,
            weight_recency: r.weight_recency,
            weight_salience: r.weight_salience,
            trigger_base: t.triggers.base_score,
            priority_bonus: [b.critical, b.high, b.normal, b.background],
        }
    }
}

/// How the advisor decides one answer.
#[derive(Debug, Clone)]
pub struct Policy {
    pub gates: Gates,
    pub mmr_lambda: f64,
    /// An item at least this similar to one already chosen is dropped as a duplicate.
    pub mmr_duplicate: f64,
    /// An item scoring under this share of the best item's score is not said beside it.
    pub min_relative_score: f64,
    pub category_caps: HashMap<String, usize>,
    pub default_category_cap: usize,
    /// Most items for this kind of event.
    pub limit: usize,
    pub recency_half_life_days: f64,
}

impl Policy {
    /// The policy in force for an answer of at most `limit` items.
    pub fn from_settings(t: &Tuneables, limit: usize) -> Policy {
        let r = &t.ranking;
        Policy {
            gates: Gates::from_settings(t),
            mmr_lambda: r.mmr_lambda,
            mmr_duplicate: r.mmr_duplicate_similarity,
            min_relative_score: r.min_relative_score,
            // Settings read from a file always hold a `default` cap; a map built in code may not.
            default_category_cap: r.category_caps.get("default").copied().unwrap_or_else(|| table::count_default("ranking.category_caps", "default").expect("the table has a default cap") as usize),
            category_caps: r.category_caps.iter().filter(|(k, _)| k.as_str() != "default").map(|(k, v)| (k.clone(), *v)).collect(),
            limit,
            recency_half_life_days: r.recency_half_life_days,
        }
    }
}

/// Most items and characters of advice for an event of `kind`; `None` for events that carry
/// no advice in Claude Code's protocol.
pub fn limits(t: &Tuneables, kind: &EventKind) -> Option<(usize, usize)> {
    let a = &t.advice;
    match kind {
        EventKind::PreToolUse => Some((a.max_items_tool, a.char_budget_tool)),
        EventKind::UserPromptSubmit => Some((a.max_items_prompt, a.char_budget_prompt)),
        EventKind::SessionStart => Some((a.max_items_session_start, a.char_budget_session_start)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_is_the_settings() {
        let mut t = Tuneables::default();
        t.ranking.min_fusion_score = 0.7;
        t.ranking.category_caps = [("default".to_string(), 1), ("git".to_string(), 3)].into();
        t.triggers.priority_bonus.high = 0.05;
        let p = Policy::from_settings(&t, 2);
        assert_eq!((p.gates.min_fusion_score, p.gates.priority_bonus[1], p.limit), (0.7, 0.05, 2));
        assert_eq!((p.default_category_cap, p.category_caps.get("git").copied(), p.category_caps.get("default")), (1, Some(3), None));
        let defaults = Policy::from_settings(&Tuneables::default(), 8);
        assert_eq!(defaults.gates.min_fusion_score, 0.8, "the settings table's bar, no other");
        assert_eq!(defaults.default_category_cap, 2);
        assert_eq!(limits(&t, &EventKind::PreToolUse), Some((2, 600)));
        assert_eq!(limits(&t, &EventKind::UserPromptSubmit), Some((8, 2400)));
        assert_eq!(limits(&t, &EventKind::SessionStart), Some((3, 1800)));
        assert_eq!(limits(&t, &EventKind::PostToolUse), None);
    }
}
