//! The worker thread that does the semantic engine's slow work (loading, bulk embedding,
//! reindexing), one command at a time. It holds its host weakly and ends when the host shuts
//! down. A panic in a job marks the model unavailable (with the reason) and fails the job,
//! instead of leaving anyone waiting for it.

use std::sync::{Arc, Weak};

use super::host::Host;
use super::load::load;
use super::reindex::reindex;
use super::state::{Command, ModelState};

/// Starts the worker for `host`.
pub fn spawn<H: Host>(host: &Arc<H>) {
    let rx = host.semantic().model().connect();
    let weak: Weak<H> = Arc::downgrade(host);
    let handle = std::thread::Builder::new().name("cairn-semantic".into()).spawn(move || {
        while let Ok(command) = rx.recv() {
            let Some(host) = weak.upgrade() else { return };
            if host.stopping() {
                break;
            }
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match command {
                Command::Load => load(host.as_ref()),
                Command::Reindex(job) => reindex(host.as_ref(), job),
            }));
            if let Err(panic) = outcome {
                let what = panic.downcast_ref::<String>().cloned().or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default();
                tracing::error!(panic = %what, "the semantic worker failed; keyword ranking only");
                let model = host.semantic().model();
                if model.loaded().is_none() {
                    model.set(ModelState::Unavailable { reason: format!("internal error: {what}"), fix: "see `cairn logs`; restart cairnd".into() });
                }
                host.semantic().jobs().fail_unfinished(&format!("internal error: {what}"));
            }
        }
        if let Some(host) = weak.upgrade() {
            host.semantic().model().disconnect();
        }
    });
    match handle {
        Ok(h) => *host.semantic().worker.lock() = Some(h),
        Err(e) => {
            tracing::error!(error = %e, "cannot start the semantic worker; keyword ranking only");
            host.semantic().model().set(ModelState::Unavailable { reason: format!("cannot start a thread: {e}"), fix: "restart cairnd".into() });
        }
    }
}

/// Closes the worker's channel and waits for it to finish its current step (the host is
/// shutting down, so a long job stops at its next chunk).
pub fn stop(host: &dyn Host) {
    let semantic = host.semantic();
    semantic.model().close();
    if let Some(h) = semantic.worker.lock().take() {
        let _ = h.join();
    }
    // Anyone still waiting for a load hears that none is coming.
    semantic.model().disconnect();
}
