//! BM25 keyword retrieval over memories, scoped by project.
//!
//! An in-memory inverted index kept in step with the store; per-document data sits in dense
//! arrays and projects are interned, so scoring a long posting list stays cache-friendly. Fields are weighted (a tag or the
//! category counts more than a word of context) and folded into one term frequency, BM25F-style.
//! Besides the raw BM25 score each hit carries a relevance in [0, 1]: the BM25 score divided by
//! the sum of the query terms' IDFs (a term unknown to the corpus counts half a term seen once), which is what a
//! document matching every query term once at average length would score. It reads as "how much of the query this memory covers", so one
//! threshold means the same thing for short and long queries; a memory sharing a single term with
//! the query gets half of it, since one shared word is weak evidence. No I/O here.

use foldhash::{HashMap, HashSet};

use super::hit::Hit;
use super::recall::Stamp;
use crate::base::text;

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

struct DocEntry {
    id: String,
    /// Term ids with their folded frequency in this memory.
    terms: Vec<(u32, f32)>,
    /// Term ids of its text that a clause which warns holds ("never UPDATE rows"): what the
    /// lesson says not to do, sorted.
    warned: Vec<u32>,
}

/// A query's terms resolved against the index, shared by the ways of scoring.
struct QueryPlan {
    terms: Vec<String>,
    /// Per term: the query's word it came from (the last one, when several stem alike).
    words: Vec<String>,
    /// Per term: its id and idf, when the corpus has it.
    known: Vec<Option<(u32, f64)>>,
    idf_mass: f64,
    avg_len: f64,
}

/// Inverted index with dense per-slot arrays, so scoring a posting list touches little memory.
#[derive(Default)]
pub struct LexicalIndex {
    weights: FieldWeights,
    docs: Vec<Option<DocEntry>>,
    /// Per slot: interned project and category, and folded length (0 for free slots).
    projects: Vec<u32>,
    categories: Vec<u32>,
    lengths: Vec<f64>,
    project_ids: HashMap<String, u32>,
    category_ids: HashMap<String, u32>,
    /// Category names by interned id.
    category_names: Vec<String>,
    /// Members per interned category (in every project), and per interned project.
    category_sizes: Vec<usize>,
    project_sizes: Vec<usize>,
    free: Vec<usize>,
    slots: HashMap<String, usize>,
    /// Terms are interned: term -> term id, and per term id its postings (slot, folded tf).
    term_ids: HashMap<String, u32>,
    postings: Vec<Vec<(u32, f32)>>,
    total_length: f64,
    /// This state of the index (every change takes a new one), for [`super::recall`].
    stamp: Stamp,
}

/// Scoring scratch: (score, matched-term bits) per slot, plus the slots touched.
type Scratch = (Vec<(f64, u64)>, Vec<u32>);

thread_local! {
    /// Per thread: scoring a query reuses its buffers instead of allocating per slot.
    static SCRATCH: std::cell::RefCell<Scratch> = const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
}

impl LexicalIndex {
    pub fn new(weights: FieldWeights) -> Self {
        LexicalIndex { weights, ..Default::default() }
    }

    /// This state of the index: any change gives it a new stamp.
    pub fn stamp(&self) -> Stamp {
        self.stamp
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    fn project_id(&mut self, project: &str) -> u32 {
        let next = self.project_ids.len() as u32;
        *self.project_ids.entry(project.to_string()).or_insert(next)
    }

    /// How many memories `projects` hold together.
    pub fn count_in(&self, projects: &[&str]) -> usize {
        projects.iter().filter_map(|p| self.project_ids.get(*p)).map(|&p| self.project_sizes[p as usize]).sum()
    }

    /// How many memories (in every project) have `category`.
    pub fn category_size(&self, category: &str) -> usize {
        self.category_ids.get(category).map_or(0, |&c| self.category_sizes[c as usize])
    }

    /// Whether the memory `id` is held, in one of `projects`.
    pub fn holds_in(&self, id: &str, projects: &[&str]) -> bool {
        let Some(&slot) = self.slots.get(id) else { return false };
        projects.iter().filter_map(|p| self.project_ids.get(*p)).any(|&p| self.projects[slot] == p)
    }

    /// Whether the memory `id`'s words (text, context, tags, category) hold the index term
    /// `term` (as [`text::terms`] makes them).
    pub fn holds_term(&self, id: &str, term: &str) -> bool {
        let (Some(&slot), Some(&t)) = (self.slots.get(id), self.term_ids.get(term)) else { return false };
        self.docs[slot].as_ref().is_some_and(|d| d.terms.iter().any(|(x, _)| *x == t))
    }

    /// Whether a warning of the memory `id` holds the index term `term` ("never UPDATE rows of
    /// ledger_entries" holds `updat`): more of what it warns about, not its remedy.
    pub fn warns_of(&self, id: &str, term: &str) -> bool {
        let (Some(&slot), Some(&t)) = (self.slots.get(id), self.term_ids.get(term)) else { return false };
        self.docs[slot].as_ref().is_some_and(|d| d.warned.binary_search(&t).is_ok())
    }

    /// The category of the memory `id`.
    pub fn category_of(&self, id: &str) -> Option<&str> {
        let slot = *self.slots.get(id)?;
        self.category_names.get(self.categories[slot] as usize).map(String::as_str)
    }

    /// Ids of the memories of `category` among `projects`.
    pub fn ids_in_category(&self, projects: &[&str], category: &str) -> Vec<String> {
        let Some(&cid) = self.category_ids.get(category) else { return Vec::new() };
        let allowed: Vec<u32> = projects.iter().filter_map(|p| self.project_ids.get(*p).copied()).collect();
        self.docs
            .iter()
            .enumerate()
            .filter_map(|(slot, doc)| doc.as_ref().filter(|_| self.categories[slot] == cid && allowed.contains(&self.projects[slot])).map(|d| d.id.clone()))
            .collect()
    }

    /// Adds a memory or replaces its previous version.
    pub fn upsert(&mut self, doc: &LexicalDoc<'_>) {
        // `remove` takes the new stamp.
        self.remove(doc.id);
        let w = self.weights;
        let mut tf: HashMap<String, f64> = HashMap::default();
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

        let project = self.project_id(doc.project);
        let next_category = self.category_ids.len() as u32;
        let category = *self.category_ids.entry(doc.category.to_string()).or_insert(next_category);
        if category as usize == self.category_sizes.len() {
            self.category_sizes.push(0);
            self.category_names.push(doc.category.to_string());
        }
        self.category_sizes[category as usize] += 1;
        if project as usize >= self.project_sizes.len() {
            self.project_sizes.resize(project as usize + 1, 0);
        }
        self.project_sizes[project as usize] += 1;
        let slot = self.free.pop().unwrap_or_else(|| {
            self.docs.push(None);
            self.projects.push(0);
            self.categories.push(0);
            self.lengths.push(0.0);
            self.docs.len() - 1
        });
        let mut terms = Vec::with_capacity(tf.len());
        for (term, freq) in tf {
            let next = self.term_ids.len() as u32;
            let term_id = *self.term_ids.entry(term).or_insert(next);
            if term_id as usize == self.postings.len() {
                self.postings.push(Vec::new());
            }
            self.postings[term_id as usize].push((slot as u32, freq as f32));
            terms.push((term_id, freq as f32));
        }
        let mut warned: Vec<u32> = text::warned_terms(doc.text).into_iter().filter_map(|t| self.term_ids.get(&t).copied()).collect();
        warned.sort_unstable();
        warned.dedup();
        self.total_length += length;
        self.projects[slot] = project;
        self.categories[slot] = category;
        self.lengths[slot] = length;
        self.docs[slot] = Some(DocEntry { id: doc.id.to_string(), terms, warned });
        self.slots.insert(doc.id.to_string(), slot);
    }

    pub fn remove(&mut self, id: &str) {
        self.stamp = Stamp::fresh();
        let Some(slot) = self.slots.remove(id) else { return };
        if let Some(entry) = self.docs[slot].take() {
            let c = self.categories[slot] as usize;
            self.category_sizes[c] = self.category_sizes[c].saturating_sub(1);
            let p = self.projects[slot] as usize;
            self.project_sizes[p] = self.project_sizes[p].saturating_sub(1);
            self.total_length -= self.lengths[slot];
            // Term ids stay interned (a vocabulary only grows); their lists shrink.
            for (term, _) in entry.terms {
                self.postings[term as usize].retain(|(s, _)| *s as usize != slot);
            }
        }
        self.lengths[slot] = 0.0;
        self.free.push(slot);
    }

    fn idf(&self, doc_freq: usize) -> f64 {
        let n = self.len() as f64;
        let df = doc_freq as f64;
        ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
    }

    /// Resolves a query's distinct terms (at most 64: matches are tracked as bits of a u64).
    fn plan(&self, query: &str) -> Option<QueryPlan> {
        let pairs = text::terms_with_words(query);
        let mut terms: Vec<String> = pairs.iter().map(|(t, _)| t.clone()).collect();
        let surface: HashMap<&str, &str> = pairs.iter().map(|(t, w)| (t.as_str(), w.as_str())).collect();
        let mut seen = HashSet::default();
        terms.retain(|t| seen.insert(t.clone()));
        terms.truncate(64);
        if terms.is_empty() || self.is_empty() {
            return None;
        }
        let known: Vec<Option<(u32, f64)>> = terms
            .iter()
            .map(|t| {
                let id = *self.term_ids.get(t)?;
                let list = &self.postings[id as usize];
                (!list.is_empty()).then(|| (id, self.idf(list.len())))
            })
            .collect();
        // A term the corpus has never seen cannot be matched by any memory; it still says the
        // query is about something else, so it counts as half a term seen once: one stray word
        // does not silence an otherwise complete match, in a small corpus or a large one.
        let idf_mass = known.iter().map(|k| k.map_or(0.5 * self.idf(1), |(_, idf)| idf)).sum();
        let avg_len = (self.total_length / self.len() as f64).max(1e-9);
        let words = terms.iter().map(|t| surface[t.as_str()].to_string()).collect();
        Some(QueryPlan { terms, words, known, idf_mass, avg_len })
    }

    fn term_score(&self, plan: &QueryPlan, idf: f64, tf: f64, slot: usize) -> f64 {
        let norm = K1 * (1.0 - B + B * self.lengths[slot] / plan.avg_len);
        idf * tf * (K1 + 1.0) / (tf + norm)
    }

    fn hit(&self, plan: &QueryPlan, slot: usize, bm25: f64, bits: u64) -> Option<Hit> {
        let entry = self.docs[slot].as_ref()?;
        let matched = plan.words.iter().enumerate().filter(|(i, _)| bits & (1 << i) != 0).map(|(_, w)| w.clone()).collect();
        // One shared word is weak evidence however well it covers a short query ("commit" is in
        // every lesson about commits): relevance counts in full from two matched terms.
        let support = (bits.count_ones().min(2) as f64) / 2.0;
        Some(Hit::by_words(entry.id.clone(), bm25, (bm25 / plan.idf_mass).clamp(0.0, 1.0) * support, matched, plan.terms.len()))
    }

    /// The best `k` memories for `query` among those whose project is in `projects`
    /// (every project when `projects` is `None`), best first.
    pub fn search(&self, query: &str, projects: Option<&[&str]>, k: usize) -> Vec<Hit> {
        let Some(plan) = self.plan(query) else { return Vec::new() };
        if k == 0 {
            return Vec::new();
        }
        let allowed: Option<Vec<u32>> = projects.map(|ps| ps.iter().filter_map(|p| self.project_ids.get(*p).copied()).collect());
        if allowed.as_ref().is_some_and(Vec::is_empty) {
            return Vec::new();
        }

        let mut ranked: Vec<(usize, f64, u64)> = SCRATCH.with(|cell| {
            let (scores, touched) = &mut *cell.borrow_mut();
            if scores.len() < self.docs.len() {
                scores.resize(self.docs.len(), (0.0, 0));
            }
            for (bit, known) in plan.known.iter().enumerate() {
                let Some((term, idf)) = *known else { continue };
                for &(slot, tf) in &self.postings[term as usize] {
                    let s = slot as usize;
                    if let Some(allowed) = &allowed
                        && !allowed.contains(&self.projects[s])
                    {
                        continue;
                    }
                    let acc = &mut scores[s];
                    if acc.1 == 0 {
                        touched.push(slot);
                    }
                    acc.0 += self.term_score(&plan, idf, tf as f64, s);
                    acc.1 |= 1 << bit;
                }
            }
            let out = touched.iter().map(|&slot| (slot as usize, scores[slot as usize].0, scores[slot as usize].1)).collect();
            for &slot in touched.iter() {
                scores[slot as usize] = (0.0, 0);
            }
            touched.clear();
            out
        });
        let by_score = |a: &(usize, f64, u64), b: &(usize, f64, u64)| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0));
        if ranked.len() > k {
            ranked.select_nth_unstable_by(k - 1, by_score);
            ranked.truncate(k);
        }
        let mut hits: Vec<Hit> = ranked.into_iter().filter_map(|(slot, bm25, bits)| self.hit(&plan, slot, bm25, bits)).collect();
        hits.sort_by(|a, b| b.bm25.total_cmp(&a.bm25).then_with(|| a.id.cmp(&b.id)));
        hits
    }

    /// Keyword evidence for particular memories (found some other way), scored exactly as
    /// [`Self::search`] would score them; `None` for an id the index does not hold. A memory
    /// that matches no query term gets a hit with score 0.
    pub fn score(&self, query: &str, ids: &[&str]) -> Vec<Option<Hit>> {
        let plan = self.plan(query);
        ids.iter()
            .map(|id| {
                let slot = *self.slots.get(*id)?;
                let Some(plan) = &plan else {
                    return Some(Hit::by_words(id.to_string(), 0.0, 0.0, Vec::new(), 0));
                };
                let entry = self.docs[slot].as_ref()?;
                let (mut bm25, mut bits) = (0.0, 0u64);
                for (bit, known) in plan.known.iter().enumerate() {
                    let Some((term, idf)) = *known else { continue };
                    if let Some(&(_, tf)) = entry.terms.iter().find(|(t, _)| *t == term) {
                        bm25 += self.term_score(plan, idf, tf as f64, slot);
                        bits |= 1 << bit;
                    }
                }
                self.hit(plan, slot, bm25, bits)
            })
            .collect()
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
        assert_eq!(hits[0].relevance, hits[0].lexical, "keywords alone: the relevance is theirs");
    }

    #[test]
    fn matches_are_named_by_the_query_s_own_words() {
        let idx = index(&[("a", "p", "Validate the session tokens on the server")]);
        let hit = &idx.search("validating Tokens, sessions", None, 5)[0];
        assert_eq!(hit.matched, vec!["validating", "tokens", "sessions"]);
        assert_eq!(hit.query_terms, 3);
    }

    #[test]
    fn project_filter_scopes_results() {
        let idx = index(&[("a", "p1", "deploy with the blue green script"), ("b", "p2", "deploy only on fridays")]);
        let hits = idx.search("deploy", Some(&["p1", "global"]), 10);
        assert_eq!(hits.iter().map(|h| h.id.as_str()).collect::<Vec<_>>(), vec!["a"]);
        assert_eq!(idx.search("deploy", None, 10).len(), 2);
    }

    #[test]
    fn lists_a_category_within_projects() {
        let mut idx = LexicalIndex::new(FieldWeights::default());
        for (id, project, category) in [("a", "p", "git"), ("b", "global", "git"), ("c", "q", "git"), ("d", "p", "testing")] {
            idx.upsert(&LexicalDoc { id, project, text: "x", context: "", tags: &[], category });
        }
        let mut git = idx.ids_in_category(&["p", "global"], "git");
        git.sort();
        assert_eq!(git, vec!["a".to_string(), "b".to_string()], "another project's memory never counts");
        assert!(idx.ids_in_category(&["p"], "nothing").is_empty());
        assert_eq!((idx.category_size("git"), idx.category_size("testing"), idx.category_size("nothing")), (3, 1, 0));
        assert_eq!(idx.category_of("d"), Some("testing"));
        idx.remove("a");
        idx.upsert(&LexicalDoc { id: "d", project: "p", text: "x", context: "", tags: &[], category: "git" });
        assert_eq!((idx.category_size("git"), idx.category_size("testing")), (3, 0), "moves and removals are counted");
        assert_eq!((idx.count_in(&["p"]), idx.count_in(&["p", "global"]), idx.count_in(&["nowhere"])), (1, 2, 0));
    }

    #[test]
    fn a_memory_knows_the_terms_its_warnings_hold() {
        let idx = index(&[("a", "p", "ledger_entries is append-only: post a reversing entry; never UPDATE or DELETE its rows")]);
        for t in ["updat", "delet", "row"] {
            assert!(idx.warns_of("a", t) && idx.holds_term("a", t), "{t}");
        }
        for t in ["revers", "ledger", "append"] {
            assert!(!idx.warns_of("a", t) && idx.holds_term("a", t), "{t}");
        }
        assert!(!idx.warns_of("a", "unknown") && !idx.warns_of("b", "updat"));
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
    fn a_first_memory_is_found_in_an_empty_home() {
        // One memory: every idf is small, and unknown query words must not drown the match.
        let idx = index(&[("a", "p", "Never force-push to main; open a pull request instead")]);
        let hit = &idx.search("git push --force origin main", None, 5)[0];
        assert!(hit.relevance >= 0.5, "{}", hit.relevance);
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
    fn scoring_given_memories_agrees_with_search() {
        let idx = index(&[
            ("a", "p", "rotate the api token monthly"),
            ("b", "q", "format code with rustfmt"),
            ("c", "p", "token rotation needs a calendar reminder"),
        ]);
        let searched = idx.search("rotate api token", None, 10);
        let scored = idx.score("rotate api token", &["c", "a", "b", "nobody"]);
        let by_id = |id: &str| searched.iter().find(|h| h.id == id).cloned();
        assert_eq!(scored[0], by_id("c"));
        assert_eq!(scored[1], by_id("a"));
        let b = scored[2].as_ref().unwrap();
        assert_eq!((b.bm25, b.relevance, b.matched.len()), (0.0, 0.0, 0), "no shared word, no keyword evidence");
        assert!(scored[3].is_none());
    }

    #[test]
    fn empty_queries_and_indexes_answer_nothing() {
        let idx = index(&[]);
        assert!(idx.search("anything", None, 5).is_empty());
        let idx = index(&[("a", "p", "text")]);
        assert!(idx.search("the of and", None, 5).is_empty());
    }

    mod model {
        //! The index against a brute-force BM25 over the same documents, under random edits.
        use super::super::*;
        use proptest::prelude::*;

        const WORDS: &[&str] = &["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"];

        fn brute(docs: &[(String, String, String)], query: &str, projects: &[&str]) -> Vec<(String, f64)> {
            let terms_of = |t: &str| text::terms(t);
            let n = docs.len() as f64;
            let lens: Vec<f64> = docs.iter().map(|(_, _, t)| terms_of(t).len() as f64 + terms_of("general").len() as f64).collect();
            let avg = lens.iter().sum::<f64>() / n;
            let mut q = terms_of(query);
            q.dedup();
            let mut uniq = Vec::new();
            for t in q {
                if !uniq.contains(&t) {
                    uniq.push(t);
                }
            }
            let mut out = Vec::new();
            for (i, (id, project, body)) in docs.iter().enumerate() {
                if !projects.contains(&project.as_str()) {
                    continue;
                }
                let doc_terms = [terms_of(body), terms_of("general")].concat();
                let mut score = 0.0;
                for t in &uniq {
                    let tf = doc_terms.iter().filter(|d| *d == t).count() as f64;
                    if tf == 0.0 {
                        continue;
                    }
                    let df = docs.iter().filter(|(_, _, b)| [terms_of(b), terms_of("general")].concat().contains(t)).count() as f64;
                    let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
                    score += idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * lens[i] / avg));
                }
                if score > 0.0 {
                    out.push((id.clone(), score));
                }
            }
            out.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            out
        }

        fn text_strategy() -> impl Strategy<Value = String> {
            prop::collection::vec(prop::sample::select(WORDS), 1..6).prop_map(|w| w.join(" "))
        }

        proptest! {
            #[test]
            fn matches_brute_force(
                ops in prop::collection::vec((0usize..12, prop::bool::ANY, prop::bool::weighted(0.2), text_strategy()), 1..40),
                query in text_strategy(),
            ) {
                let mut idx = LexicalIndex::new(FieldWeights::default());
                let mut docs: Vec<(String, String, String)> = Vec::new();
                for (n, in_p, remove, body) in ops {
                    let id = format!("m{n}");
                    docs.retain(|(d, _, _)| *d != id);
                    if remove {
                        idx.remove(&id);
                        continue;
                    }
                    let project = if in_p { "p" } else { "q" };
                    idx.upsert(&LexicalDoc { id: &id, project, text: &body, context: "", tags: &[], category: "general" });
                    docs.push((id, project.to_string(), body));
                }
                prop_assert_eq!(idx.len(), docs.len());
                if docs.is_empty() {
                    return Ok(());
                }
                let got = idx.search(&query, Some(&["p"]), 100);
                let want = brute(&docs, &query, &["p"]);
                prop_assert_eq!(got.len(), want.len());
                for (g, (id, score)) in got.iter().zip(&want) {
                    prop_assert!((g.bm25 - score).abs() < 1e-6, "{} vs {}: {} vs {}", g.id, id, g.bm25, score);
                }
            }
        }
    }
}
