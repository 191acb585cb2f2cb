//! The server's state (the daemon connection, the secrets, the port) and how a page fails: every
//! error is a page with a status and what to do, never a panic.

use std::time::{Duration, Instant};

use askama::Template;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use cairn_proto::{CairnClient, Paths, RpcError, PROTOCOL_VERSION};
use tarpc::context;

use crate::auth::Secrets;

/// How long a page waits for the daemon.
const PATIENCE: Duration = Duration::from_secs(10);

pub struct App {
    paths: Paths,
    pub secrets: Secrets,
    pub port: u16,
    client: tokio::sync::Mutex<Option<CairnClient>>,
}

#[derive(Debug, thiserror::Error)]
pub enum PageError {
    #[error("cairnd is not running: start it with `cairn up`, then reload this page")]
    NotRunning,
    #[error("cairnd speaks protocol {0}, this dashboard {PROTOCOL_VERSION}: restart it with `cairn down && cairn up`")]
    Protocol(u32),
    #[error("cairnd did not answer: {0}")]
    Transport(String),
    #[error("not found: {0}")]
    NotFound(String),
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    Daemon(String),
    #[error("this request did not come from the dashboard's own page, so it was refused")]
    Forbidden,
    #[error("cannot render the page: {0}")]
    Render(#[from] askama::Error),
}

impl From<RpcError> for PageError {
    fn from(e: RpcError) -> PageError {
        match e {
            RpcError::NotFound(id) => PageError::NotFound(id),
            RpcError::Invalid(m) | RpcError::Failed(m) => PageError::Invalid(m),
            other => PageError::Daemon(other.to_string()),
        }
    }
}

#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage<'a> {
    layout: crate::view::Layout,
    status: u16,
    message: &'a str,
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let status = match &self {
            PageError::NotRunning | PageError::Protocol(_) | PageError::Transport(_) => StatusCode::SERVICE_UNAVAILABLE,
            PageError::NotFound(_) => StatusCode::NOT_FOUND,
            PageError::Invalid(_) => StatusCode::BAD_REQUEST,
            PageError::Forbidden => StatusCode::FORBIDDEN,
            PageError::Daemon(_) | PageError::Render(_) => StatusCode::INTERNAL_SERVER_ERROR,
        };
        let message = self.to_string();
        let page = ErrorPage { layout: crate::view::Layout::new("Error", ""), status: status.as_u16(), message: &message };
        match page.render() {
            Ok(html) => (status, Html(html)).into_response(),
            Err(_) => (status, message).into_response(),
        }
    }
}

/// A context whose deadline is the page's patience from now.
pub fn ctx() -> context::Context {
    let mut c = context::current();
    c.deadline = Instant::now() + PATIENCE;
    c
}

impl App {
    pub fn new(paths: Paths, secrets: Secrets, port: u16) -> App {
        App { paths, secrets, port, client: tokio::sync::Mutex::new(None) }
    }

    /// A connection to the daemon, made (and checked with a handshake) when there is none.
    pub async fn client(&self) -> Result<CairnClient, PageError> {
        let mut slot = self.client.lock().await;
        if let Some(c) = slot.as_ref() {
            return Ok(c.clone());
        }
        self.paths.check_socket_dir().map_err(|e| PageError::Transport(e.to_string()))?;
        let stream = match tokio::net::UnixStream::connect(&self.paths.socket).await {
            Ok(s) => s,
            Err(e) if matches!(e.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused) => return Err(PageError::NotRunning),
            Err(e) => return Err(PageError::Transport(e.to_string())),
        };
        let client = CairnClient::new(tarpc::client::Config::default(), cairn_proto::transport::wrap(stream)).spawn();
        let hello = client.handshake(ctx()).await.map_err(|e| PageError::Transport(e.to_string()))?;
        if hello.protocol != PROTOCOL_VERSION {
            return Err(PageError::Protocol(hello.protocol));
        }
        *slot = Some(client.clone());
        Ok(client)
    }

    /// The file that makes `code` a one-time sign-in.
    pub fn signin_file(&self, code: &str) -> std::path::PathBuf {
        cairn_proto::ui::signin_file(&self.paths, code)
    }

    /// Forgets a connection that broke (the daemon restarted): the next request makes another.
    pub async fn lost(&self) {
        *self.client.lock().await = None;
    }
}

/// Whether a request that failed on the way may be sent again: a read always; a write only
/// when it never left (the connection was already closed, or the request was not buffered), so
/// a write the daemon applied is never applied twice.
pub fn may_retry(write: bool, e: &tarpc::client::RpcError) -> bool {
    use tarpc::client::RpcError as E;
    match e {
        E::Shutdown | E::Send(_) => true,
        E::DeadlineExceeded => false,
        _ => !write,
    }
}

/// A read from the daemon, `ask!(app, method(args))`, answering the daemon's answer or a
/// [`PageError`]; a broken connection is made again once (the arguments are cloned per try).
#[macro_export]
macro_rules! ask {
    ($app:expr, $method:ident ( $($arg:expr),* $(,)? )) => {
        $crate::request!(false, $app, $method($($arg),*))
    };
}

/// A write to the daemon, `tell!(app, method(args))`: as [`ask!`], but sent again only when it
/// never reached the daemon.
#[macro_export]
macro_rules! tell {
    ($app:expr, $method:ident ( $($arg:expr),* $(,)? )) => {
        $crate::request!(true, $app, $method($($arg),*))
    };
}

/// The one loop behind [`ask!`] and [`tell!`].
#[macro_export]
macro_rules! request {
    ($write:expr, $app:expr, $method:ident ( $($arg:expr),* $(,)? )) => {
        async {
            let mut tries = 0;
            loop {
                let client = $app.client().await?;
                #[allow(clippy::clone_on_copy)]
                let answer = client.$method($crate::app::ctx(), $($arg.clone()),*).await;
                match answer {
                    Ok(answer) => break answer.map_err($crate::app::PageError::from),
                    Err(e) => {
                        $app.lost().await;
                        tries += 1;
                        if tries == 2 || !$crate::app::may_retry($write, &e) {
                            break Err($crate::app::PageError::Transport(e.to_string()));
                        }
                    }
                }
            }
        }
        .await
    };
}
