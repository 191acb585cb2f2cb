//! Layer 8, time: how recently a memory was touched (`recency`), why it exists (`causality`,
//! Wake's layer 1), how relevant it is now (`tiers`, layer 2) and what is likely next
//! (`prediction`, layer 3).

pub mod causality;
pub mod prediction;
pub mod recency;
pub mod tiers;
