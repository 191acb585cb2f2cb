//! `cairnd`: starts the daemon in the foreground (`cairn up` backgrounds it), runs until
//! `cairn down`, SIGTERM or SIGINT, then drains, flushes and removes its socket.

use std::sync::Arc;

use anyhow::Context as _;
use cairn_daemon::config::Tuneables;
use cairn_daemon::state::{ConfigState, Daemon};
use cairn_daemon::{jobs, logging, pidfile::PidFile, server, store::Store};
use cairn_proto::{paths::create_private_dir, Mode, Paths};
use clap::Parser;

#[derive(Parser)]
#[command(name = "cairnd", version, about = "The cairn daemon (start it with `cairn up`)")]
struct Args {
    /// Run only the essential periodic jobs.
    #[arg(long)]
    lite: bool,
}

fn main() {
    let args = Args::parse();
    if let Err(e) = run(args) {
        eprintln!("cairnd: {e:#}");
        std::process::exit(1);
    }
}

fn run(args: Args) -> anyhow::Result<()> {
    // Everything cairnd creates is the user's alone: folders 0700, files 0600.
    // SAFETY: umask only sets the process's file-creation mask.
    unsafe { libc::umask(0o077) };
    let paths = Paths::from_env()?;
    for dir in [&paths.home, &paths.data_dir, &paths.config_dir, &paths.logs_dir] {
        create_private_dir(dir)?;
    }
    let pidfile = PidFile::acquire(&paths.pidfile)?;
    logging::init(&paths.logs_dir).context("cannot open the log file")?;

    let config = match Tuneables::load(&paths.tuneables_file()) {
        Ok(loaded) => {
            if !loaded.unknown_keys.is_empty() {
                tracing::warn!(keys = ?loaded.unknown_keys, "unknown keys in tuneables.json (kept, ignored)");
            }
            ConfigState { tuneables: loaded.tuneables, error: None, unknown_keys: loaded.unknown_keys }
        }
        Err(e) => {
            tracing::error!(error = %e, "tuneables.json rejected; using defaults");
            ConfigState { error: Some(e.to_string()), ..Default::default() }
        }
    };
    let mode = if args.lite { Mode::Lite } else { Mode::Full };

    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    runtime.block_on(async move {
        let cache = config.tuneables.store.cache_mb * 1024 * 1024;
        let store = Store::open(&paths.data_dir.join("store"), cache)?;
        let listener = server::bind(&paths)?;
        let daemon = Arc::new(Daemon::new(paths.clone(), mode, store, config)?);
        tracing::info!(pid = std::process::id(), mode = mode.as_str(), memories = daemon.store.memory_count(), socket = %paths.socket.display(), "cairnd started");

        let signals = daemon.clone();
        tokio::spawn(async move {
            use tokio::signal::unix::{signal, SignalKind};
            let (Ok(mut term), Ok(mut int)) = (signal(SignalKind::terminate()), signal(SignalKind::interrupt())) else { return };
            tokio::select! { _ = term.recv() => {}, _ = int.recv() => {} }
            tracing::info!("signal received; shutting down");
            signals.shutdown.cancel();
        });
        jobs::spawn(daemon.clone());

        server::serve(daemon.clone(), listener).await;
        let flushed = daemon.store.flush();
        server::remove_socket(&paths.socket);
        flushed?;
        tracing::info!("cairnd stopped");
        anyhow::Ok(())
    })?;
    drop(pidfile);
    Ok(())
}
