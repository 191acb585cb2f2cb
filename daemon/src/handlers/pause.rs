//! `pause` and `resume`: a per-project opt-out. A paused project gets no advice and nothing of
//! it is recorded, until it is resumed; the choice survives restarts.

use cairn_proto::{RpcError, Scope};

use crate::state::{store_error, Daemon};

pub async fn handle(d: &Daemon, scope: Scope, paused: bool) -> Result<String, RpcError> {
    let project = d.project_for(&scope);
    d.store.set_paused(&project, paused).map_err(store_error)?;
    {
        let mut set = d.paused.write().expect("paused lock");
        if paused {
            set.insert(project.clone());
        } else {
            set.remove(&project);
        }
    }
    d.store.durable().await;
    tracing::info!(project, paused, "project pause changed");
    Ok(project)
}
