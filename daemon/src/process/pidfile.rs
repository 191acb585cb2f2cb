//! The daemon's pidfile, held under an exclusive `flock` for the daemon's whole life so that two
//! daemons never share one home. The file is never deleted (deleting a locked pidfile lets a
//! second daemon lock a fresh inode); it is emptied on exit.

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

impl PidFile {
    pub fn acquire(path: &Path) -> Result<PidFile, PidFileError> {
        let io = |source| PidFileError::Io { path: path.to_path_buf(), source };
        let mut file = OpenOptions::new().read(true).write(true).create(true).truncate(false).mode(0o600).open(path).map_err(io)?;
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
