//! Fusion: a candidate's signals into one score, each signal kept separate and named so that
//! `why` can show it. Pure.
//!
//! The fusion starts from Spark's revised formula, every term its own signal:
//! - retrieved: `relevance x (1 + outcome_boost + recency_boost) x salience_factor` (x a seed's
//!   weight, for a seed lesson)
//! - triggered: `trigger_base x trigger_conf + outcome_boost / 2 + priority_bonus`
//! - both: the larger of the two.
//!
//! where `outcome_boost = weight_outcome x (effectiveness - 0.5) x 2` (an untested memory, at
//! its Beta prior 0.5, is neutral), `recency_boost = weight_recency x recency`, and
//! `salience_factor = 1 - weight_salience x (1 - salience)` (a look-around needs stronger
//! evidence than a push).

use cairn_proto::Signals;

use super::candidate::{Candidate, Source};
use super::explain::{self, Terms};
use super::policy::Gates;

/// A candidate after fusion.
#[derive(Debug, Clone)]
pub struct Scored {
    pub candidate: Candidate,
    pub source: Source,
    pub relevance: f64,
    pub score: f64,
    pub signals: Signals,
    /// The reason in words, every signal named.
    pub why: String,
    /// The first clause of `why`, short enough for the hook's context text.
    pub short_why: String,
}

/// Fuses a candidate's signals into its score, with `why`.
pub fn fuse(c: Candidate, salience: (f64, &str), gates: &Gates) -> Scored {
    let source = c.source();
    let relevance = c.relevance();
    let outcome_boost = gates.weight_outcome * (c.effectiveness.clamp(0.0, 1.0) - 0.5) * 2.0;
    let recency_boost = gates.weight_recency * c.recency.clamp(0.0, 1.0);
    let salience_factor = 1.0 - gates.weight_salience.clamp(0.0, 1.0) * (1.0 - salience.0.clamp(0.0, 1.0));
    // A seed yields to the user's own lessons as they accumulate, by what retrieval found; a
    // rule that matched the action itself speaks at full strength (a critical warning must not
    // fade because the user wrote many lessons of their own).
    let seed_weight = c.seed.as_ref().map_or(1.0, |(w, _)| *w);
    let retrieved_score = relevance * (1.0 + outcome_boost + recency_boost) * salience_factor * seed_weight;
    let trigger_score = c.trigger.as_ref().map(|t| gates.trigger_base * t.confidence + outcome_boost / 2.0 + gates.priority_bonus[t.priority.index()]);
    let score = match (source, trigger_score) {
        (Source::Semantic, _) | (_, None) => retrieved_score,
        (Source::Trigger, Some(t)) => t,
        (Source::Both, Some(t)) => t.max(retrieved_score),
    };

    let mut signals = Signals::new();
    signals.insert("relevance".into(), relevance);
    signals.insert("salience".into(), salience.0);
    signals.insert("effectiveness".into(), c.effectiveness);
    signals.insert("outcome_boost".into(), outcome_boost);
    signals.insert("recency".into(), c.recency);
    signals.insert("recency_boost".into(), recency_boost);
    signals.insert("trigger_conf".into(), c.trigger.as_ref().map_or(0.0, |t| t.confidence));
    signals.insert("source_semantic".into(), if source == Source::Trigger { 0.0 } else { 1.0 });
    signals.insert("source_trigger".into(), if source == Source::Semantic { 0.0 } else { 1.0 });
    if let Some(h) = &c.hit {
        signals.insert("lexical".into(), h.lexical);
        signals.insert("bm25".into(), h.bm25);
        if let (Some(cos), Some(semantic)) = (h.cosine, h.semantic) {
            signals.insert("similarity".into(), cos);
            signals.insert("semantic".into(), semantic);
        }
    }
    if c.seed.is_some() {
        signals.insert("seed_weight".into(), seed_weight);
    }
    if let Some(t) = &c.trigger {
        signals.insert("priority".into(), 3.0 - t.priority.index() as f64);
        signals.insert("priority_bonus".into(), gates.priority_bonus[t.priority.index()]);
    }
    let (why, short_why) = explain::why(&c, &Terms { source, relevance, recency_boost, score }, salience);
    Scored { source, relevance, score, signals, why, short_why, candidate: c }
}
