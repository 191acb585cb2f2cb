//! `cairn advise`: the advice before formatting, its JSON shape, and project scoping.

use cairn_tests::*;
use serde_json::{json, Value};

#[test]
fn advise_json_shape_and_scope() {
    let home = Home::new();
    home.up();
    let global = home.ok(&["add", "Never force-push to main; open a pull request instead", "--global", "--category", "git"]);
    let alpha = home.ok(&["add", "In alpha, deploy with the blue green script, never by hand", "--project", "alpha", "--category", "deployment"]);

    let v: Value = serde_json::from_str(&home.ok(&["advise", "--json", "--project", "alpha", "git", "push", "--force", "origin", "main"])).unwrap();
    assert_eq!(v["project"], "alpha");
    assert!(v["intent"].as_str().unwrap().contains("push"));
    let advice = v["advice"].as_array().unwrap();
    assert_eq!(advice.len(), 1, "{v}");
    let item = &advice[0];
    assert_eq!(item["id"], global.trim());
    for key in ["id", "text", "category", "score", "why", "signals"] {
        assert!(item.get(key).is_some(), "advice item lacks {key}");
    }
    assert!(item["why"].as_str().unwrap().contains("push"));
    assert!(item["signals"]["relevance"].as_f64().unwrap() > 0.0);

    // Project memories stay in their project.
    let deploy = |project: &str| -> Value { serde_json::from_str(&home.ok(&["advise", "--json", "--project", project, "deploy the blue green release"])).unwrap() };
    assert_eq!(deploy("alpha")["advice"][0]["id"], alpha.trim());
    assert!(deploy("beta")["advice"].as_array().unwrap().is_empty(), "alpha's lesson leaks into beta");

    // Nothing relevant: an empty answer is a good answer.
    let quiet: Value = serde_json::from_str(&home.ok(&["advise", "--json", "what", "is", "2+2"])).unwrap();
    assert!(quiet["advice"].as_array().unwrap().is_empty());

    // A hook payload: the project comes from its cwd, the intent from its tool input.
    let payload = home.path().join("payload.json");
    std::fs::write(&payload, json!({"hook_event_name": "PreToolUse", "cwd": "/somewhere/else", "tool_name": "Bash",
        "tool_input": {"command": "git push -f origin main", "description": "force push"}}).to_string()).unwrap();
    let v: Value = serde_json::from_str(&home.ok(&["advise", "--json", "--hook-input", payload.to_str().unwrap()])).unwrap();
    assert_eq!(v["project"], "/somewhere/else");
    assert_eq!(v["advice"][0]["id"], global.trim());
    assert!(v["advice"].as_array().unwrap().len() <= 2, "a tool call gets at most 2 items");

    // A tool call's result is advised on as the call is (the hook `hooks install` wires).
    let post = home.path().join("post.json");
    std::fs::write(&post, json!({"hook_event_name": "PostToolUseFailure", "cwd": "/somewhere/else", "tool_name": "Bash",
        "tool_input": {"command": "git push -f origin main", "description": "force push"}, "error": "Exit code 1"}).to_string()).unwrap();
    let v: Value = serde_json::from_str(&home.ok(&["advise", "--json", "--hook-input", post.to_str().unwrap()])).unwrap();
    assert_eq!(v["advice"][0]["id"], global.trim(), "{v}");
    // Events that carry no advice in Claude Code get none from advise either.
    let stop = home.path().join("stop.json");
    std::fs::write(&stop, json!({"hook_event_name": "Stop", "cwd": "/somewhere/else"}).to_string()).unwrap();
    let v: Value = serde_json::from_str(&home.ok(&["advise", "--json", "--hook-input", stop.to_str().unwrap()])).unwrap();
    assert!(v["advice"].as_array().unwrap().is_empty(), "{v}");

    // A dry run records nothing and ignores cooldowns; a session applies them.
    let events = home.status()["session_events"].as_u64().unwrap();
    let args = ["advise", "--json", "--session", "s1", "git", "push", "--force", "origin", "main"];
    let first: Value = serde_json::from_str(&home.ok(&args)).unwrap();
    let second: Value = serde_json::from_str(&home.ok(&args)).unwrap();
    assert_eq!(first["advice"].as_array().unwrap().len(), 1);
    assert!(second["advice"].as_array().unwrap().is_empty(), "cooldown within the session");
    assert_eq!(home.status()["session_events"].as_u64().unwrap(), events + 2);

    // Bad usage exits 2.
    assert_eq!(home.run(&["advise"]).status.code(), Some(2));
    // A limit of nothing is no question: refused, not answered "no advice".
    assert_eq!(home.run(&["advise", "--limit", "0", "force push to main"]).status.code(), Some(2));
    home.down();
}
