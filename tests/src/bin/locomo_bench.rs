//! Retrieval benchmark on LoCoMo (not a test): every turn of the ten conversations becomes a
//! memory (project = conversation), every non-adversarial question with evidence is asked, and
//! recall@5 / recall@10 of the evidence turns is reported side by side, in one run, for plain
//! BM25 (the textbook baseline: lowercased words, no stemming, one corpus per conversation),
//! cairn's keyword ranker alone, exact cosine over the same embeddings, the HNSW graphs alone,
//! and cairn's hybrid retrieval (the daemon's own `Retrieval::hybrid`, with the default
//! tuneables). Also: HNSW recall@10 against exact cosine, query latency, embedding and index
//! build throughput.
//!
//! Fusion weights are tuned (`--tune`) on conversations 26, 30, 41, 42, 43 only; 44, 47, 48,
//! 49, 50 are the held-out set, reported beside the whole. `--paraphrase FILE` adds the
//! paraphrase set (questions that share no word with the lessons they mean), and tuning then
//! keeps only fusions that find those as well as plain cosine on its tune part.
//!
//! Run: `cargo run --release -p cairn-tests --bin cairn-locomo-bench -- [--data DIR] [--models DIR] [--paraphrase tests/data/paraphrase-set.json] [--tune]`
//! (models: `CAIRN_MODEL_DIR`, else the default models folder; fetch them with `cairn setup`).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use cairn_daemon::config::Tuneables;
use cairn_daemon::retrieval::similarity::cosine;
use cairn_daemon::semantic::embed::{embedding_text, Embedder, ModelSpec};
use cairn_daemon::retrieval::hybrid::Fusion;
use cairn_daemon::retrieval::{Hit, Retrieval, SemanticQuery, CANDIDATES};
use cairn_daemon::retrieval::lexical::{FieldWeights, LexicalDoc, LexicalIndex};
use cairn_daemon::retrieval::vectors::VectorIndex;
use cairn_tests::{arg, flag, median, percentile};
use serde_json::Value;

const DEV: &[&str] = &["26", "30", "41", "42", "43"];
const HELD_OUT: &[&str] = &["44", "47", "48", "49", "50"];

struct Turn {
    id: String,
    project: String,
    text: String,
    /// The turns just before it in its session: the situation it was said in.
    context: String,
}

struct Question {
    conversation: String,
    text: String,
    evidence: HashSet<String>,
}

fn data_dir() -> PathBuf {
    if let Some(d) = arg("--data") {
        return PathBuf::from(d);
    }
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("repo root").to_path_buf();
    repo.join("../shared/bench-data/locomo10")
}

/// Evidence ids as written, with the data's few typos mended ("D:11:26", "D8:6; D9:17").
fn evidence_ids(raw: &str) -> Vec<String> {
    raw.split([';', ' ', ','])
        .map(|s| s.trim().replace("D:", "D"))
        .filter(|s| s.len() > 1 && s.starts_with('D') && s.contains(':'))
        .collect()
}

fn load(dir: &Path, context_turns: usize) -> (Vec<Turn>, Vec<Question>) {
    let mut turns = Vec::new();
    let mut questions = Vec::new();
    for conv in DEV.iter().chain(HELD_OUT) {
        let path = dir.join(format!("{conv}.json"));
        let doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))).expect("json");
        let project = format!("locomo-{conv}");
        let mut ids = HashSet::new();
        let obj = doc.as_object().expect("conversation object");
        for (key, value) in obj {
            let Some(list) = value.as_array().filter(|_| key.starts_with("session_") && !key.ends_with("date_time")) else { continue };
            let mut said: Vec<String> = Vec::new();
            for t in list {
                let dia = t["dia_id"].as_str().unwrap_or_default().to_string();
                let mut text = format!("{}: {}", t["speaker"].as_str().unwrap_or_default(), t["text"].as_str().unwrap_or_default());
                if let Some(caption) = t.get("blip_caption").and_then(Value::as_str) {
                    text.push_str(&format!(" [shares a photo of {caption}]"));
                }
                ids.insert(dia.clone());
                let context = said[said.len().saturating_sub(context_turns)..].join("\n");
                said.push(text.clone());
                turns.push(Turn { id: format!("{conv}/{dia}"), project: project.clone(), text, context });
            }
        }
        for q in doc["qa"].as_array().expect("qa") {
            if q["category"].as_u64() == Some(5) {
                continue;
            }
            let evidence: HashSet<String> = q["evidence"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .flat_map(evidence_ids)
                .filter(|e| ids.contains(e))
                .map(|e| format!("{conv}/{e}"))
                .collect();
            if evidence.is_empty() {
                continue;
            }
            questions.push(Question { conversation: conv.to_string(), text: q["question"].as_str().unwrap_or_default().to_string(), evidence });
        }
    }
    (turns, questions)
}

fn recall(ranked: &[String], evidence: &HashSet<String>, k: usize) -> f64 {
    let hit = ranked.iter().take(k).filter(|id| evidence.contains(*id)).count();
    hit as f64 / evidence.len() as f64
}


/// Whether any relevant document is among the first `k` (as 1 or 0).
fn found(ranked: &[String], relevant: &HashSet<String>, k: usize) -> f64 {
    f64::from(u8::from(ranked.iter().take(k).any(|id| relevant.contains(id))))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Textbook Okapi BM25 (k1 1.2, b 0.75) over lowercased alphanumeric words, one corpus per
/// conversation: the baseline, deliberately without cairn's stemming, stop words or fields.
struct PlainBm25 {
    docs: Vec<(String, HashMap<String, f64>, f64)>,
    df: HashMap<String, f64>,
    avg_len: f64,
}

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

impl PlainBm25 {
    fn new(docs: &[(&str, &str)]) -> PlainBm25 {
        let mut df: HashMap<String, f64> = HashMap::new();
        let docs: Vec<(String, HashMap<String, f64>, f64)> = docs
            .iter()
            .map(|(id, text)| {
                let ws = words(text);
                let mut tf: HashMap<String, f64> = HashMap::new();
                for w in &ws {
                    *tf.entry(w.clone()).or_default() += 1.0;
                }
                for w in tf.keys() {
                    *df.entry(w.clone()).or_default() += 1.0;
                }
                (id.to_string(), tf, ws.len() as f64)
            })
            .collect();
        let avg_len = docs.iter().map(|d| d.2).sum::<f64>() / docs.len().max(1) as f64;
        PlainBm25 { docs, df, avg_len }
    }

    fn search(&self, query: &str, k: usize) -> Vec<String> {
        let n = self.docs.len() as f64;
        let mut q = words(query);
        q.sort();
        q.dedup();
        let mut scored: Vec<(f64, &str)> = self
            .docs
            .iter()
            .map(|(id, tf, len)| {
                let score = q
                    .iter()
                    .filter_map(|w| {
                        let f = *tf.get(w)?;
                        let df = self.df[w];
                        let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
                        Some(idf * f * 2.2 / (f + 1.2 * (0.25 + 0.75 * len / self.avg_len)))
                    })
                    .sum::<f64>();
                (score, id.as_str())
            })
            .filter(|(s, _)| *s > 0.0)
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        scored.into_iter().take(k).map(|(_, id)| id.to_string()).collect()
    }
}

/// Per question, every ranker's top 10, plus the hybrid's candidates with their evidence.
struct Answers {
    plain: Vec<String>,
    bm25: Vec<String>,
    exact: Vec<String>,
    hnsw: Vec<String>,
    cairn: Vec<String>,
    candidates: Vec<Hit>,
}

/// Which ranker's answer to read.
type Pick = fn(&Answers) -> &Vec<String>;

fn rank_with(fusion: &Fusion, candidates: &[Hit]) -> Vec<String> {
    let mut scored: Vec<(f64, &str)> = candidates.iter().map(|s| (fusion.relevance(s.evidence()), s.id.as_str())).collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    scored.into_iter().take(10).map(|(_, id)| id.to_string()).collect()
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    if n == 0 { 0.0 } else { sum / n as f64 }
}

/// A paraphrase question: its text, the documents that answer it, and its part.
struct Paraphrase {
    text: String,
    relevant: HashSet<String>,
    tune: bool,
}

/// The paraphrase set (`--paraphrase FILE`): short questions that share no word with the lessons
/// they should find. Every document is a global memory; recall@5 and @10 for exact cosine, cairn's
/// keywords alone and cairn's hybrid, on the tune part, the report part and all.
fn paraphrase(path: &Path, embedder: &Embedder, fusion: Fusion) -> (Vec<Paraphrase>, Vec<Vec<Hit>>) {
    let set: Value = serde_json::from_slice(&std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))).expect("paraphrase json");
    let docs = set["documents"].as_array().expect("documents");
    let strings = |v: &Value| -> Vec<String> { v.as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect() };
    let mut lexical = LexicalIndex::new(FieldWeights::default());
    let mut graphs = VectorIndex::new(embedder.dimension(), &embedder.facts().fingerprint);
    let mut vectors: Vec<(String, Vec<f32>)> = Vec::new();
    for (i, d) in docs.iter().enumerate() {
        let m = cairn_daemon::exchange::new_memory(d["id"].as_str().expect("id").into(), "global".into(), d["text"].as_str().expect("text").into(), d["category"].as_str().unwrap_or("general").into(), "user".into(), strings(&d["tags"]), d["context"].as_str().unwrap_or_default().into());
        lexical.upsert(&LexicalDoc { id: &m.id, project: &m.project, text: &m.text, context: &m.context, tags: &m.tags, category: &m.category });
        let v = embedder.embed(&[&embedding_text(&m)]).expect("embed").remove(0);
        graphs.upsert(&m.id, &m.project, i as u64 + 1, &v).expect("index");
        vectors.push((m.id, v));
    }
    let questions: Vec<Paraphrase> = set["queries"]
        .as_array()
        .expect("queries")
        .iter()
        .map(|q| Paraphrase { text: q["question"].as_str().expect("question").into(), relevant: strings(&q["relevant"]).into_iter().collect(), tune: q["split"] == "tune" })
        .collect();
    let mut candidates = Vec::new();
    let mut rows: Vec<(&str, Vec<Vec<String>>)> = vec![("exact cosine", Vec::new()), ("cairn keywords alone", Vec::new()), ("cairn hybrid", Vec::new())];
    for q in &questions {
        let qv = embedder.embed(&[&q.text]).expect("embed").remove(0);
        let mut exact: Vec<(f32, &String)> = vectors.iter().map(|(id, v)| (cosine(&qv, v), id)).collect();
        exact.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        rows[0].1.push(exact.iter().take(10).map(|(_, id)| (*id).clone()).collect());
        rows[1].1.push(lexical.search(&q.text, Some(&["global"]), 10).into_iter().map(|h| h.id).collect());
        let retrieval = Retrieval { lexical: &lexical, semantic: Some(SemanticQuery { vector: &qv, index: &graphs }), fusion, learned: None, recall: None };
        rows[2].1.push(retrieval.hybrid(&q.text, &["global"], 10).into_iter().map(|h| h.id).collect());
        candidates.push(retrieval.gather(&q.text, &["global"], CANDIDATES));
    }
    println!("\nparaphrase set {}: {} documents, {} questions ({} tune)", path.display(), docs.len(), questions.len(), questions.iter().filter(|q| q.tune).count());
    println!("\n(R@k: share of questions with a relevant lesson among the first k)\n| ranker | report R@5 | report R@10 | tune R@5 | all R@5 | all R@10 |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    for (name, ranked) in &rows {
        let r = |part: Option<bool>, k: usize| mean(questions.iter().zip(ranked).filter(|(q, _)| part.is_none_or(|t| q.tune == t)).map(|(q, r)| found(r, &q.relevant, k)));
        println!("| {name} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} |", r(Some(false), 5), r(Some(false), 10), r(Some(true), 5), r(None, 5), r(None, 10));
    }
    (questions, candidates)
}

fn main() {
    let dir = data_dir();
    let context_turns: usize = arg("--context").and_then(|c| c.parse().ok()).unwrap_or(0);
    let (turns, questions) = load(&dir, context_turns);
    let models = arg("--models")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("CAIRN_MODEL_DIR").map(PathBuf::from))
        .unwrap_or_else(|| cairn_proto::Paths::from_env().expect("paths").models_dir);
    let defaults = Tuneables::default();
    let spec = ModelSpec::builtin(&models, defaults.model.max_tokens, defaults.model.threads);
    let embedder = Embedder::load(&spec).unwrap_or_else(|e| panic!("{e}: {}", e.fix()));
    println!("LoCoMo: {} turns in 10 conversations, {} non-adversarial questions with evidence", turns.len(), questions.len());

    // Memories: keyword index, embeddings (batched, as an import does), HNSW graphs.
    let mut lexical = LexicalIndex::new(FieldWeights::default());
    for t in &turns {
        lexical.upsert(&LexicalDoc { id: &t.id, project: &t.project, text: &t.text, context: &t.context, tags: &[], category: "general" });
    }
    let started = Instant::now();
    let mut vectors: Vec<Vec<f32>> = Vec::with_capacity(turns.len());
    for chunk in turns.chunks(32) {
        // What the daemon embeds for a memory: its text, then its context.
        let texts: Vec<String> = chunk.iter().map(|t| if t.context.is_empty() { t.text.clone() } else { format!("{}\n{}", t.text, t.context) }).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        vectors.extend(embedder.embed(&refs).expect("embed"));
    }
    let embed_time = started.elapsed();
    let started = Instant::now();
    let mut graphs = VectorIndex::new(embedder.dimension(), &embedder.facts().fingerprint);
    for (i, (t, v)) in turns.iter().zip(&vectors).enumerate() {
        graphs.upsert(&t.id, &t.project, i as u64 + 1, v).expect("index");
    }
    let build_time = started.elapsed();
    println!(
        "embedding: {:.0} memories/s ({:.1} s); HNSW build: {:.0} memories/s ({:.2} s)",
        turns.len() as f64 / embed_time.as_secs_f64(),
        embed_time.as_secs_f64(),
        turns.len() as f64 / build_time.as_secs_f64(),
        build_time.as_secs_f64()
    );

    let by_project: HashMap<&str, Vec<usize>> = turns.iter().enumerate().fold(HashMap::new(), |mut m, (i, t)| {
        m.entry(t.project.as_str()).or_default().push(i);
        m
    });
    let plain: HashMap<&str, PlainBm25> = by_project
        .iter()
        .map(|(p, members)| {
            let docs: Vec<(&str, &str)> = members.iter().map(|&i| (turns[i].id.as_str(), turns[i].text.as_str())).collect();
            (*p, PlainBm25::new(&docs))
        })
        .collect();
    let fusion = Fusion::from_settings(&defaults.retrieval);
    let para = arg("--paraphrase").map(|p| paraphrase(Path::new(&p), &embedder, fusion));

    let mut answers = Vec::with_capacity(questions.len());
    let (mut cold, mut warm, mut embed_only) = (Vec::new(), Vec::new(), Vec::new());
    let mut hnsw_vs_exact = Vec::new();
    for q in &questions {
        let project = format!("locomo-{}", q.conversation);
        let projects = [project.as_str()];
        // Cold: the query is embedded, then searched, as on a cache miss.
        let t0 = Instant::now();
        let qv = embedder.embed(&[&q.text]).expect("embed").remove(0);
        let t1 = Instant::now();
        let retrieval = Retrieval { lexical: &lexical, semantic: Some(SemanticQuery { vector: &qv, index: &graphs }), fusion, learned: None, recall: None };
        let cairn: Vec<String> = retrieval.hybrid(&q.text, &projects, 10).into_iter().map(|s| s.id).collect();
        let t2 = Instant::now();
        cold.push(t2 - t0);
        embed_only.push(t1 - t0);
        // Warm: the query's embedding cached, only the search.
        let t3 = Instant::now();
        let _ = retrieval.hybrid(&q.text, &projects, 10);
        warm.push(t3.elapsed());

        let candidates = retrieval.gather(&q.text, &projects, CANDIDATES);
        let bm25: Vec<String> = lexical.search(&q.text, Some(&projects), 10).into_iter().map(|h| h.id).collect();
        let mut exact: Vec<(f32, usize)> = by_project[project.as_str()].iter().map(|&i| (cosine(&qv, &vectors[i]), i)).collect();
        exact.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        let exact: Vec<String> = exact.iter().take(10).map(|&(_, i)| turns[i].id.clone()).collect();
        let hnsw: Vec<String> = graphs.search(&qv, &projects, 10).into_iter().map(|(id, _)| id).collect();
        let exact_set: HashSet<&String> = exact.iter().collect();
        hnsw_vs_exact.push(hnsw.iter().filter(|id| exact_set.contains(id)).count() as f64 / exact.len().max(1) as f64);
        let plain = plain[project.as_str()].search(&q.text, 10);
        answers.push(Answers { plain, bm25, exact, hnsw, cairn, candidates });
    }

    let split = |names: &[&str]| -> Vec<usize> { questions.iter().enumerate().filter(|(_, q)| names.contains(&q.conversation.as_str())).map(|(i, _)| i).collect() };
    let dev = split(DEV);
    let held = split(HELD_OUT);
    let all: Vec<usize> = (0..questions.len()).collect();

    if let (Some(path), Some((qs, cands))) = (arg("--dump-paraphrase"), &para) {
        let lines: Vec<String> = qs
            .iter()
            .zip(cands)
            .map(|(q, c)| serde_json::json!({"question": q.text, "tune": q.tune, "relevant": q.relevant, "candidates": c.iter().map(|s| serde_json::json!([s.id, s.bm25, s.lexical, s.cosine])).collect::<Vec<_>>()}).to_string())
            .collect();
        std::fs::write(&path, lines.join("\n")).expect("dump");
    }
    if let Some(path) = arg("--dump") {
        // Every question's candidates with their evidence, for exploring other fusions offline.
        let lines: Vec<String> = questions
            .iter()
            .zip(&answers)
            .map(|(q, a)| {
                serde_json::json!({
                    "conversation": q.conversation, "question": q.text, "evidence": q.evidence,
                    "candidates": a.candidates.iter().map(|s| serde_json::json!([s.id, s.bm25, s.lexical, s.cosine])).collect::<Vec<_>>(),
                })
                .to_string()
            })
            .collect();
        std::fs::write(&path, lines.join("\n")).expect("dump");
    }
    if flag("--tune") {
        tune(&questions, &answers, &dev, &held, para.as_ref());
    }

    let rankers: [(&str, Pick); 5] = [
        ("BM25 (plain baseline)", |a| &a.plain),
        ("cairn keywords alone (BM25F, stemmed)", |a| &a.bm25),
        ("exact cosine", |a| &a.exact),
        ("HNSW (f16) alone", |a| &a.hnsw),
        ("cairn hybrid (BM25 + HNSW)", |a| &a.cairn),
    ];
    println!(
        "\nfusion: weight_similarity {}, similarity floor {}, ceiling {}, words exponent {}",
        fusion.weight_similarity, fusion.similarity_floor, fusion.similarity_ceiling, fusion.words_exponent
    );
    println!("\n| ranker | held-out R@5 | held-out R@10 | all R@5 | all R@10 |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    for (name, pick) in rankers {
        let r = |set: &[usize], k: usize| mean(set.iter().map(|&i| recall(pick(&answers[i]), &questions[i].evidence, k)));
        println!("| {name} | {:.3} | {:.3} | {:.3} | {:.3} |", r(&held, 5), r(&held, 10), r(&all, 5), r(&all, 10));
    }
    let dev_r10 = |pick: Pick| mean(dev.iter().map(|&i| recall(pick(&answers[i]), &questions[i].evidence, 10)));
    println!(
        "(tuning set, conversations {}: plain BM25 R@10 {:.3}, cairn keywords {:.3}, cairn hybrid {:.3})",
        DEV.join(", "),
        dev_r10(|a| &a.plain),
        dev_r10(|a| &a.bm25),
        dev_r10(|a| &a.cairn)
    );
    println!("\nquestions: {} held-out, {} tuning, {} in all", held.len(), dev.len(), all.len());
    println!("HNSW recall@10 against exact cosine: {:.4}", mean(hnsw_vs_exact.iter().copied()));
    println!(
        "query latency: embed + hybrid search median {:.2} ms (p99 {:.2}); embedding alone median {:.2} ms; hybrid search with the embedding cached median {:.3} ms (p99 {:.3})",
        ms(median(&mut cold)),
        ms(percentile(&mut cold, 0.99)),
        ms(median(&mut embed_only)),
        ms(median(&mut warm)),
        ms(percentile(&mut warm, 0.99))
    );
}

/// Grid search of the fusion on the tuning parts only (LoCoMo's tuning conversations, and with
/// `--paraphrase` the paraphrase set's tune questions): the best LoCoMo R@10 among fusions that
/// find a paraphrase's lesson in the first five at least as often as plain cosine does; prints
/// the choice and its held-out figures (for the record: held-out sets never choose).
fn tune(questions: &[Question], answers: &[Answers], dev: &[usize], held: &[usize], para: Option<&(Vec<Paraphrase>, Vec<Vec<Hit>>)>) {
    let r10 = |set: &[usize], f: &Fusion| mean(set.iter().map(|&i| recall(&rank_with(f, &answers[i].candidates), &questions[i].evidence, 10)));
    let p5 = |tune: bool, rank: &dyn Fn(&[Hit]) -> Vec<String>| -> f64 {
        let Some((qs, cands)) = para else { return 0.0 };
        mean(qs.iter().zip(cands).filter(|(q, _)| q.tune == tune).map(|(q, c)| found(&rank(c), &q.relevant, 5)))
    };
    let by_cosine = |c: &[Hit]| -> Vec<String> {
        let mut v: Vec<&Hit> = c.iter().collect();
        v.sort_by(|a, b| b.cosine.unwrap_or(-1.0).total_cmp(&a.cosine.unwrap_or(-1.0)).then_with(|| a.id.cmp(&b.id)));
        v.into_iter().take(10).map(|h| h.id.clone()).collect()
    };
    let cosine_tune = p5(true, &by_cosine);
    let mut best: Option<(f64, f64, Fusion)> = None;
    for w in (1..=20).map(|i| i as f64 * 0.05) {
        for floor in [0.0, 0.1, 0.15, 0.2, 0.3] {
            for ceiling in [0.6, 0.7, 0.8, 0.9, 1.0] {
                for words_exponent in [1.0, 1.5, 2.0, 2.5, 3.0] {
                    let f = Fusion { weight_similarity: w, similarity_floor: floor, similarity_ceiling: ceiling, words_exponent };
                    let para_tune = p5(true, &|c: &[Hit]| rank_with(&f, c));
                    if para.is_some() && para_tune + 1e-12 < cosine_tune {
                        continue;
                    }
                    let score = r10(dev, &f);
                    if best.as_ref().is_none_or(|(b, _, _)| score > *b + 1e-12) {
                        best = Some((score, para_tune, f));
                    }
                }
            }
        }
    }
    let Some((score, para_tune, f)) = best else {
        println!("\ntuning: no fusion finds paraphrases as well as plain cosine on the tune part");
        return;
    };
    println!(
        "\ntuned on conversations {} (and the paraphrase tune part, plain cosine R@5 {cosine_tune:.3}): weight_similarity {:.2}, floor {:.2}, ceiling {:.2}, words_exponent {:.1}: tuning R@10 {score:.3}, paraphrase tune R@5 {para_tune:.3}; held out: LoCoMo R@10 {:.3}, paraphrase report R@5 {:.3} (plain cosine {:.3})",
        DEV.join(", "),
        f.weight_similarity,
        f.similarity_floor,
        f.similarity_ceiling,
        f.words_exponent,
        r10(held, &f),
        p5(false, &|c: &[Hit]| rank_with(&f, c)),
        p5(false, &by_cosine)
    );
}
