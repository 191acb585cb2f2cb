//! `cairn mcp` through the MCP protocol itself: a client on the server's stdin and stdout
//! initializes, lists the tools and calls each, as an MCP client such as Claude Code does.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};

use cairn_tests::*;
use serde_json::{json, Value};

/// A line-delimited JSON-RPC client on a running `cairn mcp`.
struct Mcp {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next: u64,
}

impl Mcp {
    fn start(home: &Home, dir: &std::path::Path) -> Mcp {
        let mut child = home.cairn().arg("mcp").current_dir(dir).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().expect("cairn mcp starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut mcp = Mcp { child, stdin, stdout, next: 1 };
        let init = mcp.request("initialize", json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "1"}}));
        assert_eq!(init["result"]["serverInfo"]["name"], "cairn", "{init}");
        writeln!(mcp.stdin, "{}", json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).unwrap();
        mcp
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        writeln!(self.stdin, "{}", json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).unwrap();
        loop {
            let mut line = String::new();
            assert!(self.stdout.read_line(&mut line).unwrap() > 0, "the server closed its output");
            let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON-RPC on stdout ({e}): {line}"));
            if v["id"] == id {
                return v;
            }
        }
    }

    /// A tool's text answer, and whether it is a tool error.
    fn call(&mut self, tool: &str, arguments: Value) -> (String, bool) {
        let r = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        let result = &r["result"];
        assert!(result.is_object(), "{tool}: {r}");
        (result["content"][0]["text"].as_str().unwrap_or("").to_string(), result["isError"] == true)
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn every_tool_answers_with_its_reasons_and_errors_are_tool_errors() {
    let home = Home::new();
    home.up();
    let dir = home.path().join("shop");
    std::fs::create_dir_all(&dir).unwrap();
    let dir = std::fs::canonicalize(&dir).unwrap();
    let mut mcp = Mcp::start(&home, &dir);
    let tools = mcp.request("tools/list", json!({}));
    let names: Vec<&str> = tools["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    for want in [
        "save_context", "load_context", "search_context", "reconstruct_reasoning", "build_causal_chain", "get_causality_stats", "get_cross_project_dependents",
        "get_memory_stats", "recalculate_memory_tiers", "prune_expired_contexts", "update_predictions", "get_high_value_contexts", "get_propagation_stats",
        "get_learning_stats", "advise", "feedback", "graph_link",
    ] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
    assert!(tools["result"]["tools"].as_array().unwrap().iter().all(|t| t["description"].as_str().is_some_and(|d| d.len() > 20) && t["inputSchema"]["type"] == "object"));

    // Save, then each tool about it.
    let (saved, err) = mcp.call("save_context", json!({"text": "Run the migrations on a copy of production first", "category": "database", "action_type": "decision", "rationale": "a migration locked the orders table for an hour"}));
    assert!(!err, "{saved}");
    let saved: Value = serde_json::from_str(&saved).unwrap();
    let id = saved["id"].as_str().unwrap().to_string();
    assert_eq!((saved["project"].as_str(), saved["source"].as_str()), (dir.to_str(), Some("agent")), "the server's folder is the project: {saved}");
    let (child, _) = mcp.call("save_context", json!({"text": "Time the migration on the copy before running it on production", "caused_by": [id]}));
    let child_id = serde_json::from_str::<Value>(&child).unwrap()["id"].as_str().unwrap().to_string();
    for (tool, args, expect) in [
        ("load_context", json!({"id": id}), "Run the migrations"),
        ("search_context", json!({"query": "migrations production copy"}), "\"why\""),
        ("reconstruct_reasoning", json!({"id": id}), "because: a migration locked"),
        ("build_causal_chain", json!({"id": child_id}), &id as &str),
        ("get_causality_stats", json!({}), "\"with_cause\": 1"),
        ("get_cross_project_dependents", json!({"id": id}), &child_id as &str),
        ("get_memory_stats", json!({}), "\"memories\": 2"),
        ("recalculate_memory_tiers", json!({}), "\"active\": 2"),
        ("prune_expired_contexts", json!({"dry_run": true}), "\"dry_run\": true"),
        ("update_predictions", json!({}), "causal_chain_root"),
        ("get_high_value_contexts", json!({"limit": 1}), &id as &str),
        ("get_propagation_stats", json!({}), "\"temporal\""),
        ("get_learning_stats", json!({}), "\"relevance\""),
        ("advise", json!({"text": "run the database migration on production now"}), "\"intent\""),
        ("graph_link", json!({"source": id, "target": child_id, "strength": 0.8}), "manual"),
        ("list_archive", json!({}), "archive"),
    ] {
        let (text, err) = mcp.call(tool, args);
        assert!(!err && text.contains(expect), "{tool}: {text}");
    }
    let (text, err) = mcp.call("feedback", json!({"verb": "not-useful", "memory": child_id}));
    assert!(!err && (text.contains("node_weight") || text.contains("node weight")), "{text}");

    // Errors are tool errors with the daemon's reason.
    let (text, err) = mcp.call("load_context", json!({"id": "01NOSUCHMEMORY"}));
    assert!(err && text.contains("01NOSUCHMEMORY"), "{text}");
    let (text, err) = mcp.call("feedback", json!({"verb": "loved", "memory": id}));
    assert!(err && text.contains("used, not-relevant or not-useful"), "{text}");
    let (text, err) = mcp.call("save_context", json!({"text": "x y z w", "action_type": "lunch"}));
    assert!(err && text.contains("unknown action type"), "{text}");
    let bad = mcp.request("tools/call", json!({"name": "search_context", "arguments": {"limit": 3}}));
    assert!(bad["error"].is_object() || bad["result"]["isError"] == true, "a missing argument is refused: {bad}");
}

#[test]
fn hooks_install_registers_the_server_and_uninstall_takes_it_away() {
    let home = Home::new();
    let user = tempfile::tempdir().unwrap();
    std::fs::write(user.path().join(".claude.json"), r#"{"numStartups": 7, "mcpServers": {"other": {"command": "other-tool"}}}"#).unwrap();
    let run = |args: &[&str]| {
        let out = home.run_in(None, &[("HOME", user.path().as_os_str())], args);
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let said = run(&["hooks", "install", "--user", "--mcp"]);
    assert!(said.contains("registered cairn's MCP server"), "{said}");
    let config: Value = serde_json::from_str(&std::fs::read_to_string(user.path().join(".claude.json")).unwrap()).unwrap();
    assert_eq!(config["mcpServers"]["cairn"]["args"], json!(["mcp"]), "{config}");
    assert_eq!(config["mcpServers"]["cairn"]["command"], cairn_bin().to_str().unwrap());
    assert_eq!((config["numStartups"].as_u64(), &config["mcpServers"]["other"]["command"]), (Some(7), &json!("other-tool")), "the rest kept");
    assert!(run(&["hooks", "install", "--user", "--mcp"]).contains("already registered"));
    run(&["hooks", "uninstall", "--user"]);
    let config: Value = serde_json::from_str(&std::fs::read_to_string(user.path().join(".claude.json")).unwrap()).unwrap();
    assert!(config["mcpServers"].get("cairn").is_none() && config["mcpServers"]["other"].is_object(), "{config}");

    // A file cairn created for the server goes with it.
    let bare = tempfile::tempdir().unwrap();
    let in_bare = |args: &[&str]| home.run_in(None, &[("HOME", bare.path().as_os_str())], args);
    assert!(in_bare(&["hooks", "install", "--user", "--mcp"]).status.success());
    assert!(bare.path().join(".claude.json").is_file());
    assert!(in_bare(&["hooks", "uninstall", "--user"]).status.success());
    let left: Vec<_> = std::fs::read_dir(bare.path()).unwrap().flatten().map(|e| e.file_name()).filter(|n| n.to_string_lossy().starts_with(".claude.json")).collect();
    assert!(left.is_empty(), "nothing of the file cairn made is left: {left:?}");

    // A server file that cannot be read changes nothing: the hooks are not installed either, and
    // uninstall still takes the hooks away.
    let broken = tempfile::tempdir().unwrap();
    std::fs::write(broken.path().join(".claude.json"), "{\"numStartups\": 5,").unwrap();
    let in_broken = |args: &[&str]| home.run_in(None, &[("HOME", broken.path().as_os_str())], args);
    let out = in_broken(&["hooks", "install", "--user", "--mcp"]);
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("cannot parse"), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!broken.path().join(".claude/settings.json").exists(), "no hooks were installed");
    assert!(in_broken(&["hooks", "install", "--user"]).status.success());
    let out = in_broken(&["hooks", "uninstall", "--user"]);
    assert!(!out.status.success(), "the broken server file is still named");
    let settings = std::fs::read_to_string(broken.path().join(".claude/settings.json")).unwrap_or_default();
    assert!(!settings.contains("cairn"), "the hooks were removed: {settings}");
}

/// The official MCP Inspector's CLI, fetched by scripts/test.sh.
fn inspector() -> std::path::PathBuf {
    let bin = std::env::var_os("CAIRN_MCP_INSPECTOR").map(std::path::PathBuf::from).expect("CAIRN_MCP_INSPECTOR is not set: run the tests with scripts/test.sh, which fetches the MCP Inspector");
    assert!(bin.is_file(), "{} is missing: run scripts/test.sh", bin.display());
    bin
}

#[test]
fn the_official_inspector_lists_the_tools_and_calls_each() {
    let home = Home::new();
    home.up();
    let dir = home.path().join("shop");
    std::fs::create_dir_all(&dir).unwrap();
    let dir = std::fs::canonicalize(&dir).unwrap();
    let lesson = home.run_in(Some(&dir), &[], &["add", "Run the migrations on a copy of production first", "--action-type", "decision"]);
    let id = String::from_utf8_lossy(&lesson.stdout).trim().to_string();
    let other = home.run_in(Some(&dir), &[], &["add", "Time the migration on the copy first"]);
    let other = String::from_utf8_lossy(&other.stdout).trim().to_string();
    let run = |args: &[&str]| -> Value {
        let out = std::process::Command::new(inspector())
            .current_dir(&dir)
            .args(["--cli", "-e", &format!("CAIRN_HOME={}", home.path().display()), cairn_bin().to_str().unwrap(), "mcp"])
            .args(args)
            .output()
            .expect("the inspector runs");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "inspector {args:?}: {text}\n{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("inspector {args:?} printed no JSON ({e}): {text}"))
    };
    let tools = run(&["--method", "tools/list"]);
    let names: Vec<String> = tools["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_string()).collect();
    assert!(names.len() >= 17, "{names:?}");
    // Every tool, called with what it needs; each answers (the refusals are tool errors).
    for name in &names {
        let mut args = vec!["--method", "tools/call", "--tool-name", name.as_str()];
        let extra: Vec<String> = match name.as_str() {
            "save_context" => vec!["text=Keep the staging database read-only".into()],
            "search_context" => vec!["query=migrations".into()],
            "load_context" | "reconstruct_reasoning" | "build_causal_chain" | "get_cross_project_dependents" => vec![format!("id={id}")],
            "advise" => vec!["text=run the migration on production".into()],
            "feedback" => vec!["verb=not-useful".into(), format!("memory={id}")],
            "graph_link" => vec![format!("source={id}"), format!("target={other}"), "strength=0.6".into()],
            "prune_expired_contexts" => vec!["dry_run=true".into()],
            _ => vec![],
        };
        if !extra.is_empty() {
            args.push("--tool-arg");
            args.extend(extra.iter().map(String::as_str));
        }
        let r = run(&args);
        let text = r["content"][0]["text"].as_str().unwrap_or("");
        assert!(!text.is_empty() && r["isError"] == false, "{name}: {r}");
    }
}

/// A client that writes its requests and closes its end (a script, a pipe) gets every answer
/// before the server stops, even when the daemon has to start and load its model first.
#[test]
fn requests_written_before_the_input_ends_are_all_answered() {
    model_dir();
    let home = Home::new();
    let mut child = home.cairn().arg("mcp").current_dir(home.path()).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().expect("cairn mcp starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = vec![json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "1"}}}), json!({"jsonrpc": "2.0", "method": "notifications/initialized"})];
    // More than the SDK answers in the five seconds it gives after the end of input.
    let calls = 1500;
    for i in 1..=calls {
        lines.push(json!({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "search_context", "arguments": {"query": format!("git push {i}")}}}));
    }
    for l in &lines {
        writeln!(stdin, "{l}").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let answered: Vec<Value> = String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let ids: std::collections::BTreeSet<u64> = answered.iter().filter(|v| v["result"].is_object()).filter_map(|v| v["id"].as_u64()).collect();
    assert_eq!(ids.len(), calls as usize + 1, "every request answered");
    home.down();
}
