//! What can go wrong with the model, each with the one step that fixes it.

use std::path::PathBuf;

use cairn_proto::model::Role;

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
            EmbedError::Runtime { .. } => "run `cairn setup --force`, or point `model.onnx_runtime` (or ORT_DYLIB_PATH) at ONNX Runtime 1.31 for this platform",
            EmbedError::Model { .. } | EmbedError::Tokenizer { .. } => "run `cairn setup --force`, or fix `model.embedding_model` / `model.embedding_tokenizer` in tuneables.json",
            EmbedError::Inference(_) => "see `cairn logs`",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_say_what_fixes_them() {
        let e = EmbedError::Missing { path: "/m/model.onnx".into(), role: Role::Model };
        assert_eq!(e.to_string(), "the embedding model not found at /m/model.onnx");
        assert_eq!(e.fix(), "run `cairn setup`");
        let e = EmbedError::HashMismatch { path: "/m/model.onnx".into(), found: "aa".into(), expected: "bb".into() };
        assert!(e.to_string().contains("expected bb") && e.fix().contains("--force"));
    }
}
