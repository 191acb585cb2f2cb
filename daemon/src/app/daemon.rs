//! The daemon's shared state: the store, the memories with their indexes (the one write path),
//! the semantic engine, the settings, the projects, the session cooldowns and the shutdown
//! signal. One `Arc<Daemon>` is handed to every use case. Its fields are private: the use cases
//! read through its methods, and every memory write goes through [`Memories::writer`].

use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::Arc;

use parking_lot::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use cairn_proto::{Memory, Mode, Paths, Scope, GLOBAL_PROJECT};
use tokio_util::sync::CancellationToken;

use super::pending::Pending;
use super::writer::Memories;
use crate::advisor::cooldown::Cooldowns;
use crate::base::project::ProjectResolver;
use crate::config::{LiveConfig, Tuneables};
use crate::semantic::embed::{Embed, Loader, ModelSpec};
use crate::semantic::{self, Host, Prepared, Semantic};
use crate::store::{Store, StoreError};

pub struct Daemon {
    paths: Paths,
    mode: Mode,
    started: Instant,
    store: Arc<Store>,
    semantic: Arc<Semantic>,
    memories: Memories,
    config: Arc<LiveConfig>,
    projects: ProjectResolver,
    cooldowns: Mutex<Cooldowns>,
    /// Sessions with lessons whose outcome is not settled yet.
    pending: Pending,
    /// Sessions the capture worker reads next (prompts, failures, shadows).
    captures: Pending,
    /// Projects whose predictions the prediction worker refreshes next (noted at SessionStart).
    predictions: Pending,
    /// Captures turned away by the gate or taken as evidence, since start.
    turned_away: std::sync::atomic::AtomicU64,
    /// Each project's learned mix of signal groups, mirrored from the store for the hook.
    mixes: parking_lot::RwLock<std::collections::HashMap<String, crate::learning::weights::Mix>>,
    /// Memories per tier, as the tier job last counted them.
    tier_counts: parking_lot::RwLock<std::collections::BTreeMap<String, u64>>,
    /// Each day's activity per project, counted as it happens (the dashboard's series).
    days: super::days::Days,
    shutdown: CancellationToken,
    /// What the shutdown under way is for: [`RUNNING`], [`STOPPING`] or [`RESTARTING`].
    ending: AtomicU8,
    inflight: AtomicUsize,
}

/// The daemon's course: serving, stopping for good, or stopping to start again in place.
const RUNNING: u8 = 0;
const STOPPING: u8 = 1;
const RESTARTING: u8 = 2;

/// Counts a request as in flight until dropped; shutdown drains to zero.
pub struct InFlight<'a>(&'a AtomicUsize);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Daemon {
    /// Builds the state over `store` and loads every memory into the indexes; the model is
    /// loaded by `loader` when first asked for (see [`Daemon::start`]).
    pub fn new(paths: Paths, mode: Mode, store: Store, config: Arc<LiveConfig>, loader: Loader) -> Result<Daemon, StoreError> {
        let store = Arc::new(store);
        let semantic = Arc::new(Semantic::new(paths.data_dir.join("vectors"), config.read().tuneables.model.query_cache_size, loader));
        let memories = Memories::load(store.clone(), semantic.clone())?;
        let mixes = store.learned_mixes()?.into_iter().collect();
        Ok(Daemon {
            mixes: parking_lot::RwLock::new(mixes),
            tier_counts: Default::default(),
            days: Default::default(),
            paths,
            mode,
            started: Instant::now(),
            store,
            semantic,
            memories,
            config,
            projects: ProjectResolver::default(),
            cooldowns: Mutex::new(Cooldowns::default()),
            pending: Pending::default(),
            captures: Pending::default(),
            predictions: Pending::default(),
            turned_away: Default::default(),
            shutdown: CancellationToken::new(),
            ending: AtomicU8::new(RUNNING),
            inflight: AtomicUsize::new(0),
        })
    }

    /// The sessions outcome attribution still waits on.
    pub fn pending(&self) -> &Pending {
        &self.pending
    }

    pub fn captures(&self) -> &Pending {
        &self.captures
    }

    pub fn predictions(&self) -> &Pending {
        &self.predictions
    }

    /// Each day's activity per project, as counted so far.
    pub fn days(&self) -> &super::days::Days {
        &self.days
    }

    /// Writes the day counts changed since the last write.
    pub fn flush_days(&self) {
        let today = crate::base::clock::now();
        if let Err(e) = self.days.flush(&self.store, today.get(..10).unwrap_or_default()) {
            tracing::warn!(error = %e, "cannot write the day counts");
        }
    }

    /// Memories per tier, as last counted.
    pub fn tier_counts(&self) -> std::collections::BTreeMap<String, u64> {
        self.tier_counts.read().clone()
    }

    pub fn set_tier_counts(&self, counts: std::collections::BTreeMap<String, u64>) {
        *self.tier_counts.write() = counts;
    }

    /// The learned mix of `project`, if one was learned.
    pub fn mix(&self, project: &str) -> Option<crate::learning::weights::Mix> {
        self.mixes.read().get(project).copied()
    }

    /// Sets (or, with `None`, clears) a project's mix in the mirror.
    pub fn set_mix(&self, project: &str, mix: Option<crate::learning::weights::Mix>) {
        match mix {
            Some(m) => self.mixes.write().insert(project.to_string(), m),
            None => self.mixes.write().remove(project),
        };
    }

    /// Counts a capture the gate turned away (or took as evidence for a lesson it repeats).
    pub fn turned_away(&self, add: u64) -> u64 {
        self.turned_away.fetch_add(add, std::sync::atomic::Ordering::Relaxed) + add
    }

    /// Starts the semantic worker; the full daemon loads the model right away (in the
    /// background: it answers meanwhile, by keywords), `--lite` on first use.
    pub fn start(self: &Arc<Self>) {
        semantic::worker::spawn(self);
        if self.mode == Mode::Full && self.tuneables().model.enabled {
            self.semantic.model().request_load();
        }
    }

    /// Stops the semantic worker and saves what it changed (shutdown).
    pub fn stop(&self) {
        semantic::worker::stop(self);
        self.flush_days();
        let _ = self.semantic.graphs().save(&self.store, self.semantic.dir());
    }

    pub fn paths(&self) -> &Paths {
        &self.paths
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    pub fn uptime(&self) -> Duration {
        self.started.elapsed()
    }

    /// The store, for what is not a memory write: the session log, reads, flushing.
    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn semantic(&self) -> &Semantic {
        &self.semantic
    }

    /// The memories, their indexes, and the one way to write them.
    pub fn memories(&self) -> &Memories {
        &self.memories
    }

    /// The settings in force and their files' state.
    pub fn config(&self) -> &Arc<LiveConfig> {
        &self.config
    }

    /// A copy of the tuneables in force.
    pub fn tuneables(&self) -> Tuneables {
        self.config.tuneables()
    }

    pub fn cooldowns(&self) -> MutexGuard<'_, Cooldowns> {
        self.cooldowns.lock()
    }

    pub fn shutdown(&self) -> &CancellationToken {
        &self.shutdown
    }

    /// Stops the daemon (`cairn down`, SIGTERM, SIGINT). A stop asked for wins over a restart
    /// under way: the daemon then exits rather than running itself anew.
    pub fn stop_serving(&self) {
        self.ending.store(STOPPING, Ordering::Release);
        self.shutdown.cancel();
    }

    /// Shuts down to start again in place (`cairnd` runs itself anew, same pid): the only way
    /// to reopen a store whose disk refused a write, once the disk takes writes again. Nothing
    /// happens when a stop is already under way.
    pub fn restart(&self) {
        if self.ending.compare_exchange(RUNNING, RESTARTING, Ordering::AcqRel, Ordering::Acquire).is_ok() {
            self.shutdown.cancel();
        }
    }

    /// Whether the shutdown under way is a restart.
    pub fn restarting(&self) -> bool {
        self.ending.load(Ordering::Acquire) == RESTARTING
    }

    pub fn enter(&self) -> InFlight<'_> {
        self.inflight.fetch_add(1, Ordering::AcqRel);
        InFlight(&self.inflight)
    }

    pub fn inflight(&self) -> usize {
        self.inflight.load(Ordering::Acquire)
    }

    /// The project of a working directory (cached).
    pub fn project_of(&self, cwd: &str) -> String {
        self.projects.resolve(cwd)
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
            Some(cwd) if !cwd.is_empty() => self.project_of(cwd),
            _ => GLOBAL_PROJECT.to_string(),
        }
    }

    /// The model if wanted, waiting for it to load; `None` when it is off or cannot load.
    pub async fn embedder_ready(&self) -> Option<Arc<dyn Embed>> {
        if !self.tuneables().model.enabled {
            return None;
        }
        self.semantic.model().ready().await
    }

    /// Embeddings for memories about to be written, in batches, off the async threads.
    pub async fn prepare(&self, memories: &[&Memory]) -> Prepared {
        let embedder = self.embedder_ready().await;
        tokio::task::block_in_place(|| Prepared::for_memories(embedder.as_deref(), memories))
    }
}

impl Host for Daemon {
    fn store(&self) -> &Store {
        &self.store
    }

    fn semantic(&self) -> &Semantic {
        &self.semantic
    }

    fn hold_writes(&self) -> MutexGuard<'_, ()> {
        self.memories.hold()
    }

    fn model_spec(&self) -> ModelSpec {
        semantic::load::resolve_spec(&self.paths, &self.tuneables().model)
    }

    fn stopping(&self) -> bool {
        self.shutdown.is_cancelled()
    }
}
