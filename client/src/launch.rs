//! Starting `cairnd` in the background: found beside this `cairn` binary, else on PATH, started
//! in its own session so that it outlives the hook or terminal that launched it.

use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error("cannot find cairnd beside {0} or on PATH; install both binaries together")]
    NotFound(String),
    #[error("cannot start {path}: {source}")]
    Spawn { path: PathBuf, source: std::io::Error },
}

/// The daemon binary: beside the running `cairn`, else on PATH.
pub fn find_daemon() -> Result<PathBuf, LaunchError> {
    let exe = std::env::current_exe().ok();
    if let Some(beside) = exe.as_ref().and_then(|e| e.parent()).map(|dir| dir.join("cairnd"))
        && beside.is_file()
    {
        return Ok(beside);
    }
    which::which("cairnd").map_err(|_| LaunchError::NotFound(exe.map(|e| e.display().to_string()).unwrap_or_else(|| "cairn".into())))
}

/// Starts the daemon detached (new session, no terminal), its stderr to `stderr_log` if given.
pub fn spawn_daemon(daemon: &Path, lite: bool, stderr_log: Option<&Path>) -> Result<Child, LaunchError> {
    let spawn_err = |source| LaunchError::Spawn { path: daemon.to_path_buf(), source };
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
    let mut cmd = Command::new(daemon);
    if lite {
        cmd.arg("--lite");
    }
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
