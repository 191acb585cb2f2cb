//! Layer 8, time: how recently a memory was touched. Memory tiers, causality and prediction
//! (Wake's layers) join here.

pub mod recency;
