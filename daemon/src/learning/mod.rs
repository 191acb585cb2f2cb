//! Layer 8, learning from what happened, pure: what became of the tool call a piece of advice
//! was given for (`outcome`), what became of the lesson itself (`attribution`), and the memory
//! graph's arithmetic (`graph`). Learned weights join here.

pub mod attribution;
pub mod graph;
pub mod outcome;
