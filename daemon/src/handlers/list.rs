//! `list`: memories of a project (plus `global`), or of every project, a page at a time.

use cairn_proto::{ListQuery, Memory, Page, RpcError, GLOBAL_PROJECT};

use crate::state::{store_error, Daemon};

/// Largest page a client may ask for.
const MAX_PAGE: u32 = 5000;

pub async fn handle(d: &Daemon, q: ListQuery) -> Result<Page<Memory>, RpcError> {
    let limit = q.limit.clamp(1, MAX_PAGE) as usize;
    let project = d.project_for(&q.scope);
    let wanted = |m: &Memory| q.all || m.project == project || m.project == GLOBAL_PROJECT;
    let mut items = Vec::new();
    let mut next = None;
    for memory in d.store.memories_after(q.after.as_deref()) {
        let memory = memory.map_err(store_error)?;
        if !wanted(&memory) {
            continue;
        }
        if items.len() == limit {
            next = items.last().map(|m: &Memory| m.id.clone());
            break;
        }
        items.push(memory);
    }
    Ok(Page { items, next })
}
