//! Layer 11, the edge: the socket (`server`) and the service (`service`), whose handlers decode
//! a request, call one use case of `crate::app`, and encode its answer.

pub mod server;
pub mod service;
