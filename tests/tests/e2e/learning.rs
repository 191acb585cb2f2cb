//! The learning loop through the real binaries: each feedback verb changes the next answer on a
//! near-identical moment, what was learned stays in its project, survives `kill -9` with its
//! adjustment log, and bad feedback is refused with a reason.

use std::path::{Path, PathBuf};
use std::time::Duration;

use cairn_tests::*;
use serde_json::{json, Value};

/// A home with the model loaded, and a project folder in it.
fn home_and_project() -> (Home, PathBuf) {
    model_dir();
    let home = Home::new();
    home.up();
    // `up` starts a lite daemon, whose model loads on first use: a search uses it.
    home.ok(&["search", "warm up"]);
    assert!(eventually(Duration::from_secs(60), || home.status()["model"] == "loaded"), "the model did not load: {}", home.status());
    let project = home.path().join("shop");
    std::fs::create_dir_all(&project).unwrap();
    (home, std::fs::canonicalize(&project).unwrap())
}

/// A Bash tool call's result, as Claude Code sends it.
fn bash(session: &str, id: &str, cwd: &Path, command: &str, description: &str) -> Vec<u8> {
    json!({
        "session_id": session, "cwd": cwd, "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": id,
        "tool_input": {"command": command, "description": description}, "tool_response": {"stdout": "", "stderr": "", "interrupted": false}
    })
    .to_string()
    .into_bytes()
}

/// The context the hook gave, or "".
fn said(home: &Home, payload: &[u8]) -> String {
    additional_context(&assert_hook_contract(&home.hook(payload)))
}

fn in_dir(home: &Home, dir: &Path, args: &[&str]) -> std::process::Output {
    home.run_in(Some(dir), &[], args)
}

fn ok_in(home: &Home, dir: &Path, args: &[&str]) -> String {
    let out = in_dir(home, dir, args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Waits until every lesson said in `session` has an outcome record (so its access is counted).
fn attributed(home: &Home, session: &str) -> Vec<Value> {
    let mut entries = Vec::new();
    let done = eventually(Duration::from_secs(20), || {
        let log: Value = serde_json::from_str(&home.ok(&["log", "--json", "--all", "--session", session])).unwrap();
        entries = log["entries"].as_array().cloned().unwrap_or_default();
        entries.iter().all(|e| e["items"].as_array().map_or(0, Vec::len) == e["outcomes"].as_array().map_or(0, Vec::len))
    });
    assert!(done, "no outcome recorded for what was said in {session}: {entries:?}");
    entries
}

/// A prompt, as Claude Code sends it.
fn prompt(session: &str, cwd: &Path, text: &str) -> Vec<u8> {
    json!({"session_id": session, "cwd": cwd, "hook_event_name": "UserPromptSubmit", "prompt": text}).to_string().into_bytes()
}

/// The settled verdict on `lesson` said in `session`, waiting for it.
fn verdict(home: &Home, session: &str, lesson: &str) -> (String, String) {
    let mut found = (String::new(), String::new());
    let settled = eventually(Duration::from_secs(20), || {
        let log: Value = serde_json::from_str(&home.ok(&["log", "--json", "--all", "--session", session])).unwrap();
        let outcome = log["entries"].as_array().into_iter().flatten().flat_map(|e| e["outcomes"].as_array().cloned().unwrap_or_default()).find(|o| o["memory"] == lesson);
        match outcome {
            Some(o) if o["settled"] == true => {
                found = (o["verdict"].as_str().unwrap_or("").to_string(), o["evidence"].as_str().unwrap_or("").to_string());
                true
            }
            _ => false,
        }
    });
    assert!(settled, "no settled outcome for {lesson} in {session}");
    found
}

/// The pnpm lesson taught by a `used` on a missed moment (s0), then said at s1 and followed by
/// the next call; the lesson's id.
fn taught_then_followed(home: &Home, project: &Path) -> String {
    let lesson = ok_in(home, project, &["add", PNPM, "--category", "tooling"]).trim().to_string();
    said(home, &bash("s0", "toolu_0", project, "npm install left-pad", "Install left-pad"));
    ok_in(home, project, &["feedback", "used", &lesson, "--session", "s0", "--tool-use-id", "toolu_0"]);
    assert!(said(home, &bash("s1", "toolu_1", project, "npm install left-pad", "Install left-pad")).contains("pnpm workspaces"), "the premise: said after `used`");
    said(home, &bash("s1", "toolu_2", project, "pnpm add --filter web left-pad", "Add left-pad to the web package"));
    lesson
}

#[test]
fn what_happened_next_is_attributed_and_moves_the_lessons_worth() {
    let (home, project) = home_and_project();
    let install = |s: &str, id: &str| bash(s, id, &project, "npm install left-pad", "Install left-pad");
    // Followed: the next call does it the lesson's way; the user moves on.
    let lesson = taught_then_followed(&home, &project);
    // Until the user's next prompt, followed is only so far.
    let so_far = || attributed(&home, "s1")[0]["outcomes"][0].clone();
    assert!(eventually(Duration::from_secs(20), || so_far()["verdict"] == "followed"), "{}", so_far());
    assert_eq!(so_far()["settled"], false, "{}", so_far());
    said(&home, &prompt("s1", &project, "Thanks. Now run the unit tests"));
    let (v, evidence) = verdict(&home, "s1", &lesson);
    assert_eq!(v, "followed", "{evidence}");
    assert!(evidence.contains("pnpm add --filter web left-pad"), "{evidence}");

    // Ignored: the next call does again what the lesson warns about.
    assert!(said(&home, &install("s2", "toolu_1")).contains("pnpm workspaces"));
    said(&home, &bash("s2", "toolu_2", &project, "npm install left-pad --legacy-peer-deps", "Install left-pad ignoring peers"));
    let (v, evidence) = verdict(&home, "s2", &lesson);
    assert_eq!(v, "ignored", "{evidence}");

    // Contradicted: done the lesson's way, and the user rejects it.
    assert!(said(&home, &install("s3", "toolu_1")).contains("pnpm workspaces"));
    said(&home, &bash("s3", "toolu_2", &project, "pnpm add left-pad", "Add left-pad"));
    said(&home, &prompt("s3", &project, "No, undo that: this package is published with npm"));
    let (v, evidence) = verdict(&home, "s3", &lesson);
    assert_eq!(v, "contradicted", "{evidence}");

    // A call that merely succeeded says nothing: unknown, so far.
    assert!(said(&home, &install("s4", "toolu_1")).contains("pnpm workspaces"));
    said(&home, &bash("s4", "toolu_2", &project, "git status", "Show the working tree status"));
    let entries = attributed(&home, "s4");
    assert_eq!(entries[0]["outcomes"][0]["verdict"], "unknown", "{entries:?}");

    // The worth: `used` and followed helpful, contradicted unhelpful, one ignore counted alone;
    // each saying is an access.
    let shown: Value = serde_json::from_str(&home.ok(&["show", &lesson, "--json"])).unwrap();
    let w = &shown["worth"];
    assert_eq!((w["helpful"].as_u64(), w["unhelpful"].as_u64(), w["ignored"].as_u64()), (Some(2), Some(1), Some(1)), "{shown}");
    assert_eq!(w["times_surfaced"].as_u64(), Some(4), "{shown}");
    // Four sayings and the `used` given on one of them.
    assert!(shown["now"]["last_accessed"].is_string() && shown["now"]["access_count"] == 5, "{shown}");
    assert!((w["effectiveness"].as_f64().unwrap() - 3.0 / 5.0).abs() < 1e-9, "{shown}");
    // Each outcome is in the adjustment log, as the outcome tier.
    let log = home.ok(&["graph", "log", "--memory", &lesson, "--json"]);
    let reasons: Vec<String> = log.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()).filter(|l| l["source"] == "outcome").map(|l| l["reason"].as_str().unwrap().to_string()).collect();
    for v in ["followed", "ignored", "contradicted"] {
        assert!(reasons.iter().any(|r| r.starts_with(v)), "no {v} line: {log}");
    }
    // A second ignore in a row counts against the lesson.
    assert!(said(&home, &install("s5", "toolu_1")).contains("pnpm workspaces"));
    said(&home, &bash("s5", "toolu_2", &project, "npm i left-pad", "Install left-pad"));
    assert_eq!(verdict(&home, "s5", &lesson).0, "ignored");
    let shown: Value = serde_json::from_str(&home.ok(&["show", &lesson, "--json"])).unwrap();
    assert_eq!((shown["worth"]["ignored"].as_u64(), shown["worth"]["unhelpful"].as_u64()), (Some(2), Some(2)), "{shown}");
    // And the human view says it.
    let text = home.ok(&["log", "--all", "--session", "s5"]);
    assert!(text.contains("outcome: ignored: "), "{text}");

    // A startup brief's saying counts as said, not as an access: prediction chose what it says,
    // and an access there would prove the prediction by itself.
    let before: Value = serde_json::from_str(&home.ok(&["show", &lesson, "--json"])).unwrap();
    let brief = json!({"session_id": "s6", "cwd": project, "hook_event_name": "SessionStart", "source": "startup"}).to_string().into_bytes();
    assert!(said(&home, &brief).contains("pnpm workspaces"), "the premise: the brief brings the project's lesson");
    attributed(&home, "s6");
    let after: Value = serde_json::from_str(&home.ok(&["show", &lesson, "--json"])).unwrap();
    assert_eq!(after["worth"]["times_surfaced"].as_u64(), before["worth"]["times_surfaced"].as_u64().map(|n| n + 1), "{after}");
    // One access since: the `show` that read `before` (showing a memory is an access).
    assert_eq!(after["now"]["access_count"].as_u64(), before["now"]["access_count"].as_u64().map(|n| n + 1), "{after}");
}

#[test]
fn a_moment_followed_and_then_judged_by_the_user_counts_once() {
    let (home, project) = home_and_project();
    let lesson = taught_then_followed(&home, &project);
    said(&home, &prompt("s1", &project, "Thanks. Now run the unit tests"));
    assert_eq!(verdict(&home, "s1", &lesson).0, "followed");
    let helpful = || serde_json::from_str::<Value>(&home.ok(&["show", &lesson, "--json"])).unwrap()["worth"]["helpful"].as_u64();
    assert!(eventually(Duration::from_secs(10), || helpful() == Some(2)), "`used` at s0 and followed at s1: {:?}", helpful());
    // The user's word on the moment what happened next already counted: not a second outcome.
    ok_in(&home, &project, &["feedback", "used", &lesson, "--session", "s1", "--tool-use-id", "toolu_1"]);
    assert_eq!(helpful(), Some(2));
    // Overruled: the outcome's helpful count goes, and its record says so.
    ok_in(&home, &project, &["feedback", "not-relevant", &lesson, "--session", "s1", "--tool-use-id", "toolu_1"]);
    assert_eq!(helpful(), Some(1));
    assert_eq!(verdict(&home, "s1", &lesson).0, "unknown");
    ok_in(&home, &project, &["feedback", "used", &lesson, "--session", "s1", "--tool-use-id", "toolu_1"]);
    assert_eq!(helpful(), Some(2), "a mind changed back counts the moment once again");
}

#[test]
fn activation_spreads_along_links_and_sessions_that_went_well_link_their_lessons() {
    let (home, project) = home_and_project();
    let push = home.ok(&["add", "Never force-push to main; open a pull request instead", "--global", "--category", "git"]).trim().to_string();
    let check = home.ok(&["add", "Run make check before you open a pull request: CI runs the same target", "--global", "--category", "testing"]).trim().to_string();
    let moment = home.path().join("push.json");
    std::fs::write(&moment, bash("s9", "toolu_9", &project, "git push --force origin main", "Push the branch")).unwrap();
    let explain = |home: &Home| home.ok(&["advise", "--explain", "--json", "--hook-input", moment.to_str().unwrap()]);
    let before: Value = serde_json::from_str(&explain(&home)).unwrap();
    let mentions = |v: &Value| v["advice"].as_array().into_iter().chain(v["considered"].as_array()).flatten().find(|i| i["id"] == check.as_str()).cloned();
    assert!(mentions(&before).is_none_or(|i| !i["why"].as_str().unwrap().contains("linked from")), "the premise: {before}");

    // A link from the lesson the rule says to the other: activation reaches it, with its path.
    home.ok(&["graph", "link", &push, &check, "--strength", "0.95"]);
    let after: Value = serde_json::from_str(&explain(&home)).unwrap();
    let item = mentions(&after).unwrap_or_else(|| panic!("the linked lesson is not weighed: {after}"));
    assert!(item["why"].as_str().unwrap().contains("learned: linked from 'Never force-push"), "{item}");
    assert!(item["signals"]["activation"].as_f64().is_some_and(|a| (a - 0.45).abs() < 1e-6), "1 (the rule) x 0.9 (0.95 above neutral, doubled) x 0.5 (decay): {item}");
    assert_eq!(item["path"], json!([push, check]), "{item}");
    // Learning off: no spreading.
    home.write_tuneables(r#"{"learning": {"enabled": false}}"#);
    assert!(eventually(Duration::from_secs(10), || mentions(&serde_json::from_str(&explain(&home)).unwrap()).is_none_or(|i| i["signals"]["activation"].is_null())));
    home.write_tuneables("{}");
    assert!(eventually(Duration::from_secs(10), || mentions(&serde_json::from_str(&explain(&home)).unwrap()).is_some_and(|i| !i["signals"]["activation"].is_null())));

    // A session that went well: two lessons said, one followed, then the session ends.
    let pnpm = ok_in(&home, &project, &["add", PNPM, "--category", "tooling"]).trim().to_string();
    said(&home, &bash("s0", "toolu_0", &project, "npm install left-pad", "Install left-pad"));
    ok_in(&home, &project, &["feedback", "used", &pnpm, "--session", "s0", "--tool-use-id", "toolu_0"]);
    assert!(said(&home, &bash("s1", "toolu_1", &project, "git push --force origin main", "Push the branch")).contains("Never force-push"));
    assert!(said(&home, &bash("s1", "toolu_2", &project, "npm install left-pad", "Install left-pad")).contains("pnpm workspaces"));
    said(&home, &bash("s1", "toolu_3", &project, "pnpm add left-pad", "Add left-pad"));
    said(&home, &json!({"session_id": "s1", "cwd": project, "hook_event_name": "SessionEnd", "reason": "exit"}).to_string().into_bytes());
    assert_eq!(verdict(&home, "s1", &pnpm).0, "followed");
    let co_used = |from: &str| -> Option<f64> {
        let g: Value = serde_json::from_str(&home.ok(&["graph", "show", from, "--json"])).unwrap();
        g["out"].as_array().into_iter().flatten().find(|e| e["kind"] == "co_used").and_then(|e| e["strength"].as_f64())
    };
    assert!(eventually(Duration::from_secs(20), || co_used(&pnpm).is_some()), "no co_used edge after a session that went well");
    assert!((co_used(&pnpm).unwrap() - 0.50001).abs() < 1e-9 && (co_used(&push).unwrap() - 0.50001).abs() < 1e-9);
    let log = home.ok(&["graph", "log", "--memory", &pnpm, "--json"]);
    assert!(log.lines().any(|l| l.contains("\"automatic\"") && l.contains("co_used")), "{log}");
}

const PNPM: &str = "This repository uses pnpm workspaces: add packages with pnpm add --filter, never with npm";

#[test]
fn not_relevant_on_a_lesson_reached_through_another_leaves_the_other_said() {
    let (home, project) = home_and_project();
    // Activation strong enough that a linked lesson is said along the path [situation, A, B].
    home.write_tuneables(r#"{"learning": {"weight_activation": 10}, "ranking": {"min_fusion_score": 0.4}}"#);
    let in_force = |home: &Home| home.ok(&["config", "show"]).lines().any(|l| l.contains("learning.weight_activation") && l.contains("10"));
    assert!(eventually(Duration::from_secs(10), || in_force(&home)), "{}", home.ok(&["config", "show"]));
    let a = ok_in(&home, &project, &["add", PNPM, "--category", "tooling"]).trim().to_string();
    let b = ok_in(&home, &project, &["add", "Feature flags live in flags.yaml; register every new flag there with an owner", "--category", "config"]).trim().to_string();
    home.ok(&["graph", "link", &a, &b, "--strength", "0.95"]);
    said(&home, &bash("e1", "toolu_1", &project, "npm install left-pad", "Install left-pad"));
    ok_in(&home, &project, &["feedback", "used", &a, "--session", "e1", "--tool-use-id", "toolu_1"]);
    let both = said(&home, &bash("e2", "toolu_2", &project, "npm install left-pad", "Install left-pad"));
    assert!(both.contains("pnpm workspaces") && both.contains("flags.yaml"), "the premise: both said: {both}");
    let log: Value = serde_json::from_str(&ok_in(&home, &project, &["log", "--json", "--session", "e2"])).unwrap();
    let path = log["entries"][0]["items"].as_array().unwrap().iter().find(|i| i["id"] == b.as_str()).map(|i| i["path"].clone()).unwrap();
    assert_eq!(path.as_array().map(Vec::len), Some(3), "B reached through A: {path}");

    // The route to B was wrong; the user's own `used` on A stands.
    ok_in(&home, &project, &["feedback", "not-relevant", &b, "--session", "e2", "--tool-use-id", "toolu_2"]);
    let after = said(&home, &bash("e3", "toolu_3", &project, "npm install left-pad", "Install left-pad"));
    assert!(after.contains("pnpm workspaces"), "A is still said: {after}");
    let graph: Value = serde_json::from_str(&home.ok(&["graph", "show", &a, "--json"])).unwrap();
    let link = graph["into"].as_array().unwrap().iter().find(|l| l[0]["kind"] == "applies").unwrap()[0]["strength"].as_f64().unwrap();
    assert!(link > 0.5, "the situation's link to A keeps its side: {link}");
    let out: Value = serde_json::from_str(&home.ok(&["graph", "show", &a, "--json"])).unwrap();
    let to_b = out["out"].as_array().unwrap().iter().find(|e| e["target"] == b.as_str()).and_then(|e| e["strength"].as_f64()).unwrap();
    assert!(to_b < 0.95, "the link from A to B is weakened: {to_b}");
}

#[test]
fn used_on_a_missed_moment_makes_it_speak_on_a_near_identical_one() {
    let (home, project) = home_and_project();
    let lesson = ok_in(&home, &project, &["add", PNPM, "--category", "tooling"]).trim().to_string();
    let first = bash("s1", "toolu_1", &project, "npm install left-pad", "Install left-pad");
    assert!(!said(&home, &first).contains("pnpm workspaces"), "the premise: the lesson is missed at first");

    let out = ok_in(&home, &project, &["feedback", "used", &lesson, "--session", "s1", "--tool-use-id", "toolu_1", "--json"]);
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["said_there"], false);
    assert!(report["situation"].as_str().is_some_and(|s| s.starts_with("sit_")), "{report}");

    // The same call in another session (no cooldown), and a near-identical one.
    let again = said(&home, &bash("s2", "toolu_2", &project, "npm install left-pad", "Install left-pad"));
    assert!(again.contains("pnpm workspaces") && again.contains("learned"), "said after one `used`: {again}");
    let near = said(&home, &bash("s3", "toolu_3", &project, "npm install left-pad --save", "Install the left-pad package"));
    assert!(near.contains("pnpm workspaces"), "said on a near-identical moment: {near}");
    // The same command on another package: near by its shape, although the names make the two
    // far apart in meaning; another subcommand of the same program is not.
    let lodash = said(&home, &bash("s3a", "toolu_3a", &project, "npm install lodash", "Install lodash"));
    assert!(lodash.contains("pnpm workspaces"), "said on the same command for another package: {lodash}");
    let why = ok_in(&home, &project, &["log", "--json", "--session", "s3a"]);
    assert!(why.contains("the same command"), "why says so: {why}");
    let build = said(&home, &bash("s3b", "toolu_3b", &project, "npm run build", "Build the project"));
    assert!(!build.contains("pnpm workspaces"), "not said on another subcommand: {build}");

    // The advice log records the path that reached it: the situation, then the lesson.
    let log: Value = serde_json::from_str(&ok_in(&home, &project, &["log", "--json", "--session", "s2"])).unwrap();
    let item = &log["entries"][0]["items"][0];
    assert_eq!(item["path"][1], lesson.as_str(), "{item}");
    assert_eq!(item["path"][0], report["situation"], "{item}");
    // `used` counts as a helpful outcome.
    let shown: Value = serde_json::from_str(&home.ok(&["show", &lesson, "--json"])).unwrap();
    assert_eq!(shown["worth"]["helpful"], 1);

    // With learning off, what was learned stays out of advice (and is kept).
    home.write_tuneables(r#"{"learning": {"enabled": false}}"#);
    let learning_off = |home: &Home| home.ok(&["config", "show"]).lines().any(|l| l.contains("learning.enabled") && l.contains("false"));
    assert!(eventually(Duration::from_secs(10), || learning_off(&home)), "{}", home.ok(&["config", "show"]));
    let off = said(&home, &bash("s4", "toolu_4", &project, "npm install left-pad", "Install left-pad"));
    assert!(!off.contains("pnpm workspaces"), "learning.enabled false: {off}");
    home.write_tuneables("{}");
    assert!(eventually(Duration::from_secs(10), || !learning_off(&home)));
    assert!(said(&home, &bash("s5", "toolu_5", &project, "npm install left-pad", "Install left-pad")).contains("pnpm workspaces"), "back on");

    // A look at the graph and its log.
    let graph: Value = serde_json::from_str(&home.ok(&["graph", "show", &lesson, "--json"])).unwrap();
    assert_eq!(graph["into"][0][0]["kind"], "applies");
    assert!(graph["into"][0][0]["strength"].as_f64().unwrap() > 0.5);
    assert_eq!(graph["into"][0][1]["text"].as_str().map(|t| t.contains("npm install left-pad")), Some(true), "{graph}");
    let log = home.ok(&["graph", "log", "--memory", &lesson, "--json"]);
    let lines: Vec<Value> = log.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2, "the link and the effectiveness: {log}");
    assert!(lines.iter().all(|l| l["source"] == "deliberate" && l["reason"].as_str().unwrap().starts_with("used on")), "{log}");
}

#[test]
fn not_relevant_keeps_it_quiet_on_a_near_identical_moment() {
    let (home, project) = home_and_project();
    let lesson = home.ok(&["add", "Run database migrations against a copy of production before running them for real", "--global", "--category", "database"]).trim().to_string();
    let payload = |s: &str, id: &str| bash(s, id, &project, "alembic upgrade head", "Run the database migrations");
    assert!(said(&home, &payload("s1", "toolu_1")).contains("copy of production"), "the premise: said at first");

    let out = ok_in(&home, &project, &["feedback", "not-relevant", &lesson, "--session", "s1", "--tool-use-id", "toolu_1", "--json"]);
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["said_there"], true);
    assert!(!said(&home, &payload("s2", "toolu_2")).contains("copy of production"), "said again after `not-relevant`");
    // `advise --explain` says why.
    let hook_input = home.path().join("moment.json");
    std::fs::write(&hook_input, payload("s9", "toolu_9")).unwrap();
    let explained = home.ok(&["advise", "--explain", "--hook-input", hook_input.to_str().unwrap()]);
    assert!(explained.contains("learned: it was not for a moment like"), "{explained}");
    // The lesson keeps its worth: the route was wrong, not the lesson.
    let shown: Value = serde_json::from_str(&home.ok(&["show", &lesson, "--json"])).unwrap();
    assert_eq!((shown["worth"]["helpful"].as_u64(), shown["worth"]["unhelpful"].as_u64()), (Some(0), Some(0)));
    // Another project's moment is not touched by this project's judgement.
    let other = home.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    let elsewhere = said(&home, &bash("s3", "toolu_3", &std::fs::canonicalize(&other).unwrap(), "alembic upgrade head", "Run the database migrations"));
    assert!(elsewhere.contains("copy of production"), "a judgement in one project silenced a global lesson in another: {elsewhere}");
    // The latest judgement decides: `used` on the same moment brings it back.
    ok_in(&home, &project, &["feedback", "used", &lesson, "--session", "s2", "--tool-use-id", "toolu_2"]);
    assert!(said(&home, &payload("s4", "toolu_4")).contains("copy of production"), "`used` after `not-relevant`");
    // A mind changed twice on one moment is one helpful outcome, not two.
    let helpful = |home: &Home| serde_json::from_str::<Value>(&home.ok(&["show", &lesson, "--json"])).unwrap()["worth"]["helpful"].as_u64();
    assert_eq!(helpful(&home), Some(1));
    ok_in(&home, &project, &["feedback", "not-relevant", &lesson, "--session", "s2", "--tool-use-id", "toolu_2"]);
    assert_eq!(helpful(&home), Some(0), "`not-relevant` takes back the `used` it reverses");
    ok_in(&home, &project, &["feedback", "used", &lesson, "--session", "s2", "--tool-use-id", "toolu_2"]);
    assert_eq!(helpful(&home), Some(1), "used, not-relevant, used");
}

#[test]
fn a_situation_evicted_to_keep_the_bound_is_a_line_of_the_adjustment_log() {
    let (home, project) = home_and_project();
    home.write_tuneables(r#"{"learning": {"max_situations_per_lesson": 2}}"#);
    assert!(eventually(Duration::from_secs(10), || home.ok(&["config", "show"]).lines().any(|l| l.trim_start().starts_with("learning.max_situations_per_lesson") && l.contains("= 2 "))));
    let lesson = home.ok(&["add", "Deploys go through the release pipeline, never by hand", "--global", "--category", "deployment"]).trim().to_string();
    for (i, command) in ["make deploy-api", "scp build.tar web-1:/srv", "rsync -a dist/ web-2:/srv"].iter().enumerate() {
        let (s, id) = (format!("s{i}"), format!("toolu_{i}"));
        said(&home, &bash(&s, &id, &project, command, "Ship it"));
        ok_in(&home, &project, &["feedback", "used", &lesson, "--session", &s, "--tool-use-id", &id]);
    }
    let log: Vec<Value> = home.ok(&["graph", "log", "--memory", &lesson, "--json"]).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let evicted: Vec<&Value> = log.iter().filter(|l| l["reason"].as_str().is_some_and(|r| r.starts_with("evicted"))).collect();
    assert_eq!(evicted.len(), 1, "{log:?}");
    assert_eq!((evicted[0]["new"].as_f64(), evicted[0]["source"].as_str()), (Some(0.5), Some("automatic")), "{:?}", evicted[0]);
    assert!(evicted[0]["old"].as_f64().is_some_and(|o| o > 0.5));
    // Forgotten, the lesson's links are lines of the log too, and its situations go with it.
    home.ok(&["forget", &lesson]);
    let log: Vec<Value> = home.ok(&["graph", "log", "--memory", &lesson, "--json"]).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(log.iter().filter(|l| l["reason"].as_str().is_some_and(|r| r.contains("forgotten"))).count(), 2, "{log:?}");
    let export = home.ok(&["export"]);
    let situations = export.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()).filter(|v| v["kind"] == "situation").count();
    assert_eq!(situations, 0, "situations linked to nothing left: {export}");
}

#[test]
fn feedback_on_the_latest_moment_means_the_call_that_said_the_lesson() {
    let home = Home::with_seed_pack();
    home.up();
    let project = std::fs::canonicalize(home.path()).unwrap();
    let lesson = "seed-git-force-push";
    // Hooks on both sides of a call: the lesson is said before it, and its result comes last.
    let before = json!({
        "session_id": "s1", "cwd": project, "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": "toolu_1",
        "tool_input": {"command": "git push --force origin main", "description": "Force push"}
    });
    assert!(said(&home, before.to_string().as_bytes()).contains("Never force-push a shared branch"));
    said(&home, &bash("s1", "toolu_1", &project, "git push --force origin main", "Force push"));
    for args in [vec!["feedback", "not-relevant", lesson], vec!["feedback", "not-relevant", lesson, "--session", "s1"]] {
        let out = ok_in(&home, &project, &args);
        assert!(out.starts_with("moment: PreToolUse Bash (toolu_1)") && out.contains("was said there"), "{args:?}: {out}");
    }
}

#[test]
fn learning_stays_in_its_project() {
    let (home, project) = home_and_project();
    let lesson = home.ok(&["add", PNPM, "--global", "--category", "tooling"]).trim().to_string();
    said(&home, &bash("s1", "toolu_1", &project, "npm install left-pad", "Install left-pad"));
    ok_in(&home, &project, &["feedback", "used", &lesson, "--session", "s1", "--tool-use-id", "toolu_1"]);
    assert!(said(&home, &bash("s2", "toolu_2", &project, "npm install left-pad", "Install left-pad")).contains("pnpm workspaces"));
    // The same moment in another project: this project's situation does not speak there.
    let other = home.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    let other = std::fs::canonicalize(&other).unwrap();
    let there = said(&home, &bash("s3", "toolu_3", &other, "npm install left-pad", "Install left-pad"));
    assert!(!there.contains("pnpm workspaces"), "a situation of one project spoke in another: {there}");
    // A project's lesson cannot be linked to another project's moment.
    let own = ok_in(&home, &other, &["add", "The other project deploys with make ship", "--category", "deployment"]).trim().to_string();
    let out = in_dir(&home, &project, &["feedback", "used", &own, "--session", "s1", "--tool-use-id", "toolu_1"]);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("learns only where it can be said"));
    // Nor to another project's lesson by hand (a global one may be).
    let mine = ok_in(&home, &project, &["add", "This project ships with make release", "--category", "deployment"]).trim().to_string();
    let out = in_dir(&home, &project, &["graph", "link", &mine, &own, "--strength", "0.9"]);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("different projects"));
    ok_in(&home, &project, &["graph", "link", &mine, &lesson, "--strength", "0.9"]);
}

/// A `not-useful` given right after the hook said the lesson counts, each time it is said again:
/// the saying is in the log at once, before the outcome worker counts it a moment later.
#[test]
fn not_useful_right_after_each_saying_counts_each_time() {
    let home = Home::with_seed_pack();
    home.up();
    let project = std::fs::canonicalize(home.path()).unwrap();
    for i in 1..=3 {
        let said = said(&home, &bash(&format!("c{i}"), &format!("toolu_{i}"), &project, "chmod -R 777 /var/www", "Fix permissions"));
        assert!(said.contains("777"), "{said}");
        let out = ok_in(&home, &project, &["feedback", "not-useful", "seed-chmod-777"]);
        assert!(!out.contains("nothing changed"), "saying {i}: {out}");
    }
    let shown: Value = serde_json::from_str(&home.ok(&["show", "seed-chmod-777", "--json"])).unwrap();
    assert_eq!(shown["worth"]["unhelpful"], 3, "{shown}");
    // And not again before the next saying.
    assert!(ok_in(&home, &project, &["feedback", "not-useful", "seed-chmod-777"]).contains("nothing changed"));
}

#[test]
fn not_useful_after_the_saying_left_the_session_log_still_counts() {
    let home = Home::with_seed_pack();
    // A log of four events: each new one retires the oldest.
    home.write_tuneables(r#"{"sessions": {"max_events": 4}}"#);
    home.up();
    assert!(eventually(Duration::from_secs(10), || home.ok(&["config", "show"]).lines().any(|l| l.trim_start().starts_with("sessions.max_events") && l.contains("= 4 "))));
    let project = std::fs::canonicalize(home.path()).unwrap();
    let surfaced = |home: &Home| serde_json::from_str::<Value>(&home.ok(&["show", "seed-chmod-777", "--json"])).unwrap()["worth"]["times_surfaced"].as_u64().unwrap_or(0);
    let retire = |home: &Home, from: usize| {
        for i in from..from + 6 {
            said(home, &bash(&format!("r{i}"), &format!("toolu_{i}"), &project, "ls", "List files"));
        }
    };
    // Right after the saying, before the outcome worker counts it.
    assert!(said(&home, &bash("r1", "toolu_1", &project, "chmod -R 777 /var/www", "Fix permissions")).contains("777"));
    assert!(!ok_in(&home, &project, &["feedback", "not-useful", "seed-chmod-777"]).contains("nothing changed"));
    assert!(eventually(Duration::from_secs(10), || surfaced(&home) == 1), "the saying counted");
    // Routine calls retire the saying from the log; it was judged already, so nothing changes.
    retire(&home, 10);
    assert!(ok_in(&home, &project, &["feedback", "not-useful", "seed-chmod-777"]).contains("nothing changed"));
    // Said again, then retired from the log: it counts, once.
    assert!(said(&home, &bash("r2", "toolu_2", &project, "chmod -R 777 /srv/app", "Fix permissions")).contains("777"));
    assert!(eventually(Duration::from_secs(10), || surfaced(&home) == 2), "the second saying counted");
    retire(&home, 20);
    let out = ok_in(&home, &project, &["feedback", "not-useful", "seed-chmod-777"]);
    assert!(!out.contains("nothing changed"), "said again since, though the log no longer holds it: {out}");
    assert!(ok_in(&home, &project, &["feedback", "not-useful", "seed-chmod-777"]).contains("nothing changed"));
    let shown: Value = serde_json::from_str(&home.ok(&["show", "seed-chmod-777", "--json"])).unwrap();
    assert_eq!(shown["worth"]["unhelpful"], 2, "{shown}");
}

#[test]
fn not_useful_lowers_the_node_and_bad_feedback_is_refused() {
    let (home, project) = home_and_project();
    let lesson = home.ok(&["add", "Run database migrations against a copy of production before running them for real", "--global", "--category", "database"]).trim().to_string();
    let out = home.ok(&["feedback", "not-useful", &lesson, "--json"]);
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["changes"].as_array().unwrap().len(), 2, "{report}");
    let shown: Value = serde_json::from_str(&home.ok(&["show", &lesson, "--json"])).unwrap();
    assert!((shown["node_weight"].as_f64().unwrap() - 0.9).abs() < 1e-9, "{shown}");
    assert_eq!(shown["worth"]["unhelpful"], 1);
    // Said again before the lesson was said again: nothing changes, and the answer says why.
    let again = home.ok(&["feedback", "not-useful", &lesson]);
    assert!(again.contains("nothing changed") && again.contains("has not been said since"), "{again}");
    let shown: Value = serde_json::from_str(&home.ok(&["show", &lesson, "--json"])).unwrap();
    assert!((shown["node_weight"].as_f64().unwrap() - 0.9).abs() < 1e-9 && shown["worth"]["unhelpful"] == 1, "{shown}");
    // Its odds drop in the decision, and `why` names it.
    let hook_input = home.path().join("moment.json");
    std::fs::write(&hook_input, bash("s1", "toolu_1", &project, "alembic upgrade head", "Run the database migrations")).unwrap();
    let explained = home.ok(&["advise", "--explain", "--hook-input", hook_input.to_str().unwrap()]);
    assert!(explained.contains("node weight 0.90"), "{explained}");

    // Refused, each with a reason and nothing changed.
    let before = home.ok(&["graph", "log", "--json"]);
    for (args, code, says) in [
        (vec!["feedback", "used", "no-such-memory", "--session", "s1"], 1, "no memory"),
        (vec!["feedback", "used", lesson.as_str(), "--session", "s1", "--tool-use-id", "toolu_nope"], 1, "no tool call toolu_nope"),
        (vec!["feedback", "used", lesson.as_str(), "--session", "never"], 1, "no moment"),
        (vec!["graph", "link", lesson.as_str(), lesson.as_str(), "--strength", "0.5"], 2, "two different ends"),
        (vec!["graph", "link", lesson.as_str(), "other", "--strength", "2"], 2, "not between 0 and 1"),
        (vec!["graph", "link", lesson.as_str(), "other", "--strength", "0.5", "--kind", "friends"], 2, "unknown edge kind"),
    ] {
        let out = home.run(&args);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stderr).contains(says), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
    assert_eq!(home.ok(&["graph", "log", "--json"]), before, "a refused feedback changes nothing");
}

#[test]
fn what_was_learned_survives_kill_9() {
    let (home, project) = home_and_project();
    let a = home.ok(&["add", PNPM, "--global", "--category", "tooling"]).trim().to_string();
    let b = home.ok(&["add", "Keep the lockfile in the same commit as the package.json change", "--global", "--category", "tooling"]).trim().to_string();
    said(&home, &bash("s1", "toolu_1", &project, "npm install left-pad", "Install left-pad"));
    ok_in(&home, &project, &["feedback", "used", &a, "--session", "s1", "--tool-use-id", "toolu_1"]);
    home.ok(&["graph", "link", &a, &b, "--strength", "0.7"]);
    // What the outcome worker writes after a saying is in before the snapshot.
    attributed(&home, "s1");
    let log = home.ok(&["graph", "log", "--json"]);
    let graph = home.ok(&["graph", "show", &a, "--json"]);
    let pid = home.daemon_pid().unwrap();
    // SAFETY: kills the daemon of this private home.
    unsafe { libc::kill(pid, libc::SIGKILL) };
    assert!(eventually(Duration::from_secs(10), || !home.socket().exists() || home.run(&["status"]).status.code() == Some(3)));
    home.up();
    assert_eq!(home.ok(&["graph", "log", "--json"]), log, "the adjustment log is whole after kill -9");
    assert_eq!(home.ok(&["graph", "show", &a, "--json"]), graph, "the graph is whole after kill -9");
    home.ok(&["search", "warm up"]);
    assert!(eventually(Duration::from_secs(60), || home.status()["model"] == "loaded"));
    assert!(said(&home, &bash("s2", "toolu_2", &project, "npm install left-pad", "Install left-pad")).contains("pnpm workspaces"), "the situation works after a restart");
    // The manual tier: set outright, clamped, and logged as manual.
    home.ok(&["graph", "link", &a, &b, "--strength", "1"]);
    let last: Value = serde_json::from_str(home.ok(&["graph", "log", "--json", "--last", "1"]).trim()).unwrap();
    assert_eq!((last["source"].as_str(), last["new"].as_f64(), last["old"].as_f64()), (Some("manual"), Some(0.95), Some(0.7)), "{last}");
    // Forgetting a lesson takes its edges.
    home.ok(&["forget", &b]);
    let graph: Value = serde_json::from_str(&home.ok(&["graph", "show", &a, "--json"])).unwrap();
    assert!(graph["out"].as_array().unwrap().is_empty(), "{graph}");
}

#[test]
fn feedback_to_a_killed_daemon_is_refused_or_kept() {
    let (home, project) = home_and_project();
    let lesson = home.ok(&["add", PNPM, "--global", "--category", "tooling"]).trim().to_string();
    said(&home, &bash("s1", "toolu_1", &project, "npm install left-pad", "Install left-pad"));
    attributed(&home, "s1");
    let before = home.ok(&["graph", "log", "--json"]);
    let pid = home.daemon_pid().unwrap();
    // SAFETY: kills the daemon of this private home.
    unsafe { libc::kill(pid, libc::SIGKILL) };
    assert!(eventually(Duration::from_secs(10), || home.run(&["status"]).status.code() == Some(3)));
    let out = in_dir(&home, &project, &["feedback", "used", &lesson, "--session", "s1", "--tool-use-id", "toolu_1"]);
    home.up();
    let after = home.ok(&["graph", "log", "--json"]);
    if out.status.success() {
        // Answered: then it is kept.
        assert!(after.len() > before.len() && after.contains("used on"), "acknowledged and lost: {after}");
    } else {
        // Refused, with a reason, and nothing of it happened.
        assert!(!String::from_utf8_lossy(&out.stderr).trim().is_empty());
        assert_eq!(after, before, "refused, yet changed");
    }
}

#[test]
fn export_and_import_carry_what_was_learned_exactly() {
    let (home, project) = home_and_project();
    let a = home.ok(&["add", PNPM, "--global", "--category", "tooling"]).trim().to_string();
    let b = home.ok(&["add", "Keep the lockfile in the same commit as the package.json change", "--global", "--category", "tooling"]).trim().to_string();
    said(&home, &bash("s1", "toolu_1", &project, "npm install left-pad", "Install left-pad"));
    ok_in(&home, &project, &["feedback", "used", &a, "--session", "s1", "--tool-use-id", "toolu_1"]);
    home.ok(&["feedback", "not-useful", &b]);
    home.ok(&["graph", "link", &a, &b, "--strength", "0.3"]);
    let file = home.path().join("export.jsonl");
    home.ok(&["export", file.to_str().unwrap()]);
    let first = std::fs::read_to_string(&file).unwrap();
    assert!(first.lines().any(|l| l.contains("\"kind\":\"situation\"")), "{first}");
    assert!(first.lines().any(|l| l.contains("\"applies\"")) && first.lines().any(|l| l.contains("\"manual\"")), "{first}");

    let fresh = Home::new();
    fresh.up();
    fresh.ok(&["import", file.to_str().unwrap()]);
    assert_eq!(fresh.ok(&["export"]), first, "export -> import -> export changes nothing");
    // And it works there: the imported situation speaks for its lesson in its project.
    fresh.ok(&["search", "warm up"]);
    assert!(eventually(Duration::from_secs(60), || fresh.status()["model"] == "loaded"));
    assert!(said(&fresh, &bash("s2", "toolu_2", &project, "npm install left-pad", "Install left-pad")).contains("pnpm workspaces"));
}

#[test]
fn imported_links_keep_the_rules_feedback_keeps() {
    let home = Home::new();
    home.up();
    let at = "2026-11-25T00:00:00.000Z";
    let mine = home.ok(&["add", "Deploy the shop with make ship", "--project", "/shop", "--category", "deployment"]).trim().to_string();
    let theirs = home.ok(&["add", "Deploy the blog with hugo deploy", "--project", "/blog", "--category", "deployment"]).trim().to_string();
    let situation = json!({"v": 1, "kind": "situation", "situation": {"id": "sit_01", "project": "/shop", "event": "PostToolUse", "tool": "Bash", "text": "PGPASSWORD=hunter2hunter2 make deploy", "meaning": "Deploy with PGPASSWORD=hunter2hunter2", "created_at": at, "last_seen": at, "seen": 1}});
    let edge = |source: &str, target: &str, kind: &str| json!({"v": 1, "kind": "edge", "edge": {"source": source, "target": target, "kind": kind, "strength": 0.6, "created_at": at, "updated_at": at}}).to_string();
    let lines = [
        situation.to_string(),
        edge("sit_01", &mine, "applies"),
        edge("sit_01", &theirs, "applies"),
        edge("sit_99", &mine, "applies"),
        edge("sit_01", &mine, "manual"),
        edge(&mine, &theirs, "applies"),
        // As `graph link` refuses them: a dangling end, a loop, a lesson's link to a situation.
        edge(&mine, "NO-SUCH-MEMORY", "manual"),
        edge(&mine, &mine, "co_used"),
        edge(&mine, "sit_01", "manual"),
    ];
    let file = home.path().join("graph.jsonl");
    std::fs::write(&file, lines.join("\n")).unwrap();
    let out = home.run(&["import", file.to_str().unwrap()]);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("2 added, 0 updated, 7 rejected"), "{stdout}\n{stderr}");
    let rejected: Vec<&str> = stderr.lines().filter(|l| l.contains(": line ")).collect();
    assert_eq!(rejected.len(), 7, "{stderr}");
    for (line, says) in [(3, "may not link"), (4, "not a situation here"), (5, "with `applies` only"), (6, "not a situation here"), (7, "not a memory here"), (8, "two different ends"), (9, "only situations link to lessons")] {
        assert!(rejected.iter().any(|l| l.contains(&format!(": line {line}: ")) && l.contains(says)), "line {line}: {stderr}");
    }
    let graph: Value = serde_json::from_str(&home.ok(&["graph", "show", &mine, "--json"])).unwrap();
    assert_eq!(graph["into"].as_array().unwrap().len(), 1, "only the situation's own link: {graph}");
    // A situation holds redacted text only, imported or not.
    let (shown, exported) = (home.ok(&["graph", "show", &mine]), home.ok(&["export"]));
    assert!(shown.contains("make deploy") && !shown.contains("hunter2") && !exported.contains("hunter2"), "{shown}");
    let theirs_graph: Value = serde_json::from_str(&home.ok(&["graph", "show", &theirs, "--json"])).unwrap();
    assert!(theirs_graph["into"].as_array().unwrap().is_empty(), "{theirs_graph}");
}

/// A Bash call that failed, as Claude Code sends it.
fn bash_failed(session: &str, id: &str, cwd: &Path, command: &str, error: &str) -> Vec<u8> {
    json!({
        "session_id": session, "cwd": cwd, "hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "tool_use_id": id,
        "tool_input": {"command": command}, "error": error, "is_interrupt": false
    })
    .to_string()
    .into_bytes()
}

/// The candidates `cairn review --json` lists in `dir`'s project, once `ready` holds.
fn candidates(home: &Home, dir: &Path, ready: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    let mut found = Vec::new();
    let ok = eventually(Duration::from_secs(20), || {
        let v: Value = serde_json::from_str(&ok_in(home, dir, &["review", "--json"])).unwrap();
        found = v["candidates"].as_array().cloned().unwrap_or_default();
        ready(&found)
    });
    assert!(ok, "review never showed what was expected: {found:#?}");
    found
}

#[test]
fn a_correction_becomes_a_candidate_that_earns_its_voice() {
    let (home, project) = home_and_project();
    // A request, a question and thanks teach nothing; the correction after a call does.
    for text in ["add a test for parse_date", "why does the build fail?", "thanks!"] {
        said(&home, &prompt("c1", &project, text));
    }
    // The correction corrects the calls of the turn before it.
    said(&home, &bash("c1", "t1", &project, "npm install left-pad", "Install left-pad"));
    said(&home, &prompt("c1", &project, "no, use pnpm here, not npm"));
    let c = candidates(&home, &project, |c| !c.is_empty());
    assert_eq!(c.len(), 1, "{c:#?}");
    let id = c[0]["id"].as_str().unwrap().to_string();
    assert_eq!(c[0]["text"], "Use pnpm here, not npm.");
    assert_eq!(c[0]["source"], "prompt");
    assert_eq!(c[0]["quality"]["verdict"], "quality");
    let evidence = c[0]["evidence"].to_string();
    assert!(evidence.contains("no, use pnpm here") && evidence.contains("npm install left-pad"), "{evidence}");
    assert_eq!(c[0]["quality"]["reasons"].as_array().unwrap().len(), 6);
    let shown: Value = serde_json::from_str(&ok_in(&home, &project, &["show", &id, "--json"])).unwrap();
    assert_eq!(shown["source"], "captured");
    assert!(shown["why"]["caused_by"][0].as_str().unwrap().starts_with("sit_"), "the corrected moment is what caused it: {shown}");

    // A candidate is silent: where it would have spoken is its shadow record. The user teaching
    // it again in that session confirms the moment; two confirmed moments promote it.
    for (n, session) in ["c2", "c3"].iter().enumerate() {
        let context = said(&home, &bash(session, "t1", &project, "npm install left-pad", "Install left-pad"));
        assert!(!context.contains("pnpm"), "a candidate spoke: {context}");
        candidates(&home, &project, |c| c.iter().any(|c| c["shadow"]["would_have_spoken"].as_u64() == Some(n as u64 + 1)));
        said(&home, &prompt(session, &project, "no, use pnpm here, not npm"));
        if n == 0 {
            let c = candidates(&home, &project, |c| c.iter().any(|c| c["shadow"]["confirmed"] == 1));
            assert_eq!(c.len(), 1, "taught again: the same candidate, not a second one: {c:#?}");
        }
    }
    candidates(&home, &project, |c| c.is_empty());
    let shown: Value = serde_json::from_str(&ok_in(&home, &project, &["show", &id, "--json"])).unwrap();
    assert_eq!(shown["capture"]["promoted"]["by"], "auto", "{shown}");
    let context = said(&home, &bash("c4", "t1", &project, "npm install left-pad", "Install left-pad"));
    assert!(context.contains("Use pnpm here, not npm."), "promoted, it speaks: {context:?}");
    let status = home.status();
    assert_eq!((status["capture"]["candidates"].as_u64(), status["capture"]["promoted"].as_u64()), (Some(0), Some(1)), "{status}");

    // A standing instruction after a call it does not speak of keeps that call as evidence,
    // not as a moment it was taught for: the next build is no shadow moment of it.
    said(&home, &bash("c5", "t1", &project, "make build", "Build"));
    said(&home, &prompt("c5", &project, "always run the linter before committing, because CI rejects unlinted code"));
    let c = candidates(&home, &project, |c| !c.is_empty());
    assert!(c[0]["evidence"].to_string().contains("make build"), "{c:#?}");
    let shown: Value = serde_json::from_str(&ok_in(&home, &project, &["show", c[0]["id"].as_str().unwrap(), "--json"])).unwrap();
    assert!(shown["why"]["caused_by"].as_array().is_none_or(|a| a.is_empty()), "{shown}");
    said(&home, &bash("c6", "t1", &project, "make build", "Build"));
    std::thread::sleep(Duration::from_millis(500));
    let c = candidates(&home, &project, |c| !c.is_empty());
    assert_eq!(c[0]["shadow"]["would_have_spoken"].as_u64(), Some(0), "{c:#?}");
}

#[test]
fn a_rule_no_pattern_hears_is_captured_by_the_prompt_model() {
    let (home, project) = home_and_project();
    // Said as a fact with its reason, in words capture's patterns do not hear (the unit test
    // `some_rules_no_pattern_hears` checks that): the prompt model reads it as a lesson.
    let rule = "prod migrations go through the release pipeline, running them by hand skips the lock";
    said(&home, &bash("r1", "t1", &project, "npx prisma migrate deploy", "Apply migrations to prod"));
    said(&home, &prompt("r1", &project, &format!("ok that one's done. {rule}")));
    let c = candidates(&home, &project, |c| !c.is_empty());
    assert_eq!(c.len(), 1, "{c:#?}");
    assert_eq!(c[0]["text"], "Prod migrations go through the release pipeline, running them by hand skips the lock.");
    assert_eq!(c[0]["source"], "prompt");
    assert!(c[0]["evidence"].to_string().contains("prisma migrate deploy"), "the moment it corrected: {}", c[0]);
    // A question and a request are read as no lesson, and `review judge` says so.
    for text in ["what does the release pipeline do with migrations?", "add a retry to the webhook sender"] {
        let j: Value = serde_json::from_str(&ok_in(&home, &project, &["review", "judge", "--json", "--prompt", "--", text])).unwrap();
        assert!(j["captured"].is_null(), "{text}: {j}");
        assert!(j["not_captured"].as_str().unwrap().starts_with("the prompt model reads no lesson in it (probability"), "{j}");
    }
}

#[test]
fn a_lasting_instruction_is_said_as_always_a_short_rule_on_code_is_kept_a_tag_is_no_question_and_a_halt_no_lesson() {
    let (home, project) = home_and_project();
    said(&home, &bash("s1", "t1", &project, "git commit -m 'stuff'", "Commit"));
    said(&home, &prompt("s1", &project, "From now on, use conventional commits."));
    said(&home, &prompt("s1", &project, "never hand-edit uv.lock"));
    let c = candidates(&home, &project, |c| c.len() == 2);
    let texts: Vec<&str> = c.iter().map(|c| c["text"].as_str().unwrap()).collect();
    assert!(texts.contains(&"Always use conventional commits.") && texts.contains(&"Never hand-edit uv.lock."), "{c:#?}");
    // Stopping the agent, or a thing, halts this moment: nothing to remember, and `review judge`
    // says so.
    for text in ["stop, don't run the migration", "STOP. do not deploy the api", "stop the dev server, i need port 4000"] {
        let j: Value = serde_json::from_str(&ok_in(&home, &project, &["review", "judge", "--json", "--prompt", "--", text])).unwrap();
        assert!(j["captured"].is_null(), "{text}: {j}");
    }
    // An instruction with a tag asking for agreement is no question.
    let j: Value = serde_json::from_str(&ok_in(&home, &project, &["review", "judge", "--json", "--prompt", "--", "never force-push to release/*, ok?"])).unwrap();
    assert_eq!(j["captured"], "Never force-push to release/*.", "{j}");
    said(&home, &prompt("s1", &project, "stop, don't run the migration"));
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(candidates(&home, &project, |c| c.len() == 2).len(), 2);
}

#[test]
fn a_terse_correction_and_a_rule_said_twice_are_one_candidate_each() {
    let (home, project) = home_and_project();
    said(&home, &bash("t1", "t1", &project, "pip install httpx", "Install httpx"));
    // A choice in a few words corrects the tool the agent chose.
    said(&home, &prompt("t1", &project, "uv, not pip"));
    said(&home, &bash("t2", "t2", &project, "npm install left-pad", "Install left-pad"));
    // The same rule said twice in one prompt is one candidate.
    said(&home, &prompt("t2", &project, "no, use pnpm here, not npm. always use pnpm in this repo"));
    candidates(&home, &project, |c| c.len() >= 2);
    // Time for a second candidate of the same prompt, were there one.
    std::thread::sleep(Duration::from_secs(2));
    let c = candidates(&home, &project, |c| !c.is_empty());
    let mut texts: Vec<&str> = c.iter().map(|c| c["text"].as_str().unwrap()).collect();
    texts.sort();
    assert_eq!(texts, ["Use pnpm here, not npm.", "Use uv, not pip."], "{c:#?}");
    // Two rules of one prompt are two candidates, the second no repeat of the first.
    said(&home, &bash("t3", "t3", &project, "git merge main", "Merge main into the branch"));
    said(&home, &prompt("t3", &project, "always rebase on main. never merge main into feature branches"));
    let c = candidates(&home, &project, |c| c.len() >= 4);
    let texts: Vec<&str> = c.iter().map(|c| c["text"].as_str().unwrap()).collect();
    assert!(texts.contains(&"Always rebase on main.") && texts.contains(&"Never merge main into feature branches."), "{c:#?}");
    // A complaint asked as a question, then what holds.
    let j: Value = serde_json::from_str(&ok_in(&home, &project, &["review", "judge", "--json", "--prompt", "--", "why do you keep using npm, this repo is pnpm"])).unwrap();
    assert_eq!(j["captured"], "This repo is pnpm.", "{j}");
    // What points at the moment is no choice to remember.
    let j: Value = serde_json::from_str(&ok_in(&home, &project, &["review", "judge", "--json", "--prompt", "--", "the second one, not the first"])).unwrap();
    assert!(j["captured"].is_null(), "{j}");
}

#[test]
fn a_recovery_is_captured_accepted_or_rejected_for_good() {
    let (home, project) = home_and_project();
    said(&home, &bash_failed("r1", "t1", &project, "npm test", "Exit code 1\nnpm ERR! This project is configured to use pnpm"));
    said(&home, &bash("r1", "t2", &project, "pnpm test", "Run the tests"));
    let c = candidates(&home, &project, |c| !c.is_empty());
    assert_eq!(c[0]["source"], "recovery");
    assert_eq!(c[0]["text"], "In this project, `npm test` fails (npm ERR! This project is configured to use pnpm); `pnpm test` works.");
    let recovery = c[0]["id"].as_str().unwrap().to_string();

    // Rejected: gone, and the same lesson is not captured again.
    said(&home, &bash("r1", "t3", &project, "git status", "Look"));
    said(&home, &prompt("r1", &project, "never run the e2e suite against the shared staging db"));
    let c = candidates(&home, &project, |c| c.len() == 2);
    let staging = c.iter().find(|c| c["source"] == "prompt").unwrap()["id"].as_str().unwrap().to_string();
    // `status` counts every project's candidates; `review` elsewhere says where they are.
    assert_eq!(home.status()["capture"]["candidates"], 2);
    let outside = ok_in(&home, home.path(), &["review"]);
    assert!(outside.contains("no candidates in this project; 2 more in other projects: `cairn review --all`"), "{outside}");
    // Edited: judged against the other lessons, not its own old words.
    let out = ok_in(&home, &project, &["review", "edit", &staging, "Never run the e2e suite against the shared staging database, since its data is real; use the compose database"]);
    assert!(out.contains("still a candidate") && !out.contains("duplicate"), "{out}");
    ok_in(&home, &project, &["review", "reject", &staging]);
    // Rejected twice (the command run again): the first rejection stands, and says so.
    let out = in_dir(&home, &project, &["review", "reject", &staging]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("was rejected already"), "{}", String::from_utf8_lossy(&out.stderr));
    said(&home, &prompt("r2", &project, "never run the e2e suite against the shared staging db"));
    std::thread::sleep(Duration::from_secs(2));
    let c = candidates(&home, &project, |c| c.len() == 1);
    assert_eq!(c[0]["id"], recovery.as_str());
    assert!(eventually(Duration::from_secs(10), || home.status()["capture"]["rejected"] == 1));

    // Accepted: it speaks at once, and says where it came from.
    let out = ok_in(&home, &project, &["review", "accept", &recovery]);
    assert!(out.contains("accepted"), "{out}");
    candidates(&home, &project, |c| c.is_empty());
    let advice: Value = serde_json::from_str(&ok_in(&home, &project, &["advise", "--json", "--explain", "run npm test"])).unwrap();
    let item = advice["advice"].as_array().unwrap().iter().find(|a| a["id"] == recovery.as_str()).cloned();
    let item = item.unwrap_or_else(|| panic!("the accepted lesson is said: {advice:#}"));
    assert!(item["why"].as_str().unwrap().contains("captured") && item["why"].as_str().unwrap().contains("accepted by you"), "{item}");
    // Both moments are its situations: the failed call where it applies, the call that worked
    // where it need not be said.
    let graph = ok_in(&home, &project, &["graph", "show", &recovery, "--json"]);
    let view: Value = serde_json::from_str(&graph).unwrap();
    let sides: Vec<(String, bool)> = view["into"].as_array().unwrap().iter().filter(|p| p[0]["kind"] == "applies").map(|p| (p[1]["text"].as_str().unwrap_or("").to_string(), p[0]["strength"].as_f64().unwrap() > 0.5)).collect();
    assert!(sides.iter().any(|(t, a)| t.contains("npm test") && !t.contains("pnpm") && *a) && sides.iter().any(|(t, a)| t.contains("pnpm test") && !*a), "{graph}");
    let fixed = said(&home, &bash("r3", "t1", &project, "pnpm test", "Run the tests"));
    assert!(!fixed.contains("fails (npm ERR!"), "said where the call already does it: {fixed}");
    // Review verbs refuse what is not a candidate.
    let out = in_dir(&home, &project, &["review", "reject", &recovery]);
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("promoted already"));
    let out = in_dir(&home, &project, &["review", "accept", "no-such-id"]);
    assert!(!out.status.success());

    // The rejection travels in an export: a home restored from it never offers the text again,
    // and exports it the same.
    let exported = home.ok(&["export"]);
    let state: Value = serde_json::from_str(exported.lines().last().unwrap()).unwrap();
    // Its edited words and the words it was captured in: two texts, one rejection.
    let edited = "Never run the e2e suite against the shared staging database, since its data is real; use the compose database";
    let first = "Never run the e2e suite against the shared staging db.";
    let p = project.display().to_string();
    assert_eq!(state["state"]["rejected"], json!([{"project": p, "text": edited, "candidate": staging}, {"project": p, "text": first, "candidate": staging}]), "{state}");
    let file = home.path().join("export.jsonl");
    std::fs::write(&file, &exported).unwrap();
    let fresh = Home::new();
    fresh.up();
    fresh.ok(&["search", "warm up"]);
    assert!(eventually(Duration::from_secs(60), || fresh.status()["model"] == "loaded"));
    // A candidate of the same words waiting there goes with the restored rejection.
    said(&fresh, &prompt("r8", &project, "never run the e2e suite against the shared staging db"));
    candidates(&fresh, &project, |c| c.len() == 1);
    fresh.ok(&["import", file.to_str().unwrap()]);
    assert_eq!(fresh.ok(&["export"]), exported, "export -> import -> export changes nothing");
    candidates(&fresh, &project, |c| c.is_empty());
    said(&fresh, &prompt("r9", &project, "never run the e2e suite against the shared staging db"));
    said(&fresh, &prompt("r9", &project, "never deploy on fridays"));
    let c = candidates(&fresh, &project, |c| !c.is_empty());
    assert!(c.iter().all(|c| !c["text"].as_str().unwrap().contains("staging")), "a rejected text offered again after a restore: {c:?}");
}

#[test]
fn fusion_weights_are_learned_from_feedback_shown_and_reset() {
    let (home, project) = home_and_project();
    let weights = |args: &[&str]| -> Value {
        let mut all = vec!["weights"];
        all.extend_from_slice(args);
        all.push("--json");
        serde_json::from_str(&ok_in(&home, &project, &all)).unwrap()
    };
    let w = weights(&[]);
    assert_eq!((w["learned"].as_bool(), w["samples"].as_u64()), (Some(false), Some(0)), "{w}");
    assert!(w["weights"].as_array().unwrap().iter().all(|l| l["current"] == l["default"]));
    let lesson = ok_in(&home, &project, &["add", "Use pnpm in this repository, never npm: the lockfile is pnpm-lock.yaml.", "--category", "dependencies"]).trim().to_string();
    // Right at installs, not at looks around: samples on both sides, misses included.
    for i in 0..12 {
        let (s, t) = (format!("w{i}"), format!("t{i}"));
        said(&home, &bash(&s, &t, &project, &format!("npm install package-{i}"), "Install a package"));
        ok_in(&home, &project, &["feedback", "used", &lesson, "--session", &s, "--tool-use-id", &t]);
        let (s, t) = (format!("x{i}"), format!("u{i}"));
        said(&home, &bash(&s, &t, &project, &format!("git log -n {i}"), "Show history"));
        ok_in(&home, &project, &["feedback", "not-relevant", &lesson, "--session", &s, "--tool-use-id", &t]);
    }
    let w = weights(&[]);
    assert_eq!(w["samples"].as_u64(), Some(24), "{w}");
    let w = weights(&["learn"]);
    assert_eq!(w["learned"], true, "{w}");
    let lines = w["weights"].as_array().unwrap();
    let sum: f64 = lines.iter().map(|l| l["current"].as_f64().unwrap()).sum();
    assert!((sum - 1.0).abs() < 1e-9, "{w}");
    for l in lines {
        let (c, d) = (l["current"].as_f64().unwrap(), l["default"].as_f64().unwrap());
        assert!((0.1..=0.6).contains(&c) && (c - d).abs() <= 0.05 + 1e-9, "one run moves each weight a bounded step: {l}");
    }
    assert_eq!(w["history"].as_array().unwrap().len(), 1);
    assert!(w["last_run"].is_string());
    // The text view, and a reset that keeps the history.
    let text = ok_in(&home, &project, &["weights"]);
    assert!(text.contains("learned") && text.contains("relevance") && text.contains("24 samples"), "{text}");
    let w = weights(&["reset"]);
    assert_eq!(w["learned"], false);
    assert_eq!(w["history"].as_array().unwrap().len(), 1);
    assert!(w["weights"].as_array().unwrap().iter().all(|l| l["current"] == l["default"]));
}

#[test]
fn the_same_failure_in_two_sessions_without_a_fix_becomes_a_candidate() {
    model_dir();
    let home = Home::new();
    // A short recovery window, so that a failure is known unrecovered within the test.
    home.write_tuneables(r#"{"capture": {"window_minutes": 0.005}}"#);
    home.up();
    let project = home.path().join("shop");
    std::fs::create_dir_all(&project).unwrap();
    let project = std::fs::canonicalize(&project).unwrap();
    for (session, when) in [("f1", "12:31"), ("f2", "09:02")] {
        said(&home, &bash_failed(session, "t1", &project, "make deploy", &format!("Exit code 2\nerror: token expired at {when} for /home/dev/.deploy/creds")));
        std::thread::sleep(Duration::from_millis(600));
        // The next event of the session has the worker read it again, past the window.
        said(&home, &prompt(session, &project, "ok, what else is left?"));
        std::thread::sleep(Duration::from_millis(600));
        said(&home, &prompt(session, &project, "thanks"));
    }
    let c = candidates(&home, &project, |c| !c.is_empty());
    assert_eq!(c.len(), 1, "{c:#?}");
    assert_eq!(c[0]["source"], "failure");
    // Its evidence: the failure in each session, not the last one alone.
    let evidence: Vec<&str> = c[0]["evidence"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert!(evidence.len() == 2 && evidence.iter().all(|e| e.contains("make deploy")), "{evidence:#?}");
    let text = c[0]["text"].as_str().unwrap();
    assert!(text.contains("`make deploy` keeps failing") && text.contains("token expired") && text.contains("more than one session"), "{text}");
    // Once made, a third session's same failure makes no second candidate.
    said(&home, &bash_failed("f3", "t1", &project, "make deploy", "Exit code 2\nerror: token expired at 10:10 for /home/dev/.deploy/creds"));
    std::thread::sleep(Duration::from_millis(600));
    said(&home, &prompt("f3", &project, "thanks"));
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(candidates(&home, &project, |_| true).len(), 1);
    // Then a session fixes it: the fix is a lesson of its own, and "never fixed" goes.
    said(&home, &bash_failed("f4", "t1", &project, "make deploy", "Exit code 2\nerror: token expired at 11:20 for /home/dev/.deploy/creds"));
    said(&home, &bash("f4", "t2", &project, "make deploy LOGIN_FIRST=1", "Deploy with a fresh token"));
    let c = candidates(&home, &project, |c| c.iter().any(|c| c["source"] == "recovery") && !c.iter().any(|c| c["source"] == "failure"));
    assert_eq!(c.len(), 1, "{c:#?}");
    assert!(c[0]["text"].as_str().unwrap().contains("`make deploy LOGIN_FIRST=1` works"), "{c:#?}");
}

/// The candidates of `dir`'s project once there are some and a second more brings no other.
fn settled_candidates(home: &Home, dir: &Path) -> Vec<Value> {
    let first = candidates(home, dir, |c| !c.is_empty());
    std::thread::sleep(Duration::from_secs(1));
    candidates(home, dir, |now| now.len() == first.len())
}

/// A Bash call about to run, as Claude Code sends it.
fn bash_before(session: &str, id: &str, cwd: &Path, command: &str) -> Vec<u8> {
    json!({"session_id": session, "cwd": cwd, "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": id, "tool_input": {"command": command, "description": "Run"}})
        .to_string()
        .into_bytes()
}

#[test]
fn forced_fixes_moves_between_projects_and_a_rejection_reworded_are_not_captured() {
    let (home, alpha) = home_and_project();
    let beta = home.path().join("beta");
    std::fs::create_dir_all(&beta).unwrap();
    let beta = std::fs::canonicalize(&beta).unwrap();
    // A fix that forces past a safeguard is no lesson, however often it works.
    for s in ["g1", "g2", "g3"] {
        said(&home, &bash_failed(s, "t1", &alpha, "git push origin main", " ! [rejected]        main -> main (non-fast-forward)"));
        said(&home, &bash(s, "t2", &alpha, "git push --force origin main", "Push"));
        said(&home, &bash_failed(s, "t3", &alpha, "rm build", "rm: cannot remove 'build': Is a directory"));
        said(&home, &bash(s, "t4", &alpha, "rm -rf build", "Remove the build folder"));
    }
    // A session that moved to another project: beta's call fixed nothing of alpha's.
    said(&home, &bash_failed("m1", "t1", &alpha, "yarn lint", "error Command \"lint\" not found."));
    said(&home, &bash("m1", "t2", &beta, "pnpm lint", "Lint"));
    // A real recovery, for the rest: a variable the release needs.
    said(&home, &bash_failed("v1", "t1", &alpha, "make release", "Exit code 2\nerror: VERSION is required"));
    said(&home, &bash("v1", "t2", &alpha, "VERSION=1.2.3 make release", "Release"));
    let c = settled_candidates(&home, &alpha);
    assert_eq!(c.len(), 1, "only the release's recovery: {c:#?}");
    let release = c[0]["id"].as_str().unwrap().to_string();
    assert!(c[0]["text"].as_str().unwrap().contains("`VERSION=1.2.3 make release` works"), "{c:#?}");
    // `why` names the moment it came from; asked about that moment, it says what it was.
    let shown: Value = serde_json::from_str(&ok_in(&home, &alpha, &["show", &release, "--json"])).unwrap();
    let moment = shown["why"]["caused_by"][0].as_str().unwrap().to_string();
    assert!(ok_in(&home, &alpha, &["why", &release]).contains(&moment));
    let out = in_dir(&home, &alpha, &["why", &moment]);
    let told = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && told.contains("is a moment a lesson was linked to") && told.contains("make release") && told.contains(&release), "{told}");
    let judged = ok_in(&home, &alpha, &["review", "judge", "--source", "recovery", "--", "In this project, `git push origin main` fails (rejected); `git push --force origin main` works."]);
    assert!(judged.contains("forces past a safeguard (`--force`)"), "{judged}");

    // One tool call is one shadow moment, before and after it ran.
    said(&home, &bash_before("v2", "t1", &alpha, "make release"));
    said(&home, &bash("v2", "t1", &alpha, "make release", "Release"));
    let c = candidates(&home, &alpha, |c| c.iter().any(|c| c["shadow"]["would_have_spoken"].as_u64().unwrap_or(0) > 0));
    assert_eq!(c[0]["shadow"]["would_have_spoken"], 1, "{c:#?}");
    // Accepted, it is said where the variable is missing, not where the call already sets it.
    ok_in(&home, &alpha, &["review", "accept", &release]);
    assert!(said(&home, &bash_before("v3", "t1", &alpha, "make release")).contains("VERSION is required"));
    let fixed = said(&home, &bash_before("v4", "t1", &alpha, "VERSION=2.0.0 make release"));
    assert!(!fixed.contains("VERSION is required"), "said on a call that already sets it: {fixed}");

    // A rule the user rejected, said again in other words, is not captured again; the counts
    // `log` shows are the project's own.
    said(&home, &prompt("p1", &beta, "always run the linter before committing"));
    let c = candidates(&home, &beta, |c| !c.is_empty());
    let lint = c[0]["id"].as_str().unwrap().to_string();
    // Edited into a fragment: refused, the candidate as it was.
    let out = in_dir(&home, &beta, &["review", "edit", &lint, "Run it."]);
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("primitive"), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(candidates(&home, &beta, |c| !c.is_empty())[0]["text"], "Always run the linter before committing.");
    ok_in(&home, &beta, &["review", "reject", &lint]);
    said(&home, &prompt("p2", &beta, "from now on, always run the linter before you commit"));
    said(&home, &prompt("p2", &beta, "never commit .env files"));
    let c = candidates(&home, &beta, |c| !c.is_empty());
    assert!(c.len() == 1 && c[0]["text"].as_str().unwrap().contains(".env"), "{c:#?}");
    let log: Value = serde_json::from_str(&ok_in(&home, &beta, &["log", "--json"])).unwrap();
    assert_eq!((log["capture"]["candidates"].as_u64(), log["capture"]["promoted"].as_u64(), log["capture"]["rejected"].as_u64()), (Some(1), Some(0), Some(1)), "{}", log["capture"]);
    let log: Value = serde_json::from_str(&ok_in(&home, &alpha, &["log", "--json"])).unwrap();
    assert_eq!((log["capture"]["candidates"].as_u64(), log["capture"]["promoted"].as_u64(), log["capture"]["rejected"].as_u64()), (Some(0), Some(1), Some(0)), "{}", log["capture"]);

    // A step before the call is a fix however long it is, and the lesson names the calls as they
    // ran; a git commit retried once something was staged is not one.
    let gamma = home.path().join("gamma");
    std::fs::create_dir_all(&gamma).unwrap();
    let gamma = std::fs::canonicalize(&gamma).unwrap();
    said(&home, &bash_failed("s1", "t1", &gamma, "git commit -m 'fix parser'", "On branch main\nChanges not staged for commit:\n\tmodified:   src/parser.rs\n\nno changes added to commit (use \"git add\" and/or \"git commit -a\")"));
    said(&home, &bash("s1", "t2", &gamma, "git add -A && git commit -m 'fix parser'", "Commit"));
    said(&home, &bash_failed("s1", "t3", &gamma, "stack build", "Exit code 1\nMissing dependency on a foreign library:\n* Missing (or bad) C library: pq"));
    said(&home, &bash("s1", "t4", &gamma, "sudo apt-get install -y libpq-dev && stack build", "Install libpq and build"));
    let c = settled_candidates(&home, &gamma);
    assert!(c.len() == 1 && c[0]["text"].as_str().unwrap().contains("`sudo apt-get install -y libpq-dev && stack build` works"), "{c:#?}");
}

/// An edit's result, as Claude Code sends it.
fn edit(session: &str, id: &str, cwd: &Path, file: &str, new: &str) -> Vec<u8> {
    json!({
        "session_id": session, "cwd": cwd, "hook_event_name": "PostToolUse", "tool_name": "Edit", "tool_use_id": id,
        "tool_input": {"file_path": file, "old_string": "", "new_string": new}, "tool_response": {"filePath": file}
    })
    .to_string()
    .into_bytes()
}

#[test]
fn used_reaches_the_same_mistake_elsewhere_by_its_anchors_and_not_the_remedy() {
    let (home, project) = home_and_project();
    let lesson = ok_in(&home, &project, &["add", "Read configuration through the typed config object from src/config.ts; never read process.env anywhere else in src/", "--category", "code"]).trim().to_string();
    // Taught on a service reading process.env (under a secret's name: the reference is kept).
    said(&home, &edit("s1", "toolu_1", &project, "src/services/payments.ts", "const client = new PaymentsClient({ apiKey: process.env.PAYMENTS_API_KEY! })"));
    ok_in(&home, &project, &["feedback", "used", &lesson, "--session", "s1", "--tool-use-id", "toolu_1"]);
    let explained = |file: &str, new: &str| -> Option<Value> {
        let moment = home.path().join("moment.json");
        std::fs::write(&moment, edit("s2", "toolu_2", &project, file, new)).unwrap();
        let out = ok_in(&home, &project, &["advise", "--explain", "--json", "--hook-input", moment.to_str().unwrap()]);
        let v: Value = serde_json::from_str(&out).unwrap();
        v["advice"].as_array().into_iter().chain(v["considered"].as_array()).flatten().find(|i| i["id"] == lesson.as_str()).cloned()
    };
    // The same mistake in a job: other words, far in meaning, every anchor (process, env).
    let job = explained("src/jobs/abandonedCarts.ts", "const delayMinutes = Number(process.env.CART_REMINDER_DELAY_MINUTES ?? 60)").expect("the lesson is weighed");
    let why = job["why"].as_str().unwrap();
    assert!(why.contains("the same kind of action with its words the lesson names"), "{job}");
    assert!(why.contains("where it was learned to apply"), "the closeness it lends is named as learned: {job}");
    // What the lesson asks, in src/config.ts: every anchor too, but words of the lesson the
    // taught moment lacks (config, typed): not the taught case.
    let remedy = explained("src/config.ts", "export const config = TypedConfig.parse(process.env)");
    assert!(remedy.as_ref().is_none_or(|i| !i["why"].as_str().unwrap().contains("learned: applied")), "{remedy:?}");
}
