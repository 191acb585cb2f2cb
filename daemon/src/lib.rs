//! cairnd, the cairn daemon: owns the store and the indexes, answers hook events with advice,
//! and records what happened. The binary in `main.rs` wires these layers together.
//!
//! # Layers
//!
//! The daemon is built in layers, one folder each, from the bottom:
//!
//! 1. `base`: the clock, hook events, redaction, words, projects, the progress of long jobs.
//! 2. `process`: the process's own resources: pidfile, log, memory given back.
//! 3. `config`: the settings table, the trigger-rule file, the settings in force, kept live.
//! 4. `exchange`: records crossing the boundary: the export format, the validation of input.
//! 5. `store`: the durable store (sled) and its schema.
//! 6. `retrieval`: finding memories: keywords, vectors, their fusion, recent changes.
//! 7. `semantic`: the embedding model and the engine that keeps vectors in step with the store.
//! 8. `temporal` and `learning`: time (recency; tiers, causality and prediction to come) and
//!    outcomes (what became of advice; attribution, feedback and weights to come). The memory
//!    graph (`graph`) joins this layer with the learning loop.
//! 9. `advisor`: from an event to the few lessons worth saying, and why.
//! 10. `app`: the use cases over the shared daemon state, with the one write path for memories.
//! 11. `rpc`: the socket and the service's thin handlers.
//!
//! **The rule:** a file may use its own layer and the layers below it, never one above, and no
//! files import each other round a circle (so a folder's `mod.rs` never uses a file that
//! builds on what the `mod.rs` defines). Within a layer, the two modules of layer 8 do not use
//! each other. A lower layer that needs something of a higher one defines a trait the higher
//! one implements (`semantic::Host`). The test in `architecture.rs` checks the rule on every
//! build of the tests.
//!
//! Pure logic (words, BM25, fusion, the advisor's decision, recency, outcomes, export lines,
//! settings) does no I/O and is unit-tested beside the code; the store, the model, the graphs'
//! files, the socket and the jobs sit at the edges.

pub mod base;

pub mod process;

pub mod config;

pub mod exchange;

pub mod store;

pub mod retrieval;

pub mod semantic;

pub mod learning;
pub mod temporal;

pub mod advisor;

pub mod app;

pub mod rpc;

#[cfg(test)]
mod architecture;
