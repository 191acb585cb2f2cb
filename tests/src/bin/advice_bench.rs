//! Advice benchmark (not a test): the labelled advice set (`tests/data/advice-set.json`: lessons,
//! and Claude Code hook events each labelled with the lessons worth saying, or none) run through
//! the daemon's own advisor, in process: intent, salience, trigger rules, hybrid retrieval with
//! the real model, gate, fusion, decision, MMR, category caps, limits and the character budget.
//!
//! Reported for the held-out half (`report`) and for all, beside two baselines in the same run:
//! keyword-only (the advisor before this release: BM25 relevance, no embeddings, no triggers, no
//! salience) and plain cosine top-k at 0.30 (the raw tool input embedded, no intent, no gates).
//! `--tune` searches thresholds and weights on the `tune` half only and prints the best.
//!
//! Measures (DESIGN.md): hit rate = share of events that should get advice and got at least one
//! relevant item; emit accuracy = share of emitted items that are relevant; harmful emit rate =
//! share of events that should get none and got some; noise burden = share of all events whose
//! answer holds at least one irrelevant item.
//!
//! Run: `cargo run --release -p cairn-tests --bin cairn-advice-bench -- [--set FILE] [--models DIR] [--tune] [--show]`

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use cairn_daemon::advisor::candidate::Candidate;
use cairn_daemon::advisor::choose::choose;
use cairn_daemon::advisor::format;
use cairn_daemon::advisor::gather::{gather, Ask};
use cairn_daemon::advisor::intent::{intent, raw_input};
use cairn_daemon::advisor::policy::{limits, Policy};
use cairn_daemon::advisor::salience::salience;
use cairn_daemon::app::advice::RAW_INPUT_CHARS;
use cairn_daemon::base::event::HookEvent;
use cairn_daemon::config::rules::{self, TriggerRule};
use cairn_daemon::config::Tuneables;
use cairn_daemon::retrieval::hybrid::Fusion;
use cairn_daemon::retrieval::lexical::{FieldWeights, LexicalDoc, LexicalIndex};
use cairn_daemon::retrieval::similarity::cosine;
use cairn_daemon::retrieval::vectors::VectorIndex;
use cairn_daemon::retrieval::{Retrieval, SemanticQuery};
use cairn_daemon::semantic::embed::{embedding_text, Embedder, ModelSpec};
use cairn_proto::Memory;
use serde_json::Value;

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned()
}

fn flag(name: &str) -> bool {
    std::env::args().any(|a| a == name)
}

struct Event {
    id: String,
    tune: bool,
    hook: HookEvent,
    expect: HashSet<String>,
    note: String,
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
        events: events.len(),
    }
}

fn memory_from(v: &Value) -> Memory {
    let mut m = cairn_daemon::exchange::new_memory(
        v["id"].as_str().expect("memory id").to_string(),
        cairn_proto::GLOBAL_PROJECT.to_string(),
        v["text"].as_str().expect("memory text").to_string(),
        v["category"].as_str().unwrap_or("general").to_string(),
        "user".to_string(),
        v["tags"].as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect(),
        v["context"].as_str().unwrap_or_default().to_string(),
    );
    // Every lesson equally old: recency plays no part in this set.
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
}

/// Most items and characters for an event, as the daemon reads them (advice-set events all carry
/// advice).
fn limits_of(t: &Tuneables, e: &Event) -> (usize, usize) {
    limits(t, &e.hook.kind).expect("an event that carries advice")
}

/// The candidates of every event under `t` (semantic on or off), gathered once.
fn gather_all(world: &World, events: &[Event], t: &Tuneables, semantic: bool, triggers: bool) -> Vec<Vec<Candidate>> {
    let now = time::macros::datetime!(2026-02-01 0:00 UTC);
    let fusion = Fusion::from_settings(&t.retrieval);
    let rules: Vec<TriggerRule> = if triggers { rules::effective(&[], t.triggers.builtin_rules) } else { Vec::new() };
    let sets: Vec<&[TriggerRule]> = if triggers { vec![&rules] } else { Vec::new() };
    events
        .iter()
        .zip(&world.queries)
        .map(|(e, (qv, _))| {
            let retrieval = Retrieval { lexical: &world.lexical, semantic: semantic.then_some(SemanticQuery { vector: qv, index: &world.graphs }), fusion };
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
                seed_basis: String::new(),
            };
            gather(&retrieval, &world.memories, &ask, 0.0, now, t.ranking.recency_half_life_days)
        })
        .collect()
}

/// What the advisor says for each event under `t`, budget included.
fn decide_all(events: &[Event], candidates: &[Vec<Candidate>], t: &Tuneables) -> Vec<Said> {
    events
        .iter()
        .zip(candidates)
        .map(|(e, c)| {
            let (limit, budget) = limits_of(t, e);
            let considered = choose(c.clone(), &salience(&e.hook), &Policy::from_settings(t, limit), |_| false);
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

fn main() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("repo root").to_path_buf();
    let set_path = arg("--set").map(PathBuf::from).unwrap_or_else(|| repo.join("tests/data/advice-set.json"));
    let set: Value = serde_json::from_slice(&std::fs::read(&set_path).unwrap_or_else(|e| panic!("{}: {e}", set_path.display()))).expect("set json");
    let models = arg("--models")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("CAIRN_MODEL_DIR").map(PathBuf::from))
        .unwrap_or_else(|| cairn_proto::Paths::from_env().expect("paths").models_dir);
    let mut t = Tuneables::default();
    // Overrides, to look at other settings without a rebuild.
    for (name, slot) in [("--min-similarity", &mut t.ranking.min_similarity as *mut f64), ("--min-fusion", &mut t.ranking.min_fusion_score as *mut f64), ("--weight-salience", &mut t.ranking.weight_salience as *mut f64), ("--min-relative", &mut t.ranking.min_relative_score as *mut f64), ("--category-floor", &mut t.triggers.min_category_relevance as *mut f64)] {
        if let Some(v) = arg(name).and_then(|v| v.parse::<f64>().ok()) {
            // SAFETY: each pointer is to a distinct field of `t`, alive and not otherwise borrowed here.
            unsafe { *slot = v };
        }
    }
    let embedder = Embedder::load(&ModelSpec::builtin(&models, t.model.max_tokens, t.model.threads))
    .unwrap_or_else(|e| panic!("{e}: {}", e.fix()));

    let memories: Vec<Memory> = set["memories"].as_array().expect("memories").iter().map(memory_from).collect();
    let events: Vec<Event> = set["events"]
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
        .collect();

    let mut lexical = LexicalIndex::new(FieldWeights::default());
    let mut graphs = VectorIndex::new(embedder.dimension(), &embedder.facts().fingerprint);
    let texts: Vec<String> = memories.iter().map(embedding_text).collect();
    let vectors = embedder.embed(&texts.iter().map(String::as_str).collect::<Vec<_>>()).expect("embed memories");
    let mut by_id = HashMap::new();
    for (i, (m, v)) in memories.iter().zip(&vectors).enumerate() {
        lexical.upsert(&LexicalDoc { id: &m.id, project: &m.project, text: &m.text, context: &m.context, tags: &m.tags, category: &m.category });
        graphs.upsert(&m.id, &m.project, i as u64 + 1, v).expect("index");
        by_id.insert(m.id.clone(), v.clone());
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
    let world = World { lexical, graphs, memories: memories.iter().map(|m| (m.id.clone(), m.clone())).collect(), vectors: by_id, queries };

    let (tune_n, held_n) = (events.iter().filter(|e| e.tune).count(), events.iter().filter(|e| !e.tune).count());
    let negatives = events.iter().filter(|e| e.expect.is_empty()).count();
    println!("advice set: {} memories, {} events ({tune_n} tune, {held_n} held out), {negatives} should get no advice", memories.len(), events.len());

    if flag("--tune") {
        tune(&world, &events, &t);
    }

    let cairn_candidates = gather_all(&world, &events, &t, true, true);
    let cairn = decide_all(&events, &cairn_candidates, &t);
    let mut keyword_t = t.clone();
    keyword_t.ranking.weight_salience = 0.0;
    let keyword = decide_all(&events, &gather_all(&world, &events, &keyword_t, false, false), &keyword_t);
    let plain = plain_cosine(&world, &events, &t);

    println!("\n| advisor | held-out hit rate | held-out emit accuracy | held-out harmful emit rate | held-out noise burden | all: hit rate | all: emit accuracy | all: harmful | all: noise |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    let (held, _) = report("cairn (defaults)", &events, &cairn);
    report("keyword only (BM25 gate 0.5, no embeddings, triggers or salience)", &events, &keyword);
    report("plain cosine top-k >= 0.30 on the raw input", &events, &plain);
    println!("\nheld out: {} events, {} items emitted", held.events, held.emitted);

    if let Some(path) = arg("--dump") {
        // Every event's fused candidates with their signals, for looking at score distributions.
        let mut lines = Vec::new();
        for (e, cands) in events.iter().zip(&cairn_candidates) {
            let (limit, _) = limits_of(&t, e);
            let mut p = Policy::from_settings(&t, limit);
            p.gates.min_similarity = 0.0;
            p.gates.min_fusion_score = 0.0;
            let c = choose(cands.clone(), &salience(&e.hook), &p, |_| false);
            let all: Vec<Value> = c.said.iter().chain(c.not_said.iter().map(|(s, _)| s)).map(|s| serde_json::json!({
                "id": s.candidate.id, "relevant": e.expect.contains(&s.candidate.id), "source": s.source.as_str(), "score": s.score,
                "signals": s.signals,
            })).collect();
            lines.push(serde_json::json!({"id": e.id, "tune": e.tune, "kind": e.hook.kind.name(), "tool": e.hook.tool_name, "salience": salience(&e.hook).score, "expect": e.expect, "candidates": all}).to_string());
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

/// What setting `t` does on the held-out half.
fn held_out(world: &World, events: &[Event], held_events: &[&Event], t: &Tuneables) -> Metrics {
    let said = decide_all(events, &gather_all(world, events, t, true, true), t);
    let held: Vec<&Said> = events.iter().zip(&said).filter(|(e, _)| !e.tune).map(|(_, s)| s).collect();
    measure(held_events, &held)
}

/// Searches the thresholds and weights on the tune half: the most hits among settings that
/// meet the targets there (emit accuracy at least 0.85, harmful emit rate at most 0.10), fewer
/// noisy answers breaking ties; then shows what the choice does on the held-out half.
fn tune(world: &World, events: &[Event], base: &Tuneables) {
    let tune_events: Vec<&Event> = events.iter().filter(|e| e.tune).collect();
    let held_events: Vec<&Event> = events.iter().filter(|e| !e.tune).collect();
    let mut tried: Vec<(Metrics, Tuneables)> = Vec::new();
    // The fusion's weight, floor and ceiling are shared with `search` and were tuned on LoCoMo;
    // `--keep-fusion` holds them at their defaults and searches the advice knobs only.
    let keep = flag("--keep-fusion");
    let s = &base.retrieval;
    let weights: Vec<f64> = if keep { vec![s.weight_similarity] } else { vec![0.5, 0.7, 0.9] };
    let spans: Vec<(f64, f64, f64)> = if keep {
        [0.15, 0.2, 0.3].iter().map(|&c| (s.similarity_floor, s.similarity_ceiling, c)).collect()
    } else {
        vec![(0.15, 0.9, 0.2), (0.2, 0.7, 0.2), (0.25, 0.65, 0.2), (0.15, 0.9, 0.3), (0.2, 0.7, 0.3)]
    };
    for weight_similarity in weights {
        for &(floor, ceiling, category_floor) in &spans {
            let mut t = base.clone();
            t.triggers.min_category_relevance = category_floor;
            t.retrieval.weight_similarity = weight_similarity;
            t.retrieval.similarity_floor = floor;
            t.retrieval.similarity_ceiling = ceiling;
            let candidates = gather_all(world, events, &t, true, true);
            for min_similarity in (6..=14).map(|i| i as f64 * 0.05) {
                for min_fusion in (6..=16).map(|i| i as f64 * 0.05) {
                    for weight_salience in [0.0, 0.5, 0.75, 1.0] {
                        for min_relative in [0.0, 0.7, 0.85] {
                            t.ranking.min_similarity = min_similarity;
                            t.ranking.min_fusion_score = min_fusion;
                            t.ranking.weight_salience = weight_salience;
                            t.ranking.min_relative_score = min_relative;
                            let said = decide_all(events, &candidates, &t);
                            let tune_said: Vec<&Said> = events.iter().zip(&said).filter(|(e, _)| e.tune).map(|(_, s)| s).collect();
                            tried.push((measure(&tune_events, &tune_said), t.clone()));
                        }
                    }
                }
            }
        }
    }
    let meets = |m: &Metrics| m.emit_accuracy >= 0.85 && m.harmful_emit_rate <= 0.10;
    // The frontier: at each harm level, the best accuracy and hit rate reached on the tune half.
    for harm in [0.05, 0.10, 0.15, 0.20] {
        let best = tried.iter().filter(|(m, _)| m.harmful_emit_rate <= harm + 1e-9 && m.emitted > 0).max_by(|a, b| a.0.emit_accuracy.total_cmp(&b.0.emit_accuracy).then(a.0.hit_rate.total_cmp(&b.0.hit_rate)));
        if let Some((m, t)) = best {
            let (s, f) = (&t.ranking, &t.retrieval);
            let h = held_out(world, events, &held_events, t);
            println!(
                "  frontier harm <= {harm:.2}: accuracy {:.2} hit {:.2} noise {:.2} | held acc {:.2} hit {:.2} harm {:.2} noise {:.2} | min_similarity {:.2} min_fusion_score {:.2} weight_salience {:.2} min_relative {:.2} w_sim {:.2} {:.2}-{:.2} category floor {:.2}",
                m.emit_accuracy, m.hit_rate, m.noise_burden, h.emit_accuracy, h.hit_rate, h.harmful_emit_rate, h.noise_burden, s.min_similarity, s.min_fusion_score, s.weight_salience, s.min_relative_score, f.weight_similarity, f.similarity_floor, f.similarity_ceiling, t.triggers.min_category_relevance
            );
        }
    }
    tried.sort_by(|a, b| {
        let key = |m: &Metrics| (meets(m), m.hit_rate, -m.noise_burden, m.emit_accuracy);
        let (ka, kb) = (key(&a.0), key(&b.0));
        kb.0.cmp(&ka.0).then(kb.1.total_cmp(&ka.1)).then(kb.2.total_cmp(&ka.2)).then(kb.3.total_cmp(&ka.3))
    });
    println!("tuning: {} settings tried, {} meet the targets on the tune half", tried.len(), tried.iter().filter(|(m, _)| meets(m)).count());
    // The hit/accuracy frontier on the tune half (no setting does better on both), with harm.
    let mut frontier: Vec<&(Metrics, Tuneables)> = tried.iter().filter(|(m, _)| m.emitted > 0 && m.harmful_emit_rate <= 0.15).collect();
    frontier.sort_by(|a, b| b.0.emit_accuracy.total_cmp(&a.0.emit_accuracy).then(b.0.hit_rate.total_cmp(&a.0.hit_rate)));
    let mut best_hit = -1.0;
    for (m, t) in frontier {
        if m.hit_rate <= best_hit + 1e-9 {
            continue;
        }
        best_hit = m.hit_rate;
        let h = held_out(world, events, &held_events, t);
        let (s, f) = (&t.ranking, &t.retrieval);
        println!(
            "  pareto: tune acc {:.2} hit {:.2} harm {:.2} | held acc {:.2} hit {:.2} harm {:.2} noise {:.2} | sim {:.2} fusion {:.2} sal {:.2} rel {:.2} w {:.2} {:.2}-{:.2} cat {:.2}",
            m.emit_accuracy, m.hit_rate, m.harmful_emit_rate, h.emit_accuracy, h.hit_rate, h.harmful_emit_rate, h.noise_burden,
            s.min_similarity, s.min_fusion_score, s.weight_salience, s.min_relative_score, f.weight_similarity, f.similarity_floor, f.similarity_ceiling, t.triggers.min_category_relevance
        );
    }
    for (m, t) in tried.iter().take(5) {
        let h = held_out(world, events, &held_events, t);
        let (s, f) = (&t.ranking, &t.retrieval);
        println!(
            "  min_similarity {:.2} min_fusion_score {:.2} weight_salience {:.2} min_relative_score {:.2} weight_similarity {:.2} floor {:.2} ceiling {:.2}: tune hit {:.2} acc {:.2} harm {:.2} noise {:.2} | held out hit {:.2} acc {:.2} harm {:.2} noise {:.2}",
            s.min_similarity, s.min_fusion_score, s.weight_salience, s.min_relative_score, f.weight_similarity, f.similarity_floor, f.similarity_ceiling,
            m.hit_rate, m.emit_accuracy, m.harmful_emit_rate, m.noise_burden, h.hit_rate, h.emit_accuracy, h.harmful_emit_rate, h.noise_burden
        );
    }
}
