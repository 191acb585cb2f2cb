//! cairnd, the cairn daemon: owns the store and the indexes, answers hook events with advice,
//! and records what happened. The binary in `main.rs` wires these modules together.
//!
//! Pure logic (text, lexical, hybrid, embed::pool, redact, event, exchange, config, advisor)
//! does no I/O; the store, the model, the vector graphs, server, jobs and handlers sit at the edges.

pub mod advisor;
pub mod config;
pub mod embed;
pub mod event;
pub mod exchange;
pub mod handlers;
pub mod hybrid;
pub mod jobs;
pub mod lexical;
pub mod live_config;
pub mod logging;
pub mod pidfile;
pub mod project;
pub mod recent;
pub mod redact;
pub mod seeds;
pub mod semantic;
pub mod server;
pub mod state;
pub mod store;
pub mod text;
pub mod triggers;
pub mod vectors;
