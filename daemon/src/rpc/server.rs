//! The socket: binds the Unix socket safely, serves the service on every connection from this
//! user, and on shutdown stops accepting, drains requests in flight, and removes the socket.
//! Connections are bounded: at most [`MAX_CONNECTIONS`] at once (the one idle the longest makes
//! room for a new one), and one with nothing asked and nothing running for [`IDLE_LIMIT`] is
//! closed, so idle clients can neither pile up memory nor lock others out.

use std::io;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use cairn_proto::service::Cairn;
use cairn_proto::{PathError, Paths};
use futures::StreamExt;
use tarpc::server::{BaseChannel, Channel};
use tokio::net::UnixListener;
use tokio::task::JoinSet;
// tokio's clock, so that idle limits follow paused time in tests as the timers do.
use tokio::time::Instant;

use super::service::Service;
use crate::app::Daemon;

/// Longest wait for requests in flight at shutdown.
const DRAIN_LIMIT: Duration = Duration::from_secs(10);
/// Connections served at once; past it the one idle the longest is closed to make room. A hook
/// holds one for milliseconds, a command for its run.
pub const MAX_CONNECTIONS: usize = 256;
/// A connection with no request for this long, and none running, is closed.
pub const IDLE_LIMIT: Duration = Duration::from_secs(60);

#[derive(Debug, thiserror::Error)]
pub enum BindError {
    #[error(transparent)]
    Path(#[from] PathError),
    #[error("a daemon already answers on {0}")]
    InUse(PathBuf),
    #[error("{0} exists and is not a socket; move it away")]
    NotASocket(PathBuf),
    #[error("cannot bind {path}: {source}")]
    Io { path: PathBuf, source: io::Error },
}

/// Binds the socket. A leftover socket is removed only when connecting to it is refused.
pub fn bind(paths: &Paths) -> Result<UnixListener, BindError> {
    paths.prepare_socket_dir()?;
    let path = &paths.socket;
    let io_err = |source| BindError::Io { path: path.clone(), source };
    match std::fs::symlink_metadata(path) {
        Ok(meta) if !meta.file_type().is_socket() => return Err(BindError::NotASocket(path.clone())),
        Ok(_) => match std::os::unix::net::UnixStream::connect(path) {
            Ok(_) => return Err(BindError::InUse(path.clone())),
            Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
                tracing::info!(path = %path.display(), "removing stale socket");
                std::fs::remove_file(path).map_err(io_err)?;
            }
            Err(e) => return Err(io_err(e)),
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_err(e)),
    }
    let listener = UnixListener::bind(path).map_err(io_err)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(io_err)?;
    Ok(listener)
}

/// Removes the socket if it is still ours.
pub fn remove_socket(path: &Path) {
    if let Err(e) = std::fs::remove_file(path)
        && e.kind() != io::ErrorKind::NotFound
    {
        tracing::warn!(error = %e, "cannot remove socket");
    }
}

/// One open connection as the accept loop sees it: whether it is running anything, when it was
/// last busy, and a request to close it.
#[derive(Default)]
struct Slot {
    running: AtomicUsize,
    /// Milliseconds since the server started, when the connection was accepted, a request came
    /// or one ended.
    last: AtomicU64,
    /// Asked to close to make room; the connection itself decides, and declines while busy.
    closing: std::sync::atomic::AtomicBool,
    close: tokio::sync::Notify,
}

impl Slot {
    fn touch(&self, clock: Instant) {
        self.last.store(clock.elapsed().as_millis() as u64, Ordering::Release);
    }

    fn idle_for(&self, clock: Instant) -> Duration {
        Duration::from_millis((clock.elapsed().as_millis() as u64).saturating_sub(self.last.load(Ordering::Acquire)))
    }
}

/// Counts a request as running until dropped, and marks when it ended, even if it panicked.
struct Running(Arc<Slot>, Instant);

impl Drop for Running {
    fn drop(&mut self) {
        self.0.touch(self.1);
        self.0.running.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The open connections, for making room: the ones whose task ended are forgotten.
#[derive(Default)]
struct Slots {
    open: Vec<Weak<Slot>>,
}

impl Slots {
    fn add(&mut self, clock: Instant) -> Arc<Slot> {
        let slot = Arc::new(Slot::default());
        // A connection just accepted counts as busy now, not as idle since the server started.
        slot.touch(clock);
        self.open.push(Arc::downgrade(&slot));
        slot
    }

    fn count(&mut self) -> usize {
        self.open.retain(|w| w.strong_count() > 0);
        self.open.len()
    }

    /// Asks the connection idle the longest (nothing running) to close; false when every one
    /// is busy or already asked.
    fn close_oldest_idle(&mut self) -> bool {
        let oldest = self
            .open
            .iter()
            .filter_map(Weak::upgrade)
            .filter(|s| s.running.load(Ordering::Acquire) == 0 && !s.closing.load(Ordering::Acquire))
            .min_by_key(|s| s.last.load(Ordering::Acquire));
        oldest
            .map(|s| {
                s.closing.store(true, Ordering::Release);
                s.close.notify_one();
            })
            .is_some()
    }
}

/// Serves one connection's `requests` until the client closes it, it has been idle (no
/// request running, none for `idle`), or the accept loop asks it to make room while it is
/// idle. Each request runs on its own task; the stream keeps being polled meanwhile, which is
/// what writes the answers back.
async fn connection<S, F>(requests: S, idle: Duration, slot: Arc<Slot>, clock: Instant)
where
    S: futures::Stream<Item = F>,
    F: std::future::Future<Output = ()> + Send + 'static,
{
    let mut requests = std::pin::pin!(requests);
    loop {
        // While a request runs, look again after a whole limit; idle, when the limit is up.
        let wait = match slot.running.load(Ordering::Acquire) {
            0 => idle.saturating_sub(slot.idle_for(clock)).max(Duration::from_millis(1)),
            _ => idle,
        };
        let next = tokio::select! {
            _ = slot.close.notified() => {
                // A request may have come between the accept loop's look and now: then stay.
                if slot.running.load(Ordering::Acquire) == 0 {
                    tracing::debug!("closing an idle connection to make room");
                    return;
                }
                slot.closing.store(false, Ordering::Release);
                continue;
            }
            next = tokio::time::timeout(wait, requests.next()) => next,
        };
        match next {
            Ok(Some(request)) => {
                slot.touch(clock);
                slot.running.fetch_add(1, Ordering::AcqRel);
                let running = Running(slot.clone(), clock);
                tokio::spawn(async move {
                    request.await;
                    drop(running);
                });
            }
            Ok(None) => return,
            // Idle for the whole limit since the last request or the end of the last one.
            Err(_) if slot.running.load(Ordering::Acquire) == 0 && slot.idle_for(clock) >= idle => {
                tracing::debug!("closing an idle connection");
                return;
            }
            Err(_) => {}
        }
    }
}

/// Serves until the daemon's shutdown token fires, then drains and returns.
pub async fn serve(daemon: Arc<Daemon>, listener: UnixListener) {
    let me = cairn_proto::paths::uid();
    let mut connections = JoinSet::new();
    let mut refused: u64 = 0;
    let mut slots = Slots::default();
    let clock = Instant::now();
    loop {
        tokio::select! {
            _ = daemon.shutdown().cancelled() => break,
            accepted = listener.accept() => {
                let stream = match accepted {
                    Ok((stream, _)) => stream,
                    Err(e) => {
                        tracing::warn!(error = %e, "accept failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                // The socket is 0600 already; the peer check keeps it the user's alone regardless.
                match stream.peer_cred() {
                    Ok(cred) if cred.uid() == me => {}
                    other => {
                        tracing::warn!(peer = ?other.map(|c| c.uid()), "refusing connection from another user");
                        continue;
                    }
                }
                // At the cap, the connection idle the longest makes room; when every one is
                // busy, the new one is closed (a hook then gives up quietly, as with no daemon).
                if slots.count() >= MAX_CONNECTIONS && !slots.close_oldest_idle() {
                    refused += 1;
                    // Once per hundred, not per connection: a flood must not flood the log too.
                    if refused % 100 == 1 {
                        tracing::warn!(open = MAX_CONNECTIONS, refused, "every connection is busy; closing new ones until some end");
                    }
                    continue;
                }
                let channel = BaseChannel::with_defaults(cairn_proto::transport::wrap(stream));
                connections.spawn(connection(channel.execute(Service(daemon.clone()).serve()), IDLE_LIMIT, slots.add(clock), clock));
            }
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    drop(listener);
    let started = Instant::now();
    while daemon.inflight() > 0 && started.elapsed() < DRAIN_LIMIT {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    if daemon.inflight() > 0 {
        tracing::warn!(inflight = daemon.inflight(), "requests still running after the drain limit");
    }
    connections.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A connection that asks nothing is closed after the idle limit; one whose request is
    /// still running is kept until it ends.
    #[tokio::test(start_paused = true)]
    async fn idle_connections_close_busy_ones_stay() {
        let idle = Duration::from_secs(60);
        let clock = Instant::now();
        let mut slots = Slots::default();
        let silent = futures::stream::pending::<futures::future::Ready<()>>();
        let started = Instant::now();
        connection(silent, idle, slots.add(clock), clock).await;
        assert_eq!(started.elapsed(), idle);

        // One request that runs for three idle limits, then nothing: the connection lasts
        // until it ends, then one idle limit more, counted from its end.
        let (done_tx, done_rx) = tokio::sync::oneshot::channel::<()>();
        let slow = async move {
            tokio::time::sleep(idle * 3).await;
            let _ = done_tx.send(());
        };
        let requests = futures::stream::iter([slow]).chain(futures::stream::pending());
        let started = Instant::now();
        connection(requests, idle, slots.add(clock), clock).await;
        assert!(done_rx.await.is_ok(), "the request ran to its end");
        assert_eq!(started.elapsed(), idle * 4);
    }

    /// A request that panics still ends its count: the connection can go idle and close.
    #[tokio::test(start_paused = true)]
    async fn a_panicking_request_does_not_pin_its_connection() {
        let idle = Duration::from_secs(60);
        let clock = Instant::now();
        let slot = Slots::default().add(clock);
        let boom = async { panic!("a handler panicked") };
        let requests = futures::stream::iter([boom]).chain(futures::stream::pending());
        connection(requests, idle, slot.clone(), clock).await;
        assert_eq!(slot.running.load(Ordering::Acquire), 0);
    }

    /// Asked to make room while a request runs, a connection stays; idle, it goes.
    #[tokio::test(start_paused = true)]
    async fn a_busy_connection_declines_to_make_room() {
        let idle = Duration::from_secs(60);
        let clock = Instant::now();
        let slot = Slots::default().add(clock);
        let requests = futures::stream::iter([tokio::time::sleep(Duration::from_secs(10))]).chain(futures::stream::pending());
        let task = tokio::spawn(connection(requests, idle, slot.clone(), clock));
        tokio::time::sleep(Duration::from_secs(1)).await;
        slot.closing.store(true, Ordering::Release);
        slot.close.notify_one();
        tokio::time::sleep(Duration::from_secs(1)).await;
        assert!(!task.is_finished(), "busy: it stays");
        tokio::time::sleep(Duration::from_secs(10)).await;
        slot.closing.store(true, Ordering::Release);
        slot.close.notify_one();
        tokio::time::sleep(Duration::from_millis(10)).await;
        assert!(task.is_finished(), "idle: it goes");
    }

    #[test]
    fn room_is_made_by_the_connection_idle_the_longest() {
        let clock = Instant::now();
        let mut slots = Slots::default();
        let (a, b, c) = (slots.add(clock), slots.add(clock), slots.add(clock));
        a.last.store(30, Ordering::Release);
        b.last.store(10, Ordering::Release);
        b.running.store(1, Ordering::Release);
        c.last.store(20, Ordering::Release);
        assert_eq!(slots.count(), 3);
        assert!(slots.close_oldest_idle());
        assert!(c.closing.load(Ordering::Acquire) && !a.closing.load(Ordering::Acquire) && !b.closing.load(Ordering::Acquire), "b is busy, c idle the longest");
        assert!(slots.close_oldest_idle());
        assert!(a.closing.load(Ordering::Acquire));
        assert!(!slots.close_oldest_idle(), "only a busy one is left");
        drop((a, c));
        assert_eq!(slots.count(), 1, "ended connections are forgotten");
    }
}
