//! The dashboard at scale: every page's time with N lessons (default 100,000, in five projects
//! and global) and a year of advice log (default 300 events a day, a third of them with advice,
//! each lesson said with its outcome), plus a full adjustment log, timed over HTTP from request
//! to the last byte of the page.
//!
//! The lessons are imported through the daemon (the model off: the dashboard never needs it); the
//! year of events, outcomes, day counts and adjustments is written into the stopped daemon's
//! store directly, as the daemon would have over a year (the day counts with the daemon's own
//! counting), then the daemon and `cairn ui` start and each page is fetched `--runs` times after
//! two warm-ups.
//!
//! Run: `cargo build --release --bins && cargo run --release -p cairn-tests --bin cairn-ui-bench --
//! [--lessons N] [--per-day N] [--runs N] [--shots DIR] [--keep]`; `--keep` leaves the dashboard up
//! until stdin closes; `--shots` also saves a screenshot of
//! the overview (90 days) and the advice log in headless Chromium (`CAIRN_PUPPETEER` and
//! `CAIRN_CHROMIUM` as `scripts/test.sh` sets them): the README's picture.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use cairn_daemon::store::outcomes::{outcome_key, OutcomeRecord};
use cairn_daemon::store::sessions::SessionEvent;
use cairn_daemon::store::{daily, Store};
use cairn_proto::{AdviceItem, DayStats};
use cairn_tests::{arg, flag, median, percentile, synthetic_lessons, Home};
use serde_json::{json, Value};

fn count(name: &str, default: usize) -> usize {
    arg(name).map(|v| v.parse().expect("a number")).unwrap_or(default)
}

const PROJECTS: [&str; 5] = ["/bench/p0", "/bench/p1", "/bench/p2", "/bench/p3", "/bench/p4"];
const VERDICTS: [&str; 4] = ["followed", "ignored", "contradicted", "unknown"];
const COMMANDS: [&str; 6] = ["npm install left-pad", "git push --force origin main", "cargo test -- --test-threads=1", "terraform destroy -target module.preview", "kubectl apply -f deploy.yaml", "pytest -x tests/billing"];

/// The project of lesson `i` (one in ten is global).
fn project_of(i: usize) -> &'static str {
    if i % 10 == 9 { "global" } else { PROJECTS[i % 5] }
}

fn item(id: &str, rng: &mut u64) -> AdviceItem {
    let mut signals = BTreeMap::new();
    for name in ["relevance", "probability", "logit", "recency", "salience", "effectiveness", "node_weight", "lexical", "bm25", "in.words", "add.words", "in.salience", "add.salience", "add.recency", "source_semantic", "source_trigger", "trigger_conf", "meaning", "best", "margin"] {
        *rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        signals.insert(name.to_string(), (*rng >> 40) as f64 / (1u64 << 24) as f64);
    }
    AdviceItem {
        id: id.to_string(),
        text: format!("Lesson {id}: check the target environment before running destructive commands, and say which one"),
        category: "deployment".into(),
        score: 0.81,
        why: "p 0.81 (bar 0.67): meaning 0.52 +2.10, words 0.40 +1.30, salience 0.70 (changes the project) +0.55, recency 1.00 +0.40, base -4.02; relevance 0.74 (words 0.40, meaning 0.52)".into(),
        signals,
        source: "semantic".into(),
        verdict: None,
        path: vec![id.to_string()],
        rule: None,
    }
}

fn main() {
    let lessons = count("--lessons", 100_000);
    let per_day = count("--per-day", 300);
    let runs = count("--runs", 20);
    let home = Home::new();
    std::fs::create_dir_all(home.path().join("config")).unwrap();
    // A year of log kept (a user who raised the retention), and no model.
    std::fs::write(home.path().join("config/tuneables.json"), json!({"model": {"enabled": false}, "sessions": {"retention_days": 400, "max_events": 1_000_000}}).to_string()).unwrap();
    home.up();

    let started = Instant::now();
    let mut corpus = String::new();
    for (i, line) in synthetic_lessons(lessons).lines().enumerate() {
        let mut v: Value = serde_json::from_str(line).unwrap();
        v["id"] = json!(format!("bench-{i}"));
        v["project"] = json!(project_of(i));
        corpus.push_str(&v.to_string());
        corpus.push('\n');
    }
    let file = home.path().join("lessons.jsonl");
    std::fs::write(&file, corpus).unwrap();
    let out = home.run_within(&["import", file.to_str().unwrap()], Duration::from_secs(3600));
    assert!(out.status.success(), "import failed: {}", String::from_utf8_lossy(&out.stderr));
    eprintln!("imported {lessons} lessons in {:.1} s", started.elapsed().as_secs_f64());
    home.down();

    // A year of what the daemon records, written into its store.
    let started = Instant::now();
    // The store's group committer runs on tokio: the runtime goes with the store, releasing it.
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let entered = runtime.enter();
    let store = Store::open(&home.path().join("data/store"), 64 << 20).expect("the store opens");
    let mut rng: u64 = 7;
    let mut next = |n: usize| -> usize {
        rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (rng >> 33) as usize % n
    };
    let mut item_rng: u64 = 11;
    let mut days: BTreeMap<(String, String), DayStats> = BTreeMap::new();
    let year_ago = time::OffsetDateTime::now_utc() - time::Duration::days(365);
    let mut events = 0usize;
    for day in 0..365 {
        for k in 0..per_day {
            let at_t = year_ago + time::Duration::days(day) + time::Duration::seconds((k * 86_000 / per_day) as i64);
            let at = cairn_daemon::base::clock::timestamp(at_t);
            let project = PROJECTS[next(5)];
            let session = format!("sess-{day}-{}", k / 40);
            let command = COMMANDS[next(COMMANDS.len())];
            let advised: Vec<AdviceItem> = if next(3) == 0 {
                // Lessons of this project said; `bench-7` is rare (a lesson's page and filter).
                (0..1 + next(2)).map(|_| format!("bench-{}", 10 + next(lessons - 10))).map(|id| item(&id, &mut item_rng)).collect()
            } else {
                Vec::new()
            };
            let e = SessionEvent {
                at: at.clone(),
                session_id: session.clone(),
                event: "PostToolUse".into(),
                project: project.into(),
                tool_name: Some("Bash".into()),
                tool_use_id: Some(format!("toolu_{day}_{k}")),
                intent: Some(format!("run it {command}")),
                meaning: Some(format!("Run the command: {command}")),
                payload: json!({"session_id": session, "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": command, "description": "run it"}, "tool_response": {"stdout": "x".repeat(600), "stderr": "", "interrupted": false}}),
                advised,
                decision: None,
                shadow: Vec::new(),
            };
            store.append_event(&e).unwrap();
            events += 1;
            let key = (daily::day_of(&at).unwrap().to_string(), project.to_string());
            let d = days.entry(key.clone()).or_insert_with(|| DayStats { day: key.0.clone(), ..Default::default() });
            daily::count_event(d, &e);
            d.time_hook(1.0 + next(40) as f64 / 10.0);
            for a in &e.advised {
                let verdict = VERDICTS[next(4)];
                let record = OutcomeRecord { at: at.clone(), session_id: session.clone(), event: e.event.clone(), tool_use_id: e.tool_use_id.clone(), project: project.into(), memory: a.id.clone(), verdict: verdict.into(), settled: true, evidence: "the next call".into(), decided_at: at.clone() };
                store.put_outcome(&outcome_key(&at, &session, &e.event, e.tool_use_id.as_deref(), &a.id), &record).unwrap();
                d.move_verdict(None, verdict);
            }
        }
    }
    for ((_, project), stats) in &days {
        store.put_day_stats(project, stats).unwrap();
    }
    // A full adjustment log (the default bound), 50 lines of it about `bench-7`.
    for n in 0..100_000usize {
        let node = if n % 2000 == 0 { "bench-7".to_string() } else { format!("bench-{}", 10 + next(lessons - 10)) };
        let line = json!({"at": "2026-06-01T00:00:00.000Z", "source": "outcome", "node": node, "field": "effectiveness", "old": 0.5, "new": 0.6, "delta": 0.1, "reason": "followed at a moment like this one, in a session of the bench"});
        store.append_adjustment(&line, 100_000).unwrap();
    }
    store.flush().unwrap();
    drop(store);
    drop(entered);
    drop(runtime);
    eprintln!("wrote {events} events, their outcomes, {} day records and 100,000 adjustments in {:.1} s", days.len(), started.elapsed().as_secs_f64());

    home.up();
    let url = home.ok(&["ui", "--no-open"]).trim().to_string();
    let (base, token) = url.split_once("/?token=").unwrap();
    let agent: ureq::Agent = ureq::Agent::config_builder().max_redirects(0).http_status_as_error(false).timeout_global(Some(Duration::from_secs(60))).build().into();
    let cookie = format!("cairn_ui_{}={token}", base.rsplit(':').next().unwrap());
    let fetch = |path: &str| -> (u16, String, Duration) {
        let t = Instant::now();
        let mut r = agent.get(format!("{base}{path}")).header("Cookie", &cookie).call().expect("the dashboard answers");
        let body = r.body_mut().read_to_string().unwrap();
        (r.status().as_u16(), body, t.elapsed())
    };
    // A cursor some pages deep into the log.
    let mut deep = String::new();
    for _ in 0..5 {
        let (_, body, _) = fetch(&format!("/advice{deep}"));
        let at = body.find("href=\"/advice?before=").expect("an older page") + 6;
        deep = body[at..].split('"').next().unwrap().trim_start_matches("/advice").replace("&amp;", "&");
    }
    let pages = [
        "/".to_string(),
        "/?days=365".into(),
        "/?project=%2Fbench%2Fp0&days=365".into(),
        "/advice".into(),
        "/advice?project=%2Fbench%2Fp0".into(),
        format!("/advice{deep}"),
        "/advice?outcome=contradicted".into(),
        "/advice?lesson=bench-7".into(),
        "/lessons".into(),
        "/lessons?project=%2Fbench%2Fp0".into(),
        "/lessons?q=rotate+the+secrets&project=%2Fbench%2Fp0".into(),
        "/lesson/bench-7".into(),
        "/review".into(),
        "/learning?project=%2Fbench%2Fp0".into(),
    ];
    println!("| page | median ms | p95 ms | max ms | bytes |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    for p in &pages {
        let mut times = Vec::new();
        let mut size = 0;
        for i in 0..runs + 2 {
            let (status, body, t) = fetch(p);
            assert_eq!(status, 200, "{p}: {body}");
            size = body.len();
            if i >= 2 {
                times.push(t);
            }
        }
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let max = times.iter().max().copied().unwrap_or_default();
        println!("| `{p}` | {:.1} | {:.1} | {:.1} | {size} |", ms(median(&mut times)), ms(percentile(&mut times, 0.95)), ms(max));
    }
    if let Some(dir) = arg("--shots") {
        std::fs::create_dir_all(&dir).unwrap();
        let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("browser/dashboard.mjs");
        let out = std::process::Command::new("node")
            .arg(script)
            .arg(std::env::var("CAIRN_PUPPETEER").expect("CAIRN_PUPPETEER"))
            .arg(std::env::var("CAIRN_CHROMIUM").expect("CAIRN_CHROMIUM"))
            .arg(&url)
            .arg(&dir)
            .args(["/?days=90", "/advice"])
            .output()
            .expect("node runs");
        println!("{}", String::from_utf8_lossy(&out.stdout));
    }
    if flag("--keep") {
        // Leave it up to look around: the URL and the home, until stdin closes.
        eprintln!("serving {url} (CAIRN_HOME={}); close stdin to stop", home.path().display());
        let _ = std::io::Read::read_to_end(&mut std::io::stdin(), &mut Vec::new());
    }
    let _ = home.run(&["ui", "--stop"]);
}
