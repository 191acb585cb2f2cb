//! Layer 1, the foundations: the clock, hook events as cairn reads them, redaction of secrets,
//! words as the indexes see them, projects, and the progress of long jobs. Nothing here knows any
//! other part of cairn.

pub mod clock;
pub mod event;
pub mod progress;
pub mod project;
pub mod redact;
pub mod text;
