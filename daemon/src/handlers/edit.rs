//! `edit`: changes a memory's text, category, tags or context; everything else is kept.

use cairn_proto::{Memory, MemoryEdit, RpcError};

use crate::exchange;
use crate::state::Daemon;

pub async fn handle(d: &Daemon, edit: MemoryEdit) -> Result<Memory, RpcError> {
    let text = edit.text.as_deref().map(exchange::validate_text).transpose().map_err(RpcError::Invalid)?;
    let category = edit.category.as_deref().map(exchange::normalize_category).transpose().map_err(RpcError::Invalid)?;
    let tags = edit.tags.as_deref().map(exchange::normalize_tags).transpose().map_err(RpcError::Invalid)?;
    if text.is_none() && category.is_none() && tags.is_none() && edit.context.is_none() {
        return Err(RpcError::Invalid("nothing to change: give --text, --category, --tags or --context".into()));
    }
    d.update_memory(&edit.id, |m| {
        if let Some(t) = text {
            m.text = t;
        }
        if let Some(c) = category {
            m.category = c;
        }
        if let Some(t) = tags {
            m.tags = t;
        }
        if let Some(c) = edit.context {
            m.context = c.trim().to_string();
        }
        // A seed the user edits becomes theirs: it leaves the pack and weighs as their own.
        if m.source == crate::seeds::SEED_SOURCE {
            m.source = "user".into();
        }
        m.updated_at = exchange::now();
        Ok(())
    })
    .await
}
