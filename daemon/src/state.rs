//! The daemon's shared state: store, in-memory indexes, the semantic engine, settings, session
//! state, and the shutdown signal. One `Arc<Daemon>` is handed to every request handler.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::Instant;

use cairn_proto::{Memory, Mode, Paths, RpcError, Scope, GLOBAL_PROJECT};
use tokio_util::sync::CancellationToken;

use crate::advisor::cooldown::Cooldowns;
use crate::config::Tuneables;
pub use crate::live_config::ConfigState;
use crate::lexical::{FieldWeights, LexicalDoc, LexicalIndex};
use crate::embed::Embedder;
use crate::project::ProjectResolver;
use crate::semantic::{self, Prepared, Semantic};
use crate::store::{Store, StoreError};

pub struct Daemon {
    pub paths: Paths,
    pub mode: Mode,
    pub started: Instant,
    pub store: Store,
    pub lexical: RwLock<LexicalIndex>,
    pub semantic: Semantic,
    pub config: RwLock<ConfigState>,
    pub projects: ProjectResolver,
    pub cooldowns: Mutex<Cooldowns>,
    /// Paused projects, mirrored from the store for the hook's quick check.
    pub paused: RwLock<std::collections::HashSet<String>>,
    pub shutdown: CancellationToken,
    inflight: AtomicUsize,
    /// Serialises store-and-index updates so an index never holds an older version than the store.
    writes: Mutex<()>,
}

/// Counts a request as in flight until dropped; shutdown drains to zero.
pub struct InFlight<'a>(&'a AtomicUsize);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

pub fn store_error(e: StoreError) -> RpcError {
    tracing::error!(error = %e, "store error");
    RpcError::Store(e.to_string())
}

fn doc(m: &Memory) -> LexicalDoc<'_> {
    LexicalDoc { id: &m.id, project: &m.project, text: &m.text, context: &m.context, tags: &m.tags, category: &m.category }
}

impl Daemon {
    /// Builds the state and loads every memory into the keyword index.
    pub fn new(paths: Paths, mode: Mode, store: Store, config: ConfigState) -> Result<Daemon, StoreError> {
        let mut lexical = LexicalIndex::new(FieldWeights::default());
        for memory in store.memories_after(None) {
            lexical.upsert(&doc(&memory?));
        }
        let paused = store.paused_projects()?.into_iter().collect();
        let semantic = Semantic::new(paths.data_dir.join("vectors"), config.tuneables.semantic.query_cache_size);
        Ok(Daemon {
            semantic,
            paused: RwLock::new(paused),
            paths,
            mode,
            started: Instant::now(),
            store,
            lexical: RwLock::new(lexical),
            config: RwLock::new(config),
            projects: ProjectResolver::default(),
            cooldowns: Mutex::new(Cooldowns::default()),
            shutdown: CancellationToken::new(),
            inflight: AtomicUsize::new(0),
            writes: Mutex::new(()),
        })
    }

    pub fn enter(&self) -> InFlight<'_> {
        self.inflight.fetch_add(1, Ordering::AcqRel);
        InFlight(&self.inflight)
    }

    pub fn inflight(&self) -> usize {
        self.inflight.load(Ordering::Acquire)
    }

    pub fn is_paused(&self, project: &str) -> bool {
        self.paused.read().expect("paused lock").contains(project)
    }

    pub fn tuneables(&self) -> Tuneables {
        self.config.read().expect("config lock").tuneables.clone()
    }

    /// The project a request is about: explicit, else `global`, else the project of its cwd.
    pub fn project_for(&self, scope: &Scope) -> String {
        if let Some(p) = scope.project.as_deref().map(str::trim).filter(|p| !p.is_empty()) {
            return p.to_string();
        }
        if scope.global {
            return GLOBAL_PROJECT.to_string();
        }
        match scope.cwd.as_deref() {
            Some(cwd) if !cwd.is_empty() => self.projects.resolve(cwd),
            _ => GLOBAL_PROJECT.to_string(),
        }
    }

    /// Holds memory writes off while held: store, keyword index and embeddings change together.
    pub fn write_lock(&self) -> MutexGuard<'_, ()> {
        self.writes.lock().expect("write lock")
    }

    /// The model if loaded and wanted; never waits (the hook's path).
    pub fn embedder_now(&self) -> Option<Arc<Embedder>> {
        if !self.tuneables().semantic.enabled {
            return None;
        }
        self.semantic.embedder_now()
    }

    /// The model if wanted, waiting for it to load; `None` when it is off or cannot load.
    pub async fn embedder_ready(&self) -> Option<Arc<Embedder>> {
        if !self.tuneables().semantic.enabled {
            return None;
        }
        self.semantic.ready().await
    }

    /// Embeddings for memories about to be written, in batches, off the async threads.
    pub async fn prepare(&self, memories: &[&Memory]) -> Prepared {
        let embedder = self.embedder_ready().await;
        tokio::task::block_in_place(|| Prepared::for_memories(embedder.as_deref(), memories))
    }

    fn put_locked(&self, memory: &Memory, prepared: &Prepared) -> Result<Option<Memory>, RpcError> {
        let previous = self.store.put_memory(memory).map_err(store_error)?;
        self.lexical.write().expect("index lock").upsert(&doc(memory));
        semantic::refresh_embedding(self, memory, prepared);
        Ok(previous)
    }

    /// Stores a memory and updates the indexes and its embedding in one step; not yet durable
    /// (see [`Self::save_memory`]). `prepared` holds embeddings computed ahead.
    pub fn put_memory(&self, memory: &Memory, prepared: &Prepared) -> Result<Option<Memory>, RpcError> {
        let _w = self.write_lock();
        self.put_locked(memory, prepared)
    }

    /// Builds a memory from its current version (if any) and stores it, under the write lock so
    /// no concurrent change is lost; not yet durable. Returns whether a version existed.
    pub fn put_memory_with(&self, id: &str, prepared: &Prepared, build: impl FnOnce(Option<Memory>) -> Memory) -> Result<bool, RpcError> {
        let _w = self.write_lock();
        let current = self.store.get_memory(id).map_err(store_error)?;
        let existed = current.is_some();
        self.put_locked(&build(current), prepared)?;
        Ok(existed)
    }

    /// Stores a memory, updates the indexes, embeds it, and waits until the write is durable.
    pub async fn save_memory(&self, memory: &Memory) -> Result<Option<Memory>, RpcError> {
        let prepared = self.prepare(&[memory]).await;
        // The write lock may be held a while (a load catching up): never block the runtime on it.
        let previous = tokio::task::block_in_place(|| self.put_memory(memory, &prepared))?;
        self.store.durable().await;
        Ok(previous)
    }

    pub async fn remove_memory(&self, id: &str) -> Result<Option<Memory>, RpcError> {
        let removed = tokio::task::block_in_place(|| {
            let _w = self.write_lock();
            let removed = self.store.remove_memory(id).map_err(store_error)?;
            self.lexical.write().expect("index lock").remove(id);
            semantic::drop_embedding(self, id);
            Ok::<_, RpcError>(removed)
        })?;
        self.store.durable().await;
        Ok(removed)
    }

    /// Runs `f` on the current version of a memory and stores the result, atomically.
    pub async fn update_memory(&self, id: &str, f: impl FnOnce(&mut Memory) -> Result<(), RpcError>) -> Result<Memory, RpcError> {
        // The model is made ready first: the new text is embedded under the lock.
        let _ = self.embedder_ready().await;
        let updated = tokio::task::block_in_place(|| {
            let _w = self.write_lock();
            let mut memory = self.store.get_memory(id).map_err(store_error)?.ok_or_else(|| RpcError::NotFound(id.to_string()))?;
            f(&mut memory)?;
            self.put_locked(&memory, &Prepared::default())?;
            Ok::<_, RpcError>(memory)
        })?;
        self.store.durable().await;
        Ok(updated)
    }
}
