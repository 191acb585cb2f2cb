//! One memory found for one query: the one type every kind of retrieval answers with, from the
//! keyword index to `search` and the advisor. Each kind of evidence stays visible beside the
//! relevance they fuse into.

use super::situations::Learned;

/// One memory's evidence for one query: what fusion reads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evidence {
    /// Keyword relevance in [0, 1] (0 when no query word matched).
    pub lexical: f64,
    /// Cosine similarity of query and memory embeddings; `None` without the semantic engine.
    pub cosine: Option<f64>,
}

/// A memory found for a query, with its evidence and their fusion.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub id: String,
    /// The BM25 score (0 when no query word matched).
    pub bm25: f64,
    /// Keyword relevance in [0, 1]: how much of the query the memory covers.
    pub lexical: f64,
    /// The query's words the memory shares, as the query wrote them.
    pub matched: Vec<String>,
    /// Distinct terms in the query.
    pub query_terms: usize,
    /// Cosine similarity of the query's and the memory's embeddings, when both exist.
    pub cosine: Option<f64>,
    /// The cosine calibrated onto [0, 1] (see [`super::hybrid::Fusion`]), with it.
    pub semantic: Option<f64>,
    /// The fused relevance in [0, 1]; the keyword relevance alone without embeddings.
    pub relevance: f64,
    /// The memory's closest example moment to the query (cosine, text), when it has examples.
    pub example: Option<(f64, String)>,
    /// Its closest near miss (a moment it does not apply to), when it has any.
    pub counter: Option<(f64, String)>,
    /// What the situations learned in this project say (folded into `example` and `counter`
    /// when closer than the lesson's own): kept whole for the decision and `why`.
    pub learned: Learned,
}

impl Hit {
    /// A hit by keywords alone.
    pub fn by_words(id: String, bm25: f64, lexical: f64, matched: Vec<String>, query_terms: usize) -> Hit {
        Hit { id, bm25, lexical, matched, query_terms, cosine: None, semantic: None, relevance: lexical, example: None, counter: None, learned: Learned::default() }
    }

    /// The inputs of fusion.
    pub fn evidence(&self) -> Evidence {
        Evidence { lexical: self.lexical, cosine: self.cosine }
    }

    /// Closeness in meaning: the larger of the cosine and the closest example moment's (a value
    /// that is not a number counts as none), and whether the example gave it; `None` without
    /// embeddings.
    pub fn closeness(&self) -> Option<(f64, bool)> {
        let cosine = self.cosine.filter(|c| c.is_finite());
        let example = self.example.as_ref().map(|(e, _)| *e).filter(|e| e.is_finite());
        match (cosine, example) {
            (None, None) => None,
            (None, Some(e)) => Some((e, true)),
            (Some(c), Some(e)) if e > c => Some((e, true)),
            (Some(c), _) => Some((c, false)),
        }
    }

    /// The example moment that lends the memory its closeness (closer than its own text).
    pub fn lending_example(&self) -> Option<&str> {
        self.closeness().filter(|(_, by)| *by).and(self.example.as_ref()).map(|(_, t)| t.as_str())
    }

    /// The matched words quoted, or "no shared words".
    pub fn words(&self) -> String {
        if self.matched.is_empty() {
            "no shared words".to_string()
        } else {
            self.matched.iter().map(|w| format!("'{w}'")).collect::<Vec<_>>().join(", ")
        }
    }

    /// The relevance in words: "relevance 0.62 (semantic 0.58, words 0.71)".
    pub fn explain(&self) -> String {
        match self.semantic {
            None => format!("relevance {:.2} (words {:.2}; no embeddings)", self.relevance, self.lexical),
            Some(s) => format!("relevance {:.2} (semantic {s:.2}, words {:.2})", self.relevance, self.lexical),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explanations_name_each_part() {
        let mut h = Hit::by_words("a".into(), 2.0, 0.5, vec!["push".into(), "main".into()], 3);
        assert_eq!(h.relevance, 0.5);
        assert_eq!(h.explain(), "relevance 0.50 (words 0.50; no embeddings)");
        assert_eq!(h.words(), "'push', 'main'");
        (h.cosine, h.semantic, h.relevance) = (Some(0.4), Some(0.6), 0.65);
        assert_eq!(h.explain(), "relevance 0.65 (semantic 0.60, words 0.50)");
        h.matched.clear();
        assert_eq!(h.words(), "no shared words");
    }

    #[test]
    fn closeness_is_the_closer_of_the_text_and_its_examples() {
        let mut h = Hit::by_words("a".into(), 0.0, 0.0, vec![], 1);
        assert_eq!(h.closeness(), None);
        h.cosine = Some(0.4);
        assert_eq!((h.closeness(), h.lending_example()), (Some((0.4, false)), None));
        h.example = Some((0.3, "far".into()));
        assert_eq!(h.closeness(), Some((0.4, false)), "the text is closer");
        h.example = Some((0.6, "near".into()));
        assert_eq!((h.closeness(), h.lending_example()), (Some((0.6, true)), Some("near")));
        h.cosine = Some(f64::NAN);
        assert_eq!(h.closeness(), Some((0.6, true)), "a cosine that is not a number is none");
        h.example = Some((f64::NAN, "broken".into()));
        assert_eq!(h.closeness(), None);
    }
}
