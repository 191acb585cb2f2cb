//! Fusion: a candidate's signals into one score, the probability the learned decision
//! ([`super::decision`]) gives it, each term kept and named so that `why` can show it. Pure.
//!
//! A candidate with embedding evidence is weighed by the model fitted with embeddings; one
//! without (the model not loaded, or a lesson not embedded yet) by the model fitted on keywords
//! alone. Its signals keep the decision's inputs (`in.NAME`), each term's contribution to the
//! logit (`add.NAME`), and the retrieval evidence beside them.

use cairn_proto::Signals;

use super::candidate::{Candidate, Source};
use super::decision::{self, Decision, Evidence, Moment};
use super::explain;
use super::policy::Gates;
use super::salience::Salience;

/// A candidate after fusion.
#[derive(Debug, Clone)]
pub struct Scored {
    pub candidate: Candidate,
    pub source: Source,
    /// Retrieval's relevance, on advice's own calibration (`Fusion::ADVICE`): for the optional
    /// gate and for `why`; the decision reads the raw evidence.
    pub relevance: f64,
    /// The decision's probability that the lesson is worth saying now.
    pub score: f64,
    /// The probability it has to reach (the bar of the model that weighed it).
    pub bar: f64,
    pub decision: Decision,
    pub signals: Signals,
    /// The reason in words, every term named.
    pub why: String,
    /// The first clause of `why`, short enough for the hook's context text.
    pub short_why: String,
}

/// Weighs a candidate at a moment of salience `salience` (`prompt`: typed by the user).
pub fn fuse(c: Candidate, salience: &Salience, prompt: bool, gates: &Gates) -> Scored {
    let source = c.source();
    let relevance = c.relevance();
    let moment = Moment { salience: salience.score, prompt };
    let inputs = decision::inputs(&c, c.standing, moment);
    let with_meaning = decision::meaning(&c).is_some();
    let (fitted, bar) = if with_meaning { (&gates.model.with_embeddings, gates.min_fusion_score) } else { (&gates.model.words_only, gates.words_only_bar()) };
    let seed_weight = c.seed.as_ref().map_or(1.0, |(w, _)| *w);
    let learned = c.hit.as_ref().and_then(|h| h.learned.applies.as_ref()).map_or(0.0, |m| ((m.closeness - gates.situation_floor) / (1.0 - gates.situation_floor).max(1e-9)).clamp(0.0, 1.0));
    let evidence = Evidence { effectiveness: c.effectiveness, recency: c.recency, activation: c.activation(), learned };
    let decision = fitted.decide(&inputs, gates.fixed, &evidence, &[("seed_weight", seed_weight), ("node_weight", c.node_weight)]);
    let decision = match &gates.mix {
        Some(mix) => decision.reweighed(mix),
        None => decision,
    };

    let mut signals = Signals::new();
    signals.insert("probability".into(), decision.probability);
    signals.insert("logit".into(), decision.logit);
    signals.insert("relevance".into(), relevance);
    signals.insert("salience".into(), salience.score);
    signals.insert("effectiveness".into(), c.effectiveness);
    signals.insert("recency".into(), c.recency);
    signals.insert("trigger_conf".into(), c.trigger.as_ref().map_or(0.0, |t| t.confidence));
    signals.insert("source_semantic".into(), if source == Source::Trigger { 0.0 } else { 1.0 });
    signals.insert("source_trigger".into(), if source == Source::Semantic { 0.0 } else { 1.0 });
    for (name, value) in &inputs.values {
        signals.insert(format!("in.{name}"), *value);
    }
    for t in &decision.terms {
        signals.insert(format!("add.{}", t.name), t.contribution);
        // Every term's input beside its contribution, the fixed ones' (recency, a seed's weight)
        // as the fitted ones'.
        signals.entry(format!("in.{}", t.name)).or_insert(t.value);
    }
    if let Some(h) = &c.hit {
        signals.insert("lexical".into(), h.lexical);
        signals.insert("bm25".into(), h.bm25);
        if let Some(cos) = h.cosine {
            signals.insert("similarity".into(), cos);
        }
        if let Some(semantic) = h.semantic {
            signals.insert("semantic".into(), semantic);
        }
        if let Some((e, _)) = &h.example {
            signals.insert("example".into(), *e);
        }
        if let Some((n, _)) = &h.counter {
            signals.insert("near_miss".into(), *n);
        }
        if let Some(l) = &h.learned.applies {
            signals.insert("learned".into(), l.closeness);
            signals.insert("learned_link".into(), l.strength);
        }
        if let Some(l) = &h.learned.not {
            signals.insert("learned_not".into(), l.closeness);
            signals.insert("learned_not_link".into(), l.strength);
        }
    }
    if let Some((w, _)) = &c.seed {
        signals.insert("seed_weight".into(), *w);
    }
    signals.insert("node_weight".into(), c.node_weight);
    if let Some(mix) = &gates.mix {
        for (name, w) in crate::learning::weights::SIGNALS.iter().zip(mix) {
            signals.insert(format!("mix.{name}"), *w);
        }
    }
    if let Some(a) = &c.activation {
        signals.insert("activation".into(), a.value);
    }
    if let Some(t) = &c.trigger {
        signals.insert("priority".into(), 3.0 - t.priority.index() as f64);
    }
    let (why, short_why) = explain::why(&c, &decision, bar, salience, c.by_feedback(gates.same_moment));
    Scored { source, relevance, score: decision.probability, bar, decision, signals, why, short_why, candidate: c }
}
