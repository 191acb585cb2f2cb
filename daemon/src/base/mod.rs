//! Layer 1, the foundations: the clock, hook events as cairn reads them, redaction of secrets,
//! words as the indexes see them, logistic regression, projects, and the progress of long jobs. Nothing here knows any
//! other part of cairn.

pub mod clock;
pub mod event;
pub mod logistic;
pub mod progress;
pub mod project;
pub mod redact;
pub mod text;

/// Cases for a property test: `PROPTEST_CASES` when set (a longer run), else `default` (the
/// suite's bounded run).
#[cfg(test)]
pub fn fuzz_cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}
