//! Layer 8, time: how recently a memory was touched (`recency`), why it exists (`causality`,
//! Wake's layer 1) and how relevant it is now (`tiers`, layer 2). Prediction (layer 3) joins here.

pub mod causality;
pub mod recency;
pub mod tiers;
