//! Layer 10, the use cases: one module per area, each a plain function over the shared
//! [`Daemon`] (`daemon`): the memories and their one write path (`writer`), the use cases on
//! single memories (`memories`), advice
//! (`advice`, with `retrieve`, `brief` for the session start, and `record` for the session log),
//! the hook event (`hook`), capture and review of candidate lessons (`capture`), learned fusion weights (`weights`), why memories exist (`causality`), tiers and the archive (`tiers`), what is likely next (`prediction`), `search`, what is kept quiet (`quiet`), the seed pack (`seeds`),
//! import and export (`exchange`), feedback and the memory graph (`feedback`), the advice log (`log`), `status`, `config`, the semantic
//! engine's requests (`semantic`) and the periodic jobs (`periodic`).

pub mod advice;
pub mod brief;
pub mod capture;
pub mod census;
pub mod causality;
pub mod config;
pub mod daemon;
pub mod dashboard;
pub mod days;
pub mod error;
pub mod exchange;
pub mod feedback;
pub mod hook;
pub mod log;
pub mod memories;
pub mod outcomes;
pub mod pending;
pub mod periodic;
pub mod prediction;
pub mod quiet;
pub mod record;
pub mod retrieve;
pub mod search;
pub mod seeds;
pub mod semantic;
pub mod status;
pub mod tiers;
pub mod weights;
pub mod workers;
pub mod writer;

#[cfg(test)]
mod tests;

pub use daemon::Daemon;
pub use error::Error;
