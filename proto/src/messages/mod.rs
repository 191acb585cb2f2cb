//! Request and response types carried by the service, shared verbatim by client and daemon, one
//! file per area.
//!
//! Every optional field has a serde default so that a newer peer can add fields without breaking
//! an older one within the same protocol version.

mod advice;
mod causality;
mod config;
mod dashboard;
mod graph;
mod memories;
mod review;
mod scope;
mod search;
mod seeds;
mod status;
mod tiers;
mod weights;

pub use advice::*;
pub use causality::*;
pub use config::*;
pub use dashboard::*;
pub use graph::*;
pub use memories::*;
pub use review::*;
pub use scope::*;
pub use search::*;
pub use seeds::*;
pub use status::*;
pub use tiers::*;
pub use weights::*;
