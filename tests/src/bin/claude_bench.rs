//! cairn's cost inside a real Claude Code session (not a test): the same scripted session of 30
//! tool calls (reads, greps, globs, edits, test runs, git) run by the real `claude -p` against the
//! stand-in of the Messages API, without cairn; with cairn's hooks as `hooks install` writes them
//! (10k memories in the home), and with no daemon listening; with the hooks as the release before
//! installed them (before and after every tool call); with a hook that does nothing (`/bin/true`)
//! on the same events and tools, which is what Claude Code itself spends on running a hook; and
//! (`--python`) with a Python hook that only parses its input (the published anchor). Interleaved,
//! so that drift on the machine touches each alike. Reported: the `claude` process's median wall
//! time per variant, and what each adds per tool call (the difference of medians, and the median
//! of each round's difference, over 30).
//!
//! Run: `cargo build --release --bins && CAIRN_CLAUDE=<claude> cargo run --release -p cairn-tests
//! --bin cairn-claude-bench -- [--runs N] [--memories N] [--python]`

use std::time::{Duration, Instant};

use cairn_tests::claude::{claude_version, Claude, Route, Session, Turn};
use cairn_tests::{eventually, median, synthetic_lessons, Home};
use serde_json::{json, Value};

/// Tool calls in the scripted session.
const CALLS: usize = 30;

fn arg(name: &str, default: usize) -> usize {
    cairn_tests::arg(name).and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// A small project for the session to work in.
fn project_files(claude: &Claude<'_>) {
    let p = claude.project();
    std::fs::create_dir_all(p.join("src")).unwrap();
    std::fs::create_dir_all(p.join("tests")).unwrap();
    for (name, text) in [
        ("README.md", "# shop\n\nThe web shop's checkout service.\n"),
        ("src/cart.py", "def subtotal(items):\n    return sum(i.price * i.qty for i in items)\n"),
        ("src/tax.py", "RATE = 0.2\n\ndef tax(amount):\n    return amount * RATE\n"),
        ("src/orders.py", "from cart import subtotal\n\ndef total(items):\n    return subtotal(items)\n"),
        ("src/users.py", "def full_name(u):\n    return u.first + ' ' + u.last\n"),
        ("tests/test_cart.py", "def test_subtotal():\n    assert True\n"),
        ("tests/test_tax.py", "def test_tax():\n    assert True\n"),
        ("run_tests.sh", "#!/bin/sh\nfor t in tests/*.py; do echo \"ok $t\"; done\n"),
    ] {
        std::fs::write(p.join(name), text).unwrap();
    }
}

/// The 30 tool calls: what a short working session does.
fn script(claude: &Claude<'_>) -> Vec<Turn> {
    let p = claude.project();
    let path = |f: &str| p.join(f).display().to_string();
    let read = |f: &str| Turn::tool("Read", json!({"file_path": path(f)}));
    let grep = |pattern: &str| Turn::tool("Grep", json!({"pattern": pattern, "path": p}));
    let edit = |f: &str, old: &str, new: &str| Turn::tool("Edit", json!({"file_path": path(f), "old_string": old, "new_string": new}));
    let mut turns = vec![
        Turn::bash("ls", "List files"),
        Turn::bash("git status", "Show the working tree status"),
        read("README.md"),
        Turn::tool("Glob", json!({"pattern": "**/*.py"})),
        grep("subtotal"),
        read("src/cart.py"),
        read("src/orders.py"),
        grep("RATE"),
        read("src/tax.py"),
        edit("src/tax.py", "RATE = 0.2", "RATE = 0.21"),
        Turn::bash("sh run_tests.sh", "Run the tests"),
        read("tests/test_tax.py"),
        Turn::tool("Glob", json!({"pattern": "tests/*.py"})),
        grep("def test_"),
        read("src/users.py"),
        edit("src/users.py", "u.first + ' ' + u.last", "f\"{u.first} {u.last}\""),
        Turn::bash("sh run_tests.sh", "Run the tests"),
        Turn::bash("git diff --stat", "Show the diff"),
        read("tests/test_cart.py"),
        edit("tests/test_cart.py", "assert True", "assert 1 + 1 == 2"),
        grep("import"),
        Turn::tool("Glob", json!({"pattern": "*.md"})),
        edit("README.md", "checkout service", "checkout and cart service"),
        read("README.md"),
        Turn::bash("sh run_tests.sh", "Run the tests"),
        Turn::bash("git add -A", "Stage the changes"),
        Turn::bash("git -c user.email=t@example.invalid -c user.name=t commit -q -m 'Tax rate and names'", "Commit"),
        Turn::bash("git log --oneline -n 3", "Show recent commits"),
        grep("TODO"),
        Turn::bash("git push --force origin main", "Push the branch"),
    ];
    assert_eq!(turns.len(), CALLS);
    turns.push(Turn::text("Finished."));
    turns
}

const TOOLS: &[&str] = &["Bash", "Read", "Grep", "Glob", "Edit"];

fn session(claude: &Claude<'_>) -> Session {
    project_files(claude);
    let s = claude.run("Raise the tax rate, tidy the names and push", script(claude), TOOLS);
    s.assert_completed("Finished.");
    s
}

/// A session with cairn's hooks as `hooks install` writes them, or (`every_call`) as the
/// release before wrote them: a hook before and after every tool call, advice before the call.
fn cairn_claude(home: &Home, every_call: bool) -> Claude<'_> {
    let claude = Claude::new(home, Route::Settings).quiet();
    if every_call {
        let path = claude.user_home().join(".claude/settings.json");
        let mut settings: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let group = settings["hooks"]["PostToolUseFailure"][0].clone();
        assert_eq!(group["matcher"], "*");
        settings["hooks"]["PreToolUse"] = json!([group.clone()]);
        settings["hooks"]["PostToolUse"] = json!([group]);
        std::fs::write(&path, settings.to_string()).unwrap();
    }
    claude
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    let runs = arg("--runs", 10);
    let memories = arg("--memories", 10_000);
    println!("Claude Code {} in print mode, {CALLS} tool calls a session, {runs} runs of each variant, interleaved", claude_version());

    let home = Home::new();
    home.up();
    let status = |home: &Home| -> Value { serde_json::from_str(&home.ok(&["status", "--json"])).expect("status") };
    eventually(Duration::from_secs(60), || status(&home)["model"] != "loading");
    let mut corpus = synthetic_lessons(memories);
    for lesson in ["Never force-push to main; open a pull request instead", "Run the whole test suite before you commit, not only the tests you changed", "Keep the tax rate in configuration, never as a literal in code"] {
        corpus.push_str(&json!({"text": lesson, "category": "workflow"}).to_string());
        corpus.push('\n');
    }
    let file = home.path().join("bench.jsonl");
    std::fs::write(&file, corpus).unwrap();
    let started = Instant::now();
    let out = home.run_within(&["import", file.to_str().unwrap()], Duration::from_secs(3600));
    assert!(out.status.success(), "import failed: {}", String::from_utf8_lossy(&out.stderr));
    println!("home: {} memories imported in {:.1} s; model {}", memories + 3, started.elapsed().as_secs_f64(), status(&home)["model"]);
    // A second home that never runs a daemon: cairn's hooks with nothing listening.
    let empty = Home::new();
    let python = std::env::args().any(|a| a == "--python");

    // Another hook where cairn's would be, on the same events with the same matchers:
    // `/bin/true` is what Claude Code itself spends on running a hook; a Python script that only
    // parses its input is the published anchor.
    let other_hook = |command: &str, all_tools: bool| {
        let claude = cairn_claude(&home, all_tools);
        let path = claude.user_home().join(".claude/settings.json");
        let mut settings: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for groups in settings["hooks"].as_object_mut().expect("hooks").values_mut() {
            for group in groups.as_array_mut().into_iter().flatten() {
                for hook in group["hooks"].as_array_mut().into_iter().flatten() {
                    hook["command"] = json!(command);
                }
            }
        }
        std::fs::write(&path, settings.to_string()).unwrap();
        session(&claude).elapsed
    };
    let python_hook = "python3 -c 'import json,sys; json.load(sys.stdin)'";
    let names = [
        "without hooks".to_string(),
        "a no-op hook (`/bin/true`) where `hooks install` puts cairn's".to_string(),
        format!("cairn's hooks (`hooks install`), daemon up, {} memories", memories + 3),
        "cairn's hooks (`hooks install`), no daemon".to_string(),
        "a no-op hook (`/bin/true`) before and after every tool call".to_string(),
        format!("cairn's hooks as the release before installed them (before and after every tool call), daemon up, {} memories", memories + 3),
        "a Python hook that parses its input, before and after every tool call".to_string(),
    ];
    let variants = if python { names.len() } else { names.len() - 1 };
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); variants];
    let mut advised = [0usize; 2];
    // One unmeasured session of each kind first: caches warm alike.
    let _ = session(&Claude::new(&home, Route::Without).quiet());
    let _ = session(&cairn_claude(&home, false));
    for i in 0..runs {
        // Rotate the order within each round, so no variant always runs first.
        for k in 0..variants {
            let v = (i + k) % variants;
            let elapsed = match v {
                0 => session(&Claude::new(&home, Route::Without).quiet()).elapsed,
                1 => other_hook("/bin/true", false),
                2 | 5 => {
                    let s = session(&cairn_claude(&home, v == 5));
                    advised[usize::from(v == 5)] += s.cairn_texts().len();
                    s.elapsed
                }
                3 => session(&cairn_claude(&empty, false).with_env("CAIRN_AUTOSTART", "0")).elapsed,
                4 => other_hook("/bin/true", true),
                _ => other_hook(python_hook, true),
            };
            times[v].push(elapsed);
        }
    }
    home.down();
    // Per tool call: the difference of the medians, and the median of each round's difference.
    let per_call = |v: &[Duration], base: &[Duration]| -> (f64, f64) {
        let (mut a, mut b) = (v.to_vec(), base.to_vec());
        let by_medians = (ms(median(&mut a)) - ms(median(&mut b))) / CALLS as f64;
        let mut rounds: Vec<f64> = v.iter().zip(base).map(|(x, y)| (ms(*x) - ms(*y)) / CALLS as f64).collect();
        rounds.sort_by(f64::total_cmp);
        (by_medians, rounds[rounds.len() / 2])
    };
    println!("\n| variant | median session ms | min | max | added per tool call, ms (difference of medians) | (median of round differences) |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    for (v, name) in names.iter().enumerate().take(variants) {
        let mut sorted = times[v].clone();
        let m = ms(median(&mut sorted));
        let (lo, hi) = (ms(*times[v].iter().min().unwrap()), ms(*times[v].iter().max().unwrap()));
        if v == 0 {
            println!("| {name} | {m:.0} | {lo:.0} | {hi:.0} | | |");
        } else {
            let (a, b) = per_call(&times[v], &times[0]);
            println!("| {name} | {m:.0} | {lo:.0} | {hi:.0} | {a:.1} | {b:.1} |");
        }
    }
    println!("\ncairn texts the model was given in the {runs} sessions with cairn: {} (`hooks install`), {} (before and after every call)", advised[0], advised[1]);
}
