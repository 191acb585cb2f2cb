//! Replay benchmark for the learning loop (not a test): does cairn learn? A labelled stream of
//! moment families (`tests/data/replay-set.json`) is played through the real binaries, twice:
//! learning off (no feedback given, outcomes not attributed, `learning.enabled` false) and on.
//! Each family: a first moment, then what happened (the user's `used` / `not-relevant`, a
//! mistaken `used`, the agent's next call followed or ignored the lesson, or nothing), and later
//! moments like it but not the same, each labelled with whether the family's lesson should be
//! said there. The first moments and their teaching come first, family after family; the later
//! moments follow in rounds (each family's first later moment, then each one's second, ...),
//! each in a session of its own so that no cooldown hides a lesson.
//!
//! Over the later moments of the chosen part it reports, off and on: hit rate (share of moments
//! that should get the family's lesson and got it), emit accuracy (share of the family lessons
//! said that were labelled to be said), harmful emit rate (share of moments labelled not to get
//! the family's lesson that got it), other lessons said (the background lessons said beside,
//! per later moment), the emit accuracy along the stream (by quarters), and the share of sessions
//! in which a lesson was said and later attributed as followed.
//!
//! The home holds the advice set's 81 lessons as global background besides each family's own
//! lesson (in the family's repository folder); the seed pack is off.
//!
//! Run: `cargo build --release --bins && cargo run --release -p cairn-tests --bin cairn-replay-bench -- [--part tune|report|all] [--set FILE] [--set-option KEY=VALUE]... [--implicit]`
//!
//! `--brief [--brief-weights 0,0.2]`: prediction precision instead. The stream is played by
//! days, each repository opening each day's session with a startup brief; it reports the share
//! of what the brief brought forward that the session then needed (a moment of it labelled to
//! get the lesson), for each weight of prediction in the brief (`advice.brief_prediction`; 0 is
//! the brief without prediction).
//!
//! `--implicit`: learning on gives no feedback verbs; only what the agent did after a lesson was
//! said (the outcome families) teaches, through worth and the learned fusion weights.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use cairn_tests::{arg, eventually, flag, model_dir, Home};
use serde_json::{json, Value};

/// Every value given to a repeated option.
fn arg_all(name: &str) -> Vec<String> {
    let a: Vec<String> = std::env::args().collect();
    a.iter().enumerate().filter(|(_, x)| *x == name).filter_map(|(i, _)| a.get(i + 1).cloned()).collect()
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data").join(name)
}

struct Family {
    id: String,
    split: String,
    repo: String,
    text: String,
    category: String,
    teach: String,
    first: Value,
    follow: Option<Value>,
    later: Vec<(Value, bool)>,
}

fn families(set: &Value) -> Vec<Family> {
    set["families"]
        .as_array()
        .expect("families")
        .iter()
        .map(|f| Family {
            id: f["id"].as_str().unwrap().into(),
            split: f["split"].as_str().unwrap().into(),
            repo: f["repo"].as_str().unwrap().into(),
            text: f["lesson"]["text"].as_str().unwrap().into(),
            category: f["lesson"]["category"].as_str().unwrap().into(),
            teach: f["teach"].as_str().unwrap().into(),
            first: f["first"].clone(),
            follow: f.get("follow").cloned(),
            later: f["later"].as_array().unwrap().iter().map(|l| (l["payload"].clone(), l["expect"].as_bool().unwrap())).collect(),
        })
        .collect()
}

/// A payload of the set, placed in a session, a tool call and the family's folder.
fn placed(payload: &Value, session: &str, tool_use_id: &str, cwd: &Path) -> Vec<u8> {
    let mut p = payload.clone();
    p["session_id"] = json!(session);
    p["cwd"] = json!(cwd);
    if p.get("tool_name").is_some() {
        p["tool_use_id"] = json!(tool_use_id);
    }
    p.to_string().into_bytes()
}

/// The ids said in `session`, from the advice log.
fn said_in(home: &Home, session: &str) -> Vec<String> {
    let log: Value = serde_json::from_str(&home.ok(&["log", "--json", "--all", "--session", session])).unwrap();
    log["entries"].as_array().into_iter().flatten().flat_map(|e| e["items"].as_array().cloned().unwrap_or_default()).filter_map(|i| i["id"].as_str().map(str::to_string)).collect()
}

fn hook(home: &Home, payload: Vec<u8>) {
    let out = home.hook(&payload);
    assert_eq!(out.status.code(), Some(0), "hook: {}", String::from_utf8_lossy(&out.stderr));
}

#[derive(Default, Debug, Clone)]
struct Later {
    family: usize,
    /// The moment in words (its command, or its file and new text), for `--verbose`.
    text: String,
    expect: bool,
    said_lesson: bool,
    others: usize,
}

struct Run {
    later: Vec<Later>,
    first_said: Vec<bool>,
    sessions_said: usize,
    sessions_followed: usize,
}

/// The signals the decision gave `lesson` at the moment `payload` (a dry run of `advise
/// --explain`), null when it was not among those weighed.
fn signals_of(home: &Home, payload: &Value, dir: &Path, lesson: &str) -> Value {
    let file = home.path().join("moment.json");
    std::fs::write(&file, placed(payload, "dry-run", "toolu_dry", dir)).unwrap();
    let v: Value = serde_json::from_str(&home.ok(&["advise", "--explain", "--json", "--hook-input", file.to_str().unwrap()])).unwrap();
    let item = v["advice"].as_array().into_iter().chain(v["considered"].as_array()).flatten().find(|i| i["id"] == lesson).cloned().unwrap_or(Value::Null);
    item["signals"].clone()
}

/// A home with the background and the families' lessons, after the first moments and what
/// happened then.
struct Prepared {
    home: Home,
    dirs: HashMap<String, PathBuf>,
    lesson: Vec<String>,
    first_said: Vec<bool>,
    /// With `--verbose`, each first moment's cosine with its lesson (before any teaching).
    first_cos: Vec<f64>,
}

fn prepare(fams: &[Family], learning: bool, options: &[String]) -> Prepared {
    model_dir();
    let home = Home::new();
    std::fs::create_dir_all(home.path().join("config")).unwrap();
    let mut settings = json!({});
    if !learning {
        settings["learning"] = json!({"enabled": false, "outcomes": false});
    }
    for o in options {
        let (k, v) = o.split_once('=').expect("--set-option KEY=VALUE");
        let (section, key) = k.split_once('.').expect("KEY is section.key");
        settings[section][key] = serde_json::from_str(v).unwrap_or(json!(v));
    }
    std::fs::write(home.path().join("config/tuneables.json"), settings.to_string()).unwrap();
    home.up();
    home.ok(&["search", "warm up"]);
    assert!(eventually(Duration::from_secs(120), || home.status()["model"] == "loaded"), "the model did not load");
    // Background: the advice set's lessons, global.
    let advice: Value = serde_json::from_str(&std::fs::read_to_string(data("advice-set.json")).unwrap()).unwrap();
    for m in advice["memories"].as_array().unwrap() {
        home.ok(&["add", m["text"].as_str().unwrap(), "--global", "--category", m["category"].as_str().unwrap_or("general")]);
    }
    let mut dirs: HashMap<String, PathBuf> = HashMap::new();
    let mut lesson: Vec<String> = Vec::new();
    for f in fams {
        let dir = dirs
            .entry(f.repo.clone())
            .or_insert_with(|| {
                let d = home.path().join("work").join(&f.repo);
                std::fs::create_dir_all(&d).unwrap();
                std::fs::canonicalize(&d).unwrap()
            })
            .clone();
        let out = home.run_in(Some(&dir), &[], &["add", &f.text, "--category", &f.category]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        lesson.push(String::from_utf8_lossy(&out.stdout).trim().to_string());
    }
    // The first moments and what happened then.
    let (mut first_said, mut first_cos) = (Vec::new(), Vec::new());
    for (n, f) in fams.iter().enumerate() {
        let dir = &dirs[&f.repo];
        let session = format!("{}-first", f.id);
        hook(&home, placed(&f.first, &session, "toolu_first", dir));
        first_said.push(said_in(&home, &session).contains(&lesson[n]));
        first_cos.push(if flag("--verbose") { signals_of(&home, &f.first, dir, &lesson[n])["similarity"].as_f64().unwrap_or(f64::NAN) } else { f64::NAN });
        let feedback = |verb: &str| {
            // A prompt has no tool call: the session's moment is its latest.
            let prompt = f.first["hook_event_name"] == "UserPromptSubmit";
            let mut args = vec!["feedback", verb, &lesson[n], "--session", &session];
            if !prompt {
                args.extend(["--tool-use-id", "toolu_first"]);
            }
            let out = home.run_in(Some(dir), &[], &args);
            assert!(out.status.success(), "{}: {}", f.id, String::from_utf8_lossy(&out.stderr));
        };
        // `--implicit`: what the agent did is the only teacher (no feedback verbs).
        let verbs = learning && !flag("--implicit");
        match f.teach.as_str() {
            "used" | "mistaken-used" if verbs => feedback("used"),
            "not-relevant" if verbs => feedback("not-relevant"),
            _ => {}
        }
        if let Some(follow) = &f.follow {
            hook(&home, placed(follow, &session, "toolu_follow", dir));
            hook(&home, placed(&json!({"hook_event_name": "UserPromptSubmit", "prompt": "Thanks. Carry on with the next step."}), &session, "", dir));
            if learning && first_said[n] {
                // The outcome worker settles it shortly after the prompt.
                let settled = || {
                    let log: Value = serde_json::from_str(&home.ok(&["log", "--json", "--all", "--session", &session])).unwrap();
                    log["entries"].as_array().into_iter().flatten().all(|e| e["outcomes"].as_array().is_some_and(|o| !o.is_empty() && o.iter().all(|o| o["settled"] == true)))
                };
                eventually(Duration::from_secs(10), settled);
            }
        }
    }
    // Each repository's fusion weights learned from what happened so far (they are learned
    // hourly by themselves; the replay runs in minutes).
    if learning {
        for (repo, dir) in &dirs {
            let out = home.run_in(Some(dir), &[], &["weights", "learn"]);
            eprintln!("weights of {repo}: {}", String::from_utf8_lossy(&out.stdout).lines().next().unwrap_or(""));
        }
    }
    Prepared { home, dirs, lesson, first_said, first_cos }
}

fn rounds(fams: &[Family]) -> usize {
    fams.iter().map(|f| f.later.len()).max().unwrap_or(0)
}

fn play(fams: &[Family], learning: bool, options: &[String]) -> Run {
    let Prepared { home, dirs, lesson, first_said, first_cos } = prepare(fams, learning, options);
    // The later moments, in rounds.
    let rounds = rounds(fams);
    let mut later = Vec::new();
    for r in 0..rounds {
        for (n, f) in fams.iter().enumerate() {
            let Some((payload, expect)) = f.later.get(r) else { continue };
            let session = format!("{}-later-{r}", f.id);
            hook(&home, placed(payload, &session, &format!("toolu_later_{r}"), &dirs[&f.repo]));
            let said = said_in(&home, &session);
            // With --verbose, what the decision made of the family's lesson there (a dry run).
            let weighed = if flag("--verbose") {
                let s = signals_of(&home, payload, &dirs[&f.repo], &lesson[n]);
                let num = |k: &str| s[k].as_f64().unwrap_or(f64::NAN);
                format!("p {:.2} cos {:.2} (first {:.2}) learned {:.2} link {:.3} not {:.2}", num("probability"), num("similarity"), first_cos[n], num("learned"), num("learned_link"), num("learned_not"))
            } else {
                String::new()
            };
            let input = &payload["tool_input"];
            let text = [&input["command"], &input["file_path"], &input["new_string"], &input["content"], &payload["prompt"]].iter().filter_map(|v| v.as_str()).collect::<Vec<_>>().join(" ").replace('\n', " ");
            later.push(Later { family: n, text: format!("{} | {weighed}", text.chars().take(70).collect::<String>()), expect: *expect, said_lesson: said.contains(&lesson[n]), others: said.iter().filter(|i| **i != lesson[n]).count() });
        }
    }
    // Sessions with a lesson said, and those where one was attributed as followed.
    let log: Value = serde_json::from_str(&home.ok(&["log", "--json", "--all", "--last", "10000"])).unwrap();
    let (mut said_sessions, mut followed_sessions) = (HashSet::new(), HashSet::new());
    for e in log["entries"].as_array().into_iter().flatten() {
        let s = e["session_id"].as_str().unwrap_or("").to_string();
        if e["items"].as_array().is_some_and(|i| !i.is_empty()) {
            said_sessions.insert(s.clone());
        }
        if e["outcomes"].as_array().into_iter().flatten().any(|o| o["verdict"] == "followed") {
            followed_sessions.insert(s);
        }
    }
    Run { later, first_said, sessions_said: said_sessions.len(), sessions_followed: followed_sessions.len() }
}

/// One session of the brief replay: a repository's day, opened by a startup brief, then the
/// later moments of its families for that round.
struct Day {
    repo: String,
    round: usize,
    /// What the startup brief brought forward.
    brief: Vec<String>,
    /// The lessons a moment of the session was labelled to get (what the user would mark used).
    needed: HashSet<String>,
    /// The repository's own lessons (the brief's pool: it never brings a global one).
    lessons: usize,
}

/// `--brief`: the stream played by days. After the first moments and what happened then (as in
/// the replay, learning on), each round is a day: every repository opens a session with a
/// startup brief, then plays its families' later moments of that round in it. Predictions are
/// refreshed and the prediction weights learned at each day's end (the product refreshes a
/// day-old prediction at a project's first SessionStart, after the brief was given).
fn play_briefed(fams: &[Family], prediction: f64, options: &[String]) -> Vec<Day> {
    let mut options = options.to_vec();
    options.push(format!("advice.brief_prediction={prediction}"));
    let Prepared { home, dirs, lesson, .. } = prepare(fams, true, &options);
    let mut repos: Vec<&String> = dirs.keys().collect();
    repos.sort();
    let day_ends = || {
        for repo in &repos {
            for args in [&["predict", "--refresh", "--json"][..], &["weights", "learn", "--prediction"][..]] {
                let out = home.run_in(Some(&dirs[*repo]), &[], args);
                assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
            }
        }
    };
    day_ends();
    let mut days = Vec::new();
    for round in 0..rounds(fams) {
        for repo in &repos {
            let dir = &dirs[*repo];
            let session = format!("{repo}-day-{round}");
            hook(&home, placed(&json!({"hook_event_name": "SessionStart", "source": "startup"}), &session, "", dir));
            let brief = said_in(&home, &session);
            let mut needed = HashSet::new();
            for (n, f) in fams.iter().enumerate().filter(|(_, f)| &f.repo == *repo) {
                if let Some((payload, expect)) = f.later.get(round) {
                    hook(&home, placed(payload, &session, &format!("toolu_{}_{round}", f.id), dir));
                    if *expect {
                        needed.insert(lesson[n].clone());
                    }
                }
            }
            let lessons = fams.iter().filter(|f| &f.repo == *repo).count();
            days.push(Day { repo: repo.to_string(), round, brief, needed, lessons });
        }
        day_ends();
    }
    days
}

/// The brief's precision (share of what it brought forward that the session needed), recall
/// (share of what the session needed that it brought forward) and the base rate (share of the
/// repositories' lessons the sessions needed: what bringing lessons forward at random scores).
fn brief_row(name: &str, days: &[&Day]) -> String {
    let brought: usize = days.iter().map(|d| d.brief.len()).sum();
    let right: usize = days.iter().map(|d| d.brief.iter().filter(|b| d.needed.contains(*b)).count()).sum();
    let needed: usize = days.iter().map(|d| d.needed.len()).sum();
    let lessons: usize = days.iter().map(|d| d.lessons).sum();
    format!("| {name} | {} | {brought} | {} ({right}/{brought}) | {} ({right}/{needed}) | {} ({needed}/{lessons}) |", days.len(), ratio(right, brought), ratio(right, needed), ratio(needed, lessons))
}

fn brief_main(all: &[Family], options: &[String]) {
    let weights: Vec<f64> = arg("--brief-weights").unwrap_or_else(|| "0,0.2".into()).split(',').map(|w| w.trim().parse().expect("--brief-weights W,W,...")).collect();
    println!("\n| advice.brief_prediction | sessions | brought forward | precision (needed in the session) | recall | base rate |");
    println!("|---|---|---|---|---|---|");
    let mut by_round = Vec::new();
    for w in weights {
        let started = std::time::Instant::now();
        let days = play_briefed(all, w, options);
        eprintln!("brief_prediction {w}: {:.1} s", started.elapsed().as_secs_f64());
        println!("{}", brief_row(&format!("{w}"), &days.iter().collect::<Vec<_>>()));
        for round in 0..rounds(all) {
            by_round.push(brief_row(&format!("{w}, day {}", round + 1), &days.iter().filter(|d| d.round == round).collect::<Vec<_>>()));
        }
        if flag("--verbose") {
            for d in &days {
                let marks: Vec<&str> = d.brief.iter().map(|b| if d.needed.contains(b) { "needed" } else { "-" }).collect();
                println!("  {w}: {} day {}: brief {:?}, needed {} of {}", d.repo, d.round + 1, marks, d.needed.len(), d.lessons);
            }
        }
    }
    println!("\nBy day (day 1 follows the first moments and their teaching):\n");
    println!("| advice.brief_prediction, day | sessions | brought forward | precision | recall | base rate |");
    println!("|---|---|---|---|---|---|");
    for r in by_round {
        println!("{r}");
    }
}

struct Metrics {
    positives: usize,
    hits: usize,
    negatives: usize,
    harmful: usize,
    emitted: usize,
    right: usize,
    others: usize,
    moments: usize,
}

fn measure<'a>(later: impl Iterator<Item = &'a Later>) -> Metrics {
    let mut m = Metrics { positives: 0, hits: 0, negatives: 0, harmful: 0, emitted: 0, right: 0, others: 0, moments: 0 };
    for l in later {
        m.moments += 1;
        m.others += l.others;
        if l.expect {
            m.positives += 1;
            m.hits += usize::from(l.said_lesson);
        } else {
            m.negatives += 1;
            m.harmful += usize::from(l.said_lesson);
        }
        if l.said_lesson {
            m.emitted += 1;
            m.right += usize::from(l.expect);
        }
    }
    m
}

fn ratio(a: usize, b: usize) -> String {
    if b == 0 { "-".into() } else { format!("{:.2}", a as f64 / b as f64) }
}

fn row(name: &str, m: &Metrics) -> String {
    format!(
        "| {name} | {} ({} to say) | {} ({}/{}) | {} ({}/{}) | {} ({}/{}) | {:.2} |",
        m.moments,
        m.positives,
        ratio(m.hits, m.positives),
        m.hits,
        m.positives,
        ratio(m.right, m.emitted),
        m.right,
        m.emitted,
        ratio(m.harmful, m.negatives),
        m.harmful,
        m.negatives,
        m.others as f64 / m.moments.max(1) as f64
    )
}

fn main() {
    let part = arg("--part").unwrap_or_else(|| "tune".into());
    let set_path = arg("--set").map(PathBuf::from).unwrap_or_else(|| data("replay-set.json"));
    let options = arg_all("--set-option");
    let set: Value = serde_json::from_str(&std::fs::read_to_string(&set_path).expect("the replay set")).expect("replay set JSON");
    let all = families(&set);
    // The whole stream is played either way (the same home, the same order); only the part's
    // later moments are counted.
    let counted = |f: &Family| part == "all" || f.split == part;
    println!("replay: {} ({} families; part {part}: {}), options {options:?}", set_path.display(), all.len(), all.iter().filter(|f| counted(f)).count());
    if flag("--brief") {
        // Prediction is tuned on nothing here: every family counts.
        brief_main(&all, &options);
        return;
    }
    let mut runs = Vec::new();
    for learning in [false, true] {
        let started = std::time::Instant::now();
        let run = play(&all, learning, &options);
        eprintln!("learning {}: {:.1} s", if learning { "on" } else { "off" }, started.elapsed().as_secs_f64());
        runs.push((learning, run));
    }
    println!("\n| learning | later moments | hit rate | emit accuracy | harmful emit rate | other lessons per moment |");
    println!("|---|---|---|---|---|---|");
    for (learning, run) in &runs {
        let m = measure(run.later.iter().filter(|l| counted(&all[l.family])));
        println!("{}", row(if *learning { "on" } else { "off" }, &m));
    }
    println!("\nBy what happened after the first moment (learning off -> on: hit rate; emit accuracy; harmful):");
    let teaches = ["used", "not-relevant", "mistaken-used", "followed", "ignored", "none"];
    for teach in teaches {
        let pick = |run: &Run| measure(run.later.iter().filter(|l| counted(&all[l.family]) && all[l.family].teach == teach));
        let (off, on) = (pick(&runs[0].1), pick(&runs[1].1));
        if on.moments == 0 {
            continue;
        }
        println!(
            "  {teach:<14} {} moments: hit {} -> {}; accuracy {} -> {}; harmful {} -> {}",
            on.moments,
            ratio(off.hits, off.positives),
            ratio(on.hits, on.positives),
            ratio(off.right, off.emitted),
            ratio(on.right, on.emitted),
            ratio(off.harmful, off.negatives),
            ratio(on.harmful, on.negatives)
        );
    }
    if flag("--verbose") {
        println!("\nEach later moment (expect / said off / said on):");
        for (off, on) in runs[0].1.later.iter().zip(&runs[1].1.later).filter(|(l, _)| counted(&all[l.family])) {
            let f = &all[off.family];
            let mark = |b: bool| if b { "said" } else { "-" };
            println!("  {} {:<13} expect {:<5} off {:<4} on {:<4} {}", f.id, f.teach, off.expect, mark(off.said_lesson), mark(on.said_lesson), on.text);
        }
    }
    for (learning, run) in &runs {
        let later: Vec<&Later> = run.later.iter().filter(|l| counted(&all[l.family])).collect();
        let q = later.len().div_ceil(4).max(1);
        let curve: Vec<String> = later.chunks(q).map(|c| { let m = measure(c.iter().copied()); format!("{} ({}/{})", ratio(m.right, m.emitted), m.right, m.emitted) }).collect();
        let first = all.iter().zip(&run.first_said).filter(|(f, _)| counted(f)).filter(|(_, s)| **s).count();
        println!(
            "\nlearning {}: emit accuracy along the stream by quarters: {}; family lesson said at its first moment: {first} of {}; sessions with a lesson said: {}, of which a lesson attributed followed: {} ({})",
            if *learning { "on" } else { "off" },
            curve.join(", "),
            all.iter().filter(|f| counted(f)).count(),
            run.sessions_said,
            run.sessions_followed,
            ratio(run.sessions_followed, run.sessions_said)
        );
    }
}
