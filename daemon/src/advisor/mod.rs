//! Layer 9, the advisor: from a hook event or free text to the few lessons worth saying, with
//! the reason each was chosen, following DESIGN.md's advice path:
//!
//! 1. intent (`intent`) and salience (`salience`);
//! 2. trigger rules matched against the raw tool input (`crate::config::rules`, cairn's built-in
//!    rules, the user's, and the seed pack's own, `seeds`);
//! 3. hybrid retrieval, keywords and embeddings (`crate::retrieval`);
//! 4. (spreading activation joins here with the learning loop);
//! 5. enrichment: effectiveness, recency, the memory's embedding, a seed's weight (`gather`);
//! 6. gate, weigh and decide: the learned decision (`choose`, `fuse`, `decision`, with `why`
//!    from `explain`; whether the action already does what a lesson asks, `remedy`; whether it
//!    aims where the lesson holds, `scope`);
//! 7. cooldown, MMR and category caps (`diversity`, `cooldown`), then the item limit (`choose`);
//! 8. rendering within the budget (`format`).
//!
//! The thresholds and weights come from the settings through `policy`, the one mapping the
//! daemon and the benchmarks share. Remembering what was said belongs to the use case that owns
//! the session (`crate::app::advice`). Everything here is pure but for reading memories and
//! indexes through `lookup` and `crate::retrieval`.

pub mod candidate;
pub mod choose;
pub mod cooldown;
pub mod decision;
pub mod diversity;
pub mod explain;
pub mod format;
pub mod fuse;
pub mod gather;
pub mod intent;
pub mod lookup;
pub mod policy;
pub mod remedy;
pub mod salience;
pub mod scope;
pub mod seeds;
