//! `hook`: one Claude Code event. Advises on PreToolUse and UserPromptSubmit, records every event
//! (redacted) in the session log, and answers with the context text for the client to shape.

use cairn_proto::{HookReply, RpcError, PROTOCOL_VERSION};
use serde_json::Value;

use crate::advisor::{format, intent};
use crate::event::{EventKind, HookEvent};
use crate::handlers::advise::{advice_for, limit_for};
use crate::redact;
use crate::state::{store_error, Daemon};
use crate::store::sessions::{Advised, SessionEvent};

/// Session id for events that carry none.
const NO_SESSION: &str = "-";

pub async fn handle(d: &Daemon, protocol: u32, mut payload: Value) -> Result<HookReply, RpcError> {
    if protocol != PROTOCOL_VERSION {
        return Err(RpcError::ProtocolMismatch { daemon: PROTOCOL_VERSION, client: protocol });
    }
    let event = HookEvent::from_payload(&payload);
    let project = d.project_for(&cairn_proto::Scope { cwd: event.cwd.clone(), ..Default::default() });
    let session = event.session_id.clone().unwrap_or_else(|| NO_SESSION.to_string());

    let mut reply = HookReply::default();
    let mut advised = Vec::new();
    let mut intent_text = None;
    // Session-start advice (what to know before the first action) comes with its own issue;
    // until then SessionStart answers with nothing rather than with noise.
    if event.kind.advises() && event.kind != EventKind::SessionStart {
        let intent = intent::intent(&event);
        let started = std::time::Instant::now();
        let items = advice_for(d, &intent, &project, limit_for(d, &event.kind), event.session_id.as_deref());
        tracing::debug!(elapsed_us = started.elapsed().as_micros() as u64, items = items.len(), "advice");
        let t = d.tuneables();
        let budget = if event.kind == EventKind::PreToolUse { t.advice.char_budget_tool } else { t.advice.char_budget_prompt };
        let lines: Vec<format::Line<'_>> = items.iter().map(|a| format::Line { category: &a.category, text: &a.text }).collect();
        reply.additional_context = format::render(&lines, budget);
        if reply.additional_context.is_some() {
            advised = items.iter().map(|a| Advised { id: a.id.clone(), score: a.score, path: vec![] }).collect();
        }
        intent_text = Some(redact::redact_text(&intent));
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
        advised,
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
