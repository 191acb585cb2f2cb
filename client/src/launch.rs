//! Starting `cairnd` (and the dashboard's `cairn-ui`) in the background: found beside this
//! `cairn` binary, else on PATH, started in its own session so that it outlives the hook or
//! terminal that launched it.

use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error("cannot find {name} beside {exe} or on PATH; install cairn's binaries together")]
    NotFound { name: &'static str, exe: String },
    #[error("cannot start {path}: {source}")]
    Spawn { path: PathBuf, source: std::io::Error },
}

/// One of cairn's binaries: beside the running `cairn`, else on PATH.
pub fn find(name: &'static str) -> Result<PathBuf, LaunchError> {
    let exe = std::env::current_exe().ok();
    if let Some(beside) = exe.as_ref().and_then(|e| e.parent()).map(|dir| dir.join(name))
        && beside.is_file()
    {
        return Ok(beside);
    }
    which::which(name).map_err(|_| LaunchError::NotFound { name, exe: exe.map(|e| e.display().to_string()).unwrap_or_else(|| "cairn".into()) })
}

/// The daemon binary: beside the running `cairn`, else on PATH.
pub fn find_daemon() -> Result<PathBuf, LaunchError> {
    find("cairnd")
}

/// Starts the daemon detached (new session, no terminal), its stderr to `stderr_log` if given.
pub fn spawn_daemon(daemon: &Path, lite: bool, stderr_log: Option<&Path>) -> Result<Child, LaunchError> {
    spawn_detached(daemon, if lite { &["--lite"] } else { &[] }, stderr_log)
}

/// Starts a program detached (new session, no terminal, no stdin or stdout), its stderr to
/// `stderr_log` if given.
pub fn spawn_detached(program: &Path, args: &[&str], stderr_log: Option<&Path>) -> Result<Child, LaunchError> {
    let spawn_err = |source| LaunchError::Spawn { path: program.to_path_buf(), source };
    let stderr = match stderr_log {
        Some(path) => {
            if let Some(dir) = path.parent() {
                let _ = cairn_proto::paths::create_private_dir(dir);
            }
            let file = std::fs::OpenOptions::new().create(true).write(true).truncate(true).mode(0o600).open(path).map_err(spawn_err)?;
            Stdio::from(file)
        }
        None => Stdio::null(),
    };
    let mut cmd = Command::new(program);
    cmd.args(args);
    cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(stderr);
    // SAFETY: setsid is async-signal-safe and the closure touches nothing else.
    unsafe {
        cmd.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    cmd.spawn().map_err(spawn_err)
}
