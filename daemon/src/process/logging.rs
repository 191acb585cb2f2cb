//! The daemon's log: tracing to `logs/cairnd.log`, rotated by size (the current file plus
//! [`KEPT_FILES`] older ones, each about [`MAX_FILE_BYTES`]), level from `CAIRN_LOG` (default
//! `info`). Never logs hook payloads, which may hold secrets.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use file_rotate::compression::Compression;
use file_rotate::suffix::AppendCount;
use file_rotate::{ContentLimit, FileRotate};
use tracing_subscriber::EnvFilter;

/// Size at which the log rotates.
pub const MAX_FILE_BYTES: usize = 2 * 1024 * 1024;
/// Rotated files kept beside the current one (`cairnd.log.1` is the newest).
pub const KEPT_FILES: usize = 4;

pub fn log_file(logs_dir: &Path) -> PathBuf {
    logs_dir.join("cairnd.log")
}

pub fn init(logs_dir: &Path) -> std::io::Result<()> {
    let path = log_file(logs_dir);
    // Fail here, with a message, rather than inside the rotating writer.
    std::fs::OpenOptions::new().create(true).append(true).open(&path)?;
    let writer = FileRotate::new(path, AppendCount::new(KEPT_FILES), ContentLimit::BytesSurpassed(MAX_FILE_BYTES), Compression::None, None);
    let filter = EnvFilter::try_from_env("CAIRN_LOG").unwrap_or_else(|_| EnvFilter::new("info"));
    tracing_subscriber::fmt().with_env_filter(filter).with_ansi(false).with_writer(Mutex::new(writer)).init();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn rotation_bounds_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = FileRotate::new(log_file(dir.path()), AppendCount::new(KEPT_FILES), ContentLimit::BytesSurpassed(1000), Compression::None, None);
        let line = [b'x'; 99];
        for _ in 0..200 {
            w.write_all(&line).unwrap();
            w.write_all(b"\n").unwrap();
        }
        w.flush().unwrap();
        let files: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().path()).collect();
        assert_eq!(files.len(), KEPT_FILES + 1, "{files:?}");
        let total: u64 = files.iter().map(|f| std::fs::metadata(f).unwrap().len()).sum();
        assert!(total <= ((KEPT_FILES + 1) * 1100) as u64, "{total}");
    }
}
