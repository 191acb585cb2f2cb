//! `advise`: what the hook would say for a text or a hook payload, before formatting. A dry run
//! unless a session is named, in which case cooldowns apply and the advice is recorded.
//! [`advice_for`] is the one advice routine the hook shares.

use std::time::{Duration, Instant};

use cairn_proto::{Advice, AdviceItem, AdviseRequest, RpcError, GLOBAL_PROJECT};

use crate::advisor::{self, intent, rank::Gates, Retrieval};
use crate::event::{EventKind, HookEvent};
use crate::redact;
use crate::state::{store_error, Daemon};
use crate::store::sessions::{Advised, SessionEvent};

/// Advice for `intent` in `project` (plus `global`), at most `limit` items, honouring and
/// updating the cooldowns of `session` when one is given.
pub fn advice_for(d: &Daemon, intent: &str, project: &str, limit: usize, session: Option<&str>) -> Vec<AdviceItem> {
    if intent.trim().is_empty() || limit == 0 {
        return Vec::new();
    }
    let t = d.tuneables();
    let gates = Gates {
        min_similarity: t.semantic.min_similarity,
        min_fusion_score: t.semantic.min_fusion_score,
        min_matched_terms: t.semantic.min_matched_terms,
        weight_outcome: t.semantic.weight_outcome,
    };
    let projects: Vec<&str> = if project == GLOBAL_PROJECT { vec![GLOBAL_PROJECT] } else { vec![project, GLOBAL_PROJECT] };
    let ranked = {
        let lexical = d.lexical.read().expect("index lock");
        advisor::advise(&Retrieval { lexical: &lexical }, &d.store, intent, &projects, &gates)
    };
    let now = Instant::now();
    let cooldown = Duration::from_secs(t.advice.cooldown_s);
    let mut cooldowns = d.cooldowns.lock().expect("cooldown lock");
    let chosen: Vec<AdviceItem> = ranked
        .into_iter()
        .filter(|r| session.is_none_or(|s| cooldowns.allows(s, &r.candidate.id, now, cooldown)))
        .take(limit)
        .map(|r| AdviceItem { id: r.candidate.id, text: r.candidate.text, category: r.candidate.category, score: r.score, why: r.why, signals: r.signals })
        .collect();
    if let Some(s) = session {
        for item in &chosen {
            cooldowns.record(s, &item.id, now);
        }
    }
    chosen
}

/// How many items an event may carry.
pub fn limit_for(d: &Daemon, kind: &EventKind) -> usize {
    let t = d.tuneables();
    match kind {
        EventKind::PreToolUse => t.advice.max_items_tool,
        EventKind::SessionStart => t.advice.max_items_session_start,
        _ => t.advice.max_items_prompt,
    }
}

pub async fn handle(d: &Daemon, req: AdviseRequest) -> Result<Advice, RpcError> {
    let explicit = req.scope.project.is_some() || req.scope.global;
    let (intent, project, kind) = match (&req.hook_input, &req.text) {
        (Some(payload), _) => {
            let event = HookEvent::from_payload(payload);
            let project = match (&event.cwd, explicit) {
                (Some(cwd), false) => d.projects.resolve(cwd),
                _ => d.project_for(&req.scope),
            };
            (intent::intent(&event), project, event.kind)
        }
        (None, Some(text)) if !text.trim().is_empty() => (text.trim().to_string(), d.project_for(&req.scope), EventKind::UserPromptSubmit),
        _ => return Err(RpcError::Invalid("give a text to advise on, or --hook-input FILE".into())),
    };
    let limit = req.limit.map_or_else(|| limit_for(d, &kind), |l| l as usize);
    let advice = advice_for(d, &intent, &project, limit, req.session.as_deref());
    if let Some(session) = &req.session {
        let event = SessionEvent {
            at: crate::exchange::now(),
            session_id: session.clone(),
            event: "Advise".into(),
            project: project.clone(),
            tool_name: None,
            tool_use_id: None,
            intent: Some(redact::redact_text(&intent)),
            payload: serde_json::Value::Null,
            advised: advice.iter().map(|a| Advised { id: a.id.clone(), score: a.score, path: vec![] }).collect(),
        };
        d.store.append_event(&event).map_err(store_error)?;
        d.store.durable().await;
    }
    Ok(Advice { intent, project, advice })
}
