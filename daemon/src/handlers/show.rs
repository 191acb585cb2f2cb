//! `show`: one memory, every field.

use cairn_proto::{Memory, RpcError};

use crate::state::{store_error, Daemon};

pub async fn handle(d: &Daemon, id: String) -> Result<Memory, RpcError> {
    d.store.get_memory(&id).map_err(store_error)?.ok_or(RpcError::NotFound(id))
}
