//! The socket side of the daemon: binds the Unix socket safely, serves the tarpc service on every
//! connection, and on shutdown stops accepting, drains requests in flight, and removes the socket.

use std::io;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cairn_proto::service::Cairn;
use cairn_proto::*;
use futures::StreamExt;
use tarpc::context::Context;
use tarpc::server::{BaseChannel, Channel};
use tokio::net::UnixListener;
use tokio::task::JoinSet;

use crate::handlers;
use crate::state::Daemon;

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

#[derive(Clone)]
struct Server(Arc<Daemon>);

impl Cairn for Server {
    async fn handshake(self, _: Context) -> Handshake {
        Handshake { version: VERSION.to_string(), protocol: PROTOCOL_VERSION }
    }

    async fn status(self, _: Context) -> Status {
        let _g = self.0.enter();
        handlers::status::handle(&self.0).await
    }

    async fn hook(self, _: Context, protocol: u32, payload: serde_json::Value) -> Result<HookReply, RpcError> {
        let _g = self.0.enter();
        handlers::hook::handle(&self.0, protocol, payload).await
    }

    async fn add(self, _: Context, memory: NewMemory) -> Result<Memory, RpcError> {
        let _g = self.0.enter();
        handlers::add::handle(&self.0, memory).await
    }

    async fn show(self, _: Context, id: String) -> Result<Memory, RpcError> {
        let _g = self.0.enter();
        handlers::show::handle(&self.0, id).await
    }

    async fn edit(self, _: Context, edit: MemoryEdit) -> Result<Memory, RpcError> {
        let _g = self.0.enter();
        handlers::edit::handle(&self.0, edit).await
    }

    async fn forget(self, _: Context, id: String) -> Result<Memory, RpcError> {
        let _g = self.0.enter();
        handlers::forget::handle(&self.0, id).await
    }

    async fn list(self, _: Context, query: ListQuery) -> Result<Page<Memory>, RpcError> {
        let _g = self.0.enter();
        handlers::list::handle(&self.0, query).await
    }

    async fn import(self, _: Context, batch: ImportBatch) -> Result<ImportReport, RpcError> {
        let _g = self.0.enter();
        handlers::import::handle(&self.0, batch).await
    }

    async fn export(self, _: Context, after: Option<String>, limit: u32) -> Result<Page<String>, RpcError> {
        let _g = self.0.enter();
        handlers::export::handle(&self.0, after, limit).await
    }

    async fn advise(self, _: Context, request: AdviseRequest) -> Result<Advice, RpcError> {
        let _g = self.0.enter();
        handlers::advise::handle(&self.0, request).await
    }

    async fn config_show(self, _: Context) -> ConfigReport {
        let _g = self.0.enter();
        handlers::config::show(&self.0).await
    }

    async fn config_init(self, _: Context, force: bool) -> Result<Vec<String>, RpcError> {
        let _g = self.0.enter();
        handlers::config::init(&self.0, force).await
    }

    async fn pause(self, _: Context, scope: Scope) -> Result<String, RpcError> {
        let _g = self.0.enter();
        handlers::pause::handle(&self.0, scope, true).await
    }

    async fn resume(self, _: Context, scope: Scope) -> Result<String, RpcError> {
        let _g = self.0.enter();
        handlers::pause::handle(&self.0, scope, false).await
    }

    async fn search(self, _: Context, request: SearchRequest) -> Result<SearchResults, RpcError> {
        let _g = self.0.enter();
        handlers::search::handle(&self.0, request).await
    }

    async fn reindex(self, _: Context) -> Result<JobProgress, RpcError> {
        let _g = self.0.enter();
        handlers::semantic::reindex(&self.0).await
    }

    async fn job(self, _: Context, id: Option<u64>) -> Option<JobProgress> {
        handlers::semantic::job(&self.0, id).await
    }

    async fn load_model(self, _: Context) -> String {
        let _g = self.0.enter();
        handlers::semantic::load_model(&self.0).await
    }

    async fn mute(self, _: Context, id: String, muted: bool) -> Result<Memory, RpcError> {
        let _g = self.0.enter();
        handlers::mute::handle(&self.0, id, muted).await
    }

    async fn seeds(self, _: Context, action: SeedAction) -> Result<SeedReport, RpcError> {
        let _g = self.0.enter();
        handlers::seeds::handle(&self.0, action).await
    }

    async fn log(self, _: Context, query: LogQuery) -> Result<Vec<LogEntry>, RpcError> {
        let _g = self.0.enter();
        handlers::log::handle(&self.0, query).await
    }

    async fn shutdown(self, _: Context) {
        tracing::info!("shutdown requested");
        let token = self.0.shutdown.clone();
        // Let this answer reach the client before connections close.
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            token.cancel();
        });
    }
}

/// Serves until the daemon's shutdown token fires, then drains and returns.
pub async fn serve(daemon: Arc<Daemon>, listener: UnixListener) {
    let me = cairn_proto::paths::uid();
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            _ = daemon.shutdown.cancelled() => break,
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
                let server = Server(daemon.clone());
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
