//! Gate, fuse and decide: turns retrieved candidates into scored advice, each signal kept
//! separate and named so that `why` can show it. Pure; no I/O.
//!
//! The fusion follows Spark's revised formula, reduced to the signals that exist so far:
//! `score = relevance x (1 + outcome boost)`, where relevance is the hybrid relevance (keywords
//! and embeddings, see `hybrid`) and the outcome boost is `weight_outcome x (effectiveness - 0.5)
//! x 2`, so that an untested memory (0.5) is neutral. Relevance is gated by `min_similarity`
//! before fusion; the fused score by `min_fusion_score`.

use std::collections::BTreeMap;

/// A memory retrieved for a query, with the signals known about it.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub id: String,
    pub text: String,
    pub category: String,
    pub project: String,
    /// Hybrid relevance in [0, 1] (see `hybrid`).
    pub relevance: f64,
    /// Its keyword part (see `lexical`).
    pub lexical: f64,
    /// Cosine similarity of the embeddings, and its semantic part; `None` without embeddings.
    pub cosine: Option<f64>,
    pub semantic: Option<f64>,
    pub bm25: f64,
    /// Query words the memory matched, as the user wrote them.
    pub matched_words: Vec<String>,
    pub query_terms: usize,
    /// Beta-prior effectiveness in [0, 1].
    pub effectiveness: f64,
}

/// Thresholds and weights from the tuneables.
#[derive(Debug, Clone, Copy)]
pub struct Gates {
    pub min_similarity: f64,
    pub min_fusion_score: f64,
    /// A memory must match at least this many distinct query terms (fewer if the query has fewer).
    pub min_matched_terms: usize,
    pub weight_outcome: f64,
}

#[derive(Debug, Clone)]
pub struct Ranked {
    pub candidate: Candidate,
    pub score: f64,
    pub signals: cairn_proto::Signals,
    pub why: String,
}

fn outcome_boost(effectiveness: f64, weight: f64) -> f64 {
    weight * (effectiveness.clamp(0.0, 1.0) - 0.5) * 2.0
}

fn explain(c: &Candidate, score: f64) -> String {
    let words = if c.matched_words.is_empty() {
        "no shared words".to_string()
    } else {
        format!("{} of {} words: {}", c.matched_words.len(), c.query_terms, c.matched_words.iter().map(|w| format!("'{w}'")).collect::<Vec<_>>().join(", "))
    };
    let mut why = match c.semantic {
        Some(semantic) => format!("relevance {:.2} (semantic {semantic:.2}, words {:.2}; {words})", c.relevance, c.lexical),
        None => format!("relevance {:.2} (words {:.2}; {words})", c.relevance, c.lexical),
    };
    if (c.effectiveness - 0.5).abs() > 1e-9 {
        why.push_str(&format!(", effectiveness {:.2}", c.effectiveness));
    }
    why.push_str(&format!(", score {score:.2}; from {}", c.project));
    why
}

/// The gate on retrieval relevance: enough relevance, and, where there are no embeddings to
/// judge meaning by, enough of the query's terms matched (a one-word query may match one word).
pub fn passes_relevance_gate(relevance: f64, matched: usize, query_terms: usize, embedded: bool, gates: &Gates) -> bool {
    relevance >= gates.min_similarity && (embedded || matched >= gates.min_matched_terms.min(query_terms))
}

/// Scores candidates, drops what fails a gate, and returns the rest best first.
pub fn rank(candidates: Vec<Candidate>, gates: &Gates) -> Vec<Ranked> {
    let mut ranked: Vec<Ranked> = candidates
        .into_iter()
        .filter(|c| passes_relevance_gate(c.relevance, c.matched_words.len(), c.query_terms, c.cosine.is_some(), gates))
        .map(|c| {
            let boost = outcome_boost(c.effectiveness, gates.weight_outcome);
            let score = c.relevance * (1.0 + boost);
            let mut signals = BTreeMap::from([
                ("bm25".to_string(), c.bm25),
                ("lexical".to_string(), c.lexical),
                ("relevance".to_string(), c.relevance),
                ("effectiveness".to_string(), c.effectiveness),
                ("outcome_boost".to_string(), boost),
            ]);
            if let (Some(cos), Some(sem)) = (c.cosine, c.semantic) {
                signals.insert("similarity".to_string(), cos);
                signals.insert("semantic".to_string(), sem);
            }
            let why = explain(&c, score);
            Ranked { candidate: c, score, signals, why }
        })
        .filter(|r| r.score >= gates.min_fusion_score)
        .collect();
    ranked.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.candidate.id.cmp(&b.candidate.id)));
    ranked
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(id: &str, relevance: f64, matched: usize, effectiveness: f64) -> Candidate {
        Candidate {
            id: id.into(),
            text: format!("memory {id}"),
            category: "general".into(),
            project: "p".into(),
            relevance,
            lexical: relevance,
            cosine: None,
            semantic: None,
            bm25: relevance * 5.0,
            matched_words: (0..matched).map(|i| format!("w{i}")).collect(),
            query_terms: 4,
            effectiveness,
        }
    }

    const GATES: Gates = Gates { min_similarity: 0.5, min_fusion_score: 0.5, min_matched_terms: 2, weight_outcome: 0.3 };

    #[test]
    fn gate_drops_weak_relevance() {
        let out = rank(vec![cand("a", 0.9, 3, 0.5), cand("b", 0.3, 3, 0.5)], &GATES);
        assert_eq!(out.iter().map(|r| r.candidate.id.as_str()).collect::<Vec<_>>(), vec!["a"]);
    }

    #[test]
    fn single_word_matches_need_a_single_word_query() {
        assert!(rank(vec![cand("a", 0.9, 1, 0.5)], &GATES).is_empty());
        let mut one = cand("b", 0.9, 1, 0.5);
        one.query_terms = 1;
        assert_eq!(rank(vec![one], &GATES).len(), 1);
    }

    #[test]
    fn outcomes_reorder_equal_relevance() {
        let out = rank(vec![cand("weak", 0.8, 3, 0.2), cand("strong", 0.8, 3, 0.9)], &GATES);
        assert_eq!(out[0].candidate.id, "strong");
        assert!(out[0].score > 0.8 && out[1].score < 0.8);
    }

    #[test]
    fn untested_memory_scores_its_relevance() {
        let out = rank(vec![cand("a", 0.7, 3, 0.5)], &GATES);
        assert!((out[0].score - 0.7).abs() < 1e-12);
        assert_eq!(out[0].signals["outcome_boost"], 0.0);
    }

    #[test]
    fn decision_threshold_applies_after_fusion() {
        // Relevance passes the gate, but poor outcomes pull the fused score under the decision line.
        assert!(rank(vec![cand("a", 0.55, 3, 0.0)], &GATES).is_empty());
    }

    #[test]
    fn why_names_every_signal() {
        let out = rank(vec![cand("a", 0.9, 2, 0.7)], &GATES);
        let why = &out[0].why;
        assert!(why.contains("'w0', 'w1'") && why.contains("relevance 0.90") && why.contains("effectiveness 0.70"), "{why}");
        let mut semantic = cand("b", 0.8, 0, 0.5);
        (semantic.cosine, semantic.semantic, semantic.lexical) = (Some(0.55), Some(0.9), 0.0);
        let why = &rank(vec![semantic], &GATES)[0].why;
        assert!(why.starts_with("relevance 0.80 (semantic 0.90, words 0.00; no shared words)"), "{why}");
    }

    #[test]
    fn embeddings_lift_the_matched_words_rule() {
        // A paraphrase shares no word with its memory; with embeddings, relevance alone decides.
        let mut paraphrase = cand("p", 0.7, 0, 0.5);
        paraphrase.cosine = Some(0.5);
        paraphrase.semantic = Some(0.8);
        assert_eq!(rank(vec![paraphrase], &GATES).len(), 1);
        assert!(rank(vec![cand("k", 0.7, 0, 0.5)], &GATES).is_empty(), "without embeddings, words must match");
    }
}
