//! `export`: every memory, then every edge, then the home's advice state (mutes, the seed
//! pack), as versioned JSONL, a page at a time. Cursors are `m:<id>` within memories and
//! `e:<hex key>` within edges.

use cairn_proto::{Page, RpcError};

use crate::exchange;
use crate::state::{store_error, Daemon};

const MAX_PAGE: u32 = 5000;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok()).collect()
}

/// The home's advice state, every list sorted so that an export is the same byte for byte.
pub fn advice_state(d: &Daemon) -> Result<exchange::AdviceState, RpcError> {
    let sorted = |set: std::collections::HashSet<String>| {
        let mut v: Vec<String> = set.into_iter().collect();
        v.sort();
        v
    };
    let loaded = d.store.seeds_loaded().map_err(store_error)?;
    let forgotten = loaded.iter().filter(|id| d.store.get_memory(id).ok().flatten().is_none()).cloned().collect();
    Ok(exchange::AdviceState {
        seed_pack: d.store.seed_pack().map_err(store_error)?,
        seeds_loaded: sorted(loaded),
        seeds_forgotten: sorted(forgotten),
        seeds_off: sorted(d.store.seeds_off().map_err(store_error)?),
        muted: sorted(d.store.muted_ids().map_err(store_error)?),
    })
}

pub async fn handle(d: &Daemon, after: Option<String>, limit: u32) -> Result<Page<String>, RpcError> {
    let limit = limit.clamp(1, MAX_PAGE) as usize;
    let mut lines = Vec::new();
    let (memory_after, edge_after, in_edges) = match after.as_deref() {
        None => (None, None, false),
        Some(c) if c.starts_with("m:") => (Some(&c[2..]), None, false),
        Some(c) if c.starts_with("e:") => (None, Some(unhex(&c[2..]).ok_or_else(|| RpcError::Invalid(format!("bad export cursor {c:?}")))?), true),
        Some(c) => return Err(RpcError::Invalid(format!("bad export cursor {c:?}"))),
    };
    if !in_edges {
        for memory in d.store.memories_after(memory_after) {
            let memory = memory.map_err(store_error)?;
            lines.push(exchange::memory_line(&memory));
            if lines.len() == limit {
                return Ok(Page { items: lines, next: Some(format!("m:{}", memory.id)) });
            }
        }
    }
    for edge in d.store.edges_after(edge_after.as_deref()) {
        let (key, edge) = edge.map_err(store_error)?;
        lines.push(exchange::edge_line(&edge));
        if lines.len() == limit {
            return Ok(Page { items: lines, next: Some(format!("e:{}", hex(&key))) });
        }
    }
    lines.push(exchange::state_line(&advice_state(d)?));
    Ok(Page { items: lines, next: None })
}

#[cfg(test)]
mod tests {
    #[test]
    fn hex_round_trips() {
        let key = b"a\0b\0caused_by".to_vec();
        assert_eq!(super::unhex(&super::hex(&key)).unwrap(), key);
        assert!(super::unhex("abc").is_none());
        assert!(super::unhex("zz").is_none());
    }
}
