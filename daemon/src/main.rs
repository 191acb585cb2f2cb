//! `cairnd`: starts the daemon in the foreground (`cairn up` backgrounds it), runs until
//! `cairn down`, SIGTERM or SIGINT, then drains, flushes and removes its socket.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use cairn_daemon::app::{self, Daemon};
use cairn_daemon::config::{live, LiveConfig};
use cairn_daemon::process::pidfile::{PidFile, PidFileError};
use cairn_daemon::process::logging;
use cairn_daemon::rpc::server;
use cairn_daemon::semantic::embed;
use cairn_daemon::store::Store;
use cairn_proto::{paths::create_private_dir, Mode, Paths};
use clap::Parser;

#[derive(Parser)]
#[command(name = "cairnd", version, about = "The cairn daemon (start it with `cairn up`)")]
struct Args {
    /// Run only the essential periodic jobs.
    #[arg(long)]
    lite: bool,
    /// Running under a service manager: when another cairnd already serves this home, exit 0
    /// (nothing failed) rather than 75, so the manager does not start it again and again.
    #[arg(long)]
    service: bool,
}

fn main() {
    let args = Args::parse();
    let service = args.service;
    if let Err(e) = run(args) {
        eprintln!("cairnd: {e:#}");
        // A distinct code for "another daemon has this home", so a service manager does not
        // keep restarting into the lock (the systemd unit sets RestartPreventExitStatus to it).
        let code = match e.downcast_ref::<PidFileError>() {
            Some(PidFileError::Held { .. }) if service => 0,
            Some(PidFileError::Held { .. }) => HOME_IN_USE,
            _ => 1,
        };
        std::process::exit(code);
    }
}

/// Exit code when another daemon holds this home (EX_TEMPFAIL).
const HOME_IN_USE: i32 = 75;

fn run(args: Args) -> anyhow::Result<()> {
    // Everything cairnd creates is the user's alone: folders 0700, files 0600.
    // SAFETY: umask only sets the process's file-creation mask.
    unsafe { libc::umask(0o077) };
    // glibc gives each thread that allocates its own heap arena; freed memory then stays spread
    // over many of them. Two arenas keep the daemon's footprint close to what it holds.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only tunes the allocator, before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
    let paths = Paths::from_env()?;
    for dir in [&paths.home, &paths.data_dir, &paths.config_dir, &paths.logs_dir] {
        create_private_dir(dir)?;
    }
    // ONNX Runtime keeps a device id and an event store under the user's cache folder
    // (`~/.cache/Microsoft/DeveloperTools/.onnxruntime`), telemetry off or not. Pointed into the
    // home, nothing the daemon runs writes outside it.
    let cache = paths.home.join("cache");
    create_private_dir(&cache)?;
    // SAFETY: no other thread exists yet (the logger and the runtime start below), and only this
    // process's environment changes.
    unsafe { std::env::set_var("XDG_CACHE_HOME", &cache) };
    let pidfile = PidFile::acquire(&paths.pidfile)?;
    logging::init(&paths.logs_dir).context("cannot open the log file")?;

    let config = Arc::new(LiveConfig::load(&paths.config_dir, &paths.tuneables_file(), &paths.trigger_rules_file()));
    let mode = if args.lite { Mode::Lite } else { Mode::Full };

    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    let socket = paths.socket.clone();
    let served = runtime.block_on(async move {
        let cache = config.tuneables().store.cache_mb * 1024 * 1024;
        let store = Store::open(&paths.data_dir.join("store"), cache)?;
        let listener = server::bind(&paths)?;
        let daemon = Arc::new(Daemon::new(paths.clone(), mode, store, config.clone(), embed::onnx_loader())?);
        // A new home starts with the seed pack (unless CAIRN_SEED_PACK=off).
        if let Err(e) = app::seeds::first_start(&daemon) {
            tracing::error!(error = %e, "cannot load the seed pack; `cairn seed --enable` tries again");
        }
        tracing::info!(pid = std::process::id(), mode = mode.as_str(), memories = daemon.memories().count(), socket = %paths.socket.display(), "cairnd started");

        let signals = daemon.clone();
        tokio::spawn(async move {
            use tokio::signal::unix::{signal, SignalKind};
            let (Ok(mut term), Ok(mut int)) = (signal(SignalKind::terminate()), signal(SignalKind::interrupt())) else { return };
            tokio::select! { _ = term.recv() => {}, _ = int.recv() => {} }
            tracing::info!("signal received; shutting down");
            signals.stop_serving();
        });
        daemon.start();
        let _warming = app::advice::warm(&daemon);
        app::periodic::spawn(&daemon);
        app::outcomes::spawn(&daemon);
        app::capture::spawn(&daemon);
        app::prediction::spawn(&daemon);
        // Live config is a convenience: without a watcher cairn still runs, on the settings it read.
        let _watch = match live::watch(&config) {
            Ok(w) => Some(w),
            Err(e) => {
                tracing::warn!(error = %e, "cannot watch the config folder; changes apply at restart");
                None
            }
        };

        server::serve(daemon.clone(), listener).await;
        tokio::task::block_in_place(|| daemon.stop());
        // Served: the socket is ours to remove, even if the last flush fails. After a refused
        // write sled's last flush cannot succeed, and nothing acknowledged waits on it: said in
        // the log, not an exit code (a service manager would restart a daemon that was told to
        // stop).
        // An outcome settled while the daemon stopped counted after stop() wrote the days.
        daemon.flush_days();
        let restart = daemon.restarting();
        let flushed = match (daemon.store().flush(), daemon.store().failure()) {
            (Err(e), Some(failure)) => {
                tracing::warn!(error = %e, failure, "the last flush failed, as every write since the disk refused one");
                Ok(())
            }
            (flushed, _) => flushed,
        };
        anyhow::Ok((flushed, restart))
    });
    // Every task goes with the runtime, and with the last of them the store closes. Only then is
    // the socket removed and the pidfile let go: a client that sees both gone may start anew.
    runtime.shutdown_timeout(Duration::from_secs(5));
    // Only a daemon that served removes the socket; one that failed to start may not own it.
    let (flushed, restart) = served?;
    server::remove_socket(&socket);
    flushed?;
    if restart {
        tracing::info!("cairnd restarting in place");
        // The pidfile stays locked across exec: the home is never free for another daemon.
        let fd = pidfile.keep_across_exec();
        return Err(restart_in_place(fd));
    }
    drop(pidfile);
    tracing::info!("cairnd stopped");
    Ok(())
}

/// Runs this program again in this process, with its arguments and environment and the locked
/// pidfile's descriptor `fd`: the store is reopened from disk, and the pid a service manager
/// watches stays the same. Returns only on failure.
fn restart_in_place(fd: i32) -> anyhow::Error {
    use std::os::unix::process::CommandExt;
    // `/proc/self/exe` still reaches the program when its file was replaced (an upgrade).
    let exe = match std::path::Path::new("/proc/self/exe").exists() {
        true => std::path::PathBuf::from("/proc/self/exe"),
        false => match std::env::current_exe() {
            Ok(exe) => exe,
            Err(e) => return anyhow::anyhow!("cannot restart: cannot find my own program: {e}; start it again with `cairn up`"),
        },
    };
    let mut args = std::env::args_os();
    let arg0 = args.next().unwrap_or_else(|| "cairnd".into());
    let e = std::process::Command::new(&exe).arg0(arg0).args(args).env(cairn_daemon::process::pidfile::HANDED_OVER, fd.to_string()).exec();
    anyhow::anyhow!("cannot restart {}: {e}; start it again with `cairn up`", exe.display())
}
