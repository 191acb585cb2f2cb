//! The hook's small log of deadline misses: one appended line per miss, read back by `status`.
//! Appends are single `write`s with O_APPEND, so parallel hooks never take a lock; the file is
//! rotated once it passes a small size.

use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

const MAX_BYTES: u64 = 64 * 1024;

/// The event as the log names it: a known event's name, else `unknown` (the name comes from the
/// payload: it could hold a newline that forges a line, or megabytes).
fn logged_name(event: &str) -> &str {
    if cairn_proto::tools::HOOK_EVENTS.contains(&event) { event } else { "unknown" }
}

/// Records one miss; best effort, never fails the hook.
pub fn record(log: &Path, event: &str, stage: &str, deadline_ms: u64) {
    if let Some(dir) = log.parent() {
        let _ = cairn_proto::paths::create_private_dir(dir);
    }
    // Only a regular file is rotated or written: a FIFO or a device there must not block or
    // swallow the hook.
    match std::fs::symlink_metadata(log) {
        Ok(m) if !m.is_file() => return,
        Ok(m) if m.len() > MAX_BYTES => {
            let _ = std::fs::rename(log, log.with_extension("log.1"));
        }
        _ => {}
    }
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let line = format!("{secs} event={} stage={stage} deadline_ms={deadline_ms}\n", logged_name(event));
    // Non-blocking, and checked once open: the file may have been swapped in between.
    if let Ok(mut f) = OpenOptions::new().create(true).append(true).mode(0o600).custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW).open(log)
        && f.metadata().is_ok_and(|m| m.is_file())
    {
        let _ = f.write_all(line.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_known_event_names_are_written_one_short_line_each() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("logs/hook-misses.log");
        record(&log, "PreToolUse", "connect", 250);
        record(&log, "Pre\n999 event=forged stage=x deadline_ms=1", "connect", 250);
        record(&log, &"x".repeat(5 << 20), "reply", 250);
        record(&log, "", "read", 250);
        let text = std::fs::read_to_string(&log).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert!(lines[0].contains("event=PreToolUse stage=connect"));
        assert!(lines[1..].iter().all(|l| l.contains("event=unknown") && l.len() < 100), "{text}");
    }

    /// A FIFO where the log should be is left alone, at once (opening it to write would block
    /// until a reader came).
    #[test]
    fn a_fifo_in_place_of_the_log_is_left_alone() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("hook-misses.log");
        let c = std::ffi::CString::new(log.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo reads a valid C string.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        record(&log, "PreToolUse", "connect", 250);
        assert!(std::fs::symlink_metadata(&log).unwrap().file_type().is_fifo());
    }
}
