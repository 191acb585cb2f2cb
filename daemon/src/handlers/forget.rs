//! `forget`: removes a memory and its edges for good.

use cairn_proto::{Memory, RpcError};

use crate::state::Daemon;

pub async fn handle(d: &Daemon, id: String) -> Result<Memory, RpcError> {
    d.remove_memory(&id).await?.ok_or(RpcError::NotFound(id))
}
