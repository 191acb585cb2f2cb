//! The advisor from the first session on: the seed pack, interrupts (opt-in), the session-start
//! brief by source, muting, and the advice log.

use std::time::Duration;

use cairn_tests::*;
use serde_json::{json, Value};

fn pre(home: &Home, session: &str, tool: &str, input: Value, tool_use_id: Option<&str>) -> Option<Value> {
    let mut payload = json!({"session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": home.path(), "permission_mode": "default",
        "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input});
    if let Some(id) = tool_use_id {
        payload["tool_use_id"] = json!(id);
    }
    assert_hook_contract(&home.hook(payload.to_string().as_bytes()))
}

fn bash(home: &Home, session: &str, command: &str) -> Option<Value> {
    pre(home, session, "Bash", json!({"command": command, "description": "Run it"}), None)
}

fn session_start(home: &Home, session: &str, source: &str) -> String {
    let payload = json!({"session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": home.path(), "hook_event_name": "SessionStart", "source": source});
    additional_context(&assert_hook_contract(&home.hook(payload.to_string().as_bytes())))
}

#[test]
fn a_fresh_home_advises_from_the_seed_pack() {
    model_dir();
    let home = Home::with_seed_pack();
    home.up();
    let list: Value = serde_json::from_str(&home.ok(&["seed", "--list", "--json"])).unwrap();
    assert_eq!(home.ok(&["seed", "list", "--json"]), home.ok(&["seed", "--list", "--json"]), "`seed list` is `seed --list`");
    let seeds = list["seeds"].as_array().unwrap();
    assert!((25..=40).contains(&seeds.len()), "{} seeds", seeds.len());
    assert!(seeds.iter().all(|s| s["state"] == "on"), "{list}");
    assert_eq!(list["pack_enabled"], true);

    let said = additional_context(&bash(&home, "s1", "git push --force origin main"));
    assert!(said.contains("Never force-push a shared branch"), "the seed pack speaks from the first session: {said}");
    assert!(said.contains("seed-git-force-push") || said.contains("force_push"), "and says which rule: {said}");
    let v: Value = serde_json::from_str(&home.ok(&["advise", "--json", "git", "push", "--force", "origin", "main"])).unwrap();
    let item = v["advice"].as_array().unwrap().iter().find(|i| i["id"] == "seed-git-force-push").expect("the seed").clone();
    assert!(item["why"].as_str().unwrap().contains("seed lesson, weight 1.00"), "{item}");
    assert_eq!(item["signals"]["seed_weight"], 1.0);

    // The pack off: silence; on again: back.
    home.ok(&["seed", "--disable"]);
    assert!(bash(&home, "s2", "git push --force origin main").is_none(), "a disabled pack says nothing");
    home.ok(&["seed", "--enable"]);
    assert!(additional_context(&bash(&home, "s3", "git push --force origin main")).contains("Never force-push"));

    // One seed off: the others still speak.
    home.ok(&["seed", "--disable", "seed-git-force-push"]);
    assert!(!additional_context(&bash(&home, "s4", "git push --force origin main")).contains("Never force-push a shared branch"));
    assert!(additional_context(&bash(&home, "s4", "rm -rf \"$OUT\"/*")).contains("print the expanded path"));
    assert_eq!(home.run(&["seed", "--disable", "not-a-seed"]).status.code(), Some(1));

    // A lesson is not written on top of the pack, which was loaded, not written.
    let first = home.ok(&["add", "Pin the Node version in .nvmrc so CI and laptops agree", "--global"]).trim().to_string();
    let shown: Value = serde_json::from_str(&home.ok(&["show", "--json", &first])).unwrap();
    assert!(shown["why"]["dependencies"].as_array().is_none_or(|d| d.is_empty()), "{shown}");
    home.ok(&["forget", &first]);

    // Weight falls as the user's own lessons accumulate.
    for i in 0..5 {
        home.ok(&["add", &format!("Lesson of my own number {i} about the build"), "--global"]);
    }
    let v: Value = serde_json::from_str(&home.ok(&["advise", "--json", "rm", "-rf", "\"$OUT\"/*"])).unwrap();
    let seed = v["advice"].as_array().unwrap().iter().find(|i| i["id"] == "seed-rm-rf-variable").expect("seed").clone();
    let w = seed["signals"]["seed_weight"].as_f64().unwrap();
    assert!(w < 1.0 && w > 0.9, "{w}");
    assert!(seed["why"].as_str().unwrap().contains("5 lessons of your own"), "{seed}");

    // Lessons of another project do not count, and a rule matching the action keeps its strength
    // however many lessons the user has.
    let other = home.path().join("other.jsonl");
    let lines: Vec<String> = (0..150).map(|i| json!({"text": format!("Other project lesson {i} about its own build"), "project": "/elsewhere"}).to_string()).collect();
    std::fs::write(&other, lines.join("\n")).unwrap();
    home.ok(&["import", other.to_str().unwrap()]);
    let v: Value = serde_json::from_str(&home.ok(&["advise", "--json", "rm", "-rf", "\"$OUT\"/*"])).unwrap();
    let seed = v["advice"].as_array().unwrap().iter().find(|i| i["id"] == "seed-rm-rf-variable").expect("still said").clone();
    assert!(seed["why"].as_str().unwrap().contains("5 lessons of your own"), "{seed}");
    let many = home.path().join("many.jsonl");
    let lines: Vec<String> = (0..200).map(|i| json!({"text": format!("Global lesson {i} about release notes")}).to_string()).collect();
    std::fs::write(&many, lines.join("\n")).unwrap();
    home.ok(&["import", many.to_str().unwrap()]);
    let said = additional_context(&bash(&home, "s-many", "rm -rf \"$OUT\"/*"));
    assert!(said.contains("print the expanded path"), "a matching critical rule is not outweighed: {said}");

    // A seed the user edits becomes theirs: it stays when the pack is off.
    home.ok(&["seed", "--enable", "seed-git-force-push"]);
    home.ok(&["edit", "seed-git-force-push", "--text", "Never force-push main or release branches here: the deploy bot tags from them"]);
    home.ok(&["seed", "--disable"]);
    let list: Value = serde_json::from_str(&home.ok(&["seed", "--list", "--json"])).unwrap();
    let edited = list["seeds"].as_array().unwrap().iter().find(|s| s["id"] == "seed-git-force-push").unwrap().clone();
    assert_eq!(edited["state"], "yours");
    assert!(additional_context(&bash(&home, "s5", "git push --force origin main")).contains("deploy bot tags"), "an edited seed is the user's own");

    // Forgotten seeds are not loaded again by a restart.
    home.ok(&["forget", "seed-drop-table"]);
    home.down();
    home.up();
    assert!(home.run(&["show", "seed-drop-table"]).status.code() == Some(1));
    home.down();
}

#[test]
fn a_fresh_home_keeps_its_production_lessons_for_production() {
    model_dir();
    let home = Home::with_seed_pack();
    home.up();
    let said = |session: &str, command: &str| additional_context(&bash(&home, session, command));
    // The pack's critical rule on `DROP TABLE` speaks for a shared database, not a local one.
    assert!(said("p1", "mysql -h db.example.test -u root shop -e 'DROP TABLE orders_archive'").contains("Do not DROP or TRUNCATE"));
    let local = said("p2", "mysql -h 127.0.0.1 -u root app_dev -e 'DROP TABLE scratch_import'");
    assert!(!local.contains("Do not DROP or TRUNCATE"), "{local}");
    // The migration lesson is about production: not for a migration against localhost, and
    // `advise --explain` says why.
    let command = "DATABASE_URL=postgresql://app@localhost:5432/app alembic upgrade head";
    assert!(!said("p3", command).contains("backup before running schema migrations"));
    let explained = home.ok(&["advise", "--explain", command]);
    assert!(explained.contains("aims at a local or test target ('localhost')"), "{explained}");
    assert!(said("p4", "DATABASE_URL=postgresql://app@db.prod.example.test:5432/app alembic upgrade head").contains("backup before running schema migrations"));
    home.down();
}

#[test]
fn an_edit_that_takes_a_problem_out_is_not_told_about_it() {
    model_dir();
    let home = Home::with_seed_pack();
    home.up();
    let edit = |session: &str, old: &str, new: &str| {
        additional_context(&pre(&home, session, "Edit", json!({"file_path": "app/repo.py", "old_string": old, "new_string": new}), None))
    };
    let built = "cur.execute(f\"SELECT id FROM users WHERE email = '{email}'\")";
    let bound = "cur.execute(\"SELECT id FROM users WHERE email = %s\", (email,))";
    // Pasting the input into the query: said. Binding it instead of pasting it: not.
    assert!(edit("e1", bound, built).contains("bound parameters"), "the premise");
    let fixed = edit("e2", built, bound);
    assert!(!fixed.contains("bound parameters"), "said on the edit that fixes it: {fixed}");
    // A multi-edit is read the same way, edit by edit.
    let multi = pre(&home, "e3", "MultiEdit", json!({"file_path": "app/repo.py", "edits": [{"old_string": built, "new_string": bound}]}), None);
    assert!(!additional_context(&multi).contains("bound parameters"));
    home.down();
}

#[test]
fn the_pack_catches_its_cases_in_their_real_forms() {
    model_dir();
    let home = Home::with_seed_pack();
    home.up();
    let said = |session: &str, command: &str| additional_context(&bash(&home, session, command));
    // The sudo lesson's parenthesis names what it warns about, not its remedy; and the pack's
    // near miss without `sudo` differs in just what the rule catches.
    assert!(said("r1", "sudo pip install -r requirements.txt").contains("Do not install packages with sudo"));
    assert!(!said("r2", "pip install -r requirements.txt").contains("Do not install packages with sudo"));
    // An UPDATE with no WHERE, and one with it.
    assert!(said("r3", "mysql billing -e \"UPDATE subscriptions SET plan = 'pro';\"").contains("without a WHERE clause"));
    assert!(!said("r4", "mysql billing -e \"UPDATE subscriptions SET plan = 'pro' WHERE tenant_id = 7;\"").contains("without a WHERE clause"));
    // A query built by Sprintf, and a dependency at "latest".
    let edit = |session: &str, file: &str, new: &str| additional_context(&pre(&home, session, "Edit", json!({"file_path": file, "old_string": "x", "new_string": new}), None));
    assert!(edit("r5", "internal/store/plates.go", "q := fmt.Sprintf(\"SELECT id FROM vehicles WHERE plate = '%s'\", plate)").contains("bound parameters"));
    assert!(edit("r6", "package.json", "\"zod\": \"latest\",").contains("Pin dependency versions"));
    // A clean forced by a later switch is caught; a dry run, whatever the order of its
    // switches, gets nothing: neither the discard lesson nor the one that cleans history.
    assert!(said("r7", "git clean -d -f").contains("git cannot bring them back"));
    let dry = said("r8", "git clean -n -d");
    assert!(dry.is_empty(), "a dry run: {dry}");
    home.down();
}

#[test]
fn export_and_import_keep_the_seed_pack_and_mutes() {
    let home = Home::with_seed_pack();
    home.up();
    home.ok(&["forget", "seed-docker-prune"]);
    home.ok(&["seed", "--disable", "seed-chmod-777"]);
    let own = home.ok(&["add", "Our staging database is reset every night", "--global"]);
    home.ok(&["mute", own.trim()]);
    home.ok(&["mute", "seed-tests-flaky-time"]);
    let first = home.path().join("first.jsonl");
    home.ok(&["export", first.to_str().unwrap()]);
    home.down();

    // A new home loads the whole pack on its first start; the import makes it the same home.
    let other = Home::with_seed_pack();
    other.up();
    assert!(other.ok(&["show", "seed-docker-prune"]).contains("seed-docker-prune"));
    other.ok(&["import", first.to_str().unwrap()]);
    let second = other.path().join("second.jsonl");
    other.ok(&["export", second.to_str().unwrap()]);
    assert_eq!(std::fs::read_to_string(&first).unwrap(), std::fs::read_to_string(&second).unwrap(), "the round trip is exact");
    let list: Value = serde_json::from_str(&other.ok(&["seed", "--list", "--json"])).unwrap();
    let state = |id: &str| list["seeds"].as_array().unwrap().iter().find(|s| s["id"] == id).unwrap()["state"].as_str().unwrap().to_string();
    assert_eq!((state("seed-docker-prune"), state("seed-chmod-777"), state("seed-tests-flaky-time")), ("forgotten".into(), "off".into(), "off".into()));
    other.down();
}

#[test]
fn a_home_without_the_pack_can_load_it_later() {
    let home = Home::new();
    home.up();
    let list: Value = serde_json::from_str(&home.ok(&["seed", "--list", "--json"])).unwrap();
    assert_eq!(list["pack_enabled"], false);
    assert!(list["seeds"].as_array().unwrap().iter().all(|s| s["state"] == "not loaded"));
    assert!(home.memories().is_empty());
    home.ok(&["seed", "--enable"]);
    let n = home.memories().len();
    assert!((25..=40).contains(&n), "{n}");
    assert!(home.memories().iter().all(|m| m["source"] == "seed"));
    home.down();
}

#[test]
fn interrupts_are_opt_in_and_never_on_a_look_around() {
    model_dir();
    let home = Home::with_seed_pack();
    home.up();
    let push = || bash(&home, &format!("i{}", std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos()), "git push --force origin main").unwrap();
    assert!(push()["hookSpecificOutput"].get("permissionDecision").is_none(), "off by default");

    home.write_tuneables(r#"{"triggers": {"interrupts": "ask"}}"#);
    assert!(eventually(Duration::from_secs(10), || push()["hookSpecificOutput"]["permissionDecision"] == "ask"), "ask when turned on");
    let v = push();
    let reason = v["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap();
    assert!(reason.contains("seed-git-force-push") && reason.contains("Never force-push"), "names the rule and the lesson: {reason}");

    // Never on a read-only action, even one whose input matches.
    let grep = pre(&home, "r1", "Grep", json!({"pattern": "git push --force origin main", "path": "/repo"}), None);
    assert!(grep.as_ref().is_none_or(|v| v["hookSpecificOutput"].get("permissionDecision").is_none()), "{grep:?}");
    let read = pre(&home, "r2", "Read", json!({"file_path": "/repo/docs/rm -rf $HOME/notes.md"}), None);
    assert!(read.as_ref().is_none_or(|v| v["hookSpecificOutput"].get("permissionDecision").is_none()), "{read:?}");

    // Nor on an edit that merely mentions a dangerous command.
    let edit = pre(&home, "r3", "Write", json!({"file_path": "/repo/docs/howto.md", "content": "To start over: git reset --hard origin/main"}), None);
    assert!(edit.as_ref().is_none_or(|v| v["hookSpecificOutput"].get("permissionDecision").is_none()), "{edit:?}");

    home.write_tuneables(r#"{"triggers": {"interrupts": "deny"}}"#);
    assert!(eventually(Duration::from_secs(10), || push()["hookSpecificOutput"]["permissionDecision"] == "deny"));

    // A rule of the user's own that asks; non-critical rules never interrupt.
    let lesson = home.ok(&["add", "Releases are cut by CI only; never run the release script by hand", "--global", "--category", "release"]);
    std::fs::write(
        home.path().join("config/trigger_rules.yaml"),
        format!("rules:\n  - name: manual_release\n    pattern: 'scripts/release\\.sh'\n    surface: [{}]\n    priority: critical\n    interrupt: true\n", lesson.trim()),
    )
    .unwrap();
    let release = || bash(&home, &format!("u{}", std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos()), "./scripts/release.sh 1.2.0");
    assert!(eventually(Duration::from_secs(10), || release().is_some_and(|v| v["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap_or("").contains("manual_release"))));
    home.down();
}

#[test]
fn session_start_depends_on_its_source() {
    model_dir();
    let home = Home::new();
    // What a session was told is the subject here: a lower decision bar than the default lets a
    // test run (a routine action) be told the project's test lesson.
    home.write_tuneables(r#"{"ranking": {"min_fusion_score": 0.6}}"#);
    home.up();
    let project = home.path().to_str().unwrap().to_string();
    let a = home.ok(&["add", "In this project the integration tests need the local Postgres from `make db`", "--project", &project, "--category", "testing"]);
    home.ok(&["add", "Use the team's Prettier config; do not hand-format", "--project", &project, "--category", "style"]);
    home.ok(&["add", "A global lesson that the brief leaves out", "--global"]);

    // startup and clear: the project's most useful lessons, short.
    for source in ["startup", "clear"] {
        let brief = session_start(&home, &format!("{source}-1"), source);
        assert!(brief.contains("integration tests need the local Postgres") && brief.contains("Prettier"), "{source}: {brief}");
        assert!(!brief.contains("global lesson"), "{source}: the brief is the project's own");
        assert!(brief.chars().count() < 2000);
    }

    // compact: what this session was told that still matters.
    let told = pre(&home, "c1", "Bash", json!({"command": "cargo test --test integration", "description": "Run the integration tests against Postgres"}), None);
    let told = additional_context(&told);
    assert!(told.contains("integration tests need the local Postgres"), "{told}");
    let after_compact = session_start(&home, "c1", "compact");
    assert!(after_compact.contains("integration tests need the local Postgres"), "{after_compact}");
    assert!(!after_compact.contains("Prettier"), "only what this session was told: {after_compact}");
    assert!(session_start(&home, "never-told", "compact").is_empty());

    // resume: nothing new, unless the project changed meanwhile.
    assert!(session_start(&home, "c1", "resume").is_empty(), "nothing changed");
    std::thread::sleep(Duration::from_millis(1100));
    home.ok(&["edit", a.trim(), "--text", "The integration tests now need `make db-up` (it replaced `make db`)"]);
    let resumed = session_start(&home, "c1", "resume");
    assert!(resumed.contains("make db-up"), "{resumed}");
    assert!(!resumed.contains("Prettier"), "only what changed: {resumed}");
    home.down();
}

#[test]
fn a_muted_memory_is_never_emitted() {
    model_dir();
    let home = Home::new();
    home.up();
    let id = home.ok(&["add", "Print the expanded path before a recursive delete built from a variable", "--global", "--category", "destructive"]);
    let id = id.trim();
    assert!(additional_context(&bash(&home, "m1", "rm -rf \"$OUT\"/*")).contains("expanded path"));
    assert!(home.ok(&["mute", id]).contains("muted"));
    assert!(bash(&home, "m2", "rm -rf \"$OUT\"/*").is_none(), "muted: not by the trigger");
    let v: Value = serde_json::from_str(&home.ok(&["advise", "--json", "print", "the", "expanded", "path", "before", "a", "recursive", "delete"])).unwrap();
    assert!(v["advice"].as_array().unwrap().is_empty(), "muted: not by retrieval: {v}");
    // A rule naming it by id does not bring it back either.
    std::fs::write(home.path().join("config/trigger_rules.yaml"), format!("rules:\n  - name: cleanup\n    pattern: 'rm -rf'\n    surface: [{id}]\n    priority: high\n")).unwrap();
    std::thread::sleep(Duration::from_millis(800));
    assert!(bash(&home, "m3", "rm -rf \"$OUT\"/*").is_none());
    // Still there, searchable; and back when unmuted.
    assert!(home.ok(&["search", "recursive", "delete"]).contains(id));
    home.ok(&["unmute", id]);
    assert!(additional_context(&bash(&home, "m4", "rm -rf \"$OUT\"/*")).contains("expanded path"));
    assert_eq!(home.run(&["mute", "no-such-id"]).status.code(), Some(1));
    home.down();
}

#[test]
fn the_log_shows_every_emitted_item_with_its_event() {
    model_dir();
    let home = Home::new();
    home.up();
    let id = home.ok(&["add", "Print the expanded path before a recursive delete built from a variable", "--global", "--category", "destructive"]);
    let id = id.trim().to_string();
    home.ok(&["add", "Never force-push main; open a pull request instead", "--global", "--category", "git"]);

    assert!(pre(&home, "L1", "Bash", json!({"command": "rm -rf \"$OUT\"/*", "description": "Clean"}), Some("toolu_1")).is_some());
    let post = json!({"session_id": "L1", "cwd": home.path(), "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": "toolu_1",
        "tool_input": {"command": "rm -rf \"$OUT\"/*"}, "tool_response": {"stdout": "", "stderr": "", "interrupted": false}});
    assert_hook_contract(&home.hook(post.to_string().as_bytes()));
    assert!(pre(&home, "L1", "Bash", json!({"command": "git push --force origin main", "description": "Push"}), Some("toolu_2")).is_some());
    let failed = json!({"session_id": "L1", "cwd": home.path(), "hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "tool_use_id": "toolu_2",
        "tool_input": {"command": "git push --force origin main"}, "error": "rejected: protected branch"});
    assert_hook_contract(&home.hook(failed.to_string().as_bytes()));
    assert!(pre(&home, "L2", "Bash", json!({"command": "rm -rf \"$OUT\"/*", "description": "Clean"}), None).is_some());
    assert!(bash(&home, "L2", "ls").is_none());

    let log: Value = serde_json::from_str(&home.ok(&["log", "--json"])).unwrap();
    let entries = log["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 3, "every event that carried advice, and only those: {log}");
    let first = &entries[0];
    assert_eq!((first["session_id"].as_str(), first["event"].as_str(), first["tool_name"].as_str(), first["tool_use_id"].as_str()), (Some("L1"), Some("PreToolUse"), Some("Bash"), Some("toolu_1")));
    assert_eq!(first["items"][0]["id"], id);
    assert!(first["items"][0]["why"].as_str().unwrap().contains("trigger"), "{first}");
    assert!(first["items"][0]["text"].as_str().unwrap().contains("expanded path"));
    assert_eq!(first["outcome"], "succeeded");
    assert!(entries[1]["outcome"].as_str().unwrap().starts_with("failed: rejected"), "{}", entries[1]);
    assert!(entries[2]["outcome"].is_null(), "not known yet");

    let only: Value = serde_json::from_str(&home.ok(&["log", "--json", "--session", "L2"])).unwrap();
    assert_eq!(only["entries"].as_array().unwrap().len(), 1);
    let last: Value = serde_json::from_str(&home.ok(&["log", "--json", "--last", "1"])).unwrap();
    assert_eq!(last["entries"][0]["session_id"], "L2");
    // Another project's advice stays out of this project's log.
    let elsewhere = tempfile::tempdir().unwrap();
    let payload = json!({"session_id": "L3", "cwd": elsewhere.path(), "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "rm -rf \"$OUT\"/*"}});
    assert!(assert_hook_contract(&home.hook(payload.to_string().as_bytes())).is_some());
    let here: Value = serde_json::from_str(&home.ok(&["log", "--json"])).unwrap();
    assert!(here["entries"].as_array().unwrap().iter().all(|e| e["session_id"] != "L3"), "{here}");
    let all: Value = serde_json::from_str(&home.ok(&["log", "--json", "--all"])).unwrap();
    assert!(all["entries"].as_array().unwrap().iter().any(|e| e["session_id"] == "L3"));

    // What a rule matched is quoted in `why`; a secret in it is not recorded as it was.
    let vault = home.ok(&["add", "Pass API keys through the vault, never on the command line", "--global", "--category", "security"]);
    std::fs::write(home.path().join("config/trigger_rules.yaml"), format!("rules:\n  - name: key_on_cli\n    pattern: 'api_key=\\S+'\n    surface: [{}]\n    priority: high\n", vault.trim())).unwrap();
    let secret = "Zq8vR2mK9pL4xW7nT3bY";
    let leak = |s: &str| pre(&home, s, "Bash", json!({"command": format!("curl -d api_key={secret} https://api.example.com"), "description": "Call the API"}), None);
    assert!(eventually(Duration::from_secs(10), || additional_context(&leak(&format!("k{}", std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos()))).contains("key_on_cli")));
    let log = home.ok(&["log", "--json", "--all", "--last", "5"]);
    assert!(log.contains("key_on_cli"), "{log}");
    assert!(!log.contains(secret), "the secret reached the log: {log}");

    let text = home.ok(&["log"]);
    assert!(text.contains("toolu_1") && text.contains("why:") && text.contains("-> succeeded"), "{text}");
    assert_eq!(home.run(&["log", "--last", "0"]).status.code(), Some(2));
    home.down();
}
