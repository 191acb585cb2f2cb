//! Layer 8, time: how recently a memory was touched (`recency`), and why it exists
//! (`causality`, Wake's layer 1). Memory tiers and prediction (Wake's layers 2 and 3) join here.

pub mod causality;
pub mod recency;
