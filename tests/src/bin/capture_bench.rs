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

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

use cairn_tests::{arg, eventually, flag, model_dir, Home};
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

    fn line(&self) -> String {
        let p = self.tp as f64 / (self.tp + self.fp).max(1) as f64;
        let r = self.tp as f64 / (self.tp + self.fn_).max(1) as f64;
        format!("precision {p:.2} ({}/{}), recall {r:.2} ({}/{}), n {}", self.tp, self.tp + self.fp, self.tp, self.tp + self.fn_, self.tp + self.fp + self.fn_ + self.tn)
    }
}

fn judge(home: &Home, args: &[&str]) -> Value {
    let mut all = vec!["review", "judge", "--global", "--json"];
    all.extend_from_slice(args);
    serde_json::from_str(&home.ok(&all)).expect("judge answers JSON")
}

fn main() {
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
    for p in set["prompts"].as_array().unwrap().iter().filter(|v| in_part(v)) {
        let j = judge(&home, &["--prompt", "--", p["prompt"].as_str().unwrap()]);
        let captured = j["captured"].is_string();
        let label = p["capture"].as_bool().unwrap();
        prompts.add(captured, label);
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
    println!("candidates, keep:   {}", keep.line());
    for (s, c) in &by_source {
        println!("  {s:<10}        {}", c.line());
    }
    println!("near-duplicates taken for the right lesson: {dups_right} of {dups}");
    println!("verdicts: {verdicts:?}");
}
