//! Claude Code itself, driven offline: the real `claude` CLI (fetched at a pinned version by
//! `scripts/test.sh`, path in `CAIRN_CLAUDE`) in print mode, talking to [`StandIn`], a scripted
//! stand-in of the Messages API on loopback. The stand-in plays the model: it answers each of the
//! agent's requests with the next scripted turn (a tool call, or text) and records every request,
//! so a test sees exactly what reached the model. A [`Claude`] runs one session in a temporary git
//! project with a temporary `HOME`, cairn installed by one of its two documented routes.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{json, Value};

use crate::{cairn_bin, wait_output, Home};

/// The Claude Code CLI fetched for the tests.
pub fn claude_bin() -> PathBuf {
    let bin = std::env::var_os("CAIRN_CLAUDE").map(PathBuf::from).expect(
        "CAIRN_CLAUDE is not set: run the tests with scripts/test.sh, which fetches the Claude Code CLI once with npm",
    );
    assert!(bin.is_file(), "{} is missing: run scripts/test.sh to fetch the Claude Code CLI", bin.display());
    bin
}

/// The Claude Code version the tests run (`claude --version`'s first word).
pub fn claude_version() -> String {
    let out = Command::new(claude_bin()).arg("--version").output().expect("claude --version");
    String::from_utf8_lossy(&out.stdout).split_whitespace().next().unwrap_or_default().to_string()
}

/// One scripted turn of the model.
#[derive(Debug, Clone)]
pub enum Turn {
    /// A tool call with its input.
    Tool { name: String, input: Value },
    /// A final answer.
    Text(String),
}

impl Turn {
    pub fn tool(name: &str, input: Value) -> Turn {
        Turn::Tool { name: name.into(), input }
    }

    pub fn bash(command: &str, description: &str) -> Turn {
        Turn::tool("Bash", json!({"command": command, "description": description}))
    }

    pub fn text(text: &str) -> Turn {
        Turn::Text(text.into())
    }
}

/// One request the stand-in received.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub path: String,
    pub body: Value,
}

impl Recorded {
    /// Whether it is one of the agent's own turns (they carry the tools), not a side request.
    pub fn is_turn(&self) -> bool {
        self.path.starts_with("/v1/messages") && !self.path.starts_with("/v1/messages/count_tokens") && self.body["tools"].as_array().is_some_and(|t| !t.is_empty())
    }

    /// Every text the model is given in the conversation: user and assistant texts, tool
    /// results, and the reminders Claude Code adds (hook context among them), in order.
    pub fn texts(&self) -> Vec<String> {
        let mut out = Vec::new();
        for message in self.body["messages"].as_array().into_iter().flatten() {
            collect_texts(&message["content"], &mut out);
        }
        out
    }
}

/// How cairn's context text starts (see the advisor's format).
pub const CAIRN_HEADER: &str = "cairn memory (lessons from earlier work";

fn collect_texts(content: &Value, out: &mut Vec<String>) {
    match content {
        Value::String(s) => out.push(s.clone()),
        Value::Array(parts) => {
            for part in parts {
                match part["type"].as_str() {
                    Some("text") => out.extend(part["text"].as_str().map(str::to_string)),
                    Some("tool_result") => collect_texts(&part["content"], out),
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

struct Script {
    turns: VecDeque<Turn>,
    requests: Vec<Recorded>,
    calls: u32,
}

/// The scripted stand-in of the Messages API, on a free port of 127.0.0.1 only.
pub struct StandIn {
    addr: SocketAddr,
    script: Arc<Mutex<Script>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// The model the stand-in says it is.
const MODEL: &str = "claude-stand-in";

/// An assistant message holding `content`, as the Messages API answers it.
fn message(content: Vec<Value>, stop_reason: &str) -> Value {
    json!({"id": "msg_stand_in", "type": "message", "role": "assistant", "model": MODEL, "content": content,
           "stop_reason": stop_reason, "stop_sequence": null, "usage": {"input_tokens": 10, "output_tokens": 5}})
}

/// The same message as the server-sent events of a streamed answer.
fn events(message: &Value) -> String {
    let mut out = String::new();
    let mut event = |name: &str, data: Value| out.push_str(&format!("event: {name}\ndata: {data}\n\n"));
    let mut start = message.clone();
    start["content"] = json!([]);
    start["stop_reason"] = Value::Null;
    event("message_start", json!({"type": "message_start", "message": start}));
    for (i, block) in message["content"].as_array().into_iter().flatten().enumerate() {
        if block["type"] == "tool_use" {
            event("content_block_start", json!({"type": "content_block_start", "index": i, "content_block": {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}}));
            event("content_block_delta", json!({"type": "content_block_delta", "index": i, "delta": {"type": "input_json_delta", "partial_json": block["input"].to_string()}}));
        } else {
            event("content_block_start", json!({"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}}));
            event("content_block_delta", json!({"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": block["text"]}}));
        }
        event("content_block_stop", json!({"type": "content_block_stop", "index": i}));
    }
    event("message_delta", json!({"type": "message_delta", "delta": {"stop_reason": message["stop_reason"], "stop_sequence": null}, "usage": {"output_tokens": 5}}));
    event("message_stop", json!({"type": "message_stop"}));
    out
}

async fn messages(State(script): State<Arc<Mutex<Script>>>, uri: Uri, body: Bytes) -> Response {
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let recorded = Recorded { path: uri.path_and_query().map_or_else(|| uri.path().to_string(), |p| p.to_string()), body: body.clone() };
    let reply = {
        let mut s = script.lock().expect("script lock");
        let turn = if recorded.is_turn() { s.turns.pop_front() } else { None };
        s.requests.push(recorded);
        match turn {
            Some(Turn::Tool { name, input }) => {
                s.calls += 1;
                message(vec![json!({"type": "tool_use", "id": format!("toolu_stand_in_{:02}", s.calls), "name": name, "input": input})], "tool_use")
            }
            Some(Turn::Text(text)) => message(vec![json!({"type": "text", "text": text})], "end_turn"),
            // Past the script, or a side request (a title, a summary): a short answer.
            None => message(vec![json!({"type": "text", "text": "Done."})], "end_turn"),
        }
    };
    if body["stream"] == true {
        ([(header::CONTENT_TYPE, "text/event-stream"), (header::CACHE_CONTROL, "no-cache")], events(&reply)).into_response()
    } else {
        ([(header::CONTENT_TYPE, "application/json")], reply.to_string()).into_response()
    }
}

async fn count_tokens(State(script): State<Arc<Mutex<Script>>>, body: Bytes) -> Response {
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    script.lock().expect("script lock").requests.push(Recorded { path: "/v1/messages/count_tokens".into(), body });
    ([(header::CONTENT_TYPE, "application/json")], json!({"input_tokens": 10}).to_string()).into_response()
}

impl StandIn {
    /// Starts the stand-in with the turns to play, in order.
    pub fn start(turns: Vec<Turn>) -> StandIn {
        let script = Arc::new(Mutex::new(Script { turns: turns.into(), requests: Vec::new(), calls: 0 }));
        let listener = std::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).expect("bind a loopback port");
        let addr = listener.local_addr().expect("local address");
        // All traffic stays on this machine.
        assert!(addr.ip().is_loopback(), "the stand-in runs on loopback only, not {addr}");
        listener.set_nonblocking(true).expect("nonblocking listener");
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let app = axum::Router::new()
            .route("/v1/messages", post(messages))
            .route("/v1/messages/count_tokens", post(count_tokens))
            .fallback(|| async { StatusCode::OK })
            .with_state(script.clone());
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).expect("tokio listener");
                let _ = axum::serve(listener, app).with_graceful_shutdown(async move {
                    let _ = stopped.await;
                })
                .await;
            });
        });
        StandIn { addr, script, stop: Some(stop), thread: Some(thread) }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request so far, in order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.script.lock().expect("script lock").requests.clone()
    }

    /// Turns of the script not played.
    pub fn left(&self) -> usize {
        self.script.lock().expect("script lock").turns.len()
    }
}

impl Drop for StandIn {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// How cairn is wired into Claude Code for a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// `cairn hooks install --user` into the session's `~/.claude/settings.json`.
    Settings,
    /// The plugin in the checkout's `hooks/` folder (`claude --plugin-dir hooks`).
    Plugin,
    /// No cairn at all.
    Without,
}

/// The checkout's plugin folder.
pub fn plugin_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("repo root").join("hooks")
}

/// A Claude Code session's surroundings: a temporary `HOME` and git project, cairn's home, and
/// how cairn is wired in.
pub struct Claude<'a> {
    pub home: &'a Home,
    user_home: tempfile::TempDir,
    project: tempfile::TempDir,
    route: Route,
    env: Vec<(String, OsString)>,
    debug: bool,
}

/// One finished session: what Claude Code printed, and every request the model saw.
pub struct Session {
    pub output: Output,
    pub requests: Vec<Recorded>,
    /// Claude Code's `--output-format json` result.
    pub result: Value,
    /// Scripted turns that were never played.
    pub unplayed: usize,
    /// Claude Code's debug log of the session.
    pub debug: String,
    /// The `claude` process's wall time, start to exit.
    pub elapsed: Duration,
}

impl Session {
    /// The agent's own requests, in order.
    pub fn turns(&self) -> Vec<&Recorded> {
        self.requests.iter().filter(|r| r.is_turn()).collect()
    }

    /// cairn's texts in the agent's `n`-th request (0-based), new in that request (not already in
    /// the one before it; Claude Code may re-send a reminder with other white space around it).
    pub fn cairn_new_in(&self, n: usize) -> Vec<String> {
        let turns = self.turns();
        let before: Vec<String> = if n == 0 { Vec::new() } else { turns[n - 1].texts().iter().map(|t| t.trim().to_string()).collect() };
        turns[n].texts().into_iter().filter(|t| t.contains(CAIRN_HEADER) && !before.iter().any(|b| b == t.trim())).collect()
    }

    /// Every cairn text the model was given in the session.
    pub fn cairn_texts(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for t in self.turns().iter().flat_map(|r| r.texts()) {
            let t = t.trim().to_string();
            if t.contains(CAIRN_HEADER) && !out.contains(&t) {
                out.push(t);
            }
        }
        out
    }

    /// What Claude Code's debug log says went wrong with a hook (errors, time-outs, failures).
    pub fn hook_errors(&self) -> Vec<String> {
        self.debug
            .lines()
            .filter(|l| {
                let l = l.to_lowercase();
                l.contains("hook") && ["error", "timed out", "timeout", "failed", "cancel"].iter().any(|w| l.contains(w))
            })
            .map(str::to_string)
            .collect()
    }

    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }

    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }

    /// Asserts that Claude Code finished the session cleanly, with the scripted answer.
    pub fn assert_completed(&self, answer: &str) {
        assert_eq!(self.output.status.code(), Some(0), "claude failed: {}\n{}", self.stdout(), self.stderr());
        assert_eq!(self.result["is_error"], false, "{}", self.result);
        assert_eq!(self.result["result"], answer, "the session ended with another answer: {}", self.result);
        assert_eq!(self.unplayed, 0, "Claude Code stopped before the script's end: {}", self.result);
    }
}

impl<'a> Claude<'a> {
    /// Surroundings for sessions of `home`'s cairn, wired in by `route`.
    pub fn new(home: &'a Home, route: Route) -> Claude<'a> {
        let user_home = tempfile::tempdir().expect("temporary HOME");
        let project = tempfile::tempdir().expect("temporary project");
        let git = |args: &[&str]| {
            let out = Command::new("git").args(args).current_dir(project.path()).env("HOME", user_home.path()).output().expect("git runs");
            assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        };
        git(&["init", "-q", "-b", "main"]);
        git(&["-c", "user.email=t@example.invalid", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "start"]);
        let claude = Claude { home, user_home, project, route, env: Vec::new(), debug: true };
        if route == Route::Settings {
            let out = claude.cairn(&["hooks", "install", "--user"]);
            assert!(out.status.success(), "hooks install: {}", String::from_utf8_lossy(&out.stderr));
        }
        claude
    }

    /// Without Claude Code's debug log (for timing: the log costs time of its own).
    pub fn quiet(mut self) -> Self {
        self.debug = false;
        self
    }

    /// Extra environment for Claude Code (and so for the hooks it runs).
    pub fn with_env(mut self, key: &str, value: impl Into<OsString>) -> Self {
        self.env.push((key.to_string(), value.into()));
        self
    }

    pub fn project(&self) -> &Path {
        self.project.path()
    }

    pub fn user_home(&self) -> &Path {
        self.user_home.path()
    }

    /// Runs `cairn` as the user of these sessions (their `HOME`, in the project).
    pub fn cairn(&self, args: &[&str]) -> Output {
        self.home.cairn().args(args).env("HOME", self.user_home.path()).current_dir(self.project.path()).output().expect("cairn runs")
    }

    /// The command that runs one print-mode session of `prompt` against `stand_in`.
    pub fn command(&self, prompt: &str, stand_in: &StandIn, tools: &[&str]) -> Command {
        let mut cmd = Command::new(claude_bin());
        cmd.current_dir(self.project.path())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.user_home.path())
            .env("CAIRN_HOME", self.home.path())
            .env("CAIRN_HOOK_DEADLINE_MS", "5000")
            .env("ANTHROPIC_BASE_URL", stand_in.url())
            .env("ANTHROPIC_API_KEY", "sk-ant-stand-in-not-a-key")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("DISABLE_ERROR_REPORTING", "1")
            .envs(self.home.env().iter().map(|(k, v)| (k, v)))
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .args(["-p", prompt, "--output-format", "json", "--allowedTools", &tools.join(",")])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // The debug log, under the session's HOME, is where hook errors show.
        if self.debug {
            cmd.arg("--debug");
        }
        if let Some(models) = std::env::var_os("CAIRN_MODEL_DIR") {
            cmd.env("CAIRN_MODEL_DIR", models);
        }
        if self.route == Route::Plugin {
            cmd.env("CAIRN_BIN", cairn_bin()).arg("--plugin-dir").arg(plugin_dir());
        }
        cmd
    }

    /// Runs one session: `prompt`, then the scripted `turns`, with `tools` allowed; within a
    /// hard time limit.
    pub fn run(&self, prompt: &str, turns: Vec<Turn>, tools: &[&str]) -> Session {
        self.run_with(prompt, turns, tools, &[])
    }

    /// Goes on with an earlier session (`claude -p --resume ID`): the user's next prompt in it.
    pub fn resume(&self, session_id: &str, prompt: &str, turns: Vec<Turn>, tools: &[&str]) -> Session {
        self.run_with(prompt, turns, tools, &["--resume", session_id])
    }

    /// A session with extra arguments for `claude` (an MCP config, ...).
    pub fn run_with(&self, prompt: &str, turns: Vec<Turn>, tools: &[&str], extra: &[&str]) -> Session {
        let stand_in = StandIn::start(turns);
        let started = std::time::Instant::now();
        let child = self.command(prompt, &stand_in, tools).args(extra).spawn().expect("claude starts");
        let output = wait_output(child, Duration::from_secs(180));
        let elapsed = started.elapsed();
        let result = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
        let debug_dir = self.user_home.path().join(".claude/debug");
        let debug = result["session_id"].as_str().map(|id| debug_dir.join(format!("{id}.txt"))).and_then(|p| std::fs::read_to_string(p).ok()).unwrap_or_default();
        Session { requests: stand_in.requests(), unplayed: stand_in.left(), output, result, debug, elapsed }
    }
}
