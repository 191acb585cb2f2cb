//! Layer 8, learning from what happened, pure: what became of the tool call a piece of advice
//! was given for (`outcome`), what became of the lesson itself (`attribution`), the memory
//! graph's arithmetic (`graph`), the lessons a session teaches by itself (`capture`) and the
//! quality gate they pass (`gate`, with `duplicate` for a lesson said again, and `repeat` for
//! an instruction of the user's memory files said twice). Learned weights join here.

pub mod attribution;
pub mod capture;
pub mod duplicate;
pub mod gate;
pub mod graph;
pub mod heard;
pub mod outcome;
pub mod repeat;
pub mod weights;
