//! Local embeddings: the model (`model`), the arithmetic around it (`pool`), what of a memory is
//! embedded (`subject`), and what can go wrong (`error`). Nothing here reaches the network; the
//! model files come from `cairn setup`.
//!
//! The rest of the daemon sees a model through [`Embed`] (`spec`), so that tests run the
//! semantic engine and the use cases with a small deterministic stand-in (`fake`) where the
//! model is not what they test.

pub mod error;
#[cfg(test)]
pub mod fake;
pub mod model;
pub mod pool;
pub mod spec;
pub mod subject;

pub use error::EmbedError;
pub use model::{onnx_loader, Embedder};
pub use spec::{Embed, Loader, ModelFacts, ModelSpec};
pub use subject::{embedding_text, text_hash};
