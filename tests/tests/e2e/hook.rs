//! `cairn hook` under every condition Claude Code can put it in: real payloads, no daemon, a
//! daemon that never answers, bad input, stdin left open, and many hooks at once.

use std::io::Write;
use std::process::Stdio;
use std::time::Duration;

use cairn_tests::*;
use serde_json::{json, Value};

fn payloads_in(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    out.sort();
    out
}

/// Every hook payload fixture: the older set, and those captured from the Claude Code versions
/// the end-to-end suite runs (`tests/fixtures/claude-code-<version>`, see `cairn-claude-fixtures`).
fn fixtures() -> Vec<(String, Vec<u8>)> {
    let older = payloads_in(&fixtures_dir().join("claude-code-hooks"));
    assert!(older.len() >= 30, "expected the full fixture set, found {}", older.len());
    let ours = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut captured: Vec<std::path::PathBuf> = std::fs::read_dir(&ours).unwrap().map(|e| e.unwrap().path()).filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("claude-code-"))).collect();
    captured.sort();
    assert!(!captured.is_empty(), "no fixtures captured from a real Claude Code in {}", ours.display());
    let mut out = older;
    for dir in captured {
        let payloads = payloads_in(&dir);
        let events: std::collections::BTreeSet<&str> = payloads.iter().map(|(n, _)| n.split('.').next().unwrap()).collect();
        for needed in ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop", "SessionEnd"] {
            assert!(events.contains(needed), "{}: no {needed} payload", dir.display());
        }
        out.extend(payloads);
    }
    out
}

#[test]
fn real_payloads_carry_the_tool_use_id() {
    // Newer Claude Code names each tool call; the advice log links outcomes by it.
    let ours = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    for dir in std::fs::read_dir(&ours).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()) {
        for (name, payload) in payloads_in(&dir) {
            let v: Value = serde_json::from_slice(&payload).unwrap();
            if name.contains("ToolUse") {
                assert!(v["tool_use_id"].as_str().is_some_and(|id| id.starts_with("toolu_")), "{}/{name}: no tool_use_id", dir.display());
            }
            assert_eq!(v["hook_event_name"].as_str(), name.split('.').next(), "{name}");
        }
    }
}

/// Memories that the fixtures' actions should (and should not) call up. The Write fixture puts
/// test output under /tmp, which the first lesson is about; `pwd`, a look around, gets nothing.
fn seed(home: &Home) {
    home.ok(&["add", "Test output written to /tmp is lost on reboot: write test output files into the repository's test data folder", "--global", "--category", "testing"]);
    home.ok(&["add", "Before running pwd to print the working directory, remember the shell prompt already shows it", "--global", "--category", "tooling"]);
    home.ok(&["add", "Never force-push to main; open a pull request instead", "--global", "--category", "git"]);
}

fn check_shape(name: &str, v: &Value) {
    let event = name.split('.').next().unwrap();
    let specific = &v["hookSpecificOutput"];
    assert!(["PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "SessionStart"].contains(&event), "{name}: {event} must not get hookSpecificOutput");
    assert_eq!(specific["hookEventName"], event, "{name}");
    assert!(specific["additionalContext"].as_str().is_some_and(|c| !c.is_empty()), "{name}");
}

#[test]
fn every_fixture_with_the_daemon_up() {
    let home = Home::new();
    home.up();
    seed(&home);
    let mut advised = 0;
    for (name, payload) in fixtures() {
        if let Some(v) = assert_hook_contract(&home.hook(&payload)) {
            check_shape(&name, &v);
            advised += 1;
        }
    }
    // The Write fixture writes test output to /tmp, which the first memory is about.
    assert!(advised >= 1, "no fixture got advice");
    let events = home.status()["session_events"].as_u64().unwrap();
    assert_eq!(events as usize, fixtures().len(), "every event is recorded");
    home.down();
}

#[test]
fn every_fixture_with_no_daemon() {
    let home = Home::new();
    for (name, payload) in fixtures() {
        // The real default deadline: with no daemon the hook answers well inside it.
        let out = home.hook_with(&payload, &[("CAIRN_AUTOSTART", "0"), ("CAIRN_HOOK_DEADLINE_MS", "200")]);
        assert!(assert_hook_contract(&out).is_none(), "{name}: no daemon, no output");
    }
    assert!(!home.socket().exists(), "autostart off starts nothing");
    assert!(!home.path().join("logs/hook-misses.log").exists(), "no hook reached its deadline");
}

#[test]
fn daemon_killed_before_the_hook() {
    let home = Home::new();
    home.up();
    seed(&home);
    let pid = home.daemon_pid().unwrap();
    // SAFETY: kills the daemon of this private home.
    unsafe { libc::kill(pid, libc::SIGKILL) };
    assert!(eventually(Duration::from_secs(10), || unsafe { libc::kill(pid, 0) } != 0 || std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |s| s.contains(") Z "))));
    assert!(home.socket().exists(), "kill -9 leaves the socket behind");
    let payload = std::fs::read(fixtures_dir().join("claude-code-hooks/PreToolUse.Bash.json")).unwrap();
    let out = home.hook_with(&payload, &[("CAIRN_AUTOSTART", "0"), ("CAIRN_HOOK_DEADLINE_MS", "200")]);
    assert!(assert_hook_contract(&out).is_none());
    assert!(!home.path().join("logs/hook-misses.log").exists(), "a refused connection ends the hook well inside its deadline");
    // And the next `up` replaces the stale socket.
    home.up();
    home.down();
}

#[test]
fn daemon_that_never_answers() {
    let home = Home::new();
    let listener = std::os::unix::net::UnixListener::bind(home.socket()).unwrap();
    let hold = std::thread::spawn(move || {
        // Accept and hold connections without ever answering.
        let mut held = Vec::new();
        for stream in listener.incoming().take(2) {
            held.push(stream);
        }
        std::thread::sleep(Duration::from_secs(2));
    });
    let payload = std::fs::read(fixtures_dir().join("claude-code-hooks/PreToolUse.Bash.json")).unwrap();
    let out = home.hook_with(&payload, &[("CAIRN_HOOK_DEADLINE_MS", "150")]);
    assert!(assert_hook_contract(&out).is_none());
    let misses = std::fs::read_to_string(home.path().join("logs/hook-misses.log")).expect("miss log written");
    assert!(misses.contains("event=PreToolUse") && misses.contains("stage=waiting-for-daemon"), "{misses}");
    // A second miss, then a real daemon reports them.
    let out = home.hook_with(&payload, &[("CAIRN_HOOK_DEADLINE_MS", "150")]);
    assert!(assert_hook_contract(&out).is_none());
    hold.join().unwrap();
    std::fs::remove_file(home.socket()).unwrap();
    home.up();
    let status = home.status();
    assert_eq!(status["hook_misses"], 2, "{status}");
    home.down();
}

#[test]
fn malformed_and_truncated_input() {
    let home = Home::new();
    home.up();
    seed(&home);
    let full = std::fs::read(fixtures_dir().join("claude-code-hooks/PreToolUse.Write.json")).unwrap();
    let mut cases: Vec<Vec<u8>> = vec![
        b"".to_vec(),
        b"   \n".to_vec(),
        b"not json at all".to_vec(),
        b"[1,2,3]".to_vec(),
        b"42".to_vec(),
        b"null".to_vec(),
        b"{}".to_vec(),
        br#"{"hook_event_name": "PreToolUse"}"#.to_vec(),
        br#"{"hook_event_name": "PreToolUse", "tool_name": 7, "tool_input": "oops", "cwd": 3}"#.to_vec(),
        br#"{"hook_event_name": "SomethingNew", "session_id": "s"}"#.to_vec(),
        vec![0xff, 0xfe, 0x00, 0x7b],
    ];
    for cut in [1, full.len() / 3, full.len() / 2, full.len() - 2] {
        cases.push(full[..cut].to_vec());
    }
    for payload in cases {
        let out = home.hook(&payload);
        assert!(assert_hook_contract(&out).is_none(), "input {:?} gave output", String::from_utf8_lossy(&payload));
    }
    home.down();
}

#[test]
fn stdin_left_open() {
    let home = Home::new();
    home.up();
    seed(&home);
    let full = std::fs::read(fixtures_dir().join("claude-code-hooks/PreToolUse.Write.json")).unwrap();

    // A partial payload and an open pipe: the deadline ends it, silently.
    let mut child = home.cairn().arg("hook").env("CAIRN_HOOK_DEADLINE_MS", "300").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&full[..full.len() / 2]).unwrap();
    stdin.flush().unwrap();
    let out = wait_output(child, Duration::from_secs(10));
    drop(stdin);
    assert!(assert_hook_contract(&out).is_none());

    // A whole payload and an open pipe: answered without waiting for the end of input.
    let mut child = home.cairn().arg("hook").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&full).unwrap();
    stdin.flush().unwrap();
    let out = wait_output(child, Duration::from_secs(10));
    drop(stdin);
    let v = assert_hook_contract(&out).expect("advice for the Write despite the open pipe");
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    home.down();
}

#[test]
fn fifty_hooks_at_once() {
    let home = Home::new();
    home.up();
    seed(&home);
    let payloads: Vec<Vec<u8>> = fixtures().into_iter().map(|(_, p)| p).collect();
    let mut children = Vec::new();
    for i in 0..50 {
        let mut child = home.cairn().arg("hook").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let _ = stdin.write_all(&payloads[i % payloads.len()]);
        drop(stdin);
        children.push(child);
    }
    let mut advised = 0;
    for child in children {
        advised += assert_hook_contract(&wait_output(child, Duration::from_secs(30))).is_some() as usize;
    }
    // With a deadline that load cannot reach, every one of the 50 is answered and recorded.
    let status = home.status();
    assert_eq!(status["hook_misses"], 0, "{status}");
    assert_eq!(status["session_events"], 50, "{status}");
    assert!(advised >= 1, "parallel hooks still get advice");
    home.down();
}

#[test]
fn disable_and_autostart() {
    let home = Home::new();
    let start = std::fs::read(fixtures_dir().join("claude-code-hooks/SessionStart.json")).unwrap();
    let out = home.hook_with(&start, &[("CAIRN_DISABLE", "1")]);
    assert!(assert_hook_contract(&out).is_none());
    assert!(!home.socket().exists(), "a disabled hook starts nothing");

    let out = home.hook(&start);
    assert!(assert_hook_contract(&out).is_none(), "autostart returns at once, without output");
    assert!(eventually(Duration::from_secs(30), || home.run(&["status"]).status.success()), "SessionStart autostarted the daemon");
    // A second SessionStart while it runs is harmless.
    assert_hook_contract(&home.hook(&start));
    home.down();
}

#[test]
fn advice_shape_and_silence() {
    let home = Home::new();
    home.up();
    seed(&home);
    let pre = json!({
        "session_id": "shape", "cwd": home.path(), "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "git push --force origin main", "description": "Force push to main"}
    });
    let v = assert_hook_contract(&home.hook(pre.to_string().as_bytes())).expect("advice for a force push");
    let context = v["hookSpecificOutput"]["additionalContext"].as_str().unwrap();
    assert!(context.contains("Never force-push"), "{context}");
    assert!(context.chars().count() <= 600, "tool-call advice stays within its budget");

    // The same session does not hear the same advice again within the cooldown.
    assert!(assert_hook_contract(&home.hook(pre.to_string().as_bytes())).is_none());

    // The same action's result is advised on in PostToolUse's shape (the hook `hooks install`
    // puts on a tool call); in the session that already heard it, it is not said again.
    let mut post = pre.clone();
    post["hook_event_name"] = json!("PostToolUse");
    post["session_id"] = json!("other");
    post["tool_response"] = json!({"stdout": "", "stderr": "rejected", "interrupted": false});
    let v = assert_hook_contract(&home.hook(post.to_string().as_bytes())).expect("advice with the result");
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PostToolUse");
    assert!(v["hookSpecificOutput"]["additionalContext"].as_str().unwrap().contains("Never force-push"));
    assert!(v["hookSpecificOutput"].get("permissionDecision").is_none());
    post["session_id"] = json!("shape");
    assert!(assert_hook_contract(&home.hook(post.to_string().as_bytes())).is_none(), "cooldown across the call's two hooks");
    let mut failed = post.clone();
    failed["hook_event_name"] = json!("PostToolUseFailure");
    failed["session_id"] = json!("third");
    failed["error"] = json!("Exit code 1");
    let v = assert_hook_contract(&home.hook(failed.to_string().as_bytes())).expect("advice with the failure");
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PostToolUseFailure");

    // A session start in a project with lessons of its own gets them, in SessionStart's shape.
    let project = home.path().join("proj");
    std::fs::create_dir_all(&project).unwrap();
    let project = std::fs::canonicalize(&project).unwrap();
    let lesson = home.ok(&["add", "This repo's CI needs the nightly toolchain", "--project", project.to_str().unwrap()]);
    let start = json!({"session_id": "st", "cwd": project, "hook_event_name": "SessionStart", "source": "startup"});
    let v = assert_hook_contract(&home.hook(start.to_string().as_bytes())).expect("a brief at session start");
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "SessionStart");
    assert!(v["hookSpecificOutput"]["additionalContext"].as_str().unwrap().contains("nightly toolchain"));
    let brief: serde_json::Value = serde_json::from_str(&home.ok(&["advise", "--json", "--hook-input", &write_payload(&home, &start)])).unwrap();
    assert_eq!(brief["advice"][0]["id"], lesson.trim(), "advise agrees with the hook");
    // Where the project has no lessons of its own, a session starts in silence.
    let bare = json!({"session_id": "st2", "cwd": "/", "hook_event_name": "SessionStart", "source": "startup"});
    assert!(assert_hook_contract(&home.hook(bare.to_string().as_bytes())).is_none());

    // A prompt about the same thing gets UserPromptSubmit's shape.
    let prompt = json!({"session_id": "p", "cwd": home.path(), "hook_event_name": "UserPromptSubmit", "prompt": "force-push my branch to main"});
    let v = assert_hook_contract(&home.hook(prompt.to_string().as_bytes())).expect("advice for the prompt");
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "UserPromptSubmit");
    home.down();
}

fn write_payload(home: &Home, payload: &Value) -> String {
    let path = home.path().join(format!("payload-{}.json", payload["session_id"].as_str().unwrap_or("x")));
    std::fs::write(&path, payload.to_string()).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn secrets_never_reach_the_store_verbatim() {
    let home = Home::new();
    home.up();
    let secrets = [
        "ghp_Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXcVb",
        "sup3r-s3cret-pa55word",
        "AKIAZZZZQQQQWWWWEEEE",
        "dbpass-7f3a9c",
        "sk_live_51HqLyjWDarjtT1zdp7dc",
        "Hunter2mysql",
        "curlpass-99",
        "correct horse battery",
        // The gaps an attack found: a PGP key's body, a password with `/` or `@` in a URL, a
        // value set by `aws configure set`, a cookie passed to curl.
        "lQOYBF0pgpBodyQWERTY",
        "ab/cdPassW0rd",
        "p@ss-in-url-42",
        "wJalrXUtnFEMIK7MDENGbPxR",
        "38afes7a8cookie",
        // A URL's password where the recorded intent is cut to length (a cut through it left
        // part of it for the URL rule to miss).
        "hunter2cutsecret",
    ];
    let events = [
        json!({"session_id": "sec", "cwd": "/tmp", "hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": format!("export GITHUB_TOKEN={} && gh pr list", secrets[0]), "description": "List PRs"}}),
        json!({"session_id": "sec", "cwd": "/tmp", "hook_event_name": "PostToolUse", "tool_name": "Bash",
               "tool_input": {"command": format!("mysql -u root --password {} app", secrets[1])},
               "tool_response": {"stdout": format!("aws_access_key_id = {}", secrets[2]), "stderr": ""}}),
        json!({"session_id": "sec", "cwd": "/tmp", "hook_event_name": "UserPromptSubmit",
               "prompt": format!("connect to postgres://admin:{}@db.internal/app and fix it", secrets[3])}),
        json!({"session_id": "sec", "cwd": "/tmp", "hook_event_name": "PostToolUseFailure", "tool_name": "Bash",
               "tool_input": {"command": format!("STRIPE_KEY={} mysql -u root -p{} shop && curl -u bob:{} https://x", secrets[4], secrets[5], secrets[6])},
               "error": format!("DB_PASSWORD=\"{}\" rejected", secrets[7])}),
        json!({"session_id": "sec", "cwd": "/tmp", "hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": format!("gpg --import <<'EOF'\n-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{}\n=Ab12\n-----END PGP PRIVATE KEY BLOCK-----\nEOF", secrets[8]),
                              "description": "Import the key"}}),
        json!({"session_id": "sec", "cwd": "/tmp", "hook_event_name": "PostToolUse", "tool_name": "Bash",
               "tool_input": {"command": format!("psql postgres://app:{}@db/x && psql postgres://app:{}@db.internal:5432/app && aws configure set aws_secret_access_key {} && curl -b 'sessionid={}' https://app.example", secrets[9], secrets[10], secrets[11], secrets[12])},
               "tool_response": {"stdout": "", "stderr": ""}}),
    ];
    let cut: Vec<Value> = (0..30)
        .map(|n| {
            json!({"session_id": "sec", "cwd": "/tmp", "hook_event_name": "PostToolUse", "tool_name": "Bash",
                   "tool_input": {"command": format!("echo {}&& psql postgres://admin:{}@db.prod:5432/app -c 'select 1'", "word ".repeat(n), secrets[13]), "description": "Call api"},
                   "tool_response": {"stdout": "ok", "stderr": ""}})
        })
        .collect();
    for e in events.iter().chain(&cut) {
        assert_hook_contract(&home.hook(e.to_string().as_bytes()));
    }
    assert_eq!(home.status()["session_events"], 6 + cut.len(), "the events were recorded");
    home.down();
    let mut scanned = 0;
    let mut stack = vec![home.path().to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            scanned += bytes.len();
            for secret in secrets {
                assert!(!bytes.windows(secret.len()).any(|w| w == secret.as_bytes()), "{secret} found in {}", path.display());
            }
            // Nor a part of one that a cut left.
            assert!(!bytes.windows(8).any(|w| w == b"hunter2c"), "part of a secret found in {}", path.display());
        }
    }
    assert!(scanned > 0);
    // The redaction kept the rest of what happened.
    home.up();
    let s = home.status();
    assert_eq!(s["session_events"], 6 + cut.len());
    home.down();
}
