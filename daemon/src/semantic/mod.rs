//! Layer 7, the semantic engine: the embedding model (`embed`), its life (`state`), the query
//! cache, the graphs in use, and the slow work of one worker thread: loading and reconciling the
//! index with the store, embedding memories that lack a current vector, reindexing. `sync` is
//! what every memory write calls, under the write lock, to keep a memory's vector in step.
//!
//! The hook never waits for any of it: when the model is not ready, or busy with bulk work, it
//! answers from keywords (and asks the worker to load). Human commands that embed (add, import,
//! search) wait for the load, up to a bound.

pub mod bulk;
pub mod cache;
pub mod embed;
pub mod engine;
pub mod graphs;
pub mod host;
pub mod load;
pub mod reindex;
pub mod state;
pub mod sync;
pub mod worker;

#[cfg(test)]
mod tests;

pub use cache::Wait;
pub use engine::Semantic;
pub use host::Host;
pub use state::ModelState;
pub use sync::Prepared;
