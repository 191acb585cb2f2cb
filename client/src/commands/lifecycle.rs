//! `up`, `down` and `status`: starting, stopping and inspecting the daemon.

use std::time::{Duration, Instant};

use cairn_proto::{Paths, Status};

use super::{ctx, print_json, Failure};
use crate::connect::{self, ClientError};
use crate::launch;

/// Longest wait for a starting daemon to answer (a model load comes with a later release).
const START_LIMIT: Duration = Duration::from_secs(60);
/// Longest wait for a stopping daemon to let go of its home.
const STOP_LIMIT: Duration = Duration::from_secs(30);
const POLL: Duration = Duration::from_millis(25);
/// cairnd's exit code when another daemon holds the home.
const HOME_IN_USE: i32 = 75;

fn describe(s: &Status) -> String {
    format!("pid {}, mode {}, {} memories", s.pid, s.mode.as_str(), s.memories)
}

async fn running_status(paths: &Paths) -> Result<Status, ClientError> {
    let (client, _) = connect::open(paths).await?;
    Ok(client.status(ctx()).await?)
}

fn tail(path: &std::path::Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().rev().take(5).collect();
    lines.into_iter().rev().collect::<Vec<_>>().join("\n")
}

pub async fn up(lite: bool) -> Result<(), Failure> {
    let paths = Paths::from_env()?;
    let asked = Instant::now();
    loop {
        match running_status(&paths).await {
            Ok(s) => {
                outln!("cairn is already running ({})", describe(&s));
                return Ok(());
            }
            Err(ClientError::NotRunning(_)) => break,
            // A daemon that just crashed (or was killed) can still accept a connection and then
            // drop it: once its process is gone, start anew; until then, wait for it to go.
            Err(ClientError::Transport(_) | ClientError::Timeout(_)) | Err(ClientError::Connect { .. }) if asked.elapsed() < STOP_LIMIT => {
                if !daemon_alive(&paths) {
                    break;
                }
                tokio::time::sleep(POLL).await;
            }
            Err(e) => return Err(e.into()),
        }
    }
    let daemon = launch::find_daemon().map_err(|e| Failure::new(1, e.to_string()))?;
    let stderr_log = paths.logs_dir.join("cairnd.stderr");
    let started = Instant::now();
    let mut child = launch::spawn_daemon(&daemon, lite, Some(&stderr_log)).map_err(|e| Failure::new(1, e.to_string()))?;
    loop {
        match running_status(&paths).await {
            Ok(s) => {
                outln!("cairn is up ({})", describe(&s));
                return Ok(());
            }
            Err(e @ ClientError::ProtocolMismatch { .. }) => return Err(e.into()),
            Err(_) => {}
        }
        if let Some(exit) = child.try_wait()? {
            if exit.code() == Some(HOME_IN_USE) && started.elapsed() < START_LIMIT {
                // Another daemon holds this home: one starting (another `up`, a hook's autostart)
                // will answer soon; one on its way out lets go soon. Wait, then try again.
                if let Ok(s) = running_status(&paths).await {
                    outln!("cairn is already running ({})", describe(&s));
                    return Ok(());
                }
                tokio::time::sleep(POLL).await;
                if !daemon_alive(&paths) {
                    child = launch::spawn_daemon(&daemon, lite, Some(&stderr_log)).map_err(|e| Failure::new(1, e.to_string()))?;
                }
                continue;
            }
            return Err(Failure::new(1, format!("cairnd exited ({exit}) before answering:\n{}", tail(&stderr_log))));
        }
        if started.elapsed() > START_LIMIT {
            return Err(Failure::new(1, format!("cairnd did not answer within {}s; see {}", START_LIMIT.as_secs(), paths.logs_dir.join("cairnd.log").display())));
        }
        tokio::time::sleep(POLL).await;
    }
}

/// The pid in the home's pidfile; the daemon empties it as it exits.
fn pid_from_file(paths: &Paths) -> Option<i32> {
    std::fs::read_to_string(&paths.pidfile).ok()?.trim().parse().ok()
}

/// Whether process `pid` still runs (a zombie waiting for its parent counts as gone).
fn process_alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    let exists = unsafe { libc::kill(pid, 0) } == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
    exists && !std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| s.rsplit_once(") ").is_some_and(|(_, rest)| rest.starts_with('Z')))
}

/// Whether `pid` is a cairnd, where the system can tell (a pid from a stale pidfile may have
/// been given to another program since).
fn is_cairnd(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/comm")) {
        Ok(comm) => comm.trim() == "cairnd",
        // No /proc (macOS): the pidfile's content is all there is to go on.
        Err(_) => !std::path::Path::new("/proc/self").exists(),
    }
}

/// Whether the home's daemon process still exists. Checked by pid rather than by taking the
/// pidfile's lock, which would make a daemon starting at that instant fail.
fn daemon_alive(paths: &Paths) -> bool {
    pid_from_file(paths).is_some_and(|pid| process_alive(pid) && is_cairnd(pid))
}

pub async fn down() -> Result<(), Failure> {
    let paths = Paths::from_env()?;
    let mut pid = pid_from_file(&paths);
    match connect::open(&paths).await {
        Ok((client, _)) => {
            if let Ok(s) = client.status(ctx()).await {
                pid = Some(s.pid as i32);
            }
            // The daemon may close the connection as it goes; the wait below is the confirmation.
            let _ = client.shutdown(ctx()).await;
        }
        Err(ClientError::NotRunning(_)) if !daemon_alive(&paths) => {
            outln!("cairn is not running");
            return Ok(());
        }
        Err(e) => {
            // An older daemon, or one not answering: ask it to stop by signal, which it also handles
            // (only a live cairnd of this home: a stale pidfile's pid may be someone else's now).
            let Some(pid) = pid_from_file(&paths).filter(|_| daemon_alive(&paths)) else { return Err(e.into()) };
            // SAFETY: kill only sends a signal.
            unsafe { libc::kill(pid, libc::SIGTERM) };
        }
    }
    let started = Instant::now();
    // Gone means the process itself has exited, so its store is free for the next daemon.
    while daemon_alive(&paths) || paths.socket.exists() || pid.is_some_and(|p| process_alive(p) && is_cairnd(p)) {
        if started.elapsed() > STOP_LIMIT {
            return Err(Failure::new(1, format!("cairnd is still running after {}s", STOP_LIMIT.as_secs())));
        }
        tokio::time::sleep(POLL).await;
    }
    outln!("cairn stopped");
    Ok(())
}

pub async fn status(json: bool) -> Result<(), Failure> {
    let paths = Paths::from_env()?;
    let s = match running_status(&paths).await {
        Ok(s) => s,
        Err(e @ (ClientError::NotRunning(_) | ClientError::Timeout(_))) => return Err(Failure::new(3, e.to_string())),
        Err(e) => return Err(e.into()),
    };
    if json {
        print_json(&s);
        return Ok(());
    }
    let uptime = Duration::from_secs(s.uptime_s);
    outln!("cairnd {} (protocol {}), pid {}, up {}, mode {}", s.version, s.protocol, s.pid, human(uptime), s.mode.as_str());
    outln!("home:       {}", s.home);
    outln!("data:       {}", s.data_dir);
    outln!("socket:     {}", s.socket);
    outln!("memories:   {}", s.memories);
    if let Some(failure) = &s.store_failure {
        outln!("store:      {failure}");
    }
    outln!("sessions:   {} events logged", s.session_events);
    outln!("config:     {}", s.config);
    if !s.renamed_config_keys.is_empty() {
        outln!("            keys to look at (renamed, or an earlier default whose meaning changed): {}", s.renamed_config_keys.join("; "));
    }
    if !s.unknown_config_keys.is_empty() {
        outln!("            unknown keys, kept and ignored: {}", s.unknown_config_keys.join(", "));
    }
    if !s.tiers.is_empty() {
        let t = |k: &str| s.tiers.get(k).copied().unwrap_or(0);
        outln!("tiers:      {} active, {} recent, {} archived, {} expired (from the last access)", t("active"), t("recent"), t("archived"), t("expired"));
    }
    let c = &s.capture;
    outln!("captured:   {} candidate(s) waiting (`cairn review`), {} promoted, {} rejected; {} turned away since start", c.candidates, c.promoted, c.rejected, c.turned_away);
    if !s.paused.is_empty() {
        outln!("paused:     {}", s.paused.join(", "));
    }
    outln!("model:      {}", s.model);
    if let Some(m) = &s.model_info {
        outln!("            {} ({} dimensions, fingerprint {})", m.name, m.dimension, m.fingerprint);
    }
    let ix = &s.index;
    if !ix.loaded {
        outln!("index:      not loaded (it loads with the model)");
    } else {
        outln!(
        "index:      {} of {} memories embedded and indexed{}{}",
        ix.indexed,
        ix.memories,
        if ix.pending > 0 { format!(", {} waiting (found by keywords meanwhile)", ix.pending) } else { String::new() },
        if ix.unsaved { "; changes not yet saved" } else { "" }
    );
    }
    if let Some(job) = &s.job {
        let state = match (&job.error, job.finished) {
            (Some(e), _) => format!("failed: {e}"),
            (None, true) => format!("finished in {:.1}s", job.elapsed_ms as f64 / 1000.0),
            (None, false) => format!("{} {}/{}", job.phase, job.done, job.total),
        };
        outln!("job:        {} ({}), {state}", job.kind, job.started_at);
    }
    match &s.last_hook_miss {
        Some(last) => outln!("hook misses: {} (last at {last})", s.hook_misses),
        None => outln!("hook misses: {}", s.hook_misses),
    }
    Ok(())
}

fn human(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m {}s", s / 60, s % 60),
        _ => format!("{}h {}m", s / 3600, (s % 3600) / 60),
    }
}
