//! The semantic engine at run time: the model's life (lazy, loading, loaded, unavailable and
//! why), the query-embedding cache, the semantic index, and the slow work done by one worker
//! thread: loading, embedding memories that lack a current vector, and reindexing.
//!
//! The hook never waits for any of it: when the model is not ready it answers from keywords and
//! asks the worker to load. Human commands that embed (add, import, search) wait for the load.

use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::Instant;

use cairn_proto::{JobProgress, Memory, ModelInfo, Paths};
use lru::LruCache;

use crate::config;
use crate::embed::{self, EmbedError, Embedder, ModelSpec};
use crate::state::Daemon;
use crate::store::EmbeddingRecord;
use crate::vectors::{StoredKey, VectorIndex};

/// Memories embedded per model run during bulk work, and per write-lock hold.
const CHUNK: usize = 32;

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
    Reindex,
}

pub struct Semantic {
    state: tokio::sync::watch::Sender<ModelState>,
    /// The graphs; `None` until the model is loaded (their dimension is the model's).
    pub index: RwLock<Option<VectorIndex>>,
    cache: Mutex<LruCache<String, Arc<Vec<f32>>>>,
    next_key: AtomicU64,
    job: Mutex<Option<(JobProgress, Instant)>>,
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
            cache: Mutex::new(LruCache::new(NonZeroUsize::new(cache_size.max(1)).expect("non-zero"))),
            next_key: AtomicU64::new(1),
            job: Mutex::new(None),
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

    /// The model, waiting for it to load if it has not yet; `None` when it cannot load.
    pub async fn ready(&self) -> Option<Arc<Embedder>> {
        self.request_load();
        let mut rx = self.state.subscribe();
        let settled = rx.wait_for(|s| !matches!(s, ModelState::Lazy | ModelState::Loading)).await.ok()?.clone();
        match settled {
            ModelState::Loaded(e) => Some(e),
            _ => None,
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

    /// Starts a reindex unless one is running; answers its progress.
    pub fn request_reindex(&self) -> JobProgress {
        let mut job = self.job.lock().expect("job lock");
        if let Some((p, _)) = job.as_ref().filter(|(p, _)| !p.finished) {
            return p.clone();
        }
        let progress = JobProgress {
            kind: "reindex".into(),
            phase: "waiting for the model".into(),
            done: 0,
            total: 0,
            finished: false,
            error: None,
            started_at: crate::exchange::now(),
            elapsed_ms: 0,
        };
        *job = Some((progress.clone(), Instant::now()));
        drop(job);
        self.send(Command::Reindex);
        progress
    }

    fn send(&self, c: Command) {
        if let Some(tx) = self.commands.lock().expect("command lock").as_ref() {
            let _ = tx.send(c);
        }
    }

    pub fn job(&self) -> Option<JobProgress> {
        self.job.lock().expect("job lock").as_ref().map(|(p, started)| {
            let mut p = p.clone();
            if !p.finished {
                p.elapsed_ms = millis_since(*started);
            }
            p
        })
    }

    fn start_job(&self, kind: &str, phase: &str, total: u64) {
        let mut job = self.job.lock().expect("job lock");
        // A reindex asked for keeps its start time.
        let started = job.as_ref().filter(|(p, _)| !p.finished && p.kind == kind).map(|(p, t)| (p.started_at.clone(), *t));
        let (started_at, t) = started.unwrap_or_else(|| (crate::exchange::now(), Instant::now()));
        *job = Some((JobProgress { kind: kind.into(), phase: phase.into(), done: 0, total, finished: false, error: None, started_at, elapsed_ms: 0 }, t));
    }

    fn update_job(&self, f: impl FnOnce(&mut JobProgress)) {
        if let Some((p, started)) = self.job.lock().expect("job lock").as_mut() {
            f(p);
            if p.finished {
                p.elapsed_ms = millis_since(*started);
            }
        }
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

    /// The embedding of a query, from the cache when it was asked before.
    pub fn query_vector(&self, embedder: &Embedder, text: &str) -> Result<Arc<Vec<f32>>, EmbedError> {
        if let Some(v) = self.cache.lock().expect("cache lock").get(text) {
            return Ok(v.clone());
        }
        let v = Arc::new(embedder.embed(&[text])?.remove(0));
        self.cache.lock().expect("cache lock").put(text.to_string(), v.clone());
        Ok(v)
    }

    /// Whether the query's embedding is cached (for benchmarks and `why`).
    pub fn is_cached(&self, text: &str) -> bool {
        self.cache.lock().expect("cache lock").contains(text)
    }

    /// A fresh key for a new embedding.
    fn new_key(&self) -> u64 {
        self.next_key.fetch_add(1, Ordering::Relaxed)
    }

    /// Saves the graphs if anything changed; returns how many were written.
    pub fn save(&self) -> Result<usize, crate::vectors::VectorError> {
        let mut guard = self.index.write().expect("index lock");
        match guard.as_mut() {
            Some(index) if index.is_dirty() => index.save(&self.dir),
            _ => Ok(0),
        }
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
                tracing::error!(error = %e, "cannot embed a batch; its memories are found by keywords until embedded");
                Prepared::default()
            }
        }
    }
}

/// Brings a just-written memory's embedding in line with its text, under the daemon's write
/// lock: keeps a current one, stores a new one (from `prepared`, else embedded now), or, without
/// a model, drops one that no longer matches the text.
pub fn refresh_embedding(d: &Daemon, memory: &Memory, prepared: &Prepared) {
    let text = embed::embedding_text(memory);
    let hash = embed::text_hash(&text);
    let record = d.store.embedding_record(&memory.id).unwrap_or_else(|e| {
        tracing::error!(error = %e, id = %memory.id, "cannot read an embedding record");
        None
    });
    let embedder = match d.semantic.state() {
        ModelState::Loaded(e) if d.tuneables().semantic.enabled => Some(e),
        _ => None,
    };
    let Some(embedder) = embedder else {
        if record.as_ref().is_some_and(|r| r.text_hash != hash || r.project != memory.project) {
            drop_embedding(d, &memory.id);
        }
        return;
    };
    let fingerprint = &embedder.facts().fingerprint;
    if record.as_ref().is_some_and(|r| &r.text_hash == &hash && &r.fingerprint == fingerprint && r.project == memory.project) {
        let indexed = d.semantic.index.read().expect("index lock").as_ref().is_some_and(|i| i.key_of(&memory.id) == record.as_ref().map(|r| r.key));
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
    if let Some(index) = d.semantic.index.write().expect("index lock").as_mut()
        && let Err(e) = index.upsert(&memory.id, &memory.project, record.key, vector)
    {
        tracing::error!(error = %e, id = %memory.id, "cannot index an embedding");
    }
}

/// Removes a memory's embedding from the store and the index.
pub fn drop_embedding(d: &Daemon, id: &str) {
    if let Err(e) = d.store.remove_embedding(id) {
        tracing::error!(error = %e, id, "cannot remove an embedding");
    }
    if let Some(index) = d.semantic.index.write().expect("index lock").as_mut()
        && let Err(e) = index.remove(id)
    {
        tracing::error!(error = %e, id, "cannot remove a vector");
    }
}

/// Starts the worker thread that does the semantic engine's slow work. It holds the daemon
/// weakly and ends when the daemon shuts down.
pub fn spawn_worker(d: &Arc<Daemon>) {
    let (tx, rx) = mpsc::channel();
    *d.semantic.commands.lock().expect("command lock") = Some(tx);
    let weak: Weak<Daemon> = Arc::downgrade(d);
    let shutdown = d.shutdown.clone();
    let handle = std::thread::Builder::new().name("cairn-semantic".into()).spawn(move || {
        while let Ok(command) = rx.recv() {
            let Some(d) = weak.upgrade() else { return };
            if shutdown.is_cancelled() {
                return;
            }
            match command {
                Command::Load => load(&d),
                Command::Reindex => reindex(&d),
            }
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

    // Under the write lock no memory changes between the inventory and the index going live.
    let pending = {
        let _w = d.write_lock();
        let inv = inventory(d, &fingerprint);
        d.semantic.next_key.fetch_max(inv.max_key + 1, Ordering::Relaxed);
        let (index, repair, skipped) = match VectorIndex::load(&d.semantic.dir, &fingerprint, embedder.dimension(), &inv.stored, |id| vector_from_store(d, id)) {
            Ok(loaded) => loaded,
            Err(e) => {
                tracing::error!(error = %e, "cannot build the semantic index; keyword ranking only");
                d.semantic.set_state(ModelState::Unavailable { reason: e.to_string(), fix: "see `cairn logs`, then `cairn reindex`".into() });
                return;
            }
        };
        if let Some(why) = skipped {
            tracing::warn!(reason = %why, "saved semantic index not used; rebuilding it from the store");
        }
        if repair.added + repair.rebuilt_parts + repair.unreadable > 0 {
            tracing::info!(added = repair.added, rebuilt = repair.rebuilt_parts, unreadable = repair.unreadable, "semantic index repaired against the store");
        }
        // Stored vectors that could not be read are embedded again, with the rest.
        let mut pending = inv.pending;
        pending.extend(inv.stored.iter().filter(|s| index.key_of(&s.id).is_none()).map(|s| s.id.clone()));
        *d.semantic.index.write().expect("index lock") = Some(index);
        pending
    };
    d.semantic.set_state(ModelState::Loaded(embedder.clone()));
    if !pending.is_empty() {
        tracing::info!(memories = pending.len(), "embedding memories that have no current vector");
        d.semantic.start_job("embed", "embedding memories", pending.len() as u64);
        let outcome = embed_all(d, &embedder, &pending, false);
        d.semantic.update_job(|p| {
            p.finished = true;
            p.phase = if outcome.is_ok() { "done".into() } else { "failed".into() };
            p.error = outcome.err();
        });
        save_now(d);
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

/// Embeds the memories `ids` in chunks, storing and indexing each vector; `force` replaces
/// vectors that are already current. Stops early at shutdown.
fn embed_all(d: &Daemon, embedder: &Embedder, ids: &[String], force: bool) -> Result<(), String> {
    let fingerprint = embedder.facts().fingerprint.clone();
    for chunk in ids.chunks(CHUNK) {
        if d.shutdown.is_cancelled() {
            return Err("stopped by shutdown; the rest is embedded at the next start".into());
        }
        let memories: Vec<Memory> = chunk.iter().filter_map(|id| d.store.get_memory(id).ok().flatten()).collect();
        let texts: Vec<String> = memories.iter().map(embed::embedding_text).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let vectors = embedder.embed(&refs).map_err(|e| e.to_string())?;
        {
            let _w = d.write_lock();
            for ((memory, text), vector) in memories.iter().zip(&texts).zip(&vectors) {
                // Written meanwhile? Then that write embedded its own text already.
                let Ok(Some(current)) = d.store.get_memory(&memory.id) else { continue };
                let hash = embed::text_hash(text);
                if embed::text_hash(&embed::embedding_text(&current)) != hash || current.project != memory.project {
                    continue;
                }
                let record = d.store.embedding_record(&memory.id).ok().flatten();
                let fresh = record.is_some_and(|r| r.fingerprint == fingerprint && r.text_hash == hash && r.project == current.project);
                if fresh && !force && d.semantic.index.read().expect("index lock").as_ref().is_some_and(|i| i.key_of(&memory.id).is_some()) {
                    continue;
                }
                store_embedding(d, &current, &fingerprint, hash, vector);
            }
        }
        d.store.durable_soon();
        d.semantic.update_job(|p| p.done += chunk.len() as u64);
    }
    Ok(())
}

/// Re-embeds every memory with the current model and rebuilds the graphs compactly.
fn reindex(d: &Daemon) {
    let Some(embedder) = load_here(d) else {
        let reason = match d.semantic.state() {
            ModelState::Unavailable { reason, fix } => format!("{reason}; {fix}"),
            _ => "the model is not loaded".into(),
        };
        d.semantic.update_job(|p| {
            p.finished = true;
            p.phase = "failed".into();
            p.error = Some(reason);
        });
        return;
    };
    let ids: Vec<String> = d.store.memories_after(None).filter_map(|m| m.ok().map(|m| m.id)).collect();
    d.semantic.start_job("reindex", "embedding memories", ids.len() as u64);
    if let Err(e) = embed_all(d, &embedder, &ids, true) {
        d.semantic.update_job(|p| {
            p.finished = true;
            p.phase = "failed".into();
            p.error = Some(e);
        });
        return;
    }
    // A fresh graph per project from the stored vectors, built outside the lock; the writes
    // made meanwhile are caught up under it, and the new graphs replace the old.
    d.semantic.update_job(|p| p.phase = "rebuilding the index".into());
    let fingerprint = embedder.facts().fingerprint.clone();
    let built = {
        let snapshot = inventory(d, &fingerprint).stored;
        let mut fresh = VectorIndex::new(embedder.dimension(), &fingerprint);
        fresh.reconcile(&snapshot, |id| vector_from_store(d, id)).map(|_| fresh)
    };
    let outcome = built.and_then(|mut fresh| {
        let _w = d.write_lock();
        let current = inventory(d, &fingerprint).stored;
        fresh.reconcile(&current, |id| vector_from_store(d, id))?;
        *d.semantic.index.write().expect("index lock") = Some(fresh);
        Ok(())
    });
    let saved = d.semantic.save();
    d.semantic.update_job(|p| {
        p.finished = true;
        match outcome.map_err(|e| e.to_string()).and(saved.map(|_| ()).map_err(|e| e.to_string())) {
            Ok(()) => p.phase = "done".into(),
            Err(e) => {
                p.phase = "failed".into();
                p.error = Some(e);
            }
        }
    });
    release_memory();
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

/// Saves the graphs now, logging a failure (the store still holds every vector).
pub fn save_now(d: &Daemon) {
    match d.semantic.save() {
        Ok(0) => {}
        Ok(n) => tracing::debug!(graphs = n, "semantic index saved"),
        Err(e) => tracing::error!(error = %e, "cannot save the semantic index; it is rebuilt from the store at the next start"),
    }
}
