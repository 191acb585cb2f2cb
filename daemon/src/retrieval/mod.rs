//! Layer 6, retrieval: finding memories for a query. The keyword index (BM25F over text,
//! context, tags and category), the semantic index (HNSW graphs per project), the fusion of their
//! evidence into one relevance, and the index of each project's most recent changes. Every kind
//! of retrieval answers with one [`Hit`] type. Pure but for the graphs' files.

pub mod examples;
pub mod hit;
pub mod hybrid;
pub mod lexical;
pub mod recall;
pub mod recent;
pub mod similarity;
pub mod command;
pub mod situations;
pub mod vectors;

use foldhash::{HashMap, HashSet};

pub use hit::Hit;
use hybrid::Fusion;
use lexical::LexicalIndex;
use recall::{RecallCache, RecallKey};
use similarity::cosine;
use situations::{Moment, Situations};
use vectors::VectorIndex;

/// How many candidates each kind of retrieval hands to the later stages.
pub const CANDIDATES: usize = 50;

/// Marks an example moment's text as a situation learned for the lesson, not an example given
/// with it (`why` words the two apart).
pub const LEARNED_MARK: &str = " (learned)";

/// A query's index terms, for telling which of an example's anchors it has: read once, when a
/// hit first has an example (most lessons have none).
struct QueryTerms<'q> {
    query: &'q str,
    terms: std::cell::OnceCell<HashSet<String>>,
}

impl<'q> QueryTerms<'q> {
    fn new(query: &'q str) -> QueryTerms<'q> {
        QueryTerms { query, terms: std::cell::OnceCell::new() }
    }

    fn get(&self) -> &HashSet<String> {
        self.terms.get_or_init(|| crate::base::text::terms(self.query).into_iter().collect())
    }
}

/// The query's embedding and the graphs to search with it.
pub struct SemanticQuery<'a> {
    pub vector: &'a [f32],
    pub index: &'a VectorIndex,
}

/// The situations learned in the moment's project, and how close one must be to count.
pub struct LearnedQuery<'a> {
    pub situations: &'a Situations,
    pub moment: Moment<'a>,
    pub floor: f64,
}

/// Where candidates come from: keywords always, embeddings when the model is loaded, and for
/// advice the situations learned from feedback.
pub struct Retrieval<'a> {
    pub lexical: &'a LexicalIndex,
    pub semantic: Option<SemanticQuery<'a>>,
    pub fusion: Fusion,
    pub learned: Option<LearnedQuery<'a>>,
    /// The last queries' hits, reused for the same query while neither index has changed.
    pub recall: Option<&'a RecallCache>,
}

impl Retrieval<'_> {
    /// Whether embeddings take part.
    pub fn is_hybrid(&self) -> bool {
        self.semantic.is_some()
    }

    /// The memories either kind of retrieval finds for `query` among `projects`, each with both
    /// kinds of evidence, best fused relevance first, at most `k`.
    pub fn hybrid(&self, query: &str, projects: &[&str], k: usize) -> Vec<Hit> {
        let mut out = self.gather(query, projects, k.max(CANDIDATES));
        out.sort_by(|a, b| b.relevance.total_cmp(&a.relevance).then_with(|| a.id.cmp(&b.id)));
        out.truncate(k);
        out
    }

    /// The union of the best `depth` by keywords, the best `depth` by embeddings, the best
    /// `depth` by their example moments and by the situations learned for them, each with every
    /// kind of evidence and their fused relevance, in no particular order.
    pub fn gather(&self, query: &str, projects: &[&str], depth: usize) -> Vec<Hit> {
        let t0 = std::time::Instant::now();
        let mut found: HashMap<String, Hit> = HashMap::default();
        let key = self.recall.map(|_| RecallKey::new(query, projects, depth, self.lexical.stamp(), self.semantic.as_ref().map(|s| (s.index.stamp(), s.vector))));
        let recalled = self.recall.zip(key.as_ref()).and_then(|(cache, key)| cache.get(key));
        let reused = recalled.is_some();
        match recalled {
            Some(hits) => found.extend(hits.into_iter().map(|h| (h.id.clone(), h))),
            None => {
                self.words_and_meaning(query, projects, depth, &mut found);
                if let Some((cache, key)) = self.recall.zip(key).filter(|(cache, key)| cache.wanted(key)) {
                    cache.put(key, &found.values().cloned().collect::<Vec<_>>());
                }
            }
        }
        let t1 = t0.elapsed();
        if let Some(l) = &self.learned {
            let near: Vec<(String, Option<f32>)> = l.situations.lessons_near(&l.moment, depth, l.floor).into_iter().filter(|(id, _)| !found.contains_key(id)).map(|(id, _)| (id, None)).collect();
            // Only lessons of the moment's projects (one edited into another project since is not).
            let held: Vec<(String, Option<f32>)> = near.into_iter().filter(|(id, _)| self.lexical.holds_in(id, projects)).collect();
            self.add_scored(query, held, &mut found);
        }
        let t2 = t0.elapsed();
        let n = found.len();
        let terms = QueryTerms::new(query);
        let out: Vec<Hit> = found.into_values().map(|hit| self.finish(hit, &terms)).collect();
        tracing::trace!(reused, words_meaning_us = t1.as_micros() as u64, learned_us = (t2 - t1).as_micros() as u64, finish_us = (t0.elapsed() - t2).as_micros() as u64, hits = n, "retrieval gather timing");
        out
    }

    /// The best `depth` by keywords, by embeddings and by example moments, each with both kinds
    /// of evidence: what a query finds in the indexes alone.
    fn words_and_meaning(&self, query: &str, projects: &[&str], depth: usize, found: &mut HashMap<String, Hit>) {
        for mut hit in self.lexical.search(query, Some(projects), depth) {
            hit.cosine = self.cosine_of(&hit.id);
            found.insert(hit.id.clone(), hit);
        }
        if let Some(s) = &self.semantic {
            let mut similar: Vec<(String, Option<f32>)> = s.index.search(s.vector, projects, depth).into_iter().filter(|(id, _)| !found.contains_key(id)).map(|(id, c)| (id, Some(c))).collect();
            for (id, _) in s.index.examples().search(s.vector, projects, depth) {
                if !found.contains_key(&id) && !similar.iter().any(|(s, _)| *s == id) {
                    similar.push((id, None));
                }
            }
            self.add_scored(query, similar, found);
        }
    }

    /// Adds hits for `ids` not found by keywords, with both kinds of evidence.
    fn add_scored(&self, query: &str, ids: Vec<(String, Option<f32>)>, found: &mut HashMap<String, Hit>) {
        let refs: Vec<&str> = ids.iter().map(|(id, _)| id.as_str()).collect();
        for ((id, sim), words) in ids.iter().zip(self.lexical.score(query, &refs)) {
            let mut hit = words.unwrap_or_else(|| Hit::by_words(id.clone(), 0.0, 0.0, Vec::new(), 0));
            hit.cosine = sim.map(|c| c as f64).or_else(|| self.cosine_of(id));
            found.insert(id.clone(), hit);
        }
    }

    /// Fills a hit's example evidence (the lesson's own example moments, and the situations
    /// learned for it in this project, whichever is closer on each side) and fuses its relevance.
    fn finish(&self, mut hit: Hit, terms: &QueryTerms<'_>) -> Hit {
        let lesson_has = |term: &str| self.lexical.holds_term(&hit.id, term);
        if let Some(s) = &self.semantic
            && let Some(e) = s.index.examples().evidence(&hit.id, s.vector, &|example| examples::anchor_share(example, terms.get(), &lesson_has))
        {
            (hit.example, hit.counter) = (e.applies, e.not);
        }
        if let Some(l) = &self.learned {
            let e = l.situations.evidence(&hit.id, &l.moment, l.floor, &lesson_has, &|term| self.lexical.warns_of(&hit.id, term));
            // Only a cosine under the model in use, or the same case by its anchors, stands in for
            // an example moment's (the decision reads those as closeness in meaning); closeness
            // by shared words stays in `learned`, where only a near-identical moment decides.
            let closer = |mine: &Option<(f64, String)>, learned: &Option<situations::LearnedMoment>| match (mine, learned.as_ref().filter(|m| m.by_meaning || m.by_anchors)) {
                (Some((c, _)), Some(m)) if *c >= m.closeness => None,
                (_, Some(m)) => Some((m.closeness, format!("{}{LEARNED_MARK}", m.text))),
                _ => None,
            };
            if let Some(x) = closer(&hit.example, &e.applies) {
                hit.example = Some(x);
            }
            if let Some(x) = closer(&hit.counter, &e.not) {
                hit.counter = Some(x);
            }
            hit.learned = e;
        }
        self.fusion.apply(&mut hit);
        hit
    }

    /// Both kinds of evidence for particular memories (a trigger's picks); `None` for a memory
    /// the keyword index does not hold.
    pub fn score(&self, query: &str, ids: &[&str]) -> Vec<Option<Hit>> {
        let terms = QueryTerms::new(query);
        self.lexical
            .score(query, ids)
            .into_iter()
            .map(|hit| {
                let mut hit = hit?;
                hit.cosine = self.cosine_of(&hit.id);
                Some(self.finish(hit, &terms))
            })
            .collect()
    }

    fn cosine_of(&self, id: &str) -> Option<f64> {
        let s = self.semantic.as_ref()?;
        s.index.vector(id).map(|v| cosine(s.vector, &v) as f64)
    }

    /// The memory's embedding, when the model is loaded and it has one.
    pub fn vector_of(&self, id: &str) -> Option<Vec<f32>> {
        self.semantic.as_ref()?.index.vector(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lexical::{FieldWeights, LexicalDoc};

    fn add(lexical: &mut LexicalIndex, id: &str, text: &str) {
        lexical.upsert(&LexicalDoc { id, project: "p", text, context: "", tags: &[], category: "general" });
    }

    fn sorted(mut hits: Vec<Hit>) -> Vec<Hit> {
        hits.sort_by(|a, b| a.id.cmp(&b.id));
        hits
    }

    #[test]
    fn a_recalled_query_answers_as_a_fresh_one_and_sees_every_change() {
        let cache = RecallCache::new(8);
        let query = [1.0_f32, 0.0];
        let gather = |lexical: &LexicalIndex, vectors: &VectorIndex, recall: Option<&RecallCache>| {
            let r = Retrieval { lexical, semantic: Some(SemanticQuery { vector: &query, index: vectors }), fusion: Fusion::ADVICE, learned: None, recall };
            sorted(r.gather("force push", &["p"], 10))
        };
        let mut lexical = LexicalIndex::new(FieldWeights::default());
        add(&mut lexical, "a", "force push to main rewrites history");
        add(&mut lexical, "b", "run the linter before committing");
        let mut vectors = VectorIndex::new(2, "fp");
        vectors.upsert("b", "p", 1, &[1.0, 0.0]).unwrap();

        let fresh = gather(&lexical, &vectors, None);
        assert_eq!(fresh.iter().map(|h| h.id.as_str()).collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(gather(&lexical, &vectors, Some(&cache)), fresh);
        let key = RecallKey::new("force push", &["p"], 10, lexical.stamp(), Some((vectors.stamp(), &query)));
        assert!(cache.get(&key).is_none(), "a query seen once is not kept");
        assert_eq!(gather(&lexical, &vectors, Some(&cache)), fresh);
        assert!(cache.get(&key).is_some(), "the hits are kept the second time");
        assert_eq!(gather(&lexical, &vectors, Some(&cache)), fresh, "and served as found");

        // A memory added by words, one added by meaning, one removed: each is seen at once.
        add(&mut lexical, "c", "never force push a release branch");
        assert!(gather(&lexical, &vectors, Some(&cache)).iter().any(|h| h.id == "c"));
        vectors.upsert("d", "p", 2, &[0.9, 0.1]).unwrap();
        assert!(gather(&lexical, &vectors, Some(&cache)).iter().any(|h| h.id == "d"));
        lexical.remove("a");
        vectors.remove("b").unwrap();
        let after = gather(&lexical, &vectors, Some(&cache));
        assert_eq!(after, gather(&lexical, &vectors, None));
        assert!(after.iter().all(|h| h.id != "a"));
        assert!(after.iter().find(|h| h.id == "b").is_none_or(|h| h.cosine.is_none()), "b's vector is gone");
    }
}
