//! `mute` / `unmute`: keeps one memory out of advice without deleting it (it stays searchable,
//! listable and exportable).

use cairn_proto::{Memory, RpcError};

use crate::advisor::MemoryLookup;
use crate::state::{store_error, Daemon};

pub async fn handle(d: &Daemon, id: String, muted: bool) -> Result<Memory, RpcError> {
    let memory = d.store.memory(&id).ok_or_else(|| RpcError::NotFound(id.clone()))?;
    tokio::task::block_in_place(|| {
        let _w = d.write_lock();
        d.store.set_muted(&id, muted).map_err(store_error)?;
        let mut quiet = d.quiet.write().expect("quiet lock");
        if muted {
            quiet.muted.insert(id.clone());
        } else {
            quiet.muted.remove(&id);
        }
        Ok::<_, RpcError>(())
    })?;
    d.store.durable().await;
    Ok(memory)
}
