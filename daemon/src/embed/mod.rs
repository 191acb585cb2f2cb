//! Local embeddings: the model (`model`), the arithmetic around it (`pool`), and what of a memory
//! is embedded. Nothing here reaches the network; the model files come from `cairn setup`.

pub mod model;
pub mod pool;

use std::path::PathBuf;

use cairn_proto::model::Role;
use cairn_proto::Memory;
use sha2::{Digest, Sha256};

pub use model::{Embedder, ModelFacts, ModelSpec};

#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error("{} not found at {}", role_name(*.role), .path.display())]
    Missing { path: PathBuf, role: Role },
    #[error("{} has sha256 {found}, expected {expected}", .path.display())]
    HashMismatch { path: PathBuf, found: String, expected: String },
    #[error("cannot read {}: {message}", .path.display())]
    Read { path: PathBuf, message: String },
    #[error("cannot load ONNX Runtime from {}: {message}", .path.display())]
    Runtime { path: PathBuf, message: String },
    #[error("cannot load the model {}: {message}", .path.display())]
    Model { path: PathBuf, message: String },
    #[error("cannot load the tokenizer {}: {message}", .path.display())]
    Tokenizer { path: PathBuf, message: String },
    #[error("embedding failed: {0}")]
    Inference(String),
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::Runtime => "the ONNX Runtime library",
        Role::Model => "the embedding model",
        Role::Tokenizer => "the tokenizer",
        Role::Notice => "a license file",
    }
}

impl EmbedError {
    /// The one command (or step) that fixes this.
    pub fn fix(&self) -> &'static str {
        match self {
            EmbedError::Missing { .. } => "run `cairn setup`",
            EmbedError::HashMismatch { .. } => "run `cairn setup --force` to fetch it again",
            EmbedError::Read { .. } => "check the file's permissions, or run `cairn setup --force`",
            EmbedError::Runtime { .. } => "run `cairn setup --force`, or point `semantic.onnx_runtime` (or ORT_DYLIB_PATH) at ONNX Runtime 1.31 for this platform",
            EmbedError::Model { .. } | EmbedError::Tokenizer { .. } => "run `cairn setup --force`, or fix `semantic.embedding_model` / `semantic.embedding_tokenizer` in tuneables.json",
            EmbedError::Inference(_) => "see `cairn logs`",
        }
    }
}

/// What of a memory is embedded: its text, and the situation it applies to when it names one.
pub fn embedding_text(memory: &Memory) -> String {
    if memory.context.trim().is_empty() {
        memory.text.clone()
    } else {
        format!("{}\n{}", memory.text, memory.context.trim())
    }
}

/// A short, stable hash of an embedded text: tells a current vector from a stale one.
pub fn text_hash(text: &str) -> String {
    Sha256::digest(text.as_bytes()).iter().take(12).map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_stable_and_tell_texts_apart() {
        assert_eq!(text_hash("abc"), text_hash("abc"));
        assert_ne!(text_hash("abc"), text_hash("abd"));
        assert_eq!(text_hash("abc"), "ba7816bf8f01cfea414140de", "sha256 of 'abc', first 12 bytes");
    }

    #[test]
    fn errors_say_what_fixes_them() {
        let e = EmbedError::Missing { path: "/m/model.onnx".into(), role: Role::Model };
        assert_eq!(e.to_string(), "the embedding model not found at /m/model.onnx");
        assert_eq!(e.fix(), "run `cairn setup`");
        let e = EmbedError::HashMismatch { path: "/m/model.onnx".into(), found: "aa".into(), expected: "bb".into() };
        assert!(e.to_string().contains("expected bb") && e.fix().contains("--force"));
    }
}
