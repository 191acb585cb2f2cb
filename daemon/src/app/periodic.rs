//! Periodic work. Only what is essential runs in `--lite`: the session-log retention, once at
//! start and then hourly, saving the semantic index when it changed, and watching for a refused
//! disk to take writes again, each project's fusion weights learned hourly, memory tiers counted
//! hourly (every six hours in `--lite`) and expired memories pruned daily, so an idle daemon stays
//! asleep.

use std::sync::Arc;
use std::time::Duration;

use super::daemon::Daemon;

const RETENTION_EVERY: Duration = Duration::from_secs(3600);
/// How often a changed semantic index is written out. The store holds every vector, so what a
/// crash loses here is only repair time at the next start.
const INDEX_SAVE_EVERY: Duration = Duration::from_secs(120);
/// How often a store whose disk refused a write looks whether it takes writes again.
const DISK_CHECK_EVERY: Duration = Duration::from_secs(3);
/// The least time a daemon runs before it restarts for a store failure other than a full disk.
const OTHER_FAILURE_PATIENCE: Duration = Duration::from_secs(60);

/// How often the day counts (the dashboard's series) are written.
const DAYS_WRITE_EVERY: Duration = Duration::from_secs(30);

/// Once the store's disk refused a write (sled then refuses every write of this run), restarts
/// the daemon in place as soon as the disk takes writes again: reads and advice went on
/// meanwhile, writes failed at once with the reason. A full disk is what a probe can tell has
/// mended; for any other cause the restart waits until the daemon has run a minute, so that a
/// fault that comes back at once costs a restart a minute, not a loop.
pub fn recover_store(d: &Daemon) {
    let Some(failure) = d.store().failure() else { return };
    if !d.store().failed_for_room() && d.uptime() < OTHER_FAILURE_PATIENCE {
        return;
    }
    match d.store().disk_takes_writes() {
        Ok(()) => {
            tracing::warn!(failure, "the store's disk takes writes again; restarting to reopen the store");
            d.restart();
        }
        Err(waiting) => tracing::debug!(failure, waiting, "the store's disk still refuses writes"),
    }
}

/// Applies the session-log retention now.
pub fn prune_sessions(d: &Daemon) {
    let s = d.tuneables().sessions;
    let cutoff = crate::base::clock::now_unix_ms().saturating_sub(s.retention_days.saturating_mul(86_400_000));
    match d.store().prune_events(cutoff, s.max_events) {
        Ok(0) => {}
        Ok(n) => tracing::info!(dropped = n, "session log pruned"),
        Err(e) => tracing::error!(error = %e, "session log pruning failed"),
    }
    // The outcomes of lessons said go with their moments, and only then: those older than the
    // oldest moment the log still holds (with the log empty, those past the retention).
    let before = match d.store().oldest_event() {
        Ok(Some(at)) => Some(at),
        Ok(None) => time::OffsetDateTime::from_unix_timestamp_nanos(cutoff as i128 * 1_000_000).map(crate::base::clock::timestamp).ok(),
        Err(e) => {
            tracing::error!(error = %e, "cannot read the session log's oldest moment; outcomes not pruned");
            None
        }
    };
    if let Some(Err(e)) = before.map(|b| d.store().prune_outcomes(&b)) {
        tracing::error!(error = %e, "pruning the outcomes failed");
    }
    // The day counts are small and outlive the log, within bounds.
    let oldest = time::OffsetDateTime::now_utc() - time::Duration::days(super::days::KEEP_DAYS);
    let day = crate::base::clock::timestamp(oldest);
    if let Err(e) = d.store().prune_days(day.get(..10).unwrap_or_default()) {
        tracing::error!(error = %e, "pruning the day counts failed");
    }
}

/// Runs `work` every `every` (first after `first`) on a blocking thread, until shutdown.
fn every(d: &Arc<Daemon>, first: Duration, every: Duration, work: fn(&Daemon)) {
    let d = d.clone();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + first, every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = d.shutdown().cancelled() => return,
                _ = tick.tick() => {
                    let d2 = d.clone();
                    let _ = tokio::task::spawn_blocking(move || work(&d2)).await;
                }
            }
        }
    });
}

pub fn spawn(d: &Arc<Daemon>) {
    every(d, INDEX_SAVE_EVERY, INDEX_SAVE_EVERY, |d| {
        let _ = d.semantic().graphs().save(d.store(), d.semantic().dir());
    });
    every(d, Duration::ZERO, RETENTION_EVERY, prune_sessions);
    every(d, DAYS_WRITE_EVERY, DAYS_WRITE_EVERY, |d| d.flush_days());
    every(d, DISK_CHECK_EVERY, DISK_CHECK_EVERY, recover_store);
    // Tiers from the last access: hourly, every six hours in --lite; pruning daily.
    let tiers_every = if d.mode() == cairn_proto::Mode::Lite { 6 * RETENTION_EVERY } else { RETENTION_EVERY };
    every(d, Duration::ZERO, tiers_every, |d| {
        if let Err(e) = super::tiers::recalculate(d) {
            tracing::warn!(error = %e, "cannot count the memory tiers");
        }
    });
    let pruner = d.clone();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + RETENTION_EVERY, 24 * RETENTION_EVERY);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = pruner.shutdown().cancelled() => return,
                _ = tick.tick() => {
                    if let Err(e) = super::tiers::prune(&pruner, false).await {
                        tracing::warn!(error = %e, "cannot prune expired memories");
                    }
                }
            }
        }
    });
    // Predictions a day old refreshed, and each project's prediction weights learned.
    every(d, INDEX_SAVE_EVERY, 6 * RETENTION_EVERY, |d| {
        if let Err(e) = super::prediction::job(d) {
            tracing::warn!(error = %e, "cannot refresh the predictions");
        }
    });
    // Each project's fusion weights, from the samples its outcomes and feedback left.
    every(d, RETENTION_EVERY, RETENTION_EVERY, |d| {
        if let Err(e) = super::weights::learn_all(d) {
            tracing::warn!(error = %e, "cannot learn the fusion weights");
        }
    });
}
