//! The store through the CLI: add/show/edit/list/forget, import with rejections, export round
//! trips byte for byte, and acknowledged writes surviving `kill -9`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use cairn_tests::*;
use serde_json::{json, Value};

#[test]
fn add_show_edit_list_forget() {
    let home = Home::new();
    home.up();
    let id = home.ok(&["add", "Use sqlx offline mode in CI", "--category", "Tooling", "--tags", "rust, ci", "--project", "alpha"]);
    let id = id.trim();
    assert_eq!(id.lines().count(), 1, "add prints the id alone");

    let shown: Value = serde_json::from_str(&home.ok(&["show", id, "--json"])).unwrap();
    assert_eq!(shown["category"], "tooling", "categories are lowercase");
    assert_eq!(shown["tags"], serde_json::json!(["rust", "ci"]));
    assert_eq!(shown["project"], "alpha");
    assert_eq!(shown["source"], "user");
    assert_eq!(shown["worth"]["effectiveness"], 0.5, "Beta prior");
    assert_eq!(shown["node_weight"], 1.0);
    for field in ["why", "now", "next", "worth", "created_at", "updated_at", "context"] {
        assert!(shown.get(field).is_some(), "memory lacks {field}");
    }

    home.ok(&["edit", id, "--text", "Use sqlx offline mode in CI builds", "--tags", "rust"]);
    let shown: Value = serde_json::from_str(&home.ok(&["show", id, "--json"])).unwrap();
    assert_eq!(shown["text"], "Use sqlx offline mode in CI builds");
    assert_eq!(shown["tags"], serde_json::json!(["rust"]));
    assert_eq!(shown["category"], "tooling", "untouched fields stay");

    let g = home.ok(&["add", "Write commit messages in the imperative", "--global"]);
    let other = home.ok(&["add", "Beta-only lesson", "--project", "beta"]);
    let alpha = home.ok(&["list", "--project", "alpha"]);
    assert!(alpha.contains(id) && alpha.contains(g.trim()) && !alpha.contains(other.trim()), "project plus global: {alpha}");
    assert_eq!(home.memories().len(), 3);

    assert!(home.ok(&["forget", id]).contains(id));
    let out = home.run(&["show", id]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no memory"));
    assert_eq!(home.memories().len(), 2);

    // Bad input is refused with the reason; usage errors exit 2.
    let out = home.run(&["add", "   "]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("text is empty"));
    assert_eq!(home.run(&["add"]).status.code(), Some(2));
    assert_eq!(home.run(&["edit", g.trim()]).status.code(), Some(2), "edit with nothing to change");
    home.down();

    // Everything is still there after a restart.
    home.up();
    assert_eq!(home.memories().len(), 2);
    home.down();
}

#[test]
fn import_reports_and_export_round_trips() {
    let home = Home::new();
    home.up();
    let file = home.path().join("in.jsonl");
    std::fs::write(
        &file,
        [
            r#"{"text": "Never commit .env files", "category": "security", "tags": ["secrets"]}"#,
            r#"{"id": "keep-me-1", "text": "Run migrations on a copy first", "project": "/srv/app", "source": "seed"}"#,
            "",
            r#"{"text": ""}"#,
            r#"not json"#,
            r#"{"text": "ok", "colour": "blue"}"#,
            r#"{"id": "keep-me-1", "text": "Run migrations on a staging copy first", "project": "/srv/app"}"#,
            r#"{"text": "Prefer small pull requests", "category": "git"}"#,
        ]
        .join("\n"),
    )
    .unwrap();
    // A line that is not UTF-8 is one more rejection, not the end of the import.
    let mut bytes = std::fs::read(&file).unwrap();
    bytes.extend_from_slice(b"\n{\"text\": \"\xff\xfe broken\"}");
    std::fs::write(&file, bytes).unwrap();
    let out = home.run(&["import", file.to_str().unwrap(), "--project", "imported"]);
    assert_eq!(out.status.code(), Some(1), "rejected lines make the import fail; the rest is imported");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains("3 added, 1 updated, 4 rejected"), "{stdout}");
    assert!(stderr.contains("line 9: not UTF-8"), "{stderr}");
    assert!(stderr.contains("line 4: text is empty"), "{stderr}");
    assert!(stderr.contains("line 5: not valid JSON"), "{stderr}");
    assert!(stderr.contains("line 6:") && stderr.contains("colour"), "{stderr}");

    let kept: Value = serde_json::from_str(&home.ok(&["show", "keep-me-1", "--json"])).unwrap();
    assert_eq!(kept["text"], "Run migrations on a staging copy first");
    assert_eq!(kept["project"], "/srv/app");
    let all = home.memories();
    assert!(all.iter().filter(|m| m["id"] != "keep-me-1").all(|m| m["project"] == "imported"), "lines without a project go to --project");

    let first = home.path().join("first.jsonl");
    home.ok(&["export", first.to_str().unwrap()]);
    let stdout_export = home.ok(&["export"]);
    let first_bytes = std::fs::read(&first).unwrap();
    assert_eq!(stdout_export.as_bytes(), first_bytes.as_slice(), "file and stdout exports agree");
    let lines: Vec<Value> = stdout_export.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(lines.iter().all(|v| v["v"] == 1));
    assert!(lines[..lines.len() - 1].iter().all(|v| v["kind"] == "memory"), "memories first");
    assert_eq!(lines.last().unwrap()["kind"], "state", "the home's advice state last");
    home.down();

    let fresh = Home::new();
    fresh.up();
    let out = fresh.ok(&["import", first.to_str().unwrap()]);
    assert!(out.contains("3 added, 0 updated, 0 rejected"), "{out}");
    let second = fresh.ok(&["export"]);
    assert_eq!(second.as_bytes(), first_bytes.as_slice(), "export -> import -> export is byte-identical");
    // The same restore again finds every record as it is.
    let again = fresh.ok(&["import", first.to_str().unwrap()]);
    assert!(again.contains("0 added, 0 updated, 3 unchanged, 0 rejected"), "{again}");
    assert_eq!(fresh.ok(&["export"]).as_bytes(), first_bytes.as_slice());
    fresh.down();
}

#[test]
fn acknowledged_writes_survive_kill_9() {
    let home = Arc::new(Home::new());
    home.up();
    let acked = Arc::new(Mutex::new(Vec::<String>::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let (home, acked, stop) = (home.clone(), acked.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut n = 0;
                while !stop.load(Ordering::Acquire) {
                    let out = home.run(&["add", &format!("writer {w} lesson {n}"), "--global"]);
                    if out.status.success() {
                        acked.lock().unwrap().push(String::from_utf8(out.stdout).unwrap().trim().to_string());
                    }
                    n += 1;
                }
            })
        })
        .collect();
    assert!(eventually(Duration::from_secs(60), || acked.lock().unwrap().len() >= 40), "writes are flowing");
    let pid = home.daemon_pid().unwrap();
    // SAFETY: kills the daemon of this private home, mid-stream.
    unsafe { libc::kill(pid, libc::SIGKILL) };
    std::thread::sleep(Duration::from_millis(200));
    stop.store(true, Ordering::Release);
    for w in writers {
        w.join().unwrap();
    }
    let acked = acked.lock().unwrap().clone();
    home.up();
    let stored: std::collections::HashSet<String> = home.memories().iter().map(|m| m["id"].as_str().unwrap().to_string()).collect();
    let lost: Vec<&String> = acked.iter().filter(|id| !stored.contains(*id)).collect();
    assert!(lost.is_empty(), "{} of {} acknowledged writes lost: {lost:?}", lost.len(), acked.len());
    home.down();
}

#[test]
fn session_log_retention_and_config_errors() {
    let home = Home::new();
    home.write_tuneables(r#"{"sessions": {"max_events": 5}, "preset": "kept"}"#);
    home.up();
    let status = home.status();
    assert_eq!(status["config"], "ok");
    assert_eq!(status["unknown_config_keys"], serde_json::json!(["preset"]), "unknown keys are reported, not fatal");
    for i in 0..12 {
        let e = serde_json::json!({"session_id": format!("r{i}"), "cwd": "/tmp", "hook_event_name": "Stop"});
        assert_hook_contract(&home.hook(e.to_string().as_bytes()));
    }
    assert_eq!(home.status()["session_events"], 5, "the log keeps its configured bound");
    home.down();

    // A broken file: the daemon runs on defaults and says what is wrong, and where.
    home.write_tuneables("{\n  \"sessions\": {\"max_events\": }\n}");
    home.up();
    let config = home.status()["config"].as_str().unwrap().to_string();
    assert!(config.contains("tuneables.json: line 2 column"), "{config}");
    assert_eq!(home.status()["session_events"], 5, "nothing recorded was lost");
    home.down();
}

/// A running home with a user folder (with its `.claude`) and a git checkout, for `import
/// --claude-memory`: (home, user, repo).
fn claude_memory_home() -> (Home, std::path::PathBuf, std::path::PathBuf) {
    let home = Home::new();
    home.up();
    let user = home.path().join("user");
    let repo = home.path().join("repo");
    std::fs::create_dir_all(user.join(".claude")).unwrap();
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    (home, user, repo)
}

/// `import --claude-memory`: the user's CLAUDE.md into `global`, the project's files and auto
/// memory into the project; again after the files changed, it updates (keeping what was given
/// to a lesson since), adds and removes; a file that cannot be read is named, fails the import
/// and costs its lessons nothing.
#[test]
fn claude_memory_is_imported_and_kept_in_step_with_its_files() {
    let (home, user, repo) = claude_memory_home();
    std::fs::write(user.join(".claude/CLAUDE.md"), "# Me\n- Always write commit messages in the imperative mood\n- This laptop is my work machine, its disk password is Tr0ub4dor77.\n").unwrap();
    let claude_md = repo.join("CLAUDE.md");
    std::fs::write(&claude_md, "# Repo\n\n## Tooling\n- Use pnpm here, never npm: the lockfile is pnpm-lock.yaml\n- Do not touch the generated files in src/gen\n- ok\n\n```sh\nrm -rf /\n```\n").unwrap();
    let root = std::fs::canonicalize(&repo).unwrap();
    let folder: String = root.to_str().unwrap().chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    let memory = user.join(".claude/projects").join(folder).join("memory");
    std::fs::create_dir_all(&memory).unwrap();
    std::fs::write(memory.join("MEMORY.md"), "- [Staging](staging.md) - the staging database\n").unwrap();
    std::fs::write(memory.join("staging.md"), "---\nname: staging\ndescription: the staging database\ntype: project\n---\nThe staging database is reset every night at two; never keep test data there.\n").unwrap();
    let env = [("HOME", user.as_os_str()), ("CLAUDE_CONFIG_DIR", std::ffi::OsStr::new(""))];
    let import = || home.run_in(Some(&repo), &env, &["import", "--claude-memory"]);

    let out = import();
    let said = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{said}{}", String::from_utf8_lossy(&out.stderr));
    assert!(said.contains("4 added, 0 updated, 0 removed"), "{said}");
    // What the quality gate finds no lesson in is left out, named, and no error.
    assert!(said.contains("1 left out, 0 rejected") && said.contains("left out, not a lesson") && said.contains("This laptop is my work machine"), "{said}");
    // Named as the daemon read it: a secret in it is not printed.
    assert!(said.contains("[REDACTED]") && !said.contains("Tr0ub4dor77"), "{said}");
    // The same files again: nothing changes, and the import says so.
    let again = String::from_utf8_lossy(&import().stdout).to_string();
    assert!(again.contains("0 added, 0 updated, 4 unchanged, 0 removed"), "{again}");
    assert!(said.contains(&format!("{}: 2 instructions read", claude_md.display())), "{said}");
    let ours = |home: &Home| -> Vec<Value> { home.memories().into_iter().filter(|m| m["source"] == "claude-md").collect() };
    let lessons = ours(&home);
    let find = |lessons: &[Value], start: &str| lessons.iter().find(|m| m["text"].as_str().unwrap().starts_with(start)).cloned().unwrap_or_else(|| panic!("{start:?} not in {lessons:#?}"));
    assert_eq!(find(&lessons, "Always write commit messages")["project"], "global");
    let pnpm = find(&lessons, "Use pnpm here");
    assert_eq!(pnpm["project"], root.to_str().unwrap());
    assert!(pnpm["context"].as_str().unwrap().ends_with("CLAUDE.md > Repo > Tooling"), "{pnpm}");
    // Scored by the quality gate like a captured lesson (and kept: the user wrote it).
    assert_eq!(pnpm["worth"]["verdict"], "quality", "{pnpm}");
    assert!(pnpm["worth"]["quality"]["actionability"].as_f64().unwrap() >= 0.6, "{pnpm}");
    assert!(lessons.iter().all(|m| m["worth"]["verdict"].is_string()), "every imported lesson is scored");
    assert_eq!(find(&lessons, "The staging database is reset")["project"], root.to_str().unwrap());
    assert!(!lessons.iter().any(|m| m["text"].as_str().unwrap().contains("rm -rf")), "code blocks are not lessons");
    // Found by what it says, as any lesson.
    let found: Value = serde_json::from_str(&home.ok(&["search", "--json", "--project", root.to_str().unwrap(), "pnpm", "lockfile"])).unwrap();
    assert!(found["results"].as_array().unwrap().iter().any(|r| r["id"] == pnpm["id"]), "{found}");

    // Given a category and an example since; then the file changes.
    let pnpm_id = pnpm["id"].as_str().unwrap();
    home.ok(&["edit", pnpm_id, "--category", "tooling", "--example", "npm install left-pad"]);
    std::fs::write(&claude_md, "# Repo\n\n## Tooling\n- Use pnpm here, never npm: the lockfile is pnpm-lock.yaml\n- Run the linter with:\n\n```\nmake lint\n```\n").unwrap();
    let out = import();
    let said = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success() && said.contains("1 added, 0 updated, 3 unchanged, 1 removed"), "{said}");
    let lessons = ours(&home);
    assert_eq!(lessons.len(), 4);
    assert!(!lessons.iter().any(|m| m["text"].as_str().unwrap().contains("generated files")), "what left the file left cairn");
    find(&lessons, "Run the linter with: `make lint`");
    let pnpm = find(&lessons, "Use pnpm here");
    assert_eq!((pnpm["id"].as_str().unwrap(), &pnpm["category"], &pnpm["examples"][0]), (pnpm_id, &Value::from("tooling"), &Value::from("npm install left-pad")), "same lesson, what it was given kept");
    // A word of the instruction edited: the lesson it was, with its new text, and what it was
    // given kept; importing again changes nothing.
    std::fs::write(&claude_md, "# Repo\n\n## Tooling\n- Use pnpm here, never npm: the lockfile is pnpm-lock.yaml and CI reads it\n- Run the linter with:\n\n```\nmake lint\n```\n").unwrap();
    let said = String::from_utf8_lossy(&import().stdout).to_string();
    assert!(said.contains("0 added, 1 updated, 3 unchanged, 0 removed"), "{said}");
    let pnpm = find(&ours(&home), "Use pnpm here");
    assert_eq!((pnpm["id"].as_str().unwrap(), &pnpm["category"], &pnpm["examples"][0]), (pnpm_id, &Value::from("tooling"), &Value::from("npm install left-pad")), "an edited instruction is the lesson it was: {pnpm}");
    assert!(pnpm["text"].as_str().unwrap().ends_with("and CI reads it"), "{pnpm}");
    assert!(String::from_utf8_lossy(&import().stdout).contains("0 added, 0 updated, 4 unchanged, 0 removed"));

    // A file that is not a regular file: named, exit 1, and nothing of the project removed.
    std::fs::remove_file(&claude_md).unwrap();
    let c = std::ffi::CString::new(claude_md.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo reads a valid C string.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let out = import();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("cannot read {}: not a regular file", claude_md.display())), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(ours(&home).len(), 4, "an unreadable file keeps its lessons");
    // Gone: its lessons go.
    std::fs::remove_file(&claude_md).unwrap();
    let said = String::from_utf8_lossy(&import().stdout).to_string();
    assert!(said.contains("0 added, 0 updated, 2 unchanged, 2 removed"), "{said}");
    // A --project that is a name, not a folder, is bad usage; a folder that is not there, a failure.
    assert_eq!(home.run_in(None, &env, &["import", "--claude-memory", "--project", "not-a-folder"]).status.code(), Some(2));
    assert_eq!(home.run_in(None, &env, &["import", "--claude-memory", "--project", "/no/such/folder"]).status.code(), Some(1));
    assert_eq!(home.run(&["import"]).status.code(), Some(2), "a file or --claude-memory");
}

/// A CLAUDE.md written short, as most are: plain imperatives that name what they are about and
/// choices said in a few words are lessons; a line about the reply, a platitude and a manner
/// with nothing to check are left out, each named with why.
#[test]
fn a_claude_md_written_short_keeps_its_instructions_and_names_what_it_leaves_out() {
    let (home, user, repo) = claude_memory_home();
    let file = "# Conventions
- Write commit messages in the imperative mood.
- Vitest, not Jest.
- Pin dependency versions
- Add docstrings to public functions.

# Style
- Keep your replies short and skip the preamble.
- Follow best practices at all times.
- Name the handlers consistently.
";
    std::fs::write(repo.join("CLAUDE.md"), file).unwrap();
    let env = [("HOME", user.as_os_str()), ("CLAUDE_CONFIG_DIR", std::ffi::OsStr::new(""))];
    let out = home.run_in(Some(&repo), &env, &["import", "--claude-memory"]);
    let said = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{said}{}", String::from_utf8_lossy(&out.stderr));
    assert!(said.contains("4 added") && said.contains("3 left out"), "{said}");
    for reason in ["about the reply", "a platitude"] {
        assert!(said.contains(reason), "{reason}: {said}");
    }
    let texts: Vec<String> = home.memories().into_iter().filter(|m| m["source"] == "claude-md").map(|m| m["text"].as_str().unwrap().to_string()).collect();
    for kept in ["Write commit messages in the imperative mood.", "Vitest, not Jest.", "Pin dependency versions", "Add docstrings to public functions."] {
        assert!(texts.iter().any(|t| t == kept), "{kept} not in {texts:?}");
    }
}

/// An instruction a CLAUDE.md says twice (in two sections, in other words) is one lesson, the
/// first; a neighbouring rule is its own; a re-import decides the same; with the first gone from
/// the file, the other is the one.
#[test]
fn an_instruction_said_twice_in_claude_md_is_one_lesson() {
    let (home, user, repo) = claude_memory_home();
    let first = "- Use pnpm for everything in this repo, never npm or yarn.\n";
    let rest = "- Run `pnpm lint` before committing.\n- Run `pnpm test` before committing.\n\n## Review\n- Always use pnpm in this repository; npm and yarn are not allowed.\n";
    std::fs::write(repo.join("CLAUDE.md"), format!("# Repo\n## Tooling\n{first}{rest}")).unwrap();
    let env = [("HOME", user.as_os_str()), ("CLAUDE_CONFIG_DIR", std::ffi::OsStr::new(""))];
    let import = || {
        let out = home.run_in(Some(&repo), &env, &["import", "--claude-memory"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let texts = || -> Vec<String> {
        let mut t: Vec<String> = home.memories().into_iter().filter(|m| m["source"] == "claude-md").map(|m| m["text"].as_str().unwrap().to_string()).collect();
        t.sort();
        t
    };
    let said = import();
    assert!(said.contains("3 added") && said.contains("1 left out") && said.contains("left out, said again (the same as \"Use pnpm for everything in this repo"), "{said}");
    assert_eq!(texts(), vec!["Run `pnpm lint` before committing.", "Run `pnpm test` before committing.", "Use pnpm for everything in this repo, never npm or yarn."]);
    let again = import();
    assert!(again.contains("0 added, 0 updated, 3 unchanged, 0 removed") && again.contains("1 left out"), "{again}");
    // The first taken out of the file: its repeat is the lesson now.
    std::fs::write(repo.join("CLAUDE.md"), format!("# Repo\n## Tooling\n{rest}")).unwrap();
    let after = import();
    assert!(after.contains("1 added") && after.contains("1 removed") && after.contains("0 left out"), "{after}");
    assert!(texts().iter().any(|t| t.starts_with("Always use pnpm in this repository")), "{:?}", texts());
    home.down();
}

#[test]
fn causes_chains_dependents_and_their_stats() {
    let home = Home::new();
    home.up();
    let add = |args: &[&str]| home.ok(args).trim().to_string();
    let a = add(&["add", "Pin the Postgres image to 16.2 in compose.yaml", "--project", "shop", "--action-type", "decision", "--rationale", "16.3 broke the JSON operators we use"]);
    let b = add(&["add", "Run the JSON operator tests against the pinned image", "--project", "shop", "--action-type", "bug-fix", "--caused-by", &a]);
    let c = add(&["add", "Check the image pin before upgrading the driver", "--project", "shop", "--caused-by", &b]);
    let show = |id: &str| -> Value { serde_json::from_str(&home.ok(&["show", id, "--json"])).unwrap() };
    let bm = show(&b);
    assert_eq!((bm["why"]["action_type"].as_str(), bm["why"]["caused_by"][0].as_str()), (Some("bug_fix"), Some(a.as_str())), "{bm}");
    assert!(bm["why"]["dependencies"].as_array().unwrap().iter().any(|x| x == a.as_str()), "written within the hour after it: {bm}");
    assert!(show(&a)["why"]["dependencies"].as_array().unwrap().is_empty());

    // The chain, root first, indented by depth; the descendants of the root.
    let chain: Value = serde_json::from_str(&home.ok(&["chain", &c, "--json"])).unwrap();
    let ids: Vec<(&str, u64)> = chain["chain"].as_array().unwrap().iter().map(|l| (l["id"].as_str().unwrap(), l["depth"].as_u64().unwrap())).collect();
    assert_eq!(ids, vec![(a.as_str(), 0), (b.as_str(), 1), (c.as_str(), 2)]);
    let text = home.ok(&["chain", &c]);
    assert!(text.lines().nth(2).is_some_and(|l| l.starts_with("    ") && l.contains(&c)), "{text}");
    let deps: Value = serde_json::from_str(&home.ok(&["dependents", &a, "--json"])).unwrap();
    let found: Vec<&str> = deps["dependents"].as_array().unwrap().iter().map(|l| l["id"].as_str().unwrap()).collect();
    assert!(found.contains(&b.as_str()) && found.contains(&c.as_str()), "{deps}");
    // Another project's lesson, written on top of this hour's work across projects.
    let d = add(&["add", "Upgrade the driver only with the pin checked", "--project", "billing", "--cross-project", "--caused-by", &c]);
    let deps: Value = serde_json::from_str(&home.ok(&["dependents", &a, "--json"])).unwrap();
    assert!(deps["dependents"].as_array().unwrap().iter().any(|l| l["id"] == d.as_str()), "across projects: {deps}");
    assert!(show(&d)["why"]["dependencies"].as_array().unwrap().iter().any(|x| x == a.as_str()), "--cross-project reaches shop's memories");

    // Why: the reasons in words.
    let why = home.ok(&["why", &b]);
    assert!(why.contains("recorded as bug_fix") && why.contains(&format!("caused by memory {a}")) && why.contains("descend from it"), "{why}");
    assert!(home.ok(&["why", &a]).contains("because: 16.3 broke the JSON operators"));
    let stats: Value = serde_json::from_str(&home.ok(&["causality", "stats", "--project", "shop", "--json"])).unwrap();
    assert_eq!((stats["memories"].as_u64(), stats["with_cause"].as_u64(), stats["roots"].as_u64(), stats["deepest_chain"].as_u64()), (Some(3), Some(2), Some(1), Some(2)), "{stats}");
    assert_eq!(stats["by_action_type"]["decision"], 1);

    // A cycle and a missing link end the walk with a note, never a hang.
    home.ok(&["edit", &a, "--caused-by", &c]);
    let chain: Value = serde_json::from_str(&home.ok(&["chain", &c, "--json"])).unwrap();
    assert_eq!(chain["chain"].as_array().unwrap().len(), 3);
    assert!(chain["notes"][0].as_str().unwrap().contains("cycle"), "{chain}");
    home.ok(&["forget", &b]);
    let chain: Value = serde_json::from_str(&home.ok(&["chain", &c, "--json"])).unwrap();
    assert_eq!(chain["chain"][0]["kind"], "missing", "{chain}");
    assert!(chain["notes"][0].as_str().unwrap().contains("no longer exists"));
    let stats: Value = serde_json::from_str(&home.ok(&["causality", "stats", "--all", "--json"])).unwrap();
    assert!(stats["broken_links"].as_u64().unwrap() >= 1, "{stats}");

    // Bad input is refused with the reason.
    for (args, why) in [
        (vec!["add", "x y z w", "--action-type", "lunch"], "unknown action type"),
        (vec!["add", "x y z w", "--caused-by", "01NOSUCHMEMORY"], "no memory or situation"),
        (vec!["edit", c.as_str(), "--caused-by", c.as_str()], "caused by itself"),
        (vec!["add", "x y z w", "--rationale", " "], "empty"),
    ] {
        let out = home.run(&args);
        assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains(why), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
    let out = home.run(&["chain", "01NOSUCHMEMORY"]);
    assert!(!out.status.success());
}

#[test]
fn tiers_and_pruning_to_an_archive_that_restores_exactly() {
    let home = Home::new();
    home.up();
    // A lesson of the user's, written now; two of cairn's own, expired long ago and never of
    // use, one of them linked to the user's.
    let mine = home.ok(&["add", "Keep the staging database read-only", "--project", "shop"]).trim().to_string();
    let old = |id: &str, source: &str| {
        json!({"v": 1, "kind": "memory", "id": id, "project": "shop", "text": format!("Old lesson {id} about the build cache"), "category": "tooling", "source": source,
               "created_at": "2025-01-01T00:00:00.000Z", "updated_at": "2025-01-01T00:00:00.000Z"}).to_string()
    };
    let file = home.path().join("old.jsonl");
    let lines = [old("01OLDCAPTURED0000000000000", "captured"), old("01OLDUSER00000000000000000", "user")];
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    home.ok(&["import", file.to_str().unwrap()]);
    // `status` shows the tiers of the memories it counts, the ones just written included.
    let status = home.status();
    let tiers = status["tiers"].as_object().unwrap();
    assert_eq!(tiers.values().map(|v| v.as_u64().unwrap()).sum::<u64>(), status["memories"].as_u64().unwrap(), "{status}");
    assert_eq!((tiers.get("active").and_then(Value::as_u64), tiers.get("expired").and_then(Value::as_u64)), (Some(1), Some(2)), "{status}");
    home.ok(&["graph", "link", "01OLDCAPTURED0000000000000", &mine, "--strength", "0.8"]);
    let export_before = home.ok(&["export"]);
    let line_of = |export: &str, id: &str| export.lines().find(|l| l.contains(&format!("\"id\":\"{id}\""))).map(str::to_string);
    let captured_line = line_of(&export_before, "01OLDCAPTURED0000000000000").expect("exported");

    // Only cairn's own expired, unproven lesson is due; a dry run moves nothing.
    let dry: Value = serde_json::from_str(&home.ok(&["prune", "--dry-run", "--json"])).unwrap();
    let due: Vec<&str> = dry["archived"].as_array().unwrap().iter().map(|a| a["id"].as_str().unwrap()).collect();
    assert_eq!(due, vec!["01OLDCAPTURED0000000000000"], "{dry}");
    assert_eq!(home.memories().len(), 3);
    let done: Value = serde_json::from_str(&home.ok(&["prune", "--json"])).unwrap();
    assert_eq!(done["archived"].as_array().unwrap().len(), 1);
    assert_eq!(home.memories().len(), 2, "moved out of the store");
    let listed: Value = serde_json::from_str(&home.ok(&["archive", "list", "--json"])).unwrap();
    assert_eq!(listed["entries"][0]["id"], "01OLDCAPTURED0000000000000");
    assert!(listed["entries"][0]["reason"].as_str().unwrap().contains("never proved useful"));

    // Restored: the same export line, the edge back.
    let out = home.ok(&["archive", "restore", "01OLDCAPTURED0000000000000"]);
    assert!(out.contains("with 1 of its 1 edges"), "{out}");
    let export_after = home.ok(&["export"]);
    assert_eq!(line_of(&export_after, "01OLDCAPTURED0000000000000").as_deref(), Some(captured_line.as_str()), "restored exactly");
    assert_eq!(export_after, export_before, "the whole home as it was");
    let listed: Value = serde_json::from_str(&home.ok(&["archive", "list", "--json"])).unwrap();
    assert!(listed["entries"].as_array().unwrap().is_empty());
    let out = home.run(&["archive", "restore", "01OLDCAPTURED0000000000000"]);
    assert!(!out.status.success(), "nothing left to restore");
    let out = home.run(&["archive", "restore", "../../etc/passwd"]);
    assert!(!out.status.success());
    // A file outside the archive, named by a path as the id: not read, not imported, not removed.
    let victim = home.path().join("victim.jsonl");
    let smuggled = captured_line.replace("01OLDCAPTURED0000000000000", "smuggled-1");
    std::fs::write(&victim, format!("{{\"kind\":\"archived\",\"at\":\"2026-01-01T00:00:00Z\",\"reason\":\"x\"}}\n{smuggled}\n")).unwrap();
    for id in [victim.with_extension("").to_str().unwrap().to_string(), "../../victim".to_string(), "../../../victim".to_string()] {
        let out = home.run(&["archive", "restore", &id]);
        assert_eq!(out.status.code(), Some(1), "{id}: {}", String::from_utf8_lossy(&out.stdout));
    }
    assert!(victim.exists(), "a file outside the archive is never removed");
    assert!(!home.memories().iter().any(|m| m["id"] == "smuggled-1"));

    // Tiers: from the last access, or creation; being shown is an access.
    let shown: Value = serde_json::from_str(&home.ok(&["show", "01OLDUSER00000000000000000", "--json"])).unwrap();
    assert_eq!(shown["now"]["tier"], "expired", "{shown}");
    let again: Value = serde_json::from_str(&home.ok(&["show", "01OLDUSER00000000000000000", "--json"])).unwrap();
    assert_eq!(again["now"]["tier"], "active", "shown a moment ago: {again}");
    assert!(again["now"]["access_count"].as_u64().unwrap() >= 1);
    let fresh: Value = serde_json::from_str(&home.ok(&["show", &mine, "--json"])).unwrap();
    assert_eq!(fresh["now"]["tier"], "active");
}

#[test]
fn predictions_say_what_is_likely_next_and_why() {
    let home = Home::new();
    home.up();
    let root = home.ok(&["add", "Deploys go through the release train on Tuesdays", "--project", "shop", "--action-type", "decision"]).trim().to_string();
    let child = home.ok(&["add", "Tag the release before the train leaves", "--project", "shop", "--caused-by", &root]).trim().to_string();
    let lone = home.ok(&["add", "The office plants need water on Fridays", "--project", "shop"]).trim().to_string();
    for _ in 0..3 {
        home.ok(&["show", &root, "--json"]);
    }
    let r: Value = serde_json::from_str(&home.ok(&["predict", "--project", "shop", "--json"])).unwrap();
    assert_eq!(r["learned"], false);
    assert_eq!(r["weights"], json!([0.4, 0.3, 0.3]), "Wake's weights to start");
    let items = r["items"].as_array().unwrap();
    assert_eq!(items.len(), 3, "{r}");
    assert_eq!(items[0]["id"], root.as_str(), "the accessed root of a chain comes first: {r}");
    let reasons: Vec<&str> = items[0]["reasons"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    for want in ["recently_accessed", "moderate_access_frequency", "causal_chain_root", "active_memory_tier"] {
        assert!(reasons.contains(&want), "{want} in {reasons:?}");
    }
    assert_eq!(items[0]["components"].as_array().unwrap().len(), 3);
    assert!(items[0]["next_access"].is_string(), "accessed: a next access is estimated");
    let of = |id: &str| items.iter().find(|i| i["id"] == id).unwrap()["score"].as_f64().unwrap();
    assert!(of(&root) > of(&child) && of(&root) > of(&lone));
    // The text view.
    let text = home.ok(&["predict", "--project", "shop"]);
    assert!(text.contains("causal_chain_root") && text.contains("temporal 0.40"), "{text}");
    // What followed each prediction becomes a sample for the prediction's weights (layer 4).
    home.ok(&["show", &lone, "--json"]);
    home.ok(&["predict", "--project", "shop", "--refresh", "--json"]);
    let w: Value = serde_json::from_str(&home.ok(&["weights", "--prediction", "--project", "shop", "--json"])).unwrap();
    assert_eq!((w["samples"].as_u64(), w["positives"].as_u64()), (Some(3), Some(1)), "{w}");
    let names: Vec<&str> = w["weights"].as_array().unwrap().iter().map(|l| l["signal"].as_str().unwrap()).collect();
    assert_eq!(names, vec!["temporal", "causal", "frequency"]);
    let learned: Value = serde_json::from_str(&home.ok(&["weights", "learn", "--prediction", "--project", "shop", "--json"])).unwrap();
    assert_eq!(learned["learned"], false, "three samples are not enough: {learned}");
    assert!(learned["message"].as_str().unwrap().contains("at least 20"));

    // A session's start refreshes its project's stale predictions, after the answer.
    let dir = home.path().join("web");
    std::fs::create_dir_all(&dir).unwrap();
    let dir = std::fs::canonicalize(&dir).unwrap();
    let id = home.ok(&["add", "Keep the CDN cache keys versioned", "--project", dir.to_str().unwrap()]).trim().to_string();
    home.hook(json!({"session_id": "p1", "cwd": dir, "hook_event_name": "SessionStart", "source": "startup"}).to_string().as_bytes());
    let predicted = eventually(Duration::from_secs(10), || {
        let m: Value = serde_json::from_str(&home.ok(&["list", "--project", dir.to_str().unwrap(), "--json"])).unwrap();
        m.as_array().or(m["memories"].as_array()).into_iter().flatten().any(|m| m["id"] == id.as_str() && m["next"]["last_predicted"].is_string())
    });
    assert!(predicted, "the SessionStart did not refresh the project's predictions");
}
