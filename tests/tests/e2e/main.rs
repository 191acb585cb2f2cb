//! End-to-end tests: a real `cairnd` in a temporary `CAIRN_HOME`, driven through the real `cairn`.
//! One test binary with a module per area keeps build times down.

mod advise;
mod advisor;
mod claude;
mod cold_start;
mod dashboard;
mod hook;
mod learning;
mod lifecycle;
mod mcp;
mod reliability;
mod semantic;
mod store;
mod wiring;
