//! A model as the rest of the daemon sees it: which files make it ([`ModelSpec`], checked
//! against their published hashes), what it is ([`ModelFacts`]), and what it does ([`Embed`]),
//! with the loader that turns a spec into a model.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use sha2::{Digest, Sha256};

use super::error::EmbedError;

/// Which files make the model, and whether they are cairn's own (checked against known hashes).
#[derive(Debug, Clone, PartialEq)]
pub struct ModelSpec {
    pub runtime: PathBuf,
    pub model: PathBuf,
    pub tokenizer: PathBuf,
    /// The runtime is cairn's own copy, which must match [`cairn_proto::model::RUNTIME`]'s checksum
    /// (a library the user points at is theirs to vouch for).
    pub builtin_runtime: bool,
    /// The model and tokenizer are cairn's built-in ones, checked against their checksums.
    pub builtin_model: bool,
    /// Longest window, in tokens, the model is given at once.
    pub max_tokens: usize,
    /// Threads the model may use for one run.
    pub threads: usize,
}

/// What `status` says about the model in use.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelFacts {
    pub name: String,
    pub fingerprint: String,
    pub dimension: usize,
}

pub fn sha256_file(path: &Path) -> Result<String, std::io::Error> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    std::io::copy(&mut file, &mut hasher)?;
    Ok(format!("{:x}", hasher.finalize()))
}

fn short(hash: &str) -> &str {
    &hash[..hash.len().min(12)]
}

impl ModelSpec {
    /// cairn's own model, runtime and tokenizer in `models_dir` (as `cairn setup` puts them).
    pub fn builtin(models_dir: &Path, max_tokens: usize, threads: usize) -> ModelSpec {
        ModelSpec {
            runtime: cairn_proto::model::RUNTIME.in_dir(models_dir),
            model: cairn_proto::model::MODEL.in_dir(models_dir),
            tokenizer: cairn_proto::model::TOKENIZER.in_dir(models_dir),
            builtin_runtime: true,
            builtin_model: true,
            max_tokens,
            threads,
        }
    }

    /// The files, each checked: present, and for the built-in model, with its published hash.
    /// Returns the model's fingerprint: what an index built with it must record.
    pub fn verify(&self) -> Result<String, EmbedError> {
        let builtin = [
            (&self.runtime, cairn_proto::model::RUNTIME),
            (&self.model, cairn_proto::model::MODEL),
            (&self.tokenizer, cairn_proto::model::TOKENIZER),
        ];
        for (path, file) in &builtin {
            if !path.is_file() {
                return Err(EmbedError::Missing { path: path.to_path_buf(), role: file.role });
            }
        }
        let checked = builtin.iter().filter(|(_, f)| match f.role {
            cairn_proto::model::Role::Runtime => self.builtin_runtime,
            _ => self.builtin_model,
        });
        for (path, file) in checked {
            let found = sha256_file(path).map_err(|e| EmbedError::Read { path: path.to_path_buf(), message: e.to_string() })?;
            if found != file.sha256 {
                return Err(EmbedError::HashMismatch { path: path.to_path_buf(), found, expected: file.sha256.to_string() });
            }
        }
        if self.builtin_model {
            return Ok(format!("minilm-l6-v2-int8:{}:{}:{}", short(cairn_proto::model::MODEL.sha256), short(cairn_proto::model::TOKENIZER.sha256), self.max_tokens));
        }
        // A model of the user's own: its content is its identity.
        let hash = |p: &Path| sha256_file(p).map_err(|e| EmbedError::Read { path: p.to_path_buf(), message: e.to_string() });
        Ok(format!("custom:{}:{}:{}", short(&hash(&self.model)?), short(&hash(&self.tokenizer)?), self.max_tokens))
    }
}

/// A model that turns texts into unit vectors.
pub trait Embed: Send + Sync {
    /// Its name, fingerprint (what an index built with it records) and dimension.
    fn facts(&self) -> &ModelFacts;

    fn dimension(&self) -> usize {
        self.facts().dimension
    }

    /// Unit vectors for `texts`, in order, waiting for the model if it is busy.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError>;

    /// The same, or `None` when the model stays busy with other work for longer than `wait`
    /// (the hook's way: it waits out another answer's embedding, never a bulk job).
    fn try_embed(&self, texts: &[&str], wait: Duration) -> Result<Option<Vec<Vec<f32>>>, EmbedError>;
}

/// Loads the model a spec names.
pub type Loader = Arc<dyn Fn(&ModelSpec) -> Result<Arc<dyn Embed>, EmbedError> + Send + Sync>;
