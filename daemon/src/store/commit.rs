//! Group commit: a write is acknowledged only once it is on disk, and writers that arrive while
//! a flush is running share the next one, so a burst of hooks costs a few fsyncs, not one each.
//!
//! A flush that fails (a full disk, an I/O error) is final for this run: sled refuses every
//! later write until the store is opened again. The committer then answers every waiter at
//! once with the reason instead of retrying for ever, so a client gets a clear error rather
//! than a timeout, and the daemon can reopen the store once the disk takes writes again.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use tokio::sync::{watch, Notify};

/// What the flusher has done: the last ticket made durable, or why nothing more will be.
#[derive(Debug, Clone, Default, PartialEq)]
struct Flushed {
    upto: u64,
    failed: Option<String>,
}

/// Flushes `db` on demand from a background task.
pub struct Committer {
    requested: AtomicU64,
    wake: Notify,
    done: watch::Sender<Flushed>,
}

impl Committer {
    /// Starts the flusher on the current tokio runtime.
    pub fn start(db: sled::Db) -> Arc<Committer> {
        let committer = Arc::new(Committer { requested: AtomicU64::new(0), wake: Notify::new(), done: watch::channel(Flushed::default()).0 });
        let this = committer.clone();
        tokio::spawn(async move { this.run(db).await });
        committer
    }

    /// Asks for a flush of everything written so far without waiting for it.
    pub fn request(&self) -> u64 {
        let ticket = self.requested.fetch_add(1, Ordering::AcqRel) + 1;
        self.wake.notify_one();
        ticket
    }

    /// Returns once everything written before the call is durable, or the reason it never will
    /// be in this run.
    pub async fn durable(&self) -> Result<(), String> {
        let mut done = self.done.subscribe();
        let ticket = self.request();
        // The flusher lives as long as the committer, so the channel cannot close under us.
        let state = match done.wait_for(|f| f.upto >= ticket || f.failed.is_some()).await {
            Ok(state) => state.clone(),
            Err(_) => return Err("the store's flusher has stopped".into()),
        };
        match state.failed {
            Some(reason) if state.upto < ticket => Err(reason),
            _ => Ok(()),
        }
    }

    /// Why the store cannot write any more, once a flush has failed.
    pub fn failure(&self) -> Option<String> {
        self.done.borrow().failed.clone()
    }

    /// Records a write failure seen outside the flusher (a refused insert), so that waiters and
    /// the recovery check learn of it at once.
    pub fn fail(&self, reason: String) {
        self.done.send_if_modified(|f| {
            let first = f.failed.is_none();
            if first {
                f.failed = Some(reason);
            }
            first
        });
    }

    async fn run(&self, db: sled::Db) {
        loop {
            self.wake.notified().await;
            let target = self.requested.load(Ordering::Acquire);
            if target <= self.done.borrow().upto || self.failure().is_some() {
                continue;
            }
            let db = db.clone();
            let outcome = match tokio::task::spawn_blocking(move || db.flush()).await {
                Ok(Ok(_)) => Ok(()),
                Ok(Err(e)) => Err(describe(&e)),
                Err(e) => Err(format!("the flush task failed: {e}")),
            };
            match outcome {
                Ok(()) => {
                    self.done.send_modify(|f| f.upto = f.upto.max(target));
                }
                Err(reason) => {
                    tracing::error!(reason, "store flush failed; writes are refused until the disk takes them again");
                    self.fail(reason);
                }
            }
        }
    }
}

/// What a full disk is called in errors (and how the store tells that cause from others).
pub const FULL_DISK: &str = "the disk is full (no space left on the device)";

/// A sled error in words a user can act on: a full disk is named as such.
pub fn describe(e: &sled::Error) -> String {
    match e {
        sled::Error::Io(io) if is_full(io) => FULL_DISK.into(),
        sled::Error::Io(io) => format!("the disk refused a write ({io})"),
        other => other.to_string(),
    }
}

/// Whether an I/O error means there is no room left (space or quota).
pub fn is_full(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::StorageFull
        || e.kind() == std::io::ErrorKind::QuotaExceeded
        || matches!(e.raw_os_error(), Some(libc::ENOSPC) | Some(libc::EDQUOT))
        // sled wraps some I/O errors in a custom error that keeps only the text.
        || e.to_string().contains("No space left on device")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn waiters_get_the_failure_at_once_and_later_ones_too() {
        let dir = tempfile::tempdir().unwrap();
        let db = sled::Config::new().path(dir.path()).open().unwrap();
        let c = Committer::start(db);
        assert_eq!(c.durable().await, Ok(()));
        c.fail("the disk is full".into());
        assert_eq!(c.durable().await, Err("the disk is full".to_string()));
        assert_eq!(c.durable().await, Err("the disk is full".to_string()));
        // The first reason is kept.
        c.fail("something else".into());
        assert_eq!(c.failure().as_deref(), Some("the disk is full"));
    }

    #[test]
    fn a_full_disk_is_named() {
        let full = sled::Error::Io(std::io::Error::from_raw_os_error(libc::ENOSPC));
        assert_eq!(describe(&full), FULL_DISK);
        let other = sled::Error::Io(std::io::Error::from_raw_os_error(libc::EIO));
        assert!(describe(&other).starts_with("the disk refused a write"), "{}", describe(&other));
    }
}
