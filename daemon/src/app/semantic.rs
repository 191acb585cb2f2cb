//! The semantic engine's requests: `reindex` (start or join), `job` (progress), `load_model`
//! (load now, after `cairn setup` or before first use in `--lite`).

use cairn_proto::JobProgress;

use super::daemon::Daemon;
use super::error::{Error, Result};

pub async fn reindex(d: &Daemon) -> Result<JobProgress> {
    if !d.tuneables().model.enabled {
        return Err(Error::Failed("model.enabled is false in tuneables.json: there is no semantic index to rebuild".into()));
    }
    Ok(d.semantic().request_reindex())
}

pub async fn job(d: &Daemon, id: Option<u64>) -> Option<JobProgress> {
    d.semantic().jobs().get(id)
}

pub async fn load_model(d: &Daemon) -> String {
    let enabled = d.tuneables().model.enabled;
    if enabled {
        d.semantic().model().retry_load();
        let _ = d.semantic().model().ready().await;
    }
    d.semantic().model().status_text(enabled)
}
