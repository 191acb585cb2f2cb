//! How the advisor decides, built from the settings in force by one function that the daemon
//! and the benchmarks share, so that what is tuned is what runs.

use std::collections::HashMap;

use super::decision::{Fixed, Model};
use crate::base::event::EventKind;
use crate::config::table;
use crate::config::tuneables::Tuneables;

/// Retrieved lessons read from the store per moment: the closest this many by meaning and the
/// best this many by keywords (a lesson further down both lists is not what the moment is about).
pub const LEADERS: usize = 10;

/// The gate, the decision model and its bar.
#[derive(Debug, Clone, PartialEq)]
pub struct Gates {
    /// An optional floor on retrieval relevance before the decision (0: none).
    pub min_similarity: f64,
    /// The probability a lesson must reach to be said, for the model with embeddings.
    pub min_fusion_score: f64,
    /// Without embeddings, a memory must share at least this many query terms (fewer if the
    /// query has fewer).
    pub min_matched_terms: usize,
    /// The terms the labelled set cannot teach, weighted by the settings.
    pub fixed: Fixed,
    pub model: &'static Model,
    /// How close a moment must be to a situation learned from feedback for its judgement to
    /// decide alone (`learning.same_moment`).
    pub same_moment: f64,
    /// The closeness under which a learned situation counts for nothing (`learning.situation_floor`).
    pub situation_floor: f64,
    /// The project's learned mix of signal groups (`learning::weights`), when one was learned
    /// and learning is on: each group's terms scale by learned / default.
    pub mix: Option<crate::learning::weights::Mix>,
}

impl Gates {
    pub fn from_settings(t: &Tuneables) -> Gates {
        let r = &t.ranking;
        Gates {
            min_similarity: r.min_similarity,
            min_fusion_score: r.min_fusion_score,
            min_matched_terms: r.min_matched_terms,
            fixed: {
                let on = if t.learning.enabled { 1.0 } else { 0.0 };
                Fixed::from_weights(r.weight_outcome, r.weight_recency).with_learning(on * t.learning.weight_activation, on * t.learning.weight_learned)
            },
            situation_floor: t.learning.situation_floor,
            mix: None,
            model: Model::builtin(),
            same_moment: t.learning.same_moment,
        }
    }

    /// The bar of the keywords-only model: its own operating point, moved as far as the user
    /// moved `min_fusion_score` from the shipped one.
    pub fn words_only_bar(&self) -> f64 {
        (self.model.words_only.threshold + self.min_fusion_score - self.model.with_embeddings.threshold).clamp(0.0, 1.0)
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
        EventKind::PreToolUse | EventKind::PostToolUse | EventKind::PostToolUseFailure => Some((a.max_items_tool, a.char_budget_tool)),
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
        t.ranking.weight_outcome = 0.5;
        let p = Policy::from_settings(&t, 2);
        assert_eq!((p.gates.min_fusion_score, p.gates.fixed.outcome, p.limit), (0.7, 2.0, 2));
        assert_eq!((p.default_category_cap, p.category_caps.get("git").copied(), p.category_caps.get("default")), (1, Some(3), None));
        let defaults = Policy::from_settings(&Tuneables::default(), 8);
        assert_eq!(defaults.gates.min_fusion_score, Model::builtin().with_embeddings.threshold, "the settings table's bar is the shipped model's operating point");
        assert!((defaults.gates.words_only_bar() - Model::builtin().words_only.threshold).abs() < 1e-12);
        assert_eq!(defaults.default_category_cap, 2);
        assert_eq!(limits(&t, &EventKind::PreToolUse), Some((2, 600)));
        assert_eq!(limits(&t, &EventKind::UserPromptSubmit), Some((8, 2400)));
        assert_eq!(limits(&t, &EventKind::SessionStart), Some((3, 1800)));
        assert_eq!(limits(&t, &EventKind::PostToolUse), Some((2, 600)), "a tool call is advised on with its result");
        assert_eq!(limits(&t, &EventKind::PostToolUseFailure), Some((2, 600)));
        assert_eq!(limits(&t, &EventKind::Stop), None);
    }
}
