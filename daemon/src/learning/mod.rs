//! Layer 8, learning from what happened: what became of the tool call a piece of advice was
//! given for. Outcome attribution, feedback and learned weights join here.

pub mod attribution;
pub mod graph;
pub mod outcome;
