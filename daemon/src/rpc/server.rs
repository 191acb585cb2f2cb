//! The socket: binds the Unix socket safely, serves the service on every connection from this
//! user, and on shutdown stops accepting, drains requests in flight, and removes the socket.

use std::io;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cairn_proto::service::Cairn;
use cairn_proto::{PathError, Paths};
use futures::StreamExt;
use tarpc::server::{BaseChannel, Channel};
use tokio::net::UnixListener;
use tokio::task::JoinSet;

use super::service::Service;
use crate::app::Daemon;

/// Longest wait for requests in flight at shutdown.
const DRAIN_LIMIT: Duration = Duration::from_secs(10);

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

/// Serves until the daemon's shutdown token fires, then drains and returns.
pub async fn serve(daemon: Arc<Daemon>, listener: UnixListener) {
    let me = cairn_proto::paths::uid();
    let mut connections = JoinSet::new();
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
                let channel = BaseChannel::with_defaults(cairn_proto::transport::wrap(stream));
                let server = Service(daemon.clone());
                connections.spawn(channel.execute(server.serve()).for_each(|request| async {
                    tokio::spawn(request);
                }));
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
