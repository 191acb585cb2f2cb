//! A daemon that never hangs, whatever its surroundings do: a full disk, files that are not
//! files, paths that never end, a crash right before `up`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use cairn_tests::{additional_context, assert_hook_contract, eventually, Home};

/// Whether this machine lets a test make a private mount namespace (to give the daemon a small
/// disk of its own). Says so when it does not.
fn namespaces() -> bool {
    let ok = Command::new("unshare").args(["-rm", "true"]).stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok_and(|s| s.success());
    if !ok {
        eprintln!("NOTE: `unshare -rm` is not allowed here: the full-disk test cannot give the daemon a small disk");
    }
    ok
}

/// Starts `cairnd` for `home` with its data folder on a tmpfs of `mib` MiB that only the daemon
/// sees; returns the process and the data folder as seen from outside (through /proc).
fn daemon_on_small_disk(home: &Home, mib: u32) -> (Child, PathBuf) {
    let data = home.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let script = format!("mount -t tmpfs -o size={mib}m,mode=0700 tmpfs '{}' && exec '{}' --lite", data.display(), cairn_tests::cairnd_bin().display());
    let mut cmd = Command::new("unshare");
    cmd.args(["-rm", "sh", "-c", &script])
        .env("CAIRN_HOME", home.path())
        .envs(home.env().iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // `unshare` and `sh` exec into one another: the child is the daemon itself.
    let child = cmd.spawn().expect("spawn unshare");
    assert!(eventually(Duration::from_secs(30), || home.run(&["status"]).status.success()), "the daemon did not start on its small disk");
    let pid = child.id();
    (child, PathBuf::from(format!("/proc/{pid}/root{}", data.display())))
}

/// Fills the disk under `dir` with one file, to the last byte.
fn fill(dir: &Path) -> PathBuf {
    let filler = dir.join("filler");
    let mut f = std::fs::File::create(&filler).expect("filler");
    let block = vec![7u8; 64 * 1024];
    while f.write_all(&block).is_ok() {}
    let small = [7u8; 512];
    while f.write_all(&small).is_ok() {}
    filler
}

/// Adds lessons until the disk refuses one; returns that add's output.
fn add_until_refused(home: &Home, from: usize) -> std::process::Output {
    for i in from..from + 400 {
        // Long texts fill sled's preallocated room quickly.
        let text = format!("Lesson {i}: {}", "use pnpm rather than npm in this repository ".repeat(40));
        let out = home.run_within(&["add", &text], Duration::from_secs(20));
        if !out.status.success() {
            return out;
        }
    }
    panic!("400 adds on a full disk all succeeded");
}

#[test]
fn a_full_disk_fails_writes_fast_keeps_advice_and_recovers_by_itself() {
    if !namespaces() {
        return;
    }
    let home = Home::new();
    let (mut daemon, data) = daemon_on_small_disk(&home, 24);
    let pid = daemon.id() as i32;
    home.ok(&["add", "--global", "Never force-push to main: everyone who pulled it loses commits"]);

    let filler = fill(&data);
    // A write fails at once (not at the 30 s request deadline), naming the disk and the cause.
    let refused = add_until_refused(&home, 0);
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("disk is full") && err.contains(&*home.path().join("data").to_string_lossy()), "{err}");
    let status = home.status();
    assert!(status["store_failure"].as_str().is_some_and(|f| f.contains("disk is full")), "{status}");

    // Reads and advice go on.
    let hook = home.hook(br#"{"hook_event_name":"UserPromptSubmit","session_id":"s1","cwd":"/tmp","prompt":"force-push to main now"}"#);
    let answer = assert_hook_contract(&hook);
    assert!(additional_context(&answer).contains("force-push"), "{answer:?}");
    assert!(home.ok(&["search", "force-push"]).contains("force-push"));

    // Room again: the daemon picks up by itself, in the same process, and writes work.
    std::fs::remove_file(&filler).unwrap();
    assert!(
        eventually(Duration::from_secs(30), || home.run(&["add", "--global", "Use pnpm, not npm, in this repo"]).status.success()),
        "writes never worked again after space came back"
    );
    assert_eq!(home.daemon_pid(), Some(pid), "restarted in place, same pid");
    assert!(home.status()["store_failure"].is_null());
    let texts: Vec<String> = home.memories().iter().map(|m| m["text"].as_str().unwrap_or_default().to_string()).collect();
    assert!(texts.iter().any(|t| t.starts_with("Never force-push")), "an acknowledged write was lost: {texts:?}");
    assert!(texts.iter().any(|t| t.starts_with("Use pnpm")), "{texts:?}");

    // Full again: shutdown still works, at once.
    let filler = fill(&data);
    add_until_refused(&home, 1000);
    let down = home.run_within(&["down"], Duration::from_secs(20));
    assert!(down.status.success(), "{}", String::from_utf8_lossy(&down.stderr));
    assert!(eventually(Duration::from_secs(20), || daemon.try_wait().is_ok_and(|s| s.is_some())), "the daemon did not exit");
    drop(filler);
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo reads a valid C string.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo {}", path.display());
}

/// The daemon's resident memory, in KiB.
fn rss_kib(pid: i32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status.lines().find_map(|l| l.strip_prefix("VmRSS:")).and_then(|v| v.split_whitespace().next()?.parse().ok()).unwrap_or(0)
}

/// A config file that is a FIFO or leads to a device is a config error, at start and when it
/// appears later; the daemon answers, advises, and stops as usual.
#[test]
fn config_files_that_are_not_files_are_errors_not_hangs() {
    let home = Home::new();
    let config = home.path().join("config");
    std::fs::create_dir_all(&config).unwrap();
    mkfifo(&config.join("tuneables.json"));
    std::os::unix::fs::symlink("/dev/zero", config.join("trigger_rules.yaml")).unwrap();
    let up = home.run_within(&["up", "--lite"], Duration::from_secs(30));
    assert!(up.status.success(), "{}", String::from_utf8_lossy(&up.stderr));
    let status = home.status();
    let said = status["config"].as_str().unwrap();
    assert!(said.contains("tuneables.json") && said.contains("FIFO"), "{said}");
    let shown = home.ok(&["config", "show"]);
    assert!(shown.contains("character device"), "the rules file's error is shown too: {shown}");
    home.ok(&["add", "--global", "Never force-push to main"]);
    let hook = home.hook(br#"{"hook_event_name":"UserPromptSubmit","session_id":"s1","cwd":"/tmp","prompt":"force-push to main"}"#);
    assert!(additional_context(&assert_hook_contract(&hook)).contains("force-push"));

    // A good file, then swapped for /dev/zero while running: the last good settings stay, the
    // memory does not grow, and the daemon still answers.
    std::fs::remove_file(config.join("tuneables.json")).unwrap();
    std::fs::write(config.join("tuneables.json"), r#"{"advice": {"max_items_prompt": 3}}"#).unwrap();
    assert!(eventually(Duration::from_secs(20), || home.status()["config"].as_str().is_some_and(|c| !c.contains("tuneables.json"))));
    let pid = home.daemon_pid().unwrap();
    let before = rss_kib(pid);
    std::fs::remove_file(config.join("tuneables.json")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", config.join("tuneables.json")).unwrap();
    assert!(eventually(Duration::from_secs(20), || home.status()["config"].as_str().is_some_and(|c| c.contains("character device"))));
    assert!(rss_kib(pid) < before + 100 * 1024, "the daemon grew from {before} KiB to {} KiB reading /dev/zero", rss_kib(pid));
    let down = home.run_within(&["down"], Duration::from_secs(30));
    assert!(down.status.success(), "{}", String::from_utf8_lossy(&down.stderr));
}

/// A hook's cwd whose git files are a FIFO or a device: the event is answered, the folder is its
/// own project, and the daemon goes on answering.
#[test]
fn a_cwd_with_hostile_git_files_neither_hangs_nor_grows_the_daemon() {
    let home = Home::new();
    home.up();
    home.ok(&["add", "--global", "Never force-push to main"]);
    let tmp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(tmp.path()).unwrap();
    let gitdir = root.join("repo/.git/worktrees/wt");
    std::fs::create_dir_all(&gitdir).unwrap();
    let (fifo_wt, zero_wt, fifo_git) = (root.join("wt1"), root.join("wt2"), root.join("plain"));
    for wt in [&fifo_wt, &zero_wt, &fifo_git] {
        std::fs::create_dir_all(wt).unwrap();
    }
    mkfifo(&gitdir.join("commondir"));
    std::fs::write(fifo_wt.join(".git"), format!("gitdir: {}\n", gitdir.display())).unwrap();
    let zero_dir = root.join("repo/.git/worktrees/zero");
    std::fs::create_dir_all(&zero_dir).unwrap();
    std::os::unix::fs::symlink("/dev/zero", zero_dir.join("commondir")).unwrap();
    std::fs::write(zero_wt.join(".git"), format!("gitdir: {}\n", zero_dir.display())).unwrap();
    mkfifo(&fifo_git.join(".git"));
    let pid = home.daemon_pid().unwrap();
    let before = rss_kib(pid);
    for (i, cwd) in [&fifo_wt, &zero_wt, &fifo_git].iter().enumerate() {
        let payload = serde_json::json!({"hook_event_name": "UserPromptSubmit", "session_id": format!("c{i}"), "cwd": cwd, "prompt": "force-push to main"});
        let answer = assert_hook_contract(&home.hook(payload.to_string().as_bytes()));
        assert!(additional_context(&answer).contains("force-push"), "{}: {answer:?}", cwd.display());
    }
    assert!(rss_kib(pid) < before + 100 * 1024, "the daemon grew from {before} KiB to {} KiB", rss_kib(pid));
    // Each folder is its own project.
    let log: serde_json::Value = serde_json::from_str(&home.ok(&["log", "--json", "--all"])).unwrap();
    let projects: Vec<&str> = log["entries"].as_array().unwrap().iter().filter_map(|e| e["project"].as_str()).collect();
    for cwd in [&fifo_wt, &zero_wt] {
        assert!(projects.contains(&cwd.to_str().unwrap()), "{} not among {projects:?}", cwd.display());
    }
    assert!(home.run_within(&["status"], Duration::from_secs(10)).status.success());
    home.down();
}

/// `cairn hook` answers and exits 0 whatever arguments it is given.
#[test]
fn the_hook_ignores_any_arguments() {
    let home = Home::new();
    home.up();
    home.ok(&["add", "--global", "Never force-push to main"]);
    for (i, args) in [vec!["--bogus"], vec!["extra", "words", "--json"], vec!["--help"], vec!["-V"]].into_iter().enumerate() {
        // A session each: a lesson said once in a session is not said again.
        let payload = format!(r#"{{"hook_event_name":"UserPromptSubmit","session_id":"a{i}","cwd":"/tmp","prompt":"force-push to main"}}"#);
        let mut cmd = home.cairn();
        cmd.arg("hook").args(&args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        child.stdin.take().unwrap().write_all(payload.as_bytes()).unwrap();
        let out = cairn_tests::wait_output(child, Duration::from_secs(10));
        assert!(additional_context(&assert_hook_contract(&out)).contains("force-push"), "{args:?}");
    }
    home.down();
}

/// A 50 MB line among good ones is rejected alone, with its number; the rest is imported and
/// the exit code says not everything was.
#[test]
fn an_oversized_import_line_is_rejected_alone() {
    let home = Home::new();
    home.up();
    let file = home.path().join("big.jsonl");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&file).unwrap());
    writeln!(f, r#"{{"text": "Use pnpm, not npm, in this repo"}}"#).unwrap();
    write!(f, r#"{{"text": ""#).unwrap();
    let chunk = "a".repeat(1 << 20);
    for _ in 0..50 {
        f.write_all(chunk.as_bytes()).unwrap();
    }
    writeln!(f, r#""}}"#).unwrap();
    writeln!(f, r#"{{"text": "Run the linter before committing"}}"#).unwrap();
    drop(f);
    let out = home.run_within(&["import", file.to_str().unwrap(), "--global"], Duration::from_secs(120));
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stdout.contains("2 added, 0 updated, 1 rejected"), "{stdout}");
    assert!(stderr.contains("line 2: ") && stderr.contains("over the 1 MiB"), "{stderr}");
    assert!(stderr.contains("1 of 3 lines were rejected"), "{stderr}");
    let texts: Vec<String> = home.memories().iter().map(|m| m["text"].as_str().unwrap_or_default().to_string()).collect();
    assert_eq!(texts.len(), 2, "{texts:?}");
    home.down();
}

/// `cairn up` right after the daemon was killed waits for the dead one to go, then starts.
#[test]
fn up_right_after_a_crash_starts_a_new_daemon() {
    let home = Home::new();
    home.up();
    for round in 0..10 {
        let pid = home.daemon_pid().expect("pid");
        // SAFETY: kill only sends a signal, to this home's daemon.
        unsafe { libc::kill(pid, libc::SIGKILL) };
        let out = home.run_within(&["up", "--lite"], Duration::from_secs(60));
        assert!(out.status.success(), "round {round}: {}", String::from_utf8_lossy(&out.stderr));
        assert_ne!(home.daemon_pid(), Some(pid), "round {round}: a new daemon");
    }
    home.down();
}

/// Thousands of idle connections neither lock out a hook nor pile up memory: the daemon keeps
/// a bounded number open, closing the one idle the longest to make room.
#[test]
fn idle_connections_are_bounded() {
    let home = Home::new();
    home.up();
    home.ok(&["add", "--global", "Never force-push to main"]);
    // Room for the file descriptors on this side.
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit/setrlimit read and write a plain struct.
    unsafe {
        libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim);
        lim.rlim_cur = lim.rlim_max.min(8192);
        libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
    }
    let n = (lim.rlim_cur as usize).saturating_sub(200).min(3000);
    assert!(n >= 1000, "too few file descriptors for the test ({})", lim.rlim_cur);
    let pid = home.daemon_pid().unwrap();
    let before = rss_kib(pid);
    let mut idle = Vec::new();
    for _ in 0..n {
        match std::os::unix::net::UnixStream::connect(home.socket()) {
            Ok(s) => idle.push(s),
            // The backlog is full for a moment: the daemon is catching up.
            Err(_) => std::thread::sleep(Duration::from_millis(5)),
        }
    }
    assert!(idle.len() > n / 2, "only {} of {n} connections opened", idle.len());
    // While they are all held open, the hook and the commands still get through.
    let hook = home.hook(br#"{"hook_event_name":"UserPromptSubmit","session_id":"i1","cwd":"/tmp","prompt":"force-push to main"}"#);
    assert!(additional_context(&assert_hook_contract(&hook)).contains("force-push"));
    assert!(home.run_within(&["status"], Duration::from_secs(10)).status.success());
    let open = std::fs::read_dir(format!("/proc/{pid}/fd")).map(|d| d.count()).unwrap_or(0);
    assert!(open < 600, "the daemon holds {open} file descriptors with {} clients connected", idle.len());
    let grown = rss_kib(pid).saturating_sub(before);
    assert!(grown < 40 * 1024, "{} idle connections grew the daemon by {grown} KiB", idle.len());
    drop(idle);
    home.down();
}
