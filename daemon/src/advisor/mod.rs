//! The advisor: from a hook event or free text to the few memories worth saying, with the reason
//! each was chosen. Steps: intent -> hybrid retrieval (keywords and embeddings) -> gate -> fuse
//! -> decide (here) -> cooldown, limit and budget (by the caller, which owns the session state).
//!
//! [`Retrieval`] is the one place where candidates are found, for advice and for `search` alike.

pub mod cooldown;
pub mod format;
pub mod intent;
pub mod rank;

use std::collections::HashMap;

use cairn_proto::Memory;

use crate::embed::pool::cosine;
use crate::hybrid::{Evidence, Fusion};
use crate::lexical::LexicalIndex;
use crate::vectors::VectorIndex;
use rank::{Candidate, Gates, Ranked};

/// How many candidates each kind of retrieval hands to the later stages.
pub const CANDIDATES: usize = 50;

/// Looks memories up by id (the store, or a map in tests).
pub trait MemoryLookup {
    fn memory(&self, id: &str) -> Option<Memory>;
}

/// The query's embedding and the graphs to search with it.
pub struct SemanticQuery<'a> {
    pub vector: &'a [f32],
    pub index: &'a VectorIndex,
}

/// Where candidates come from: keywords always, embeddings when the model is loaded.
pub struct Retrieval<'a> {
    pub lexical: &'a LexicalIndex,
    pub semantic: Option<SemanticQuery<'a>>,
    pub fusion: Fusion,
}

/// One memory found for a query, with both kinds of evidence and their fusion.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    pub id: String,
    pub bm25: f64,
    /// Keyword relevance in [0, 1].
    pub lexical: f64,
    /// Query terms the memory matched (stemmed).
    pub matched: Vec<String>,
    pub query_terms: usize,
    /// Cosine similarity, when both the query and the memory have embeddings.
    pub cosine: Option<f64>,
    /// The fused relevance in [0, 1].
    pub relevance: f64,
}

impl Scored {
    pub fn evidence(&self) -> Evidence {
        Evidence { lexical: self.lexical, cosine: self.cosine }
    }
}

impl Retrieval<'_> {
    /// Whether embeddings take part.
    pub fn is_hybrid(&self) -> bool {
        self.semantic.is_some()
    }

    /// The memories either kind of retrieval finds for `query` among `projects`, each with both
    /// kinds of evidence, best fused relevance first, at most `k`.
    pub fn hybrid(&self, query: &str, projects: &[&str], k: usize) -> Vec<Scored> {
        let mut out = self.gather(query, projects, k.max(CANDIDATES));
        out.sort_by(|a, b| b.relevance.total_cmp(&a.relevance).then_with(|| a.id.cmp(&b.id)));
        out.truncate(k);
        out
    }

    /// The union of the best `depth` by keywords and the best `depth` by embeddings, each with
    /// both kinds of evidence and their fused relevance, in no particular order.
    pub fn gather(&self, query: &str, projects: &[&str], depth: usize) -> Vec<Scored> {
        let mut found: HashMap<String, Scored> = HashMap::new();
        for hit in self.lexical.search(query, Some(projects), depth) {
            let cosine = self.semantic.as_ref().and_then(|s| s.index.vector(&hit.id).map(|v| cosine(s.vector, &v) as f64));
            found.insert(
                hit.id.clone(),
                Scored { id: hit.id, bm25: hit.bm25, lexical: hit.relevance, matched: hit.matched, query_terms: hit.query_terms, cosine, relevance: 0.0 },
            );
        }
        if let Some(s) = &self.semantic {
            let similar: Vec<(String, f32)> = s.index.search(s.vector, projects, depth).into_iter().filter(|(id, _)| !found.contains_key(id)).collect();
            let ids: Vec<&str> = similar.iter().map(|(id, _)| id.as_str()).collect();
            for ((id, sim), lexical) in similar.iter().zip(self.lexical.score(query, &ids)) {
                let (bm25, relevance, matched, query_terms) = lexical.map_or((0.0, 0.0, Vec::new(), 0), |h| (h.bm25, h.relevance, h.matched, h.query_terms));
                found.insert(id.clone(), Scored { id: id.clone(), bm25, lexical: relevance, matched, query_terms, cosine: Some(*sim as f64), relevance: 0.0 });
            }
        }
        found
            .into_values()
            .map(|mut s| {
                s.relevance = self.fusion.relevance(s.evidence());
                s
            })
            .collect()
    }

    /// Candidates for `intent` among `projects` that can pass `gates`, with every signal filled
    /// in. Hits that fail the relevance gate are dropped before their memory is read.
    pub fn candidates(&self, intent: &str, projects: &[&str], lookup: &impl MemoryLookup, gates: &Gates) -> Vec<Candidate> {
        let surface: HashMap<String, String> = crate::text::terms_with_words(intent).into_iter().collect();
        self.hybrid(intent, projects, 2 * CANDIDATES)
            .into_iter()
            .filter(|s| rank::passes_relevance_gate(s.relevance, s.matched.len(), s.query_terms, s.cosine.is_some(), gates))
            .filter_map(|s| {
                let memory = lookup.memory(&s.id)?;
                let matched_words = s.matched.iter().map(|t| surface.get(t).cloned().unwrap_or_else(|| t.clone())).collect();
                Some(Candidate {
                    id: memory.id,
                    text: memory.text,
                    category: memory.category,
                    project: memory.project,
                    relevance: s.relevance,
                    lexical: s.lexical,
                    cosine: s.cosine,
                    semantic: s.cosine.map(|c| self.fusion.semantic(c)),
                    bm25: s.bm25,
                    matched_words,
                    query_terms: s.query_terms,
                    effectiveness: memory.worth.effectiveness,
                })
            })
            .collect()
    }
}

/// Retrieves, gates, fuses and decides; best first.
pub fn advise(retrieval: &Retrieval<'_>, lookup: &impl MemoryLookup, intent: &str, projects: &[&str], gates: &Gates) -> Vec<Ranked> {
    rank::rank(retrieval.candidates(intent, projects, lookup, gates), gates)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexical::{FieldWeights, LexicalDoc};
    use std::collections::HashMap;

    struct Map(HashMap<String, Memory>);
    impl MemoryLookup for Map {
        fn memory(&self, id: &str) -> Option<Memory> {
            self.0.get(id).cloned()
        }
    }

    fn memory(id: &str, project: &str, text: &str, category: &str) -> Memory {
        serde_json::from_value(serde_json::json!({
            "id": id, "project": project, "text": text, "category": category, "source": "user",
            "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"
        }))
        .unwrap()
    }

    #[test]
    fn advises_in_scope_and_stays_silent_otherwise() {
        let memories = vec![
            memory("a", "/p", "Never force-push to main; open a pull request instead", "git"),
            memory("b", "global", "Run the database migration on a copy first", "deployment"),
            memory("c", "/other", "Force push is fine on personal branches of main", "git"),
        ];
        let mut index = LexicalIndex::new(FieldWeights::default());
        for m in &memories {
            index.upsert(&LexicalDoc { id: &m.id, project: &m.project, text: &m.text, context: &m.context, tags: &m.tags, category: &m.category });
        }
        let lookup = Map(memories.into_iter().map(|m| (m.id.clone(), m)).collect());
        let gates = Gates { min_similarity: 0.4, min_fusion_score: 0.4, min_matched_terms: 2, weight_outcome: 0.3 };
        let fusion = Fusion { weight_similarity: 0.5, similarity_floor: 0.1, similarity_ceiling: 0.6 };
        let retrieval = Retrieval { lexical: &index, semantic: None, fusion };

        let out = advise(&retrieval, &lookup, "git push --force origin main", &["/p", "global"], &gates);
        assert_eq!(out.iter().map(|r| r.candidate.id.as_str()).collect::<Vec<_>>(), vec!["a"]);
        assert!(out[0].why.contains("'push'"), "{}", out[0].why);

        assert!(advise(&retrieval, &lookup, "Print working directory pwd", &["/p", "global"], &gates).is_empty());
    }
}
