//! `cairn reindex`: every memory embedded again with the current model, and the graphs rebuilt
//! compactly. Runs on the worker's thread.

use super::bulk::{embed_all, inventory, vector_from_store};
use super::host::Host;
use super::load::load_here;
use super::state::ModelState;
use super::sync::{catch_up_examples, examples_for_index};
use crate::retrieval::vectors::VectorIndex;

/// Re-embeds every memory with the current model and rebuilds the graphs compactly.
pub(super) fn reindex(host: &dyn Host, job: u64) {
    let (store, semantic) = (host.store(), host.semantic());
    let jobs = semantic.jobs();
    jobs.update(job, |p| p.phase = "waiting for the model".into());
    let Some(embedder) = load_here(host) else {
        let reason = match semantic.model().state() {
            ModelState::Unavailable { reason, fix } => format!("{reason}; {fix}"),
            _ => "the model is not loaded".into(),
        };
        jobs.finish(job, Err(reason));
        return;
    };
    let ids: Vec<String> = store.memories_after(None).filter_map(|m| m.ok().map(|m| m.id)).collect();
    jobs.update(job, |p| {
        p.phase = "embedding memories".into();
        p.total = ids.len() as u64;
    });
    let embedded = embed_all(host, embedder.as_ref(), &ids, true, job);
    if let Err(e) = &embedded
        && host.stopping()
    {
        jobs.finish(job, Err(e.clone()));
        return;
    }
    // A fresh graph per project from the stored vectors, built outside the lock; the writes
    // made meanwhile are caught up under it, and the new graphs replace the old.
    jobs.update(job, |p| p.phase = "rebuilding the index".into());
    let fingerprint = embedder.facts().fingerprint.clone();
    let built = {
        let snapshot = inventory(store, &fingerprint).stored;
        let mut fresh = VectorIndex::new(embedder.dimension(), &fingerprint);
        for (id, examples) in examples_for_index(host, embedder.as_ref()) {
            if let Err(e) = fresh.set_examples(&id, Some(examples)) {
                tracing::error!(error = %e, id, "cannot index a lesson's example moments");
            }
        }
        fresh.reconcile(&snapshot, |id| vector_from_store(store, id)).map(|_| fresh)
    };
    let swapped = built.and_then(|mut fresh| {
        let _w = host.hold_writes();
        let current = inventory(store, &fingerprint).stored;
        fresh.reconcile(&current, |id| vector_from_store(store, id))?;
        semantic.graphs().replace(fresh);
        Ok(())
    });
    catch_up_examples(host, embedder.as_ref());
    let saved = semantic.graphs().save(store, semantic.dir());
    crate::process::memory::release();
    let outcome = embedded.and(swapped.map_err(|e| e.to_string())).and(saved.map(|_| ()).map_err(|e| e.to_string()));
    jobs.finish(job, outcome);
    tracing::info!(memories = ids.len(), "reindex finished");
}
