//! Through the real Claude Code: short scripted sessions of `claude -p` against a stand-in of the
//! Messages API (`cairn_tests::claude`), with cairn wired in by its documented routes. What
//! reached the model is read from the requests the stand-in recorded; what cairn did, from
//! `cairn log`.
//!
//! When a new Claude Code version changes a payload or the way hook context reaches the model,
//! these tests say so: their messages name what was expected where.

use std::time::Duration;

use cairn_tests::claude::{Claude, Route, Session, Turn, CAIRN_HEADER};
use cairn_tests::*;
use serde_json::Value;

const FORCE_PUSH: &str = "Never force-push to main; open a pull request instead";

/// A home with the force-push lesson, its daemon up.
fn home_with_lesson() -> Home {
    let home = Home::new();
    home.up();
    home.ok(&["add", FORCE_PUSH, "--global", "--category", "git"]);
    home
}

/// A look around, a read, then a force push, then the end.
fn push_session() -> Vec<Turn> {
    vec![
        Turn::bash("ls", "List files"),
        Turn::tool("Read", serde_json::json!({"file_path": "README.md"})),
        Turn::bash("git push --force origin main", "Push the branch"),
        Turn::text("Finished."),
    ]
}

fn log(claude: &Claude<'_>) -> Vec<Value> {
    let out = claude.cairn(&["log", "--json", "--all"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["entries"].as_array().cloned().unwrap_or_default()
}

/// The user message of the agent's `n`-th request that carries the result of tool call `id`.
fn result_message<'a>(s: &'a Session, n: usize, id: &str) -> &'a Value {
    let turns = s.turns();
    let messages = turns[n].body["messages"].as_array().expect("messages");
    messages
        .iter()
        .rev()
        .find(|m| m["content"].as_array().is_some_and(|c| c.iter().any(|p| p["type"] == "tool_result" && p["tool_use_id"] == id)))
        .unwrap_or_else(|| panic!("no tool_result for {id} in request {n}: Claude Code changed how it returns results"))
}

fn write_project_file(claude: &Claude<'_>, name: &str, text: &str) {
    std::fs::write(claude.project().join(name), text).unwrap();
}

#[test]
fn advice_reaches_the_model_beside_the_result_of_its_call() {
    let home = home_with_lesson();
    let claude = Claude::new(&home, Route::Settings);
    write_project_file(&claude, "README.md", "# shop\n");
    let s = claude.run("Push my work", push_session(), &["Bash", "Read"]);
    s.assert_completed("Finished.");
    let turns = s.turns();
    assert_eq!(turns.len(), 4, "one request per scripted turn");
    // Nothing for the prompt (no lesson fits it), the look around or the read.
    for n in 0..3 {
        assert!(s.cairn_new_in(n).is_empty(), "request {n} got cairn text: {:?}", s.cairn_new_in(n));
    }
    // The push's advice arrives with the push's own result, after it ran: given by the hook on
    // that result (PostToolUseFailure), where advice before the call would have arrived too.
    let advice = s.cairn_new_in(3);
    assert_eq!(advice.len(), 1, "one piece of context for the push: {advice:?}");
    assert!(advice[0].contains(FORCE_PUSH) && advice[0].contains("trigger force_push (critical)"), "{}", advice[0]);
    let beside = result_message(&s, 3, "toolu_stand_in_03");
    let texts: Vec<&str> = beside["content"].as_array().unwrap().iter().filter_map(|p| p["text"].as_str()).collect();
    assert!(texts.iter().any(|t| t.contains(CAIRN_HEADER) && t.contains("PostToolUseFailure")), "the advice is not beside the push's result: {beside}");
    assert!(s.hook_errors().is_empty(), "Claude Code logged hook errors: {:?}", s.hook_errors());

    // cairn's own record names the call by Claude Code's id, with what became of it.
    let entries = log(&claude);
    let push = entries.iter().find(|e| e["tool_use_id"] == "toolu_stand_in_03").expect("the push is in cairn's log");
    assert_eq!(push["event"], "PostToolUseFailure");
    assert_eq!(push["items"][0]["text"], FORCE_PUSH);
    assert!(push["outcome"].as_str().is_some_and(|o| o.starts_with("failed")), "{push}");
}

#[test]
fn prompt_and_session_start_context_reach_the_first_request() {
    let home = Home::new();
    home.up();
    let claude = Claude::new(&home, Route::Settings);
    // A lesson of this project for the session's start, a global one for the prompt.
    let own = claude.cairn(&["add", "Integration tests need the local Postgres started with make db", "--category", "testing"]);
    assert!(own.status.success(), "{}", String::from_utf8_lossy(&own.stderr));
    home.ok(&["add", "Run the database migrations on a copy of production first", "--global", "--category", "deployment"]);
    let s = claude.run("Run the database migrations on a copy of production first", vec![Turn::text("Understood.")], &["Bash"]);
    s.assert_completed("Understood.");
    let first = s.cairn_new_in(0);
    assert!(first.iter().any(|t| t.contains("Integration tests need the local Postgres") && t.contains("SessionStart")), "no session-start brief in the first request: {first:?}");
    assert!(first.iter().any(|t| t.contains("Run the database migrations on a copy of production first") && t.contains("UserPromptSubmit")), "no prompt advice in the first request: {first:?}");
}

#[test]
fn tool_calls_are_recorded_with_claude_codes_ids_and_outcomes() {
    let home = Home::new();
    // A rule of the user's for a command that succeeds, beside the built-in one for a push that fails.
    std::fs::create_dir_all(home.path().join("config")).unwrap();
    home.up();
    home.ok(&["add", FORCE_PUSH, "--global", "--category", "git"]);
    let clean = home.ok(&["add", "Clean the build folder with make clean, so that the dependency cache survives", "--global", "--category", "tooling"]).trim().to_string();
    std::fs::write(home.path().join("config/trigger_rules.yaml"), format!("rules:\n  - name: build_wipe\n    pattern: 'rm -rf \\./build'\n    surface: [{clean}]\n    priority: high\n")).unwrap();
    assert!(eventually(Duration::from_secs(10), || home.ok(&["config", "show"]).contains("rule build_wipe")), "the rule is in force");
    let claude = Claude::new(&home, Route::Settings);
    // A prompt that asks for nothing in particular: the advice under test is the tool calls'.
    let s = claude.run(
        "Carry on",
        vec![Turn::bash("git push --force origin main", "Push the branch"), Turn::bash("rm -rf ./build", "Remove the build folder"), Turn::text("Finished.")],
        &["Bash"],
    );
    s.assert_completed("Finished.");
    let entries = log(&claude);
    let by_id = |id: &str| entries.iter().find(|e| e["tool_use_id"] == id).unwrap_or_else(|| panic!("no advice logged for {id}: {entries:?}")).clone();
    let push = by_id("toolu_stand_in_01");
    assert!(push["outcome"].as_str().is_some_and(|o| o.starts_with("failed")), "the failed push (PostToolUseFailure): {push}");
    let wipe = by_id("toolu_stand_in_02");
    assert_eq!(wipe["items"][0]["id"], clean.as_str());
    assert_eq!(wipe["outcome"], "succeeded", "the command that ran (PostToolUse): {wipe}");
    let wiped = s.cairn_new_in(2);
    assert!(wiped.len() == 1 && wiped[0].contains("Clean the build folder with make clean"), "the wipe's advice reached the model: {wiped:?}");
}

#[test]
fn an_interrupting_rule_stops_the_command_and_says_why() {
    let home = Home::new();
    home.write_tuneables(r#"{"triggers": {"interrupts": "deny"}}"#);
    home.up();
    let id = home.ok(&["add", FORCE_PUSH, "--global", "--category", "git"]).trim().to_string();
    std::fs::write(home.path().join("config/trigger_rules.yaml"), format!("rules:\n  - name: guarded_push\n    pattern: 'git push --force'\n    surface: [{id}]\n    priority: critical\n    interrupt: true\n")).unwrap();
    assert!(eventually(Duration::from_secs(10), || home.ok(&["config", "show"]).contains("rule guarded_push")), "the rule is in force");
    let claude = Claude::new(&home, Route::Settings);
    // Interrupts need the hook before the command.
    let out = claude.cairn(&["hooks", "install", "--user", "--interrupts"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let s = claude.run("Push", vec![Turn::bash("touch cairn-marker && git push --force origin main", "Push"), Turn::text("Stopped.")], &["Bash"]);
    s.assert_completed("Stopped.");
    assert!(!claude.project().join("cairn-marker").exists(), "the denied command ran");
    let result = result_message(&s, 1, "toolu_stand_in_01");
    let told = result.to_string();
    assert!(told.contains("cairn: rule guarded_push (critical)") && told.contains(FORCE_PUSH), "the model is not told why: {result}");
    let entry = log(&claude).into_iter().find(|e| e["tool_use_id"] == "toolu_stand_in_01").expect("the interrupt is logged");
    assert!(entry["decision"].as_str().is_some_and(|d| d.starts_with("deny: cairn: rule guarded_push")), "{entry}");
}

/// The tool results and the answer of a session: what must not change because of cairn.
fn what_happened(s: &Session) -> Vec<String> {
    let mut out: Vec<String> = s
        .turns()
        .iter()
        .flat_map(|r| r.body["messages"].as_array().cloned().unwrap_or_default())
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .filter(|p| p["type"] == "tool_result")
        .map(|p| format!("{} {}", p["tool_use_id"], p["content"]))
        .collect();
    out.dedup();
    out.push(s.result["result"].to_string());
    out
}

fn plain_session() -> Vec<Turn> {
    vec![Turn::bash("echo hello > out.txt", "Write a file"), Turn::bash("cat out.txt", "Read it back"), Turn::bash("git push --force origin main", "Push"), Turn::text("Finished.")]
}

#[test]
fn a_missing_stopped_or_slow_cairn_changes_nothing() {
    let home = Home::new();
    let bare = Claude::new(&home, Route::Without);
    let baseline = bare.run("Do it", plain_session(), &["Bash"]);
    baseline.assert_completed("Finished.");
    let expected = what_happened(&baseline);

    // The detector sees a hook that does fail.
    let failing = Claude::new(&home, Route::Without);
    let hook = failing.user_home().join("fail.sh");
    std::fs::write(&hook, "#!/bin/sh\ncat >/dev/null\necho broken >&2\nexit 1\n").unwrap();
    std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    std::fs::create_dir_all(failing.user_home().join(".claude")).unwrap();
    std::fs::write(failing.user_home().join(".claude/settings.json"), serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": hook}]}]}}).to_string()).unwrap();
    assert!(!failing.run("Do it", plain_session(), &["Bash"]).hook_errors().is_empty(), "a failing hook is seen in Claude Code's log");

    let check = |what: &str, s: &Session| {
        s.assert_completed("Finished.");
        assert_eq!(what_happened(s), expected, "{what}: the session went differently");
        assert!(s.cairn_texts().is_empty(), "{what}: cairn spoke");
        assert!(s.hook_errors().is_empty(), "{what}: Claude Code logged hook errors: {:?}", s.hook_errors());
        assert!(!s.stdout().to_lowercase().contains("hook") && !s.stderr().to_lowercase().contains("hook"), "{what}: {}\n{}", s.stdout(), s.stderr());
    };

    // No daemon, and none started.
    home.up();
    home.ok(&["add", FORCE_PUSH, "--global", "--category", "git"]);
    home.down();
    let down = Claude::new(&home, Route::Settings).with_env("CAIRN_AUTOSTART", "0");
    check("daemon down", &down.run("Do it", plain_session(), &["Bash"]));
    assert!(!home.socket().exists(), "nothing started it");

    // A daemon that never answers: every hook gives up at its deadline.
    home.up();
    let pid = home.daemon_pid().expect("daemon pid");
    // SAFETY: signals to the test's own daemon.
    unsafe { libc::kill(pid, libc::SIGSTOP) };
    let stopped = Claude::new(&home, Route::Settings).with_env("CAIRN_HOOK_DEADLINE_MS", "300");
    let s = stopped.run("Do it", plain_session(), &["Bash"]);
    unsafe { libc::kill(pid, libc::SIGCONT) };
    check("daemon stopped", &s);
    assert!(home.path().join("logs/hook-misses.log").is_file(), "the misses are counted");

    // A hook past its deadline with the daemon well.
    let hurried = Claude::new(&home, Route::Settings).with_env("CAIRN_HOOK_DEADLINE_MS", "1");
    check("deadline", &hurried.run("Do it", plain_session(), &["Bash"]));
}

#[test]
fn disabled_or_paused_nothing_reaches_the_model() {
    let home = home_with_lesson();
    let claude = Claude::new(&home, Route::Settings);
    write_project_file(&claude, "README.md", "# shop\n");
    let disabled = Claude::new(&home, Route::Settings).with_env("CAIRN_DISABLE", "1");
    let s = disabled.run("Push my work", push_session(), &["Bash", "Read"]);
    s.assert_completed("Finished.");
    assert!(s.cairn_texts().is_empty(), "CAIRN_DISABLE=1: {:?}", s.cairn_texts());

    let paused = claude.cairn(&["pause"]);
    assert!(paused.status.success(), "{}", String::from_utf8_lossy(&paused.stderr));
    let before = home.status()["session_events"].as_u64().unwrap();
    let s = claude.run("Push my work", push_session(), &["Bash", "Read"]);
    s.assert_completed("Finished.");
    assert!(s.cairn_texts().is_empty(), "paused: {:?}", s.cairn_texts());
    assert_eq!(home.status()["session_events"].as_u64().unwrap(), before, "a paused project leaves nothing");
    assert!(claude.cairn(&["resume"]).status.success());
    let s = claude.run("Push my work", push_session(), &["Bash", "Read"]);
    assert_eq!(s.cairn_new_in(3).len(), 1, "resumed, the push is advised again");
}

#[test]
fn both_install_routes_behave_alike_and_uninstall_leaves_none() {
    let home = home_with_lesson();
    let said = |route: Route| {
        let claude = Claude::new(&home, route);
        write_project_file(&claude, "README.md", "# shop\n");
        let s = claude.run("Push my work", push_session(), &["Bash", "Read"]);
        s.assert_completed("Finished.");
        (0..4).map(|n| s.cairn_new_in(n).iter().map(|t| t.lines().filter(|l| l.starts_with("- [")).collect::<Vec<_>>().join("\n")).collect::<Vec<_>>()).collect::<Vec<_>>()
    };
    let by_settings = said(Route::Settings);
    assert!(by_settings[3].iter().any(|t| t.contains(FORCE_PUSH)), "{by_settings:?}");
    assert_eq!(said(Route::Plugin), by_settings, "the plugin says what the settings route says, when it says it");

    let claude = Claude::new(&home, Route::Settings);
    let out = claude.cairn(&["hooks", "uninstall", "--user"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    write_project_file(&claude, "README.md", "# shop\n");
    let s = claude.run("Push my work", push_session(), &["Bash", "Read"]);
    s.assert_completed("Finished.");
    assert!(s.cairn_texts().is_empty(), "uninstalled, cairn still spoke: {:?}", s.cairn_texts());
}

#[test]
fn look_arounds_run_without_cairn_unless_all_tools() {
    let home = home_with_lesson();
    let session = || {
        vec![
            Turn::tool("Read", serde_json::json!({"file_path": "README.md"})),
            Turn::tool("Grep", serde_json::json!({"pattern": "shop"})),
            Turn::tool("Read", serde_json::json!({"file_path": "no-such-file.md"})),
            Turn::bash("ls", "List files"),
            Turn::text("Finished."),
        ]
    };
    let recorded = |claude: &Claude<'_>| {
        write_project_file(claude, "README.md", "# shop\n");
        let before = home.status()["session_events"].as_u64().unwrap();
        let s = claude.run("Look around", session(), &["Bash", "Read", "Grep"]);
        s.assert_completed("Finished.");
        assert!(s.hook_errors().is_empty(), "{:?}", s.hook_errors());
        home.status()["session_events"].as_u64().unwrap() - before
    };
    // The session's four events, the `ls`'s result and the failed read: one hook process for a
    // call that acts, none for a read or grep that worked.
    let fast = Claude::new(&home, Route::Settings);
    assert_eq!(recorded(&fast), 4 + 1 + 1, "Claude Code ran cairn's hook on a look-around, before a call, or not on a failure");
    let plugin = Claude::new(&home, Route::Plugin);
    assert_eq!(recorded(&plugin), 4 + 1 + 1, "the plugin wires the same tools");
    // `--all-tools`: every call's result.
    let every = Claude::new(&home, Route::Settings);
    let out = every.cairn(&["hooks", "install", "--user", "--all-tools"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(recorded(&every), 4 + 4, "--all-tools");
    // `--interrupts` adds the hook before each shell command.
    let out = every.cairn(&["hooks", "install", "--user", "--all-tools", "--interrupts"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(recorded(&every), 4 + 4 + 1, "--interrupts");
}

/// One HTTP/1.1 exchange with the stand-in: the response's head and body.
fn http(url: &str, request: &str) -> (String, String) {
    use std::io::{Read, Write};
    let addr = url.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut out = String::new();
    stream.read_to_string(&mut out).unwrap();
    let (head, body) = out.split_once("\r\n\r\n").unwrap_or((&out, ""));
    (head.to_string(), body.to_string())
}

fn post(url: &str, path: &str, body: &Value) -> (String, String) {
    let body = body.to_string();
    http(url, &format!("POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len()))
}

#[test]
fn the_stand_in_plays_its_script_in_both_forms_and_records_every_request() {
    use cairn_tests::claude::StandIn;
    let stand_in = StandIn::start(vec![Turn::bash("ls", "List"), Turn::text("Bye.")]);
    let url = stand_in.url();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    let turn = serde_json::json!({"model": "m", "messages": [{"role": "user", "content": "hi"}], "tools": [{"name": "Bash"}], "stream": true});
    // A side request (no tools) is answered without taking a turn of the script.
    let (_, side) = post(&url, "/v1/messages?beta=true", &serde_json::json!({"model": "m", "messages": [], "stream": false}));
    let side: Value = serde_json::from_str(&side).unwrap();
    assert_eq!((side["content"][0]["text"].as_str(), side["stop_reason"].as_str()), (Some("Done."), Some("end_turn")));
    // Streamed: server-sent events of a tool call.
    let (head, events) = post(&url, "/v1/messages?beta=true", &turn);
    assert!(head.contains("200") && head.to_lowercase().contains("text/event-stream"), "{head}");
    let names: Vec<&str> = events.lines().filter_map(|l| l.strip_prefix("event: ")).collect();
    assert_eq!(names, ["message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"]);
    assert!(events.contains("\"input_json_delta\"") && events.contains(r#"\"command\":\"ls\""#) && events.contains("\"tool_use\""), "{events}");
    // Not streamed: the whole message at once.
    let mut plain = turn.clone();
    plain["stream"] = false.into();
    let (_, body) = post(&url, "/v1/messages", &plain);
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!((answer["content"][0]["text"].as_str(), answer["stop_reason"].as_str()), (Some("Bye."), Some("end_turn")));
    let (_, count) = post(&url, "/v1/messages/count_tokens", &turn);
    assert!(serde_json::from_str::<Value>(&count).unwrap()["input_tokens"].as_u64().is_some());
    let (head, _) = http(&url, "HEAD / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let recorded = stand_in.requests();
    assert_eq!(recorded.iter().map(|r| r.path.as_str()).collect::<Vec<_>>(), ["/v1/messages?beta=true", "/v1/messages?beta=true", "/v1/messages", "/v1/messages/count_tokens"]);
    assert_eq!(recorded.iter().filter(|r| r.is_turn()).count(), 2);
    assert_eq!(stand_in.left(), 0);
}

/// The outcome attributed to the lesson said at tool call `id`, once there is one.
fn outcome_at(claude: &Claude<'_>, id: &str) -> Value {
    let mut found = Value::Null;
    let seen = eventually(Duration::from_secs(20), || {
        found = log(claude).into_iter().find(|e| e["tool_use_id"] == id).map(|e| e["outcomes"][0].clone()).unwrap_or(Value::Null);
        found["verdict"].as_str().is_some_and(|v| v != "unknown")
    });
    assert!(seen, "no outcome attributed at {id}: {found}");
    found
}

#[test]
fn what_the_agent_did_after_a_lesson_is_attributed_in_real_sessions() {
    let home = home_with_lesson();
    let claude = Claude::new(&home, Route::Settings);
    // Followed: told at the failed force push, the agent pushes again without forcing.
    let s = claude.run(
        "Push my work",
        vec![Turn::bash("git push --force origin main", "Push the branch"), Turn::bash("git push origin main", "Push the branch without forcing"), Turn::text("Finished.")],
        &["Bash"],
    );
    s.assert_completed("Finished.");
    assert!(s.cairn_new_in(1).iter().any(|t| t.contains(FORCE_PUSH)), "the premise: the lesson reached the model after the push");
    let followed = outcome_at(&claude, "toolu_stand_in_01");
    assert_eq!(followed["verdict"], "followed", "{followed}");
    assert!(followed["evidence"].as_str().unwrap().contains("git push origin main"), "{followed}");

    // Ignored: told (at the prompt, now that the lesson has helped once, or at the push), the
    // agent forces again.
    let first_session = log(&claude)[0]["session_id"].clone();
    let s = claude.run(
        "Push my work",
        vec![Turn::bash("git push --force origin main", "Push the branch"), Turn::bash("git push --force origin HEAD:main", "Push again"), Turn::text("Finished.")],
        &["Bash"],
    );
    s.assert_completed("Finished.");
    let ignored = eventually(Duration::from_secs(20), || {
        log(&claude).iter().filter(|e| e["session_id"] != first_session).any(|e| e["outcomes"][0]["verdict"] == "ignored")
    });
    assert!(ignored, "the repeated force push is not attributed as ignored: {:?}", log(&claude));

    // The lesson's worth: one helpful outcome (settled when Claude Code ended the session, or
    // still so far), one ignore, never counted from the pushes merely running.
    let id = log(&claude)[0]["items"][0]["id"].as_str().unwrap().to_string();
    let shown: Value = serde_json::from_slice(&claude.cairn(&["show", &id, "--json"]).stdout).unwrap();
    assert_eq!(shown["worth"]["ignored"], 1, "{shown}");
    assert_eq!(shown["worth"]["unhelpful"], 0, "one ignore alone does not count against it: {shown}");
    assert!(shown["worth"]["helpful"].as_u64().is_some_and(|h| h <= 1), "{shown}");
}

#[test]
fn the_model_calls_cairn_s_mcp_search_and_reads_its_answer() {
    let home = home_with_lesson();
    let claude = Claude::new(&home, Route::Without);
    let config = claude.user_home().join("mcp.json");
    let server = serde_json::json!({"mcpServers": {"cairn": {"command": cairn_bin(), "args": ["mcp"], "env": {"CAIRN_HOME": home.path()}}}});
    std::fs::write(&config, server.to_string()).unwrap();
    let turns = vec![Turn::tool("mcp__cairn__search_context", serde_json::json!({"query": "force-push main"})), Turn::text("Done.")];
    let s = claude.run_with("What do we know about pushing?", turns, &["mcp__cairn__search_context"], &["--mcp-config", config.to_str().unwrap(), "--strict-mcp-config"]);
    s.assert_completed("Done.");
    // The tool reached the model's tools, and its answer the model's next request.
    let first = &s.turns()[0].body;
    assert!(first["tools"].as_array().into_iter().flatten().any(|t| t["name"] == "mcp__cairn__search_context"), "the server's tools are offered to the model");
    let next = s.turns()[1].texts().join("\n");
    assert!(next.contains(FORCE_PUSH) && next.contains("\"why\""), "cairn's answer did not reach the model: {next}");
}
