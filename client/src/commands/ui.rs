//! `cairn ui`: the dashboard. Starts `cairn-ui` (a separate binary, so neither this client nor
//! the daemon carries an HTTP stack) or reuses the one already serving this home, prints its
//! URL with the per-start token, and opens it in the browser where one is available.
//! `cairn ui --stop` stops it.

use std::path::Path;
use std::time::{Duration, Instant};

use cairn_proto::ui::{self, UiState};
use cairn_proto::Paths;

use super::{client_starting_daemon, Failure};
use crate::launch;

/// How long to wait for a dashboard it started to listen.
const START_LIMIT: Duration = Duration::from_secs(10);

fn alive(pid: u32) -> bool {
    // SAFETY: signal 0 checks that the process exists and is ours; it sends nothing.
    pid > 0 && unsafe { libc::kill(pid as libc::pid_t, 0) } == 0
}

/// Whether something accepts connections on the port.
fn listening(port: u16) -> bool {
    std::net::TcpStream::connect_timeout(&(std::net::Ipv4Addr::LOCALHOST, port).into(), Duration::from_millis(500)).is_ok()
}

/// Whether the server on `port` takes `token` (a stale state file's pid may be another
/// process's by now): one request for the stylesheet, as a browser would send it.
fn takes_token(port: u16, token: &str) -> bool {
    use std::io::{Read, Write};
    let Ok(mut s) = std::net::TcpStream::connect_timeout(&(std::net::Ipv4Addr::LOCALHOST, port).into(), Duration::from_millis(500)) else { return false };
    let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
    let request = format!("GET /static/style.css HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nCookie: cairn_ui_{port}={token}\r\nConnection: close\r\n\r\n");
    let mut head = [0u8; 12];
    s.write_all(request.as_bytes()).is_ok() && s.read_exact(&mut head).is_ok() && &head == b"HTTP/1.1 200"
}

/// The dashboard serving this home, if one is up.
fn running(paths: &Paths) -> Option<UiState> {
    let s = ui::read(&ui::state_file(paths))?;
    (s.socket == paths.socket.display().to_string() && alive(s.pid) && takes_token(s.port, &s.token)).then_some(s)
}

/// The last lines a dashboard that failed to start wrote.
fn tail(path: &Path) -> String {
    let text = cairn_proto::files::read_text(path, 64 * 1024).unwrap_or_default();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(3)..].join("\n")
}

/// Opens the dashboard in the browser, if there is one to open it with, signed in by a
/// one-time code: the token never appears on a command line (which other local users can read).
fn open_browser(paths: &Paths, port: u16) -> Result<bool, Failure> {
    let opener = if cfg!(target_os = "macos") { "open" } else { "xdg-open" };
    let Ok(program) = which::which(opener) else { return Ok(false) };
    let code = ui::new_signin(paths).map_err(|e| Failure::new(1, format!("cannot make a sign-in code: {e}")))?;
    let opened = launch::spawn_detached(&program, &[&format!("http://127.0.0.1:{port}/signin?code={code}")], None).is_ok();
    if !opened {
        let _ = std::fs::remove_file(ui::signin_file(paths, &code));
    }
    Ok(opened)
}

pub async fn ui(port: Option<u16>, open: bool, stop: bool) -> Result<(), Failure> {
    let paths = Paths::from_env()?;
    if stop {
        let Some(s) = running(&paths) else {
            errln!("no dashboard is running for this home");
            return Ok(());
        };
        // SAFETY: sending SIGTERM to a process of ours that the state file names.
        unsafe { libc::kill(s.pid as libc::pid_t, libc::SIGTERM) };
        let asked = Instant::now();
        while alive(s.pid) && asked.elapsed() < START_LIMIT {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        if alive(s.pid) {
            return Err(Failure::new(1, format!("the dashboard (pid {}) did not stop", s.pid)));
        }
        errln!("dashboard stopped");
        return Ok(());
    }
    // The pages read everything from the daemon: have one up.
    client_starting_daemon().await?;
    let state = match running(&paths) {
        Some(s) if port.is_none_or(|p| p == s.port) => s,
        Some(s) => return Err(Failure::new(1, format!("a dashboard already serves this home on port {}: stop it with `cairn ui --stop` first", s.port))),
        None => {
            let program = launch::find("cairn-ui").map_err(|e| Failure::new(1, e.to_string()))?;
            let log = paths.logs_dir.join("cairn-ui.stderr");
            let port_arg = port.unwrap_or(0).to_string();
            let mut child = launch::spawn_detached(&program, &["--port", &port_arg], Some(&log)).map_err(|e| Failure::new(1, e.to_string()))?;
            let started = Instant::now();
            loop {
                if let Some(s) = ui::read(&ui::state_file(&paths)).filter(|s| s.pid == child.id() && listening(s.port)) {
                    break s;
                }
                if let Ok(Some(status)) = child.try_wait() {
                    return Err(Failure::new(1, format!("the dashboard did not start ({status}): {}", tail(&log))));
                }
                if started.elapsed() > START_LIMIT {
                    let _ = child.kill();
                    return Err(Failure::new(1, format!("the dashboard did not start within {START_LIMIT:?}: {}", tail(&log))));
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    };
    let url = state.url();
    outln!("{url}");
    if open {
        if open_browser(&paths, state.port)? {
            errln!("opened in your browser");
        } else {
            errln!("no browser to open here: open the URL above");
        }
    }
    Ok(())
}
