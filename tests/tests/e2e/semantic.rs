//! The semantic engine with the real model: meaning over words, the hook's query embedded,
//! batches that agree with single texts, long texts, the index surviving a crash, project
//! isolation, a missing or tampered model, reindex, and a model change.

use std::time::Duration;

use cairn_daemon::retrieval::similarity::cosine;
use cairn_daemon::semantic::embed::{Embedder, ModelSpec};
use cairn_tests::*;
use serde_json::Value;

fn json(out: &str) -> Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}

fn search(home: &Home, args: &[&str]) -> Value {
    let mut all = vec!["search", "--json"];
    all.extend_from_slice(args);
    json(&home.ok(&all))
}

fn ids(v: &Value) -> Vec<String> {
    v["results"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap().to_string()).collect()
}

fn embedder() -> Embedder {
    let dir = model_dir();
    Embedder::load(&ModelSpec::builtin(&dir, 256, 2)).expect("model loads")
}

#[test]
fn meaning_beats_missing_words() {
    model_dir();
    let home = Home::new();
    home.up();
    let token = home.ok(&["add", "Validate tokens server-side; never trust claims the client sends", "--global", "--category", "security"]);
    home.ok(&["add", "Keep the changelog in reverse chronological order", "--global", "--category", "docs"]);
    home.ok(&["add", "The office plants need water on Fridays", "--global"]);

    let v = search(&home, &["edit", "authentication", "code"]);
    assert_eq!(v["mode"], "hybrid", "{v}");
    let first = &v["results"][0];
    assert_eq!(first["id"], token.trim(), "an auth query ranks the token lesson first: {v}");
    for key in ["id", "text", "project", "category", "score", "similarity", "bm25", "why"] {
        assert!(first.get(key).is_some(), "result lacks {key}");
    }
    assert_eq!(first["bm25"], 0.0, "no shared word: found by meaning alone");
    let sims: Vec<f64> = v["results"].as_array().unwrap().iter().map(|r| r["similarity"].as_f64().unwrap()).collect();
    // The others share no word and little meaning: shown below it, or not at all (search shows
    // only what has some evidence).
    assert!(sims[1..].iter().all(|&s| s < sims[0]), "{sims:?}");
    assert!(sims[1..].iter().all(|&s| s >= 0.15), "shown without evidence: {v}");
    assert!(first["why"].as_str().unwrap().contains("semantic"), "{first}");

    // -k bounds the answer; bad -k is bad usage.
    assert_eq!(ids(&search(&home, &["-k", "1", "authentication"])).len(), 1);
    assert_eq!(home.run(&["search", "-k", "0", "x"]).status.code(), Some(2));
    assert_eq!(home.run(&["search"]).status.code(), Some(2));

    // The plain-text form says the same.
    let text = home.ok(&["search", "edit", "authentication", "code"]);
    assert!(text.contains(token.trim()) && text.contains("similarity"), "{text}");
    home.down();
}

#[test]
fn the_model_runtime_writes_nothing_outside_the_home() {
    model_dir();
    // A user whose cache folder is in their home: ONNX Runtime keeps a device id and an event
    // store there unless the daemon points it into its own home.
    let user = tempfile::tempdir().unwrap();
    let cache = user.path().join(".cache");
    let home = Home::new().with_env("HOME", user.path()).with_env("XDG_CACHE_HOME", &cache);
    home.up();
    home.ok(&["search", "warm up"]);
    assert!(eventually(Duration::from_secs(60), || home.status()["model"] == "loaded"), "{}", home.status());
    std::thread::sleep(Duration::from_secs(2));
    let outside: Vec<_> = walk(user.path());
    assert!(outside.is_empty(), "written outside the home: {outside:?}");
}

/// Every file under `dir`.
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() { out.extend(walk(&path)) } else { out.push(path) }
    }
    out
}

#[test]
fn the_hook_embeds_its_query() {
    model_dir();
    let home = Home::new();
    home.up();
    let lesson = home.ok(&["add", "Never force-push to main; open a pull request instead", "--global", "--category", "git"]);
    // The hook never waits for the model: once it is loaded, the hook's own answer carries the
    // lesson's closeness in meaning to the prompt (a new session each time, so no cooldown).
    let mut n = 0;
    let mut last = String::new();
    let embedded = eventually(Duration::from_secs(30), || {
        n += 1;
        let payload = serde_json::json!({"session_id": format!("s{n}"), "cwd": home.path(), "hook_event_name": "UserPromptSubmit", "prompt": "please force push my branch to main"});
        last = additional_context(&assert_hook_contract(&home.hook(payload.to_string().as_bytes())));
        last.contains("meaning 0.")
    });
    assert!(embedded, "the hook's answer shows the query's similarity: {last}");
    assert!(last.contains("Never force-push to main"), "{last}");
    let logged = home.ok(&["log", "--json"]);
    assert!(logged.contains(lesson.trim()), "what the hook said is in the log: {logged}");
    home.down();
}

#[test]
fn a_text_alone_embeds_as_in_a_batch() {
    let e = embedder();
    let texts = [
        "short",
        "Never force-push to main; open a pull request instead",
        "Run the database migration on a staging copy first, and keep a backup of the production data before the real run",
        "tokens",
    ];
    let batch = e.embed(&texts).unwrap();
    assert_eq!(batch.len(), texts.len());
    for (text, in_batch) in texts.iter().zip(&batch) {
        let alone = e.embed(&[text]).unwrap().remove(0);
        assert_eq!(alone.len(), 384);
        let c = cosine(&alone, in_batch);
        assert!(c >= 0.9999, "{text:?}: alone vs batch cosine {c}");
        let norm: f32 = alone.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "unit length: {norm}");
    }
}

#[test]
fn long_texts_keep_their_tail() {
    let e = embedder();
    let head = "The deployment checklist covers the load balancer, the health checks and the rollout order. ".repeat(20);
    let tail = "Finally, rotate the database password and revoke the old API keys.";
    let long = format!("{head}{tail}");
    let [whole, head_only, tail_only] = [&long, &head, tail].map(|t| e.embed(&[t]).unwrap().remove(0));
    // Had the tail been cut off, the long text would embed exactly as its head does.
    assert!(cosine(&whole, &head_only) < 0.9999, "the tail changed nothing: it was dropped");
    assert!(cosine(&whole, &tail_only) > cosine(&head_only, &tail_only), "the tail's meaning is in the long text's vector");
}

#[test]
fn the_index_survives_a_crash() {
    model_dir();
    let home = Home::new();
    home.up();
    let kept = home.ok(&["add", "Back up the production database before every schema migration", "--project", "alpha"]);
    let gone = home.ok(&["add", "Database backups are optional for schema migrations", "--project", "alpha"]);
    home.ok(&["forget", gone.trim()]);
    let edited = home.ok(&["add", "Use tabs for indentation", "--project", "alpha"]);
    home.ok(&["edit", edited.trim(), "--text", "Rotate the signing keys of the payment service every quarter"]);
    // No index save has happened yet (it runs every two minutes and at shutdown): crash now.
    let pid = home.daemon_pid().expect("pid");
    // SAFETY: kill only sends a signal, to this home's daemon.
    unsafe { libc::kill(pid, libc::SIGKILL) };
    assert!(eventually(Duration::from_secs(10), || !std::path::Path::new(&format!("/proc/{pid}")).exists()));

    home.up();
    let v = search(&home, &["--project", "alpha", "copy", "data", "before", "changing", "tables"]);
    assert_eq!(ids(&v).first().map(String::as_str), Some(kept.trim()), "{v}");
    assert!(!ids(&v).contains(&gone.trim().to_string()), "a forgotten memory never comes back");
    let v = search(&home, &["--project", "alpha", "-k", "1", "cryptographic", "material", "for", "billing"]);
    assert_eq!(ids(&v), vec![edited.trim().to_string()], "the edit's new text is what is indexed: {v}");
    let s = home.status();
    assert_eq!(s["index"]["pending"], 0, "{s}");
    assert_eq!(s["index"]["indexed"], 2, "{s}");
    home.down();
}

#[test]
fn projects_never_leak() {
    model_dir();
    let home = Home::new();
    home.up();
    let a = home.ok(&["add", "In project A, deploy with the blue green script", "--project", "proj-a", "--category", "deployment"]);
    let b = home.ok(&["add", "Project B ships releases through the canary pipeline", "--project", "proj-b", "--category", "deployment"]);
    let g = home.ok(&["add", "Announce every production release in the team channel", "--global", "--category", "deployment"]);
    for query in [["ship", "a", "release", "to", "production"], ["deploy", "with", "the", "blue", "green"]] {
        let from_b = ids(&search(&home, &[&["--project", "proj-b", "-k", "50"][..], &query[..]].concat()));
        assert!(!from_b.contains(&a.trim().to_string()), "A's memory reached B: {from_b:?}");
        assert!(from_b.contains(&g.trim().to_string()) && from_b.contains(&b.trim().to_string()), "{from_b:?}");
        let advice = json(&home.ok(&[&["advise", "--json", "--project", "proj-b"][..], &query[..]].concat()));
        assert!(advice["advice"].as_array().unwrap().iter().all(|i| i["id"] != a.trim()), "{advice}");
    }
    let from_global = ids(&search(&home, &["--global", "-k", "50", "release"]));
    assert_eq!(from_global, vec![g.trim().to_string()], "global sees only global");
    home.down();
}

#[test]
fn without_the_model_cairn_runs_on_keywords_and_says_why() {
    let empty = tempfile::tempdir().unwrap();
    let home = Home::new().with_env("CAIRN_MODEL_DIR", empty.path());
    home.up();
    let id = home.ok(&["add", "Never force-push to main; open a pull request instead", "--global", "--category", "git"]);
    let s = home.status();
    let model = s["model"].as_str().unwrap();
    assert!(model.starts_with("missing:") && model.contains("cairn setup"), "{model}");
    let v = search(&home, &["force", "push", "main"]);
    assert_eq!(v["mode"], "keywords");
    assert_eq!(v["results"][0]["id"], id.trim());
    assert!(v["results"][0]["similarity"].is_null());
    let advice = json(&home.ok(&["advise", "--json", "git", "push", "--force", "origin", "main"]));
    assert_eq!(advice["advice"][0]["id"], id.trim(), "advice goes on by keywords");

    let doctor = home.run(&["doctor"]);
    let out = String::from_utf8_lossy(&doctor.stdout);
    assert_eq!(doctor.status.code(), Some(1), "{out}");
    assert!(out.lines().any(|l| l.starts_with("FAIL  model files") && l.contains("-> cairn setup")), "{out}");
    assert!(out.lines().any(|l| l.starts_with("FAIL  ONNX Runtime") && l.contains("cairn setup")), "{out}");
    home.down();
}

#[test]
fn a_tampered_model_file_is_refused() {
    let good = model_dir();
    let dir = tempfile::tempdir().unwrap();
    for file in cairn_proto::model::FILES {
        let to = file.in_dir(dir.path());
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(file.in_dir(&good), &to).unwrap();
    }
    let tokenizer = cairn_proto::model::TOKENIZER.in_dir(dir.path());
    let mut bytes = std::fs::read(&tokenizer).unwrap();
    std::fs::remove_file(&tokenizer).unwrap();
    bytes.extend_from_slice(b" ");
    std::fs::write(&tokenizer, bytes).unwrap();

    let home = Home::new().with_env("CAIRN_MODEL_DIR", dir.path());
    home.up();
    // Asking for the model loads it (lazy in --lite) and the check refuses it.
    home.ok(&["add", "anything at all", "--global"]);
    let model = home.status()["model"].as_str().unwrap().to_string();
    assert!(model.contains("sha256") && model.contains(cairn_proto::model::TOKENIZER.sha256) && model.contains("cairn setup --force"), "{model}");
    let doctor = String::from_utf8(home.run(&["doctor"]).stdout).unwrap();
    assert!(doctor.lines().any(|l| l.starts_with("FAIL  model files") && l.contains("tokenizer.json") && l.contains("cairn setup --force")), "{doctor}");
    home.down();
}

#[test]
fn reindex_and_a_model_change() {
    model_dir();
    let home = Home::new();
    home.up();
    let file = home.path().join("many.jsonl");
    let lines: Vec<String> = (0..120).map(|i| serde_json::json!({"text": format!("Lesson {i}: keep the build reproducible with pinned tool version {i}")}).to_string()).collect();
    std::fs::write(&file, lines.join("\n")).unwrap();
    assert!(home.ok(&["import", file.to_str().unwrap()]).contains("120 added"));
    assert_eq!(home.status()["index"]["indexed"], 120);

    let out = home.ok(&["reindex"]);
    assert!(out.contains("reindexed 120 memories"), "{out}");
    let s = home.status();
    assert_eq!((s["index"]["indexed"].as_u64(), s["job"]["kind"].as_str(), s["job"]["finished"].as_bool()), (Some(120), Some("reindex"), Some(true)), "{s}");
    let fingerprint = s["model_info"]["fingerprint"].as_str().unwrap().to_string();
    home.down();

    // Another embedding window is another model as far as vectors go: the daemon says so and
    // embeds everything again by itself.
    home.write_tuneables(r#"{"model": {"max_tokens": 128}}"#);
    home.up();
    home.ok(&["search", "pinned", "versions"]);
    assert!(eventually(Duration::from_secs(60), || home.status()["job"]["finished"] == true), "{}", home.status());
    let s = home.status();
    assert_ne!(s["model_info"]["fingerprint"].as_str().unwrap(), fingerprint);
    assert_eq!((s["job"]["kind"].as_str(), s["job"]["total"].as_u64(), s["index"]["pending"].as_u64()), (Some("embed"), Some(120), Some(0)), "{s}");
    let log = std::fs::read_to_string(home.path().join("logs/cairnd.log")).unwrap();
    assert!(log.contains("saved semantic index not used"), "the reindex is said");
    home.down();
}

/// `cairn setup --from` takes an installed copy's files when their sha256 is right and fetches
/// nothing (pip is not even there); a file that is wrong there is not copied.
#[test]
fn setup_reuses_an_installed_copy_of_the_model() {
    let shared = model_dir();
    // Into the home's own models folder, with no pip to fetch with.
    let setup = |home: &Home, from: &std::path::Path| {
        let mut cmd = home.cairn();
        cmd.env_remove("CAIRN_MODEL_DIR").env("CAIRN_PYTHON", "/nonexistent/python").args(["setup", "--from"]).arg(from);
        cmd.stdin(std::process::Stdio::null()).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
        wait_output(cmd.spawn().unwrap(), Duration::from_secs(120))
    };
    let home = Home::new();
    let out = setup(&home, &shared);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("copied from") && !err.contains("fetch "), "{err}");
    for file in [cairn_proto::model::RUNTIME, cairn_proto::model::MODEL, cairn_proto::model::TOKENIZER] {
        let copy = file.in_dir(&home.path().join("models"));
        assert_eq!(std::fs::read(&copy).unwrap(), std::fs::read(file.in_dir(&shared)).unwrap(), "{}", copy.display());
    }
    // A wrong file in the other folder is not taken: it would have to be fetched, and with no
    // pip setup fails and says so.
    let bad = tempfile::tempdir().unwrap();
    let tokenizer = cairn_proto::model::TOKENIZER.in_dir(bad.path());
    std::fs::create_dir_all(tokenizer.parent().unwrap()).unwrap();
    std::fs::write(&tokenizer, "{}").unwrap();
    let fresh = Home::new();
    let out = setup(&fresh, bad.path());
    assert!(!out.status.success(), "nothing right to copy, and no pip to fetch with");
    assert!(!cairn_proto::model::TOKENIZER.in_dir(&fresh.path().join("models")).exists(), "the wrong file was not copied");
}
