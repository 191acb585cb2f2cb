//! The advisor: from a hook event or free text to the few memories worth saying, with the reason
//! each was chosen. Steps: intent -> retrieve -> gate -> fuse -> decide (here) -> cooldown,
//! limit and budget (by the caller, which owns the session state).
//!
//! Retrieval is lexical today; the semantic engine joins through [`Retrieval`] and the fusion in
//! `rank` takes its similarity as one more named signal.

pub mod cooldown;
pub mod format;
pub mod intent;
pub mod rank;

use cairn_proto::Memory;

use crate::lexical::LexicalIndex;
use rank::{Candidate, Gates, Ranked};

/// How many candidates retrieval hands to the later stages.
pub const CANDIDATES: usize = 50;

/// Looks memories up by id (the store, or a map in tests).
pub trait MemoryLookup {
    fn memory(&self, id: &str) -> Option<Memory>;
}

/// Where candidates come from: the seam the semantic engine plugs into.
pub struct Retrieval<'a> {
    pub lexical: &'a LexicalIndex,
}

impl Retrieval<'_> {
    /// Candidates for `intent` among `projects` that can pass `gates`, with every signal filled
    /// in. Hits that fail the relevance gate are dropped before their memory is read.
    pub fn candidates(&self, intent: &str, projects: &[&str], lookup: &impl MemoryLookup, gates: &Gates) -> Vec<Candidate> {
        let surface: std::collections::HashMap<String, String> =
            crate::text::terms_with_words(intent).into_iter().collect();
        self.lexical
            .search(intent, Some(projects), CANDIDATES)
            .into_iter()
            .filter(|hit| rank::passes_relevance_gate(hit.relevance, hit.matched.len(), hit.query_terms, gates))
            .filter_map(|hit| {
                let memory = lookup.memory(&hit.id)?;
                let matched_words = hit.matched.iter().map(|t| surface.get(t).cloned().unwrap_or_else(|| t.clone())).collect();
                Some(Candidate {
                    id: memory.id,
                    text: memory.text,
                    category: memory.category,
                    project: memory.project,
                    relevance: hit.relevance,
                    bm25: hit.bm25,
                    matched_words,
                    query_terms: hit.query_terms,
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
        let retrieval = Retrieval { lexical: &index };

        let out = advise(&retrieval, &lookup, "git push --force origin main", &["/p", "global"], &gates);
        assert_eq!(out.iter().map(|r| r.candidate.id.as_str()).collect::<Vec<_>>(), vec!["a"]);
        assert!(out[0].why.contains("'push'"), "{}", out[0].why);

        assert!(advise(&retrieval, &lookup, "Print working directory pwd", &["/p", "global"], &gates).is_empty());
    }
}
