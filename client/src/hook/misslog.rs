//! The hook's small log of deadline misses: one appended line per miss, read back by `status`.
//! Appends are single `write`s with O_APPEND, so parallel hooks never take a lock; the file is
//! rotated once it passes a small size.

use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

const MAX_BYTES: u64 = 64 * 1024;

/// Records one miss; best effort, never fails the hook.
pub fn record(log: &Path, event: &str, stage: &str, deadline_ms: u64) {
    if let Some(dir) = log.parent() {
        let _ = cairn_proto::paths::create_private_dir(dir);
    }
    if std::fs::metadata(log).is_ok_and(|m| m.len() > MAX_BYTES) {
        let _ = std::fs::rename(log, log.with_extension("log.1"));
    }
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let line = format!("{secs} event={} stage={stage} deadline_ms={deadline_ms}\n", if event.is_empty() { "?" } else { event });
    if let Ok(mut f) = OpenOptions::new().create(true).append(true).mode(0o600).open(log) {
        let _ = f.write_all(line.as_bytes());
    }
}
