//! What the user keeps quiet: one memory muted (`mute`, `unmute`: kept out of advice, still
//! searchable, listable and exportable), and a project paused (`pause`, `resume`: no advice and
//! nothing recorded until resumed). Both survive restarts.

use cairn_proto::{Memory, Scope};

use super::daemon::Daemon;
use super::error::{Error, Result};

pub async fn mute(d: &Daemon, id: String, muted: bool) -> Result<Memory> {
    let memory = d.memories().get(&id).ok_or_else(|| Error::NotFound(id.clone()))?;
    tokio::task::block_in_place(|| d.memories().writer().mute(&id, muted))?;
    d.store().durable().await?;
    Ok(memory)
}

pub async fn pause(d: &Daemon, scope: Scope, paused: bool) -> Result<String> {
    let project = d.project_for(&scope);
    tokio::task::block_in_place(|| d.memories().writer().pause(&project, paused))?;
    d.store().durable().await?;
    tracing::info!(project, paused, "project pause changed");
    Ok(project)
}
