//! The daemon's shared state: store, in-memory indexes, the semantic engine, settings, session
//! state, and the shutdown signal. One `Arc<Daemon>` is handed to every request handler.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::Instant;

use cairn_proto::{Memory, Mode, Paths, RpcError, Scope, GLOBAL_PROJECT};
use tokio_util::sync::CancellationToken;

use crate::advisor::cooldown::Cooldowns;
use crate::advisor::Quiet;
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
    /// What is kept out of advice (muted memories, the seed pack's state), mirrored from the store.
    pub quiet: RwLock<Quiet>,
    /// Outcomes recorded on memories (helpful + unhelpful), for the seeds' weight.
    outcomes: AtomicUsize,
    /// Each project's most recently changed memories, for the session-start brief.
    pub recent: Mutex<crate::recent::RecentChanges>,
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

/// A memory that is one of the pack's seeds, unedited (an imported line that merely says
/// `source: seed` under another id is the user's).
fn is_seed(m: &Memory) -> bool {
    m.source == crate::seeds::SEED_SOURCE && crate::seeds::find(&m.id).is_some()
}

fn outcome_count(m: &Memory) -> usize {
    (m.worth.helpful + m.worth.unhelpful) as usize
}

fn doc(m: &Memory) -> LexicalDoc<'_> {
    LexicalDoc { id: &m.id, project: &m.project, text: &m.text, context: &m.context, tags: &m.tags, category: &m.category }
}

impl Daemon {
    /// Builds the state and loads every memory into the keyword index.
    pub fn new(paths: Paths, mode: Mode, store: Store, config: ConfigState) -> Result<Daemon, StoreError> {
        let mut lexical = LexicalIndex::new(FieldWeights::default());
        let mut seeds = std::collections::HashSet::new();
        let mut outcomes = 0;
        let mut recent = crate::recent::RecentChanges::default();
        for memory in store.memories_after(None) {
            let memory = memory?;
            lexical.upsert(&doc(&memory));
            if is_seed(&memory) {
                seeds.insert(memory.id.clone());
            }
            outcomes += outcome_count(&memory);
            recent.note(&memory.project, &memory.id, &memory.updated_at);
        }
        let quiet = Quiet { muted: store.muted_ids()?, seeds_off: store.seeds_off()?, pack_on: store.seed_pack()?.unwrap_or(false), seeds };
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
            quiet: RwLock::new(quiet),
            outcomes: AtomicUsize::new(outcomes),
            recent: Mutex::new(recent),
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
        {
            let mut quiet = self.quiet.write().expect("quiet lock");
            if is_seed(memory) {
                quiet.seeds.insert(memory.id.clone());
            } else {
                quiet.seeds.remove(&memory.id);
            }
        }
        self.recent.lock().expect("recent lock").note(&memory.project, &memory.id, &memory.updated_at);
        let (after, before) = (outcome_count(memory), previous.as_ref().map_or(0, outcome_count));
        let _ = self.outcomes.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| Some((v + after).saturating_sub(before)));
        Ok(previous)
    }

    /// A seed lesson's weight in fusion for an event in `projects` (its project and `global`),
    /// and what it rests on (see `crate::seeds::weight`): the user's own lessons there count.
    pub fn seed_weight(&self, projects: &[&str]) -> (f64, String) {
        let seeds = if projects.contains(&cairn_proto::GLOBAL_PROJECT) { self.quiet.read().expect("quiet lock").seeds.len() } else { 0 };
        let own = self.lexical.read().expect("index lock").count_in(projects).saturating_sub(seeds) as u64;
        let outcomes = self.outcomes.load(Ordering::Relaxed) as u64;
        (crate::seeds::weight(own, outcomes), format!("{own} lessons of your own, {outcomes} outcomes"))
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
            if removed.is_some() {
                // Nothing of a forgotten memory is kept, its mute included.
                self.store.set_muted(id, false).map_err(store_error)?;
                let mut quiet = self.quiet.write().expect("quiet lock");
                quiet.muted.remove(id);
                quiet.seeds.remove(id);
                self.recent.lock().expect("recent lock").forget(id);
            }
            if let Some(m) = &removed {
                let n = outcome_count(m);
                let _ = self.outcomes.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| Some(v.saturating_sub(n)));
            }
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
