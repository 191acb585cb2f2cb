//! One Claude Code event: advice on a tool call's result (PostToolUse, PostToolUseFailure, and
//! PreToolUse for older installs and interrupts), UserPromptSubmit and SessionStart, and every
//! event recorded (redacted) in the session log. A paused project gets nothing and leaves
//! nothing.

use cairn_proto::HookReply;
use serde_json::Value;

use super::advice::{answer, Asked, Subject};
use super::daemon::Daemon;
use super::error::Result;
use super::record;
use super::retrieve::Patience;
use crate::base::event::{EventKind, HookEvent};
use crate::base::redact;
use crate::store::sessions::SessionEvent;

/// Session id for events that carry none.
const NO_SESSION: &str = "-";

/// `deliver_by`: when the hook stops waiting for the answer (its deadline, as the request
/// carries it).
pub async fn event(d: &Daemon, mut payload: Value, deliver_by: Option<std::time::Instant>) -> Result<HookReply> {
    let began = std::time::Instant::now();
    let event = HookEvent::from_payload(&payload);
    let project = d.project_for(&cairn_proto::Scope { cwd: event.cwd.clone(), ..Default::default() });
    if d.memories().is_paused(&project) {
        // The user opted this project out: no advice, and nothing recorded.
        return Ok(HookReply::default());
    }
    let session = event.session_id.clone().unwrap_or_else(|| NO_SESSION.to_string());
    // One copy of the settings for the whole event.
    let t = d.tuneables();

    let mut reply = HookReply::default();
    let mut said = Vec::new();
    let mut intent_text = None;
    let mut meaning_text = None;
    let mut shadow = Vec::new();
    if event.kind.advises() {
        let started = std::time::Instant::now();
        // A few milliseconds of work, run in place: handing the thread over (block_in_place)
        // costs more than it saves at this size; the only locks here are read locks that writers
        // hold for an in-memory update at most.
        let asked = Asked { project: &project, session: event.session_id.as_deref(), patience: Patience::Hook, explain: false, deliver_by };
        let answer = answer(d, &t, &event.kind, Subject::Event(&event), asked);
        tracing::debug!(elapsed_us = started.elapsed().as_micros() as u64, items = answer.items.len(), "advice");
        reply.additional_context = answer.context;
        reply.decision = answer.decision;
        said = record::said(&answer.items);
        shadow = answer.shadow;
    }

    redact::redact_value(&mut payload);
    if event.kind.advises() {
        // The intent kept is made from the redacted payload, so no cut to length leaves part of
        // a secret (`intent::recorded` does the same for a payload not yet redacted).
        let kept = crate::advisor::intent::intent(&HookEvent { tool_input: payload.get("tool_input").cloned().unwrap_or(Value::Null), prompt: payload.get("prompt").and_then(Value::as_str).map(str::to_string), tool_response: None, ..HookEvent::bare(&event) });
        intent_text = Some(kept.words);
        meaning_text = Some(kept.meaning);
    }
    let entry = SessionEvent {
        at: crate::base::clock::now(),
        session_id: session.clone(),
        event: event.kind.name().to_string(),
        project,
        tool_name: event.tool_name.clone(),
        tool_use_id: event.tool_use_id.clone(),
        intent: intent_text,
        meaning: meaning_text,
        payload,
        advised: said,
        decision: reply.decision.as_ref().map(record::decision),
        shadow,
    };
    let recording = std::time::Instant::now();
    match record::hook_event(d, &entry, t.sessions.max_events) {
        // What became of the lessons said is read after the answer, on the outcome worker.
        Ok(()) => {
            let weighed = event.kind.advises().then(|| began.elapsed().as_secs_f64() * 1000.0);
            d.days().event(d.store(), &entry, weighed);
            d.pending().note(&session, !entry.advised.is_empty() || event.kind == EventKind::SessionEnd);
            // Capture reads prompts, failures and candidates' shadows; a session waiting on a
            // recovery is read again at its next event.
            let teaches = matches!(event.kind, EventKind::UserPromptSubmit | EventKind::PostToolUseFailure) || !entry.shadow.is_empty();
            d.captures().note(&session, teaches && t.capture.enabled);
            // A session's start refreshes its project's stale predictions, after the answer.
            if event.kind == EventKind::SessionStart {
                d.predictions().note(&entry.project, true);
            }
        }
        // The answer matters more than its record: a disk that refuses writes costs the log
        // entry (and the outcome it would have told), never the advice.
        Err(e) => tracing::warn!(error = %e, "cannot record the event; answering anyway"),
    }
    if event.kind == EventKind::SessionEnd {
        d.cooldowns().end(&session);
    }
    tracing::trace!(record_us = recording.elapsed().as_micros() as u64, total_us = began.elapsed().as_micros() as u64, "hook timing");
    Ok(reply)
}
