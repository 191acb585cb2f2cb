//! One handler per request, each a plain async function over the shared [`crate::state::Daemon`].

pub mod add;
pub mod advise;
pub mod config;
pub mod edit;
pub mod export;
pub mod forget;
pub mod hook;
pub mod import;
pub mod list;
pub mod log;
pub mod mute;
pub mod pause;
pub mod search;
pub mod seeds;
pub mod semantic;
pub mod show;
pub mod status;
