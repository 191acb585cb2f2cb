//! Outcome attribution at work: after a session's events, what became of each lesson said there
//! (followed, ignored, contradicted, unknown: the rule is `learning::attribution`'s), kept per
//! moment and lesson, and applied once settled:
//! - followed: a helpful outcome, and the moment's link to the lesson moves toward "applies" by
//!   `learning.step_outcome` (the path that said it too), never across a judgement of the user's;
//! - contradicted: an unhelpful outcome, and the link moves toward "does not apply";
//! - ignored: counted and shown; unhelpful only when the lesson's previous outcome was an ignore
//!   too;
//! - unknown: recorded, nothing moves.
//!
//! Saying a lesson also updates its access record (times said, last accessed). The work runs on
//! its own task after the hook has answered: the hook only notes the session.

use std::sync::Arc;
use std::time::Duration;

use cairn_proto::{EdgeKind, Memory, GLOBAL_PROJECT};

use super::daemon::Daemon;
use super::error::{Error, Result};
use super::feedback::{at_moment, count_outcome, describe, embed_moment, set_edge, Changes, Judgement};
use crate::advisor::seeds;
use crate::base::clock;
use crate::config::Tuneables;
use crate::learning::attribution::{acted, attribute, Attribution, Lesson, Verdict, Window};
use crate::learning::graph::{self, Tier};
use crate::semantic::Prepared;
use crate::store::codec::CO_USED as CO_USE_RECORD;
use crate::store::outcomes::{outcome_key, OutcomeRecord};
use crate::store::sessions::SessionEvent;

/// How many of a session's newest events are read: the window's calls and what lies between.
const SESSION_READ: usize = 400;
/// How long the worker lets events gather before reading a session.
const GATHER: Duration = Duration::from_millis(300);
/// How often sessions still waiting on a window's time are looked at again.
const TICK: Duration = Duration::from_secs(30);

/// Starts the worker: sessions noted by the hook, then every [`TICK`] those still waiting.
pub fn spawn(d: &Arc<Daemon>) {
    // Sessions told something, whose outcomes may still wait.
    super::workers::resume(d, Daemon::pending, d.tuneables().learning.outcome_window_minutes, |e| !e.advised.is_empty(), "attribute the session's outcomes");
    super::workers::serve(d, Daemon::pending, GATHER, TICK, "attribute the session's outcomes", |d, session| async move { settle(&d, &session).await });
}

/// Attributes what it can in one session; `true` when nothing is left waiting.
pub async fn settle(d: &Daemon, session: &str) -> Result<bool> {
    let t = d.tuneables();
    if !t.learning.outcomes {
        return Ok(true);
    }
    let mut events = d.store().session_events_newest(session, SESSION_READ)?;
    events.reverse();
    let window = Window { calls: t.learning.outcome_window_calls, minutes: t.learning.outcome_window_minutes };
    let now = clock::now_unix_ms() as i128;
    let rules = d.config().read().effective_rules.clone();
    let mut waiting = false;
    for (i, e) in events.iter().enumerate() {
        for item in &e.advised {
            let key = outcome_key(&e.at, &e.session_id, &e.event, e.tool_use_id.as_deref(), &item.id);
            let before = d.store().get_outcome(&key)?;
            if before.as_ref().is_some_and(|r| r.settled) {
                continue;
            }
            let Some(lesson) = d.memories().get(&item.id) else {
                let gone = Attribution { verdict: Verdict::Unknown, settled: true, evidence: "the lesson was deleted".into() };
                save(d, &key, before.as_ref(), &record(e, &item.id, &gone))?;
                continue;
            };
            if before.is_none() {
                tokio::task::block_in_place(|| accessed(d, &item.id, &e.at, e.event != "SessionStart"))?;
            }
            // The rule that put the lesson forward, when it is still in force, judges the later
            // calls; else the lesson's words do.
            let a = {
                let rule = item.rule.as_deref().and_then(|name| rules.iter().chain(seeds::rules()).find(|r| r.spec.name == name));
                let check = rule.map(|r| move |x: &SessionEvent| r.regex.is_match(&acted(x)));
                let view = Lesson { text: &lesson.text, rule: check.as_ref().map(|c| c as &dyn Fn(&SessionEvent) -> bool) };
                attribute(e, &view, &events[i + 1..], window, now)
            };
            let changed = before.as_ref().is_none_or(|r| r.verdict != a.verdict.as_str() || r.evidence != a.evidence || r.settled != a.settled);
            if a.settled {
                apply(d, &t, &lesson, e, &a).await?;
                // What became of it, with the signals it had, teaches the fusion weights.
                let positive = match a.verdict {
                    Verdict::Followed => Some(true),
                    Verdict::Contradicted | Verdict::Ignored => Some(false),
                    Verdict::Unknown => None,
                };
                if let Some(positive) = positive {
                    super::weights::record(d, &e.project, &item.signals, positive)?;
                }
            } else {
                waiting = true;
            }
            if changed {
                save(d, &key, before.as_ref(), &record(e, &item.id, &a))?;
            }
        }
    }
    if !waiting && events.iter().any(|e| e.event == "SessionEnd") {
        tokio::task::block_in_place(|| co_used(d, &t, &events))?;
    }
    d.store().durable().await?;
    Ok(!waiting)
}

/// Most lessons of one session whose co-use is counted.
const CO_USED: usize = 8;

/// The automatic tier: when a session that ended went well (a lesson followed, none
/// contradicted), the lessons said in it move their `co_used` edges to each other up by
/// `learning.step_automatic`, once per session.
fn co_used(d: &Daemon, t: &Tuneables, events: &[SessionEvent]) -> Result<()> {
    let Some(end) = events.iter().rev().find(|e| e.event == "SessionEnd") else { return Ok(()) };
    let key = outcome_key(&end.at, &end.session_id, &end.event, None, CO_USE_RECORD);
    if d.store().get_outcome(&key)?.is_some() {
        return Ok(());
    }
    let mut said: Vec<&str> = Vec::new();
    let mut verdicts = Vec::new();
    for e in events {
        for item in &e.advised {
            if let Some(r) = d.store().get_outcome(&outcome_key(&e.at, &e.session_id, &e.event, e.tool_use_id.as_deref(), &item.id))? {
                verdicts.push(r.verdict);
            }
            if !said.contains(&item.id.as_str()) && said.len() < CO_USED && d.memories().get(&item.id).is_some() {
                said.push(&item.id);
            }
        }
    }
    let well = verdicts.iter().any(|v| v == "followed") && !verdicts.iter().any(|v| v == "contradicted");
    let evidence = if well { format!("{} lessons said together in a session that went well", said.len()) } else { "the session did not go well: nothing linked".into() };
    if well && said.len() >= 2 {
        let w = d.memories().writer();
        let mut changes = Changes::new(format!("co_used in session {}", end.session_id));
        let now = clock::now();
        for a in &said {
            for b in said.iter().filter(|b| *b != a) {
                let old = d.store().get_edge(a, b, EdgeKind::CoUsed.as_str())?;
                let strength = graph::step(old.as_ref().map_or(graph::NEUTRAL, |e| e.strength), t.learning.step_automatic);
                let edge = set_edge(&w, old.as_ref(), a, b, EdgeKind::CoUsed, strength, &now)?;
                changes.edge(Tier::Automatic, &edge, old.map(|e| e.strength));
            }
        }
        changes.write(&w, t.learning.max_adjustments)?;
    }
    let done = Attribution { verdict: Verdict::Unknown, settled: true, evidence };
    d.store().put_outcome(&key, &record(end, CO_USE_RECORD, &done))?;
    Ok(())
}

/// Writes an outcome record, and moves its count in the day it was said.
fn save(d: &Daemon, key: &[u8], before: Option<&OutcomeRecord>, after: &OutcomeRecord) -> Result<()> {
    d.store().put_outcome(key, after)?;
    d.days().outcome(d.store(), before, after);
    Ok(())
}

fn record(e: &SessionEvent, memory: &str, a: &Attribution) -> OutcomeRecord {
    OutcomeRecord {
        at: e.at.clone(),
        session_id: e.session_id.clone(),
        event: e.event.clone(),
        tool_use_id: e.tool_use_id.clone(),
        project: e.project.clone(),
        memory: memory.to_string(),
        verdict: a.verdict.as_str().into(),
        settled: a.settled,
        evidence: a.evidence.clone(),
        decided_at: clock::now(),
    }
}

/// Saying a lesson counts as said; said at a moment (not in a session-start brief) it is an
/// access too: access count, last accessed. The startup brief says what prediction brought
/// forward, so counting its sayings as accesses would make every prediction a hit by itself
/// (layer 4 would learn from its own echo) and keep the brief's lessons fresh for being in it.
fn accessed(d: &Daemon, id: &str, at: &str, access: bool) -> Result<()> {
    let w = d.memories().writer();
    let Some(mut m) = w.get(id)? else { return Ok(()) };
    m.worth.times_surfaced += 1;
    if m.worth.last_said.as_deref().is_none_or(|last| last < at) {
        m.worth.last_said = Some(at.to_string());
    }
    if access {
        m.now.access_count += 1;
        if m.now.last_accessed.as_deref().is_none_or(|last| last < at) {
            m.now.last_accessed = Some(at.to_string());
        }
    }
    w.put(&m, &Prepared::default())?;
    Ok(())
}

/// A settled verdict's effect on the lesson and the graph.
async fn apply(d: &Daemon, t: &Tuneables, lesson: &Memory, moment: &SessionEvent, a: &Attribution) -> Result<()> {
    let reason = format!("{} {} at {}: {}", a.verdict.as_str(), lesson.id, describe(moment), a.evidence);
    let applies = match a.verdict {
        Verdict::Unknown => return Ok(()),
        Verdict::Ignored => return tokio::task::block_in_place(|| ignored(d, t, &lesson.id, reason)),
        Verdict::Followed => true,
        Verdict::Contradicted => false,
    };
    // The session-start brief is not a moment the advisor compares others with: its lessons'
    // worth moves, no situation is made of it. Nor does a lesson learn outside its project.
    let own_project = lesson.project == moment.project || lesson.project == GLOBAL_PROJECT;
    let has_intent = moment.intent.as_deref().is_some_and(|i| !i.trim().is_empty());
    if moment.event == "SessionStart" || !own_project || !has_intent {
        return tokio::task::block_in_place(|| {
            let w = d.memories().writer();
            let Some(mut m) = w.get(&lesson.id)? else { return Ok(()) };
            let mut changes = Changes::new(reason);
            count_outcome(&mut m, applies, Tier::Outcome, &mut changes);
            w.put(&m, &Prepared::default())?;
            changes.write(&w, t.learning.max_adjustments).map(|_| ())
        });
    }
    let embedded = embed_moment(d, moment).await?;
    let j = Judgement { applies, tier: Tier::Outcome, step: t.learning.step_outcome, reason, counts: Some(applies), counted: None };
    tokio::task::block_in_place(|| at_moment(d, t, lesson, moment, embedded.as_ref().map(|(f, v)| (f.as_str(), v.as_slice())), &j)).map(|_| ())
}

/// An ignored lesson: counted; unhelpful when the one before was ignored too.
fn ignored(d: &Daemon, t: &Tuneables, id: &str, reason: String) -> Result<()> {
    let w = d.memories().writer();
    let mut m = w.get(id)?.ok_or_else(|| Error::NotFound(id.to_string()))?;
    let mut changes = Changes::new(reason);
    m.worth.ignored += 1;
    m.worth.ignored_in_a_row += 1;
    changes.node(Tier::Outcome, id, "ignored", (m.worth.ignored - 1) as f64, m.worth.ignored as f64);
    if m.worth.ignored_in_a_row >= 2 {
        count_outcome(&mut m, false, Tier::Outcome, &mut changes);
    }
    w.put(&m, &Prepared::default())?;
    changes.write(&w, t.learning.max_adjustments).map(|_| ())
}
