//! `add`: a new memory from the command line.

use cairn_proto::{Memory, NewMemory, RpcError};

use crate::exchange;
use crate::state::Daemon;

pub async fn handle(d: &Daemon, req: NewMemory) -> Result<Memory, RpcError> {
    let text = exchange::validate_text(&req.text).map_err(RpcError::Invalid)?;
    let category = exchange::normalize_category(req.category.as_deref().unwrap_or(exchange::DEFAULT_CATEGORY)).map_err(RpcError::Invalid)?;
    let tags = exchange::normalize_tags(&req.tags).map_err(RpcError::Invalid)?;
    let source = exchange::validate_source(req.source.as_deref().unwrap_or("user")).map_err(RpcError::Invalid)?;
    let project = exchange::validate_project(&d.project_for(&req.scope)).map_err(RpcError::Invalid)?;
    let context = req.context.unwrap_or_default().trim().to_string();
    let memory = exchange::new_memory(ulid::Ulid::new().to_string(), project, text, category, source, tags, context);
    d.save_memory(&memory).await?;
    Ok(memory)
}
