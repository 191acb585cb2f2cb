//! Capture benchmark (not a test): the quality gate and prompt capture against the labelled
//! set `tests/data/capture-set.json`, through the real binaries (`cairn review judge`, which
//! stores nothing). The home holds the advice set's 81 lessons (global), so that novelty and
//! near-duplicates are judged against real lessons with the real model.
//!
//! Reports, for the chosen part: prompts: precision and recall of "capture" (a correction or
//! standing instruction read as a lesson); candidates: precision and recall of "keep" (kept as a
//! candidate: quality or needs work), by source, and how many near-duplicates were taken for
//! the right lesson.
//!
//! Run: `cargo build --release --bins && cargo run --release -p cairn-tests --bin cairn-capture-bench -- [--part tune|report|all] [--set FILE] [--show]`
//!
//! `--fit` fits the model that reads whether a prompt states a lesson (`learning::heard`) on the
//! labelled prompts of [`FIT_SETS`] (every part), in process with the real embedding model,
//! choosing its penalty and threshold on answers for each set from a model fitted on the others,
//! and writes `daemon/src/learning/heard.json` with its provenance. A batch written later is not
//! in the list until it has been measured as held out.
//!
//! `--fit-duplicates` fits the model that reads whether a candidate is an existing lesson again
//! (`learning::duplicate`) on the labelled candidates of [`DUPLICATE_FIT_SETS`] the same way
//! (penalty by out-of-fold log loss, the bar by the best F1 on those answers) and writes
//! `daemon/src/learning/duplicate.json`; it also prints, at each bar, what the gate would keep
//! against the keep labels (the gate with the model taking nothing, then its out-of-fold
//! answers).
//!
//! `--dump` prints one JSON line per candidate (`dump {...}`): its label and the gate's whole
//! judgement, for study.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

use cairn_daemon::base::logistic;
use cairn_daemon::learning::duplicate::{self, DuplicateModel};
use cairn_daemon::learning::gate;
use cairn_daemon::learning::heard::{self, PromptModel};
use cairn_daemon::semantic::embed::{Embedder, ModelSpec};
use cairn_tests::{arg, eventually, flag, model_dir, Home};
use sha2::{Digest, Sha256};
use serde_json::Value;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data").join(name)
}

/// Counts of a binary decision against its label.
#[derive(Default, Clone, Copy)]
struct Counts {
    tp: usize,
    fp: usize,
    fn_: usize,
    tn: usize,
}

impl Counts {
    fn add(&mut self, predicted: bool, label: bool) {
        match (predicted, label) {
            (true, true) => self.tp += 1,
            (true, false) => self.fp += 1,
            (false, true) => self.fn_ += 1,
            (false, false) => self.tn += 1,
        }
    }

    fn precision(&self) -> f64 {
        self.tp as f64 / (self.tp + self.fp).max(1) as f64
    }

    fn recall(&self) -> f64 {
        self.tp as f64 / (self.tp + self.fn_).max(1) as f64
    }

    fn line(&self) -> String {
        let (p, r) = (self.precision(), self.recall());
        format!("precision {p:.2} ({}/{}), recall {r:.2} ({}/{}), n {}", self.tp, self.tp + self.fp, self.tp, self.tp + self.fn_, self.tp + self.fp + self.fn_ + self.tn)
    }
}

fn judge(home: &Home, args: &[&str]) -> Value {
    let mut all = vec!["review", "judge", "--global", "--json"];
    all.extend_from_slice(args);
    serde_json::from_str(&home.ok(&all)).expect("judge answers JSON")
}

/// The labelled prompt sets the prompt model is fitted on, in order.
const FIT_SETS: &[&str] = &["capture-set.json", "capture-fresh-batch.json", "capture-fresh-batch-2.json", "capture-fresh-batch-3.json", "capture-fresh-batch-4.json", "capture-fresh-batch-5.json", "capture-fresh-batch-6.json", "capture-fresh-batch-7.json", "capture-fresh-batch-8.json", "capture-fresh-batch-9.json", "capture-fresh-batch-10.json", "capture-fresh-batch-11.json", "capture-fresh-batch-12.json"];
const PENALTIES: &[f64] = &[0.1, 0.3, 1.0, 3.0, 10.0];

/// Probabilities `p` read as "states a lesson" at `bar`, against labels `y`.
fn counts_at(p: &[f64], y: &[f64], bar: f64) -> Counts {
    let mut c = Counts::default();
    for (q, l) in p.iter().zip(y) {
        c.add(*q >= bar, *l > 0.5);
    }
    c
}

/// The penalty (of [`PENALTIES`]) with the least out-of-fold log loss, and every row's
/// probability from a model fitted, with it, on the other groups (sets).
fn penalised_out_of_fold(rows: &[Vec<f64>], labels: &[f64], group: &[usize], groups: usize) -> (f64, Vec<f64>) {
    let out_of_fold = |l2: f64| -> Vec<f64> {
        let mut p = vec![0.0; rows.len()];
        for g in 0..groups {
            let train: Vec<usize> = (0..rows.len()).filter(|&i| group[i] != g).collect();
            let x: Vec<Vec<f64>> = train.iter().map(|&i| rows[i].clone()).collect();
            let y: Vec<f64> = train.iter().map(|&i| labels[i]).collect();
            let beta = logistic::fit(&x, &y, l2);
            for i in (0..rows.len()).filter(|&i| group[i] == g) {
                p[i] = logistic::sigmoid(rows[i].iter().zip(&beta).map(|(a, b)| a * b).sum());
            }
        }
        p
    };
    let loss = |p: &[f64]| -> f64 { p.iter().zip(labels).map(|(q, y)| -(y * q.max(1e-9).ln() + (1.0 - y) * (1.0 - q).max(1e-9).ln())).sum() };
    let mut best: Option<(f64, f64, Vec<f64>)> = None;
    for &l2 in PENALTIES {
        let p = out_of_fold(l2);
        let l = loss(&p);
        println!("penalty {l2}: out-of-fold log loss {l:.1}");
        if best.as_ref().is_none_or(|(_, bl, _)| l < *bl) {
            best = Some((l2, l, p));
        }
    }
    let (l2, _, p) = best.expect("a penalty");
    (l2, p)
}

/// The bar among `lo..=hi` (hundredths) with the best F1 of `p` against `labels` (ties to the
/// higher bar).
fn best_f1_bar(p: &[f64], labels: &[f64], lo: u32, hi: u32) -> f64 {
    let f1 = |bar: f64| {
        let c = counts_at(p, labels, bar);
        let (pr, re) = (c.precision(), c.recall());
        if pr + re == 0.0 { 0.0 } else { 2.0 * pr * re / (pr + re) }
    };
    (lo..=hi).map(|b| b as f64 / 100.0).max_by(|a, b| f1(*a).total_cmp(&f1(*b)).then(b.total_cmp(a))).expect("a bar")
}

/// A data file's name and sha256, for a fit's provenance.
fn digest(name: &str, bytes: &[u8]) -> Value {
    serde_json::json!({"file": format!("tests/data/{name}"), "sha256": Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect::<String>()})
}

/// Precision and recall at `bar` of each set's out-of-fold answers, printed and as
/// "name precision/recall" for a provenance.
fn held_out_by_set(p: &[f64], labels: &[f64], group: &[usize], sets: &[&str], bar: f64) -> Vec<String> {
    let mut per_set = Vec::new();
    for (g, name) in sets.iter().enumerate() {
        let idx: Vec<usize> = (0..p.len()).filter(|&i| group[i] == g).collect();
        let held = counts_at(&idx.iter().map(|&i| p[i]).collect::<Vec<_>>(), &idx.iter().map(|&i| labels[i]).collect::<Vec<_>>(), bar);
        let (gp, gr) = (held.precision(), held.recall());
        println!("  held out {name}: precision {gp:.2}, recall {gr:.2}");
        per_set.push(format!("{name} {gp:.2}/{gr:.2}"));
    }
    per_set
}

/// The real embedding model, loaded in process for a fit.
fn fit_embedder() -> Embedder {
    Embedder::load(&ModelSpec::builtin(&model_dir(), 256, 2)).unwrap_or_else(|e| panic!("{e}: {}", e.fix()))
}

/// A labelled set of `tests/data`, its name and sha256 added to `digests` for the provenance.
fn read_fit_set(name: &str, digests: &mut Vec<Value>) -> Value {
    let bytes = std::fs::read(data(name)).expect("a fit set");
    digests.push(digest(name, &bytes));
    serde_json::from_slice(&bytes).expect("JSON")
}

/// The labelled candidate sets the duplicate model is fitted on, in order.
const DUPLICATE_FIT_SETS: &[&str] = &["capture-set.json", "capture-fresh-batch.json", "capture-fresh-batch-2.json", "capture-fresh-batch-3.json", "capture-fresh-batch-4.json", "capture-fresh-batch-5.json", "capture-fresh-batch-6.json", "capture-fresh-batch-7.json"];

/// Fits the model that reads whether a candidate is an existing lesson again
/// (`learning::duplicate`) on the labelled candidates of [`DUPLICATE_FIT_SETS`] (every part),
/// against the advice set's lessons, in process with the real embedding model. The nearest
/// lessons are the five closest by cosine (the daemon gives the gate the five best of its
/// hybrid search, which lead with them). Writes `daemon/src/learning/duplicate.json`.
fn fit_duplicate_model() {
    let embedder = fit_embedder();
    let mut digests = Vec::new();
    let advice = read_fit_set("advice-set.json", &mut digests);
    let lessons: Vec<(String, String)> = advice["memories"].as_array().expect("memories").iter().map(|m| (m["id"].as_str().unwrap().to_string(), m["text"].as_str().unwrap().to_string())).collect();
    let texts: Vec<&str> = lessons.iter().map(|(_, t)| t.as_str()).collect();
    let vectors = embedder.embed(&texts).expect("embed the lessons");
    let (mut rows, mut labels, mut group, mut right) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    // Per candidate: whether the gate keeps it when the model takes nothing for a duplicate (the
    // fixed bars still do), and whether it should be kept.
    let (mut kept_without, mut keep_label) = (Vec::new(), Vec::new());
    let never = DuplicateModel::from_coefficients(&[0.0], 2.0, 2.0, String::new(), Value::Null);
    let never: &'static DuplicateModel = Box::leak(Box::new(never));
    for (g, name) in DUPLICATE_FIT_SETS.iter().enumerate() {
        let set = read_fit_set(name, &mut digests);
        for c in set["candidates"].as_array().expect("candidates") {
            let text = c["text"].as_str().expect("candidate text");
            let v = &embedder.embed(&[text]).expect("embed")[0];
            let mut near: Vec<(usize, f64)> = vectors.iter().enumerate().map(|(i, l)| (i, l.iter().zip(v).map(|(a, b)| (*a * *b) as f64).sum())).collect();
            near.sort_by(|a, b| b.1.total_cmp(&a.1));
            let nearest: Vec<(&str, &str, Option<f64>)> = near.iter().take(5).map(|&(i, c)| (lessons[i].0.as_str(), lessons[i].1.as_str(), Some(c))).collect();
            let (closest, inputs) = duplicate::inputs(text, c["source"].as_str().unwrap_or("prompt"), &nearest).expect("cosines");
            rows.push(inputs.row());
            let source = c["source"].as_str().unwrap_or("prompt");
            let judged = gate::judge(&gate::Input { text, source, nearest: nearest.clone(), heard: gate::HeardBy::Not }, &gate::Bars { duplicates: Some(never), ..gate::Bars::default() });
            kept_without.push(judged.verdict.keeps());
            keep_label.push(c["keep"].as_bool().expect("keep label"));
            labels.push(if c["duplicate_of"].is_string() { 1.0 } else { 0.0 });
            right.push(c["duplicate_of"].as_str() == Some(nearest[closest].0));
            group.push(g);
        }
        println!("{name}: read");
    }
    let (l2, p) = penalised_out_of_fold(&rows, &labels, &group, DUPLICATE_FIT_SETS.len());
    // What the gate keeps at a bar, against the keep labels: kept without the model, and not
    // taken for a duplicate by its out-of-fold answer.
    let keep_at = |bar: f64| {
        let mut c = Counts::default();
        for i in 0..p.len() {
            c.add(kept_without[i] && p[i] < bar, keep_label[i]);
        }
        c
    };
    for b in (10..=90).step_by(5) {
        let bar = b as f64 / 100.0;
        println!("  bar {bar:.2}: out-of-fold {}; keep {}", counts_at(&p, &labels, bar).line(), keep_at(bar).line());
    }
    // The bar with the best F1 on the out-of-fold answers, as the prompt model's. A lesson taken
    // for a duplicate is lost to the lesson it is taken for, a duplicate missed is a candidate
    // the user rejects in `cairn review`; the issue asks the gate for precision first (0.90,
    // recall 0.70), and the bars that favour "new" keep most rewordings (see BENCHMARKS.md).
    let bar = best_f1_bar(&p, &labels, 30, 90);
    // For what the user was heard saying, the lowest bar at which those answers are right at
    // least 0.85 of the time.
    let bar_heard = (30..=90).map(|b| b as f64 / 100.0).find(|&b| counts_at(&p, &labels, b).precision() >= 0.85).unwrap_or(0.9).max(bar);
    let all = counts_at(&p, &labels, bar);
    let (pr, re) = (all.precision(), all.recall());
    let per_set = held_out_by_set(&p, &labels, &group, DUPLICATE_FIT_SETS, bar);
    let taken_right = (0..p.len()).filter(|&i| p[i] >= bar && labels[i] > 0.5 && right[i]).count();
    println!("penalty {l2}, bar {bar:.2}: out-of-fold {}; taken for the right lesson {taken_right} of {}", all.line(), all.tp);
    let beta = logistic::fit(&rows, &labels, l2);
    let heard = counts_at(&p, &labels, bar_heard);
    let model = DuplicateModel::from_coefficients(
        &beta,
        bar,
        bar_heard,
        embedder.facts().fingerprint.clone(),
        serde_json::json!({
            "sets": digests,
            "candidates": rows.len(),
            "duplicates": labels.iter().filter(|l| **l > 0.5).count(),
            "date": time::OffsetDateTime::now_utc().date().to_string(),
            "command": "cargo run --release -p cairn-tests --bin cairn-capture-bench -- --fit-duplicates",
            "l2": l2,
            "choice": format!("penalty by out-of-fold log loss over {:?}, each set's answers from a model fitted on the other sets; the bar with the best F1 on those answers among 0.30-0.90: precision {pr:.2}, recall {re:.2}, the right lesson for {taken_right} of {}; per set held out (precision/recall): {}; for a lesson heard in a prompt, the lowest bar whose answers are right at least 0.85 of the time: {bar_heard:.2} (precision {:.2}, recall {:.2})", PENALTIES, all.tp, per_set.join(", "), heard.precision(), heard.recall()),
        }),
    );
    println!("weights {:?}, intercept {:.2}", model.weights, model.intercept);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../daemon/src/learning/duplicate.json");
    std::fs::write(&path, serde_json::to_string_pretty(&model).expect("model serialises") + "\n").expect("write duplicate.json");
    println!("wrote {}", path.display());
}

fn fit_prompt_model() {
    let embedder = fit_embedder();
    // Rows (1, whole prompt, sentences' maximum), labels, and the set each came from.
    let (mut rows, mut labels, mut group) = (Vec::new(), Vec::new(), Vec::new());
    let mut digests = Vec::new();
    for (g, name) in FIT_SETS.iter().enumerate() {
        let set = read_fit_set(name, &mut digests);
        for p in set["prompts"].as_array().expect("prompts") {
            let prompt = p["prompt"].as_str().expect("prompt text");
            let sentences = heard::sentences(prompt);
            let mut texts = vec![heard::prompt_text(prompt)];
            texts.extend(sentences);
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let vectors = embedder.embed(&refs).expect("embed");
            let mut row = vec![1.0];
            row.extend(heard::features(&vectors[0], &vectors[1..]));
            rows.push(row);
            labels.push(if p["capture"].as_bool().expect("capture label") { 1.0 } else { 0.0 });
            group.push(g);
        }
        println!("{name}: read");
    }
    let (l2, p) = penalised_out_of_fold(&rows, &labels, &group, FIT_SETS.len());
    // The bar: the best F1 on the out-of-fold answers, among bars 0.30 to 0.70.
    let bar = best_f1_bar(&p, &labels, 30, 70);
    let all = counts_at(&p, &labels, bar);
    let (pr, re) = (all.precision(), all.recall());
    let per_set = held_out_by_set(&p, &labels, &group, FIT_SETS, bar);
    println!("penalty {l2}, bar {bar:.2}: out-of-fold {}", all.line());
    let beta = logistic::fit(&rows, &labels, l2);
    let d = (beta.len() - 1) / 2;
    let model = PromptModel {
        version: 1,
        fingerprint: embedder.facts().fingerprint.clone(),
        intercept: beta[0],
        whole: beta[1..=d].to_vec(),
        sentences: beta[d + 1..].to_vec(),
        threshold: bar,
        provenance: serde_json::json!({
            "sets": digests,
            "prompts": rows.len(),
            "lessons": labels.iter().filter(|l| **l > 0.5).count(),
            "date": time::OffsetDateTime::now_utc().date().to_string(),
            "command": "cargo run --release -p cairn-tests --bin cairn-capture-bench -- --fit",
            "l2": l2,
            "choice": format!("penalty by out-of-fold log loss over {:?}, each set's answers from a model fitted on the other sets; the bar with the best F1 on those answers among 0.30-0.70: precision {pr:.2}, recall {re:.2}; per set held out (precision/recall): {}", PENALTIES, per_set.join(", ")),
        }),
    };
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../daemon/src/learning/heard.json");
    std::fs::write(&path, serde_json::to_string(&model).expect("model serialises") + "\n").expect("write heard.json");
    println!("wrote {}", path.display());
}

fn main() {
    if flag("--fit") {
        fit_prompt_model();
        return;
    }
    if flag("--fit-duplicates") {
        fit_duplicate_model();
        return;
    }
    let part = arg("--part").unwrap_or_else(|| "tune".into());
    let set = arg("--set").map(PathBuf::from).unwrap_or_else(|| data("capture-set.json"));
    let show = flag("--show");
    let set: Value = serde_json::from_str(&std::fs::read_to_string(&set).expect("the capture set")).expect("JSON");
    let in_part = |v: &Value| part == "all" || v["part"] == part.as_str();

    model_dir();
    let home = Home::new();
    home.up();
    home.ok(&["search", "warm up"]);
    assert!(eventually(Duration::from_secs(120), || home.status()["model"] == "loaded"), "the model did not load");
    let advice: Value = serde_json::from_str(&std::fs::read_to_string(data("advice-set.json")).unwrap()).unwrap();
    let mut ids: HashMap<String, String> = HashMap::new();
    for m in advice["memories"].as_array().unwrap() {
        let id = home.ok(&["add", m["text"].as_str().unwrap(), "--global", "--category", m["category"].as_str().unwrap_or("general")]).trim().to_string();
        ids.insert(id, m["id"].as_str().unwrap().to_string());
    }

    let mut prompts = Counts::default();
    // Captured and kept by the gate: what a user would find in `cairn review`.
    let mut prompts_kept = Counts::default();
    for p in set["prompts"].as_array().unwrap().iter().filter(|v| in_part(v)) {
        let j = judge(&home, &["--prompt", "--", p["prompt"].as_str().unwrap()]);
        let captured = j["captured"].is_string();
        let label = p["capture"].as_bool().unwrap();
        prompts.add(captured, label);
        let kept = captured && j["keep"].as_bool().unwrap_or(false);
        prompts_kept.add(kept, label);
        if show && kept != label && captured {
            let reasons: Vec<&str> = j["quality"]["reasons"].as_array().map(|r| r.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
            println!("prompt {} {}: {} ({})", p["id"].as_str().unwrap(), if kept { "KEPT FALSE" } else { "CAPTURED, NOT KEPT" }, j["captured"], reasons.last().unwrap_or(&""));
        }
        if show && captured != label {
            println!("prompt {} {}: {:?} -> {}", p["id"].as_str().unwrap(), if label { "MISSED" } else { "FALSE" }, p["prompt"].as_str().unwrap(), j["captured"]);
        }
    }

    let mut keep = Counts::default();
    let mut by_source: BTreeMap<String, Counts> = BTreeMap::new();
    let (mut dups, mut dups_right) = (0, 0);
    let mut verdicts: BTreeMap<String, usize> = BTreeMap::new();
    for c in set["candidates"].as_array().unwrap().iter().filter(|v| in_part(v)) {
        let source = c["source"].as_str().unwrap_or("prompt");
        let j = judge(&home, &["--source", source, "--", c["text"].as_str().unwrap()]);
        let kept = j["keep"].as_bool().unwrap();
        let label = c["keep"].as_bool().unwrap();
        keep.add(kept, label);
        by_source.entry(source.to_string()).or_default().add(kept, label);
        let verdict = j["quality"]["verdict"].as_str().unwrap_or("?").to_string();
        if flag("--dump") {
            // One JSON line per candidate: its label and the gate's whole judgement, for study.
            println!("dump {}", serde_json::json!({"id": c["id"], "source": source, "label": label, "duplicate_of": c["duplicate_of"], "text": c["text"], "judge": j}));
        }
        *verdicts.entry(verdict.clone()).or_default() += 1;
        if flag("--closest") {
            // The novelty reason names the closest lesson and its cosine.
            let novelty = j["quality"]["reasons"].as_array().and_then(|r| r.iter().filter_map(Value::as_str).find(|r| r.starts_with("novelty"))).unwrap_or("").to_string();
            let closest = novelty.split("closest lesson ").nth(1).and_then(|r| r.split(':').next()).and_then(|id| ids.get(id)).cloned().unwrap_or_default();
            let cosine = novelty.split("cosine ").nth(1).and_then(|r| r.split(',').next()).unwrap_or("-");
            let words = novelty.split(", ").nth(1).and_then(|r| r.split('%').next()).unwrap_or("-");
            println!("closest {} keep={label} dup={} closest={closest} cosine={cosine} words={words}", c["id"].as_str().unwrap(), c["duplicate_of"].as_str().unwrap_or("-"));
        }
        if let Some(expected) = c["duplicate_of"].as_str() {
            dups += 1;
            let found = j["quality"]["duplicate_of"].as_str().and_then(|id| ids.get(id)).map(String::as_str);
            if found == Some(expected) {
                dups_right += 1;
            } else if show {
                println!("duplicate {} of {expected} taken as {verdict} ({found:?}): {}", c["id"].as_str().unwrap(), c["text"].as_str().unwrap());
            }
        }
        if show && kept != label {
            let reasons: Vec<&str> = j["quality"]["reasons"].as_array().map(|r| r.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
            println!("candidate {} {} ({source}, {verdict}): {}\n    {}", c["id"].as_str().unwrap(), if label { "DROPPED" } else { "KEPT" }, c["text"].as_str().unwrap(), reasons.join("\n    "));
        }
    }
    home.down();
    println!("part {part}");
    println!("prompts, capture:   {}", prompts.line());
    println!("prompts, kept:      {}", prompts_kept.line());
    println!("candidates, keep:   {}", keep.line());
    for (s, c) in &by_source {
        println!("  {s:<10}        {}", c.line());
    }
    println!("near-duplicates taken for the right lesson: {dups_right} of {dups}");
    println!("verdicts: {verdicts:?}");
}
