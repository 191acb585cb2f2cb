//! Hybrid relevance: keyword evidence (BM25, as the share of the query a memory covers) and
//! embedding evidence (cosine similarity) fused into one relevance in [0, 1]. Pure; no I/O.
//!
//! Cosine similarities of this kind of model crowd into a narrow band (unrelated texts near 0.1,
//! close paraphrases near 0.7), so the semantic part is the cosine mapped linearly from
//! [floor, ceiling] onto [0, 1]. The keyword part is the share of the query a memory covers,
//! raised to `words_exponent`: one incidental word of five (0.2) says little about a memory and
//! counts 0.04 at the exponent 2, while a strong match (0.8) keeps most of its weight (0.64).
//! Without it, a question that shares no word with the lesson it means (a paraphrase) lost that
//! lesson to lessons sharing one common word. The parts combine as a noisy-or: either kind of
//! evidence alone can make a memory relevant, and both together make it more so:
//! `relevance = 1 - (1 - words^words_exponent) x (1 - weight_similarity x semantic)`.
//! This is search's calibration (tuned on LoCoMo's tuning conversations and the paraphrase
//! set's tune part); advice weighs the raw cosine in its own learned decision. Each part stays
//! visible on its own in `why`.

pub use super::hit::Evidence;
use super::hit::Hit;
use crate::config::tuneables;

/// How the two kinds of evidence combine.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fusion {
    /// How much the semantic part counts (`retrieval.weight_similarity`, Spark's `semantic.weight_similarity`): 0 ignores
    /// embeddings, 1 lets a perfect paraphrase alone reach relevance 1.
    pub weight_similarity: f64,
    /// Cosine at or below which the semantic part is 0.
    pub similarity_floor: f64,
    /// Cosine at or above which the semantic part is 1.
    pub similarity_ceiling: f64,
    /// The keyword part is the share of the query covered raised to this power (1: as is).
    pub words_exponent: f64,
}

impl Fusion {
    /// Advice's own calibration, for the relevance it reads before its decision (which lesson of
    /// a category a trigger rule surfaces, and the optional gate): the one the advice set's
    /// category floor was tuned with (2026-11-23), kept apart from search's, which the settings
    /// give and LoCoMo and the paraphrase set tune. The decision itself weighs the raw cosine.
    pub const ADVICE: Fusion = Fusion { weight_similarity: 0.7, similarity_floor: 0.15, similarity_ceiling: 0.9, words_exponent: 1.0 };

    /// The fusion the settings ask for.
    pub fn from_settings(r: &tuneables::Retrieval) -> Fusion {
        Fusion { weight_similarity: r.weight_similarity, similarity_floor: r.similarity_floor, similarity_ceiling: r.similarity_ceiling, words_exponent: r.words_exponent }
    }

    /// The semantic part: cosine mapped onto [0, 1].
    pub fn semantic(&self, cosine: f64) -> f64 {
        let span = (self.similarity_ceiling - self.similarity_floor).max(1e-6);
        ((cosine - self.similarity_floor) / span).clamp(0.0, 1.0)
    }

    /// The keyword part: the share of the query covered, raised to `words_exponent`.
    pub fn words(&self, lexical: f64) -> f64 {
        lexical.clamp(0.0, 1.0).powf(self.words_exponent.max(1.0))
    }

    /// Relevance in [0, 1]: the noisy-or of both parts, or the keyword part alone without
    /// embeddings (as covered: alone, its order is all that counts).
    pub fn relevance(&self, e: Evidence) -> f64 {
        let Some(c) = e.cosine else { return e.lexical.clamp(0.0, 1.0) };
        let words = self.words(e.lexical);
        let w = self.weight_similarity.clamp(0.0, 1.0);
        1.0 - (1.0 - words) * (1.0 - w * self.semantic(c))
    }

    /// Fills a hit's semantic part and fused relevance from its evidence: the one place a
    /// relevance is computed.
    pub fn apply(&self, hit: &mut Hit) {
        hit.semantic = hit.cosine.map(|c| self.semantic(c));
        hit.relevance = self.relevance(hit.evidence());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const F: Fusion = Fusion { weight_similarity: 0.5, similarity_floor: 0.1, similarity_ceiling: 0.6, words_exponent: 1.0 };

    #[test]
    fn semantic_part_maps_the_useful_band() {
        assert_eq!(F.semantic(0.05), 0.0);
        assert!((F.semantic(0.35) - 0.5).abs() < 1e-12);
        assert_eq!(F.semantic(0.9), 1.0);
    }

    #[test]
    fn relevance_combines_and_falls_back_to_words() {
        let words_only = Evidence { lexical: 0.8, cosine: None };
        assert!((F.relevance(words_only) - 0.8).abs() < 1e-12);
        // 1 - (1 - 0.8) x (1 - 0.5 x 0.5)
        let both = Evidence { lexical: 0.8, cosine: Some(0.35) };
        assert!((F.relevance(both) - 0.85).abs() < 1e-12);
        // A paraphrase with no shared word still counts; an unrelated text adds nothing.
        let paraphrase = Evidence { lexical: 0.0, cosine: Some(0.6) };
        assert!((F.relevance(paraphrase) - 0.5).abs() < 1e-12);
        let unrelated = Evidence { lexical: 0.4, cosine: Some(0.05) };
        assert!((F.relevance(unrelated) - 0.4).abs() < 1e-12);
        // Without weight, embeddings change nothing.
        let off = Fusion { weight_similarity: 0.0, ..F };
        assert!((off.relevance(both) - 0.8).abs() < 1e-12);
    }

    #[test]
    fn a_weak_keyword_match_weighs_little_beside_meaning() {
        let squared = Fusion { words_exponent: 2.0, ..F };
        // One incidental word against a paraphrase: the paraphrase wins once weak matches are
        // squared, and not before.
        let incidental = Evidence { lexical: 0.3, cosine: Some(0.3) };
        let paraphrase = Evidence { lexical: 0.0, cosine: Some(0.45) };
        assert!(F.relevance(incidental) > F.relevance(paraphrase));
        assert!(squared.relevance(incidental) < squared.relevance(paraphrase));
        assert!((squared.words(0.8) - 0.64).abs() < 1e-12);
        // Without embeddings the keyword part stands alone, as covered.
        assert_eq!(squared.relevance(Evidence { lexical: 0.5, cosine: None }), 0.5);
    }

    #[test]
    fn relevance_is_monotone_in_each_part() {
        for l in [0.0, 0.3, 0.9] {
            let mut last = -1.0;
            for c in [-0.2, 0.0, 0.2, 0.4, 0.6, 0.8] {
                let r = F.relevance(Evidence { lexical: l, cosine: Some(c) });
                assert!(r >= last && (0.0..=1.0).contains(&r));
                last = r;
            }
        }
    }

    #[test]
    fn a_hit_gets_both_parts_and_its_explanation() {
        let mut hit = Hit::by_words("a".into(), 1.0, 0.5, vec![], 2);
        hit.cosine = Some(0.4);
        F.apply(&mut hit);
        assert!((hit.semantic.unwrap() - 0.6).abs() < 1e-12);
        assert_eq!(hit.explain(), "relevance 0.65 (semantic 0.60, words 0.50)");
        hit.cosine = None;
        F.apply(&mut hit);
        assert_eq!((hit.semantic, hit.relevance), (None, 0.5));
        assert!(hit.explain().contains("no embeddings"));
    }
}
