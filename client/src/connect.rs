//! Reaching the daemon: connect to the socket (checked first), wrap it in the protocol's
//! transport, and for human commands confirm with a handshake that both speak one protocol.

use std::io;
use std::time::{Duration, Instant};

use cairn_proto::{CairnClient, Handshake, PathError, Paths, RpcError, PROTOCOL_VERSION};
use tarpc::client::RpcError as TransportError;
use tarpc::context;
use tokio::net::UnixStream;

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("cairnd is not running (no answer on {0}); start it with `cairn up`")]
    NotRunning(String),
    #[error("cairnd {daemon_version} speaks protocol {daemon} but this cairn ({client_version}) speaks {client}: restart it with `cairn down && cairn up`")]
    ProtocolMismatch { daemon: u32, daemon_version: String, client: u32, client_version: &'static str },
    #[error("{0}")]
    Path(#[from] PathError),
    #[error("cannot reach cairnd at {socket}: {source}")]
    Connect { socket: String, source: io::Error },
    #[error("cairnd did not answer: {0}")]
    Transport(#[from] TransportError),
    #[error("{0}")]
    Rpc(#[from] RpcError),
    #[error("cairnd did not answer within {0:?}")]
    Timeout(Duration),
}

/// Connects without any handshake: the hook's path.
pub async fn connect(paths: &Paths) -> Result<CairnClient, ClientError> {
    paths.check_socket_dir()?;
    let socket = paths.socket.display().to_string();
    let stream = match UnixStream::connect(&paths.socket).await {
        Ok(s) => s,
        Err(e) if matches!(e.kind(), io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused) => {
            return Err(ClientError::NotRunning(socket));
        }
        Err(source) => return Err(ClientError::Connect { socket, source }),
    };
    Ok(CairnClient::new(tarpc::client::Config::default(), cairn_proto::transport::wrap(stream)).spawn())
}

/// A context whose deadline is `timeout` from now.
pub fn ctx(timeout: Duration) -> context::Context {
    let mut ctx = context::current();
    ctx.deadline = Instant::now() + timeout;
    ctx
}

/// Default patience for human commands.
pub const HUMAN_TIMEOUT: Duration = Duration::from_secs(30);

/// Connects and checks the protocol: the path of every human command.
pub async fn open(paths: &Paths) -> Result<(CairnClient, Handshake), ClientError> {
    let client = connect(paths).await?;
    let hello = tokio::time::timeout(Duration::from_secs(10), client.handshake(ctx(Duration::from_secs(10))))
        .await
        .map_err(|_| ClientError::Timeout(Duration::from_secs(10)))??;
    if hello.protocol != PROTOCOL_VERSION {
        return Err(ClientError::ProtocolMismatch {
            daemon: hello.protocol,
            daemon_version: hello.version,
            client: PROTOCOL_VERSION,
            client_version: cairn_proto::VERSION,
        });
    }
    Ok((client, hello))
}
