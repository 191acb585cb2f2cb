//! `cairn-ui`: cairn's local dashboard. A small web server on 127.0.0.1 that reads everything
//! from the daemon over the same Unix socket and protocol as the `cairn` client (so neither the
//! hook client nor the daemon links an HTTP stack), with a secret token per start that every
//! request must carry. `cairn ui` starts it (or reuses the one running) and opens the browser.

mod app;
mod auth;
mod pages;
mod server;
mod svg;
mod view;

use std::net::Ipv4Addr;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use clap::Parser;

/// Serve cairn's dashboard on 127.0.0.1.
#[derive(Parser)]
#[command(name = "cairn-ui", version)]
struct Args {
    /// Port to listen on (0: any free port).
    #[arg(long, default_value_t = 0)]
    port: u16,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("cairn-ui: cannot start: {e}");
            return ExitCode::from(1);
        }
    };
    match runtime.block_on(run(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cairn-ui: {e:#}");
            ExitCode::from(1)
        }
    }
}

async fn run(args: Args) -> anyhow::Result<()> {
    let paths = cairn_proto::Paths::from_env()?;
    let secrets = auth::Secrets::generate().map_err(|e| anyhow::anyhow!("cannot make the dashboard's secret: {e}"))?;
    let listener = tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, args.port)).await.with_context(|| format!("cannot listen on 127.0.0.1:{}", args.port))?;
    let port = listener.local_addr()?.port();
    let state = cairn_proto::ui::UiState { pid: std::process::id(), port, token: secrets.token.clone(), socket: paths.socket.display().to_string() };
    let state_file = cairn_proto::ui::state_file(&paths);
    cairn_proto::paths::create_private_dir(paths.socket_dir())?;
    cairn_proto::ui::write(&state_file, &state).with_context(|| format!("cannot write {}", state_file.display()))?;
    eprintln!("cairn-ui: serving {}", state.url());
    let app = Arc::new(app::App::new(paths, secrets, port));
    let served = axum::serve(listener, server::router(app)).with_graceful_shutdown(stopped()).await;
    // The state file is this server's only while it names this process.
    if cairn_proto::ui::read(&state_file).is_some_and(|s| s.pid == std::process::id()) {
        let _ = std::fs::remove_file(&state_file);
    }
    served.context("the server stopped")
}

/// Resolves on Ctrl-C or SIGTERM.
async fn stopped() {
    let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
        Ok(s) => s,
        Err(_) => return std::future::pending().await,
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
}
