//! Group commit: a write is acknowledged only once it is on disk, and writers that arrive while
//! a flush is running share the next one, so a burst of hooks costs a few fsyncs, not one each.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{watch, Notify};

/// Flushes `db` on demand from a background task.
pub struct Committer {
    requested: AtomicU64,
    wake: Notify,
    done: watch::Sender<u64>,
}

impl Committer {
    /// Starts the flusher on the current tokio runtime.
    pub fn start(db: sled::Db) -> Arc<Committer> {
        let committer = Arc::new(Committer { requested: AtomicU64::new(0), wake: Notify::new(), done: watch::channel(0).0 });
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

    /// Returns once everything written before the call is durable.
    pub async fn durable(&self) {
        let mut done = self.done.subscribe();
        let ticket = self.request();
        // The flusher lives as long as the committer, so the channel cannot close under us.
        let _ = done.wait_for(|flushed| *flushed >= ticket).await;
    }

    async fn run(&self, db: sled::Db) {
        loop {
            self.wake.notified().await;
            let target = self.requested.load(Ordering::Acquire);
            if target <= *self.done.borrow() {
                continue;
            }
            loop {
                let db = db.clone();
                match tokio::task::spawn_blocking(move || db.flush()).await {
                    Ok(Ok(_)) => break,
                    Ok(Err(e)) => tracing::error!(error = %e, "store flush failed; retrying"),
                    Err(e) => tracing::error!(error = %e, "store flush task failed; retrying"),
                }
                // Nothing is acknowledged until a flush succeeds.
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            self.done.send_replace(target);
        }
    }
}
