//! The semantic engine's state: the model's life, the graphs, the query cache, the embedding
//! keys, the long jobs, and the worker thread that does the slow work.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

use cairn_proto::{JobProgress, ModelInfo};

use super::cache::{QueryCache, Wait};
use super::embed::{Embed, EmbedError, Loader, ModelSpec};
use super::graphs::Graphs;
use super::state::{Command, Model};
use crate::base::progress::Jobs;

pub struct Semantic {
    model: Model,
    graphs: Graphs,
    cache: QueryCache,
    next_key: AtomicU64,
    jobs: Jobs,
    loader: Loader,
    pub(super) worker: Mutex<Option<std::thread::JoinHandle<()>>>,
    /// The files in use once loaded, for `status`.
    pub(super) spec: Mutex<Option<ModelSpec>>,
    dir: PathBuf,
}

impl Semantic {
    /// An engine whose graphs live in `dir`, caching `cache_size` query embeddings, loading the
    /// model with `loader`.
    pub fn new(dir: PathBuf, cache_size: usize, loader: Loader) -> Semantic {
        Semantic {
            model: Model::default(),
            graphs: Graphs::default(),
            cache: QueryCache::new(cache_size),
            next_key: AtomicU64::new(1),
            jobs: Jobs::default(),
            loader,
            worker: Mutex::new(None),
            spec: Mutex::new(None),
            dir,
        }
    }

    pub fn model(&self) -> &Model {
        &self.model
    }

    pub fn graphs(&self) -> &Graphs {
        &self.graphs
    }

    pub fn jobs(&self) -> &Jobs {
        &self.jobs
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub(super) fn load_model(&self, spec: &ModelSpec) -> Result<Arc<dyn Embed>, EmbedError> {
        (self.loader)(spec)
    }

    /// The embedding of a query, cached (see [`QueryCache::vector`]).
    pub fn query_vector(&self, embedder: &dyn Embed, text: &str, wait: Wait) -> Result<Option<Arc<Vec<f32>>>, EmbedError> {
        self.cache.vector(embedder, text, wait)
    }

    /// A fresh key for a new embedding: never one used before, across restarts.
    pub(super) fn new_key(&self) -> u64 {
        self.next_key.fetch_add(1, Ordering::Relaxed)
    }

    /// Keys from `next` on are free (the store's record of keys handed out).
    pub(super) fn keys_from(&self, next: u64) {
        self.next_key.fetch_max(next, Ordering::Relaxed);
    }

    /// Starts a reindex unless one is queued or running; answers its progress.
    pub fn request_reindex(&self) -> JobProgress {
        let (progress, new) = self.jobs.start_once("reindex", "queued");
        if new {
            self.model.send(Command::Reindex(progress.id));
        }
        progress
    }

    /// The model in use, once loaded, for `status`.
    pub fn model_info(&self) -> Option<ModelInfo> {
        let e = self.model.loaded()?;
        let spec = self.spec.lock().clone()?;
        Some(ModelInfo {
            name: e.facts().name.clone(),
            fingerprint: e.facts().fingerprint.clone(),
            dimension: e.facts().dimension as u64,
            model_file: spec.model.display().to_string(),
            tokenizer_file: spec.tokenizer.display().to_string(),
            runtime_file: spec.runtime.display().to_string(),
        })
    }
}
