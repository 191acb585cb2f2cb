//! The daemon's pidfile, held under an exclusive `flock` for the daemon's whole life so that two
//! daemons never share one home. The file is never deleted (deleting a locked pidfile lets a
//! second daemon lock a fresh inode); it is emptied on exit. A daemon that restarts itself in
//! place hands the locked file to its next self across `exec` ([`PidFile::keep_across_exec`],
//! adopted by [`PidFile::acquire`]), so that the home is never free in between.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum PidFileError {
    #[error("another cairnd{} already runs for this home (pidfile {path} is locked)", pid.map(|p| format!(" (pid {p})")).unwrap_or_default())]
    Held { path: PathBuf, pid: Option<u32> },
    #[error("cannot use pidfile {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
}

pub struct PidFile {
    file: File,
}

/// The variable that carries the locked pidfile's descriptor across a restart in place.
pub const HANDED_OVER: &str = "CAIRN_PIDFILE_FD";

/// The descriptor a previous self of this process handed over, if it is this very pidfile.
fn handed_over(path: &Path) -> Option<File> {
    use std::os::fd::FromRawFd;
    use std::os::unix::fs::MetadataExt;
    let fd: i32 = std::env::var(HANDED_OVER).ok()?.parse().ok()?;
    // SAFETY: fcntl(F_GETFD) only asks whether the descriptor is open.
    if fd < 3 || unsafe { libc::fcntl(fd, libc::F_GETFD) } < 0 {
        return None;
    }
    let want = std::fs::metadata(path).ok()?;
    // SAFETY: the descriptor is open, and nothing else in this process owns it: it was left
    // open by exec for this purpose (a stranger's number is refused just below, unowned).
    let file = unsafe { File::from_raw_fd(fd) };
    let same = file.metadata().is_ok_and(|m| m.dev() == want.dev() && m.ino() == want.ino());
    if !same {
        // Not ours to close.
        std::mem::forget(file);
        return None;
    }
    // SAFETY: sets close-on-exec again on a descriptor this process now owns.
    unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
    Some(file)
}

impl PidFile {
    pub fn acquire(path: &Path) -> Result<PidFile, PidFileError> {
        let io = |source| PidFileError::Io { path: path.to_path_buf(), source };
        // After a restart in place, the file and its lock are already this process's.
        let mut file = match handed_over(path) {
            Some(file) => file,
            None => OpenOptions::new().read(true).write(true).create(true).truncate(false).mode(0o600).open(path).map_err(io)?,
        };
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut text = String::new();
                let _ = file.read_to_string(&mut text);
                return Err(PidFileError::Held { path: path.to_path_buf(), pid: text.trim().parse().ok() });
            }
            Err(TryLockError::Error(e)) => return Err(io(e)),
        }
        file.set_len(0).map_err(io)?;
        file.rewind().map_err(io)?;
        writeln!(file, "{}", std::process::id()).map_err(io)?;
        file.sync_all().map_err(io)?;
        Ok(PidFile { file })
    }
}

impl PidFile {
    /// Leaves the locked file open across the coming `exec` and returns its descriptor, for
    /// [`HANDED_OVER`]: the lock is never let go between this self and the next.
    pub fn keep_across_exec(self) -> i32 {
        use std::os::fd::AsRawFd;
        let fd = self.file.as_raw_fd();
        // SAFETY: clears close-on-exec on a descriptor this process owns.
        unsafe { libc::fcntl(fd, libc::F_SETFD, 0) };
        // Neither emptied nor unlocked: the next self adopts it.
        std::mem::forget(self);
        fd
    }
}

impl Drop for PidFile {
    fn drop(&mut self) {
        // Emptied while still locked (after the unlock it may already be a new daemon's).
        let _ = self.file.set_len(0);
        let _ = self.file.unlock();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_holder_is_refused_until_release() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cairnd.pid");
        let first = PidFile::acquire(&path).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap().trim(), std::process::id().to_string());
        match PidFile::acquire(&path) {
            Err(PidFileError::Held { pid, .. }) => assert_eq!(pid, Some(std::process::id())),
            other => panic!("expected Held, got {:?}", other.err()),
        }
        drop(first);
        PidFile::acquire(&path).unwrap();
    }
}
