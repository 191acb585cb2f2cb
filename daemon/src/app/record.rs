//! Recording what happened in a session: each event, redacted, with the advice it got. The log
//! stays within its bound as it grows, and a hook's event is flushed just behind its answer (the
//! hook never waits on a disk).

use cairn_proto::{AdviceItem, HookDecision};

use super::daemon::Daemon;
use super::error::Result;
use crate::base::redact;
use crate::store::sessions::SessionEvent;

/// What was said, as the log keeps it: `why` quotes the input a rule matched, so it is redacted
/// like the payload.
pub fn said(items: &[AdviceItem]) -> Vec<AdviceItem> {
    items.iter().map(|a| AdviceItem { why: redact::redact_text(&a.why), ..a.clone() }).collect()
}

/// An interrupt as the log keeps it (`ask: ...`, `deny: ...`), redacted.
pub fn decision(d: &HookDecision) -> String {
    redact::redact_text(&format!("{}: {}", d.permission, d.reason))
}

/// Appends a hook's event to the session log; past `max_events`, each new event retires the
/// oldest. The flush starts as the hook is answered.
pub fn hook_event(d: &Daemon, record: &SessionEvent, max_events: u64) -> Result<()> {
    d.store().append_event(record).map_err(|e| d.store().explain(e))?;
    if d.store().event_count() > max_events {
        d.store().prune_events(0, max_events)?;
    }
    d.store().durable_soon();
    Ok(())
}
