//! The advisor through the real hook: built-in trigger rules on a destructive command and on a
//! secrets file staged for commit, silence on a look around, rules of the user's own (kept when a
//! later save is broken), explain, the reason shown with each lesson, and an action that already
//! does what its lesson asks.

use std::time::Duration;

use cairn_tests::*;
use serde_json::{json, Value};

fn bash(home: &Home, session: &str, command: &str, description: &str) -> Option<Value> {
    let payload = json!({"session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": home.path(), "permission_mode": "default",
        "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": command, "description": description}});
    assert_hook_contract(&home.hook(payload.to_string().as_bytes()))
}

#[test]
fn a_destructive_command_gets_the_destructive_lesson_and_pwd_gets_none() {
    model_dir();
    let home = Home::new();
    home.up();
    let lesson = home.ok(&["add", "Print the expanded path before any recursive delete built from a variable; an unset variable once wiped a home directory", "--global", "--category", "destructive"]);
    home.ok(&["add", "Before running pwd to print the working directory, remember the shell prompt already shows it", "--global", "--category", "tooling"]);
    home.ok(&["add", "Prefer small pull requests under 400 lines", "--global", "--category", "git"]);

    let v = bash(&home, "s1", "rm -rf \"$BUILD_DIR\"/*", "Clean the build output");
    assert!(v.is_some(), "advice for a destructive command");
    let text = additional_context(&v);
    assert!(text.contains("recursive delete built from a variable"), "{text}");
    assert!(text.contains("(trigger destructive_command (critical))"), "the reason travels with the lesson: {text}");
    assert!(text.chars().count() <= 600, "within the tool-call budget");

    // The same through advise, with every signal under its name.
    let payload = home.path().join("rm.json");
    std::fs::write(&payload, json!({"hook_event_name": "PreToolUse", "cwd": home.path(), "tool_name": "Bash", "tool_input": {"command": "rm -rf \"$BUILD_DIR\"/*"}}).to_string()).unwrap();
    let a: Value = serde_json::from_str(&home.ok(&["advise", "--json", "--hook-input", payload.to_str().unwrap()])).unwrap();
    let item = &a["advice"][0];
    assert_eq!(item["id"], lesson.trim());
    assert!(["trigger", "both"].contains(&item["source"].as_str().unwrap()), "{item}");
    for signal in ["trigger_conf", "salience", "relevance", "effectiveness", "recency"] {
        assert!(item["signals"].get(signal).is_some(), "signals lack {signal}: {item}");
    }
    assert_eq!(item["signals"]["trigger_conf"], 1.0);
    assert_eq!(a["salience"], 1.0, "{a}");

    // A look around gets nothing, even with a lesson about exactly that command.
    assert!(bash(&home, "s1", "pwd", "Print working directory").is_none(), "pwd gets no advice");
    // And the same advice is not repeated within the session.
    assert!(bash(&home, "s1", "rm -rf \"$BUILD_DIR\"/*", "Clean the build output").is_none(), "cooldown");
    assert!(bash(&home, "s2", "rm -rf \"$BUILD_DIR\"/*", "Clean the build output").is_some(), "another session hears it");
    home.down();
}

#[test]
fn a_secrets_file_staged_for_commit_gets_the_security_lesson_and_its_template_none() {
    model_dir();
    let home = Home::new();
    home.up();
    home.ok(&["add", "Never commit .env files; secrets live in the vault and are injected at runtime", "--global", "--category", "security"]);
    home.ok(&["add", "Commit messages follow Conventional Commits so the release tooling can pick the version", "--global", "--category", "git"]);

    let text = additional_context(&bash(&home, "c1", "git add apps/web/.env.production && git commit -m 'prod env'", "Commit the production environment"));
    assert!(text.contains("Never commit .env files"), "{text}");
    assert!(text.contains("trigger secret_committed"), "the rule is named in the reason: {text}");
    // A template of the file holds no secrets: the rule stays quiet about it.
    let template = bash(&home, "c2", "git add .env.example", "Add the env template");
    assert!(!additional_context(&template).contains("secret_committed"), "{template:?}");
    home.down();
}

#[test]
fn user_rules_act_and_a_broken_file_keeps_them() {
    model_dir();
    let home = Home::new();
    home.up();
    let lesson = home.ok(&["add", "The release script tags from the current branch: run it from main only", "--global", "--category", "release"]);
    let rules = home.path().join("config/trigger_rules.yaml");
    let rule = format!("rules:\n  - name: release_script\n    pattern: 'scripts/release\\.sh'\n    surface: [{}]\n    priority: high\n", lesson.trim());
    std::fs::write(&rules, &rule).unwrap();
    let fires = |session: &str| additional_context(&bash(&home, session, "./scripts/release.sh 2.4.0", "Cut the release"));
    assert!(eventually(Duration::from_secs(10), || fires(&format!("a{}", rand_suffix())).contains("trigger release_script (high)")), "the rule acts");

    std::fs::write(&rules, "rules:\n  - name: release_script\n    pattern: '(unclosed'\n").unwrap();
    assert!(eventually(Duration::from_secs(10), || home.status()["config"].as_str().unwrap_or("").contains("trigger_rules.yaml")), "{}", home.status());
    assert!(fires("after-break").contains("trigger release_script (high)"), "the last good rules stay in force");

    // Explain says why what was weighed was not said.
    home.ok(&["add", "Release notes are written in CHANGELOG.md before the tag", "--global", "--category", "release"]);
    let out: Value = serde_json::from_str(&home.ok(&["advise", "--json", "--explain", "--global", "run", "the", "release", "script", "from", "main"])).unwrap();
    let said: Vec<&str> = out["advice"].as_array().unwrap().iter().map(|i| i["id"].as_str().unwrap()).collect();
    assert_eq!(said, vec![lesson.trim()], "{out}");
    let considered = out["considered"].as_array().expect("explain lists what was not said");
    assert!(!considered.is_empty(), "{out}");
    for c in considered {
        let verdict = c["verdict"].as_str().unwrap();
        assert!(["gated", "not decided", "outshone", "redundant", "cooldown", "its category", "past the"].iter().any(|v| verdict.starts_with(v)), "{c}");
        assert!(c["why"].as_str().unwrap().contains("relevance"), "{c}");
    }
    home.down();
}

/// A short suffix that differs between calls, for fresh session ids.
fn rand_suffix() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos()
}

#[test]
fn builtin_rules_can_be_turned_off() {
    model_dir();
    let home = Home::new();
    home.up();
    home.ok(&["add", "Never force-push main or a release branch; the deploy bot tags from them", "--global", "--category", "git"]);
    let said = |s: &str| additional_context(&bash(&home, s, "git push --force origin main", "Push"));
    assert!(said("b1").contains("trigger force_push (critical)"), "{}", said("b1x"));
    home.write_tuneables(r#"{"triggers": {"builtin_rules": false}}"#);
    assert!(eventually(Duration::from_secs(10), || !said(&format!("b{}", rand_suffix())).contains("trigger force_push")), "built-in rules off");
    home.down();
}

#[test]
fn lessons_speak_where_their_words_are_not_and_the_routine_beside_them_hears_nothing() {
    // The two moments issue 15 named: an edit that formats a customer's name into an SQL string,
    // and a migration that renames a column, run as a command whose description says so. Neither
    // names its lesson's words; both are advised through the hook. A listing, and a read of the
    // very file the edit changes, get nothing.
    model_dir();
    let home = Home::new();
    home.up();
    home.ok(&["add", "Always pass user input to SQL as query parameters; never format it into the query string. A customer's name once closed the quote and dropped a table.", "--global", "--category", "security"]);
    home.ok(&["add", "When a migration renames a column, ship the code that reads both names first, then rename, then drop the old name.", "--global", "--category", "database"]);
    home.ok(&["add", "Keep pull requests under 400 lines so they get a real review.", "--global", "--category", "git"]);
    home.ok(&["add", "Store timestamps in UTC and convert at the edges.", "--global", "--category", "style"]);
    let file = home.path().join("src/db/customers.ts");
    let hook = |session: &str, tool: &str, input: Value| {
        let payload = json!({"session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": home.path(), "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input});
        additional_context(&assert_hook_contract(&home.hook(payload.to_string().as_bytes())))
    };
    let edit = json!({"file_path": file, "old_string": "const rows = await db.query('SELECT * FROM customers WHERE id = $1', [id]);", "new_string": "const rows = await db.query(`SELECT * FROM customers WHERE full_name = '${req.query.name}'`);"});
    // The model loads in the background: the hook never waits for it, so the test does.
    assert!(eventually(Duration::from_secs(30), || home.status()["model"] == "loaded"), "the model loads: {}", home.status());
    let said = hook("e1", "Edit", edit);
    assert!(said.contains("query parameters"), "the SQL edit gets the parameters lesson: {said}");
    let said = hook("m1", "Bash", json!({"command": "alembic revision -m 'rename customer_name to full_name'", "description": "Create a migration that renames the column"}));
    assert!(said.contains("reads both names first"), "the renaming migration gets its lesson: {said}");
    assert!(said.contains("meaning 0."), "and says how close in meaning it was: {said}");
    assert!(hook("r1", "Bash", json!({"command": "ls", "description": "List files"})).is_empty(), "a listing gets nothing");
    assert!(hook("r2", "Read", json!({"file_path": file})).is_empty(), "a read of the same file gets nothing");
    home.down();
}

fn advise_payload(home: &Home, name: &str, tool: &str, input: Value) -> Value {
    let path = home.path().join(name);
    std::fs::write(&path, json!({"hook_event_name": "PreToolUse", "cwd": home.path(), "tool_name": tool, "tool_input": input}).to_string()).unwrap();
    serde_json::from_str(&home.ok(&["advise", "--json", "--explain", "--hook-input", path.to_str().unwrap()])).unwrap()
}

#[test]
fn an_action_that_already_does_what_its_lesson_asks_weighs_less_and_a_question_is_less_salient() {
    model_dir();
    let home = Home::new();
    home.up();
    let id = home.ok(&["add", "In the ledger service, run tests with --test-threads=1; the suites share one schema and trample each other.", "--global", "--category", "testing"]).trim().to_string();
    assert!(eventually(Duration::from_secs(30), || home.status()["model"] == "loaded"), "the model loads");
    // Everything weighed, said or not, with its probability and reason.
    let weighed = |a: &Value| -> Value {
        a["advice"].as_array().unwrap().iter().chain(a["considered"].as_array().into_iter().flatten()).find(|i| i["id"] == id.as_str()).unwrap_or_else(|| panic!("the lesson is weighed: {a}")).clone()
    };
    let plain = weighed(&advise_payload(&home, "plain.json", "Bash", json!({"command": "cargo test -p ledger", "description": "Run the ledger tests"})));
    let done = weighed(&advise_payload(&home, "done.json", "Bash", json!({"command": "cargo test -p ledger -- --test-threads=1", "description": "Run the ledger tests"})));
    assert!(!plain["why"].as_str().unwrap().contains("already does"), "{plain}");
    assert!(done["why"].as_str().unwrap().contains("the action already does what it asks ('test-threads=1')"), "{done}");
    assert!(done["signals"]["add.complies"].as_f64().unwrap() < 0.0, "the term lowers the odds: {done}");
    // Claude Code's description restates the goal; it is not the action.
    let described = weighed(&advise_payload(&home, "described.json", "Bash", json!({"command": "cargo test -p ledger", "description": "Run the ledger tests with --test-threads=1"})));
    assert!(!described["why"].as_str().unwrap().contains("already does"), "{described}");

    let asked: Value = serde_json::from_str(&home.ok(&["advise", "--json", "which schema do the ledger suites share?"])).unwrap();
    assert_eq!((asked["salience"].as_f64(), asked["salience_reason"].as_str()), (Some(0.3), Some("asks a question")), "{asked}");
    let request: Value = serde_json::from_str(&home.ok(&["advise", "--json", "run the ledger suites"])).unwrap();
    assert_eq!(request["salience"].as_f64(), Some(0.8), "{request}");
    home.down();
}

#[test]
fn example_moments_are_kept_shown_exported_and_weighed() {
    model_dir();
    let home = Home::new();
    home.up();
    // A blank example is refused, not dropped: alone in an edit it would wipe the list.
    let blank = home.run(&["add", "Keep signing keys in the vault", "--global", "--example", "  "]);
    assert_eq!(blank.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&blank.stderr).contains("cannot be empty"));
    let id = home.ok(&["add", "Keep signing keys in the vault and rotate them with the runbook", "--global", "--category", "security", "--example", "Make a new key for token signing: openssl genrsa -out jwt.key 4096", "--not-example", "Print the public half of the key: openssl rsa -in pub.pem -pubout"]).trim().to_string();
    home.ok(&["add", "Never force-push a shared branch; add a follow-up commit instead", "--global", "--category", "git", "--not-example", "Update my PR branch after rebasing: git push --force-with-lease origin fix/login"]);
    let shown = home.ok(&["show", &id]);
    assert!(shown.contains("example:    Make a new key for token signing") && shown.contains("not for:    Print the public half"), "{shown}");
    let m: Value = serde_json::from_str(&home.ok(&["show", "--json", &id])).unwrap();
    assert_eq!(m["examples"].as_array().unwrap().len(), 1, "{m}");
    let wiped = home.run(&["edit", &id, "--example", ""]);
    assert_eq!(wiped.status.code(), Some(2), "an empty example does not wipe the list");
    assert!(eventually(Duration::from_secs(30), || home.status()["model"] == "loaded"), "the model loads");

    // The moment an example describes borrows its closeness.
    let a = advise_payload(&home, "key.json", "Bash", json!({"command": "openssl genrsa -out jwt.key 4096", "description": "Make a new key for token signing"}));
    let item = a["advice"].as_array().unwrap().iter().find(|i| i["id"] == id.as_str()).unwrap_or_else(|| panic!("the example's moment is advised: {a}")).clone();
    assert!(item["why"].as_str().unwrap().contains("like its example 'Make a new key"), "{item}");
    assert!(item["signals"]["example"].as_f64().unwrap() > 0.9, "{item}");
    // A near miss of the lesson: not advised, and explain says so.
    let a = advise_payload(&home, "lease.json", "Bash", json!({"command": "git push --force-with-lease origin fix/login", "description": "Update my PR branch after rebasing"}));
    assert!(a["advice"].as_array().unwrap().is_empty(), "{a}");
    let missed = a["considered"].as_array().unwrap().iter().find(|i| i["text"].as_str().unwrap().starts_with("Never force-push")).unwrap_or_else(|| panic!("{a}")).clone();
    assert!(missed["verdict"].as_str().unwrap().starts_with("near miss"), "{missed}");

    // Edit replaces a kind, or clears both; bad input is refused with a reason.
    home.ok(&["edit", &id, "--not-example", "Read the key rotation runbook"]);
    let m: Value = serde_json::from_str(&home.ok(&["show", "--json", &id])).unwrap();
    assert_eq!((m["examples"].as_array().unwrap().len(), m["not_examples"][0].as_str()), (1, Some("Read the key rotation runbook")), "{m}");
    let long = "x".repeat(400);
    let out = home.run(&["edit", &id, "--example", &long]);
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("at most 300"), "{}", String::from_utf8_lossy(&out.stderr));
    // Export carries them; an import line may give them.
    let exported = home.ok(&["export"]);
    assert!(exported.lines().any(|l| l.contains(&id) && l.contains("\"not_examples\":[\"Read the key rotation runbook\"]")), "{exported}");
    let file = home.path().join("lessons.jsonl");
    std::fs::write(&file, "{\"id\":\"imported-1\",\"text\":\"Tag releases from main only\",\"examples\":[\"Cut the 2.4 release from my branch\"],\"not_examples\":[\"List the tags\"]}\n{\"text\":\"bad\",\"examples\":\"not a list\"}\n").unwrap();
    let out = home.run(&["import", file.to_str().unwrap(), "--global"]);
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("1 added") && report.contains("1 rejected"), "{report}");
    assert_eq!(out.status.code(), Some(1), "a rejected line makes the import fail, the rest imported");
    let m: Value = serde_json::from_str(&home.ok(&["show", "--json", "imported-1"])).unwrap();
    assert_eq!((m["examples"][0].as_str(), m["not_examples"][0].as_str()), (Some("Cut the 2.4 release from my branch"), Some("List the tags")));
    home.ok(&["edit", &id, "--clear-examples"]);
    let m: Value = serde_json::from_str(&home.ok(&["show", "--json", &id])).unwrap();
    assert!(m.get("examples").is_none() && m.get("not_examples").is_none(), "cleared, and left out of the record: {m}");
    home.down();
}

#[test]
fn the_seed_pack_speaks_by_its_example_moments_and_keeps_quiet_on_its_near_misses() {
    model_dir();
    let home = Home::with_seed_pack();
    home.up();
    let seed: Value = serde_json::from_str(&home.ok(&["show", "--json", "seed-sql-params"])).unwrap();
    assert!(seed["examples"].as_array().is_some_and(|e| e.len() >= 2) && seed["not_examples"].as_array().is_some_and(|e| !e.is_empty()), "{seed}");
    // `advise` waits for the model, which is declared loaded once the pack's moments are in.
    // An f-string query in Python: no trigger pattern of the pack matches it.
    let a = advise_payload(&home, "fstring.json", "Edit", json!({"file_path": home.path().join("api/search.py"), "old_string": "cur.execute(\"SELECT * FROM items WHERE name LIKE %s\", (f\"%{term}%\",))", "new_string": "cur.execute(f\"SELECT * FROM items WHERE name LIKE '%{term}%'\")"}));
    assert!(a["advice"].as_array().unwrap().iter().any(|i| i["id"] == "seed-sql-params"), "{a}");
    // Where the pack's rule matches an injection, the model's reading (closer to the lesson's
    // parameterised near miss than to the lesson) does not silence it; the parameterised query,
    // which no rule matches, stays quiet. So does a hard-coded live key's rule.
    let edit = |name: &str, new: &str| advise_payload(&home, name, "Edit", json!({"file_path": home.path().join("app/db.py"), "old_string": "def find_user(name):\n    pass", "new_string": new}));
    let said = |a: &Value, id: &str| a["advice"].as_array().unwrap().iter().any(|i| i["id"] == id);
    let injected = edit("inject.json", "def find_user(name):\n    cur.execute(f\"SELECT * FROM users WHERE name = '{name}'\")\n    return cur.fetchall()");
    assert!(said(&injected, "seed-sql-params"), "{injected}");
    let bound = edit("bound.json", "def find_user(name):\n    cur.execute(\"SELECT * FROM users WHERE name = %s\", (name,))\n    return cur.fetchall()");
    assert!(!said(&bound, "seed-sql-params"), "{bound}");
    let key = advise_payload(&home, "key.json", "Write", json!({"file_path": home.path().join("config/settings.py"), "content": "STRIPE_KEY = 'sk_live_51HxQw2eZvKYlo2C0123456789abcdef'\n"}));
    assert!(said(&key, "seed-secrets-no-literals"), "{key}");
    home.down();
}

/// A fresh install on an ordinary day: the commands that look like a seed's case but are not
/// (a push of a feature branch, a stash, an install with the project's manager, one file
/// removed, a deployment's logs read) get nothing through the hook; the case itself still does.
#[test]
fn a_fresh_install_keeps_quiet_on_an_ordinary_day() {
    model_dir();
    let home = Home::with_seed_pack();
    home.up();
    // `advise` waits for the model (the hook never does), which is declared loaded once the
    // pack's moments are in.
    home.ok(&["advise", "--json", "open", "the", "project"]);
    assert!(eventually(Duration::from_secs(30), || home.status()["model"] == "loaded"), "the model loads: {}", home.status());
    for (i, (command, description)) in [
        ("git push origin feature/pagination", "Push the feature branch"),
        ("git push -u origin HEAD", "Push branch and set upstream"),
        ("git pull --rebase", "Update the branch from remote"),
        ("git stash", "Stash local changes"),
        ("npm install", "Install dependencies"),
        ("pip install -r requirements.txt", "Install Python requirements"),
        ("rm build/output.log", "Delete the old build log"),
        ("kubectl -n checkout logs deploy/checkout-api --tail=200", "Read the checkout api logs"),
    ]
    .into_iter()
    .enumerate()
    {
        let said = additional_context(&bash(&home, &format!("day-{i}"), command, description));
        assert!(said.is_empty(), "{command}: {said}");
    }
    let said = additional_context(&bash(&home, "day-force", "git push --force origin main", "Overwrite the remote main"));
    assert!(said.contains("Never force-push a shared branch"), "{said}");
    home.down();
}

#[test]
fn parallel_hooks_each_get_the_model_s_meaning() {
    // Claude Code runs the hooks of parallel tool calls together: each must have the model in
    // turn rather than all but one answering by keywords (`model.hook_wait_ms`; the test allows
    // the most, since a debug build embeds slower than a release one).
    model_dir();
    let home = Home::new();
    home.write_tuneables(r#"{"model": {"hook_wait_ms": 150}}"#);
    home.up();
    home.ok(&["add", "Run database migrations with the migrate job, never by hand against production", "--global", "--category", "database"]);
    let children: Vec<_> = (0..4)
        .map(|i| {
            let payload = json!({"session_id": format!("p{i}"), "transcript_path": "/tmp/t.jsonl", "cwd": home.path(), "permission_mode": "default",
                "hook_event_name": "PreToolUse", "tool_name": "Bash",
                "tool_input": {"command": format!("psql \"$PROD_URL\" -f migrations/00{i}_orders.sql"), "description": format!("Apply migration {i} to the production database")}});
            let mut child = home.cairn().arg("hook").stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap();
            use std::io::Write;
            child.stdin.take().unwrap().write_all(payload.to_string().as_bytes()).unwrap();
            child
        })
        .collect();
    for child in children {
        assert!(assert_hook_contract(&wait_output(child, Duration::from_secs(30))).is_some(), "each parallel hook is advised");
    }
    let log: Value = serde_json::from_str(&home.ok(&["log", "--json"])).unwrap();
    let entries = log["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 4, "{log}");
    for e in entries {
        let item = &e["items"][0];
        assert!(item["signals"].get("in.meaning").is_some(), "answered by keywords alone: {item}");
    }
    home.down();
}
