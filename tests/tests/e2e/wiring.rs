//! Wiring into Claude Code and the system: settings.json install/uninstall, the plugin, service
//! files, live config, per-project pause, logs and doctor.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use cairn_tests::*;
use serde_json::{json, Value};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn user_home(home: &Home) -> PathBuf {
    let dir = home.path().join("user");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn cairn_as_user(home: &Home, dir: Option<&Path>, args: &[&str]) -> std::process::Output {
    let user = user_home(home);
    home.run_in(dir, &[("HOME", user.as_os_str()), ("XDG_CONFIG_HOME", user.join(".config").as_os_str())], args)
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn hooks_install_uninstall_round_trip() {
    let home = Home::new();
    let settings = user_home(&home).join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let original = json!({
        "model": "opus",
        "permissions": {"allow": ["Bash(ls:*)"], "deny": []},
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/guard.sh", "timeout": 30}]}],
            "Notification": [{"hooks": [{"type": "command", "command": "notify-send 'Claude needs you'"}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "afplay done.wav"}]}]
        },
        "statusLine": {"type": "command", "command": "starship prompt"}
    });
    // Compact formatting, so "equal apart from formatting" is really tested.
    std::fs::write(&settings, original.to_string()).unwrap();

    let out = cairn_as_user(&home, None, &["hooks", "install"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let installed: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    let cairn = std::fs::canonicalize(cairn_bin()).unwrap();
    for event in ["PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "SessionStart", "Stop", "SessionEnd"] {
        let groups = installed["hooks"][event].as_array().unwrap_or_else(|| panic!("{event} missing"));
        let ours = groups.last().unwrap()["hooks"][0].clone();
        // The home is not the default one: the command names it, so the hook reaches it.
        assert_eq!(ours["command"], format!("CAIRN_HOME={} {} hook", home.path().display(), cairn.display()), "{event}: the home, the absolute path, then `hook`");
        assert!(ours["timeout"].as_u64().unwrap() * 1000 > 200, "{event}: a timeout in seconds that covers the hook's 200 ms deadline");
    }
    assert_eq!(installed["hooks"]["PreToolUse"], original["hooks"]["PreToolUse"], "no hook before the call without `--interrupts`; the user's stays");
    let keys: Vec<&String> = installed.as_object().unwrap().keys().collect();
    assert_eq!(keys, vec!["model", "permissions", "hooks", "statusLine"], "key order kept");
    let backups: Vec<_> = std::fs::read_dir(settings.parent().unwrap()).unwrap().filter_map(|e| e.ok()).filter(|e| e.file_name().to_string_lossy().contains("cairn-backup")).collect();
    assert_eq!(backups.len(), 1, "a timestamped backup beside the file, before the change");
    let backup: Value = serde_json::from_str(&std::fs::read_to_string(backups[0].path()).unwrap()).unwrap();
    assert_eq!(backup, original);

    // Twice changes nothing.
    let before = std::fs::read(&settings).unwrap();
    let out = cairn_as_user(&home, None, &["hooks", "install", "--user"]);
    assert!(stdout(&out).contains("already installed"), "{}", stdout(&out));
    assert_eq!(std::fs::read(&settings).unwrap(), before);

    let out = cairn_as_user(&home, None, &["hooks", "status"]);
    assert!(stdout(&out).contains("cairn hooks for 6 events") && stdout(&out).contains("interrupts: off"), "{}", stdout(&out));

    // With interrupts: a hook before shell commands, after the user's own.
    let out = cairn_as_user(&home, None, &["hooks", "install", "--interrupts"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let with: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(with["hooks"]["PreToolUse"][0], original["hooks"]["PreToolUse"][0], "the user's hook stays first");
    assert_eq!(with["hooks"]["PreToolUse"][1]["matcher"], "^Bash$");
    assert_eq!(with["hooks"]["PreToolUse"][1]["hooks"][0]["command"], format!("CAIRN_HOME={} {} hook", home.path().display(), cairn.display()));
    let out = cairn_as_user(&home, None, &["hooks", "status"]);
    assert!(stdout(&out).contains("cairn hooks for 7 events") && stdout(&out).contains("interrupts: a hook runs"), "{}", stdout(&out));

    let out = cairn_as_user(&home, None, &["hooks", "uninstall"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let after: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(after, original, "uninstall removes exactly what install added");
}

#[test]
fn a_second_install_with_interrupts_is_taken_away_whole() {
    let home = Home::new();
    let settings = user_home(&home).join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let original = json!({"model": "opus"});
    std::fs::write(&settings, original.to_string()).unwrap();
    for args in [&["hooks", "install"][..], &["hooks", "install", "--interrupts"], &["hooks", "uninstall"]] {
        let out = cairn_as_user(&home, None, args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    }
    let after: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(after, original, "the PreToolUse container the second install made goes too");
    // An earlier release's wiring (a hook before every call) is named, and brought up to date.
    let old = json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": format!("{} hook", cairn_bin().display())}]}]}});
    std::fs::write(&settings, old.to_string()).unwrap();
    assert!(stdout(&cairn_as_user(&home, None, &["hooks", "status"])).contains("an earlier release's wiring"));
    assert!(cairn_as_user(&home, None, &["hooks", "install"]).status.success());
    let now: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert!(now["hooks"]["PreToolUse"].as_array().is_none_or(|g| g.is_empty()), "{now}");
}

#[test]
fn unparseable_settings_are_refused_untouched() {
    let home = Home::new();
    let settings = user_home(&home).join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let broken = b"{\n  \"model\": \"opus\",\n  \"hooks\": {\n}\n";
    std::fs::write(&settings, broken).unwrap();
    for action in ["install", "uninstall"] {
        let out = cairn_as_user(&home, None, &["hooks", action]);
        assert_eq!(out.status.code(), Some(1), "{action}");
        assert!(stderr(&out).contains("cannot parse") && stderr(&out).contains("line"), "{}", stderr(&out));
        assert_eq!(std::fs::read(&settings).unwrap(), broken, "{action} left the file as it was");
    }
    let listing: Vec<_> = std::fs::read_dir(settings.parent().unwrap()).unwrap().collect();
    assert_eq!(listing.len(), 1, "no backup or temp file left behind");
}

#[test]
fn project_hooks_go_to_the_project_root() {
    let home = Home::new();
    let repo = home.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(repo.join("src/deep")).unwrap();
    let out = cairn_as_user(&home, Some(&repo.join("src/deep")), &["hooks", "install", "--project"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let settings: Value = serde_json::from_str(&std::fs::read_to_string(repo.join(".claude/settings.json")).unwrap()).unwrap();
    assert_eq!(settings["hooks"].as_object().unwrap().len(), 6);
    let out = cairn_as_user(&home, Some(&repo), &["hooks", "uninstall", "--project"]);
    assert!(out.status.success());
    assert!(!repo.join(".claude").exists(), "the file and folder cairn created are gone again");

    // A linked worktree is its own checkout: its hooks go to its own .claude/.
    let wt = home.path().join("wt");
    std::fs::create_dir_all(repo.join(".git/worktrees/wt")).unwrap();
    std::fs::create_dir_all(&wt).unwrap();
    std::fs::write(wt.join(".git"), format!("gitdir: {}\n", repo.join(".git/worktrees/wt").display())).unwrap();
    std::fs::write(repo.join(".git/worktrees/wt/commondir"), "../..\n").unwrap();
    assert!(cairn_as_user(&home, Some(&wt), &["hooks", "install", "--project"]).status.success());
    assert!(wt.join(".claude/settings.json").exists() && !repo.join(".claude").exists());
}

#[test]
fn symlinked_home_and_dangling_dotfile_links() {
    let home = Home::new();
    let real_home = user_home(&home);
    let linked_home = home.path().join("linked-home");
    std::os::unix::fs::symlink(&real_home, &linked_home).unwrap();
    let as_linked = |args: &[&str]| home.run_in(None, &[("HOME", linked_home.as_os_str())], args);

    // Reached through a symlinked HOME, install and uninstall agree on the file and its record.
    assert!(as_linked(&["hooks", "install"]).status.success());
    assert!(real_home.join(".claude/settings.json").exists());
    assert!(as_linked(&["hooks", "uninstall"]).status.success());
    assert!(!real_home.join(".claude").exists(), "nothing left: {:?}", std::fs::read_dir(&real_home).unwrap().collect::<Vec<_>>());

    // A dotfile link whose target does not exist yet: the target is created, the link stays.
    let dotfiles = home.path().join("dots");
    std::fs::create_dir_all(&dotfiles).unwrap();
    std::fs::create_dir_all(real_home.join(".claude")).unwrap();
    std::os::unix::fs::symlink(dotfiles.join("settings.json"), real_home.join(".claude/settings.json")).unwrap();
    assert!(as_linked(&["hooks", "install"]).status.success());
    assert!(std::fs::symlink_metadata(real_home.join(".claude/settings.json")).unwrap().file_type().is_symlink());
    let written: Value = serde_json::from_str(&std::fs::read_to_string(dotfiles.join("settings.json")).unwrap()).unwrap();
    assert_eq!(written["hooks"].as_object().unwrap().len(), 6);
}

#[test]
fn users_own_entries_empty_containers_and_symlinks() {
    let home = Home::new();
    let user = user_home(&home);
    // A dotfile manager's symlink: the edit goes to the real file, the link stays a link.
    let dotfiles = home.path().join("dotfiles");
    std::fs::create_dir_all(&dotfiles).unwrap();
    std::fs::create_dir_all(user.join(".claude")).unwrap();
    let real = dotfiles.join("claude-settings.json");
    let link = user.join(".claude/settings.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let cmd = format!("{} hook", cairn_bin().display());
    let original = json!({
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": cmd}]}],
            "Stop": []
        },
        "env": {}
    });
    std::fs::write(&real, original.to_string()).unwrap();
    assert!(cairn_as_user(&home, None, &["hooks", "install"]).status.success());
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "still a symlink");
    let installed: Value = serde_json::from_str(&std::fs::read_to_string(&real).unwrap()).unwrap();
    assert_eq!(installed["hooks"]["PreToolUse"][0], original["hooks"]["PreToolUse"][0], "the user's own cairn entry is untouched");
    assert_eq!(installed["hooks"]["PreToolUse"].as_array().unwrap().len(), 1, "no group of cairn's before the call");
    assert_eq!(installed["hooks"]["PostToolUse"].as_array().unwrap().len(), 1);
    assert!(cairn_as_user(&home, None, &["hooks", "uninstall"]).status.success());
    let after: Value = serde_json::from_str(&std::fs::read_to_string(&real).unwrap()).unwrap();
    assert_eq!(after, original, "the user's entry and the empty list both stay");
}

#[test]
fn plugin_ships_the_same_wiring() {
    let root = repo_root();
    let manifest: Value = serde_json::from_str(&std::fs::read_to_string(root.join("hooks/.claude-plugin/plugin.json")).unwrap()).unwrap();
    assert_eq!(manifest["name"], "cairn");
    assert_eq!(manifest["hooks"], "./hooks.json");
    let hooks: Value = serde_json::from_str(&std::fs::read_to_string(root.join("hooks/hooks.json")).unwrap()).unwrap();
    // What `hooks install` writes, to compare the matchers with.
    let home = Home::new();
    assert!(cairn_as_user(&home, None, &["hooks", "install"]).status.success());
    let installed: Value = serde_json::from_str(&std::fs::read_to_string(user_home(&home).join(".claude/settings.json")).unwrap()).unwrap();
    let events = |v: &Value| v["hooks"].as_object().unwrap().iter().filter(|(_, groups)| groups.as_array().is_some_and(|g| !g.is_empty())).map(|(e, _)| e.clone()).collect::<std::collections::BTreeSet<String>>();
    assert_eq!(events(&hooks), events(&installed), "the plugin and `hooks install` wire the same events");
    assert!(!events(&hooks).contains("PreToolUse"), "advice comes with a tool's result; a hook before the call is only for interrupts");
    for event in events(&hooks) {
        let event = event.as_str();
        let command = hooks["hooks"][event][0]["hooks"][0]["command"].as_str().unwrap_or_else(|| panic!("{event}"));
        assert_eq!(command, "\"${CLAUDE_PLUGIN_ROOT}/cairn-hook\"", "{event}");
        let plugin_group = hooks["hooks"][event][0].clone();
        assert_eq!(plugin_group.get("matcher"), installed["hooks"][event][0].get("matcher"), "{event}: same matcher as `hooks install`");
        assert!(plugin_group["hooks"][0]["timeout"].as_u64().unwrap() >= 1);
    }
    let post = installed["hooks"]["PostToolUse"][0]["matcher"].as_str().unwrap();
    assert!(post.starts_with("^(?!(Read|Grep|Glob|"), "look-arounds left out: {post}");
    let marketplace: Value = serde_json::from_str(&std::fs::read_to_string(root.join(".claude-plugin/marketplace.json")).unwrap()).unwrap();
    assert_eq!(marketplace["plugins"][0]["source"], "./hooks", "the plugin is hooks/, not the whole checkout");
    let plugin_root = root.join("hooks");

    // The plugin's script runs the real hook, and stays silent without one.
    let home = Home::new();
    home.up();
    home.ok(&["add", "Never force-push to main; open a pull request instead", "--global"]);
    let payload = json!({"session_id": "plug", "cwd": "/tmp", "hook_event_name": "PreToolUse", "tool_name": "Bash",
                         "tool_input": {"command": "git push --force origin main"}});
    let run = |bin: &OsStr| {
        let mut child = std::process::Command::new(plugin_root.join("cairn-hook"))
            .env("CAIRN_HOME", home.path())
            .env("CAIRN_BIN", bin)
            .env("CLAUDE_PLUGIN_ROOT", &plugin_root)
            .env("CAIRN_HOOK_DEADLINE_MS", "5000")
            .env("HOME", home.path())
            .env("PATH", "/usr/bin:/bin")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child.stdin.take().unwrap().write_all(payload.to_string().as_bytes()).unwrap();
        wait_output(child, Duration::from_secs(10))
    };
    let v = assert_hook_contract(&run(cairn_bin().as_os_str())).expect("advice through the plugin");
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    let quiet = run(OsStr::new("/nonexistent/cairn"));
    assert!(assert_hook_contract(&quiet).is_none(), "no cairn anywhere: exit 0, no output");
    home.down();
}

#[test]
fn service_files() {
    let home = Home::new();
    let out = cairn_as_user(&home, None, &["service", "install", "--kind", "systemd"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("systemctl --user enable --now cairnd.service"), "says the one command: {}", stdout(&out));
    let unit_path = user_home(&home).join(".config/systemd/user/cairnd.service");
    let unit = std::fs::read_to_string(&unit_path).unwrap();
    let daemon = cairnd_bin();
    assert!(unit.contains(&format!("ExecStart=\"{}\"", daemon.display())), "{unit}");
    assert!(unit.contains("Restart=on-failure"));
    assert!(unit.contains(&format!("Environment=\"CAIRN_HOME={}\"", home.path().display())), "the service uses the same home");
    assert!(unit.contains("WantedBy=default.target"));
    if let Ok(analyze) = which_systemd_analyze() {
        let out = std::process::Command::new(analyze).arg("verify").arg(&unit_path).output().unwrap();
        assert!(out.status.success(), "systemd-analyze rejects the unit: {}", String::from_utf8_lossy(&out.stderr));
    }
    assert!(stdout(&cairn_as_user(&home, None, &["service", "status", "--kind", "systemd"])).contains("installed"));
    let out = cairn_as_user(&home, None, &["service", "uninstall", "--kind", "systemd"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!unit_path.exists(), "uninstall removes the unit");

    let out = cairn_as_user(&home, None, &["service", "install", "--kind", "launchd"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("launchctl bootstrap gui/"));
    let plist = user_home(&home).join("Library/LaunchAgents/dev.cairn.cairnd.plist");
    let text = std::fs::read_to_string(&plist).unwrap();
    assert!(text.contains(&format!("<string>{}</string>", daemon.display())));
    assert!(text.contains("<key>KeepAlive</key>"));
    if let Ok(out) = std::process::Command::new("python3").args(["-c", "import plistlib,sys; d=plistlib.load(open(sys.argv[1],'rb')); print(d['Label'], d['ProgramArguments'][0], d['EnvironmentVariables']['CAIRN_HOME'])"]).arg(&plist).output()
        && out.status.success() {
            let printed = String::from_utf8_lossy(&out.stdout);
            assert!(printed.contains("dev.cairn.cairnd") && printed.contains(&daemon.display().to_string()), "{printed}");
        }
    assert!(cairn_as_user(&home, None, &["service", "uninstall", "--kind", "launchd"]).status.success());
    assert!(!plist.exists());
}

fn which_systemd_analyze() -> Result<PathBuf, ()> {
    ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].iter().map(PathBuf::from).find(|p| p.exists()).ok_or(())
}

fn advice_count(home: &Home) -> usize {
    // Words, not a `git push --force` command line: that would fire the force_push trigger,
    // which no relevance threshold holds back.
    // Not every word is in the lesson, so its relevance (about 0.8) sits between the strict
    // settings below and the test's baseline.
    let v: Value = serde_json::from_str(&home.ok(&["advise", "--json", "--global", "force", "push", "my", "feature", "branch", "to", "main", "today"])).unwrap();
    v["advice"].as_array().unwrap().len()
}

#[test]
fn live_config_changes_and_broken_files() {
    let home = Home::new();
    home.up();
    home.ok(&["add", "Never force-push to main; open a pull request instead", "--global", "--category", "git"]);
    // The test's own baseline, a decision bar the lesson clears (its score, about 0.79 without
    // the model, sits just under the default bar): what is tested is how settings change.
    let tuneables = home.path().join("config/tuneables.json");
    let baseline = r#"{"ranking": {"min_fusion_score": 0.6}}"#;
    std::fs::write(&tuneables, baseline).unwrap();
    assert!(eventually(Duration::from_secs(10), || advice_count(&home) == 1), "the baseline applies");

    // A change takes effect without a restart.
    std::fs::write(&tuneables, "// stricter\n{\"ranking\": {\"min_similarity\": 0.99, \"min_fusion_score\": 0.6}}\n").unwrap();
    assert!(eventually(Duration::from_secs(10), || advice_count(&home) == 0), "live change applied");
    let shown: Value = serde_json::from_str(&home.ok(&["config", "show", "--json"])).unwrap();
    let setting = shown["settings"].as_array().unwrap().iter().find(|s| s["key"] == "ranking.min_similarity").unwrap().clone();
    assert_eq!(setting["value"], 0.99);
    assert_eq!(setting["source"], "tuneables.json");
    let default = shown["settings"].as_array().unwrap().iter().find(|s| s["key"] == "advice.cooldown_s").unwrap().clone();
    assert_eq!(default["source"], "default");

    // A broken file keeps the last good settings, and says where it is broken.
    // (Were it read in part, its gate of 0.2 with the baseline's bar would let the lesson through.)
    std::fs::write(&tuneables, "{\n  \"ranking\": {\"min_fusion_score\": 0.6, \"min_similarity\": 0.2,}\n").unwrap();
    assert!(eventually(Duration::from_secs(10), || home.status()["config"].as_str().unwrap().contains("line 2")), "{}", home.status());
    assert_eq!(advice_count(&home), 0, "the last good (strict) settings stay in force");
    let shown: Value = serde_json::from_str(&home.ok(&["config", "show", "--json"])).unwrap();
    let setting = shown["settings"].as_array().unwrap().iter().find(|s| s["key"] == "ranking.min_similarity").unwrap().clone();
    assert_eq!(setting["value"], 0.99, "the last good file's value, not the default");
    let out = home.run(&["doctor"]);
    assert!(stdout(&out).contains("FAIL  config") && stdout(&out).contains("line 2"), "{}", stdout(&out));

    // So does a broken rules file.
    let rules = home.path().join("config/trigger_rules.yaml");
    std::fs::write(&rules, "rules:\n  - name: force\n    pattern: 'git push.*--force'\n    surface: [category:git]\n    priority: critical\n").unwrap();
    assert!(eventually(Duration::from_secs(10), || home.ok(&["config", "show"]).contains("rule force (critical)")));
    std::fs::write(&rules, "rules:\n  - name: force\n    pattern: '(unclosed'\n").unwrap();
    assert!(eventually(Duration::from_secs(10), || home.status()["config"].as_str().unwrap().contains("trigger_rules.yaml: line 2")), "{}", home.status());
    assert!(home.ok(&["config", "show"]).contains("rule force (critical)"), "the old rules stay");

    // Fixed files are picked up again.
    std::fs::write(&tuneables, baseline).unwrap();
    std::fs::write(&rules, "rules: []\n").unwrap();
    assert!(eventually(Duration::from_secs(10), || home.status()["config"] == "ok"));
    assert_eq!(advice_count(&home), 1);

    // Saved the way editors do it: a new file renamed over the old one.
    let tmp = home.path().join("config/.tuneables.json.swp");
    std::fs::write(&tmp, r#"{"ranking": {"min_similarity": 0.98}}"#).unwrap();
    std::fs::rename(&tmp, &tuneables).unwrap();
    assert!(eventually(Duration::from_secs(10), || advice_count(&home) == 0), "rename-style save applied");

    // The config folder deleted and made again: later edits still count.
    std::fs::remove_dir_all(home.path().join("config")).unwrap();
    std::fs::create_dir_all(home.path().join("config")).unwrap();
    std::thread::sleep(Duration::from_millis(400));
    std::fs::write(&tuneables, baseline).unwrap();
    assert!(eventually(Duration::from_secs(10), || advice_count(&home) == 1), "edits after the folder came back apply");

    // A symlinked config file: a change at its target counts.
    let target = home.path().join("my-tuneables.json");
    std::fs::write(&target, baseline).unwrap();
    std::fs::remove_file(&tuneables).unwrap();
    std::os::unix::fs::symlink(&target, &tuneables).unwrap();
    std::thread::sleep(Duration::from_millis(400));
    // (Written under the key's former name, Spark's `semantic` block: read, and reported renamed.)
    std::fs::write(&target, r#"{"semantic": {"min_similarity": 0.97}}"#).unwrap();
    assert!(eventually(Duration::from_secs(10), || advice_count(&home) == 0), "a change at the symlink's target applies");
    assert_eq!(home.status()["renamed_config_keys"], serde_json::json!(["semantic.min_similarity is now ranking.min_similarity"]));
    let shown: Value = serde_json::from_str(&home.ok(&["config", "show", "--json"])).unwrap();
    assert_eq!(shown["renamed_keys"], serde_json::json!(["semantic.min_similarity is now ranking.min_similarity"]));
    assert_eq!(shown["settings"].as_array().unwrap().iter().find(|s| s["key"] == "ranking.min_similarity").unwrap()["source"], "tuneables.json");
    assert!(stdout(&home.run(&["doctor"])).contains("renamed keys: semantic.min_similarity is now ranking.min_similarity"));
    std::fs::write(&target, baseline).unwrap();
    assert!(eventually(Duration::from_secs(10), || advice_count(&home) == 1));

    // config init writes commented files that parse, and keeps existing ones.
    std::fs::remove_file(&tuneables).unwrap();
    let out = home.ok(&["config", "init"]);
    assert!(out.contains(&format!("wrote {}", tuneables.display())), "{out}");
    let again = home.ok(&["config", "init"]);
    assert_eq!(again.matches("kept").count(), 2, "existing files are kept: {again}");
    assert!(std::fs::read_to_string(&tuneables).unwrap().contains("// "));
    assert!(eventually(Duration::from_secs(10), || home.status()["config"] == "ok"));
    home.down();
}

#[test]
fn paused_project_gets_nothing_and_records_nothing() {
    let home = Home::new();
    home.up();
    home.ok(&["add", "Never force-push to main; open a pull request instead", "--global"]);
    let project = home.path().join("work");
    std::fs::create_dir_all(&project).unwrap();
    let project = std::fs::canonicalize(project).unwrap();
    let event = |session: &str| {
        json!({"session_id": session, "cwd": project, "hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": "git push --force origin main"}}).to_string()
    };
    let out = home.run_in(Some(&project), &[], &["pause"]);
    assert!(stdout(&out).contains(&format!("paused {}", project.display())), "{}", stdout(&out));
    let events = home.status()["session_events"].as_u64().unwrap();
    assert!(assert_hook_contract(&home.hook(event("a").as_bytes())).is_none(), "no advice while paused");
    assert_eq!(home.status()["session_events"].as_u64().unwrap(), events, "nothing recorded while paused");
    assert_eq!(home.status()["paused"], json!([project.display().to_string()]));

    // `--project` written as a path means that folder's project, as events name it.
    home.ok(&["resume", "--project", project.to_str().unwrap()]);
    let out = home.run_in(Some(&project), &[], &["pause", "--project", "."]);
    assert!(stdout(&out).contains(&format!("paused {}", project.display())), "{}", stdout(&out));
    assert!(assert_hook_contract(&home.hook(event("a2").as_bytes())).is_none());
    assert_eq!(home.run(&["pause", "--global"]).status.code(), Some(2), "global is not where events come from");
    // A path to no folder is taken as written, with a note, not as the checkout above it.
    let typo = home.run_in(Some(&project), &[], &["weights", "--project", "srx/typo"]);
    let (out, err) = (stdout(&typo), String::from_utf8_lossy(&typo.stderr).to_string());
    assert!(err.contains("there is no folder srx/typo") && out.contains(&format!("project {}/srx/typo:", project.display())), "{err}\n{out}");

    // The pause survives a restart, and other projects are not affected.
    home.down();
    home.up();
    assert!(assert_hook_contract(&home.hook(event("b").as_bytes())).is_none());
    let elsewhere = json!({"session_id": "c", "cwd": "/", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "git push --force origin main"}});
    assert!(assert_hook_contract(&home.hook(elsewhere.to_string().as_bytes())).is_some());

    home.ok(&["resume", "--project", project.to_str().unwrap()]);
    assert!(assert_hook_contract(&home.hook(event("d").as_bytes())).is_some(), "advice again after resume");
    home.down();
}

#[test]
fn logs_and_doctor() {
    let home = Home::new();
    home.up();
    let log = home.ok(&["logs", "-n", "100"]);
    assert!(log.contains("cairnd started"), "{log}");

    // Right after install.sh, hooks are a step not taken yet, not a failure.
    let out = cairn_as_user(&home, None, &["doctor"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("todo  hooks: not installed in Claude Code yet -> cairn hooks install"), "{}", stdout(&out));
    assert!(stdout(&out).contains("ok    daemon"));
    assert!(cairn_as_user(&home, None, &["hooks", "install"]).status.success());
    let out = cairn_as_user(&home, None, &["doctor"]);
    assert!(out.status.success(), "{}", stdout(&out));
    assert!(stdout(&out).contains("ok    hook reach") && stdout(&out).contains("the running daemon"), "{}", stdout(&out));
    let status = stdout(&cairn_as_user(&home, None, &["hooks", "status"]));
    assert!(status.contains("reaches: the running daemon"), "{status}");

    // Installed from a shell with another home: the hook would reach no daemon of ours.
    let other = tempfile::tempdir().unwrap();
    let user = user_home(&home);
    let out = home.run_in(None, &[("HOME", user.as_os_str()), ("XDG_CONFIG_HOME", user.join(".config").as_os_str()), ("CAIRN_HOME", other.path().as_os_str())], &["hooks", "install"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = cairn_as_user(&home, None, &["doctor"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(stdout(&out).contains("FAIL  hook reach") && stdout(&out).contains(&*other.path().to_string_lossy()), "{}", stdout(&out));
    assert!(cairn_as_user(&home, None, &["hooks", "install"]).status.success());
    home.down();

    let out = cairn_as_user(&home, None, &["doctor"]);
    assert!(stdout(&out).contains("FAIL  daemon") && stdout(&out).contains("cairn up"), "{}", stdout(&out));
    assert!(stdout(&out).contains("warn  hook reach") && stdout(&out).contains("no daemon answers"), "{}", stdout(&out));
}

/// Uninstalling the user's hooks while only the project has some names them and the flag.
#[test]
fn uninstall_names_the_hooks_it_did_not_remove() {
    let home = Home::new();
    let repo = home.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    assert!(cairn_as_user(&home, Some(&repo), &["hooks", "install", "--project"]).status.success());
    let out = cairn_as_user(&home, Some(&repo), &["hooks", "uninstall"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let said = stdout(&out);
    assert!(said.contains("nothing to remove") && said.contains(&*repo.join(".claude/settings.json").to_string_lossy()) && said.contains("cairn hooks uninstall --project"), "{said}");
}
