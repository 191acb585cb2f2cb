//! Hook benchmark (not a test): wall time of the `cairn hook` process for PreToolUse (with
//! advice, over N memories, the query's embedding cached or not) and PostToolUse (advice on the
//! call's result, as `hooks install` wires it: a test run, its query cached after the first run),
//! beside `/bin/true` and a Python script that only parses the same payload; plus the hook with
//! no daemon listening. With the model present (`CAIRN_MODEL_DIR`, or the default models
//! folder) it also measures query embedding cold and cached, search latency over the socket,
//! and the daemon's RSS after loading the model and after the import.
//!
//! With `--situations N` the home also holds a memory graph: N situations spread over 50
//! projects (the benchmark's own, `/tmp`, among them, with at most 2,000: a project's bound) and
//! `--links K` `applies` edges from each (default 10) to lessons, imported as export lines, so
//! that each hook event compares its moment with its project's situations. `--own K` sets how
//! many of them are the hook's project's (default N / 50, at most 2,000).
//!
//! Run: `cargo build --release --bins && cargo run --release -p cairn-tests --bin cairn-hook-bench -- [--memories N] [--runs N] [--situations N [--links K] [--own K]] [--learning-off] [--outcomes-off] [--capture-off] [--home DIR]`
//!
//! `--home DIR` keeps the imported home in DIR (after the runs, with the daemon down) and, when DIR
//! already holds one, starts from a copy of it instead of importing again: at 100k the import
//! takes minutes, a copy seconds. The corpus options must match the ones DIR was made with.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cairn_proto::{CairnClient, Scope, SearchRequest};
use cairn_tests::{cairn_bin, eventually, median, percentile, synthetic_lessons, Home};
use serde_json::{json, Value};

fn arg(name: &str, default: usize) -> usize {
    cairn_tests::arg(name).and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Copies a home's files (not its socket) from `from` into `to`, creating `to`.
fn copy_home(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).expect("home folder");
    let status = Command::new("cp").arg("-a").arg(from.join(".")).arg(to).status().expect("cp");
    assert!(status.success(), "cannot copy {} to {}", from.display(), to.display());
    for name in ["cairn.sock", "cairnd.pid"] {
        let _ = std::fs::remove_file(to.join(name));
    }
    // A kept home's log is not the next run's: `--log-to` keeps only what that run wrote.
    let _ = std::fs::remove_dir_all(to.join("logs"));
}

/// Wall time of one process given `payload` on stdin, and whether it printed anything.
fn time_process(cmd: &mut Command, payload: &[u8]) -> (Duration, bool) {
    let started = Instant::now();
    let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let _ = stdin.write_all(payload);
    drop(stdin);
    let out = child.wait_with_output().expect("wait");
    (started.elapsed(), !out.stdout.is_empty())
}


fn p99(v: &mut [Duration]) -> Duration {
    percentile(v, 0.99)
}

/// A query of about twelve tokens, different for every `i`.
fn query(i: usize) -> String {
    const ACTIONS: &[&str] = &["rotate", "deploy", "migrate", "review", "cache", "rebuild", "pin", "split"];
    const THINGS: &[&str] = &["the staging database", "our api tokens", "the docker images", "every helm chart", "the kafka consumers", "the nightly cron jobs"];
    format!("{} {} before the release on day {i} of the sprint", ACTIONS[i % ACTIONS.len()], THINGS[(i / ACTIONS.len()) % THINGS.len()])
}

/// In-process: one query's embedding, cold (a new text each time) and cached (the LRU).
fn embedding_latency(models: &std::path::Path, runs: usize) -> Option<(Vec<Duration>, Vec<Duration>)> {
    let spec = cairn_daemon::semantic::embed::ModelSpec::builtin(models, 256, 2);
    let embedder = cairn_daemon::semantic::embed::Embedder::load(&spec).ok()?;
    let cache = cairn_daemon::semantic::cache::QueryCache::new(1024);
    let _ = cache.vector(&embedder, "warm the model up", cairn_daemon::semantic::Wait::Always);
    let (mut cold, mut cached) = (Vec::new(), Vec::new());
    for i in 0..runs {
        let q = query(i);
        let t = Instant::now();
        cache.vector(&embedder, &q, cairn_daemon::semantic::Wait::Always).expect("embed");
        cold.push(t.elapsed());
        let t = Instant::now();
        cache.vector(&embedder, &q, cairn_daemon::semantic::Wait::Always).expect("cached");
        cached.push(t.elapsed());
    }
    Some((cold, cached))
}

/// Over the socket: `search` for new queries (embedded on the way) and for one repeated query.
fn search_latency(home: &Home, runs: usize) -> (Vec<Duration>, Vec<Duration>) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    rt.block_on(async {
        let stream = tokio::net::UnixStream::connect(home.socket()).await.expect("connect");
        let client = CairnClient::new(tarpc::client::Config::default(), cairn_proto::transport::wrap(stream)).spawn();
        let ask = |text: String| SearchRequest { text, scope: Scope { project: Some("/tmp".into()), ..Default::default() }, k: Some(10), browse: false };
        let (mut cold, mut cached) = (Vec::new(), Vec::new());
        for i in 0..runs {
            let t = Instant::now();
            client.search(tarpc::context::current(), ask(format!("{} (search {i})", query(i)))).await.expect("rpc").expect("search");
            cold.push(t.elapsed());
            let t = Instant::now();
            client.search(tarpc::context::current(), ask(query(0))).await.expect("rpc").expect("search");
            cached.push(t.elapsed());
        }
        (cold, cached)
    })
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn rss_mb(pid: i32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status.lines().find_map(|l| l.strip_prefix("VmRSS:")).and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok()).map_or(0.0, |kb| kb / 1024.0)
}

/// `n` situations over 50 projects (`/tmp`, the hook's, holding at most 2,000) and `links`
/// edges from each to lessons among the first `lessons`, as export lines.
fn graph_lines(n: usize, links: usize, lessons: usize, own: usize) -> String {
    const WORDS: &[&str] = &["install", "deploy", "migrate", "push", "test", "build", "release", "rename", "delete", "format", "query", "cache", "lint", "bump", "revert"];
    const THINGS: &[&str] = &["the api", "left-pad", "the schema", "main", "the docs", "the worker", "a column", "the lockfile", "staging", "the cli", "users table", "the build folder"];
    let mut state: u64 = 7;
    let mut next = move |m: usize| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) as usize % m.max(1)
    };
    let at = "2026-11-25T00:00:00.000Z";
    let mut out = String::new();
    for i in 0..n {
        // The hook's project gets every (n / own)-th situation, `own` of them in all.
        let every = (n / own.max(1)).max(1);
        let project = if i % every == 0 && i / every < own { "/tmp".to_string() } else { format!("/bench-project-{}", i % 50) };
        let text = format!("{} {} {} (moment {i})", WORDS[next(WORDS.len())], THINGS[next(THINGS.len())], WORDS[next(WORDS.len())]);
        let id = format!("sit_{i:08}");
        let situation = json!({"id": id, "project": project, "event": "PostToolUse", "tool": "Bash", "text": text, "meaning": text, "created_at": at, "last_seen": at, "seen": 1});
        out.push_str(&json!({"v": 1, "kind": "situation", "situation": situation}).to_string());
        out.push('\n');
        for _ in 0..links {
            let strength = if next(4) == 0 { 0.45 } else { 0.55 };
            let edge = json!({"source": id, "target": format!("lesson-{:07}", next(lessons)), "kind": "applies", "strength": strength, "created_at": at, "updated_at": at});
            out.push_str(&json!({"v": 1, "kind": "edge", "edge": edge}).to_string());
            out.push('\n');
        }
    }
    out
}

struct Row {
    name: &'static str,
    times: Vec<Duration>,
}

fn main() {
    let memories = arg("--memories", 10_000);
    let runs = arg("--runs", 200);
    let models = std::env::var_os("CAIRN_MODEL_DIR").map(std::path::PathBuf::from).unwrap_or_else(|| cairn_proto::Paths::from_env().expect("paths").models_dir);
    let embedding = embedding_latency(&models, runs);
    let home = Home::new();
    // `--learning-off`: the same home with what was learned left out of advice, to tell the
    // graph's own cost from the store's size.
    // `--outcomes-off`: without the outcome worker's work behind each hook.
    let flag = |f: &str| std::env::args().any(|a| a == f);
    let learning = match (flag("--learning-off"), flag("--outcomes-off")) {
        (false, false) => None,
        (off, outcomes_off) => Some(json!({"enabled": !off, "outcomes": !outcomes_off})),
    };
    // `--capture-off`: without capture's note behind each hook and its worker.
    let mut settings = json!({});
    if let Some(learning) = learning {
        settings["learning"] = learning;
    }
    if flag("--capture-off") {
        settings["capture"] = json!({"enabled": false});
    }
    // `--home DIR`: start from a copy of a home imported before (see the module's note).
    let kept = cairn_tests::arg("--home").map(std::path::PathBuf::from);
    let reused = kept.as_ref().is_some_and(|dir| dir.join("bench.jsonl").is_file());
    if let Some(dir) = kept.as_ref().filter(|_| reused) {
        copy_home(dir, home.path());
    }
    if settings.as_object().is_some_and(|o| !o.is_empty()) {
        std::fs::create_dir_all(home.path().join("config")).expect("config folder");
        std::fs::write(home.path().join("config/tuneables.json"), settings.to_string()).expect("tuneables");
    }
    home.ok(&["up"]);
    let status = |home: &Home| -> Value { serde_json::from_str(&home.ok(&["status", "--json"])).expect("status") };
    // The full daemon loads the model in the background right after start.
    eventually(Duration::from_secs(30), || status(&home)["model"] != "loading");
    let model = status(&home)["model"].as_str().unwrap_or_default().to_string();
    let rss_loaded = rss_mb(home.daemon_pid().expect("daemon pid"));

    let situations = arg("--situations", 0);
    let links = arg("--links", 10);
    let mut corpus = synthetic_lessons(memories);
    if situations > 0 {
        // Lessons named, so that edges can reach them; then the graph.
        corpus = corpus.lines().enumerate().map(|(i, l)| {
            let mut v: Value = serde_json::from_str(l).expect("lesson line");
            v["id"] = json!(format!("lesson-{i:07}"));
            format!("{v}\n")
        }).collect();
        corpus.push_str(&graph_lines(situations, links, memories, arg("--own", (situations / 50).min(2000))));
    }
    corpus.push_str(&json!({"text": "Never force-push to main; open a pull request instead", "category": "git"}).to_string());
    corpus.push('\n');
    let file = home.path().join("bench.jsonl");
    let started = Instant::now();
    if reused {
        println!("home copied from {} (its import's time is not measured)", kept.as_ref().map(|d| d.display().to_string()).unwrap_or_default());
        eventually(Duration::from_secs(600), || status(&home)["index"]["indexed"].as_u64().unwrap_or(0) > memories as u64);
    } else {
        std::fs::write(&file, corpus).expect("write corpus");
        // Every memory is embedded as it is imported: allow it the time that takes.
        let out = home.run_within(&["import", file.to_str().unwrap()], Duration::from_secs(3600));
        assert!(out.status.success(), "import failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    let import_time = started.elapsed();
    let pid = home.daemon_pid().expect("daemon pid");
    let indexed = status(&home)["index"]["indexed"].as_u64().unwrap_or(0);
    let rss_imported = rss_mb(pid);
    let (mut search_cold, mut search_cached) = search_latency(&home, runs.min(200));

    let pre = |i: usize| {
        json!({"session_id": format!("bench-{i}"), "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp", "permission_mode": "default",
               "hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": "git push --force origin main", "description": "Force push the branch to main"}})
        .to_string()
    };
    let post = |i: usize| {
        json!({"session_id": format!("bench-{i}"), "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp", "permission_mode": "default",
               "hook_event_name": "PostToolUse", "tool_name": "Bash",
               "tool_input": {"command": "cargo test", "description": "Run tests"},
               "tool_response": {"stdout": "test result: ok. 12 passed", "stderr": "", "interrupted": false, "isImage": false}})
        .to_string()
    };

    // An edit that takes words out (the decision reads them against each candidate lesson).
    let edit = |i: usize| {
        json!({"session_id": format!("bench-edit-{i}"), "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp", "permission_mode": "default",
               "hook_event_name": "PreToolUse", "tool_name": "Edit",
               "tool_input": {"file_path": "/tmp/src/auth/session.ts",
                              "old_string": "const claims = await verifyJwt(token, env.JWT_PUBLIC_KEY);",
                              "new_string": "const claims = decodeJwt(token); // the gateway checked it already"}})
        .to_string()
    };

    // A new command each run: the query's embedding is not in the cache.
    let pre_cold = |i: usize| {
        json!({"session_id": format!("bench-cold-{i}"), "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp", "permission_mode": "default",
               "hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": format!("git push --force origin release-{i}"), "description": format!("Force push release branch {i}")}})
        .to_string()
    };

    let mut rows = vec![
        Row { name: "cairn hook, PreToolUse (advice, query embedding cached)", times: vec![] },
        Row { name: "cairn hook, PostToolUse (advice on the result, query cached)", times: vec![] },
        Row { name: "/bin/true", times: vec![] },
        Row { name: "python3 json.load(stdin)", times: vec![] },
        Row { name: "cairn hook, PreToolUse (advice, new query: embedded)", times: vec![] },
        Row { name: "cairn hook, PreToolUse Edit taking words out (query cached)", times: vec![] },
    ];
    // The interpreter itself, not a version-manager shim in front of it.
    let python = Command::new("python3").args(["-c", "import sys; print(sys.executable)"]).output().ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string()).filter(|p| !p.is_empty()).unwrap_or_else(|| "python3".into());
    let (mut advised, mut advised_cold) = (0, 0);
    let cairn = |home: &Home| {
        let mut c = Command::new(cairn_bin());
        c.arg("hook").env("CAIRN_HOME", home.path());
        c
    };
    // Interleaved, so drift on the machine touches every row alike.
    for i in 0..runs {
        let (t, printed) = time_process(&mut cairn(&home), pre(i).as_bytes());
        rows[0].times.push(t);
        advised += printed as usize;
        rows[1].times.push(time_process(&mut cairn(&home), post(i).as_bytes()).0);
        rows[2].times.push(time_process(&mut Command::new("/bin/true"), pre(i).as_bytes()).0);
        rows[3].times.push(time_process(Command::new(&python).args(["-c", "import json,sys; json.load(sys.stdin)"]), pre(i).as_bytes()).0);
        let (t, printed) = time_process(&mut cairn(&home), pre_cold(i).as_bytes());
        rows[4].times.push(t);
        advised_cold += printed as usize;
        rows[5].times.push(time_process(&mut cairn(&home), edit(i).as_bytes()).0);
    }
    // `--burst K`: rounds of K hooks at once, each a new query, as Claude Code runs the hooks of
    // parallel tool calls; then how many the log shows answered by keywords alone (the model
    // busy with another hook's embedding for longer than `model.hook_wait_ms`).
    let burst = arg("--burst", 0);
    let burst_report = (burst > 0).then(|| {
        let rounds = runs.min(30);
        let mut times = Vec::new();
        for r in 0..rounds {
            let payloads: Vec<String> = (0..burst)
                .map(|i| {
                    json!({"session_id": format!("bench-burst-{r}-{i}"), "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp", "permission_mode": "default",
                           "hook_event_name": "PreToolUse", "tool_name": "Bash",
                           "tool_input": {"command": format!("git push --force origin release-{r}-{i}"), "description": format!("Force push release branch {r}-{i}")}})
                    .to_string()
                })
                .collect();
            std::thread::scope(|s| {
                let handles: Vec<_> = payloads.iter().map(|p| s.spawn(|| time_process(&mut cairn(&home), p.as_bytes()).0)).collect();
                times.extend(handles.into_iter().map(|h| h.join().expect("burst hook")));
            });
            std::thread::sleep(Duration::from_millis(300));
        }
        let log: Value = serde_json::from_str(&home.ok(&["log", "--json", "--all", "--last", "10000"])).expect("log");
        let answered: Vec<&Value> = log["entries"].as_array().into_iter().flatten().filter(|e| e["session_id"].as_str().is_some_and(|s| s.starts_with("bench-burst-"))).collect();
        let by_keywords = answered.iter().filter(|e| e["items"][0]["signals"].get("in.meaning").is_none()).count();
        (rounds, times, answered.len(), by_keywords)
    });
    let rss = rss_mb(pid);
    home.ok(&["down"]);
    if let Some(dir) = kept.as_ref().filter(|_| !reused) {
        copy_home(home.path(), dir);
    }
    // `--log-to DIR`: keep the daemon's log (set `CAIRN_LOG` to choose what it records).
    if let Some(dir) = std::env::args().skip_while(|a| a != "--log-to").nth(1) {
        let target = std::path::Path::new(&dir);
        std::fs::create_dir_all(target).expect("log folder");
        for entry in std::fs::read_dir(home.path().join("logs")).into_iter().flatten().flatten() {
            std::fs::copy(entry.path(), target.join(entry.file_name())).expect("copy the log");
        }
    }

    let mut unreachable = Vec::new();
    for i in 0..runs.min(100) {
        let mut c = cairn(&home);
        c.env("CAIRN_AUTOSTART", "0");
        unreachable.push(time_process(&mut c, pre(i).as_bytes()).0);
    }

    let true_median = median(&mut rows[2].times.clone());
    let python_median = median(&mut rows[3].times.clone());
    println!("hook benchmark: {memories} memories, {situations} situations with {} edges, {runs} runs each, interleaved", situations * links);
    println!("model: {model}");
    let how = if reused { "copied from a kept home, not imported: time to index" } else { "embedded as imported" };
    println!(
        "import of {} memories ({how}): {:.1} s, {indexed} indexed; daemon RSS: {rss_loaded:.1} MB after start (model loaded), {rss_imported:.1} MB after the import, {rss:.1} MB after the runs",
        memories + 1,
        import_time.as_secs_f64()
    );
    println!("PreToolUse runs that printed advice: {advised}/{runs} (cached query), {advised_cold}/{runs} (new query)");
    println!();
    println!("| process | median ms | p90 ms | p99 ms | x /bin/true | x python3 |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    for row in &mut rows {
        let m = median(&mut row.times);
        println!(
            "| {} | {:.2} | {:.2} | {:.2} | {:.1} | {:.2} |",
            row.name,
            ms(m),
            ms(percentile(&mut row.times, 0.9)),
            ms(p99(&mut row.times)),
            ms(m) / ms(true_median),
            ms(m) / ms(python_median)
        );
    }
    let m = median(&mut unreachable);
    println!(
        "| cairn hook, daemon down | {:.2} | {:.2} | {:.2} | {:.1} | {:.2} |",
        ms(m),
        ms(percentile(&mut unreachable, 0.9)),
        ms(p99(&mut unreachable)),
        ms(m) / ms(true_median),
        ms(m) / ms(python_median)
    );
    println!();
    if let Some((rounds, mut times, answered, by_keywords)) = burst_report {
        println!(
            "{rounds} rounds of {burst} hooks at once (new queries): {answered} answered with advice, {by_keywords} of them by keywords alone; wall time median {:.2} ms, p90 {:.2}, max {:.2}",
            ms(median(&mut times)),
            ms(percentile(&mut times, 0.9)),
            ms(times.iter().copied().max().unwrap_or_default())
        );
    }
    if let Some((mut cold, mut cached)) = embedding {
        println!("query embedding (in process, ~12 tokens): cold median {:.2} ms (p99 {:.2}); cached median {:.4} ms", ms(median(&mut cold)), ms(p99(&mut cold)), ms(median(&mut cached)));
    }
    println!(
        "search over the socket (k 10, hybrid): new query median {:.2} ms (p99 {:.2}); repeated query median {:.2} ms (p99 {:.2})",
        ms(median(&mut search_cold)),
        ms(p99(&mut search_cold)),
        ms(median(&mut search_cached)),
        ms(p99(&mut search_cached))
    );
}
