//! The wire protocol shared by `cairn` (client) and `cairnd` (daemon): the tarpc service, its
//! request and response types, the transport framing, and where every file of cairn lives.
//!
//! This crate is deliberately small: no store, no model, nothing the hook path does not need.

pub mod files;
pub mod memory;
pub mod messages;
pub mod model;
pub mod paths;
pub mod project;
pub mod tools;
pub mod service;
pub mod transport;
pub mod ui;

pub use memory::{Capture, Edge, EdgeKind, Memory, Moment, Promotion, Shadow, Next, Now, Quality, Situation, Tier, Why, Worth, SITUATION_PREFIX};
pub use messages::*;
pub use paths::{PathError, Paths};
pub use service::{Cairn, CairnClient};

/// Version of the request/response shapes. Bump it whenever a message changes shape; the client
/// compares it with the daemon's through [`service::Cairn::handshake`], whose shape never changes.
pub const PROTOCOL_VERSION: u32 = 6;

/// The cairn release these binaries were built from.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Project name for lessons that apply everywhere.
pub const GLOBAL_PROJECT: &str = "global";
