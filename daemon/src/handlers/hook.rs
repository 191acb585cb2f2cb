//! `hook`: one Claude Code event. Advises on PreToolUse, UserPromptSubmit and SessionStart,
//! records every event (redacted) in the session log, and answers with the context text for the
//! client to shape. A paused project gets nothing and leaves nothing.

use cairn_proto::{HookReply, RpcError, PROTOCOL_VERSION};
use serde_json::Value;

use crate::event::{EventKind, HookEvent};
use crate::handlers::advise::{advised, answer, Patience, Subject};
use crate::redact;
use crate::state::{store_error, Daemon};
use crate::store::sessions::SessionEvent;

/// Session id for events that carry none.
const NO_SESSION: &str = "-";

pub async fn handle(d: &Daemon, protocol: u32, mut payload: Value) -> Result<HookReply, RpcError> {
    if protocol != PROTOCOL_VERSION {
        return Err(RpcError::ProtocolMismatch { daemon: PROTOCOL_VERSION, client: protocol });
    }
    let event = HookEvent::from_payload(&payload);
    let project = d.project_for(&cairn_proto::Scope { cwd: event.cwd.clone(), ..Default::default() });
    if d.is_paused(&project) {
        // The user opted this project out: no advice, and nothing recorded.
        return Ok(HookReply::default());
    }
    let session = event.session_id.clone().unwrap_or_else(|| NO_SESSION.to_string());

    let mut reply = HookReply::default();
    let mut recorded_advice = Vec::new();
    let mut intent_text = None;
    if event.kind.advises() {
        let started = std::time::Instant::now();
        // A few milliseconds of work, run in place: handing the thread over (block_in_place)
        // costs more than it saves at this size, and the hook never waits on a lock here.
        let said = answer(d, &event.kind, Subject::Event(&event), &project, event.session_id.as_deref(), Patience::Hook, false);
        tracing::debug!(elapsed_us = started.elapsed().as_micros() as u64, items = said.items.len(), "advice");
        reply.additional_context = said.context;
        reply.decision = said.decision.clone();
        recorded_advice = advised(&said.items);
        intent_text = Some(redact::redact_text(&said.intent.words));
    }

    redact::redact_value(&mut payload);
    let record = SessionEvent {
        at: crate::exchange::now(),
        session_id: session.clone(),
        event: event.kind.name().to_string(),
        project,
        tool_name: event.tool_name.clone(),
        tool_use_id: event.tool_use_id.clone(),
        intent: intent_text,
        payload,
        advised: recorded_advice,
        decision: reply.decision.as_ref().map(|d| redact::redact_text(&format!("{}: {}", d.permission, d.reason))),
    };
    d.store.append_event(&record).map_err(store_error)?;
    // Keep the log at its bound as it grows: past it, each new event retires the oldest one.
    let max_events = d.tuneables().sessions.max_events;
    if d.store.event_count() > max_events {
        d.store.prune_events(0, max_events).map_err(store_error)?;
    }
    if event.kind == EventKind::SessionEnd {
        d.cooldowns.lock().expect("cooldown lock").end(&session);
    }
    // Flushed right behind the answer: the hook never waits on a disk.
    d.store.durable_soon();
    Ok(reply)
}
