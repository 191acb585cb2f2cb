//! Advice benchmark (not a test): a labelled set of lessons and Claude Code hook events (each
//! labelled with the lessons worth saying, or none) run through the daemon's own advisor, in
//! process: intent, salience, trigger rules, hybrid retrieval with the real model, example
//! moments, the learned decision, MMR, category caps, limits and the character budget.
//!
//! - default: `tests/data/advice-set.json` with the shipped decision (`--model FILE` weighs with
//!   another), reported for the held-out part (`report`) and for all, beside two baselines run
//!   the same way: keywords alone (no embeddings: the keywords-only model) and plain cosine
//!   top-k at 0.30 on the raw input;
//! - `--fit`: fits the decision on the `tune` parts only (of the advice set and of
//!   `tests/data/fresh-set.json`, the seed pack's) and writes `daemon/src/advisor/decision.json`
//!   (both models, their operating points, and the provenance). The penalty is chosen by
//!   five-fold cross-validation over the tune events, and the operating point on out-of-fold
//!   decisions, so that neither is chosen on answers the model was fitted to. For trials,
//!   `--fit-batches A,B` adds batches over the advice set's lessons, whole, as tune data, and
//!   `--out FILE` writes the model elsewhere (weigh with it by `--model FILE`);
//! - `--fresh FILE`: a fresh install: the seed pack is the only set of lessons (with its example
//!   moments, or without them under `--no-examples`), events labelled with seed ids.
//!
//! Measures (DESIGN.md): hit rate = share of events that should get advice and got at least one
//! relevant item; emit accuracy = share of emitted items that are relevant; harmful emit rate =
//! share of events that should get none and got some; noise burden = share of all events whose
//! answer holds at least one irrelevant item.
//!
//! - `--extra FILE`: more events over the same lessons (the fresh held-out batch), reported apart.
//!
//! Run: `cargo run --release -p cairn-tests --bin cairn-advice-bench -- [--set FILE] [--extra FILE] [--models DIR] [--model FILE] [--fit [--fit-batches A,B] [--out FILE]] [--fresh FILE [--no-examples]] [--show] [--dump FILE]`

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use cairn_daemon::advisor::candidate::Candidate;
use cairn_daemon::advisor::choose::choose;
use cairn_daemon::advisor::decision::{self, Fitted, Inputs, Model, Moment, Provenance};
use cairn_daemon::advisor::format;
use cairn_daemon::advisor::gather::{gather, Ask};
use cairn_daemon::advisor::intent::{intent, raw_input};
use cairn_daemon::advisor::policy::{self, limits, Policy};
use cairn_daemon::advisor::salience::salience;
use cairn_daemon::advisor::seeds;
use cairn_daemon::app::advice::RAW_INPUT_CHARS;
use cairn_daemon::base::event::{EventKind, HookEvent};
use cairn_daemon::config::rules::{self, TriggerRule};
use cairn_daemon::config::Tuneables;
use cairn_daemon::retrieval::examples::{self, LessonExamples, Moment as ExampleMoment};
use cairn_daemon::retrieval::hybrid::Fusion;
use cairn_daemon::retrieval::lexical::{FieldWeights, LexicalDoc, LexicalIndex};
use cairn_daemon::retrieval::similarity::cosine;
use cairn_daemon::retrieval::vectors::VectorIndex;
use cairn_daemon::retrieval::{Retrieval, SemanticQuery};
use cairn_daemon::semantic::embed::{embedding_text, Embedder, ModelSpec};
use cairn_proto::Memory;
use cairn_tests::{arg, flag};
use serde_json::Value;
use sha2::{Digest, Sha256};

struct Event {
    id: String,
    tune: bool,
    hook: HookEvent,
    expect: HashSet<String>,
    note: String,
}

impl Event {
    fn prompt(&self) -> bool {
        self.hook.kind == EventKind::UserPromptSubmit
    }
}

/// One labelled event's answer: the ids said.
type Said = Vec<String>;

#[derive(Debug, Default, Clone, Copy)]
struct Metrics {
    hit_rate: f64,
    emit_accuracy: f64,
    harmful_emit_rate: f64,
    noise_burden: f64,
    emitted: usize,
    relevant: usize,
    events: usize,
}

fn measure(events: &[&Event], answers: &[&Said]) -> Metrics {
    let (mut positives, mut hits, mut negatives, mut harmful, mut emitted, mut relevant, mut noisy) = (0, 0, 0, 0, 0, 0, 0);
    for (e, said) in events.iter().zip(answers) {
        let good = said.iter().filter(|id| e.expect.contains(*id)).count();
        emitted += said.len();
        relevant += good;
        if good < said.len() {
            noisy += 1;
        }
        if e.expect.is_empty() {
            negatives += 1;
            harmful += usize::from(!said.is_empty());
        } else {
            positives += 1;
            hits += usize::from(good > 0);
        }
    }
    let ratio = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    Metrics {
        hit_rate: ratio(hits, positives),
        emit_accuracy: if emitted == 0 { 1.0 } else { ratio(relevant, emitted) },
        harmful_emit_rate: ratio(harmful, negatives),
        noise_burden: ratio(noisy, events.len()),
        emitted,
        relevant,
        events: events.len(),
    }
}

fn memory_from(v: &Value) -> Memory {
    let strings = |key: &str| -> Vec<String> { v[key].as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect() };
    let mut m = cairn_daemon::exchange::new_memory(
        v["id"].as_str().expect("memory id").to_string(),
        cairn_proto::GLOBAL_PROJECT.to_string(),
        v["text"].as_str().expect("memory text").to_string(),
        v["category"].as_str().unwrap_or("general").to_string(),
        "user".to_string(),
        strings("tags"),
        v["context"].as_str().unwrap_or_default().to_string(),
    );
    m.examples = strings("examples");
    m.not_examples = strings("not_examples");
    // Every lesson equally old (a month before the bench's clock: recency 0.5, the same small
    // lift for every candidate, which the fit's intercept absorbs); in use a lesson touched now
    // gets up to twice that lift, and an old one none.
    m.created_at = "2026-01-01T00:00:00Z".into();
    m.updated_at = "2026-01-01T00:00:00Z".into();
    m
}

/// Everything the advisor needs, built once: indexes, vectors, and per event its query vector.
struct World {
    lexical: LexicalIndex,
    graphs: VectorIndex,
    memories: HashMap<String, Memory>,
    vectors: HashMap<String, Vec<f32>>,
    /// Per event: the intent's embedding, and the raw input's (for the plain-cosine baseline).
    queries: Vec<(Vec<f32>, Vec<f32>)>,
    /// The seed pack's rules take part (a fresh home).
    seed_rules: bool,
}

fn build_world(embedder: &Embedder, memories: &[Memory], events: &[Event], seed_rules: bool) -> World {
    let mut lexical = LexicalIndex::new(FieldWeights::default());
    let mut graphs = VectorIndex::new(embedder.dimension(), &embedder.facts().fingerprint);
    let texts: Vec<String> = memories.iter().map(embedding_text).collect();
    let vectors = embedder.embed(&texts.iter().map(String::as_str).collect::<Vec<_>>()).expect("embed memories");
    let mut by_id = HashMap::new();
    for (i, (m, v)) in memories.iter().zip(&vectors).enumerate() {
        lexical.upsert(&LexicalDoc { id: &m.id, project: &m.project, text: &m.text, context: &m.context, tags: &m.tags, category: &m.category });
        graphs.upsert(&m.id, &m.project, i as u64 + 1, v).expect("index");
        by_id.insert(m.id.clone(), v.clone());
        if !m.examples.is_empty() || !m.not_examples.is_empty() {
            let embed = |of: &[String]| -> Vec<ExampleMoment> {
                let refs: Vec<&str> = of.iter().map(String::as_str).collect();
                if refs.is_empty() {
                    return Vec::new();
                }
                of.iter().zip(embedder.embed(&refs).expect("embed examples")).map(|(t, v)| ExampleMoment { text: t.clone(), vector: v }).collect()
            };
            let e = LessonExamples { project: m.project.clone(), hash: examples::hash(&m.project, &m.examples, &m.not_examples), applies: embed(&m.examples), not: embed(&m.not_examples) };
            graphs.set_examples(&m.id, Some(e)).expect("examples");
        }
    }
    let queries = events
        .iter()
        .map(|e| {
            let meaning = intent(&e.hook).meaning;
            let raw: String = raw_input(&e.hook, 2000).chars().take(1000).collect();
            let mut v = embedder.embed(&[&meaning, &raw]).expect("embed queries");
            let raw_v = v.pop().expect("two");
            (v.pop().expect("two"), raw_v)
        })
        .collect();
    World { lexical, graphs, memories: memories.iter().map(|m| (m.id.clone(), m.clone())).collect(), vectors: by_id, queries, seed_rules }
}

/// Most items and characters for an event, as the daemon reads them (every event of a set
/// carries advice).
fn limits_of(t: &Tuneables, e: &Event) -> (usize, usize) {
    limits(t, &e.hook.kind).expect("an event that carries advice")
}

/// The candidates of every event under `t` (semantic on or off), gathered as the daemon does.
fn gather_all(world: &World, events: &[Event], t: &Tuneables, semantic: bool, triggers: bool) -> Vec<Vec<Candidate>> {
    let now = time::macros::datetime!(2026-02-01 0:00 UTC);
    let fusion = Fusion::ADVICE;
    let rules: Vec<TriggerRule> = if triggers { rules::effective(&[], t.triggers.builtin_rules) } else { Vec::new() };
    let mut sets: Vec<&[TriggerRule]> = if triggers { vec![&rules] } else { Vec::new() };
    if triggers && world.seed_rules {
        sets.push(seeds::rules());
    }
    events
        .iter()
        .zip(&world.queries)
        .map(|(e, (qv, _))| {
            let retrieval = Retrieval { lexical: &world.lexical, semantic: semantic.then_some(SemanticQuery { vector: qv, index: &world.graphs }), fusion, learned: None, recall: None };
            let i = intent(&e.hook);
            let raw = raw_input(&e.hook, RAW_INPUT_CHARS);
            let ask = Ask {
                intent: &i,
                salience: salience(&e.hook),
                raw: &raw,
                projects: &["/project", "global"],
                rules: &sets,
                learned_confidence: t.triggers.learned_confidence,
                min_category_relevance: t.triggers.min_category_relevance,
                seed_weight: 1.0,
                seed_basis: "a fresh home".into(),
                spread: None,
            };
            gather(&retrieval, &world.memories, &ask, Some(policy::LEADERS), now, t.ranking.recency_half_life_days)
        })
        .collect()
}

/// What the advisor says for each event under `t`, weighing with `model_of(event index)`,
/// budget included.
fn decide_with<'m>(events: &[Event], candidates: &[Vec<Candidate>], t: &Tuneables, model_of: impl Fn(usize) -> &'m Model) -> Vec<Said>
where
    'm: 'static,
{
    events
        .iter()
        .zip(candidates)
        .enumerate()
        .map(|(i, (e, c))| {
            let (limit, budget) = limits_of(t, e);
            let mut p = Policy::from_settings(t, limit);
            p.gates.model = model_of(i);
            let considered = choose(c.clone(), &salience(&e.hook), e.prompt(), &p, |_| false);
            let lines: Vec<format::Line<'_>> = considered.said.iter().map(|s| format::Line { category: &s.candidate.category, text: &s.candidate.text, why: &s.short_why }).collect();
            let shown = format::render(&lines, budget).map_or(0, |(_, n)| n);
            considered.said.iter().take(shown).map(|s| s.candidate.id.clone()).collect()
        })
        .collect()
}

/// The reference from the issue: the raw input embedded, the top k memories at cosine 0.30.
fn plain_cosine(world: &World, events: &[Event], t: &Tuneables) -> Vec<Said> {
    events
        .iter()
        .zip(&world.queries)
        .map(|(e, (_, raw_vector))| {
            let (limit, _) = limits_of(t, e);
            let mut scored: Vec<(f32, &String)> = world.vectors.iter().map(|(id, v)| (cosine(raw_vector, v), id)).filter(|(c, _)| *c >= 0.30).collect();
            scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
            scored.into_iter().take(limit).map(|(_, id)| id.clone()).collect()
        })
        .collect()
}

fn report(name: &str, events: &[Event], said: &[Said]) -> (Metrics, Metrics) {
    let pick = |tune: Option<bool>| -> (Vec<&Event>, Vec<&Said>) { events.iter().zip(said).filter(|(e, _)| tune.is_none_or(|t| e.tune == t)).unzip() };
    let (he, hs) = pick(Some(false));
    let (ae, as_) = pick(None);
    let (held, all) = (measure(&he, &hs), measure(&ae, &as_));
    println!(
        "| {name} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
        held.hit_rate, held.emit_accuracy, held.harmful_emit_rate, held.noise_burden, all.hit_rate, all.emit_accuracy, all.harmful_emit_rate, all.noise_burden
    );
    (held, all)
}

/// The figures of events whose id falls in `from..=to` (both `eNNN` or `fNNN`), of one part.
fn part_row(name: &str, events: &[Event], said: &[Said], tune: Option<bool>, from: &str, to: &str) {
    let (es, ss): (Vec<&Event>, Vec<&Said>) = events.iter().zip(said).filter(|(e, _)| tune.is_none_or(|t| e.tune == t) && e.id.as_str() >= from && e.id.as_str() <= to).unzip();
    if es.is_empty() {
        return;
    }
    let m = measure(&es, &ss);
    let with = es.iter().filter(|e| !e.expect.is_empty()).count();
    println!("| {name} | {} ({with}) | {:.2} | {:.2} ({} of {}) | {:.2} | {:.2} |", m.events, m.hit_rate, m.emit_accuracy, m.relevant, m.emitted, m.harmful_emit_rate, m.noise_burden);
}

fn load_events(set: &Value) -> Vec<Event> {
    set["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| Event {
            id: e["id"].as_str().unwrap_or_default().to_string(),
            tune: e["split"] == "tune",
            hook: HookEvent::from_payload(&e["payload"]),
            expect: e["expect"].as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect(),
            note: e["note"].as_str().unwrap_or_default().to_string(),
        })
        .collect()
}

fn main() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("repo root").to_path_buf();
    let fresh = arg("--fresh").map(PathBuf::from);
    let set_path = fresh.clone().or_else(|| arg("--set").map(PathBuf::from)).unwrap_or_else(|| repo.join("tests/data/advice-set.json"));
    let set_bytes = std::fs::read(&set_path).unwrap_or_else(|e| panic!("{}: {e}", set_path.display()));
    let set: Value = serde_json::from_slice(&set_bytes).expect("set json");
    let models = arg("--models")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("CAIRN_MODEL_DIR").map(PathBuf::from))
        .unwrap_or_else(|| cairn_proto::Paths::from_env().expect("paths").models_dir);
    let mut t = Tuneables::default();
    // Overrides, to look at other settings without a rebuild.
    for (name, slot) in [("--min-fusion", &mut t.ranking.min_fusion_score as *mut f64), ("--min-relative", &mut t.ranking.min_relative_score as *mut f64), ("--category-floor", &mut t.triggers.min_category_relevance as *mut f64)] {
        if let Some(v) = arg(name).and_then(|v| v.parse::<f64>().ok()) {
            // SAFETY: each pointer is to a distinct field of `t`, alive and not otherwise borrowed here.
            unsafe { *slot = v };
        }
    }
    let model: &'static Model = match arg("--model") {
        Some(path) => Box::leak(Box::new(serde_json::from_slice(&std::fs::read(&path).expect("model file")).expect("model json"))),
        None => Model::builtin(),
    };
    if arg("--min-fusion").is_none() {
        t.ranking.min_fusion_score = model.with_embeddings.threshold;
    }
    let embedder = Embedder::load(&ModelSpec::builtin(&models, t.model.max_tokens, t.model.threads)).unwrap_or_else(|e| panic!("{e}: {}", e.fix()));

    let memories: Vec<Memory> = if fresh.is_some() {
        let now = "2026-01-01T00:00:00Z";
        seeds::pack()
            .iter()
            .map(|s| {
                let mut m = seeds::memory_of(s, now);
                if flag("--no-examples") {
                    (m.examples, m.not_examples) = (Vec::new(), Vec::new());
                }
                m
            })
            .collect()
    } else {
        set["memories"].as_array().expect("memories").iter().map(memory_from).collect()
    };
    let mut events = load_events(&set);
    // A batch of more events over the same lessons (a fresh held-out batch), reported apart by
    // its ids' range.
    let mut extra_ids: Option<(String, String)> = None;
    if let Some(extra) = arg("--extra") {
        let batch: Value = serde_json::from_slice(&std::fs::read(&extra).unwrap_or_else(|e| panic!("{extra}: {e}"))).expect("batch json");
        let added = load_events(&batch);
        extra_ids = added.iter().map(|e| e.id.clone()).min().zip(added.iter().map(|e| e.id.clone()).max());
        events.extend(added);
    }
    let world = build_world(&embedder, &memories, &events, fresh.is_some());

    let (tune_n, held_n) = (events.iter().filter(|e| e.tune).count(), events.iter().filter(|e| !e.tune).count());
    let negatives = events.iter().filter(|e| e.expect.is_empty()).count();
    println!("advice set {}: {} lessons, {} events ({tune_n} tune, {held_n} held out), {negatives} should get no advice", set_path.display(), memories.len(), events.len());
    println!(
        "decision: fitted on {} ({} events, {} rows), bar {:.2} (keywords only {:.2})",
        model.provenance.part, model.provenance.events, model.provenance.rows, t.ranking.min_fusion_score, model.words_only.threshold
    );

    if flag("--recall") {
        // How well each query text ranks the right lesson by plain cosine, over events that
        // should get advice: recall at 1 and 3, and the AUC over all event-lesson pairs.
        for (name, pick) in [("intent meaning", 0usize), ("raw input", 1usize)] {
            let (mut r1, mut r3, mut n) = (0, 0, 0);
            let (mut pos, mut neg): (Vec<f32>, Vec<f32>) = (Vec::new(), Vec::new());
            for (e, q) in events.iter().zip(&world.queries) {
                let qv = if pick == 0 { &q.0 } else { &q.1 };
                let mut scored: Vec<(f32, &String)> = world.vectors.iter().map(|(id, v)| (cosine(qv, v), id)).collect();
                scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
                for (c, id) in &scored {
                    if e.expect.contains(*id) { pos.push(*c) } else { neg.push(*c) }
                }
                if e.expect.is_empty() {
                    continue;
                }
                n += 1;
                r1 += usize::from(scored.iter().take(1).any(|(_, id)| e.expect.contains(*id)));
                r3 += usize::from(scored.iter().take(3).any(|(_, id)| e.expect.contains(*id)));
            }
            let wins: f64 = pos.iter().map(|p| neg.iter().map(|q| if p > q { 1.0 } else if p == q { 0.5 } else { 0.0 }).sum::<f64>()).sum();
            println!("{name}: recall@1 {:.2} recall@3 {:.2} AUC {:.3} over {n} events", r1 as f64 / n as f64, r3 as f64 / n as f64, wins / (pos.len() as f64 * neg.len() as f64));
        }
        return;
    }

    if flag("--fit") {
        assert!(fresh.is_none() && arg("--extra").is_none() && arg("--set").is_none(), "--fit reads the shipped sets' tune parts alone: no --fresh, --extra or --set");
        // The fit reads the tune parts of both sets: the advice set (the user's own lessons), with
        // for trials the batches `--fit-batches` names (every event of theirs tune data), and the
        // fresh-install set (the seed pack, with its example moments).
        let batches: Vec<PathBuf> = arg("--fit-batches").unwrap_or_default().split(',').filter(|f| !f.is_empty()).map(PathBuf::from).collect();
        let mut files = vec![(set_path.clone(), set_bytes.clone())];
        // Without batches the set's own world serves; with them, one over every event.
        let (built_world, built_events): (World, Vec<Event>);
        let (fit_world, fit_events) = if batches.is_empty() {
            (&world, &events)
        } else {
            let mut all = load_events(&set);
            for batch in batches {
                let bytes = std::fs::read(&batch).unwrap_or_else(|e| panic!("{}: {e}", batch.display()));
                let mut added = load_events(&serde_json::from_slice(&bytes).expect("batch json"));
                added.iter_mut().for_each(|e| e.tune = true);
                all.extend(added);
                files.push((batch, bytes));
            }
            (built_world, built_events) = (build_world(&embedder, &memories, &all, false), all);
            (&built_world, &built_events)
        };
        let fresh_path = repo.join("tests/data/fresh-set.json");
        let fresh_bytes = std::fs::read(&fresh_path).expect("fresh set");
        let fresh_set: Value = serde_json::from_slice(&fresh_bytes).expect("fresh set json");
        let fresh_events = load_events(&fresh_set);
        let seed_memories: Vec<Memory> = seeds::pack().iter().map(|s| seeds::memory_of(s, "2026-01-01T00:00:00Z")).collect();
        let fresh_world = build_world(&embedder, &seed_memories, &fresh_events, true);
        let sets = [Labelled { world: fit_world, events: fit_events, files }, Labelled { world: &fresh_world, events: &fresh_events, files: vec![(fresh_path, fresh_bytes)] }];
        let fitted = fit(&sets, &t, &repo);
        // `--out FILE` writes the model elsewhere (to weigh with `--model FILE`), for trials.
        let path = arg("--out").map(PathBuf::from).unwrap_or_else(|| repo.join("daemon/src/advisor/decision.json"));
        std::fs::write(&path, serde_json::to_string_pretty(&fitted).expect("model serialises") + "\n").expect("write decision.json");
        println!("wrote {} (rebuild, and set ranking.min_fusion_score's default to {:.2})", path.display(), fitted.with_embeddings.threshold);
        return;
    }

    let cairn_candidates = gather_all(&world, &events, &t, true, true);
    let cairn = decide_with(&events, &cairn_candidates, &t, |_| model);
    let keyword = decide_with(&events, &gather_all(&world, &events, &t, false, true), &t, |_| model);
    let plain = plain_cosine(&world, &events, &t);

    println!("\n| advisor | held-out hit rate | held-out emit accuracy | held-out harmful emit rate | held-out noise burden | all: hit rate | all: emit accuracy | all: harmful | all: noise |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    let (held, _) = report("cairn (defaults)", &events, &cairn);
    report("keywords and rules only (no embeddings: the keywords-only model)", &events, &keyword);
    report("plain cosine top-k >= 0.30 on the raw input", &events, &plain);
    println!("\nheld out: {} events, {} items emitted", held.events, held.emitted);

    println!("\n| part | events (with a lesson) | hit rate | emit accuracy (items) | harmful | noise |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    if fresh.is_some() {
        part_row("tune", &events, &cairn, Some(true), "", "~");
        part_row("held out", &events, &cairn, Some(false), "", "~");
    } else {
        part_row("tune", &events, &cairn, Some(true), "", "~");
        part_row("held out, e001-e110", &events, &cairn, Some(false), "e001", "e110");
        part_row("held out, e111-e136", &events, &cairn, Some(false), "e111", "e136");
        part_row("held out, e137-e166", &events, &cairn, Some(false), "e137", "e166");
        part_row("held out, e167-e316", &events, &cairn, Some(false), "e167", "e316");
        if let Some((first, last)) = &extra_ids {
            part_row(&format!("fresh batch {first}-{last} (--extra)"), &events, &cairn, Some(false), first, last);
        }
        part_row("held out, e001-e316", &events, &cairn, Some(false), "e000", "e999");
    }

    if let Some(path) = arg("--dump") {
        // Every event's weighed candidates with their signals, for looking at distributions.
        let mut lines = Vec::new();
        for (e, cands) in events.iter().zip(&cairn_candidates) {
            let (limit, _) = limits_of(&t, e);
            let mut p = Policy::from_settings(&t, limit);
            p.gates.model = model;
            p.gates.min_fusion_score = 0.0;
            let c = choose(cands.clone(), &salience(&e.hook), e.prompt(), &p, |_| false);
            let all: Vec<Value> = c.said.iter().chain(c.not_said.iter().map(|(s, _)| s)).map(|s| serde_json::json!({
                "id": s.candidate.id, "relevant": e.expect.contains(&s.candidate.id), "source": s.source.as_str(), "score": s.score,
                "signals": s.signals,
            })).collect();
            lines.push(serde_json::json!({"id": e.id, "tune": e.tune, "kind": e.hook.kind.name(), "tool": e.hook.tool_name, "meaning": intent(&e.hook).meaning, "salience": salience(&e.hook).score, "expect": e.expect, "candidates": all}).to_string());
        }
        std::fs::write(&path, lines.join("\n")).expect("dump");
    }
    if flag("--show") {
        for (e, said) in events.iter().zip(&cairn) {
            let good = said.iter().filter(|id| e.expect.contains(*id)).count();
            let mark = match (e.expect.is_empty(), said.is_empty(), good == said.len()) {
                (true, true, _) => "ok  ",
                (true, false, _) => "HARM",
                (false, true, _) => "miss",
                (false, false, true) => "ok  ",
                (false, false, false) => "NOISE",
            };
            println!("{mark} {} [{}] {} -> said {:?} expected {:?} ({})", e.id, if e.tune { "tune" } else { "held" }, intent(&e.hook).words.chars().take(90).collect::<String>(), said, e.expect, e.note.chars().take(80).collect::<String>());
        }
    }
}

/// A labelled set's events and their candidates, as the fit sees them.
struct Part<'a> {
    events: &'a [Event],
    candidates: Vec<Vec<Candidate>>,
}

/// Training rows: for each event `(part, index)` in `which`, every candidate the model would
/// weigh (one with embedding evidence for the embeddings model, one without for the
/// keywords-only model; not what a rule put forward, which speaks without it), with whether it
/// is relevant.
fn rows(parts: &[Part<'_>], which: &[(usize, usize)], with_meaning: bool) -> Vec<(Inputs, bool)> {
    let mut out = Vec::new();
    for &(p, i) in which {
        let e = &parts[p].events[i];
        let moment = Moment { salience: salience(&e.hook).score, prompt: e.prompt() };
        // What a rule put forward speaks without the model: the model learns from the rest.
        for c in parts[p].candidates[i].iter().filter(|c| !cairn_daemon::advisor::choose::by_rule(c)) {
            if decision::meaning(c).is_some() == with_meaning {
                out.push((decision::inputs(c, c.standing, moment), e.expect.contains(&c.id)));
            }
        }
    }
    out
}

fn log_loss(f: &Fitted, rows: &[(Inputs, bool)]) -> f64 {
    rows.iter()
        .map(|(x, y)| {
            let p = decision::sigmoid(f.logit(x)).clamp(1e-9, 1.0 - 1e-9);
            if *y { -p.ln() } else { -(1.0 - p).ln() }
        })
        .sum()
}

const FOLDS: usize = 5;
const PENALTIES: &[f64] = &[0.03, 0.1, 0.3, 1.0, 3.0, 10.0];

fn fitted(rows: &[(Inputs, bool)], l2: f64) -> Fitted {
    let (intercept, weights) = decision::fit(rows, l2);
    Fitted { intercept, weights, threshold: 0.5, l2 }
}

/// The tune events split into folds: the `k`th fold's training events and its test events.
/// An event of the fit: (labelled set, index in it).
type At = (usize, usize);

fn fold(tune: &[At], k: usize) -> (Vec<At>, Vec<At>) {
    let (mut train, mut test) = (Vec::new(), Vec::new());
    for (n, &e) in tune.iter().enumerate() {
        if n % FOLDS == k { test.push(e) } else { train.push(e) }
    }
    (train, test)
}

/// One of the two models: the penalty by cross-validated log loss over the tune events, the
/// model on every tune event, and out-of-fold models for choosing the operating point.
fn fit_one(parts: &[Part<'_>], tune: &[(usize, usize)], with_meaning: bool) -> (Fitted, Vec<Fitted>) {
    let mut best = (f64::INFINITY, 1.0);
    for &l2 in PENALTIES {
        let loss: f64 = (0..FOLDS)
            .map(|k| {
                let (train, test) = fold(tune, k);
                log_loss(&fitted(&rows(parts, &train, with_meaning), l2), &rows(parts, &test, with_meaning))
            })
            .sum();
        println!("  {} penalty {l2}: cross-validated log loss {loss:.1}", if with_meaning { "embeddings" } else { "keywords-only" });
        if loss < best.0 {
            best = (loss, l2);
        }
    }
    let l2 = best.1;
    let all = fitted(&rows(parts, tune, with_meaning), l2);
    let folds = (0..FOLDS).map(|k| fitted(&rows(parts, &fold(tune, k).0, with_meaning), l2)).collect();
    (all, folds)
}

/// The operating point, on out-of-fold answers over the tune events: the bar that meets the
/// targets (emit accuracy at least 0.85, harmful emit rate at most 0.10) with the most hits,
/// ties to the higher bar; failing that, the bar with the most hits among those whose own
/// harmful emit rate is at most 0.10. "Own": counting only what the model decided, not what a
/// rule put forward (rules speak whatever the bar, so their noise is theirs, not the bar's).
fn operating_point(parts: &[Part<'_>], tune: &[(usize, usize)], t: &Tuneables, model_of: &dyn Fn(usize, usize) -> &'static Model) -> (f64, Metrics) {
    let tune_events: Vec<&Event> = tune.iter().map(|&(p, i)| &parts[p].events[i]).collect();
    let negatives = tune_events.iter().filter(|e| e.expect.is_empty()).count().max(1);
    let mut tried: Vec<(f64, Metrics, f64)> = Vec::new();
    for step in 5..=95 {
        let bar = step as f64 / 100.0;
        let mut tb = t.clone();
        tb.ranking.min_fusion_score = bar;
        let said: Vec<Vec<Said>> = parts.iter().enumerate().map(|(p, part)| decide_with(part.events, &part.candidates, &tb, |i| model_of(p, i))).collect();
        let answers: Vec<&Said> = tune.iter().map(|&(p, i)| &said[p][i]).collect();
        let by_model = |p: usize, i: usize, id: &String| parts[p].candidates[i].iter().find(|c| &c.id == id).is_none_or(|c| !cairn_daemon::advisor::choose::by_rule(c));
        let own_harm = tune.iter().filter(|&&(p, i)| parts[p].events[i].expect.is_empty() && said[p][i].iter().any(|id| by_model(p, i, id))).count() as f64 / negatives as f64;
        tried.push((bar, measure(&tune_events, &answers), own_harm));
    }
    let meets = |m: &Metrics| m.emit_accuracy >= 0.85 && m.harmful_emit_rate <= 0.10 && m.emitted > 0;
    let pick = tried
        .iter()
        .filter(|(_, m, _)| meets(m))
        .max_by(|a, b| a.1.hit_rate.total_cmp(&b.1.hit_rate).then(a.0.total_cmp(&b.0)))
        .or_else(|| tried.iter().filter(|(_, m, own)| *own <= 0.10 && m.emitted > 0).max_by(|a, b| a.1.hit_rate.total_cmp(&b.1.hit_rate).then(a.0.total_cmp(&b.0))));
    for (bar, m, own) in tried.iter().filter(|(b, _, _)| ((b * 100.0).round() as i64) % 5 == 0) {
        println!("    bar {bar:.2}: out-of-fold tune hit {:.2} accuracy {:.2} harm {:.2} (the model's own {own:.2}) noise {:.2} ({} items)", m.hit_rate, m.emit_accuracy, m.harmful_emit_rate, m.noise_burden, m.emitted);
    }
    let (bar, m, _) = pick.expect("some bar says something");
    (*bar, *m)
}

/// A labelled set as the fit reads it: its world, events, and the files they came from (path
/// and bytes, for the provenance).
struct Labelled<'a> {
    world: &'a World,
    events: &'a [Event],
    files: Vec<(PathBuf, Vec<u8>)>,
}

fn fit(sets: &[Labelled<'_>], t: &Tuneables, repo: &Path) -> Model {
    let tune: Vec<(usize, usize)> = sets.iter().enumerate().flat_map(|(p, s)| (0..s.events.len()).filter(|&i| s.events[i].tune).map(move |i| (p, i))).collect();
    let fold_of_event: HashMap<(usize, usize), usize> = tune.iter().enumerate().map(|(n, &e)| (e, n % FOLDS)).collect();
    let leak = |m: Model| -> &'static Model { Box::leak(Box::new(m)) };
    let placeholder = Model::builtin().provenance.clone();
    let mut pieces: Vec<(Fitted, (f64, Metrics), usize, usize)> = Vec::new();
    for with_meaning in [true, false] {
        let parts: Vec<Part<'_>> = sets.iter().map(|s| Part { events: s.events, candidates: gather_all(s.world, s.events, t, with_meaning, true) }).collect();
        let (all, folds) = fit_one(&parts, &tune, with_meaning);
        // Out-of-fold: each tune event is weighed by the model fitted without its fold. Both
        // models of a fold carry bar 0.5, so the bar swept is the one that applies.
        let fold_models: Vec<&'static Model> = folds.into_iter().map(|f| leak(Model { version: 1, with_embeddings: f.clone(), words_only: f, provenance: placeholder.clone() })).collect();
        let model_of = |p: usize, i: usize| -> &'static Model { fold_models[fold_of_event.get(&(p, i)).copied().unwrap_or(0)] };
        println!("  operating point ({}):", if with_meaning { "embeddings" } else { "keywords only" });
        let point = operating_point(&parts, &tune, t, &model_of);
        println!("  chosen bar {:.2}: out-of-fold tune hit {:.2} accuracy {:.2} harm {:.2}", point.0, point.1.hit_rate, point.1.emit_accuracy, point.1.harmful_emit_rate);
        let rows_n = rows(&parts, &tune, with_meaning);
        let positives = rows_n.iter().filter(|(_, y)| *y).count();
        println!("  {} rows ({positives} relevant); weights: {:?}, intercept {:.3}", rows_n.len(), all.weights, all.intercept);
        pieces.push((all, point, rows_n.len(), positives));
    }
    let (mut words_only, words_point, _, _) = pieces.pop().expect("two");
    let (mut with_embeddings, point, rows_n, positives) = pieces.pop().expect("two");
    with_embeddings.threshold = point.0;
    words_only.threshold = words_point.0;
    let relative = |p: &Path| p.strip_prefix(repo).unwrap_or(p).display().to_string();
    let digest = |b: &[u8]| -> String { Sha256::digest(b).iter().map(|b| format!("{b:02x}")).collect() };
    Model {
        version: 1,
        with_embeddings,
        words_only,
        provenance: Provenance {
            set: sets.iter().flat_map(|s| &s.files).map(|(p, _)| relative(p)).collect::<Vec<_>>().join(" + "),
            set_sha256: digest(&sets.iter().flat_map(|s| &s.files).flat_map(|(_, b)| digest(b).into_bytes()).collect::<Vec<u8>>()),
            part: "tune".into(),
            events: tune.len(),
            rows: rows_n,
            positives,
            date: time::OffsetDateTime::now_utc().date().to_string(),
            command: "cargo run --release -p cairn-tests --bin cairn-advice-bench -- --fit".into(),
            operating_point: format!(
                "on out-of-fold answers ({FOLDS} folds) over the tune events: the bar with the most hits among those meeting emit accuracy >= 0.85 and harm <= 0.10, else (none did) the most hits among bars whose own harm (what the model said, not a rule) is <= 0.10; penalty by cross-validated log loss. Embeddings: hit {:.2}, accuracy {:.2}, harm {:.2}; keywords only: hit {:.2}, accuracy {:.2}, harm {:.2}. set_sha256 is the SHA-256 of the sets' own SHA-256 hex digests, in order",
                point.1.hit_rate, point.1.emit_accuracy, point.1.harmful_emit_rate, words_point.1.hit_rate, words_point.1.emit_accuracy, words_point.1.harmful_emit_rate
            ),
        },
    }
}
