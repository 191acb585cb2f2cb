//! Bulk work on the store's embeddings: sorting memories into those with a current vector for
//! a model and those to embed, and embedding many memories a chunk at a time, letting writes in
//! between chunks. Runs on the worker's thread.

use std::collections::HashMap;

use cairn_proto::Memory;

use super::embed::{self, Embed};
use super::host::Host;
use super::sync::store_if_current;
use crate::retrieval::vectors::StoredKey;
use crate::store::embeddings::EmbeddingRecord;
use crate::store::Store;

/// What the store holds for the current model: embeddings to index, memories to embed.
pub struct Inventory {
    pub stored: Vec<StoredKey>,
    pub pending: Vec<String>,
    pub max_key: u64,
}

/// Sorts the store's memories into those with a current vector for the model `fingerprint` and
/// those to embed; records left over from memories that are gone are removed.
pub fn inventory(store: &Store, fingerprint: &str) -> Inventory {
    let mut records: HashMap<String, EmbeddingRecord> = HashMap::new();
    let mut max_key = 0;
    for item in store.embedding_records() {
        match item {
            Ok((id, r)) => {
                max_key = max_key.max(r.key);
                records.insert(id, r);
            }
            Err(e) => tracing::error!(error = %e, "unreadable embedding record"),
        }
    }
    let mut inv = Inventory { stored: Vec::new(), pending: Vec::new(), max_key };
    for item in store.memories_after(None) {
        let memory = match item {
            Ok(m) => m,
            Err(e) => {
                tracing::error!(error = %e, "unreadable memory");
                continue;
            }
        };
        let current = records.remove(&memory.id).filter(|r| {
            r.fingerprint == fingerprint && r.project == memory.project && r.text_hash == embed::text_hash(&embed::embedding_text(&memory))
        });
        match current {
            Some(r) => inv.stored.push(StoredKey { id: memory.id, project: r.project, key: r.key }),
            None => inv.pending.push(memory.id),
        }
    }
    for id in records.keys() {
        let _ = store.remove_embedding(id);
    }
    inv
}

pub fn vector_from_store(store: &Store, id: &str) -> Option<Vec<f32>> {
    store.embedding_vector(id).unwrap_or_else(|e| {
        tracing::error!(error = %e, id, "unreadable stored vector");
        None
    })
}

/// Memories embedded per model run during bulk work, and per write-lock hold.
const CHUNK: usize = 32;

/// Embeds the memories `ids` in chunks, storing and indexing each vector; `force` replaces
/// vectors that are already current. A chunk the model fails on is retried memory by memory,
/// and a memory it cannot embed is skipped (and logged). Stops early at shutdown.
pub fn embed_all(host: &dyn Host, embedder: &dyn Embed, ids: &[String], force: bool, job: u64) -> Result<(), String> {
    let (store, semantic) = (host.store(), host.semantic());
    let fingerprint = embedder.facts().fingerprint.clone();
    let mut failed = 0usize;
    for chunk in ids.chunks(CHUNK) {
        if host.stopping() {
            return Err("stopped by shutdown; the rest is embedded at the next start".into());
        }
        let memories: Vec<Memory> = chunk.iter().filter_map(|id| store.get_memory(id).ok().flatten()).collect();
        let texts: Vec<String> = memories.iter().map(embed::embedding_text).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let vectors: Vec<Option<Vec<f32>>> = match embedder.embed(&refs) {
            Ok(v) => v.into_iter().map(Some).collect(),
            Err(e) => {
                tracing::warn!(error = %e, "a batch failed to embed; trying its memories one by one");
                refs.iter()
                    .zip(&memories)
                    .map(|(t, m)| match embedder.embed(&[t]) {
                        Ok(mut v) => Some(v.remove(0)),
                        Err(e) => {
                            tracing::error!(error = %e, id = %m.id, "cannot embed a memory; it is found by keywords only");
                            failed += 1;
                            None
                        }
                    })
                    .collect()
            }
        };
        {
            let _w = host.hold_writes();
            for ((memory, text), vector) in memories.iter().zip(&texts).zip(&vectors) {
                if let Some(vector) = vector {
                    store_if_current(store, semantic, memory, text, vector, &fingerprint, force);
                }
            }
        }
        store.durable_soon();
        semantic.jobs().update(job, |p| p.done += chunk.len() as u64);
    }
    match failed {
        0 => Ok(()),
        n => Err(format!("{n} memories could not be embedded (see `cairn logs`); they are found by keywords")),
    }
}
