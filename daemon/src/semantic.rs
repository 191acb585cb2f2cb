//! The semantic engine at run time: the model's life (lazy, loading, loaded, unavailable and
//! why), the query-embedding cache, the semantic index, and the slow work done by one worker
//! thread: loading, embedding memories that lack a current vector, and reindexing.
//!
//! The hook never waits for any of it: when the model is not ready, or busy with bulk work, it
//! answers from keywords (and asks the worker to load). Human commands that embed (add, import,
//! search) wait for the load, up to a bound.

use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::{Duration, Instant};

use cairn_proto::{JobProgress, Memory, ModelInfo, Paths};
use lru::LruCache;

use crate::config;
use crate::embed::{self, EmbedError, Embedder, ModelSpec};
use crate::state::Daemon;
use crate::store::EmbeddingRecord;
use crate::vectors::{StoredKey, VectorIndex};

/// Memories embedded per model run during bulk work, and per write-lock hold.
const CHUNK: usize = 32;
/// Longest a person's command waits for the model to load.
const READY_WAIT: Duration = Duration::from_secs(120);
/// Finished jobs remembered for `cairn status` and polling clients.
const JOBS_KEPT: usize = 8;

/// Where the model is in its life.
#[derive(Clone)]
pub enum ModelState {
    /// Not loaded yet; loads on first use (`--lite`) or right after start.
    Lazy,
    Loading,
    Loaded(Arc<Embedder>),
    /// Cannot load: what is wrong, and the fix.
    Unavailable { reason: String, fix: String },
}

enum Command {
    Load,
    Reindex(u64),
}

struct Job {
    progress: JobProgress,
    started: Instant,
}

pub struct Semantic {
    state: tokio::sync::watch::Sender<ModelState>,
    /// The graphs; `None` until the model is loaded (their dimension is the model's).
    pub index: RwLock<Option<VectorIndex>>,
    /// Mirrors of the index for `status`, readable without its lock.
    indexed: AtomicU64,
    index_loaded: AtomicBool,
    unsaved: AtomicBool,
    cache: Mutex<LruCache<String, Arc<Vec<f32>>>>,
    next_key: AtomicU64,
    jobs: Mutex<Vec<Job>>,
    next_job: AtomicU64,
    commands: Mutex<Option<mpsc::Sender<Command>>>,
    worker: Mutex<Option<std::thread::JoinHandle<()>>>,
    /// The files in use once loaded, for `status`.
    spec: Mutex<Option<ModelSpec>>,
    pub dir: PathBuf,
}

/// The model files the settings name: the user's own, or cairn's copy in the models folder.
pub fn resolve_spec(paths: &Paths, s: &config::Semantic) -> ModelSpec {
    let own = |p: &str| (!p.trim().is_empty()).then(|| PathBuf::from(p.trim()));
    let env_runtime = std::env::var_os("ORT_DYLIB_PATH").filter(|v| !v.is_empty()).map(PathBuf::from);
    let runtime = own(&s.onnx_runtime).or(env_runtime);
    let model = own(&s.embedding_model);
    ModelSpec {
        builtin_runtime: runtime.is_none(),
        builtin_model: model.is_none(),
        runtime: runtime.unwrap_or_else(|| cairn_proto::model::RUNTIME.in_dir(&paths.models_dir)),
        tokenizer: own(&s.embedding_tokenizer).unwrap_or_else(|| cairn_proto::model::TOKENIZER.in_dir(&paths.models_dir)),
        model: model.unwrap_or_else(|| cairn_proto::model::MODEL.in_dir(&paths.models_dir)),
        max_tokens: s.max_tokens,
        threads: s.threads,
    }
}

fn millis_since(t: Instant) -> u64 {
    t.elapsed().as_millis() as u64
}

impl Semantic {
    pub fn new(dir: PathBuf, cache_size: usize) -> Semantic {
        let (state, _) = tokio::sync::watch::channel(ModelState::Lazy);
        Semantic {
            state,
            index: RwLock::new(None),
            indexed: AtomicU64::new(0),
            index_loaded: AtomicBool::new(false),
            unsaved: AtomicBool::new(false),
            cache: Mutex::new(LruCache::new(NonZeroUsize::new(cache_size.max(1)).expect("non-zero"))),
            next_key: AtomicU64::new(1),
            jobs: Mutex::new(Vec::new()),
            next_job: AtomicU64::new(1),
            commands: Mutex::new(None),
            worker: Mutex::new(None),
            spec: Mutex::new(None),
            dir,
        }
    }

    pub fn state(&self) -> ModelState {
        self.state.borrow().clone()
    }

    fn set_state(&self, s: ModelState) {
        self.state.send_replace(s);
    }

    /// The model if it is loaded now; if it has not been loaded yet, asks for it and answers
    /// `None` at once (the hook's path).
    pub fn embedder_now(&self) -> Option<Arc<Embedder>> {
        match self.state() {
            ModelState::Loaded(e) => Some(e),
            ModelState::Lazy => {
                self.request_load();
                None
            }
            _ => None,
        }
    }

    /// The model, waiting (a bounded time) for it to load if it has not yet; `None` when it
    /// cannot load.
    pub async fn ready(&self) -> Option<Arc<Embedder>> {
        self.request_load();
        let mut rx = self.state.subscribe();
        let settled = tokio::time::timeout(READY_WAIT, rx.wait_for(|s| !matches!(s, ModelState::Lazy | ModelState::Loading))).await;
        match settled {
            Ok(Ok(state)) => match &*state {
                ModelState::Loaded(e) => Some(e.clone()),
                _ => None,
            },
            _ => {
                tracing::warn!("the model is still loading; going on without it");
                None
            }
        }
    }

    /// Asks the worker to load the model unless it is loaded, loading or known to be unavailable.
    pub fn request_load(&self) {
        let send = self.state.send_if_modified(|s| {
            if matches!(s, ModelState::Lazy) {
                *s = ModelState::Loading;
                true
            } else {
                false
            }
        });
        if send {
            self.send(Command::Load);
        }
    }

    /// Forgets why the model was unavailable and tries again (after `cairn setup`).
    pub fn retry_load(&self) {
        let send = self.state.send_if_modified(|s| {
            if matches!(s, ModelState::Lazy | ModelState::Unavailable { .. }) {
                *s = ModelState::Loading;
                true
            } else {
                false
            }
        });
        if send {
            self.send(Command::Load);
        }
    }

    fn send(&self, c: Command) {
        let sent = self.commands.lock().expect("command lock").as_ref().is_some_and(|tx| tx.send(c).is_ok());
        if !sent {
            // No worker (shutting down): nobody will load, so nobody may wait for it.
            self.state.send_if_modified(|s| {
                if matches!(s, ModelState::Lazy | ModelState::Loading) {
                    *s = ModelState::Unavailable { reason: "cairnd is shutting down".into(), fix: "start it again with `cairn up`".into() };
                    true
                } else {
                    false
                }
            });
        }
    }

    /// Starts a reindex unless one is queued or running; answers its progress.
    pub fn request_reindex(&self) -> JobProgress {
        let mut jobs = self.jobs.lock().expect("job lock");
        if let Some(j) = jobs.iter().find(|j| !j.progress.finished && j.progress.kind == "reindex") {
            return j.progress.clone();
        }
        let progress = self.new_job(&mut jobs, "reindex", "queued");
        drop(jobs);
        self.send(Command::Reindex(progress.id));
        progress
    }

    fn new_job(&self, jobs: &mut Vec<Job>, kind: &str, phase: &str) -> JobProgress {
        let progress = JobProgress {
            id: self.next_job.fetch_add(1, Ordering::Relaxed),
            kind: kind.into(),
            phase: phase.into(),
            done: 0,
            total: 0,
            finished: false,
            error: None,
            started_at: crate::exchange::now(),
            elapsed_ms: 0,
        };
        jobs.push(Job { progress: progress.clone(), started: Instant::now() });
        while jobs.len() > JOBS_KEPT {
            match jobs.iter().position(|j| j.progress.finished) {
                Some(i) => {
                    jobs.remove(i);
                }
                None => break,
            }
        }
        progress
    }

    fn start_job(&self, kind: &str, phase: &str, total: u64) -> u64 {
        let mut jobs = self.jobs.lock().expect("job lock");
        let mut p = self.new_job(&mut jobs, kind, phase);
        p.total = total;
        let id = p.id;
        jobs.last_mut().expect("just pushed").progress.total = total;
        id
    }

    fn update_job(&self, id: u64, f: impl FnOnce(&mut JobProgress)) {
        if let Some(j) = self.jobs.lock().expect("job lock").iter_mut().find(|j| j.progress.id == id) {
            f(&mut j.progress);
            if j.progress.finished {
                j.progress.elapsed_ms = millis_since(j.started);
            }
        }
    }

    fn finish_job(&self, id: u64, outcome: Result<(), String>) {
        self.update_job(id, |p| {
            p.finished = true;
            match outcome {
                Ok(()) => p.phase = "done".into(),
                Err(e) => {
                    p.phase = "failed".into();
                    p.error = Some(e);
                }
            }
        });
    }

    /// A job's progress: the one asked for, or the latest.
    pub fn job(&self, id: Option<u64>) -> Option<JobProgress> {
        let jobs = self.jobs.lock().expect("job lock");
        let job = match id {
            Some(id) => jobs.iter().find(|j| j.progress.id == id),
            None => jobs.last(),
        }?;
        let mut p = job.progress.clone();
        if !p.finished {
            p.elapsed_ms = millis_since(job.started);
        }
        Some(p)
    }

    /// What `status` says of the model.
    pub fn status_text(&self, enabled: bool) -> String {
        if !enabled {
            return "off: semantic.enabled is false in tuneables.json; keyword ranking only".into();
        }
        match self.state() {
            ModelState::Lazy => "lazy".into(),
            ModelState::Loading => "loading".into(),
            ModelState::Loaded(_) => "loaded".into(),
            ModelState::Unavailable { reason, fix } => format!("missing: {reason}; {fix} (keyword ranking meanwhile)"),
        }
    }

    pub fn model_info(&self) -> Option<ModelInfo> {
        let ModelState::Loaded(e) = self.state() else { return None };
        let spec = self.spec.lock().expect("spec lock").clone()?;
        Some(ModelInfo {
            name: e.facts().name.clone(),
            fingerprint: e.facts().fingerprint.clone(),
            dimension: e.facts().dimension as u64,
            model_file: spec.model.display().to_string(),
            tokenizer_file: spec.tokenizer.display().to_string(),
            runtime_file: spec.runtime.display().to_string(),
        })
    }

    /// Whether the index is loaded, how many memories it holds, and whether changes await a
    /// save; read without the index's lock.
    pub fn index_counts(&self) -> (bool, u64, bool) {
        (self.index_loaded.load(Ordering::Relaxed), self.indexed.load(Ordering::Relaxed), self.unsaved.load(Ordering::Relaxed))
    }

    fn note_index(&self, index: &VectorIndex) {
        self.index_loaded.store(true, Ordering::Relaxed);
        self.indexed.store(index.len() as u64, Ordering::Relaxed);
        self.unsaved.store(index.is_dirty(), Ordering::Relaxed);
    }

    /// The embedding of a query, from the cache when it was asked before. With `wait` false
    /// (the hook), a model busy with bulk work is not waited for: `Ok(None)`.
    pub fn query_vector(&self, embedder: &Embedder, text: &str, wait: bool) -> Result<Option<Arc<Vec<f32>>>, EmbedError> {
        if let Some(v) = self.cache.lock().expect("cache lock").get(text) {
            return Ok(Some(v.clone()));
        }
        let started = Instant::now();
        let vectors = if wait { Some(embedder.embed(&[text])?) } else { embedder.try_embed(&[text])? };
        let Some(mut vectors) = vectors else { return Ok(None) };
        tracing::debug!(elapsed_us = started.elapsed().as_micros() as u64, chars = text.len(), "query embedded");
        let v = Arc::new(vectors.remove(0));
        self.cache.lock().expect("cache lock").put(text.to_string(), v.clone());
        Ok(Some(v))
    }

    /// A fresh key for a new embedding: never one used before, across restarts.
    fn new_key(&self) -> u64 {
        self.next_key.fetch_add(1, Ordering::Relaxed)
    }
}

/// Embeddings computed ahead of a write, by text hash, so that bulk writes embed in batches
/// outside the write lock.
#[derive(Default)]
pub struct Prepared {
    vectors: std::collections::HashMap<String, Vec<f32>>,
}

impl Prepared {
    /// Embeds the texts of `memories` in batches, when the model is available.
    pub fn for_memories(embedder: Option<&Embedder>, memories: &[&Memory]) -> Prepared {
        let Some(embedder) = embedder else { return Prepared::default() };
        let texts: Vec<String> = memories.iter().map(|m| embed::embedding_text(m)).collect();
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
}

/// Brings a just-written memory's embedding in line with its text, under the daemon's write
/// lock: keeps a current one, stores a new one (from `prepared`, else embedded now), or, without
/// a model, drops one that no longer matches the text. Embeddings are kept current whenever the
/// model is loaded, whether or not retrieval uses them (`semantic.enabled`).
pub fn refresh_embedding(d: &Daemon, memory: &Memory, prepared: &Prepared) {
    let text = embed::embedding_text(memory);
    let hash = embed::text_hash(&text);
    let record = d.store.embedding_record(&memory.id).unwrap_or_else(|e| {
        tracing::error!(error = %e, id = %memory.id, "cannot read an embedding record");
        None
    });
    let ModelState::Loaded(embedder) = d.semantic.state() else {
        if record.as_ref().is_some_and(|r| r.text_hash != hash || r.project != memory.project) {
            drop_embedding(d, &memory.id);
        }
        return;
    };
    let fingerprint = &embedder.facts().fingerprint;
    if let Some(r) = record.as_ref().filter(|r| r.text_hash == hash && &r.fingerprint == fingerprint && r.project == memory.project) {
        let indexed = d.semantic.index.read().expect("index lock").as_ref().is_some_and(|i| i.key_of(&memory.id) == Some(r.key));
        if indexed {
            return;
        }
    }
    let vector = match prepared.vectors.get(&hash) {
        Some(v) => v.clone(),
        None => match embedder.embed(&[&text]) {
            Ok(mut v) => v.remove(0),
            Err(e) => {
                tracing::error!(error = %e, id = %memory.id, "cannot embed a memory; it is found by keywords until embedded");
                drop_embedding(d, &memory.id);
                return;
            }
        },
    };
    store_embedding(d, memory, fingerprint, hash, &vector);
}

fn store_embedding(d: &Daemon, memory: &Memory, fingerprint: &str, text_hash: String, vector: &[f32]) {
    let record = EmbeddingRecord { key: d.semantic.new_key(), project: memory.project.clone(), fingerprint: fingerprint.to_string(), text_hash };
    if let Err(e) = d.store.put_embedding(&memory.id, &record, vector) {
        tracing::error!(error = %e, id = %memory.id, "cannot store an embedding");
        return;
    }
    let mut guard = d.semantic.index.write().expect("index lock");
    if let Some(index) = guard.as_mut() {
        if let Err(e) = index.upsert(&memory.id, &memory.project, record.key, vector) {
            tracing::error!(error = %e, id = %memory.id, "cannot index an embedding");
        }
        d.semantic.note_index(index);
    }
}

/// Removes a memory's embedding from the store and the index.
pub fn drop_embedding(d: &Daemon, id: &str) {
    if let Err(e) = d.store.remove_embedding(id) {
        tracing::error!(error = %e, id, "cannot remove an embedding");
    }
    let mut guard = d.semantic.index.write().expect("index lock");
    if let Some(index) = guard.as_mut() {
        if let Err(e) = index.remove(id) {
            tracing::error!(error = %e, id, "cannot remove a vector");
        }
        d.semantic.note_index(index);
    }
}

/// Starts the worker thread that does the semantic engine's slow work. It holds the daemon
/// weakly and ends when the daemon shuts down. A panic in a job marks the model unavailable
/// (with the reason) instead of leaving anyone waiting for it.
pub fn spawn_worker(d: &Arc<Daemon>) {
    let (tx, rx) = mpsc::channel();
    *d.semantic.commands.lock().expect("command lock") = Some(tx);
    let weak: Weak<Daemon> = Arc::downgrade(d);
    let shutdown = d.shutdown.clone();
    let handle = std::thread::Builder::new().name("cairn-semantic".into()).spawn(move || {
        while let Ok(command) = rx.recv() {
            let Some(d) = weak.upgrade() else { return };
            if shutdown.is_cancelled() {
                break;
            }
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match command {
                Command::Load => load(&d),
                Command::Reindex(job) => reindex(&d, job),
            }));
            if let Err(panic) = outcome {
                let what = panic.downcast_ref::<String>().cloned().or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default();
                tracing::error!(panic = %what, "the semantic worker failed; keyword ranking only");
                if !matches!(d.semantic.state(), ModelState::Loaded(_)) {
                    d.semantic.set_state(ModelState::Unavailable { reason: format!("internal error: {what}"), fix: "see `cairn logs`; restart cairnd".into() });
                }
                let mut jobs = d.semantic.jobs.lock().expect("job lock");
                for j in jobs.iter_mut().filter(|j| !j.progress.finished) {
                    j.progress.finished = true;
                    j.progress.phase = "failed".into();
                    j.progress.error = Some(format!("internal error: {what}"));
                }
            }
        }
        // Whoever waits for a load that will not come is told so.
        if let Some(d) = weak.upgrade() {
            d.semantic.commands.lock().expect("command lock").take();
            d.semantic.send(Command::Load);
        }
    });
    match handle {
        Ok(h) => *d.semantic.worker.lock().expect("worker lock") = Some(h),
        Err(e) => {
            tracing::error!(error = %e, "cannot start the semantic worker; keyword ranking only");
            d.semantic.set_state(ModelState::Unavailable { reason: format!("cannot start a thread: {e}"), fix: "restart cairnd".into() });
        }
    }
}

/// Closes the worker's channel and waits for it to finish its current step (the daemon is
/// shutting down, so a long job stops at its next chunk).
pub fn stop_worker(d: &Daemon) {
    d.semantic.commands.lock().expect("command lock").take();
    if let Some(h) = d.semantic.worker.lock().expect("worker lock").take() {
        let _ = h.join();
    }
    // Anyone still waiting for a load hears that none is coming.
    d.semantic.send(Command::Load);
}

/// What the store holds for the current model: embeddings to index, memories to embed.
struct Inventory {
    stored: Vec<StoredKey>,
    pending: Vec<String>,
    max_key: u64,
}

fn inventory(d: &Daemon, fingerprint: &str) -> Inventory {
    let mut records: std::collections::HashMap<String, EmbeddingRecord> = std::collections::HashMap::new();
    let mut max_key = 0;
    for item in d.store.embedding_records() {
        match item {
            Ok((id, r)) => {
                max_key = max_key.max(r.key);
                records.insert(id, r);
            }
            Err(e) => tracing::error!(error = %e, "unreadable embedding record"),
        }
    }
    let mut inv = Inventory { stored: Vec::new(), pending: Vec::new(), max_key };
    for item in d.store.memories_after(None) {
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
    // Records left over belong to memories that are gone.
    for id in records.keys() {
        let _ = d.store.remove_embedding(id);
    }
    inv
}

fn vector_from_store(d: &Daemon, id: &str) -> Option<Vec<f32>> {
    d.store.embedding_vector(id).unwrap_or_else(|e| {
        tracing::error!(error = %e, id, "unreadable stored vector");
        None
    })
}

/// Loads the model, then the saved graphs reconciled with the store, then embeds what lacks a
/// current vector. Does nothing when the model is already loaded.
fn load(d: &Daemon) {
    if matches!(d.semantic.state(), ModelState::Loaded(_)) {
        return;
    }
    let settings = d.tuneables().semantic;
    let spec = resolve_spec(&d.paths, &settings);
    let started = Instant::now();
    let embedder = match Embedder::load(&spec) {
        Ok(e) => Arc::new(e),
        Err(e) => {
            tracing::warn!(error = %e, fix = e.fix(), "embedding model unavailable; keyword ranking only");
            d.semantic.set_state(ModelState::Unavailable { reason: e.to_string(), fix: e.fix().to_string() });
            return;
        }
    };
    let fingerprint = embedder.facts().fingerprint.clone();
    tracing::info!(model = %embedder.facts().name, fingerprint = %fingerprint, dimension = embedder.dimension(), ms = millis_since(started), "embedding model loaded");
    *d.semantic.spec.lock().expect("spec lock") = Some(spec);

    // The graphs are read and repaired outside the write lock (that can take a while after a
    // crash); the writes made meanwhile are caught up under it, and the index goes live and the
    // model is declared loaded in the same hold, so no write falls between the two.
    let first = inventory(d, &fingerprint);
    let loaded = VectorIndex::load(&d.semantic.dir, &fingerprint, embedder.dimension(), &first.stored, |id| vector_from_store(d, id));
    let (mut index, repair, skipped) = match loaded {
        Ok(l) => l,
        Err(e) => {
            tracing::error!(error = %e, "cannot build the semantic index; keyword ranking only");
            d.semantic.set_state(ModelState::Unavailable { reason: e.to_string(), fix: "see `cairn logs`, then `cairn reindex`".into() });
            return;
        }
    };
    if let Some(why) = &skipped {
        tracing::warn!(reason = %why, "saved semantic index not used; rebuilding it from the store");
    }
    let pending = {
        let _w = d.write_lock();
        let now = inventory(d, &fingerprint);
        let next = d.store.next_embedding_key().unwrap_or(0).max(now.max_key.max(first.max_key) + 1);
        d.semantic.next_key.fetch_max(next, Ordering::Relaxed);
        if let Err(e) = index.reconcile(&now.stored, |id| vector_from_store(d, id)) {
            tracing::error!(error = %e, "cannot reconcile the semantic index; keyword ranking only");
            d.semantic.set_state(ModelState::Unavailable { reason: e.to_string(), fix: "see `cairn logs`, then `cairn reindex`".into() });
            return;
        }
        // Stored vectors that could not be read are embedded again, with the rest.
        let mut pending = now.pending;
        pending.extend(now.stored.iter().filter(|s| index.key_of(&s.id).is_none()).map(|s| s.id.clone()));
        d.semantic.note_index(&index);
        *d.semantic.index.write().expect("index lock") = Some(index);
        d.semantic.set_state(ModelState::Loaded(embedder.clone()));
        pending
    };
    if repair.added + repair.rebuilt_parts + repair.unreadable > 0 {
        tracing::info!(added = repair.added, rebuilt = repair.rebuilt_parts, unreadable = repair.unreadable, "semantic index repaired against the store");
    }
    if !pending.is_empty() {
        tracing::info!(memories = pending.len(), "embedding memories that have no current vector");
        let job = d.semantic.start_job("embed", "embedding memories", pending.len() as u64);
        let outcome = embed_all(d, &embedder, &pending, false, job);
        d.semantic.finish_job(job, outcome);
    }
    if !pending.is_empty() || repair.added + repair.rebuilt_parts > 0 || skipped.is_some() {
        let _ = save_now(d);
        release_memory();
    }
}

/// The model, loaded on this (the worker's) thread if it is not loaded yet.
fn load_here(d: &Daemon) -> Option<Arc<Embedder>> {
    if let ModelState::Loaded(e) = d.semantic.state() {
        return Some(e);
    }
    d.semantic.set_state(ModelState::Loading);
    load(d);
    match d.semantic.state() {
        ModelState::Loaded(e) => Some(e),
        _ => None,
    }
}

/// Stores and indexes `vector` for `memory` if it still reads as `text` (and, unless `force`,
/// has no current vector already). Under the write lock.
fn store_if_current(d: &Daemon, memory: &Memory, text: &str, vector: &[f32], fingerprint: &str, force: bool) {
    // Written meanwhile? Then that write embedded its own text already.
    let Ok(Some(current)) = d.store.get_memory(&memory.id) else { return };
    let hash = embed::text_hash(text);
    if embed::text_hash(&embed::embedding_text(&current)) != hash || current.project != memory.project {
        return;
    }
    let record = d.store.embedding_record(&memory.id).ok().flatten();
    let fresh = record.is_some_and(|r| r.fingerprint == fingerprint && r.text_hash == hash && r.project == current.project);
    if fresh && !force && d.semantic.index.read().expect("index lock").as_ref().is_some_and(|i| i.key_of(&memory.id).is_some()) {
        return;
    }
    store_embedding(d, &current, fingerprint, hash, vector);
}

/// Embeds the memories `ids` in chunks, storing and indexing each vector; `force` replaces
/// vectors that are already current. A chunk the model fails on is retried memory by memory,
/// and a memory it cannot embed is skipped (and logged). Stops early at shutdown.
fn embed_all(d: &Daemon, embedder: &Embedder, ids: &[String], force: bool, job: u64) -> Result<(), String> {
    let fingerprint = embedder.facts().fingerprint.clone();
    let mut failed = 0usize;
    for chunk in ids.chunks(CHUNK) {
        if d.shutdown.is_cancelled() {
            return Err("stopped by shutdown; the rest is embedded at the next start".into());
        }
        let memories: Vec<Memory> = chunk.iter().filter_map(|id| d.store.get_memory(id).ok().flatten()).collect();
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
            let _w = d.write_lock();
            for ((memory, text), vector) in memories.iter().zip(&texts).zip(&vectors) {
                if let Some(vector) = vector {
                    store_if_current(d, memory, text, vector, &fingerprint, force);
                }
            }
        }
        d.store.durable_soon();
        d.semantic.update_job(job, |p| p.done += chunk.len() as u64);
    }
    match failed {
        0 => Ok(()),
        n => Err(format!("{n} memories could not be embedded (see `cairn logs`); they are found by keywords")),
    }
}

/// Re-embeds every memory with the current model and rebuilds the graphs compactly.
fn reindex(d: &Daemon, job: u64) {
    d.semantic.update_job(job, |p| p.phase = "waiting for the model".into());
    let Some(embedder) = load_here(d) else {
        let reason = match d.semantic.state() {
            ModelState::Unavailable { reason, fix } => format!("{reason}; {fix}"),
            _ => "the model is not loaded".into(),
        };
        d.semantic.finish_job(job, Err(reason));
        return;
    };
    let ids: Vec<String> = d.store.memories_after(None).filter_map(|m| m.ok().map(|m| m.id)).collect();
    d.semantic.update_job(job, |p| {
        p.phase = "embedding memories".into();
        p.total = ids.len() as u64;
    });
    let embedded = embed_all(d, &embedder, &ids, true, job);
    if let Err(e) = &embedded
        && d.shutdown.is_cancelled()
    {
        d.semantic.finish_job(job, Err(e.clone()));
        return;
    }
    // A fresh graph per project from the stored vectors, built outside the lock; the writes
    // made meanwhile are caught up under it, and the new graphs replace the old.
    d.semantic.update_job(job, |p| p.phase = "rebuilding the index".into());
    let fingerprint = embedder.facts().fingerprint.clone();
    let built = {
        let snapshot = inventory(d, &fingerprint).stored;
        let mut fresh = VectorIndex::new(embedder.dimension(), &fingerprint);
        fresh.reconcile(&snapshot, |id| vector_from_store(d, id)).map(|_| fresh)
    };
    let swapped = built.and_then(|mut fresh| {
        let _w = d.write_lock();
        let current = inventory(d, &fingerprint).stored;
        fresh.reconcile(&current, |id| vector_from_store(d, id))?;
        d.semantic.note_index(&fresh);
        *d.semantic.index.write().expect("index lock") = Some(fresh);
        Ok(())
    });
    let saved = save_now(d);
    release_memory();
    let outcome = embedded.and(swapped.map_err(|e| e.to_string())).and(saved.map(|_| ()).map_err(|e| e.to_string()));
    d.semantic.finish_job(job, outcome);
    tracing::info!(memories = ids.len(), "reindex finished");
}

/// Gives the heap pages freed by bulk work (a batch's embedding, a reindex) back to the system:
/// glibc keeps them otherwise, and the daemon lives long.
pub fn release_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free heap pages to the system.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Saves the graphs if anything changed: the store is flushed first, so a saved graph never
/// holds a key the store could still lose. Returns how many graphs were written; a failure is
/// logged (the store still holds every vector, and the next start repairs from it).
pub fn save_now(d: &Daemon) -> Result<usize, crate::vectors::VectorError> {
    if !d.semantic.unsaved.load(Ordering::Relaxed) {
        return Ok(0);
    }
    if let Err(e) = d.store.flush() {
        tracing::error!(error = %e, "cannot flush the store; the semantic index is saved at the next chance");
        return Ok(0);
    }
    // A read lock is enough: saving reads the graphs; writers wait, searches go on.
    let guard = d.semantic.index.read().expect("index lock");
    let Some(index) = guard.as_ref() else { return Ok(0) };
    let result = index.save(&d.semantic.dir);
    match &result {
        Ok(n) => {
            d.semantic.unsaved.store(index.is_dirty(), Ordering::Relaxed);
            tracing::debug!(graphs = n, "semantic index saved");
        }
        Err(e) => tracing::error!(error = %e, "cannot save the semantic index; it is rebuilt from the store at the next start"),
    }
    result
}
