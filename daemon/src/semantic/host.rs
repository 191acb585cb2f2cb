//! What the semantic engine's slow work needs of the daemon that runs it. The daemon (a higher
//! layer) implements it; the engine never reaches up.

use parking_lot::MutexGuard;

use super::embed::ModelSpec;
use super::engine::Semantic;
use crate::store::Store;

pub trait Host: Send + Sync + 'static {
    fn store(&self) -> &Store;
    fn semantic(&self) -> &Semantic;
    /// Holds memory writes off while held: the store, the keyword index and the embeddings
    /// change together under it.
    fn hold_writes(&self) -> MutexGuard<'_, ()>;
    /// The model files the settings name now.
    fn model_spec(&self) -> ModelSpec;
    /// Whether the daemon is shutting down (long work stops at its next step).
    fn stopping(&self) -> bool;
}
