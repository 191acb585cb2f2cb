//! Layer 2, the process's own resources: the pidfile that makes one daemon per home, the log,
//! and the memory the process gives back to the system after bulk work.

pub mod logging;
pub mod memory;
pub mod pidfile;
