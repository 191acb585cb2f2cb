//! Gathering the candidates for an event: the memories trigger rules put forward (a named
//! memory, or the most relevant of a category) and the memories retrieval finds, each enriched
//! with every signal the fusion reads. This is where spreading activation joins with the
//! learning loop. Reads indexes and memories; decides nothing.

use std::collections::HashMap;

use cairn_proto::Memory;
use time::OffsetDateTime;

use super::candidate::{Activation, Candidate, Triggered};
use super::decision::{self, Standing};
use super::intent::Intent;
use super::lookup::MemoryLookup;
use super::remedy;
use super::salience::{self, Salience};
use super::scope;
use super::seeds::SEED_SOURCE;
use crate::base::text;
use crate::config::rules::{self, Priority, TriggerRule};
use crate::learning::graph::{self, Spread};
use crate::retrieval::{Hit, Retrieval, CANDIDATES};
use crate::temporal::recency::recency;

/// An event to advise on, as the advisor sees it.
pub struct Ask<'a> {
    pub intent: &'a Intent,
    pub salience: Salience,
    /// The raw tool input (or the text), for trigger rules.
    pub raw: &'a str,
    /// The event's project and `global`.
    pub projects: &'a [&'a str],
    /// The trigger rules in force, set after set, in order (none when triggers are off).
    pub rules: &'a [&'a [TriggerRule]],
    /// Confidence in a learned rule (a user's or cairn's own rule has 1).
    pub learned_confidence: f64,
    /// A `category:NAME` surface resolves to the category's most relevant memory only when that
    /// memory is about the event at all (at least this relevant); a rule naming ids has no such bar.
    pub min_category_relevance: f64,
    /// A seed lesson's weight in the decision now (see `super::seeds::weight`), and what it rests on.
    pub seed_weight: f64,
    pub seed_basis: String,
    /// How activation spreads along the memory graph's edges between lessons (`None`: it does
    /// not, as when learning is off).
    pub spread: Option<Spread>,
}

fn candidate(memory: Memory, hit: Option<Hit>, trigger: Option<Triggered>, vector: Option<Vec<f32>>, now: OffsetDateTime, ask: &Ask<'_>, half_life: f64) -> Candidate {
    let seed = (memory.source == SEED_SOURCE).then(|| (ask.seed_weight, ask.seed_basis.clone()));
    let pending = memory.is_candidate();
    let captured = memory.capture.as_ref().map(|c| {
        let promoted = match &c.promoted {
            Some(p) if p.by == "user" => format!(", accepted by you {}", p.at),
            Some(p) => format!(", promoted {} after {} confirmed moments", p.at, c.confirmed()),
            None => String::new(),
        };
        let what = c.evidence.first().map_or(String::new(), |e| format!(" ({})", e.text.chars().take(80).collect::<String>()));
        format!("captured {} from {}{what}{promoted}", memory.created_at, c.from)
    });
    Candidate {
        complies: None,
        takes_out: Vec::new(),
        safe_form: None,
        elsewhere: None,
        rule_tells_apart: false,
        pending,
        captured,
        seed,
        found: trigger.is_none(),
        recency: recency(&memory, now, half_life),
        effectiveness: memory.worth.effectiveness,
        node_weight: memory.node_weight,
        id: memory.id,
        text: memory.text,
        category: memory.category,
        project: memory.project,
        hit,
        trigger,
        vector,
        standing: Standing::default(),
        activation: None,
    }
}

/// A category small enough to score every member of on the hook's path.
const SMALL_CATEGORY: usize = 256;

/// The most relevant memory of `category` for this event, among the event's projects: scored
/// member by member for a small category; for a large one, the best among retrieval's own
/// candidates (a member relevant at all is among the best fifty by keywords or by meaning).
fn category_members(retrieval: &Retrieval<'_>, lookup: &impl MemoryLookup, found: &[Hit], projects: &[&str], category: &str) -> Vec<String> {
    let mut ids = if retrieval.lexical.category_size(category) <= SMALL_CATEGORY {
        retrieval.lexical.ids_in_category(projects, category)
    } else {
        found.iter().filter(|f| retrieval.lexical.category_of(&f.id) == Some(category)).map(|f| f.id.clone()).collect()
    };
    ids.retain(|id| lookup.audible(id));
    ids
}

/// The most relevant of `ids` to `words` (keywords of `words`, meaning of the event).
fn most_relevant(retrieval: &Retrieval<'_>, words: &str, ids: &[String]) -> Option<Hit> {
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    retrieval.score(words, &refs).into_iter().flatten().max_by(|a, b| a.relevance.total_cmp(&b.relevance).then_with(|| b.id.cmp(&a.id)))
}

/// The memory of a category a rule surfaces: the member most relevant to the event's words
/// and what the rule's name says is going on ("sql built" lifts the lesson on SQL over one on
/// notebooks that merely shares the event's "customer" and "email"); else, when the name's
/// words leave none relevant enough (`floor`), the member most relevant to the event's words.
///
/// A member that shares a word of the name is about what the rule saw, however few of the
/// event's words it shares (`SELECT * FROM customers ...` beside "never format user input into
/// SQL strings"): it needs no floor. Among such members the user's own come before the seed
/// pack's, which are there for a home that has none.
fn category_pick(retrieval: &Retrieval<'_>, lookup: &impl MemoryLookup, members: &[String], words: &str, named: &str, floor: f64) -> Option<Hit> {
    let enough = |h: &Hit| h.relevance >= floor;
    if named.is_empty() {
        return most_relevant(retrieval, words, members).filter(enough);
    }
    let refs: Vec<&str> = members.iter().map(String::as_str).collect();
    let naming: Vec<String> = retrieval.score(named, &refs).into_iter().flatten().filter(|h| !h.matched.is_empty()).map(|h| h.id).collect();
    if !naming.is_empty() {
        let own: Vec<String> = naming.iter().filter(|id| lookup.memory(id).is_some_and(|m| m.source != SEED_SOURCE)).cloned().collect();
        let pool = if own.is_empty() { &naming } else { &own };
        if let Some(hit) = most_relevant(retrieval, &format!("{named} {words}"), pool) {
            return Some(hit);
        }
    }
    // The name first: a query keeps only its first terms, and a long edit's words would push it out.
    most_relevant(retrieval, &format!("{named} {words}"), members)
        .filter(enough)
        .or_else(|| most_relevant(retrieval, words, members).filter(enough))
}

/// Words of rule names that say where a rule looks, not what it is about.
const WHERE_WORDS: &[&str] = &["call", "command", "content", "file", "input", "tool"];

/// A rule's name as words a lesson might use: `secret_in_input` is "secret". Words that name the
/// category itself are left out (every member of the category would match them), and so are
/// words that say where the rule looks ("command", "input").
fn rule_words(name: &str, category: &str) -> String {
    let category: Vec<String> = text::terms(category);
    text::terms_with_words(name)
        .into_iter()
        .filter(|(term, word)| !category.contains(term) && !WHERE_WORDS.contains(&word.as_str()))
        .map(|(_, word)| word)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Finds the candidates for an event: the memories trigger rules put forward, and of those
/// retrieval found, the closest `keep` by meaning and the best `keep` by keywords (every one when
/// `keep` is `None`); each with every signal filled in, its standing among all retrieved too.
pub fn gather(retrieval: &Retrieval<'_>, lookup: &impl MemoryLookup, ask: &Ask<'_>, keep: Option<usize>, now: OffsetDateTime, half_life_days: f64) -> Vec<Candidate> {
    let words = ask.intent.words.as_str();
    let mut out: HashMap<String, Candidate> = HashMap::new();
    // Retrieval's candidates, once: the category picks below look here first.
    let t0 = std::time::Instant::now();
    let found = retrieval.gather(words, ask.projects, CANDIDATES);
    let t_found = t0.elapsed();

    // Trigger rules, against the raw input: each names memories, or a category whose most
    // relevant memory for this event it surfaces. Rules are about actions: a look around (a
    // read, a search, a web query that merely mentions `kubectl delete`) fires none.
    let acting = ask.salience.score >= salience::READ_ONLY_CEILING;
    let sets: &[&[TriggerRule]] = if acting { ask.rules } else { &[] };
    for m in sets.iter().flat_map(|set| rules::matches(set, ask.raw)) {
        let confidence = if m.rule.learned { ask.learned_confidence } else { 1.0 };
        for target in &m.rule.spec.surface {
            let (pick, via_category) = match target.strip_prefix("category:") {
                Some(category) => {
                    let category = category.trim();
                    let members = category_members(retrieval, lookup, &found, ask.projects, category);
                    let best = category_pick(retrieval, lookup, &members, words, &rule_words(&m.rule.spec.name, category), ask.min_category_relevance);
                    (best.map(|f| f.id), Some(category.to_string()))
                }
                None => (Some(target.clone()), None),
            };
            let Some(id) = pick else { continue };
            let trigger = Triggered {
                rule: m.rule.spec.name.clone(),
                priority: m.rule.spec.priority,
                confidence,
                learned: m.rule.learned,
                matched: m.matched.clone(),
                via_category,
                interrupt: m.rule.spec.interrupt && m.rule.spec.priority == Priority::Critical,
            };
            if let Some(existing) = out.get_mut(&id) {
                // Two rules for one memory: the more urgent one speaks for it; at equal urgency, one
                // that may interrupt, then one that named the memory itself over a category pick.
                let rank_of = |t: &Triggered| (t.priority.index(), !t.interrupt, t.via_category.is_some());
                if existing.trigger.as_ref().is_none_or(|t| rank_of(&trigger) < rank_of(t)) {
                    existing.trigger = Some(trigger);
                }
                continue;
            }
            // A rule never reaches outside the event's projects, whatever id it names.
            let Some(memory) = lookup.memory(&id).filter(|m| ask.projects.contains(&m.project.as_str())) else { continue };
            let evidence = retrieval.score(words, &[id.as_str()]).into_iter().flatten().next();
            let vector = retrieval.vector_of(&id);
            out.insert(id, candidate(memory, evidence, Some(trigger), vector, now, ask, half_life_days));
        }
    }

    // Retrieval: only the leading hits are read from the store; a lesson far down both lists is
    // not what this moment is about.
    // The leaders among what may be said at all: a muted memory or a seed turned off must not
    // take a place among them.
    let t_rules = t0.elapsed();
    let found: Vec<Hit> = found.into_iter().filter(|f| out.contains_key(&f.id) || lookup.audible(&f.id)).collect();
    let t_audible = t0.elapsed();
    let kept = keep.map(|k| leaders(&found, k));
    for f in found {
        if kept.as_ref().is_some_and(|kept| !kept.contains(&f.id)) && !out.contains_key(&f.id) {
            continue;
        }
        if let Some(c) = out.get_mut(&f.id) {
            c.hit = Some(f);
            c.found = true;
            continue;
        }
        let Some(memory) = lookup.memory(&f.id) else { continue };
        let vector = retrieval.vector_of(&f.id);
        let id = f.id.clone();
        out.insert(id, candidate(memory, Some(f), None, vector, now, ask, half_life_days));
    }
    let t_read = t0.elapsed();
    if let Some(spread) = ask.spread {
        activate(&mut out, retrieval, lookup, ask, spread, now, half_life_days);
    }
    let t_spread = t0.elapsed();
    let mut v: Vec<Candidate> = out.into_values().collect();
    v.sort_by(|a, b| a.id.cmp(&b.id));
    // The action read once, each candidate's remedy looked for in it.
    let deed = remedy::Deed::of(&ask.intent.deed, &ask.intent.taken);
    // The lessons a rule names whose `unless` says this action is the safe form of its case.
    let safe: Vec<(&str, &str)> = sets.iter().flat_map(|set| rules::safe_forms(set, ask.raw)).flat_map(|r| r.spec.surface.iter().filter(|t| !t.starts_with("category:")).map(move |t| (t.as_str(), r.spec.name.as_str()))).collect();
    // Where the action aims, read once: the command as written (an environment variable before
    // it names its database) beside the words its description adds.
    let local = scope::local_target(&ask.intent.kind, &format!("{}\n{}", ask.intent.words, ask.raw));
    for c in v.iter_mut() {
        c.complies = deed.remedy_of(&c.text);
        c.takes_out = deed.taken_from(&c.text);
        c.safe_form = safe.iter().find(|(id, _)| *id == c.id).map(|(_, rule)| rule.to_string());
        c.elsewhere = local.as_deref().and_then(|marker| scope::elsewhere(marker, &c.text));
        c.rule_tells_apart = match (&c.trigger, c.hit.as_ref().and_then(|h| h.counter.as_ref())) {
            (Some(t), Some((_, near))) => sets.iter().flat_map(|set| set.iter()).find(|r| r.spec.name == t.rule).is_some_and(|r| !r.regex.is_match(near)),
            _ => false,
        };
    }
    // Standing among what was retrieved and put forward (a hit left out above is behind at least
    // `keep` others by meaning, so it changes neither the lead nor anyone's gap to it).
    let meanings: Vec<Option<f64>> = v.iter().map(decision::meaning).collect();
    for (c, s) in v.iter_mut().zip(decision::standings(&meanings)) {
        c.standing = s;
    }
    tracing::trace!(retrieval_us = t_found.as_micros() as u64, rules_us = (t_rules - t_found).as_micros() as u64, audible_us = (t_audible - t_rules).as_micros() as u64, read_us = (t_read - t_audible).as_micros() as u64, spread_us = (t_spread - t_read).as_micros() as u64, rest_us = (t0.elapsed() - t_spread).as_micros() as u64, candidates = v.len(), "gather steps");
    v
}

/// Most lessons activation may bring in that no retrieval or rule found.
const ACTIVATED: usize = 8;

/// Spreads activation from the moment's candidates along the edges between lessons (1 or 2
/// hops, each edge's weight times the decay, stopping under the floor). A candidate starts with
/// what put it forward: its relevance, its rule's confidence, or the closeness of the situation
/// learned for it (then the path starts at that situation). A lesson reached through an edge
/// keeps the activation and path that reached it; one no retrieval found joins the candidates
/// (of the moment's projects, audible, the strongest few), with its own evidence scored.
fn activate(out: &mut HashMap<String, Candidate>, retrieval: &Retrieval<'_>, lookup: &impl MemoryLookup, ask: &Ask<'_>, spread: Spread, now: OffsetDateTime, half_life_days: f64) {
    let Some(learned) = &retrieval.learned else { return };
    let situations = learned.situations;
    if !situations.has_between() {
        return;
    }
    let mut starts: HashMap<String, Option<String>> = HashMap::new();
    let mut seeds: Vec<(String, f64)> = Vec::new();
    for c in out.values() {
        let by_rule = c.trigger.as_ref().map_or(0.0, |t| t.confidence);
        let by_situation = c.hit.as_ref().and_then(|h| h.learned.applies.as_ref());
        let own = c.relevance().max(by_rule).max(by_situation.map_or(0.0, |m| m.closeness));
        starts.insert(c.id.clone(), by_situation.filter(|m| m.closeness >= c.relevance().max(by_rule)).map(|m| m.situation.clone()));
        seeds.push((c.id.clone(), own));
    }
    seeds.sort_by(|a, b| a.0.cmp(&b.0));
    let edges = |node: &str| situations.between_of(node).into_iter().map(|(t, s)| (t, graph::carries(s))).filter(|(_, w)| *w > 0.0).collect();
    let reached = graph::spread(&seeds, edges, spread);
    let mut newcomers: Vec<(String, Activation)> = Vec::new();
    for (id, r) in reached.into_iter().filter(|(_, r)| r.path.len() >= 2) {
        let mut path = r.path.clone();
        if let Some(Some(situation)) = starts.get(&path[0]) {
            path.insert(0, situation.clone());
        }
        let from = path.iter().rev().nth(1).and_then(|p| out.get(p).map(|c| c.text.clone()).or_else(|| lookup.memory(p).map(|m| m.text))).unwrap_or_default();
        let activation = Activation { value: r.activation, path, from };
        match out.get_mut(&id) {
            Some(c) => c.activation = Some(activation),
            None => newcomers.push((id, activation)),
        }
    }
    newcomers.sort_by(|a, b| b.1.value.total_cmp(&a.1.value).then_with(|| a.0.cmp(&b.0)));
    let mut added = 0;
    for (id, activation) in newcomers {
        if added >= ACTIVATED {
            break;
        }
        // Never outside the moment's projects, and never what is kept quiet.
        let Some(memory) = lookup.memory(&id).filter(|m| ask.projects.contains(&m.project.as_str()) && lookup.audible(&m.id)) else { continue };
        let hit = retrieval.score(&ask.intent.words, &[id.as_str()]).into_iter().flatten().next();
        let vector = retrieval.vector_of(&id);
        let mut c = candidate(memory, hit, None, vector, now, ask, half_life_days);
        c.found = false;
        c.activation = Some(activation);
        out.insert(id, c);
        added += 1;
    }
}

/// Ids of the `k` closest hits by meaning and the `k` best by keywords.
fn leaders(found: &[Hit], k: usize) -> std::collections::HashSet<String> {
    let mut by_meaning: Vec<(f64, &Hit)> = found.iter().filter_map(|h| h.closeness().map(|(m, _)| (m, h))).collect();
    by_meaning.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.id.cmp(&b.1.id)));
    let mut by_words: Vec<&Hit> = found.iter().filter(|h| h.lexical > 0.0).collect();
    by_words.sort_by(|a, b| b.lexical.total_cmp(&a.lexical).then_with(|| a.id.cmp(&b.id)));
    by_meaning.into_iter().map(|(_, h)| h).take(k).chain(by_words.into_iter().take(k)).map(|h| h.id.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::advisor::choose::{choose, Considered};
    use crate::advisor::explain::Verdict;
    use crate::advisor::policy::{Gates, Policy};
    use crate::config::rules::TriggerRules;
    use crate::config::Tuneables;
    use crate::retrieval::hybrid::Fusion;
    use crate::retrieval::lexical::{FieldWeights, LexicalDoc, LexicalIndex};
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
            gates: Gates { min_similarity: 0.4, min_fusion_score: 0.4, model: crate::advisor::decision::known_model(), ..Gates::from_settings(&Tuneables::default()) },
            mmr_lambda: 0.5,
            mmr_duplicate: 0.9,
            min_relative_score: 0.0,
            category_caps: HashMap::new(),
            default_category_cap: 2,
            limit,
            recency_half_life_days: 30.0,
        }
    }

    /// Every candidate for an event, without embeddings.
    fn candidates(index: &LexicalIndex, lookup: &HashMap<String, Memory>, words: &str, raw: &str, rules: &[TriggerRule], salience: &Salience) -> Vec<Candidate> {
        let fusion = Fusion { weight_similarity: 0.7, similarity_floor: 0.15, similarity_ceiling: 0.9, words_exponent: 1.0 };
        let retrieval = Retrieval { lexical: index, semantic: None, fusion, learned: None, recall: None };
        let intent = Intent { words: words.into(), meaning: words.into(), ..Intent::default() };
        let ask = Ask { intent: &intent, salience: salience.clone(), raw, projects: &["/p", "global"], rules: &[rules], learned_confidence: 0.7, min_category_relevance: 0.1, seed_weight: 1.0, seed_basis: String::new(), spread: None };
        gather(&retrieval, lookup, &ask, None, time::macros::datetime!(2026-01-02 0:00 UTC), 30.0)
    }

    fn run(index: &LexicalIndex, lookup: &HashMap<String, Memory>, words: &str, raw: &str, rules: &[TriggerRule], salience: Salience) -> Considered {
        choose(candidates(index, lookup, words, raw, rules, &salience), &salience, false, &policy(2), |_| false)
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
        let rules = crate::config::rules::builtin();
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

        // The name is read beside the event's words, not only when they find nothing: the event
        // shares more words ("customers", "rows") with a lesson about notebooks than
        // with the one about SQL ("query"); the rule saw SQL built from input, and its name's
        // words lift that lesson over the other.
        let (index, lookup) = setup(&[
            memory("notebooks", "global", "Clear notebook outputs before committing; a cell once leaked customers' rows", "security"),
            memory("sql", "global", "Bind parameters: a query with SQL built by concatenating values lets injection in", "security"),
        ]);
        let rules = TriggerRules::parse("rules:\n  - name: sql_built_from_input\n    pattern: 'WHERE'\n    surface: [category:security]\n    priority: high\n", "t.yaml").unwrap().rules;
        let raw = "const rows = await db.query(\"SELECT * FROM orders WHERE id = '\" + id + \"'\")";
        let found = candidates(&index, &lookup, &format!("edit src/routes/customers.ts: {raw}"), raw, &rules, &PUSH);
        let picked: Vec<&str> = found.iter().filter(|c| c.trigger.is_some()).map(|c| c.id.as_str()).collect();
        assert_eq!(picked, vec!["sql"], "{:?}", found.iter().map(|c| (&c.id, c.hit.as_ref().map(|h| h.relevance))).collect::<Vec<_>>());
        assert_eq!(rule_words("sql_built_from_input", "security"), "sql built");
    }

    #[test]
    fn a_lesson_that_names_what_the_rule_saw_is_picked_and_the_users_before_the_seeds() {
        // The edit shares no word with the lesson ("customers", not "users"): the rule's name
        // ("sql") is enough. With the seed pack's lesson on SQL beside it, the user's own speaks.
        let mut seed = memory("seed-sql", "global", "Build SQL with bound parameters, never by pasting user input into the query string", "security");
        seed.source = SEED_SOURCE.into();
        let rules = TriggerRules::parse("rules:\n  - name: sql_built_from_input\n    pattern: 'WHERE'\n    surface: [category:security]\n    priority: high\n", "t.yaml").unwrap().rules;
        let raw = "connection.execute(\"SELECT * FROM customers WHERE name = '#{term}'\")";
        let words = format!("edit app/models/customer.rb: {raw}");
        let own = memory("own", "/p", "Build SQL with parameterised queries; never format user input into SQL strings", "security");
        for lessons in [vec![own.clone()], vec![own.clone(), seed.clone()]] {
            let (index, lookup) = setup(&lessons);
            let found = candidates(&index, &lookup, &words, raw, &rules, &PUSH);
            let picked: Vec<&str> = found.iter().filter(|c| c.trigger.is_some()).map(|c| c.id.as_str()).collect();
            assert_eq!(picked, vec!["own"], "{} lessons", lessons.len());
        }
        // A seed alone is picked as before.
        let (index, lookup) = setup(&[seed]);
        let found = candidates(&index, &lookup, &words, raw, &rules, &PUSH);
        assert!(found.iter().any(|c| c.id == "seed-sql" && c.trigger.is_some()));
    }

    #[test]
    fn a_category_with_nothing_about_the_event_surfaces_nothing() {
        let (index, lookup) = setup(&[memory("tz", "global", "Store timestamps in UTC and convert at the edges", "destructive")]);
        let out = run(&index, &lookup, "Discard local changes git checkout -- . && git reset --hard", "git reset --hard", crate::config::rules::builtin(), PUSH);
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
        let fusion = Fusion { weight_similarity: 0.7, similarity_floor: 0.15, similarity_ceiling: 0.9, words_exponent: 1.0 };
        let retrieval = Retrieval { lexical: &index, semantic: None, fusion, learned: None, recall: None };
        let intent = Intent { words: "force push to main".into(), meaning: String::new(), ..Intent::default() };
        let ask = Ask { intent: &intent, salience: PUSH, raw: "", projects: &["global"], rules: &[], learned_confidence: 0.7, min_category_relevance: 0.1, seed_weight: 1.0, seed_basis: String::new(), spread: None };
        let now = time::macros::datetime!(2026-01-02 0:00 UTC);
        let mut p = policy(2);
        p.gates.min_matched_terms = 1;
        p.gates.min_similarity = 0.01;
        p.gates.min_fusion_score = 0.01;
        let all = choose(gather(&retrieval, &lookup, &ask, None, now, 30.0), &PUSH, false, &p, |_| false);
        assert_eq!(all.said.len(), 2, "without a relative bar both are said");
        p.min_relative_score = 0.6;
        let out = choose(gather(&retrieval, &lookup, &ask, None, now, 30.0), &PUSH, false, &p, |_| false);
        assert_eq!(out.said.iter().map(|s| s.candidate.id.as_str()).collect::<Vec<_>>(), vec!["strong"]);
        assert!(out.not_said.iter().any(|(s, v)| s.candidate.id == "weak" && matches!(v, Verdict::Outshone(_))));
    }

    /// A lookup that keeps some memories quiet.
    struct Muting<'a> {
        memories: &'a HashMap<String, Memory>,
        muted: &'a [&'a str],
    }

    impl MemoryLookup for Muting<'_> {
        fn memory(&self, id: &str) -> Option<Memory> {
            self.audible(id).then(|| self.memories.get(id).cloned()).flatten()
        }
        fn audible(&self, id: &str) -> bool {
            !self.muted.contains(&id)
        }
    }

    #[test]
    fn the_leaders_are_chosen_among_what_may_be_said() {
        // Five muted lessons match the words best; the one lesson that may be said is further
        // down, and with room for one leader it must still be the one read.
        let mut mems: Vec<Memory> = (0..5).map(|i| memory(&format!("m{i}"), "global", "rotate the vault api tokens monthly", "security")).collect();
        mems.push(memory("own", "global", "rotate api tokens", "security"));
        let (index, lookup) = setup(&mems);
        let fusion = Fusion { weight_similarity: 0.7, similarity_floor: 0.15, similarity_ceiling: 0.9, words_exponent: 1.0 };
        let retrieval = Retrieval { lexical: &index, semantic: None, fusion, learned: None, recall: None };
        let intent = Intent { words: "rotate the vault api tokens monthly".into(), meaning: String::new(), ..Intent::default() };
        let ask = Ask { intent: &intent, salience: PUSH, raw: "", projects: &["global"], rules: &[], learned_confidence: 0.7, min_category_relevance: 0.1, seed_weight: 1.0, seed_basis: String::new(), spread: None };
        let now = time::macros::datetime!(2026-01-02 0:00 UTC);
        let quiet = Muting { memories: &lookup, muted: &["m0", "m1", "m2", "m3", "m4"] };
        let ids: Vec<String> = gather(&retrieval, &quiet, &ask, Some(1), now, 30.0).into_iter().map(|c| c.id).collect();
        assert_eq!(ids, vec!["own"]);
        let all: Vec<String> = gather(&retrieval, &lookup, &ask, Some(1), now, 30.0).into_iter().map(|c| c.id).collect();
        assert_eq!(all.len(), 1, "one leader by words (none by meaning without embeddings): {all:?}");
    }

    #[test]
    fn limits_and_cooldowns_hold() {
        let mems: Vec<Memory> = (0..6).map(|i| memory(&format!("m{i}"), "global", &format!("rotate the api tokens monthly, rule {i} of the vault {}", ["alpha", "beta", "gamma", "delta", "echo", "golf"][i]), &format!("c{i}"))).collect();
        let (index, lookup) = setup(&mems);
        let fusion = Fusion { weight_similarity: 0.7, similarity_floor: 0.15, similarity_ceiling: 0.9, words_exponent: 1.0 };
        let retrieval = Retrieval { lexical: &index, semantic: None, fusion, learned: None, recall: None };
        let intent = Intent { words: "rotate api tokens monthly vault".into(), meaning: String::new(), ..Intent::default() };
        let ask = Ask { intent: &intent, salience: PUSH, raw: "", projects: &["global"], rules: &[], learned_confidence: 0.7, min_category_relevance: 0.1, seed_weight: 1.0, seed_basis: String::new(), spread: None };
        let now = time::macros::datetime!(2026-01-02 0:00 UTC);
        let gathered = gather(&retrieval, &lookup, &ask, None, now, 30.0);
        assert!(gathered.len() >= 3);
        let out = choose(gathered.clone(), &PUSH, false, &policy(2), |_| false);
        assert_eq!(out.said.len(), 2, "a tool call gets at most two");
        assert!(out.not_said.iter().any(|(_, v)| *v == Verdict::OverLimit));
        let first: Vec<String> = out.said.iter().map(|s| s.candidate.id.clone()).collect();
        let again = choose(gathered, &PUSH, false, &policy(2), |id| first.contains(&id.to_string()));
        assert!(again.said.iter().all(|s| !first.contains(&s.candidate.id)), "cooled-down items are not repeated");
        assert_eq!(again.not_said.iter().filter(|(_, v)| *v == Verdict::Cooldown).count(), 2);
    }

    #[test]
    fn activation_spreads_from_the_moments_lessons_along_their_edges() {
        use crate::retrieval::situations::{Moment, Situations};
        use crate::retrieval::LearnedQuery;
        use cairn_proto::EdgeKind;
        let (index, lookup) = setup(&[
            memory("push", "global", "Never force-push to main; open a pull request instead", "git"),
            memory("review", "global", "Ask a second reviewer for changes to the billing code", "process"),
            memory("far", "/other", "Tag the release after the merge", "process"),
            memory("weak", "global", "Squash fixup commits before asking for review", "git"),
        ]);
        let mut situations = Situations::default();
        situations.set_between("push", "review", EdgeKind::Manual, Some(0.95));
        situations.set_between("push", "far", EdgeKind::Manual, Some(0.95));
        // At 0.5 an edge carries nothing: an automatic co_used edge is no evidence yet.
        situations.set_between("push", "weak", EdgeKind::CoUsed, Some(0.50001));
        let fusion = Fusion { weight_similarity: 0.7, similarity_floor: 0.15, similarity_ceiling: 0.9, words_exponent: 1.0 };
        let words = "git push --force origin main";
        let moment = situations.prepare(Moment::new("/p", words, None), 0.5);
        let retrieval = Retrieval { lexical: &index, semantic: None, fusion, learned: Some(LearnedQuery { situations: &situations, moment, floor: 0.5 }), recall: None };
        let intent = Intent { words: words.into(), meaning: words.into(), ..Intent::default() };
        let spread = Spread { decay: 0.5, floor: 0.1, hops: 2 };
        let ask = Ask { intent: &intent, salience: PUSH, raw: words, projects: &["/p", "global"], rules: &[], learned_confidence: 0.7, min_category_relevance: 0.1, seed_weight: 1.0, seed_basis: String::new(), spread: Some(spread) };
        let now = time::macros::datetime!(2026-01-02 0:00 UTC);
        let got = gather(&retrieval, &lookup, &ask, None, now, 30.0);
        let push = got.iter().find(|c| c.id == "push").expect("found by its words");
        let review = got.iter().find(|c| c.id == "review").expect("brought in by the edge");
        let a = review.activation.as_ref().unwrap();
        assert!((a.value - push.relevance() * 0.9 * 0.5).abs() < 1e-9, "{a:?}");
        assert_eq!((a.path.clone(), review.path()), (vec!["push".to_string(), "review".into()], vec!["push".to_string(), "review".into()]));
        assert!(a.from.starts_with("Never force-push"));
        assert!(!got.iter().any(|c| c.id == "far"), "another project's lesson is never activated");
        assert!(got.iter().all(|c| c.id != "weak" || c.activation.is_none()), "a neutral edge carries nothing: {:?}", got.iter().map(|c| (&c.id, c.relevance(), &c.activation)).collect::<Vec<_>>());
        // The decision weighs it, and `why` says where it came from.
        let scored = crate::advisor::fuse::fuse(review.clone(), &PUSH, false, &policy(2).gates);
        assert!(scored.why.contains("learned: linked from 'Never force-push"), "{}", scored.why);
        assert_eq!(scored.signals.get("activation").copied(), Some(a.value));
        // No spreading asked for: nothing activated.
        let off = Ask { spread: None, ..ask };
        assert!(gather(&retrieval, &lookup, &off, None, now, 30.0).iter().all(|c| c.activation.is_none() && c.id != "review"));
    }
}
