//! Loading: the model named by the settings, then the saved graphs reconciled with the store,
//! then embedding whatever lacks a current vector. Runs on the worker's thread.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use cairn_proto::Paths;

use super::bulk::{embed_all, inventory, vector_from_store};
use super::embed::{Embed, ModelSpec};
use super::host::Host;
use super::state::ModelState;
use super::sync::{catch_up_examples, examples_for_index};
use crate::config::tuneables;
use crate::retrieval::vectors::VectorIndex;

/// The model files the settings name: the user's own, or cairn's copy in the models folder.
pub fn resolve_spec(paths: &Paths, s: &tuneables::Model) -> ModelSpec {
    let own = |p: &str| (!p.trim().is_empty()).then(|| PathBuf::from(p.trim()));
    let env_runtime = std::env::var_os("ORT_DYLIB_PATH").filter(|v| !v.is_empty()).map(PathBuf::from);
    let mut spec = ModelSpec::builtin(&paths.models_dir, s.max_tokens, s.threads);
    if let Some(runtime) = own(&s.onnx_runtime).or(env_runtime) {
        (spec.runtime, spec.builtin_runtime) = (runtime, false);
    }
    if let Some(model) = own(&s.embedding_model) {
        (spec.model, spec.builtin_model) = (model, false);
    }
    if let Some(tokenizer) = own(&s.embedding_tokenizer) {
        spec.tokenizer = tokenizer;
    }
    spec
}

fn millis_since(t: Instant) -> u64 {
    t.elapsed().as_millis() as u64
}

/// Loads the model, then the saved graphs reconciled with the store, then embeds what lacks a
/// current vector. Does nothing when the model is already loaded.
pub(super) fn load(host: &dyn Host) {
    let (store, semantic) = (host.store(), host.semantic());
    if semantic.model().loaded().is_some() {
        return;
    }
    let spec = host.model_spec();
    let started = Instant::now();
    let embedder = match semantic.load_model(&spec) {
        Ok(e) => e,
        Err(e) => {
            tracing::warn!(error = %e, fix = e.fix(), "embedding model unavailable; keyword ranking only");
            semantic.model().set(ModelState::Unavailable { reason: e.to_string(), fix: e.fix().to_string() });
            return;
        }
    };
    let fingerprint = embedder.facts().fingerprint.clone();
    tracing::info!(model = %embedder.facts().name, fingerprint = %fingerprint, dimension = embedder.dimension(), ms = millis_since(started), "embedding model loaded");
    *semantic.spec.lock() = Some(spec);

    // The graphs are read and repaired outside the write lock (that can take a while after a
    // crash); the writes made meanwhile are caught up under it, and the index goes live and the
    // model is declared loaded in the same hold, so no write falls between the two.
    let first = inventory(store, &fingerprint);
    let loaded = VectorIndex::load(semantic.dir(), &fingerprint, embedder.dimension(), &first.stored, |id| vector_from_store(store, id));
    let (mut index, repair, skipped) = match loaded {
        Ok(l) => l,
        Err(e) => {
            tracing::error!(error = %e, "cannot build the semantic index; keyword ranking only");
            semantic.model().set(ModelState::Unavailable { reason: e.to_string(), fix: "see `cairn logs`, then `cairn reindex`".into() });
            return;
        }
    };
    if let Some(why) = &skipped {
        tracing::warn!(reason = %why, "saved semantic index not used; rebuilding it from the store");
    }
    // Example moments are not in the graph files: embedded before the index goes live, so that
    // the model is not declared loaded without them.
    for (id, examples) in examples_for_index(host, embedder.as_ref()) {
        if let Err(e) = index.set_examples(&id, Some(examples)) {
            tracing::error!(error = %e, id, "cannot index a lesson's example moments");
        }
    }
    let pending = {
        let _w = host.hold_writes();
        let now = inventory(store, &fingerprint);
        semantic.keys_from(store.next_embedding_key().unwrap_or(0).max(now.max_key.max(first.max_key) + 1));
        if let Err(e) = index.reconcile(&now.stored, |id| vector_from_store(store, id)) {
            tracing::error!(error = %e, "cannot reconcile the semantic index; keyword ranking only");
            semantic.model().set(ModelState::Unavailable { reason: e.to_string(), fix: "see `cairn logs`, then `cairn reindex`".into() });
            return;
        }
        // Stored vectors that could not be read are embedded again, with the rest.
        let mut pending = now.pending;
        pending.extend(now.stored.iter().filter(|s| index.key_of(&s.id).is_none()).map(|s| s.id.clone()));
        semantic.graphs().replace(index);
        semantic.model().set(ModelState::Loaded(embedder.clone()));
        pending
    };
    if repair.added + repair.rebuilt_parts + repair.unreadable > 0 {
        tracing::info!(added = repair.added, rebuilt = repair.rebuilt_parts, unreadable = repair.unreadable, "semantic index repaired against the store");
    }
    catch_up_examples(host, embedder.as_ref());
    if !pending.is_empty() {
        tracing::info!(memories = pending.len(), "embedding memories that have no current vector");
        let job = semantic.jobs().start("embed", "embedding memories", pending.len() as u64).id;
        let outcome = embed_all(host, embedder.as_ref(), &pending, false, job);
        semantic.jobs().finish(job, outcome);
    }
    if !pending.is_empty() || repair.added + repair.rebuilt_parts > 0 || skipped.is_some() {
        let _ = semantic.graphs().save(store, semantic.dir());
        crate::process::memory::release();
    }
}

/// The model, loaded on this (the worker's) thread if it is not loaded yet.
pub(super) fn load_here(host: &dyn Host) -> Option<Arc<dyn Embed>> {
    let model = host.semantic().model();
    if let Some(e) = model.loaded() {
        return Some(e);
    }
    model.set(ModelState::Loading);
    load(host);
    model.loaded()
}
