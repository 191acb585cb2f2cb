//! Capture over real sessions (not a test): scripted sessions run by the real `claude -p` against
//! the stand-in of the Messages API, with cairn's hooks installed, and what capture kept of
//! them. Most sessions are routine work with nothing worth keeping (reads, edits, greps, commits,
//! and the noise of real work: a grep that finds nothing, `ls` of a folder that is not there, a
//! mistyped program, a flaky check retried); a few hold a correction (a prompt resumed into the
//! same session) or a recovery (a failed call, then a changed one that works). Which lesson
//! each of those should leave is written in the script, before any run: a kept candidate is
//! "useful" when it names what its session's expected lesson names.
//!
//! Reports: events recorded, candidates kept per 100 routine events (a candidate from a routine
//! session is noise), the share of kept candidates that are useful, what the gate turned away,
//! and every kept text.
//!
//! Run: `cargo build --bins && CAIRN_CLAUDE=<claude> CAIRN_MODEL_DIR=<models> cargo run -p
//! cairn-tests --bin cairn-capture-sessions-bench -- [--routine N]`

use std::collections::HashMap;
use std::time::Duration;

use cairn_tests::claude::{Claude, Route, Turn};
use cairn_tests::{arg, eventually, model_dir, Home};
use serde_json::{json, Value};

const TOOLS: &[&str] = &["Bash", "Read", "Write", "Edit", "Grep", "Glob"];

fn write(path: &str, content: &str) -> Turn {
    Turn::tool("Write", json!({"file_path": path, "content": content}))
}

/// One routine session's calls: work on a note, look around, and some noise.
fn routine(i: usize, dir: &str) -> Vec<Turn> {
    let note = format!("{dir}/notes/note-{i}.md");
    let mut turns = vec![
        Turn::bash("git status --short", "Show the working tree"),
        write(&note, &format!("# Note {i}\n\nTODO: expand\n")),
        Turn::tool("Read", json!({"file_path": note})),
        Turn::tool("Edit", json!({"file_path": note, "old_string": "TODO: expand", "new_string": format!("Expanded in session {i}.")})),
        Turn::tool("Grep", json!({"pattern": "Expanded", "path": dir})),
        Turn::tool("Glob", json!({"pattern": "**/*.md", "path": dir})),
        Turn::bash("python3 -c 'print(sum(range(10)))'", "Compute a sum"),
    ];
    // The noise of real work, one kind per session in turn.
    turns.extend(match i % 5 {
        0 => vec![Turn::bash("grep -rn FIXME notes", "Look for FIXMEs"), Turn::bash("grep -rn TODO notes || true", "Look for TODOs")],
        1 => vec![Turn::bash("ls build", "List the build folder"), Turn::bash("ls notes", "List the notes")],
        2 => vec![Turn::bash("gti log --oneline -3", "Show recent commits"), Turn::bash("git log --oneline -3", "Show recent commits")],
        3 => vec![Turn::bash("test -f .flaky || { touch .flaky; exit 1; }", "Run the flaky check"), Turn::bash("test -f .flaky || { touch .flaky; exit 1; }", "Run the flaky check again")],
        _ => vec![Turn::bash("wc -l notes/*.md", "Count lines")],
    });
    turns.push(Turn::bash(&format!("git add -A && git -c user.email=t@example.invalid -c user.name=t commit -qm 'note {i}'"), "Commit"));
    turns.push(Turn::text("Done."));
    turns
}

const REQUESTS: &[&str] = &[
    "Add a note about the parser", "Expand the TODO in the notes", "Tidy up the notes folder", "Write down what we decided about caching",
    "Add a short note on the release", "Check the notes and commit them", "Summarise the open questions", "Note the steps to reproduce the bug",
    "Add a note with the meeting outcome", "Update the notes with the new API names",
];

/// A session that should leave a lesson: the prompt and turns, an optional correction resumed
/// into it, and what the lesson must name.
struct Teaching {
    prompt: &'static str,
    turns: Vec<Turn>,
    correction: Option<(&'static str, Vec<Turn>)>,
    expect: &'static str,
}

fn teachings(dir: &str) -> Vec<Teaching> {
    let done = || Turn::text("Done.");
    vec![
        Teaching {
            prompt: "Run the quick self-check",
            turns: vec![Turn::bash("python -c 'print(1)'", "Run the self-check"), done()],
            correction: Some(("no, use python3 here, not python", vec![Turn::bash("python3 -c 'print(1)'", "Run the self-check"), done()])),
            expect: "python3",
        },
        Teaching {
            prompt: "Add a changelog entry for the notes",
            turns: vec![write(&format!("{dir}/CHANGELOG.md"), "- notes added\n"), done()],
            correction: Some(("from now on, keep the changelog in docs/CHANGES.md, not at the root", vec![write(&format!("{dir}/docs/CHANGES.md"), "- notes added\n"), done()])),
            expect: "docs/CHANGES.md",
        },
        Teaching {
            prompt: "Commit the notes",
            turns: vec![Turn::bash("git add -A && git -c user.email=t@example.invalid -c user.name=t commit -qm notes", "Commit"), done()],
            correction: Some(("always run sh tools/check.sh before committing", vec![write(&format!("{dir}/tools/check.sh"), "echo checked\n"), Turn::bash("sh tools/check.sh", "Check"), done()])),
            expect: "tools/check.sh",
        },
        Teaching {
            prompt: "Fix the typo in the vendored parser notes",
            turns: vec![write(&format!("{dir}/vendor/parser.txt"), "parsre\n"), done()],
            correction: Some(("never edit files under vendor/, put patches in patches/ instead", vec![write(&format!("{dir}/patches/parser.patch"), "-parsre\n+parser\n"), done()])),
            expect: "vendor/",
        },
        Teaching {
            prompt: "Build it",
            turns: vec![write(&format!("{dir}/tools/build.sh"), "echo built\n"), Turn::bash("sh build.sh", "Build"), Turn::bash("sh tools/build.sh", "Build"), done()],
            correction: None,
            expect: "tools/build.sh",
        },
        Teaching {
            prompt: "Lint the scripts",
            turns: vec![write(&format!("{dir}/scripts/lint.py"), "print('lint ok')\n"), Turn::bash("python3 lint.py", "Lint"), Turn::bash("python3 scripts/lint.py", "Lint"), done()],
            correction: None,
            expect: "scripts/lint.py",
        },
        Teaching {
            prompt: "Deploy to staging",
            turns: vec![
                write(&format!("{dir}/tools/deploy.sh"), "[ -n \"$DEPLOY_ENV\" ] || { echo 'DEPLOY_ENV is not set' >&2; exit 2; }\necho deployed\n"),
                Turn::bash("sh tools/deploy.sh", "Deploy"),
                Turn::bash("DEPLOY_ENV=staging sh tools/deploy.sh", "Deploy"),
                done(),
            ],
            correction: None,
            expect: "DEPLOY_ENV",
        },
    ]
}

fn events(claude: &Claude<'_>) -> u64 {
    let out = claude.cairn(&["status", "--json"]);
    serde_json::from_slice::<Value>(&out.stdout).map(|s| s["session_events"].as_u64().unwrap_or(0)).unwrap_or(0)
}

fn main() {
    let routine_n: usize = arg("--routine").and_then(|v| v.parse().ok()).unwrap_or(20);
    model_dir();
    let home = Home::new();
    home.up();
    home.ok(&["search", "warm up"]);
    assert!(eventually(Duration::from_secs(120), || home.status()["model"] == "loaded"), "the model did not load");
    let claude = Claude::new(&home, Route::Settings).quiet();
    let dir = claude.project().to_str().unwrap().to_string();

    // Which session each event count and each expected lesson belongs to.
    let mut routine_sessions = Vec::new();
    let mut routine_events = 0;
    let mut expected: HashMap<String, &'static str> = HashMap::new();
    let teach = teachings(&dir);
    let mut plan: Vec<Option<usize>> = (0..routine_n).map(|_| None).collect();
    // The teaching sessions spread among the routine ones.
    for t in 0..teach.len() {
        plan.insert((t * (routine_n + teach.len())) / teach.len(), Some(t));
    }
    let mut teach: Vec<Option<Teaching>> = teach.into_iter().map(Some).collect();
    let mut r = 0;
    for step in plan {
        let before = events(&claude);
        match step {
            None => {
                let s = claude.run(REQUESTS[r % REQUESTS.len()], routine(r, &dir), TOOLS);
                s.assert_completed("Done.");
                routine_sessions.push(s.result["session_id"].as_str().unwrap_or_default().to_string());
                r += 1;
                std::thread::sleep(Duration::from_millis(300));
                routine_events += events(&claude) - before;
            }
            Some(t) => {
                let t = teach[t].take().unwrap();
                let s = claude.run(t.prompt, t.turns, TOOLS);
                s.assert_completed("Done.");
                let id = s.result["session_id"].as_str().unwrap_or_default().to_string();
                expected.insert(id.clone(), t.expect);
                if let Some((prompt, turns)) = t.correction {
                    let s = claude.resume(&id, prompt, turns, TOOLS);
                    s.assert_completed("Done.");
                    if let Some(other) = s.result["session_id"].as_str().filter(|o| *o != id) {
                        expected.insert(other.to_string(), t.expect);
                    }
                }
            }
        }
    }
    // Capture runs after the answers: let it finish.
    std::thread::sleep(Duration::from_secs(3));
    let total = events(&claude);
    let list: Value = serde_json::from_slice(&claude.cairn(&["review", "--all", "--json"]).stdout).unwrap();
    let status: Value = serde_json::from_slice(&claude.cairn(&["status", "--json"]).stdout).unwrap();
    let (mut from_routine, mut useful, mut kept) = (0, 0, 0);
    println!("kept candidates:");
    for c in list["candidates"].as_array().unwrap() {
        kept += 1;
        let id = c["id"].as_str().unwrap();
        let shown: Value = serde_json::from_slice(&claude.cairn(&["show", id, "--json"]).stdout).unwrap();
        let sessions: Vec<String> = shown["capture"]["evidence"].as_array().into_iter().flatten().filter_map(|e| e["session"].as_str().map(str::to_string)).collect();
        let text = c["text"].as_str().unwrap();
        let routine = sessions.iter().any(|s| routine_sessions.contains(s));
        let good = sessions.iter().filter_map(|s| expected.get(s)).any(|want| text.contains(want));
        from_routine += usize::from(routine);
        useful += usize::from(good);
        println!("  [{}] {} ({}, {})", if good { "useful" } else { "not useful" }, text, c["source"].as_str().unwrap_or(""), if routine { "routine session" } else { "teaching session" });
    }
    let teachings_n = expected.values().collect::<std::collections::HashSet<_>>().len();
    let found = expected.values().collect::<std::collections::HashSet<_>>().into_iter().filter(|want| list["candidates"].as_array().unwrap().iter().any(|c| c["text"].as_str().unwrap_or("").contains(**want))).count();
    home.down();
    println!("sessions: {} routine, {teachings_n} teaching; events: {total} ({routine_events} in routine sessions)", routine_sessions.len());
    println!("kept: {kept}; from routine sessions: {from_routine} ({:.2} per 100 routine events)", from_routine as f64 * 100.0 / routine_events.max(1) as f64);
    println!("useful among kept: {useful} of {kept} ({:.2})", useful as f64 / kept.max(1) as f64);
    println!("expected lessons found: {found} of {teachings_n}");
    println!("turned away by the gate or as evidence: {}", status["capture"]["turned_away"]);
}
