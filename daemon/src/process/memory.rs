//! Memory the process holds on to: glibc keeps freed heap pages unless asked to return them, and
//! the daemon lives long.

/// Gives the heap pages freed by bulk work (a batch's embedding, a reindex, an import) back to
/// the system.
pub fn release() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free heap pages to the system.
    unsafe {
        libc::malloc_trim(0);
    }
}
