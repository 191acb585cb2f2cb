//! `advise`: what the hook would say for a text or a hook payload, before formatting. A dry run
//! unless a session is named, in which case cooldowns apply and the advice is recorded.
//! [`answer`] is the one advice routine the hook shares, so both always agree.

use std::time::{Duration, Instant};

use cairn_proto::{Advice, AdviceItem, AdviseRequest, ConsideredItem, RpcError, GLOBAL_PROJECT};

use crate::advisor::intent::{self, Intent};
use crate::advisor::rank::{Gates, Scored, Verdict};
use crate::advisor::salience::{self, Salience};
use crate::advisor::{self, format, Ask, MemoryLookup, Policy, Retrieval, SemanticQuery};
use crate::config::Tuneables;
use crate::event::{EventKind, HookEvent};
use crate::hybrid::Fusion;
use crate::redact;
use crate::state::{store_error, Daemon};
use crate::store::sessions::{Advised, SessionEvent};

/// Memories read for the session-start brief, newest first.
const BRIEF_POOL: usize = 100;
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
    let rules = if t.triggers.enabled {
        crate::triggers::effective(&d.config.read().expect("config lock").rules.rules, t.triggers.builtin_rules)
    } else {
        Vec::new()
    };
    let ask = Ask {
        intent,
        salience: salience.clone(),
        raw,
        projects: &projects,
        rules: &rules,
        learned_confidence: t.triggers.learned_confidence,
        min_category_relevance: t.triggers.min_category_relevance,
    };
    let now = Instant::now();
    let wall = time::OffsetDateTime::now_utc();
    let cooldown = Duration::from_secs(t.advice.cooldown_s);
    with_retrieval(d, &intent.meaning, patience, |retrieval| {
        // Explaining reads the near misses too; otherwise only what can pass the gate is read.
        let floor = if explain { 0.0 } else { policy.gates.min_similarity };
        let candidates = advisor::gather(retrieval, &d.store, &ask, floor, wall, policy.recency_half_life_days);
        let cooldowns = d.cooldowns.lock().expect("cooldown lock");
        advisor::choose(candidates, salience, &policy, |id| session.is_some_and(|s| !cooldowns.allows(s, id, now, cooldown)))
    })
}

/// At session start there is no action yet: the project's own lessons (not `global`), the most
/// effective first, then the most recently changed.
fn session_start_brief(d: &Daemon, project: &str, limit: usize, session: Option<&str>) -> Vec<AdviceItem> {
    if project == GLOBAL_PROJECT || limit == 0 {
        return Vec::new();
    }
    let mut ids = d.lexical.read().expect("index lock").ids_in_project(project);
    ids.sort_unstable_by(|a, b| b.cmp(a));
    ids.truncate(BRIEF_POOL);
    let mut memories: Vec<_> = ids.iter().filter_map(|id| d.store.memory(id)).collect();
    memories.sort_by(|a, b| b.worth.effectiveness.total_cmp(&a.worth.effectiveness).then_with(|| b.updated_at.cmp(&a.updated_at)));
    let t = d.tuneables();
    let now = Instant::now();
    let cooldown = Duration::from_secs(t.advice.cooldown_s);
    let cooldowns = d.cooldowns.lock().expect("cooldown lock");
    memories
        .into_iter()
        .filter(|m| session.is_none_or(|s| cooldowns.allows(s, &m.id, now, cooldown)))
        .take(limit)
        .map(|m| AdviceItem {
            why: format!("a lesson of this project (effectiveness {:.2}), offered at session start", m.worth.effectiveness),
            signals: [("effectiveness".to_string(), m.worth.effectiveness)].into(),
            score: m.worth.effectiveness,
            id: m.id,
            text: m.text,
            category: m.category,
            source: "session".into(),
        })
        .collect()
}

/// The answer for an event of `kind` about `subject` in `project`: chosen, rendered within the
/// budget, and cut to what was rendered. With a session, what was said starts its cooldown.
pub fn answer(d: &Daemon, kind: &EventKind, subject: Subject<'_>, project: &str, session: Option<&str>, patience: Patience, explain: bool) -> Answer {
    let t = d.tuneables();
    let parts = subject.parts();
    let (said, mut not_said, budget) = match kind {
        EventKind::PreToolUse | EventKind::UserPromptSubmit => {
            let (limit, budget) = if *kind == EventKind::PreToolUse {
                (t.advice.max_items_tool, t.advice.char_budget_tool)
            } else {
                (t.advice.max_items_prompt, t.advice.char_budget_prompt)
            };
            let c = ranked_advice(d, &parts, project, limit, session, patience, explain);
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
            let items = session_start_brief(d, project, t.advice.max_items_session_start, session);
            (items.into_iter().map(|i| (i, String::new(), None)).collect(), Vec::new(), t.advice.char_budget_prompt)
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
    Answer { intent, salience, context: rendered.map(|(text, _)| text), items, considered }
}

pub fn advised(items: &[AdviceItem]) -> Vec<Advised> {
    items.iter().map(|a| Advised { id: a.id.clone(), score: a.score, path: vec![] }).collect()
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
        return Ok(Advice { intent: intent.words, project, advice: Vec::new(), salience: salience.score, salience_reason: salience.reason.into(), considered: Vec::new() });
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
    })
}
