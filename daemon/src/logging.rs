//! The daemon's log: tracing to `logs/cairnd.log`, level from `CAIRN_LOG` (default `info`).
//! Never logs hook payloads, which may hold secrets.

use std::fs::OpenOptions;
use std::path::Path;
use std::sync::Mutex;

use tracing_subscriber::EnvFilter;

pub fn init(logs_dir: &Path) -> std::io::Result<()> {
    let file = OpenOptions::new().create(true).append(true).open(logs_dir.join("cairnd.log"))?;
    let filter = EnvFilter::try_from_env("CAIRN_LOG").unwrap_or_else(|_| EnvFilter::new("info"));
    tracing_subscriber::fmt().with_env_filter(filter).with_ansi(false).with_writer(Mutex::new(file)).init();
    Ok(())
}
