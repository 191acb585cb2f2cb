//! Keeping a memory's embedding in step with its text, at every memory write and under the
//! daemon's write lock: a current vector is kept, a new one is stored (embedded ahead in a batch,
//! or now), and without a model a vector that no longer matches the text is dropped. Embeddings
//! are kept current whenever the model is loaded, whether or not retrieval uses them.

use std::collections::HashMap;

use cairn_proto::Memory;

use super::embed::{self, Embed, EmbedError};
use super::engine::Semantic;
use super::host::Host;
use crate::retrieval::examples::{self, LessonExamples, Moment};
use crate::store::embeddings::EmbeddingRecord;
use crate::store::Store;

/// Embeddings computed ahead of a write, by text hash, so that bulk writes embed in batches
/// outside the write lock.
#[derive(Default)]
pub struct Prepared {
    vectors: HashMap<String, Vec<f32>>,
}

impl Prepared {
    /// Embeds the texts of `memories`, and their example moments, in batches, when the model is
    /// available.
    pub fn for_memories(embedder: Option<&dyn Embed>, memories: &[&Memory]) -> Prepared {
        let Some(embedder) = embedder else { return Prepared::default() };
        let mut texts: Vec<String> = memories.iter().map(|m| embed::embedding_text(m)).collect();
        let mut moments: Vec<String> = memories.iter().flat_map(|m| m.examples.iter().chain(&m.not_examples).cloned()).collect();
        moments.sort();
        moments.dedup();
        texts.extend(moments);
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        match embedder.embed(&refs) {
            Ok(vectors) => Prepared { vectors: texts.iter().map(|t| embed::text_hash(t)).zip(vectors).collect() },
            Err(e) => {
                // Each memory is embedded on its own at its write instead.
                tracing::warn!(error = %e, "cannot embed a batch; embedding its memories one by one");
                Prepared::default()
            }
        }
    }

    /// The vector embedded ahead for `text`, if it was.
    fn vector(&self, text: &str) -> Option<&Vec<f32>> {
        self.vectors.get(&embed::text_hash(text))
    }
}

fn record_of(store: &Store, id: &str) -> Option<EmbeddingRecord> {
    store.embedding_record(id).unwrap_or_else(|e| {
        tracing::error!(error = %e, id, "cannot read an embedding record");
        None
    })
}

/// Brings a just-written memory's embedding in line with its text.
pub fn refresh(store: &Store, semantic: &Semantic, memory: &Memory, prepared: &Prepared) {
    let text = embed::embedding_text(memory);
    let hash = embed::text_hash(&text);
    let record = record_of(store, &memory.id);
    let Some(embedder) = semantic.model().loaded() else {
        if record.as_ref().is_some_and(|r| r.text_hash != hash || r.project != memory.project) {
            drop_stale_vector(store, semantic, &memory.id);
        }
        return;
    };
    refresh_examples(semantic, memory, embedder.as_ref(), prepared);
    let fingerprint = &embedder.facts().fingerprint;
    if let Some(r) = record.as_ref().filter(|r| r.text_hash == hash && &r.fingerprint == fingerprint && r.project == memory.project)
        && semantic.graphs().key_of(&memory.id) == Some(r.key)
    {
        return;
    }
    let vector = match prepared.vectors.get(&hash) {
        Some(v) => v.clone(),
        None => match embedder.embed(&[&text]) {
            Ok(mut v) => v.remove(0),
            Err(e) => {
                tracing::error!(error = %e, id = %memory.id, "cannot embed a memory; it is found by keywords until embedded");
                drop_stale_vector(store, semantic, &memory.id);
                return;
            }
        },
    };
    store_embedding(store, semantic, memory, fingerprint, hash, &vector);
}

/// Stores and indexes `vector` for `memory` under a new key.
pub(super) fn store_embedding(store: &Store, semantic: &Semantic, memory: &Memory, fingerprint: &str, text_hash: String, vector: &[f32]) {
    let record = EmbeddingRecord { key: semantic.new_key(), project: memory.project.clone(), fingerprint: fingerprint.to_string(), text_hash };
    if let Err(e) = store.put_embedding(&memory.id, &record, vector) {
        tracing::error!(error = %e, id = %memory.id, "cannot store an embedding");
        return;
    }
    let mut guard = semantic.graphs().write();
    if let Some(index) = guard.as_mut() {
        if let Err(e) = index.upsert(&memory.id, &memory.project, record.key, vector) {
            tracing::error!(error = %e, id = %memory.id, "cannot index an embedding");
        }
        semantic.graphs().note(index);
    }
}

/// Stores and indexes `vector` for `memory` if the memory still reads as `text` (and, unless
/// `force`, has no current vector already). Under the write lock.
pub(super) fn store_if_current(store: &Store, semantic: &Semantic, memory: &Memory, text: &str, vector: &[f32], fingerprint: &str, force: bool) {
    // Written meanwhile? Then that write embedded its own text already.
    let Ok(Some(current)) = store.get_memory(&memory.id) else { return };
    let hash = embed::text_hash(text);
    if embed::text_hash(&embed::embedding_text(&current)) != hash || current.project != memory.project {
        return;
    }
    let fresh = record_of(store, &memory.id).is_some_and(|r| r.fingerprint == fingerprint && r.text_hash == hash && r.project == current.project);
    if fresh && !force && semantic.graphs().key_of(&memory.id).is_some() {
        return;
    }
    store_embedding(store, semantic, &current, fingerprint, hash, vector);
}

/// The hash of `memory`'s examples as they read now; `None` when it has none.
fn examples_hash(memory: &Memory) -> Option<String> {
    (!memory.examples.is_empty() || !memory.not_examples.is_empty()).then(|| examples::hash(&memory.project, &memory.examples, &memory.not_examples))
}

/// `memory`'s example moments embedded (one model run for all of them); `None` for a memory
/// without any.
pub(super) fn embed_examples(embedder: &dyn Embed, memory: &Memory, prepared: &Prepared) -> Result<Option<LessonExamples>, EmbedError> {
    let Some(hash) = examples_hash(memory) else { return Ok(None) };
    let texts: Vec<&str> = memory.examples.iter().chain(&memory.not_examples).map(String::as_str).collect();
    // Embedded ahead (a bulk write's batch, outside the write lock), else now.
    let ahead: Option<Vec<Vec<f32>>> = texts.iter().map(|t| prepared.vector(t).cloned()).collect();
    let mut vectors = match ahead {
        Some(v) => v.into_iter(),
        None => embedder.embed(&texts)?.into_iter(),
    };
    let mut moments = |of: &[String]| -> Vec<Moment> { of.iter().zip(vectors.by_ref()).map(|(t, v)| Moment { text: t.clone(), vector: v }).collect() };
    let applies = moments(&memory.examples);
    let not = moments(&memory.not_examples);
    Ok(Some(LessonExamples { project: memory.project.clone(), hash, applies, not }))
}

/// [`embed_examples`], a failure logged: `None` when the moments could not be embedded.
fn embed_examples_or_log(embedder: &dyn Embed, memory: &Memory, prepared: &Prepared) -> Option<Option<LessonExamples>> {
    embed_examples(embedder, memory, prepared)
        .inspect_err(|e| tracing::error!(error = %e, id = %memory.id, "cannot embed a lesson's example moments; it is advised without them"))
        .ok()
}

/// The hash of the example moments the live index holds for `id`.
fn held_hash(semantic: &Semantic, id: &str) -> Option<String> {
    semantic.graphs().read().as_ref().and_then(|i| i.examples().hash_of(id).map(str::to_string))
}

/// Brings a memory's embedded example moments in line with its examples (under the write lock).
pub(super) fn refresh_examples(semantic: &Semantic, memory: &Memory, embedder: &dyn Embed, prepared: &Prepared) {
    if examples_hash(memory) == held_hash(semantic, &memory.id) {
        return;
    }
    set_examples(semantic, &memory.id, embed_examples_or_log(embedder, memory, prepared).flatten());
}

pub(super) fn set_examples(semantic: &Semantic, id: &str, examples: Option<LessonExamples>) {
    let mut guard = semantic.graphs().write();
    if let Some(index) = guard.as_mut()
        && let Err(e) = index.set_examples(id, examples)
    {
        tracing::error!(error = %e, id, "cannot index a lesson's example moments");
    }
}

/// The example moments of every memory that has any, embedded: for an index about to go live
/// (they are not kept in its files). Reads the store; writes nothing.
pub(super) fn examples_for_index(host: &dyn Host, embedder: &dyn Embed) -> Vec<(String, LessonExamples)> {
    let mut out = Vec::new();
    for memory in host.store().memories_after(None).filter_map(Result::ok).filter(|m| examples_hash(m).is_some()) {
        if host.stopping() {
            break;
        }
        if let Some(e) = embed_examples_or_log(embedder, &memory, &Prepared::default()).flatten() {
            out.push((memory.id, e));
        }
    }
    if !out.is_empty() {
        tracing::info!(lessons = out.len(), "example moments embedded");
    }
    out
}

/// Catches the live index up with example moments written while it was being built: each
/// memory whose examples the index does not hold as they read now is embedded and set, under
/// the write lock and only if the memory still reads so (a write meanwhile set its own).
pub(super) fn catch_up_examples(host: &dyn Host, embedder: &dyn Embed) {
    let (store, semantic) = (host.store(), host.semantic());
    for memory in store.memories_after(None).filter_map(Result::ok) {
        if host.stopping() {
            return;
        }
        let wanted = examples_hash(&memory);
        if wanted == held_hash(semantic, &memory.id) {
            continue;
        }
        let Some(embedded) = embed_examples_or_log(embedder, &memory, &Prepared::default()) else { continue };
        let _w = host.hold_writes();
        if store.get_memory(&memory.id).ok().flatten().as_ref().and_then(examples_hash) == wanted {
            set_examples(semantic, &memory.id, embedded);
        }
    }
    // Lessons forgotten while the index was being built leave no moments behind.
    let held: Vec<String> = semantic.graphs().read().as_ref().map(|i| i.examples().ids().map(str::to_string).collect()).unwrap_or_default();
    for id in held {
        let _w = host.hold_writes();
        if matches!(store.get_memory(&id), Ok(None)) {
            set_examples(semantic, &id, None);
        }
    }
}

/// Removes a memory from the semantic index for good (it was forgotten): its embedding in the
/// store, its vector and its example moments.
pub fn drop_embedding(store: &Store, semantic: &Semantic, id: &str) {
    drop_from_index(store, semantic, id, true);
}

/// Removes a memory's embedding from the store and its vector from the index; with `all`, its
/// example moments too.
fn drop_from_index(store: &Store, semantic: &Semantic, id: &str, all: bool) {
    if let Err(e) = store.remove_embedding(id) {
        tracing::error!(error = %e, id, "cannot remove an embedding");
    }
    let mut guard = semantic.graphs().write();
    if let Some(index) = guard.as_mut() {
        let removed = if all { index.remove(id) } else { index.remove_vector(id) };
        if let Err(e) = removed {
            tracing::error!(error = %e, id, "cannot remove a vector");
        }
        semantic.graphs().note(index);
    }
}

/// A memory's vector no longer matches its text (and cannot be embedded now): the stale vector
/// goes, its example moments stay.
fn drop_stale_vector(store: &Store, semantic: &Semantic, id: &str) {
    drop_from_index(store, semantic, id, false);
}
