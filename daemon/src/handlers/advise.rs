//! `advise`: what the hook would say for a text or a hook payload, before formatting. A dry run
//! unless a session is named, in which case cooldowns apply and the advice is recorded.
//! [`answer`] is the one advice routine the hook shares, so both always agree.

use std::time::{Duration, Instant};

use cairn_proto::{Advice, AdviceItem, AdviseRequest, ConsideredItem, HookDecision, Memory, RpcError, GLOBAL_PROJECT};

use crate::advisor::intent::{self, Intent};
use crate::advisor::rank::{Gates, Scored, Verdict};
use crate::advisor::salience::{self, Salience};
use crate::advisor::{self, format, Ask, Audible, MemoryLookup, Policy, Retrieval, SemanticQuery};
use crate::config::{InterruptMode, Tuneables};
use crate::event::{EventKind, HookEvent};
use crate::hybrid::Fusion;
use crate::redact;
use crate::state::{store_error, Daemon};
use crate::store::sessions::{Advised, SessionEvent};

/// Memories read for the session-start brief, newest first.
const BRIEF_POOL: usize = 200;
/// Most candidates listed as considered and not said.
const EXPLAINED: usize = 10;
/// How much of the raw tool input trigger rules see.
const RAW_INPUT_CHARS: usize = 16 * 1024;

/// What to say for one event: the intent, the context text, and the items it holds.
pub struct Answer {
    pub intent: Intent,
    pub salience: Salience,
    pub context: Option<String>,
    pub items: Vec<AdviceItem>,
    /// An interrupt, when an interrupting rule matched and interrupts are on.
    pub decision: Option<HookDecision>,
    /// What was weighed and not said (filled when asked to explain).
    pub considered: Vec<ConsideredItem>,
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
                (Intent { words: text.clone(), meaning: text.chars().take(160).collect() }, Salience { score: 0.8, reason: "a request in words" }, text)
            }
        }
    }
}

/// Whether a caller may wait for the model and the semantic index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Patience {
    /// The hook: never waits; without a ready model or a free index it goes by keywords.
    Hook,
    /// A person's command: waits for the index (the caller has waited for the model).
    Human,
}

pub fn fusion(t: &Tuneables) -> Fusion {
    Fusion { weight_similarity: t.semantic.weight_similarity, similarity_floor: t.semantic.similarity_floor, similarity_ceiling: t.semantic.similarity_ceiling }
}

/// The thresholds and weights in force.
pub fn gates(t: &Tuneables) -> Gates {
    let b = &t.triggers.priority_bonus;
    Gates {
        min_similarity: t.semantic.min_similarity,
        min_fusion_score: t.semantic.min_fusion_score,
        min_matched_terms: t.semantic.min_matched_terms,
        weight_outcome: t.semantic.weight_outcome,
        weight_recency: t.semantic.weight_recency,
        weight_salience: t.semantic.weight_salience,
        trigger_base: t.triggers.base_score,
        priority_bonus: [b.critical, b.high, b.normal, b.background],
        fusion: fusion(t),
    }
}

/// The advisor's policy in force, for an answer of at most `limit` items.
pub fn policy(t: &Tuneables, limit: usize) -> Policy {
    let caps = &t.semantic.category_caps;
    Policy {
        gates: gates(t),
        mmr_lambda: t.semantic.mmr_lambda,
        mmr_duplicate: t.semantic.mmr_duplicate_similarity,
        min_relative_score: t.semantic.min_relative_score,
        default_category_cap: caps.get("default").copied().unwrap_or(2),
        category_caps: caps.iter().filter(|(k, _)| k.as_str() != "default").map(|(k, v)| (k.clone(), *v)).collect(),
        limit,
        recency_half_life_days: t.semantic.recency_half_life_days,
    }
}

/// Runs `f` with the retrieval for `meaning`: keywords always, embeddings when the model is
/// loaded (and, for the hook, when the index is not being written to at this instant).
pub fn with_retrieval<R>(d: &Daemon, meaning: &str, patience: Patience, f: impl FnOnce(&Retrieval<'_>) -> R) -> R {
    let t = d.tuneables();
    let vector = d.embedder_now().and_then(|e| match d.semantic.query_vector(&e, meaning, patience == Patience::Human) {
        Ok(v) => v,
        Err(e) => {
            tracing::error!(error = %e, "cannot embed a query; keywords only");
            None
        }
    });
    let lexical = d.lexical.read().expect("index lock");
    let graphs = match patience {
        Patience::Hook => d.semantic.index.try_read().ok(),
        Patience::Human => Some(d.semantic.index.read().expect("index lock")),
    };
    let semantic = match (&vector, graphs.as_deref()) {
        (Some(v), Some(Some(index))) => Some(SemanticQuery { vector: v.as_slice(), index }),
        _ => None,
    };
    f(&Retrieval { lexical: &lexical, semantic, fusion: fusion(&t) })
}

fn item(s: Scored) -> AdviceItem {
    AdviceItem { id: s.candidate.id, text: s.candidate.text, category: s.candidate.category, score: s.score, why: s.why, signals: s.signals, source: s.source.as_str().to_string() }
}

fn considered_item(s: Scored, v: &Verdict) -> ConsideredItem {
    ConsideredItem { id: s.candidate.id, text: s.candidate.text, category: s.candidate.category, score: s.score, why: s.why, verdict: v.describe(), signals: s.signals }
}

/// Advice for `subject` in `project` (plus `global`), at most `limit` items, skipping what
/// `session` heard within its cooldown. Records nothing.
fn ranked_advice(d: &Daemon, parts: &(Intent, Salience, String), project: &str, limit: usize, session: Option<&str>, patience: Patience, explain: bool) -> advisor::Considered {
    let (intent, salience, raw) = parts;
    if intent.is_empty() || limit == 0 {
        return advisor::Considered::default();
    }
    let t = d.tuneables();
    let policy = policy(&t, limit);
    let projects: Vec<&str> = if project == GLOBAL_PROJECT { vec![GLOBAL_PROJECT] } else { vec![project, GLOBAL_PROJECT] };
    // One snapshot of what the user keeps quiet serves the rules and the lookup alike.
    let quiet = d.quiet.read().expect("quiet lock").clone();
    let rules = if t.triggers.enabled {
        // The seed pack's own patterns join while the pack is on (a seed turned off or muted is
        // kept out by the lookup below).
        let config = d.config.read().expect("config lock");
        if quiet.pack_on { config.effective_rules_with_seeds.clone() } else { config.effective_rules.clone() }
    } else {
        std::sync::Arc::new(Vec::new())
    };
    let (seed_weight, seed_basis) = d.seed_weight(&projects);
    let ask = Ask {
        intent,
        salience: salience.clone(),
        raw,
        projects: &projects,
        rules: &rules,
        learned_confidence: t.triggers.learned_confidence,
        min_category_relevance: t.triggers.min_category_relevance,
        seed_weight,
        seed_basis,
    };
    let now = Instant::now();
    let wall = time::OffsetDateTime::now_utc();
    let cooldown = Duration::from_secs(t.advice.cooldown_s);
    let lookup = Audible { lookup: &d.store, quiet: &quiet };
    with_retrieval(d, &intent.meaning, patience, |retrieval| {
        // Explaining reads the near misses too; otherwise only what can pass the gate is read.
        let floor = if explain { 0.0 } else { policy.gates.min_similarity };
        let candidates = advisor::gather(retrieval, &lookup, &ask, floor, wall, policy.recency_half_life_days);
        let cooldowns = d.cooldowns.lock().expect("cooldown lock");
        advisor::choose(candidates, salience, &policy, |id| session.is_some_and(|s| !cooldowns.allows(s, id, now, cooldown)))
    })
}

fn brief_item(m: Memory, score: f64, why: String, signals: cairn_proto::Signals) -> AdviceItem {
    AdviceItem { id: m.id, text: m.text, category: m.category, score, why, signals, source: "session".into() }
}

/// At startup (and after `/clear`) there is no action yet: the project's own most useful
/// lessons (not `global`), by effectiveness, recency and use.
fn most_useful(d: &Daemon, project: &str, quiet: &advisor::Quiet, limit: usize) -> Vec<AdviceItem> {
    if project == GLOBAL_PROJECT {
        return Vec::new();
    }
    // The project's most recently changed lessons (a bounded pool, newest first), never a scan
    // of the whole project on the hook's path.
    let ids: Vec<String> = d.recent.lock().expect("recent lock").newest(project).iter().map(|(_, id)| id.clone()).filter(|id| !quiet.silences(id)).take(BRIEF_POOL).collect();
    let memories: Vec<Memory> = ids.iter().filter_map(|id| d.store.memory(id)).filter(|m| m.project == project).collect();
    let now = time::OffsetDateTime::now_utc();
    let half_life = d.tuneables().semantic.recency_half_life_days;
    let used = |m: &Memory| (m.worth.times_surfaced + m.now.access_count) as f64;
    let most_used = memories.iter().map(used).fold(0.0, f64::max);
    let mut scored: Vec<(f64, f64, f64, Memory)> = memories
        .into_iter()
        .map(|m| {
            let recency = advisor::recency(&m, now, half_life);
            let use_share = if most_used > 0.0 { (1.0 + used(&m)).ln() / (1.0 + most_used).ln() } else { 0.0 };
            let score = 0.5 * m.worth.effectiveness + 0.3 * recency + 0.2 * use_share;
            (score, recency, use_share, m)
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| b.3.updated_at.cmp(&a.3.updated_at)));
    scored
        .into_iter()
        .take(limit)
        .map(|(score, recency, use_share, m)| {
            let why = format!(
                "one of this project's most useful lessons: effectiveness {:.2}, recency {recency:.2}, used {} times",
                m.worth.effectiveness,
                used(&m) as u64
            );
            let signals = [("effectiveness".to_string(), m.worth.effectiveness), ("recency".to_string(), recency), ("use".to_string(), use_share)].into();
            brief_item(m, score, why, signals)
        })
        .collect()
}

/// Session events read back for a brief, newest first: enough for a long session, bounded for the
/// hook's deadline.
const SESSION_LOOKBACK: usize = 2000;

/// After compaction: what this session was already told that still matters (the memory is
/// still there, in the session's project or `global`, and not muted), the highest-scored first.
fn told_in_session(d: &Daemon, session: Option<&str>, project: &str, quiet: &advisor::Quiet, limit: usize) -> Vec<AdviceItem> {
    let Some(session) = session else { return Vec::new() };
    let events = d.store.session_events_newest(session, SESSION_LOOKBACK).unwrap_or_else(|e| {
        tracing::error!(error = %e, "cannot read the session log");
        Vec::new()
    });
    let mut best: std::collections::HashMap<String, f64> = std::collections::HashMap::new();
    for a in events.iter().flat_map(|e| &e.advised) {
        let s = best.entry(a.id.clone()).or_insert(a.score);
        *s = s.max(a.score);
    }
    let mut told: Vec<(String, f64)> = best.into_iter().filter(|(id, _)| !quiet.silences(id)).collect();
    told.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    told.into_iter()
        .filter_map(|(id, score)| d.store.memory(&id).filter(|m| m.project == project || m.project == GLOBAL_PROJECT).map(|m| (m, score)))
        .take(limit)
        .map(|(m, score)| brief_item(m, score, format!("told earlier in this session (score {score:.2}); repeated after the context was compacted"), [("score".to_string(), score)].into()))
        .collect()
}

/// On resume: nothing new, unless the project's lessons changed since the session was last
/// active; then those, the newest first.
fn changed_since_last_seen(d: &Daemon, session: Option<&str>, project: &str, quiet: &advisor::Quiet, limit: usize) -> Vec<AdviceItem> {
    let (Some(session), false) = (session, project == GLOBAL_PROJECT) else { return Vec::new() };
    let last_seen = d.store.session_events_newest(session, 1).ok().and_then(|mut e| e.pop()).map(|e| e.at);
    let Some(last_seen) = last_seen else { return Vec::new() };
    let changed = d.recent.lock().expect("recent lock").changed_since(project, &last_seen);
    changed
        .iter()
        .filter(|id| !quiet.silences(id))
        .filter_map(|id| d.store.memory(id))
        .filter(|m| m.project == project)
        .take(limit)
        .map(|m| {
            let why = format!("new or changed in this project ({}) since the session was last active", m.updated_at);
            brief_item(m, 1.0, why, cairn_proto::Signals::new())
        })
        .collect()
}

/// The session-start brief for `source` (startup, clear, compact, resume), with the short reason
/// shown beside each item. Cooldowns do not apply: each of these starts a context that has not
/// seen the lessons.
fn session_start(d: &Daemon, project: &str, source: &str, session: Option<&str>, limit: usize) -> (Vec<AdviceItem>, &'static str) {
    let quiet = d.quiet.read().expect("quiet lock").clone();
    match source {
        "compact" => (told_in_session(d, session, project, &quiet, limit), "told earlier in this session"),
        "resume" => (changed_since_last_seen(d, session, project, &quiet, limit), "changed since this session was last active"),
        _ => (most_useful(d, project, &quiet, limit), "one of this project's most useful lessons"),
    }
}

/// The interrupt for a tool call, when interrupts are on, the action is not a look around, and a
/// critical rule with `interrupt: true` put a lesson forward (said now, or said earlier in the
/// session: a dangerous command repeated is asked about again).
fn interrupt(t: &Tuneables, kind: &EventKind, tool: Option<&str>, salience: &Salience, considered: &advisor::Considered) -> Option<HookDecision> {
    // Only a command about to run is stopped: an edit that mentions `git reset --hard`, or a
    // migration file whose `down` drops a table, is advised on, not interrupted.
    if *kind != EventKind::PreToolUse || tool != Some("Bash") || t.triggers.interrupts == InterruptMode::Off || salience.score < salience::READ_ONLY_CEILING {
        return None;
    }
    let eligible = considered.said.iter().chain(considered.not_said.iter().filter(|(_, v)| !matches!(v, Verdict::Gated(_) | Verdict::Undecided(_))).map(|(s, _)| s));
    let (s, rule) = eligible.filter_map(|s| s.candidate.trigger.as_ref().filter(|t| t.interrupt).map(|t| (s, t))).next()?;
    Some(HookDecision {
        permission: t.triggers.interrupts.as_str().to_string(),
        reason: format!("cairn: rule {} (critical) matched `{}`. Lesson [{}]: {}", rule.rule, rule.matched, s.candidate.category, s.candidate.text),
    })
}

/// The answer for an event of `kind` about `subject` in `project`: chosen, rendered within the
/// budget, and cut to what was rendered. With a session, what was said starts its cooldown.
pub fn answer(d: &Daemon, kind: &EventKind, subject: Subject<'_>, project: &str, session: Option<&str>, patience: Patience, explain: bool) -> Answer {
    let t = d.tuneables();
    let (source, tool) = match &subject {
        Subject::Event(e) => (e.source.clone().unwrap_or_else(|| "startup".into()), e.tool_name.clone()),
        Subject::Text(_) => ("startup".into(), None),
    };
    let parts = subject.parts();
    let mut decision = None;
    let (said, mut not_said, budget) = match kind {
        EventKind::PreToolUse | EventKind::UserPromptSubmit => {
            let (limit, budget) = if *kind == EventKind::PreToolUse {
                (t.advice.max_items_tool, t.advice.char_budget_tool)
            } else {
                (t.advice.max_items_prompt, t.advice.char_budget_prompt)
            };
            let c = ranked_advice(d, &parts, project, limit, session, patience, explain);
            decision = interrupt(&t, kind, tool.as_deref(), &parts.1, &c);
            let items: Vec<(AdviceItem, String, Option<Scored>)> = c
                .said
                .into_iter()
                .map(|s| {
                    let short = s.short_why.clone();
                    (item(s.clone()), short, Some(s))
                })
                .collect();
            (items, c.not_said, budget)
        }
        EventKind::SessionStart => {
            let (items, short) = session_start(d, project, &source, session, t.advice.max_items_session_start);
            (items.into_iter().map(|i| (i, short.to_string(), None)).collect(), Vec::new(), t.advice.char_budget_session_start)
        }
        // Events that carry no advice in Claude Code's protocol get none here either.
        _ => (Vec::new(), Vec::new(), 0),
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
    if let Some(s) = session {
        let now = Instant::now();
        let mut cooldowns = d.cooldowns.lock().expect("cooldown lock");
        for item in &items {
            cooldowns.record(s, &item.id, now);
        }
    }
    // The closest misses, best first.
    not_said.sort_by(|a, b| b.0.score.total_cmp(&a.0.score));
    let considered = if explain { not_said.iter().take(EXPLAINED).map(|(s, v)| considered_item(s.clone(), v)).collect() } else { Vec::new() };
    Answer { intent, salience, context: rendered.map(|(text, _)| text), items, decision, considered }
}

pub fn advised(items: &[AdviceItem]) -> Vec<Advised> {
    items
        .iter()
        // `why` quotes the input a rule matched: what is recorded is redacted like the payload.
        .map(|a| Advised { id: a.id.clone(), score: a.score, path: vec![], text: a.text.clone(), category: a.category.clone(), why: redact::redact_text(&a.why) })
        .collect()
}

pub async fn handle(d: &Daemon, req: AdviseRequest) -> Result<Advice, RpcError> {
    let explicit = req.scope.project.is_some() || req.scope.global;
    let event = req.hook_input.as_ref().map(HookEvent::from_payload);
    let text = req.text.as_deref().map(str::trim).filter(|t| !t.is_empty());
    let (subject, project, kind) = match (&event, text) {
        (Some(event), _) => {
            let project = match (&event.cwd, explicit) {
                (Some(cwd), false) => d.projects.resolve(cwd),
                _ => d.project_for(&req.scope),
            };
            (Subject::Event(event), project, event.kind.clone())
        }
        (None, Some(text)) => (Subject::Text(text), d.project_for(&req.scope), EventKind::UserPromptSubmit),
        _ => return Err(RpcError::Invalid("give a text to advise on, or --hook-input FILE".into())),
    };
    if d.is_paused(&project) {
        let (intent, salience, _) = subject.parts();
        return Ok(Advice { intent: intent.words, project, advice: Vec::new(), salience: salience.score, salience_reason: salience.reason.into(), considered: Vec::new(), decision: None });
    }
    // A person asking may wait for the model, so the answer is the one the hook gives once warm.
    let _ = d.embedder_ready().await;
    let mut answer = tokio::task::block_in_place(|| answer(d, &kind, subject, &project, req.session.as_deref(), Patience::Human, req.explain));
    if let Some(limit) = req.limit {
        answer.items.truncate(limit as usize);
    }
    if let Some(session) = &req.session {
        let event = SessionEvent {
            at: crate::exchange::now(),
            session_id: session.clone(),
            event: "Advise".into(),
            project: project.clone(),
            tool_name: None,
            tool_use_id: None,
            intent: Some(redact::redact_text(&answer.intent.words)),
            payload: serde_json::Value::Null,
            advised: advised(&answer.items),
            decision: answer.decision.as_ref().map(|d| redact::redact_text(&format!("{}: {}", d.permission, d.reason))),
        };
        d.store.append_event(&event).map_err(store_error)?;
        d.store.durable().await;
    }
    Ok(Advice {
        intent: answer.intent.words,
        project,
        advice: answer.items,
        salience: answer.salience.score,
        salience_reason: answer.salience.reason.into(),
        considered: answer.considered,
        decision: answer.decision.map(|d| d.permission),
    })
}
