//! `status`: what the daemon is, how it is doing, and what the hook has missed.

use cairn_proto::{IndexReport, Status, PROTOCOL_VERSION, VERSION};

use super::daemon::Daemon;

/// Largest hook-miss log read back.
const MISS_LOG_LIMIT: u64 = 1 << 20;

/// The hook's deadline misses: how many, the last one's time, and how many on each day (UTC)
/// the log still holds (the hook keeps its last 64 KiB and one rotated file).
/// Read from the current and the rotated log.
pub fn hook_miss_days(d: &Daemon) -> (u64, Option<String>, std::collections::BTreeMap<String, u64>) {
    let mut days = std::collections::BTreeMap::new();
    let log = d.paths().hook_miss_log();
    let rotated = log.with_extension("log.1");
    let mut count = 0;
    let mut last = None;
    for path in [rotated, log] {
        // The hook rotates it at 64 KiB; a file far past that is not read.
        if let Ok(text) = cairn_proto::files::read_text(&path, MISS_LOG_LIMIT) {
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                count += 1;
                last = line
                    .split_whitespace()
                    .next()
                    .and_then(|secs| secs.parse::<i64>().ok())
                    .and_then(|secs| time::OffsetDateTime::from_unix_timestamp(secs).ok())
                    .map(crate::base::clock::timestamp);
                if let Some(day) = last.as_deref().and_then(|at| at.get(..10)) {
                    *days.entry(day.to_string()).or_default() += 1;
                }
            }
        }
    }
    (count, last, days)
}

fn index_report(d: &Daemon) -> IndexReport {
    let memories = d.memories().count();
    // Mirrors kept beside the index: a status never waits for it.
    let (loaded, indexed, unsaved) = d.semantic().graphs().counts();
    let pending = if loaded { memories.saturating_sub(indexed) } else { 0 };
    IndexReport { loaded, memories, indexed, pending, unsaved }
}

pub async fn status(d: &Daemon) -> Status {
    let (hook_misses, last_hook_miss, _) = hook_miss_days(d);
    with_misses(d, hook_misses, last_hook_miss)
}

/// The memories per tier, as last counted (hourly); counted again first when memories came or
/// went since, so that the tiers add up to the memories `status` shows beside them.
fn tiers_now(d: &Daemon) -> std::collections::BTreeMap<String, u64> {
    let counted = d.tier_counts();
    if counted.values().sum::<u64>() == d.memories().count() {
        return counted;
    }
    tokio::task::block_in_place(|| super::tiers::recalculate(d)).unwrap_or(counted)
}

/// `status`, the hook-miss log already read (the overview reads it once for its days too).
pub fn with_misses(d: &Daemon, hook_misses: u64, last_hook_miss: Option<String>) -> Status {
    let config = d.config().read();
    let paths = d.paths();
    Status {
        version: VERSION.to_string(),
        protocol: PROTOCOL_VERSION,
        pid: std::process::id(),
        uptime_s: d.uptime().as_secs(),
        home: paths.home.display().to_string(),
        data_dir: paths.data_dir.display().to_string(),
        socket: paths.socket.display().to_string(),
        mode: d.mode(),
        memories: d.memories().count(),
        config: config.summary(),
        model: d.semantic().model().status_text(config.tuneables.model.enabled),
        model_info: d.semantic().model_info(),
        index: index_report(d),
        job: d.semantic().jobs().get(None),
        session_events: d.store().event_count(),
        hook_misses,
        last_hook_miss,
        unknown_config_keys: config.all_unknown_keys(),
        renamed_config_keys: config.renamed_keys.clone(),
        paused: d.memories().paused(),
        tiers: tiers_now(d),
        capture: super::capture::counts(d, None),
        store_failure: d.store().writable().err().map(|e| e.to_string()),
    }
}
