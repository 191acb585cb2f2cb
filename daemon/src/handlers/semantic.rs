//! The semantic engine's requests: `reindex` (start or join), `job` (progress), `load_model`
//! (load now, after `cairn setup` or before first use in `--lite`).

use cairn_proto::{JobProgress, RpcError};

use crate::state::Daemon;

pub async fn reindex(d: &Daemon) -> Result<JobProgress, RpcError> {
    if !d.tuneables().semantic.enabled {
        return Err(RpcError::Invalid("semantic.enabled is false in tuneables.json: there is no semantic index to rebuild".into()));
    }
    Ok(d.semantic.request_reindex())
}

pub async fn job(d: &Daemon, id: Option<u64>) -> Option<JobProgress> {
    d.semantic.job(id)
}

pub async fn load_model(d: &Daemon) -> String {
    let enabled = d.tuneables().semantic.enabled;
    if enabled {
        d.semantic.retry_load();
        let _ = d.semantic.ready().await;
    }
    d.semantic.status_text(enabled)
}
