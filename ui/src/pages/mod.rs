//! One module per page: each asks the daemon for what it shows (aggregated there, a page at a
//! time) and renders one template.

pub mod advice;
pub mod learning;
pub mod lesson;
pub mod lessons;
pub mod overview;
pub mod review;
