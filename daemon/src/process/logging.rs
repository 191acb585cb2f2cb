//! The daemon's log: tracing to `logs/cairnd.log`, rotated by size (the current file plus
//! [`KEPT_FILES`] older ones, each about [`MAX_FILE_BYTES`]), level from `CAIRN_LOG` (default
//! `info`). Never logs hook payloads, which may hold secrets.
//!
//! Logging never fails the daemon: a line that cannot be written (a full disk, a folder gone) is
//! dropped, and a panic inside the rotating writer is caught, so no lock is left poisoned and
//! the next line is tried afresh.

use std::path::{Path, PathBuf};
use std::io::{self, Write};
use std::panic::AssertUnwindSafe;

use parking_lot::{Mutex, MutexGuard};

use file_rotate::compression::Compression;
use file_rotate::suffix::AppendCount;
use file_rotate::{ContentLimit, FileRotate};
use tracing_subscriber::fmt::MakeWriter;
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
    tracing_subscriber::fmt().with_env_filter(filter).with_ansi(false).with_writer(LogWriter(Mutex::new(writer))).init();
    Ok(())
}

/// The rotating file behind a lock that does not poison.
struct LogWriter<W>(Mutex<W>);

/// One line's hold on the file.
struct LogLine<'a, W>(MutexGuard<'a, W>);

impl<'a, W: Write + 'a> MakeWriter<'a> for LogWriter<W> {
    type Writer = LogLine<'a, W>;

    fn make_writer(&'a self) -> Self::Writer {
        LogLine(self.0.lock())
    }
}

impl<W: Write> LogLine<'_, W> {
    /// Runs one write, turning a panic inside it into an error.
    fn guarded<T>(&mut self, op: impl FnOnce(&mut W) -> io::Result<T>) -> io::Result<T> {
        let inner = &mut *self.0;
        std::panic::catch_unwind(AssertUnwindSafe(|| op(inner))).unwrap_or_else(|_| Err(io::Error::other("the log writer panicked")))
    }
}

impl<W: Write> Write for LogLine<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.guarded(|w| w.write(buf))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.guarded(|w| w.flush())
    }
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

    /// A writer that fails, then panics, then works: the failures are errors, and the panic
    /// leaves the lock usable for the next line.
    #[test]
    fn a_failing_or_panicking_writer_never_wedges_the_log() {
        struct Flaky(u32, Vec<u8>);
        impl Write for Flaky {
            fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
                self.0 += 1;
                match self.0 {
                    1 => Err(io::Error::from_raw_os_error(libc::ENOSPC)),
                    2 => panic!("rotation failed"),
                    _ => {
                        self.1.extend_from_slice(buf);
                        Ok(buf.len())
                    }
                }
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let log = LogWriter(Mutex::new(Flaky(0, Vec::new())));
        assert!(log.make_writer().write_all(b"one\n").is_err());
        assert!(log.make_writer().write_all(b"two\n").is_err());
        log.make_writer().write_all(b"three\n").unwrap();
        assert_eq!(log.0.lock().1, b"three\n");
    }
}
