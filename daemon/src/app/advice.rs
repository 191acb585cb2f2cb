//! The advice use case: what to say for an event (a hook event, or a person's words), chosen,
//! rendered within the budget, and cut to what was rendered; with a session, what was said
//! starts its cooldown. The hook and `advise` share [`answer`], so both always agree. `advise`
//! itself is a dry run unless a session is named, in which case the advice is recorded.

use std::sync::Arc;
use std::time::{Duration, Instant};

use cairn_proto::{Advice, AdviceItem, AdviseRequest, HookDecision, GLOBAL_PROJECT};

use super::brief;
use super::daemon::Daemon;
use super::error::{Error, Result};
use super::record;
use super::retrieve::{with_retrieval, AtMoment, Patience};
use crate::retrieval::hybrid::Fusion;
use crate::advisor::choose::{choose, Considered};
use crate::advisor::explain::Verdict;
use crate::advisor::format;
use crate::advisor::fuse::Scored;
use crate::advisor::gather::{gather, Ask};
use crate::advisor::intent::{self, Intent};
use crate::advisor::lookup::Audible;
use crate::advisor::policy::{self, Policy};
use crate::advisor::salience::{self, Salience};
use crate::advisor::seeds;
use crate::base::event::{EventKind, HookEvent};
use crate::config::rules::TriggerRule;
use crate::learning::graph::Spread;
use crate::config::{InterruptMode, Tuneables};
use crate::store::sessions::SessionEvent;

/// Most candidates listed as considered and not said.
const EXPLAINED: usize = 10;
/// How much of the raw tool input trigger rules see.
pub const RAW_INPUT_CHARS: usize = 16 * 1024;

/// What to say for one event: the intent, the context text, and the items it holds.
pub struct Answer {
    pub intent: Intent,
    pub salience: Salience,
    pub context: Option<String>,
    pub items: Vec<AdviceItem>,
    /// An interrupt, when an interrupting rule matched and interrupts are on.
    pub decision: Option<HookDecision>,
    /// What was weighed and not said (filled when asked to explain).
    pub considered: Vec<AdviceItem>,
    /// Captured candidates that would have been said (id, probability): their shadow record.
    pub shadow: Vec<(String, f64)>,
}

/// What advice is asked for: a hook event, or a person's words.
pub enum Subject<'a> {
    Event(&'a HookEvent),
    Text(&'a str),
}

impl Subject<'_> {
    /// The intent, the salience and the raw input trigger rules see.
    fn parts(&self) -> (Intent, Salience, String) {
        match self {
            Subject::Event(e) => (intent::intent(e), salience::salience(e), intent::raw_input(e, RAW_INPUT_CHARS)),
            Subject::Text(t) => {
                let text = t.trim().to_string();
                (Intent { words: text.clone(), meaning: text.chars().take(160).collect(), deed: text.clone(), kind: "prompt".into(), ..Intent::default() }, salience::of_prompt(&text), text)
            }
        }
    }
}

/// Where and how an answer is asked for.
#[derive(Clone, Copy)]
pub struct Asked<'a> {
    /// The event's project (advice also comes from `global`).
    pub project: &'a str,
    /// With a session, what it heard within its cooldown is skipped, and what is said starts one.
    pub session: Option<&'a str>,
    pub patience: Patience,
    /// Also list what was weighed and not said.
    pub explain: bool,
    /// When the asker stops waiting (the hook's deadline): an answer ready after it is never
    /// shown, so it says nothing and starts no cooldown.
    pub deliver_by: Option<Instant>,
}

/// Time kept before the asker's deadline for the answer to reach it.
const DELIVERY_MARGIN: Duration = Duration::from_millis(2);

fn item(s: Scored, verdict: Option<&Verdict>) -> AdviceItem {
    let path = s.candidate.path();
    let rule = s.candidate.trigger.as_ref().map(|t| t.rule.clone());
    AdviceItem {
        rule,
        text: s.candidate.text,
        category: s.candidate.category,
        score: s.score,
        why: s.why,
        signals: s.signals,
        source: s.source.as_str().to_string(),
        verdict: verdict.map(Verdict::describe),
        path,
        id: s.candidate.id,
    }
}

/// The trigger rules in force for an event, set after set: cairn's and the user's, then the
/// seed pack's own patterns while the pack is on (a seed turned off or muted is kept out by the
/// lookup).
fn rule_sets<'a>(effective: &'a Arc<Vec<TriggerRule>>, t: &Tuneables, pack_on: bool) -> Vec<&'a [TriggerRule]> {
    match (t.triggers.enabled, pack_on) {
        (false, _) => Vec::new(),
        (true, false) => vec![effective.as_slice()],
        (true, true) => vec![effective.as_slice(), seeds::rules()],
    }
}

/// Advice for `parts` in the asked project (plus `global`), at most `limit` items, skipping what
/// the session heard within its cooldown. Records nothing.
fn ranked_advice(d: &Daemon, t: &Tuneables, parts: &(Intent, Salience, String), prompt: bool, limit: usize, asked: Asked<'_>) -> Considered {
    let Asked { project, session, patience, .. } = asked;
    let (intent, salience, raw) = parts;
    if intent.is_empty() || limit == 0 {
        return Considered::default();
    }
    let mut policy = Policy::from_settings(t, limit);
    // The project's learned mix of signal groups, while learning takes part.
    policy.gates.mix = if t.learning.enabled { d.mix(project) } else { None };
    let projects: Vec<&str> = if project == GLOBAL_PROJECT { vec![GLOBAL_PROJECT] } else { vec![project, GLOBAL_PROJECT] };
    // One snapshot of what the user keeps quiet serves the rules and the lookup alike.
    let quiet = d.memories().quiet();
    let effective = d.config().read().effective_rules.clone();
    let sets = rule_sets(&effective, t, quiet.pack_on);
    let (seed_weight, seed_basis) = d.memories().seed_weight(&projects);
    let ask = Ask {
        intent,
        salience: salience.clone(),
        raw,
        projects: &projects,
        rules: &sets,
        learned_confidence: t.triggers.learned_confidence,
        min_category_relevance: t.triggers.min_category_relevance,
        seed_weight,
        seed_basis,
        spread: t.learning.enabled.then_some(Spread { decay: t.learning.spread_decay, floor: t.learning.spread_floor, hops: t.learning.spread_hops }),
    };
    let now = Instant::now();
    let wall = time::OffsetDateTime::now_utc();
    let cooldown = Duration::from_secs(t.advice.cooldown_s);
    let lookup = Audible { lookup: d.store(), quiet: &quiet };
    // Advice reads relevance on its own calibration (the category picks of trigger rules); search
    // keeps the one the settings give it.
    let moment = AtMoment { project, words: &intent.words, command: intent.command.as_deref(), kind: &intent.kind, deed: &intent.deed };
    let started = Instant::now();
    with_retrieval(d, t, &intent.meaning, patience, Fusion::ADVICE, Some(moment), |retrieval| {
        let ready = started.elapsed();
        // The leaders by meaning and by words, explaining or not: `advise` decides as the hook
        // does, and explains what it weighed.
        let mut candidates = gather(retrieval, &lookup, &ask, Some(policy::LEADERS), wall, policy.recency_half_life_days);
        let gathered = started.elapsed();
        if !t.learning.enabled {
            // What was learned stays out of advice: node weights too (situations already are).
            candidates.iter_mut().for_each(|c| c.node_weight = 1.0);
        }
        let cooldowns = d.cooldowns();
        let chosen = choose(candidates, salience, prompt, &policy, |id| session.is_some_and(|s| !cooldowns.allows(s, id, now, cooldown)));
        // Where the advice's time goes (CAIRN_LOG=cairn_daemon::app::advice=trace).
        tracing::trace!(ready_us = ready.as_micros() as u64, gather_us = (gathered - ready).as_micros() as u64, choose_us = (started.elapsed() - gathered).as_micros() as u64, "advice timing");
        chosen
    })
}

/// The interrupt for a tool call, when interrupts are on, the action is not a look around, and a
/// critical rule with `interrupt: true` put a lesson forward (said now, or said earlier in the
/// session: a dangerous command repeated is asked about again).
fn interrupt(t: &Tuneables, kind: &EventKind, tool: Option<&str>, salience: &Salience, considered: &Considered) -> Option<HookDecision> {
    // Only a command about to run is stopped: an edit that mentions `git reset --hard`, or a
    // migration file whose `down` drops a table, is advised on, not interrupted.
    if *kind != EventKind::PreToolUse || tool != Some("Bash") || t.triggers.interrupts == InterruptMode::Off || salience.score < salience::READ_ONLY_CEILING {
        return None;
    }
    let eligible = considered.said.iter().chain(considered.not_said.iter().filter(|(_, v)| !matches!(v, Verdict::Gated(_) | Verdict::Undecided(_) | Verdict::NearMiss(_) | Verdict::Shadow)).map(|(s, _)| s));
    let (s, rule) = eligible.filter_map(|s| s.candidate.trigger.as_ref().filter(|t| t.interrupt).map(|t| (s, t))).next()?;
    Some(HookDecision {
        permission: t.triggers.interrupts.as_str().to_string(),
        reason: format!("cairn: rule {} (critical) matched `{}`. Lesson [{}]: {}", rule.rule, rule.matched, s.candidate.category, s.candidate.text),
    })
}

/// The answer for an event of `kind` about `subject`, under the settings `t`: chosen, rendered
/// within the budget, and cut to what was rendered. With a session, what was said starts its
/// cooldown.
pub fn answer(d: &Daemon, t: &Tuneables, kind: &EventKind, subject: Subject<'_>, asked: Asked<'_>) -> Answer {
    let Asked { project, session, explain, deliver_by, .. } = asked;
    let (source, tool) = match &subject {
        Subject::Event(e) => (e.source.clone().unwrap_or_else(|| "startup".into()), e.tool_name.clone()),
        Subject::Text(_) => ("startup".into(), None),
    };
    let parts = subject.parts();
    let mut decision = None;
    let Some((limit, budget)) = policy::limits(t, kind) else {
        // Events that carry no advice in Claude Code's protocol get none here either.
        let (intent, salience, _) = parts;
        return Answer { intent, salience, context: None, items: Vec::new(), decision: None, considered: Vec::new(), shadow: Vec::new() };
    };
    let (said, mut not_said) = match kind {
        EventKind::SessionStart => {
            let (items, short) = brief::session_start(d, brief::BriefWeights { half_life: t.ranking.recency_half_life_days, prediction: t.advice.brief_prediction }, project, &source, session, limit);
            (items.into_iter().map(|i| (i, short.to_string(), None)).collect(), Vec::new())
        }
        _ => {
            let c = ranked_advice(d, t, &parts, *kind == EventKind::UserPromptSubmit, limit, asked);
            decision = interrupt(t, kind, tool.as_deref(), &parts.1, &c);
            let items: Vec<(AdviceItem, String, Option<Scored>)> = c
                .said
                .into_iter()
                .map(|s| {
                    let short = s.short_why.clone();
                    (item(s.clone(), None), short, Some(s))
                })
                .collect();
            (items, c.not_said)
        }
    };
    let (intent, salience, _) = parts;
    let lines: Vec<format::Line<'_>> = said.iter().map(|(a, why, _)| format::Line { category: &a.category, text: &a.text, why }).collect();
    let rendered = format::render(&lines, budget);
    let shown = rendered.as_ref().map_or(0, |(_, n)| *n);
    let mut items = Vec::with_capacity(shown);
    for (n, (a, _, s)) in said.into_iter().enumerate() {
        if n < shown {
            items.push(a);
        } else if let Some(s) = s {
            not_said.push((s, Verdict::OverLimit));
        }
    }
    let shadow = not_said.iter().filter(|(_, v)| *v == Verdict::Shadow).map(|(s, _)| (s.candidate.id.clone(), s.score)).collect();
    if deliver_by.is_some_and(|by| Instant::now() + DELIVERY_MARGIN >= by) {
        // Too late to be read: nothing is said, so nothing is recorded as said, no cooldown
        // keeps the lesson from the session's next moment, and no outcome is read for it. A
        // candidate's shadow is what it would have been, said or not: kept.
        tracing::info!(items = items.len(), "the answer came after the asker's deadline; nothing said");
        return Answer { intent, salience, context: None, items: Vec::new(), decision: None, considered: Vec::new(), shadow };
    }
    if let Some(s) = session {
        let now = Instant::now();
        let mut cooldowns = d.cooldowns();
        for item in &items {
            cooldowns.record(s, &item.id, now);
        }
    }
    // The closest misses, best first.
    not_said.sort_by(|a, b| b.0.score.total_cmp(&a.0.score));
    let considered = if explain { not_said.iter().take(EXPLAINED).map(|(s, v)| item(s.clone(), Some(v))).collect() } else { Vec::new() };
    Answer { intent, salience, context: rendered.map(|(text, _)| text), items, decision, considered, shadow }
}

/// Made-up moments of each kind the hook advises on, for [`warm`].
const WARM_EVENTS: [&str; 3] = [
    r#"{"hook_event_name": "PostToolUse", "session_id": "-", "tool_name": "Bash", "tool_input": {"command": "git push --force origin main", "description": "Push the branch"}, "tool_response": {"stdout": "", "stderr": ""}}"#,
    r#"{"hook_event_name": "PostToolUse", "session_id": "-", "tool_name": "Edit", "tool_input": {"file_path": "src/db.py", "old_string": "x", "new_string": "cur.execute(f\"SELECT * FROM users WHERE name = '{name}'\")"}, "tool_response": {}}"#,
    r#"{"hook_event_name": "UserPromptSubmit", "session_id": "-", "prompt": "deploy the release to production with DATABASE_URL=postgres://u:p@localhost/app"}"#,
];

/// Runs the hook's path once on made-up moments, on a blocking thread, as the daemon starts:
/// what is built on first use (compiled patterns, the shipped models, the seed rules) is built
/// then, not in the first real event, which would otherwise spend most of its deadline on it
/// (about 80 of 200 ms). A dry run: no session, so nothing is recorded and no cooldown starts.
pub fn warm(d: &Arc<Daemon>) -> tokio::task::JoinHandle<()> {
    let d = d.clone();
    tokio::task::spawn_blocking(move || {
        let started = Instant::now();
        let t = d.tuneables();
        for payload in WARM_EVENTS {
            let Ok(mut payload) = serde_json::from_str::<serde_json::Value>(payload) else { continue };
            let event = HookEvent::from_payload(&payload);
            let asked = Asked { project: GLOBAL_PROJECT, session: None, patience: Patience::Hook, explain: false, deliver_by: None };
            let _ = answer(&d, &t, &event.kind, Subject::Event(&event), asked);
            crate::base::redact::redact_value(&mut payload);
            let _ = intent::recorded(&event);
        }
        tracing::debug!(elapsed_us = started.elapsed().as_micros() as u64, "the hook's path warmed");
    })
}

/// `advise`: what the hook would say for a text or a hook payload, and why. A dry run unless a
/// session is named: then cooldowns apply and the advice is recorded.
pub async fn advise(d: &Daemon, req: AdviseRequest) -> Result<Advice> {
    let explicit = req.scope.project.is_some() || req.scope.global;
    let event = req.hook_input.as_ref().map(HookEvent::from_payload);
    let text = req.text.as_deref().map(str::trim).filter(|t| !t.is_empty());
    if let Some(text) = text {
        super::retrieve::bounded_query(text)?;
    }
    let (subject, project, kind) = match (&event, text) {
        (Some(event), _) => {
            let project = match (&event.cwd, explicit) {
                (Some(cwd), false) => d.project_of(cwd),
                _ => d.project_for(&req.scope),
            };
            (Subject::Event(event), project, event.kind.clone())
        }
        (None, Some(text)) => (Subject::Text(text), d.project_for(&req.scope), EventKind::UserPromptSubmit),
        _ => return Err(Error::Invalid("give a text to advise on, or --hook-input FILE".into())),
    };
    if d.memories().is_paused(&project) {
        let (intent, salience, _) = subject.parts();
        return Ok(Advice { intent: intent.words, project, advice: Vec::new(), salience: salience.score, salience_reason: salience.reason.into(), considered: Vec::new(), decision: None, paused: true });
    }
    // A person asking may wait for the model, so the answer is the one the hook gives once warm.
    let _ = d.embedder_ready().await;
    let t = d.tuneables();
    let asked = Asked { project: &project, session: req.session.as_deref(), patience: Patience::Human, explain: req.explain, deliver_by: None };
    let mut answer = tokio::task::block_in_place(|| answer(d, &t, &kind, subject, asked));
    if let Some(limit) = req.limit {
        answer.items.truncate(limit as usize);
    }
    if let Some(session) = &req.session {
        // Kept redacted, the redaction before any cut.
        let kept = match (&event, text) {
            (Some(e), _) => {
                let i = intent::recorded(e);
                (i.words, i.meaning)
            }
            (None, t) => intent::recorded_text(t.unwrap_or_default()),
        };
        let event = SessionEvent {
            at: crate::base::clock::now(),
            session_id: session.clone(),
            event: "Advise".into(),
            project: project.clone(),
            tool_name: None,
            tool_use_id: None,
            intent: Some(kept.0),
            meaning: Some(kept.1),
            payload: serde_json::Value::Null,
            advised: record::said(&answer.items),
            decision: answer.decision.as_ref().map(record::decision),
            shadow: Vec::new(),
        };
        d.store().append_event(&event)?;
        d.days().event(d.store(), &event, None);
        d.store().durable().await?;
    }
    Ok(Advice {
        intent: answer.intent.words,
        project,
        advice: answer.items,
        salience: answer.salience.score,
        salience_reason: answer.salience.reason.into(),
        considered: answer.considered,
        decision: answer.decision.map(|d| d.permission),
        paused: false,
    })
}
