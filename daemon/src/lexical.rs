//! BM25 keyword retrieval over memories, scoped by project.
//!
//! An in-memory inverted index kept in step with the store. Fields are weighted (a tag or the
//! category counts more than a word of context) and folded into one term frequency, BM25F-style.
//! Besides the raw BM25 score each hit carries a relevance in [0, 1]: the BM25 score divided by
//! the sum of the query terms' IDFs, which is what a document matching every query term once at
//! average length would score. It reads as "how much of the query this memory covers", so one
//! threshold means the same thing for short and long queries. No I/O here.

use std::collections::{HashMap, HashSet};

use crate::text;

const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Weight of each field of a memory in the folded term frequency.
#[derive(Debug, Clone, Copy)]
pub struct FieldWeights {
    pub text: f64,
    pub context: f64,
    pub tags: f64,
    pub category: f64,
}

impl Default for FieldWeights {
    fn default() -> Self {
        FieldWeights { text: 1.0, context: 0.5, tags: 1.5, category: 1.0 }
    }
}

/// The indexed view of one memory.
#[derive(Debug, Clone)]
pub struct LexicalDoc<'a> {
    pub id: &'a str,
    pub project: &'a str,
    pub text: &'a str,
    pub context: &'a str,
    pub tags: &'a [String],
    pub category: &'a str,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LexicalHit {
    pub id: String,
    pub bm25: f64,
    /// BM25 over the query's IDF mass, clamped to [0, 1].
    pub relevance: f64,
    /// Distinct query terms found in the memory.
    pub matched: Vec<String>,
    /// Distinct terms in the query.
    pub query_terms: usize,
}

struct DocEntry {
    id: String,
    project: String,
    length: f64,
    terms: Vec<String>,
}

/// Inverted index: term -> (document slot -> folded term frequency).
#[derive(Default)]
pub struct LexicalIndex {
    weights: FieldWeights,
    docs: Vec<Option<DocEntry>>,
    free: Vec<usize>,
    slots: HashMap<String, usize>,
    postings: HashMap<String, HashMap<usize, f64>>,
    total_length: f64,
}

impl LexicalIndex {
    pub fn new(weights: FieldWeights) -> Self {
        LexicalIndex { weights, ..Default::default() }
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Adds a memory or replaces its previous version.
    pub fn upsert(&mut self, doc: &LexicalDoc<'_>) {
        self.remove(doc.id);
        let w = self.weights;
        let mut tf: HashMap<String, f64> = HashMap::new();
        let mut length = 0.0;
        let mut add = |text: &str, weight: f64| {
            for term in text::terms(text) {
                *tf.entry(term).or_default() += weight;
                length += weight;
            }
        };
        add(doc.text, w.text);
        add(doc.context, w.context);
        for tag in doc.tags {
            add(tag, w.tags);
        }
        add(doc.category, w.category);

        let slot = self.free.pop().unwrap_or_else(|| {
            self.docs.push(None);
            self.docs.len() - 1
        });
        for (term, freq) in &tf {
            self.postings.entry(term.clone()).or_default().insert(slot, *freq);
        }
        self.total_length += length;
        self.docs[slot] = Some(DocEntry {
            id: doc.id.to_string(),
            project: doc.project.to_string(),
            length,
            terms: tf.into_keys().collect(),
        });
        self.slots.insert(doc.id.to_string(), slot);
    }

    pub fn remove(&mut self, id: &str) {
        let Some(slot) = self.slots.remove(id) else { return };
        if let Some(entry) = self.docs[slot].take() {
            self.total_length -= entry.length;
            for term in entry.terms {
                if let Some(list) = self.postings.get_mut(&term) {
                    list.remove(&slot);
                    if list.is_empty() {
                        self.postings.remove(&term);
                    }
                }
            }
        }
        self.free.push(slot);
    }

    fn idf(&self, doc_freq: usize) -> f64 {
        let n = self.len() as f64;
        let df = doc_freq as f64;
        ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
    }

    /// The best `k` memories for `query` among those whose project is in `projects`
    /// (every project when `projects` is `None`), best first.
    pub fn search(&self, query: &str, projects: Option<&[&str]>, k: usize) -> Vec<LexicalHit> {
        let mut query_terms: Vec<String> = text::terms(query);
        let mut seen = HashSet::new();
        query_terms.retain(|t| seen.insert(t.clone()));
        if query_terms.is_empty() || self.is_empty() || k == 0 {
            return Vec::new();
        }
        let avg_len = (self.total_length / self.len() as f64).max(1e-9);
        let idf_mass: f64 = query_terms
            .iter()
            .map(|t| self.idf(self.postings.get(t).map_or(0, HashMap::len)))
            .sum();

        let mut scores: HashMap<usize, (f64, Vec<String>)> = HashMap::new();
        for term in &query_terms {
            let Some(list) = self.postings.get(term) else { continue };
            let idf = self.idf(list.len());
            for (&slot, &tf) in list {
                let Some(entry) = &self.docs[slot] else { continue };
                if let Some(allowed) = projects
                    && !allowed.contains(&entry.project.as_str())
                {
                    continue;
                }
                let norm = K1 * (1.0 - B + B * entry.length / avg_len);
                let part = idf * tf * (K1 + 1.0) / (tf + norm);
                let acc = scores.entry(slot).or_insert_with(|| (0.0, Vec::new()));
                acc.0 += part;
                acc.1.push(term.clone());
            }
        }
        let mut hits: Vec<LexicalHit> = scores
            .into_iter()
            .filter_map(|(slot, (bm25, matched))| {
                let entry = self.docs[slot].as_ref()?;
                Some(LexicalHit {
                    id: entry.id.clone(),
                    bm25,
                    relevance: (bm25 / idf_mass).clamp(0.0, 1.0),
                    matched,
                    query_terms: query_terms.len(),
                })
            })
            .collect();
        hits.sort_by(|a, b| b.bm25.total_cmp(&a.bm25).then_with(|| a.id.cmp(&b.id)));
        hits.truncate(k);
        hits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc<'a>(id: &'a str, project: &'a str, text: &'a str, tags: &'a [String]) -> LexicalDoc<'a> {
        LexicalDoc { id, project, text, context: "", tags, category: "general" }
    }

    fn index(items: &[(&str, &str, &str)]) -> LexicalIndex {
        let mut idx = LexicalIndex::new(FieldWeights::default());
        for (id, project, text) in items {
            idx.upsert(&doc(id, project, text, &[]));
        }
        idx
    }

    #[test]
    fn ranks_the_matching_memory_first() {
        let idx = index(&[
            ("a", "p", "Never force-push to main; open a pull request instead"),
            ("b", "p", "Run cargo test before committing"),
            ("c", "p", "Database migrations need a backup first"),
        ]);
        let hits = idx.search("git push --force origin main", None, 10);
        assert_eq!(hits[0].id, "a");
        assert!(hits.iter().all(|h| h.id != "b" && h.id != "c"));
        assert!(hits[0].relevance > 0.3 && hits[0].relevance <= 1.0);
    }

    #[test]
    fn project_filter_scopes_results() {
        let idx = index(&[("a", "p1", "deploy with the blue green script"), ("b", "p2", "deploy only on fridays")]);
        let hits = idx.search("deploy", Some(&["p1", "global"]), 10);
        assert_eq!(hits.iter().map(|h| h.id.as_str()).collect::<Vec<_>>(), vec!["a"]);
        assert_eq!(idx.search("deploy", None, 10).len(), 2);
    }

    #[test]
    fn upsert_replaces_and_remove_forgets() {
        let mut idx = index(&[("a", "p", "alpha beta")]);
        idx.upsert(&doc("a", "p", "gamma delta", &[]));
        assert!(idx.search("alpha", None, 5).is_empty());
        assert_eq!(idx.search("gamma", None, 5).len(), 1);
        idx.remove("a");
        assert!(idx.is_empty());
        assert!(idx.search("gamma", None, 5).is_empty());
        idx.upsert(&doc("b", "p", "gamma", &[]));
        assert_eq!(idx.search("gamma", None, 5)[0].id, "b");
    }

    #[test]
    fn tags_count() {
        let tags = vec!["kubernetes".to_string()];
        let mut idx = LexicalIndex::new(FieldWeights::default());
        idx.upsert(&doc("t", "p", "check the cluster", &tags));
        idx.upsert(&doc("u", "p", "unrelated note", &[]));
        assert_eq!(idx.search("kubernetes", None, 5)[0].id, "t");
    }

    #[test]
    fn relevance_reflects_query_coverage() {
        let idx = index(&[
            ("a", "p", "rotate the api token monthly"),
            ("b", "p", "format code with rustfmt"),
            ("c", "p", "write small commits"),
        ]);
        let full = idx.search("rotate api token", None, 1)[0].relevance;
        let partial = idx.search("rotate database password carefully", None, 1)[0].relevance;
        assert!(full > 0.8, "full coverage {full}");
        assert!(partial < 0.4, "partial coverage {partial}");
    }

    #[test]
    fn empty_queries_and_indexes_answer_nothing() {
        let idx = index(&[]);
        assert!(idx.search("anything", None, 5).is_empty());
        let idx = index(&[("a", "p", "text")]);
        assert!(idx.search("the of and", None, 5).is_empty());
    }
}
