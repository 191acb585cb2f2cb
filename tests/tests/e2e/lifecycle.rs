//! Starting, stopping and inspecting the daemon; socket and pidfile safety; protocol checks.

use std::os::unix::fs::PermissionsExt;
use std::process::Stdio;
use std::time::Duration;

use cairn_proto::service::Cairn;
use cairn_proto::*;
use cairn_tests::*;
use futures::StreamExt;
use tarpc::context::Context;
use tarpc::server::{BaseChannel, Channel};

#[test]
fn up_status_down_cycle() {
    let home = Home::new();
    let out = home.run(&["status"]);
    assert_eq!(out.status.code(), Some(3), "status without a daemon exits 3");
    assert!(String::from_utf8_lossy(&out.stderr).contains("cairn up"));

    assert!(home.ok(&["up", "--lite"]).contains("cairn is up"));
    assert!(home.ok(&["up"]).contains("already running"));

    let s = home.status();
    for key in ["version", "protocol", "pid", "uptime_s", "home", "mode", "memories", "config", "model"] {
        assert!(s.get(key).is_some(), "status lacks {key}: {s}");
    }
    assert_eq!(s["mode"], "lite");
    assert_eq!(s["protocol"], PROTOCOL_VERSION);
    assert_eq!(s["config"], "ok");
    assert_eq!(s["home"], home.path().display().to_string());

    // The socket and data are the user's alone.
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&home.socket()), 0o600);
    assert_eq!(mode(&home.path().join("data")), 0o700);

    assert!(home.ok(&["down"]).contains("stopped"));
    assert!(!home.socket().exists(), "down removes the socket");
    assert!(home.ok(&["down"]).contains("not running"));
    assert_eq!(home.run(&["status"]).status.code(), Some(3));
}

#[test]
fn second_daemon_on_one_home_is_refused() {
    let home = Home::new();
    home.up();
    let first = home.status()["pid"].as_u64().unwrap();
    let out = wait_output(home.cairnd().stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap(), Duration::from_secs(30));
    assert_eq!(out.status.code(), Some(75), "a distinct exit code for a home in use");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("already runs"), "{err}");
    assert_eq!(home.status()["pid"].as_u64().unwrap(), first, "the first daemon keeps running");
    home.down();
}

#[test]
fn stale_socket_is_replaced_and_foreign_files_are_not() {
    let home = Home::new();
    // A socket nobody listens on: connecting is refused, so it may go.
    drop(std::os::unix::net::UnixListener::bind(home.socket()).unwrap());
    assert!(home.socket().exists());
    home.up();
    home.down();

    // A regular file where the socket belongs is never deleted.
    std::fs::write(home.socket(), b"precious").unwrap();
    let out = home.run(&["up"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a socket"), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read(home.socket()).unwrap(), b"precious");
}

#[test]
fn sigterm_shuts_down_gracefully() {
    let home = Home::new();
    home.up();
    let id = home.ok(&["add", "kept across a SIGTERM", "--global"]);
    let pid = home.daemon_pid().unwrap();
    // SAFETY: signals the daemon of this private home.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    assert!(eventually(Duration::from_secs(20), || !home.socket().exists()), "socket removed on SIGTERM");
    assert!(
        eventually(Duration::from_secs(20), || std::fs::read_to_string(home.path().join("cairnd.pid")).unwrap_or_default().trim().is_empty()),
        "pidfile let go once the socket is gone"
    );
    home.up();
    assert!(home.ok(&["show", id.trim()]).contains("kept across a SIGTERM"));
    home.down();
}

/// A daemon from another protocol version: answers the handshake, refuses the rest.
#[derive(Clone)]
struct OldDaemon;

const OLD: u32 = PROTOCOL_VERSION + 41;

fn old() -> RpcError {
    RpcError::ProtocolMismatch { daemon: OLD, client: PROTOCOL_VERSION }
}

impl Cairn for OldDaemon {
    async fn handshake(self, _: Context) -> Handshake {
        Handshake { version: "0.0.1-old".into(), protocol: OLD }
    }
    async fn status(self, _: Context) -> Status {
        panic!("a client must not ask for status after a protocol mismatch")
    }
    async fn hook(self, _: Context, _: u32, _: serde_json::Value) -> Result<HookReply, RpcError> {
        Err(old())
    }
    async fn add(self, _: Context, _: NewMemory) -> Result<Memory, RpcError> {
        Err(old())
    }
    async fn show(self, _: Context, _: String) -> Result<Memory, RpcError> {
        Err(old())
    }
    async fn edit(self, _: Context, _: MemoryEdit) -> Result<Memory, RpcError> {
        Err(old())
    }
    async fn forget(self, _: Context, _: String) -> Result<Memory, RpcError> {
        Err(old())
    }
    async fn list(self, _: Context, _: ListQuery) -> Result<Page<Memory>, RpcError> {
        Err(old())
    }
    async fn import(self, _: Context, _: ImportBatch) -> Result<ImportReport, RpcError> {
        Err(old())
    }
    async fn export(self, _: Context, _: Option<String>, _: u32) -> Result<Page<String>, RpcError> {
        Err(old())
    }
    async fn advise(self, _: Context, _: AdviseRequest) -> Result<Advice, RpcError> {
        Err(old())
    }
    async fn config_show(self, _: Context) -> ConfigReport {
        panic!("a client must not ask for config after a protocol mismatch")
    }
    async fn config_init(self, _: Context, _: bool) -> Result<Vec<String>, RpcError> {
        Err(old())
    }
    async fn pause(self, _: Context, _: Scope) -> Result<String, RpcError> {
        Err(old())
    }
    async fn resume(self, _: Context, _: Scope) -> Result<String, RpcError> {
        Err(old())
    }
    async fn search(self, _: Context, _: SearchRequest) -> Result<SearchResults, RpcError> {
        Err(old())
    }
    async fn reindex(self, _: Context) -> Result<JobProgress, RpcError> {
        Err(old())
    }
    async fn job(self, _: Context, _: Option<u64>) -> Option<JobProgress> {
        None
    }
    async fn load_model(self, _: Context) -> String {
        panic!("a client must not ask for the model after a protocol mismatch")
    }
    async fn mute(self, _: Context, _: String, _: bool) -> Result<Memory, RpcError> {
        Err(old())
    }
    async fn seeds(self, _: Context, _: SeedAction) -> Result<SeedReport, RpcError> {
        Err(old())
    }
    async fn log(self, _: Context, _: LogQuery) -> Result<Vec<LogEntry>, RpcError> {
        Err(old())
    }
    async fn feedback(self, _: Context, _: FeedbackRequest) -> Result<FeedbackReport, RpcError> {
        Err(old())
    }
    async fn graph_link(self, _: Context, _: GraphLink) -> Result<Vec<String>, RpcError> {
        Err(old())
    }
    async fn graph_show(self, _: Context, _: String) -> Result<GraphView, RpcError> {
        Err(old())
    }
    async fn graph_log(self, _: Context, _: GraphLogQuery) -> Result<Vec<serde_json::Value>, RpcError> {
        Err(old())
    }
    async fn review(self, _: Context, _: ReviewQuery) -> Result<ReviewList, RpcError> {
        Err(old())
    }
    async fn review_act(self, _: Context, _: ReviewAction) -> Result<ReviewOutcome, RpcError> {
        Err(old())
    }
    async fn judge(self, _: Context, _: JudgeRequest) -> Result<Judged, RpcError> {
        Err(old())
    }
    async fn weights(self, _: Context, _: WeightsQuery) -> Result<WeightsReport, RpcError> {
        Err(old())
    }
    async fn why(self, _: Context, _: String) -> Result<WhyReport, RpcError> {
        Err(old())
    }
    async fn chain(self, _: Context, _: String) -> Result<ChainReport, RpcError> {
        Err(old())
    }
    async fn dependents(self, _: Context, _: String) -> Result<DependentsReport, RpcError> {
        Err(old())
    }
    async fn causality_stats(self, _: Context, _: CausalityQuery) -> Result<CausalityStats, RpcError> {
        Err(old())
    }
    async fn prune(self, _: Context, _: bool) -> Result<PruneReport, RpcError> {
        Err(old())
    }
    async fn archive(self, _: Context, _: ArchiveAction) -> Result<ArchiveReport, RpcError> {
        Err(old())
    }
    async fn predict(self, _: Context, _: PredictQuery) -> Result<PredictReport, RpcError> {
        Err(old())
    }
    async fn recalculate_tiers(self, _: Context) -> Result<std::collections::BTreeMap<String, u64>, RpcError> {
        Err(old())
    }
    async fn overview(self, _: Context, _: OverviewQuery) -> Result<Overview, RpcError> {
        Err(old())
    }
    async fn advice_page(self, _: Context, _: AdvicePageQuery) -> Result<AdvicePage, RpcError> {
        Err(old())
    }
    async fn shutdown(self, _: Context) {}
}

#[test]
fn older_daemon_is_named_and_the_hook_stays_quiet() {
    let home = Home::new();
    let socket = home.socket();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let listener = rt.block_on(async { tokio::net::UnixListener::bind(&socket) }).unwrap();
    rt.spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else { return };
            let channel = BaseChannel::with_defaults(transport::wrap(stream));
            tokio::spawn(channel.execute(OldDaemon.serve()).for_each(|f| async {
                tokio::spawn(f);
            }));
        }
    });

    for args in [&["status"][..], &["up"][..]] {
        let out = home.run(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&format!("protocol {OLD}")) && err.contains("cairn down && cairn up"), "{args:?}: {err}");
    }
    let payload = std::fs::read(fixtures_dir().join("claude-code-hooks/UserPromptSubmit.json")).unwrap();
    let out = home.hook(&payload);
    assert!(assert_hook_contract(&out).is_none(), "hook degrades to no output");
    drop(rt);
}

#[test]
fn shared_temp_socket_folder_must_be_private() {
    let root = Home::new();
    let tmp = root.path().join("t");
    std::fs::create_dir_all(&tmp).unwrap();
    let cairn = |args: &[&str]| {
        let child = std::process::Command::new(cairn_bin())
            .args(args)
            .env_remove("CAIRN_HOME")
            .env_remove("XDG_RUNTIME_DIR")
            .env("HOME", root.path())
            .env("XDG_DATA_HOME", root.path().join("data"))
            .env("XDG_CONFIG_HOME", root.path().join("config"))
            .env("TMPDIR", &tmp)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        wait_output(child, Duration::from_secs(60))
    };
    let uid = unsafe { libc::getuid() };
    let folder = tmp.join(format!("cairn-{uid}"));

    std::fs::create_dir(&folder).unwrap();
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = cairn(&["up"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("open to group or others"));

    std::fs::remove_dir(&folder).unwrap();
    let elsewhere = root.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::set_permissions(&elsewhere, std::fs::Permissions::from_mode(0o700)).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &folder).unwrap();
    let out = cairn(&["up"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is a symlink"));
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0, "nothing was created through the link");

    std::fs::remove_file(&folder).unwrap();
    assert!(cairn(&["up", "--lite"]).status.success());
    assert!(folder.join("cairn.sock").exists(), "socket in the private per-user folder");
    assert_eq!(std::fs::metadata(&folder).unwrap().permissions().mode() & 0o777, 0o700);
    assert!(cairn(&["status"]).status.success());
    assert!(cairn(&["down"]).status.success());
}

#[test]
fn a_stale_pidfile_never_signals_a_stranger() {
    let home = Home::new();
    let mut stranger = std::process::Command::new("sleep").arg("30").spawn().unwrap();
    std::fs::write(home.path().join("cairnd.pid"), format!("{}\n", stranger.id())).unwrap();
    let out = home.run(&["down"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("not running"));
    assert!(stranger.try_wait().unwrap().is_none(), "the process that now has the old pid was left alone");
    stranger.kill().unwrap();
    let _ = stranger.wait();
    std::fs::remove_file(home.path().join("cairnd.pid")).unwrap();
}

#[test]
fn a_store_still_locked_by_an_exiting_daemon_is_waited_for() {
    let home = Home::new();
    home.up();
    home.down();
    // Hold the store's lock for a moment, as a daemon on its way out would.
    let db = std::fs::OpenOptions::new().read(true).write(true).open(home.path().join("data/store/db")).unwrap();
    db.lock().unwrap();
    let release = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(800));
        drop(db);
    });
    home.up();
    release.join().unwrap();
    home.down();
}

#[test]
fn a_closed_pipe_ends_a_command_quietly() {
    // `cairn seed --list | head -5`: the reader goes away; the command stops writing and exits 0.
    let home = Home::with_seed_pack();
    home.up();
    home.ok(&["add", "Never force-push to main; open a pull request instead", "--global", "--category", "git"]);
    let tuneables = home.path().join("config/tuneables.json");
    std::fs::write(&tuneables, r#"{"semantic": {"min_similarity": 0.6}}"#).unwrap();
    let commands: &[&[&str]] = &[
        &["seed", "--list"],
        &["seed", "--list", "--json"],
        &["list", "--all"],
        &["status"],
        &["status", "--json"],
        &["config", "show"],
        &["export"],
        &["logs", "-n", "50"],
        &["advise", "--explain", "git", "push", "--force", "origin", "main"],
        &["search", "force", "push"],
        &["hooks", "status"],
        &["doctor"],
        &["--help"],
    ];
    for args in commands {
        // The reading end is closed before the command starts, so its first write finds no reader.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = wait_output(home.cairn().args(*args).stdout(writer).stderr(Stdio::piped()).spawn().unwrap(), Duration::from_secs(60));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "cairn {args:?} panicked: {stderr}");
        assert_eq!(out.status.code(), Some(0), "cairn {args:?} (none means a signal): {stderr}");
    }
    // Output that cannot be written (a full disk) fails the command, and what it could not print
    // goes to stderr: the id of a memory it stored is not lost.
    if let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") {
        let out = wait_output(home.cairn().args(["add", "Lesson added while stdout is full", "--global"]).stdout(full).stderr(Stdio::piped()).spawn().unwrap(), Duration::from_secs(60));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        let id = stderr.trim().rsplit("it was: ").next().unwrap_or("");
        assert!(home.ok(&["show", id]).contains("Lesson added while stdout is full"), "{stderr}");
    }
}
