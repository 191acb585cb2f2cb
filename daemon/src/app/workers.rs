//! The background workers that settle what the hook noted (outcomes, capture, predictions):
//! one loop, run on its own task after the hook has answered.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use super::daemon::Daemon;
use super::error::Result;
use super::pending::Pending;
use crate::store::sessions::SessionEvent;

/// At start, how many recent events are looked through for sessions left waiting.
const RESUME_EVENTS: usize = 5_000;

/// After a restart, notes in the pending set `which` the sessions with an event `waits` for
/// within the last two windows of `window_minutes` (the log is read no further back, so a start
/// stays quick whatever its size). Runs off the start's path; noting wakes the worker. `what`
/// names the work in the log.
pub fn resume(d: &Arc<Daemon>, which: fn(&Daemon) -> &Pending, window_minutes: f64, waits: fn(&SessionEvent) -> bool, what: &'static str) {
    let d = d.clone();
    tokio::spawn(async move {
        let since = crate::base::clock::now_unix_ms().saturating_sub((window_minutes * 2.0 * 60_000.0) as u64);
        match d.store().events_since(since, RESUME_EVENTS, waits) {
            Ok(events) => events.iter().for_each(|e| which(&d).note(&e.session_id, true)),
            Err(e) => tracing::warn!(error = %e, "cannot read the session log for what was left waiting: {what}"),
        }
    });
}

/// Serves the pending set `which`: when the hook notes a key, waits `gather` for events to
/// gather, then runs `settle` on every key noted; a key that `settle` says still waits (`false`)
/// is kept and looked at again every `tick` (an idle daemon stays asleep). `what` names the work
/// in the log.
pub fn serve<F, Fut>(d: &Arc<Daemon>, which: fn(&Daemon) -> &Pending, gather: Duration, tick: Duration, what: &'static str, settle: F)
where
    F: Fn(Arc<Daemon>, String) -> Fut + Send + 'static,
    Fut: Future<Output = Result<bool>> + Send,
{
    let d = d.clone();
    tokio::spawn(async move {
        loop {
            let idle = which(&d).is_empty();
            tokio::select! {
                _ = d.shutdown().cancelled() => return,
                _ = which(&d).notified() => tokio::time::sleep(gather).await,
                _ = tokio::time::sleep(tick), if !idle => {}
            }
            for key in which(&d).take() {
                match settle(d.clone(), key.clone()).await {
                    Ok(true) => {}
                    Ok(false) => which(&d).keep(key),
                    Err(e) => tracing::warn!(error = %e, key = %key, "cannot {what}"),
                }
            }
        }
    });
}
