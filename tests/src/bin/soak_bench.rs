//! Soak benchmark (not a test): a daemon with N memories under mixed traffic for a long while,
//! watched for growth and errors. Hook processes run at a steady rate in the shape of real
//! sessions (a start, prompts, tool results with some failures, a stop and an end); every minute
//! a lesson is added, a search is run and the settings file is changed (the live reload). Per
//! window it reports the hook's median and p99 wall time, and the daemon's resident memory and
//! open files; any hook that breaks its contract (exit 0, nothing or one JSON object), any
//! failed add or search, counts as an error.
//!
//! Run: `cargo build --release --bins && cargo run --release -p cairn-tests --bin cairn-soak-bench -- [--minutes 30] [--rate 10] [--memories 10000] [--window 5] [--store-cache-mb N]`
//! (`--store-cache-mb` sets `store.cache_mb` before the daemon starts, to tell the store's page
//! cache filling from other growth).
//! (with the model: `CAIRN_MODEL_DIR`, as for the other benchmarks).

use std::io::Write;
use std::process::Stdio;
use std::time::{Duration, Instant};

use cairn_tests::{eventually, median, percentile, synthetic_lessons, Home};
use serde_json::{json, Value};

fn arg(name: &str, default: u64) -> u64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn rss_mb(pid: i32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status.lines().find_map(|l| l.strip_prefix("VmRSS:")).and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok()).map_or(0.0, |kb| kb / 1024.0)
}

fn open_files(pid: i32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map(|d| d.count()).unwrap_or(0)
}

/// The `i`-th event of the traffic: sessions of 40 events, in the shape Claude Code sends them.
fn event(i: u64, cwd: &str) -> Value {
    const COMMANDS: &[&str] = &[
        "npm install left-pad",
        "git push --force origin main",
        "cargo test --workspace",
        "terraform apply -auto-approve",
        "kubectl delete pod api-7f9c",
        "ls -la",
        "docker build -t api .",
        "psql -c 'select 1'",
        "rm -rf build/",
        "pytest -x tests/",
    ];
    const PROMPTS: &[&str] = &["rotate the api tokens before the release", "why do the docker images rebuild every time", "add a migration that renames the column", "fix the flaky unit tests", "deploy the payments service to staging"];
    let session = format!("soak-{}", i / 40);
    let n = i % 40;
    let base = json!({"session_id": session, "cwd": cwd, "transcript_path": "/tmp/none.jsonl"});
    let mut e = base.as_object().cloned().unwrap_or_default();
    let mut set = |k: &str, v: Value| {
        e.insert(k.to_string(), v);
    };
    match n {
        0 => {
            set("hook_event_name", json!("SessionStart"));
            set("source", json!("startup"));
        }
        1 | 15 | 30 => {
            set("hook_event_name", json!("UserPromptSubmit"));
            set("prompt", json!(PROMPTS[(i as usize / 7) % PROMPTS.len()]));
        }
        38 => {
            set("hook_event_name", json!("Stop"));
        }
        39 => {
            set("hook_event_name", json!("SessionEnd"));
            set("reason", json!("exit"));
        }
        _ => {
            let command = COMMANDS[(i as usize * 7 + n as usize) % COMMANDS.len()];
            let failed = n % 9 == 4;
            set("hook_event_name", json!(if failed { "PostToolUseFailure" } else { "PostToolUse" }));
            set("tool_name", json!("Bash"));
            set("tool_use_id", json!(format!("toolu_soak_{i}")));
            set("tool_input", json!({"command": command, "description": "Run it"}));
            if failed {
                set("error", json!("exit status 1: command failed"));
            } else {
                set("tool_response", json!({"stdout": "done\n".repeat(20), "stderr": "", "interrupted": false}));
            }
        }
    }
    Value::Object(e)
}

/// Runs one hook process; its wall time, and whether it kept the contract.
fn hook(home: &Home, payload: &[u8]) -> (Duration, bool) {
    let started = Instant::now();
    let Ok(mut child) = home.cairn().arg("hook").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn() else {
        return (started.elapsed(), false);
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(payload);
    }
    let Ok(out) = child.wait_with_output() else { return (started.elapsed(), false) };
    let took = started.elapsed();
    let ok = out.status.success() && (out.stdout.is_empty() || serde_json::from_slice::<Value>(&out.stdout).is_ok_and(|v| v.is_object()));
    (took, ok)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

struct Window {
    times: Vec<Duration>,
    errors: u64,
    rss: f64,
    files: usize,
}

fn main() {
    let minutes = arg("--minutes", 30);
    let rate = arg("--rate", 10).max(1);
    let memories = arg("--memories", 10_000) as usize;
    let window = Duration::from_secs(arg("--window", 5) * 60);
    let cache_mb = arg("--store-cache-mb", 0);
    let home = Home::new();
    let config = home.path().join("config/tuneables.json");
    std::fs::create_dir_all(config.parent().unwrap()).expect("config folder");
    let settings = |items: u64| {
        let mut v = json!({"advice": {"max_items_prompt": items}});
        if cache_mb > 0 {
            v["store"] = json!({"cache_mb": cache_mb});
        }
        v.to_string()
    };
    std::fs::write(&config, settings(8)).expect("config");
    home.ok(&["up"]);
    let status = |home: &Home| -> Value { serde_json::from_str(&home.ok(&["status", "--json"])).expect("status") };
    eventually(Duration::from_secs(30), || status(&home)["model"] != "loading");
    let file = home.path().join("lessons.jsonl");
    std::fs::write(&file, synthetic_lessons(memories)).expect("lessons");
    let out = home.run_within(&["import", file.to_str().unwrap(), "--project", "/tmp"], Duration::from_secs(3600));
    assert!(out.status.success(), "import failed: {}", String::from_utf8_lossy(&out.stderr));
    let pid = home.daemon_pid().expect("pid");
    let s = status(&home);
    println!("soak: {minutes} min at {rate} hook events/s, {} memories, model: {}, store cache {}", s["memories"], s["model"], if cache_mb > 0 { format!("{cache_mb} MB") } else { "default".into() });
    let (rss0, files0) = (rss_mb(pid), open_files(pid));
    println!("start: RSS {rss0:.1} MB, {files0} open files");

    let started = Instant::now();
    let total = Duration::from_secs(minutes * 60);
    let mut windows: Vec<Window> = Vec::new();
    let mut current = Window { times: Vec::new(), errors: 0, rss: 0.0, files: 0 };
    let mut next_minute = Duration::from_secs(60);
    let mut minute = 0u64;
    let mut i = 0u64;
    while started.elapsed() < total {
        // The next event's time on the steady schedule.
        let due = Duration::from_secs_f64(i as f64 / rate as f64);
        if let Some(wait) = due.checked_sub(started.elapsed()) {
            std::thread::sleep(wait);
        }
        let (took, ok) = hook(&home, event(i, "/tmp").to_string().as_bytes());
        current.times.push(took);
        current.errors += u64::from(!ok);
        i += 1;
        if started.elapsed() >= next_minute {
            minute += 1;
            next_minute += Duration::from_secs(60);
            let add = home.run_within(&["add", "--project", "/tmp", &format!("Soak lesson {minute}: check the staging database before each release")], Duration::from_secs(60));
            let search = home.run_within(&["search", "--project", "/tmp", "staging database release"], Duration::from_secs(60));
            current.errors += u64::from(!add.status.success()) + u64::from(!search.status.success());
            let items = if minute.is_multiple_of(2) { 8 } else { 7 };
            std::fs::write(&config, settings(items)).expect("config");
        }
        if started.elapsed() >= window * (windows.len() as u32 + 1) {
            current.rss = rss_mb(pid);
            current.files = open_files(pid);
            windows.push(std::mem::replace(&mut current, Window { times: Vec::new(), errors: 0, rss: 0.0, files: 0 }));
        }
    }
    if !current.times.is_empty() {
        current.rss = rss_mb(pid);
        current.files = open_files(pid);
        windows.push(current);
    }
    let s = status(&home);
    let config_state = s["config"].as_str().unwrap_or_default().to_string();
    println!("| window | hook events | median ms | p99 ms | errors | RSS MB | open files |");
    println!("|---|---|---|---|---|---|---|");
    let mut errors = 0;
    for (n, w) in windows.iter_mut().enumerate() {
        errors += w.errors;
        println!("| {} | {} | {:.2} | {:.2} | {} | {:.1} | {} |", n + 1, w.times.len(), ms(median(&mut w.times)), ms(percentile(&mut w.times, 0.99)), w.errors, w.rss, w.files);
    }
    println!(
        "end: RSS {:.1} MB (start {rss0:.1}), {} open files (start {files0}); {i} hook events, {minute} adds/searches/config changes, {errors} errors; memories {}, session events {}, config {config_state}",
        rss_mb(pid),
        open_files(pid),
        s["memories"],
        s["session_events"]
    );
    home.ok(&["down"]);
}
