//! The semantic index in use: the HNSW graphs (none until the model is loaded, since their
//! dimension is the model's), with counts mirrored beside them so that `status` never waits for
//! the graphs' lock, and saving.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use parking_lot::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::retrieval::vectors::{VectorError, VectorIndex};
use crate::store::Store;

#[derive(Default)]
pub struct Graphs {
    index: RwLock<Option<VectorIndex>>,
    loaded: AtomicBool,
    indexed: AtomicU64,
    unsaved: AtomicBool,
}

impl Graphs {
    pub fn read(&self) -> RwLockReadGuard<'_, Option<VectorIndex>> {
        self.index.read()
    }

    /// The graphs if nobody is writing to them at this instant (the hook's way).
    pub fn try_read(&self) -> Option<RwLockReadGuard<'_, Option<VectorIndex>>> {
        self.index.try_read()
    }

    pub fn write(&self) -> RwLockWriteGuard<'_, Option<VectorIndex>> {
        self.index.write()
    }

    /// The key under which the index holds `id`'s vector.
    pub fn key_of(&self, id: &str) -> Option<u64> {
        self.read().as_ref().and_then(|i| i.key_of(id))
    }

    /// Mirrors `index`'s counts for `status`.
    pub fn note(&self, index: &VectorIndex) {
        self.loaded.store(true, Ordering::Relaxed);
        self.indexed.store(index.len() as u64, Ordering::Relaxed);
        self.unsaved.store(index.is_dirty(), Ordering::Relaxed);
    }

    /// Puts `index` in place of the graphs in use.
    pub fn replace(&self, index: VectorIndex) {
        self.note(&index);
        *self.write() = Some(index);
    }

    /// Whether the index is loaded, how many memories it holds, and whether changes await a
    /// save; read without the index's lock.
    pub fn counts(&self) -> (bool, u64, bool) {
        (self.loaded.load(Ordering::Relaxed), self.indexed.load(Ordering::Relaxed), self.unsaved.load(Ordering::Relaxed))
    }

    /// Saves the graphs into `dir` if anything changed: the store is flushed first, so a saved
    /// graph never holds a key the store could still lose. Returns how many graphs were
    /// written; a failure is logged (the store still holds every vector, and the next start
    /// repairs from it).
    pub fn save(&self, store: &Store, dir: &Path) -> Result<usize, VectorError> {
        if !self.unsaved.load(Ordering::Relaxed) {
            return Ok(0);
        }
        if let Err(e) = store.flush() {
            tracing::error!(error = %e, "cannot flush the store; the semantic index is saved at the next chance");
            return Ok(0);
        }
        // A read lock is enough: saving reads the graphs; writers wait, searches go on.
        let guard = self.read();
        let Some(index) = guard.as_ref() else { return Ok(0) };
        let result = index.save(dir);
        match &result {
            Ok(n) => {
                self.unsaved.store(index.is_dirty(), Ordering::Relaxed);
                tracing::debug!(graphs = n, "semantic index saved");
            }
            Err(e) => tracing::error!(error = %e, "cannot save the semantic index; it is rebuilt from the store at the next start"),
        }
        result
    }
}
