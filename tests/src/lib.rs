//! Helpers for driving the real `cairn` and `cairnd` binaries in a private, temporary
//! `CAIRN_HOME`: start and stop daemons, run hooks with a payload, read results.
//!
//! The binaries come from the same target folder as the test (build them first:
//! `cargo build --bins`), or from `CAIRN_BIN_DIR`. The `claude` module runs the real Claude
//! Code CLI against a scripted stand-in of the Messages API.

pub mod claude;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// Folder holding `cairn` and `cairnd`.
pub fn bin_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CAIRN_BIN_DIR") {
        return PathBuf::from(dir);
    }
    // Test binaries live in target/<profile>/deps; the binaries one level up.
    let exe = std::env::current_exe().expect("current exe");
    let mut dir = exe.parent().expect("exe folder").to_path_buf();
    if dir.ends_with("deps") {
        dir.pop();
    }
    assert!(dir.join("cairn").is_file() && dir.join("cairnd").is_file(), "cairn and cairnd not found in {}; run `cargo build --bins` first", dir.display());
    dir
}

pub fn cairn_bin() -> PathBuf {
    bin_dir().join("cairn")
}

pub fn cairnd_bin() -> PathBuf {
    bin_dir().join("cairnd")
}

/// The shared fixtures folder (../shared/fixtures beside the repository).
pub fn fixtures_dir() -> PathBuf {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("repo root").to_path_buf();
    for candidate in [repo.join("../shared/fixtures"), repo.join("shared/fixtures")] {
        if candidate.is_dir() {
            return candidate;
        }
    }
    panic!("shared fixtures not found beside {}", repo.display());
}

/// Waits for a child with a generous limit: a guard against hangs, not a timing assertion. Its
/// output is read as it comes, so that a child printing more than a pipe holds never blocks.
pub fn wait_output(mut child: Child, limit: Duration) -> Output {
    fn drain(pipe: Option<impl std::io::Read + Send + 'static>) -> std::thread::JoinHandle<Vec<u8>> {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut buf);
            }
            buf
        })
    }
    let (stdout, stderr) = (drain(child.stdout.take()), drain(child.stderr.take()));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("process still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Output { status, stdout: stdout.join().unwrap_or_default(), stderr: stderr.join().unwrap_or_default() }
}

/// The shared, already fetched model folder (`CAIRN_MODEL_DIR`, set by `scripts/test.sh` after
/// `cairn setup`). Tests of the semantic engine need it and say so plainly when it is missing.
pub fn model_dir() -> PathBuf {
    let dir = std::env::var_os("CAIRN_MODEL_DIR").map(PathBuf::from).expect(
        "CAIRN_MODEL_DIR is not set: run the tests with scripts/test.sh, which fetches the model once with `cairn setup`",
    );
    for file in [cairn_proto::model::RUNTIME, cairn_proto::model::MODEL, cairn_proto::model::TOKENIZER] {
        assert!(file.in_dir(&dir).is_file(), "{} is missing: run `CAIRN_MODEL_DIR={} cairn setup`", file.in_dir(&dir).display(), dir.display());
    }
    dir
}

/// The value after `name` on the command line (the benchmarks' options), if any.
pub fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned()
}

/// Whether `name` is on the command line.
pub fn flag(name: &str) -> bool {
    std::env::args().any(|a| a == name)
}

/// A private cairn home; kills any daemon still running in it when dropped.
pub struct Home {
    pub dir: tempfile::TempDir,
    /// Extra environment for every `cairn` and `cairnd` this home runs.
    env: Vec<(String, std::ffi::OsString)>,
}

impl Default for Home {
    fn default() -> Self {
        Self::new()
    }
}

impl Home {
    pub fn new() -> Home {
        // Short paths: Unix socket paths are limited to 107 bytes.
        let dir = tempfile::Builder::new().prefix("cairn-e2e").tempdir_in("/tmp").expect("temp home");
        // A home starts without the seed pack, so that tests see only the memories they add;
        // `Home::with_seed_pack` gives one as a user gets it.
        Home { dir, env: vec![("CAIRN_SEED_PACK".to_string(), "off".into())] }
    }

    /// A home that loads the seed pack on its first start, as a user's does.
    pub fn with_seed_pack() -> Home {
        let mut home = Home::new();
        home.env.retain(|(k, _)| k != "CAIRN_SEED_PACK");
        home
    }

    /// Sets an environment variable for everything this home runs (say, another models folder).
    pub fn with_env(mut self, key: &str, value: impl Into<std::ffi::OsString>) -> Home {
        self.env.push((key.to_string(), value.into()));
        self
    }

    /// Writes the home's settings (`config/tuneables.json`), making the folder if the daemon has
    /// not started yet; a running daemon reads them live.
    pub fn write_tuneables(&self, text: &str) {
        std::fs::create_dir_all(self.path().join("config")).unwrap();
        std::fs::write(self.path().join("config/tuneables.json"), text).unwrap();
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The extra environment this home gives what it runs.
    pub fn env(&self) -> &[(String, std::ffi::OsString)] {
        &self.env
    }

    pub fn socket(&self) -> PathBuf {
        self.path().join("cairn.sock")
    }

    /// A `cairn` command bound to this home, with a clean environment for cairn's own variables.
    /// The hook deadline is generous here so that tests about what the hook says do not depend
    /// on how loaded the machine is; tests about the deadline set their own.
    pub fn cairn(&self) -> Command {
        let mut cmd = Command::new(cairn_bin());
        cmd.env("CAIRN_HOME", self.path())
            .env_remove("CAIRN_DISABLE")
            .env("CAIRN_HOOK_DEADLINE_MS", "5000")
            .env_remove("CAIRN_AUTOSTART")
            .env_remove("CAIRN_SEED_PACK")
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .current_dir(self.path());
        cmd
    }

    pub fn cairnd(&self) -> Command {
        let mut cmd = Command::new(cairnd_bin());
        cmd.env("CAIRN_HOME", self.path()).env_remove("CAIRN_SEED_PACK").envs(self.env.iter().map(|(k, v)| (k, v))).current_dir(self.path());
        cmd
    }

    /// Runs `cairn ARGS` to completion.
    pub fn run(&self, args: &[&str]) -> Output {
        self.run_within(args, Duration::from_secs(60))
    }

    /// Runs `cairn ARGS` to completion, allowing it `limit` (a guard against hangs).
    pub fn run_within(&self, args: &[&str], limit: Duration) -> Output {
        let child = self.cairn().args(args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn cairn");
        wait_output(child, limit)
    }

    /// Runs `cairn ARGS` with extra environment, in `dir` (the home when `None`).
    pub fn run_in(&self, dir: Option<&Path>, envs: &[(&str, &std::ffi::OsStr)], args: &[&str]) -> Output {
        let mut cmd = self.cairn();
        cmd.args(args).envs(envs.iter().copied()).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        if let Some(dir) = dir {
            cmd.current_dir(dir);
        }
        wait_output(cmd.spawn().expect("spawn cairn"), Duration::from_secs(60))
    }

    /// Runs `cairn ARGS`, asserts success, returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(out.status.success(), "cairn {args:?} failed ({}): {}", out.status, String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).expect("utf-8 stdout")
    }

    pub fn up(&self) {
        self.ok(&["up", "--lite"]);
    }

    pub fn down(&self) {
        self.ok(&["down"]);
    }

    pub fn status(&self) -> Value {
        serde_json::from_str(&self.ok(&["status", "--json"])).expect("status json")
    }

    pub fn daemon_pid(&self) -> Option<i32> {
        std::fs::read_to_string(self.path().join("cairnd.pid")).ok()?.trim().parse().ok()
    }

    /// Runs `cairn hook` with `payload` on stdin (closed afterwards) and `envs`.
    pub fn hook_with(&self, payload: &[u8], envs: &[(&str, &str)]) -> Output {
        let mut cmd = self.cairn();
        cmd.arg("hook").envs(envs.iter().copied()).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("spawn hook");
        let mut stdin = child.stdin.take().expect("stdin");
        // The hook may exit before reading everything; a broken pipe is fine.
        let _ = stdin.write_all(payload);
        drop(stdin);
        wait_output(child, Duration::from_secs(10))
    }

    pub fn hook(&self, payload: &[u8]) -> Output {
        self.hook_with(payload, &[])
    }

    /// Every memory, via `list --all --json`.
    pub fn memories(&self) -> Vec<Value> {
        let v: Value = serde_json::from_str(&self.ok(&["list", "--all", "--json"])).expect("list json");
        v["memories"].as_array().expect("memories").clone()
    }
}

impl Drop for Home {
    fn drop(&mut self) {
        if let Some(pid) = self.daemon_pid() {
            // SAFETY: kill only sends a signal; the pid is the daemon's of this private home.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
}

/// Asserts a hook's contract: exit 0, and stdout empty or one JSON object under 10,000 chars.
pub fn assert_hook_contract(out: &Output) -> Option<Value> {
    assert_eq!(out.status.code(), Some(0), "hook exit: {:?}, stderr: {}", out.status, String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout.clone()).expect("utf-8 stdout");
    if stdout.trim().is_empty() {
        return None;
    }
    assert!(stdout.chars().count() < 10_000, "hook output too long: {}", stdout.len());
    let v: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("hook printed non-JSON {stdout:?}: {e}"));
    assert!(v.is_object(), "hook output is not an object: {v}");
    Some(v)
}

/// Polls `cond` until true or `limit` passes; returns whether it became true.
pub fn eventually(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let started = Instant::now();
    while started.elapsed() < limit {
        if cond() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    cond()
}

/// The median of timings (sorts them).
pub fn median(v: &mut [Duration]) -> Duration {
    percentile(v, 0.5)
}

/// The `p` quantile of timings, nearest rank (sorts them).
pub fn percentile(v: &mut [Duration], p: f64) -> Duration {
    v.sort();
    v[((v.len() as f64 * p) as usize).min(v.len() - 1)]
}

/// The `additionalContext` a hook answer carried, or "" for no answer or none in it.
pub fn additional_context(answer: &Option<Value>) -> String {
    answer.as_ref().and_then(|v| v["hookSpecificOutput"]["additionalContext"].as_str()).unwrap_or_default().to_string()
}

const VERBS: &[&str] = &["run", "check", "avoid", "prefer", "review", "rotate", "pin", "cache", "validate", "document", "lint", "profile", "retry", "log", "split", "migrate", "encrypt", "mock", "bench", "vendor"];
const OBJECTS: &[&str] = &["database migrations", "api tokens", "docker images", "unit tests", "feature flags", "css modules", "grpc clients", "terraform state", "kafka consumers", "redis keys", "webhooks", "cron jobs", "s3 buckets", "jwt claims", "cli flags", "rust lifetimes", "python wheels", "npm lockfiles", "helm charts", "sql indexes"];
const WHEN: &[&str] = &["before each release", "in the staging cluster", "when the build is red", "after a schema change", "on every pull request", "during incident response", "for the payments service", "in the mobile app", "behind the load balancer", "in nightly jobs"];

/// `n` synthetic lessons as import lines (JSONL), the same every time, for the benchmarks' homes.
pub fn synthetic_lessons(n: usize) -> String {
    // Deterministic pseudo-random picks, so every run measures the same corpus.
    let mut state: u64 = 42;
    let mut pick = |items: &[&'static str]| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        items[(state >> 33) as usize % items.len()]
    };
    let mut out = String::new();
    for i in 0..n {
        let text = format!("{} {} {} (lesson {i})", pick(VERBS), pick(OBJECTS), pick(WHEN));
        out.push_str(&serde_json::json!({"text": text, "category": pick(&["git", "testing", "security", "deployment", "tooling"])}).to_string());
        out.push('\n');
    }
    out
}
