//! `cairn hook`: the path Claude Code runs on every event. It must never slow or break the agent:
//! one deadline covers the whole process (reading stdin included), every failure ends in exit 0
//! with no output, and it never waits on a lock.
//!
//! A watchdog thread enforces the deadline. The main thread may print only after winning the
//! race against it, so the output is either whole or absent.

pub mod input;
pub mod misslog;
pub mod output;

use std::io::Write;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use cairn_proto::{Paths, PROTOCOL_VERSION};

use crate::connect::{self, ClientError};
use crate::launch;

/// Default deadline for the whole hook process.
pub const DEFAULT_DEADLINE_MS: u64 = 200;

const WORKING: u8 = 0;
const PRINTING: u8 = 1;
const GAVE_UP: u8 = 2;

/// Where the hook was when its deadline passed, for the miss log.
#[derive(Clone, Copy)]
#[repr(u8)]
enum Stage {
    Reading = 0,
    Connecting = 1,
    Waiting = 2,
}

impl Stage {
    fn name(v: u8) -> &'static str {
        match v {
            0 => "reading-stdin",
            1 => "connecting",
            _ => "waiting-for-daemon",
        }
    }
}

fn deadline_ms() -> u64 {
    std::env::var("CAIRN_HOOK_DEADLINE_MS").ok().and_then(|v| v.trim().parse().ok()).filter(|ms| *ms > 0).unwrap_or(DEFAULT_DEADLINE_MS)
}

fn env_is(name: &str, value: &str) -> bool {
    std::env::var(name).is_ok_and(|v| v.trim() == value)
}

/// Time the watchdog keeps for writing the miss log before the deadline itself.
fn log_margin(deadline: Duration) -> Duration {
    (deadline / 10).min(Duration::from_millis(10))
}

/// Runs the hook and exits 0, whatever happens. `start` is when the process began.
pub fn run(start: Instant) -> ! {
    if env_is("CAIRN_DISABLE", "1") {
        std::process::exit(0);
    }
    let deadline = Duration::from_millis(deadline_ms());
    let state = Arc::new(AtomicU8::new(WORKING));
    let stage = Arc::new(AtomicU8::new(Stage::Reading as u8));
    let event_name: Arc<OnceLock<String>> = Arc::default();
    let paths = Paths::from_env().ok();

    {
        let (state, stage, event_name, paths) = (state.clone(), stage.clone(), event_name.clone(), paths.clone());
        std::thread::spawn(move || {
            std::thread::sleep(deadline.saturating_sub(log_margin(deadline)).saturating_sub(start.elapsed()));
            if state.compare_exchange(WORKING, GAVE_UP, Ordering::AcqRel, Ordering::Acquire).is_ok() {
                if let Some(paths) = paths {
                    let event = event_name.get().map(String::as_str).unwrap_or("");
                    misslog::record(&paths.hook_miss_log(), event, Stage::name(stage.load(Ordering::Acquire)), deadline.as_millis() as u64);
                }
                std::process::exit(0);
            }
        });
    }

    let answer = answer(start, deadline.saturating_sub(log_margin(deadline)), &stage, &event_name, paths.clone());
    if state.compare_exchange(WORKING, PRINTING, Ordering::AcqRel, Ordering::Acquire).is_ok() {
        if answer.timed_out
            && let Some(paths) = &paths
        {
            let event = event_name.get().map(String::as_str).unwrap_or("");
            misslog::record(&paths.hook_miss_log(), event, Stage::name(stage.load(Ordering::Acquire)), deadline.as_millis() as u64);
        }
        if let Some(line) = answer.line {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(line.as_bytes());
            let _ = out.write_all(b"\n");
            let _ = out.flush();
        }
        std::process::exit(0);
    }
    // The watchdog won and is exiting the process; wait for it.
    loop {
        std::thread::park();
    }
}

/// What the hook's work came to: the line to print, if any, and whether time ran out.
#[derive(Default)]
struct Answer {
    line: Option<String>,
    timed_out: bool,
}

/// Everything but the printing.
fn answer(start: Instant, deadline: Duration, stage: &AtomicU8, event_name: &OnceLock<String>, paths: Option<Paths>) -> Answer {
    let mut timed_out = false;
    let line = respond(start, deadline, stage, event_name, paths, &mut timed_out);
    Answer { line, timed_out }
}

fn respond(start: Instant, deadline: Duration, stage: &AtomicU8, event_name: &OnceLock<String>, paths: Option<Paths>, timed_out: &mut bool) -> Option<String> {
    let mut payload = input::read_first_value(std::io::stdin().lock()).ok()??;
    let event = payload.get("hook_event_name").and_then(|v| v.as_str()).unwrap_or("").to_string();
    let _ = event_name.set(event.clone());
    let paths = paths?;
    input::truncate(&mut payload);

    stage.store(Stage::Connecting as u8, Ordering::Release);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_io().enable_time().build().ok()?;
    let reply = runtime.block_on(async {
        let remaining = deadline.saturating_sub(start.elapsed());
        let client = match tokio::time::timeout(remaining, connect::connect(&paths)).await {
            Ok(Ok(client)) => client,
            Ok(Err(ClientError::NotRunning(_))) => {
                if event == "SessionStart" && !env_is("CAIRN_AUTOSTART", "0") {
                    autostart();
                }
                return None;
            }
            Ok(Err(_)) => return None,
            Err(_) => {
                *timed_out = true;
                return None;
            }
        };
        stage.store(Stage::Waiting as u8, Ordering::Release);
        let remaining = deadline.saturating_sub(start.elapsed());
        match tokio::time::timeout(remaining, client.hook(connect::ctx(remaining), PROTOCOL_VERSION, payload)).await {
            Ok(Ok(Ok(reply))) => Some(reply),
            // tarpc's own deadline is the same deadline: it ran out.
            Ok(Err(tarpc::client::RpcError::DeadlineExceeded)) | Err(_) => {
                *timed_out = true;
                None
            }
            // A protocol mismatch (older daemon) or any other error degrades to no output.
            Ok(_) => None,
        }
    })?;
    output::hook_output(&event, reply.additional_context.as_deref(), reply.decision.as_ref())
}

/// Launches the daemon without waiting for it; its pidfile lock makes a second launch harmless.
fn autostart() {
    if let Ok(daemon) = launch::find_daemon() {
        let _ = launch::spawn_daemon(&daemon, false, None);
    }
}
