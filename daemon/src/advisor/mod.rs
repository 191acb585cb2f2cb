//! The advisor: from a hook event or free text to the few memories worth saying, with the reason
//! each was chosen, following DESIGN.md's advice path:
//!
//! 1. intent (`intent`), salience (`salience`);
//! 2. triggers matched against the raw tool input (`crate::triggers`);
//! 3. hybrid retrieval, keywords and embeddings ([`Retrieval`]);
//! 4. (spreading activation joins here with the learning loop: [`gather`] is the seam);
//! 5. enrichment: effectiveness, recency, the memory's embedding;
//! 6. gate, fuse, decide (`rank`);
//! 7. cooldown, MMR and category caps (`diversity`), then the item limit ([`choose`]);
//! 8. rendering within the budget and remembering what was said are the caller's
//!    (`handlers::advise`), which owns the session state.
//!
//! [`gather`] does the reading (indexes, memories); [`choose`] is pure and cheap, so the advice
//! benchmark can tune thresholds over gathered candidates.

pub mod cooldown;
pub mod diversity;
pub mod format;
pub mod intent;
pub mod rank;
pub mod salience;

use std::collections::HashMap;

use cairn_proto::Memory;
use time::OffsetDateTime;

use crate::embed::pool::cosine;
use crate::hybrid::{Evidence, Fusion};
use crate::lexical::LexicalIndex;
use crate::triggers::TriggerRule;
use crate::vectors::VectorIndex;
use intent::Intent;
pub use rank::Candidate;
use rank::{Gates, Retrieved, Scored, Triggered, Verdict};
use salience::Salience;

/// How many candidates each kind of retrieval hands to the later stages.
pub const CANDIDATES: usize = 50;

/// Looks memories up by id (the store, or a map in tests).
pub trait MemoryLookup {
    fn memory(&self, id: &str) -> Option<Memory>;
    /// Whether a memory may be advised at all (not muted, not a seed turned off). Checked before
    /// a memory is read where only its id is known.
    fn audible(&self, _id: &str) -> bool {
        true
    }
}

impl MemoryLookup for HashMap<String, Memory> {
    fn memory(&self, id: &str) -> Option<Memory> {
        self.get(id).cloned()
    }
}

/// What the user keeps out of advice: muted memories, and seeds when the pack or the seed is off.
#[derive(Debug, Clone, Default)]
pub struct Quiet {
    pub muted: std::collections::HashSet<String>,
    pub seeds_off: std::collections::HashSet<String>,
    pub pack_on: bool,
    /// Ids of the memories that are seeds now (source `seed`, not edited since).
    pub seeds: std::collections::HashSet<String>,
}

impl Quiet {
    /// Whether the memory `id` is kept out of advice.
    pub fn silences(&self, id: &str) -> bool {
        self.muted.contains(id) || (self.seeds.contains(id) && (!self.pack_on || self.seeds_off.contains(id)))
    }
}

/// A lookup that hides what the user keeps out of advice.
pub struct Audible<'a, L: MemoryLookup> {
    pub lookup: &'a L,
    pub quiet: &'a Quiet,
}

impl<L: MemoryLookup> MemoryLookup for Audible<'_, L> {
    fn memory(&self, id: &str) -> Option<Memory> {
        if self.quiet.silences(id) {
            return None;
        }
        self.lookup.memory(id)
    }

    fn audible(&self, id: &str) -> bool {
        !self.quiet.silences(id)
    }
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
pub struct Found {
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

impl Found {
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
    pub fn hybrid(&self, query: &str, projects: &[&str], k: usize) -> Vec<Found> {
        let mut out = self.gather(query, projects, k.max(CANDIDATES));
        out.sort_by(|a, b| b.relevance.total_cmp(&a.relevance).then_with(|| a.id.cmp(&b.id)));
        out.truncate(k);
        out
    }

    /// The union of the best `depth` by keywords and the best `depth` by embeddings, each with
    /// both kinds of evidence and their fused relevance, in no particular order.
    pub fn gather(&self, query: &str, projects: &[&str], depth: usize) -> Vec<Found> {
        let mut found: HashMap<String, Found> = HashMap::new();
        for hit in self.lexical.search(query, Some(projects), depth) {
            let cosine = self.cosine_of(&hit.id);
            found.insert(hit.id.clone(), Found { id: hit.id, bm25: hit.bm25, lexical: hit.relevance, matched: hit.matched, query_terms: hit.query_terms, cosine, relevance: 0.0 });
        }
        if let Some(s) = &self.semantic {
            let similar: Vec<(String, f32)> = s.index.search(s.vector, projects, depth).into_iter().filter(|(id, _)| !found.contains_key(id)).collect();
            let ids: Vec<&str> = similar.iter().map(|(id, _)| id.as_str()).collect();
            for ((id, sim), lexical) in similar.iter().zip(self.lexical.score(query, &ids)) {
                let (bm25, relevance, matched, query_terms) = lexical.map_or((0.0, 0.0, Vec::new(), 0), |h| (h.bm25, h.relevance, h.matched, h.query_terms));
                found.insert(id.clone(), Found { id: id.clone(), bm25, lexical: relevance, matched, query_terms, cosine: Some(*sim as f64), relevance: 0.0 });
            }
        }
        found
            .into_values()
            .map(|mut f| {
                f.relevance = self.fusion.relevance(f.evidence());
                f
            })
            .collect()
    }

    /// Both kinds of evidence for particular memories (a trigger's picks).
    pub fn score(&self, query: &str, ids: &[&str]) -> Vec<Option<Found>> {
        self.lexical
            .score(query, ids)
            .into_iter()
            .map(|hit| {
                let hit = hit?;
                let cosine = self.cosine_of(&hit.id);
                let mut f = Found { id: hit.id, bm25: hit.bm25, lexical: hit.relevance, matched: hit.matched, query_terms: hit.query_terms, cosine, relevance: 0.0 };
                f.relevance = self.fusion.relevance(f.evidence());
                Some(f)
            })
            .collect()
    }

    fn cosine_of(&self, id: &str) -> Option<f64> {
        let s = self.semantic.as_ref()?;
        s.index.vector(id).map(|v| cosine(s.vector, &v) as f64)
    }

    fn vector_of(&self, id: &str) -> Option<Vec<f32>> {
        self.semantic.as_ref()?.index.vector(id)
    }
}

/// An event to advise on, as the advisor sees it.
pub struct Ask<'a> {
    pub intent: &'a Intent,
    pub salience: Salience,
    /// The raw tool input (or the text), for trigger rules.
    pub raw: &'a str,
    /// The event's project and `global`.
    pub projects: &'a [&'a str],
    /// The trigger rules in force (none when triggers are off).
    pub rules: &'a [TriggerRule],
    /// Confidence in a learned rule (a user's or cairn's own rule has 1).
    pub learned_confidence: f64,
    /// A `category:NAME` surface resolves to the category's most relevant memory only when that
    /// memory is about the event at all (at least this relevant); a rule naming ids has no such bar.
    pub min_category_relevance: f64,
    /// A seed lesson's weight in fusion now (see `crate::seeds::weight`), and what it rests on.
    pub seed_weight: f64,
    pub seed_basis: String,
}

/// How the advisor decides, from the tuneables.
#[derive(Debug, Clone)]
pub struct Policy {
    pub gates: Gates,
    pub mmr_lambda: f64,
    /// An item at least this similar to one already chosen is dropped as a duplicate.
    pub mmr_duplicate: f64,
    /// An item scoring under this share of the best item's score is not said beside it.
    pub min_relative_score: f64,
    pub category_caps: HashMap<String, usize>,
    pub default_category_cap: usize,
    /// Most items for this kind of event.
    pub limit: usize,
    pub recency_half_life_days: f64,
}

/// What the advisor made of one event: what it would say (in order) and what it would not, with
/// the verdict for each.
#[derive(Debug, Default)]
pub struct Considered {
    pub said: Vec<Scored>,
    pub not_said: Vec<(Scored, Verdict)>,
}

/// 1 for a memory touched now, halving every `half_life_days` (last access, else last change).
pub fn recency(memory: &Memory, now: OffsetDateTime, half_life_days: f64) -> f64 {
    let touched = memory.now.last_accessed.as_deref().and_then(crate::exchange::parse_timestamp).or_else(|| crate::exchange::parse_timestamp(&memory.updated_at));
    let Some(touched) = touched else { return 0.0 };
    let days = ((now - touched).as_seconds_f64() / 86_400.0).max(0.0);
    0.5f64.powf(days / half_life_days.max(1e-6))
}

fn candidate(memory: Memory, retrieved: Option<Retrieved>, trigger: Option<Triggered>, vector: Option<Vec<f32>>, now: OffsetDateTime, ask: &Ask<'_>, half_life: f64) -> Candidate {
    let seed = (memory.source == crate::seeds::SEED_SOURCE).then(|| (ask.seed_weight, ask.seed_basis.clone()));
    Candidate {
        seed,
        found: trigger.is_none(),
        recency: recency(&memory, now, half_life),
        effectiveness: memory.worth.effectiveness,
        id: memory.id,
        text: memory.text,
        category: memory.category,
        project: memory.project,
        retrieved,
        trigger,
        vector,
    }
}

fn retrieved(f: &Found, surface: &HashMap<String, String>) -> Retrieved {
    Retrieved {
        lexical: f.lexical,
        cosine: f.cosine,
        bm25: f.bm25,
        matched_words: f.matched.iter().map(|t| surface.get(t).cloned().unwrap_or_else(|| t.clone())).collect(),
        query_terms: f.query_terms,
    }
}

/// A category small enough to score every member of on the hook's path.
const SMALL_CATEGORY: usize = 256;

/// The most relevant memory of `category` for this event, among the event's projects: scored
/// member by member for a small category; for a large one, the best among retrieval's own
/// candidates (a member relevant at all is among the best fifty by keywords or by meaning).
fn category_pick(retrieval: &Retrieval<'_>, lookup: &impl MemoryLookup, found: &[Found], words: &str, projects: &[&str], category: &str) -> Option<Found> {
    let mut ids = if retrieval.lexical.category_size(category) <= SMALL_CATEGORY {
        retrieval.lexical.ids_in_category(projects, category)
    } else {
        found.iter().filter(|f| retrieval.lexical.category_of(&f.id) == Some(category)).map(|f| f.id.clone()).collect()
    };
    ids.retain(|id| lookup.audible(id));
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    retrieval.score(words, &refs).into_iter().flatten().max_by(|a, b| a.relevance.total_cmp(&b.relevance).then_with(|| b.id.cmp(&a.id)))
}

/// Words of rule names that say where a rule looks, not what it is about.
const WHERE_WORDS: &[&str] = &["call", "command", "content", "file", "input", "tool"];

/// A rule's name as words a lesson might use: `secret_in_input` is "secret". Words that name the
/// category itself are left out (every member of the category would match them), and so are
/// words that say where the rule looks ("command", "input").
fn rule_words(name: &str, category: &str) -> String {
    let category: Vec<String> = crate::text::terms(category);
    crate::text::terms_with_words(name)
        .into_iter()
        .filter(|(term, word)| !category.contains(term) && !WHERE_WORDS.contains(&word.as_str()))
        .map(|(_, word)| word)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Finds the candidates for an event: memories retrieval found with at least `floor` relevance,
/// and the memories trigger rules put forward; each with every signal filled in.
pub fn gather(retrieval: &Retrieval<'_>, lookup: &impl MemoryLookup, ask: &Ask<'_>, floor: f64, now: OffsetDateTime, half_life_days: f64) -> Vec<Candidate> {
    let words = ask.intent.words.as_str();
    let surface: HashMap<String, String> = crate::text::terms_with_words(words).into_iter().collect();
    let mut out: HashMap<String, Candidate> = HashMap::new();
    // Retrieval's candidates, once: the category picks below look here first.
    let found = retrieval.gather(words, ask.projects, CANDIDATES);

    // Trigger rules, against the raw input: each names memories, or a category whose most
    // relevant memory for this event it surfaces. Rules are about actions: a look around (a
    // read, a search, a web query that merely mentions `kubectl delete`) fires none.
    let acting = ask.salience.score >= salience::READ_ONLY_CEILING;
    for m in crate::triggers::matches(if acting { ask.rules } else { &[] }, ask.raw) {
        let confidence = if m.rule.learned { ask.learned_confidence } else { 1.0 };
        for target in &m.rule.spec.surface {
            let (pick, via_category) = match target.strip_prefix("category:") {
                Some(category) => {
                    let category = category.trim();
                    // The event's own words pick first; when none of the category is relevant
                    // enough to them, the rule's name says what is going on ("secret").
                    let pick = |words: &str| category_pick(retrieval, lookup, &found, words, ask.projects, category).filter(|f| f.relevance >= ask.min_category_relevance);
                    let best = pick(words).or_else(|| Some(rule_words(&m.rule.spec.name, category)).filter(|w| !w.is_empty()).and_then(|w| pick(&format!("{words} {w}"))));
                    (best.map(|f| f.id), Some(category.to_string()))
                }
                None => (Some(target.clone()), None),
            };
            let Some(id) = pick else { continue };
            let trigger = Triggered {
                rule: m.rule.spec.name.clone(),
                priority: m.rule.spec.priority,
                confidence,
                matched: m.matched.clone(),
                via_category,
                interrupt: m.rule.spec.interrupt && m.rule.spec.priority == crate::triggers::Priority::Critical,
            };
            if let Some(existing) = out.get_mut(&id) {
                // Two rules for one memory: the more urgent one speaks for it; at equal urgency, one
                // that may interrupt, then one that named the memory itself over a category pick.
                let rank_of = |t: &Triggered| (rank::priority_index(t.priority), !t.interrupt, t.via_category.is_some());
                if existing.trigger.as_ref().is_none_or(|t| rank_of(&trigger) < rank_of(t)) {
                    existing.trigger = Some(trigger);
                }
                continue;
            }
            // A rule never reaches outside the event's projects, whatever id it names.
            let Some(memory) = lookup.memory(&id).filter(|m| ask.projects.contains(&m.project.as_str())) else { continue };
            let evidence = retrieval.score(words, &[id.as_str()]).into_iter().flatten().next().map(|f| retrieved(&f, &surface));
            let vector = retrieval.vector_of(&id);
            out.insert(id, candidate(memory, evidence, Some(trigger), vector, now, ask, half_life_days));
        }
    }

    // Retrieval: only hits that can pass the gate are read from the store.
    for f in found {
        if f.relevance < floor {
            continue;
        }
        if let Some(c) = out.get_mut(&f.id) {
            c.retrieved = Some(retrieved(&f, &surface));
            c.found = true;
            continue;
        }
        let Some(memory) = lookup.memory(&f.id) else { continue };
        let vector = retrieval.vector_of(&f.id);
        out.insert(f.id.clone(), candidate(memory, Some(retrieved(&f, &surface)), None, vector, now, ask, half_life_days));
    }
    let mut v: Vec<Candidate> = out.into_values().collect();
    v.sort_by(|a, b| a.id.cmp(&b.id));
    v
}

/// Decides what to say: gate, fuse, decide, skip what `cooled` says was said recently, MMR,
/// category caps, and the item limit. Pure.
pub fn choose(candidates: Vec<Candidate>, salience: &Salience, policy: &Policy, cooled: impl Fn(&str) -> bool) -> Considered {
    let (decided, mut not_said) = rank::rank(candidates, (salience.score, salience.reason), &policy.gates);
    let mut fresh = Vec::new();
    for s in decided {
        if cooled(&s.candidate.id) {
            not_said.push((s, Verdict::Cooldown));
        } else {
            fresh.push(s);
        }
    }
    let (diverse, redundant) = diversity::mmr(fresh, policy.mmr_lambda, policy.mmr_duplicate);
    not_said.extend(redundant);
    let (capped, over_cap) = diversity::cap_categories(diverse, &policy.category_caps, policy.default_category_cap);
    not_said.extend(over_cap);
    // The best item's company: only items near it in score.
    let top = capped.iter().map(|s| s.score).fold(f64::NEG_INFINITY, f64::max);
    let mut said = Vec::with_capacity(capped.len());
    for s in capped {
        if s.score < policy.min_relative_score * top {
            let reason = format!("score {:.2} < {:.2} x the best item's {top:.2}", s.score, policy.min_relative_score);
            not_said.push((s, Verdict::Outshone(reason)));
        } else {
            said.push(s);
        }
    }
    if said.len() > policy.limit {
        not_said.extend(said.split_off(policy.limit).into_iter().map(|s| (s, Verdict::OverLimit)));
    }
    Considered { said, not_said }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexical::{FieldWeights, LexicalDoc};
    use crate::triggers::TriggerRules;
    use serde_json::json;

    fn memory(id: &str, project: &str, text: &str, category: &str) -> Memory {
        serde_json::from_value(json!({
            "id": id, "project": project, "text": text, "category": category, "source": "user",
            "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"
        }))
        .unwrap()
    }

    fn setup(memories: &[Memory]) -> (LexicalIndex, HashMap<String, Memory>) {
        let mut index = LexicalIndex::new(FieldWeights::default());
        for m in memories {
            index.upsert(&LexicalDoc { id: &m.id, project: &m.project, text: &m.text, context: &m.context, tags: &m.tags, category: &m.category });
        }
        (index, memories.iter().map(|m| (m.id.clone(), m.clone())).collect())
    }

    fn policy(limit: usize) -> Policy {
        Policy {
            gates: Gates { min_similarity: 0.4, min_fusion_score: 0.4, weight_recency: 0.0, ..Gates::default() },
            mmr_lambda: 0.5,
            mmr_duplicate: 0.9,
            min_relative_score: 0.0,
            category_caps: HashMap::new(),
            default_category_cap: 2,
            limit,
            recency_half_life_days: 30.0,
        }
    }

    fn run(index: &LexicalIndex, lookup: &HashMap<String, Memory>, words: &str, raw: &str, rules: &[TriggerRule], salience: Salience) -> Considered {
        let fusion = Fusion { weight_similarity: 0.7, similarity_floor: 0.15, similarity_ceiling: 0.9 };
        let retrieval = Retrieval { lexical: index, semantic: None, fusion };
        let intent = Intent { words: words.into(), meaning: words.into() };
        let ask = Ask { intent: &intent, salience: salience.clone(), raw, projects: &["/p", "global"], rules, learned_confidence: 0.7, min_category_relevance: 0.1, seed_weight: 1.0, seed_basis: String::new() };
        let now = time::macros::datetime!(2026-01-02 0:00 UTC);
        choose(gather(&retrieval, lookup, &ask, 0.4, now, 30.0), &salience, &policy(2), |_| false)
    }

    const PUSH: Salience = Salience { score: 0.9, reason: "pushes" };

    #[test]
    fn advises_in_scope_and_stays_silent_otherwise() {
        let (index, lookup) = setup(&[
            memory("a", "/p", "Never force-push to main; open a pull request instead", "git"),
            memory("b", "global", "Run the database migration on a copy first", "deployment"),
            memory("c", "/other", "Force push is fine on personal branches of main", "git"),
        ]);
        let out = run(&index, &lookup, "git push --force origin main", "", &[], PUSH);
        assert_eq!(out.said.iter().map(|s| s.candidate.id.as_str()).collect::<Vec<_>>(), vec!["a"]);
        assert!(out.said[0].why.contains("'push'"), "{}", out.said[0].why);
        assert!(run(&index, &lookup, "Print working directory pwd", "pwd", &[], Salience { score: 0.15, reason: "looks" }).said.is_empty());
    }

    #[test]
    fn a_trigger_surfaces_the_most_relevant_memory_of_its_category() {
        let (index, lookup) = setup(&[
            memory("unrelated-git", "global", "Write commit messages in the imperative mood", "git"),
            memory("force", "global", "Never force-push a shared branch; others lose their work", "git"),
            memory("elsewhere", "/other", "Force pushing main is how we deploy here", "git"),
        ]);
        let rules = crate::triggers::builtin();
        let out = run(&index, &lookup, "Squash and force push", "git push --force origin main", rules, PUSH);
        assert_eq!(out.said[0].candidate.id, "force", "{:?}", out.said.iter().map(|s| &s.why).collect::<Vec<_>>());
        assert!(out.said[0].why.starts_with("trigger force_push (critical) on `git push --force"), "{}", out.said[0].why);
        assert!(out.said.iter().chain(out.not_said.iter().map(|(s, _)| s)).all(|s| s.candidate.id != "elsewhere"), "another project's memory never surfaces");
    }

    #[test]
    fn a_category_pick_reads_the_rule_name_as_what_is_going_on() {
        // The intent shares no word with either lesson; the rule's name says a secret is in the
        // input, and the lesson about secrets is the one its category pick surfaces.
        let (index, lookup) = setup(&[
            memory("tokens", "global", "Validate session tokens on the server, never trust the client", "security"),
            memory("secrets", "global", "Secrets never go in source files; read them from the environment", "security"),
        ]);
        let rules = TriggerRules::parse("rules:\n  - name: secret_in_input\n    pattern: 'sk_test_'\n    surface: [category:security]\n    priority: high\n", "t.yaml").unwrap().rules;
        let out = run(&index, &lookup, "new Stripe instance", "new Stripe('sk_test_abc123')", &rules, PUSH);
        assert_eq!(out.said.iter().map(|s| s.candidate.id.as_str()).collect::<Vec<_>>(), vec!["secrets"]);
        assert_eq!(rule_words("secret_in_input", "security"), "secret");
        assert_eq!(rule_words("destructive_command", "destructive"), "");
        assert_eq!(rule_words("production_deploy", "deployment"), "production");
    }

    #[test]
    fn a_category_with_nothing_about_the_event_surfaces_nothing() {
        let (index, lookup) = setup(&[memory("tz", "global", "Store timestamps in UTC and convert at the edges", "destructive")]);
        let out = run(&index, &lookup, "Discard local changes git checkout -- . && git reset --hard", "git reset --hard", crate::triggers::builtin(), PUSH);
        assert!(out.said.is_empty(), "{:?}", out.said.iter().map(|s| &s.why).collect::<Vec<_>>());
    }

    #[test]
    fn a_rule_naming_an_id_outside_the_project_surfaces_nothing() {
        let (index, lookup) = setup(&[memory("theirs", "/other", "Deploy only on Tuesdays", "deployment")]);
        let rules = TriggerRules::parse("rules:\n  - name: r\n    pattern: deploy\n    surface: [theirs]\n    priority: high\n", "t.yaml").unwrap().rules;
        assert!(run(&index, &lookup, "deploy", "deploy now", &rules, PUSH).said.is_empty());
    }

    #[test]
    fn weak_company_is_not_said_beside_a_strong_item() {
        let (index, lookup) = setup(&[
            memory("strong", "global", "Never force-push to main; open a pull request instead", "git"),
            memory("weak", "global", "Push tags after the release notes are merged", "release"),
        ]);
        let fusion = Fusion { weight_similarity: 0.7, similarity_floor: 0.15, similarity_ceiling: 0.9 };
        let retrieval = Retrieval { lexical: &index, semantic: None, fusion };
        let intent = Intent { words: "force push to main".into(), meaning: String::new() };
        let ask = Ask { intent: &intent, salience: PUSH, raw: "", projects: &["global"], rules: &[], learned_confidence: 0.7, min_category_relevance: 0.1, seed_weight: 1.0, seed_basis: String::new() };
        let now = time::macros::datetime!(2026-01-02 0:00 UTC);
        let mut p = policy(2);
        p.gates.min_matched_terms = 1;
        p.gates.min_similarity = 0.01;
        p.gates.min_fusion_score = 0.01;
        let all = choose(gather(&retrieval, &lookup, &ask, 0.01, now, 30.0), &PUSH, &p, |_| false);
        assert_eq!(all.said.len(), 2, "without a relative bar both are said");
        p.min_relative_score = 0.6;
        let out = choose(gather(&retrieval, &lookup, &ask, 0.01, now, 30.0), &PUSH, &p, |_| false);
        assert_eq!(out.said.iter().map(|s| s.candidate.id.as_str()).collect::<Vec<_>>(), vec!["strong"]);
        assert!(out.not_said.iter().any(|(s, v)| s.candidate.id == "weak" && matches!(v, Verdict::Outshone(_))));
    }

    #[test]
    fn limits_and_cooldowns_hold() {
        let mems: Vec<Memory> = (0..6).map(|i| memory(&format!("m{i}"), "global", &format!("rotate the api tokens monthly, rule {i} of the vault {}", ["alpha", "beta", "gamma", "delta", "echo", "golf"][i]), &format!("c{i}"))).collect();
        let (index, lookup) = setup(&mems);
        let fusion = Fusion { weight_similarity: 0.7, similarity_floor: 0.15, similarity_ceiling: 0.9 };
        let retrieval = Retrieval { lexical: &index, semantic: None, fusion };
        let intent = Intent { words: "rotate api tokens monthly vault".into(), meaning: String::new() };
        let ask = Ask { intent: &intent, salience: PUSH, raw: "", projects: &["global"], rules: &[], learned_confidence: 0.7, min_category_relevance: 0.1, seed_weight: 1.0, seed_basis: String::new() };
        let now = time::macros::datetime!(2026-01-02 0:00 UTC);
        let gathered = gather(&retrieval, &lookup, &ask, 0.4, now, 30.0);
        assert!(gathered.len() >= 3);
        let out = choose(gathered.clone(), &PUSH, &policy(2), |_| false);
        assert_eq!(out.said.len(), 2, "a tool call gets at most two");
        assert!(out.not_said.iter().any(|(_, v)| *v == Verdict::OverLimit));
        let first: Vec<String> = out.said.iter().map(|s| s.candidate.id.clone()).collect();
        let again = choose(gathered, &PUSH, &policy(2), |id| first.contains(&id.to_string()));
        assert!(again.said.iter().all(|s| !first.contains(&s.candidate.id)), "cooled-down items are not repeated");
        assert_eq!(again.not_said.iter().filter(|(_, v)| *v == Verdict::Cooldown).count(), 2);
    }
}
