//! Feedback and the memory graph's manual tier: `used`, `not-relevant` and `not-useful` on a
//! lesson, `graph link`, `graph show` and `graph log`.
//!
//! `used` and `not-relevant` are about a moment (a tool call or a prompt recorded in the session
//! log): the moment becomes a situation of its project (the same one when a near-identical moment
//! was judged before), and its link to the lesson takes the judgement's side of neutral, one
//! deliberate step further ([`graph::judge`]); the edges of the path that said the lesson there
//! move one step the same way (without crossing to the other side: another situation's side is
//! its own judgement). `used` also counts as a helpful outcome of the lesson, once per moment's
//! situation (and not where what happened next already counted one); `not-relevant` leaves the
//! lesson's worth alone (the route was wrong, not the lesson), except that it takes back a
//! helpful outcome counted there before (a `used`'s, or a followed outcome's, whose record it
//! marks overruled). `not-useful` needs no moment: the lesson's node weight drops by
//! `learning.node_step` and it counts as an unhelpful outcome, once until the lesson is said
//! again. Every change is a line in the adjustment log, and the answer waits until both are on
//! disk.

use cairn_proto::{Edge, EdgeKind, FeedbackReport, FeedbackRequest, FeedbackVerb, GraphLink, GraphLogQuery, GraphView, Memory, Situation, GLOBAL_PROJECT, SITUATION_PREFIX};
use serde_json::Value;

use super::daemon::Daemon;
use super::error::{Error, Result};
use super::writer::Writer;
use crate::base::clock;
use crate::config::Tuneables;
use crate::learning::{attribution, capture};
use crate::learning::graph::{self, Adjustment, Tier};
use crate::retrieval::command;
use crate::retrieval::situations::Moment;
use crate::semantic::Wait;
use crate::semantic::Prepared;
use crate::store::sessions::SessionEvent;

/// How many recent events are searched for a tool call named by its id.
const EVENTS_SEARCHED: usize = 20_000;

/// One change, for the log and for the answer.
pub(super) struct Changes {
    at: String,
    reason: String,
    lines: Vec<Adjustment>,
}

impl Changes {
    pub(super) fn new(reason: String) -> Changes {
        Changes { at: clock::now(), reason, lines: Vec::new() }
    }

    pub(super) fn edge(&mut self, tier: Tier, e: &Edge, old: Option<f64>) {
        let reason = self.reason.clone();
        self.edge_line(tier, e, old, e.strength, reason);
    }

    /// A link taken out to keep the graph within its bounds: it reads as neutral from now on,
    /// as a link never made does.
    pub(super) fn removed(&mut self, e: &Edge, why: &str) {
        self.edge_line(Tier::Automatic, e, Some(e.strength), graph::NEUTRAL, why.into());
    }

    fn edge_line(&mut self, tier: Tier, e: &Edge, old: Option<f64>, new: f64, reason: String) {
        self.lines.push(Adjustment {
            at: self.at.clone(),
            source: tier.as_str().into(),
            edge: Some([e.source.clone(), e.target.clone(), e.kind.as_str().into()]),
            node: None,
            field: None,
            old,
            new,
            delta: new - old.unwrap_or(graph::NEUTRAL),
            reason,
        });
    }

    pub(super) fn node(&mut self, tier: Tier, id: &str, field: &str, old: f64, new: f64) {
        self.lines.push(Adjustment { at: self.at.clone(), source: tier.as_str().into(), edge: None, node: Some(id.into()), field: Some(field.into()), old: Some(old), new, delta: new - old, reason: self.reason.clone() });
    }

    /// Writes every line to the adjustment log; answers them in words.
    pub(super) fn write(self, w: &Writer<'_>, max: usize) -> Result<Vec<String>> {
        let mut words = Vec::new();
        for a in &self.lines {
            w.log_adjustment(&serde_json::to_value(a).expect("adjustments serialise"), max)?;
            let what = match (&a.edge, &a.node) {
                (Some([s, t, k]), _) => format!("edge {s} -[{k}]-> {t}"),
                (_, Some(n)) => format!("{} of {n}", a.field.as_deref().unwrap_or("node")),
                _ => "?".into(),
            };
            let old = a.old.map_or("new".to_string(), |o| format!("{o:.4}"));
            words.push(format!("{what}: {old} -> {:.4} ({})", a.new, a.source));
        }
        Ok(words)
    }
}

/// A Beta(1, 1) posterior mean: a lesson starts at 0.5.
fn effectiveness(helpful: u64, unhelpful: u64) -> f64 {
    (helpful as f64 + 1.0) / ((helpful + unhelpful) as f64 + 2.0)
}

/// Counts an outcome on the lesson: helpful or not. A helpful one ends a run of ignores.
pub(super) fn count_outcome(m: &mut Memory, helpful: bool, tier: Tier, changes: &mut Changes) {
    let old = m.worth.effectiveness;
    if helpful {
        m.worth.helpful += 1;
        m.worth.ignored_in_a_row = 0;
    } else {
        m.worth.unhelpful += 1;
    }
    m.worth.effectiveness = effectiveness(m.worth.helpful, m.worth.unhelpful);
    changes.node(tier, &m.id, "effectiveness", old, m.worth.effectiveness);
}

/// Takes back one helpful outcome (a judgement reversed by the user), never below none.
fn uncount_helpful(m: &mut Memory, changes: &mut Changes) {
    let old = m.worth.effectiveness;
    m.worth.helpful = m.worth.helpful.saturating_sub(1);
    m.worth.effectiveness = effectiveness(m.worth.helpful, m.worth.unhelpful);
    changes.node(Tier::Deliberate, &m.id, "effectiveness", old, m.worth.effectiveness);
}

/// The moment a feedback is about: by tool call id (in a session when given), else the newest
/// moment of the session, else the newest moment of the project's latest session. A moment is
/// an event with a recorded intent (a tool call or a prompt cairn weighed).
fn find_moment(d: &Daemon, req: &FeedbackRequest, project: &str, lesson: &str) -> Result<SessionEvent> {
    let is_moment = |e: &SessionEvent| e.intent.as_deref().is_some_and(|i| !i.trim().is_empty());
    let found = match (&req.session, &req.tool_use_id) {
        (session, Some(id)) => {
            let events = match session {
                Some(s) => d.store().session_events_newest(s, EVENTS_SEARCHED)?.into_iter().filter(|e| e.tool_use_id.as_deref() == Some(id.as_str())).collect(),
                None => d.store().recent_events(8, |e| e.tool_use_id.as_deref() == Some(id.as_str()))?,
            };
            // The call's event that said the lesson, else its newest with an intent.
            let said = events.iter().find(|e| is_moment(e) && e.advised.iter().any(|a| a.id == lesson)).cloned();
            said.or_else(|| events.into_iter().find(|e| is_moment(e))).ok_or_else(|| Error::Failed(format!("no tool call {id} with a recorded intent in {}", session.as_deref().map_or("the session log".to_string(), |s| format!("session {s}")))))?
        }
        (Some(s), None) => d.store().session_events_newest(s, EVENTS_SEARCHED)?.into_iter().find(|e| is_moment(e)).ok_or_else(|| Error::Failed(format!("no moment with a recorded intent in session {s}")))?,
        (None, None) => d.store().recent_events(1, |e| e.project == project && is_moment(e))?.into_iter().next().ok_or_else(|| {
            Error::Failed(format!("no recorded moment in project {project}: name one with --session and --tool-use-id (see `cairn log`)"))
        })?,
    };
    if req.tool_use_id.is_some() {
        return Ok(found);
    }
    said_in_the_same_call(d, found, lesson, is_moment)
}

/// The newest moment is often a call's result (its PostToolUse), after the PreToolUse of the
/// same call said the lesson: feedback on "the latest moment" means that call, and the event
/// that said the lesson is the one whose path it is about.
fn said_in_the_same_call(d: &Daemon, newest: SessionEvent, lesson: &str, is_moment: impl Fn(&SessionEvent) -> bool) -> Result<SessionEvent> {
    let said = |e: &SessionEvent| is_moment(e) && e.advised.iter().any(|a| a.id == lesson);
    let Some(call) = newest.tool_use_id.clone().filter(|_| !said(&newest)) else { return Ok(newest) };
    // The two events of one call are close together in its session: the newest few hold both.
    let same_call = d.store().session_events_newest(&newest.session_id, 64)?;
    Ok(same_call.into_iter().find(|e| e.tool_use_id.as_deref() == Some(call.as_str()) && said(e)).unwrap_or(newest))
}

/// The moment in words, for the answer.
pub(super) fn describe(e: &SessionEvent) -> String {
    let tool = e.tool_name.as_deref().map(|t| format!(" {t}")).unwrap_or_default();
    let id = e.tool_use_id.as_deref().map(|t| format!(" ({t})")).unwrap_or_default();
    format!("{}{tool}{id} at {} in session {}: {}", e.event, e.at, e.session_id, e.intent.as_deref().unwrap_or(""))
}

pub async fn feedback(d: &Daemon, req: FeedbackRequest) -> Result<FeedbackReport> {
    let t = d.tuneables();
    let lesson = d.memories().get(&req.memory).ok_or_else(|| Error::NotFound(req.memory.clone()))?;
    if req.verb == FeedbackVerb::NotUseful {
        let report = tokio::task::block_in_place(|| not_useful(d, &t, &req.memory))?;
        d.days().feedback(d.store(), &clock::now(), &lesson.project, "not_useful");
        d.store().durable().await?;
        return Ok(report);
    }
    let project = d.project_for(&req.scope);
    let moment = find_moment(d, &req, &project, &lesson.id)?;
    if lesson.project != moment.project && lesson.project != GLOBAL_PROJECT {
        return Err(Error::Invalid(format!(
            "{} belongs to project {}, and the moment was in {}: a lesson learns only where it can be said",
            lesson.id, lesson.project, moment.project
        )));
    }
    let embedded = embed_moment(d, &moment).await?;
    let applies = req.verb == FeedbackVerb::Used;
    // What happened next may have counted the lesson helpful here already (followed).
    let outcome = crate::store::outcomes::outcome_key(&moment.at, &moment.session_id, &moment.event, moment.tool_use_id.as_deref(), &lesson.id);
    let followed = moment.advised.iter().any(|a| a.id == lesson.id) && d.store().get_outcome(&outcome)?.is_some_and(|r| r.verdict == attribution::Verdict::Followed.as_str());
    let judgement = Judgement {
        applies,
        tier: Tier::Deliberate,
        step: t.learning.step_deliberate,
        reason: format!("{} on {} at {}", req.verb.as_str(), lesson.id, describe(&moment)),
        counts: applies.then_some(true),
        counted: Some(followed),
    };
    let (situation, said, mut lines) = tokio::task::block_in_place(|| at_moment(d, &t, &lesson, &moment, embedded.as_ref().map(|(f, v)| (f.as_str(), v.as_slice())), &judgement))?;
    if followed && !applies {
        // The user overrules the outcome read from what happened next: its helpful count was
        // taken back above, and the record says so (a later `used` counts afresh).
        if let Some(mut r) = d.store().get_outcome(&outcome)? {
            r.verdict = attribution::Verdict::Unknown.as_str().into();
            r.evidence = format!("{} (overruled: not-relevant at {})", r.evidence, clock::now());
            d.store().put_outcome(&outcome, &r)?;
        }
    }
    // The fusion weights learn from it, misses included: the signals the lesson had there when
    // it was said, else as the advisor weighs the moment's words now.
    let signals = match moment.advised.iter().find(|a| a.id == lesson.id) {
        Some(item) => Some(item.signals.clone()),
        None => signals_now(d, &t, &lesson.id, &moment),
    };
    if let Some(signals) = signals {
        super::weights::record(d, &moment.project, &signals, applies)?;
    }
    tokio::task::block_in_place(|| super::tiers::touch(d, std::slice::from_ref(&lesson.id)))?;
    if lesson.is_candidate() {
        // A captured candidate: the verb also tells its shadow record whether it would have been
        // right there.
        tokio::task::block_in_place(|| -> Result<()> {
            let w = d.memories().writer();
            let Some(mut m) = w.get(&lesson.id)? else { return Ok(()) };
            if capture::judge_shadow(&mut m, &moment, applies, t.capture.promote_after, &clock::now()) {
                let c = m.capture.as_ref().map_or(0, |c| c.confirmed());
                lines.push(format!("candidate {}: its shadow moment there {} ({c} confirmed)", m.id, if applies { "confirmed" } else { "shown wrong" }));
                if !m.is_candidate() {
                    lines.push(format!("candidate {} promoted: it speaks from now on", m.id));
                }
                w.put(&m, &Prepared::default())?;
            }
            Ok(())
        })?;
    }
    let verb = match (applies, said) {
        (true, true) => "used",
        (true, false) => "missed",
        (false, _) => "not_relevant",
    };
    d.days().feedback(d.store(), &moment.at, &moment.project, verb);
    d.store().durable().await?;
    Ok(FeedbackReport { memory: lesson.id.clone(), moment: Some(describe(&moment)), said_there: said, situation, changes: lines, note: None })
}

/// A lesson's signals at a moment where it was not said, as the advisor weighs the moment's
/// words now (`None` when it is not even among what the advisor considers).
fn signals_now(d: &Daemon, t: &Tuneables, lesson: &str, moment: &SessionEvent) -> Option<cairn_proto::Signals> {
    let words = moment.intent.clone().filter(|w| !w.trim().is_empty())?;
    let asked = super::advice::Asked { project: &moment.project, session: None, patience: super::retrieve::Patience::Human, explain: true, deliver_by: None };
    let answer = tokio::task::block_in_place(|| super::advice::answer(d, t, &crate::base::event::EventKind::UserPromptSubmit, super::advice::Subject::Text(&words), asked));
    answer.items.iter().chain(&answer.considered).find(|i| i.id == lesson).map(|i| i.signals.clone())
}

/// The moment's embedding (fingerprint, vector), made as the advisor makes a query's; `None`
/// without a model.
pub(super) async fn embed_moment(d: &Daemon, moment: &SessionEvent) -> Result<Option<(String, std::sync::Arc<Vec<f32>>)>> {
    let meaning = moment.meaning.clone().filter(|m| !m.trim().is_empty()).or_else(|| moment.intent.clone()).unwrap_or_default();
    Ok(match d.embedder_ready().await {
        Some(e) => {
            let v = tokio::task::block_in_place(|| d.semantic().query_vector(e.as_ref(), &meaning, Wait::Always)).map_err(|e| Error::Failed(format!("cannot embed the moment: {e}")))?;
            let fingerprint = d.semantic().graphs().read().as_ref().map(|g| g.fingerprint().to_string());
            fingerprint.zip(v)
        }
        None => None,
    })
}

/// The shape of the shell command a moment ran (`npm install` for `npm install lodash`), from
/// its recorded (redacted) payload.
pub(super) fn command_shape(moment: &SessionEvent) -> Option<String> {
    if moment.tool_name.as_deref() != Some("Bash") {
        return None;
    }
    command::shape(&attribution::acted(moment))
}

/// A judgement on a lesson at a moment: a feedback verb's, or what happened after it was said.
pub(super) struct Judgement {
    pub applies: bool,
    /// Deliberate (a verb: the moment's link takes the judgement's side) or outcome (it moves
    /// toward it, never across a judgement of the user's).
    pub tier: Tier,
    pub step: f64,
    pub reason: String,
    /// An outcome to count on the lesson: helpful or unhelpful.
    pub counts: Option<bool>,
    /// For a feedback verb (`None` otherwise): whether a helpful outcome of the lesson at this
    /// moment is counted already because what happened next followed it. A `used` does not
    /// count it again; a `not-relevant` takes back the helpful outcome counted there.
    pub counted: Option<bool>,
}

/// Applies `j` on `lesson` at `moment`: the moment's situation (found or made), its link, the
/// path that said the lesson there, the lesson's worth, the bounds and the adjustment log. Not
/// yet durable. Returns the situation (none when a followed outcome found none to strengthen),
/// whether the lesson was said there, and the changes in words.
pub(super) fn at_moment(d: &Daemon, t: &Tuneables, lesson: &Memory, moment: &SessionEvent, vector: Option<(&str, &[f32])>, j: &Judgement) -> Result<(Option<String>, bool, Vec<String>)> {
    let applies = j.applies;
    let step = j.step;
    let words = moment.intent.clone().unwrap_or_default();
    let w = d.memories().writer();
    let mut changes = Changes::new(j.reason.clone());

    // The moment's situation: the same one when a near-identical moment of the project was
    // judged before (seen again), else a new one.
    let same = d.memories().situations().same(&Moment::new(&moment.project, &words, vector), t.learning.same_situation).map(|(id, _)| id);
    let now = clock::now();
    // A followed lesson was said there already: its outcome strengthens the links that exist
    // (the path, the moment's own situation) and makes no new one, which would lend the lesson
    // to every moment merely like this one on the strength of an inference.
    let makes_links = !(j.tier == Tier::Outcome && applies);
    let existing = same.and_then(|id| w.situation(&id).transpose()).transpose()?;
    let situation = match existing {
        Some(mut s) => {
            s.seen += 1;
            s.last_seen = now.clone();
            // The latest moment's command shape (one kept before shapes were learns it).
            s.shape = command_shape(moment).or(s.shape.take());
            w.keep_situation(&s, None)?;
            Some(s)
        }
        None if !makes_links => None,
        None => {
            let s = Situation {
                id: format!("{SITUATION_PREFIX}{}", ulid::Ulid::new()),
                project: moment.project.clone(),
                event: moment.event.clone(),
                tool: moment.tool_name.clone(),
                text: words.clone(),
                meaning: moment.meaning.clone().unwrap_or_default(),
                shape: command_shape(moment),
                created_at: now.clone(),
                last_seen: now.clone(),
                seen: 1,
            };
            w.keep_situation(&s, vector)?;
            Some(s)
        }
    };
    let situation_id = situation.as_ref().map(|s| s.id.clone()).unwrap_or_default();
    // Which side the moment's situation leaned to before: a judgement it already had (a second
    // `used` on the same moment) moves its link on, but is not a second outcome of the lesson.
    let leaned = match &situation {
        Some(_) => d.store().get_edge(&situation_id, &lesson.id, EdgeKind::Applies.as_str())?.and_then(|e| crate::retrieval::situations::leans(e.strength)),
        None => None,
    };
    let judged_before = leaned == Some(applies) || (applies && j.counted == Some(true));
    // The moment's own link: a verb takes its side; an outcome moves toward it.
    let own = |old: Option<f64>| if j.tier == Tier::Outcome { graph::nudge(old, applies, step) } else { graph::judge(old, applies, step) };

    // The path that said the lesson there moves with the judgement; then the moment's own link.
    let said = moment.advised.iter().find(|a| a.id == lesson.id);
    let mut moved = Vec::new();
    for pair in said.map_or(&[][..], |a| a.path.as_slice()).windows(2) {
        let (from, to) = (&pair[0], &pair[1]);
        let kind = if from.starts_with(SITUATION_PREFIX) {
            // A situation evicted since is not brought back as a bare edge.
            if w.situation(from)?.is_none() {
                continue;
            }
            EdgeKind::Applies
        } else {
            match d.store().edges_from(from)?.into_iter().find(|e| &e.target == to) {
                Some(e) => e.kind,
                None => continue,
            }
        };
        let Some(old) = d.store().get_edge(from, to, kind.as_str())? else { continue };
        // Another situation's side is its own judgement, which one judgement on a merely
        // similar moment must not reverse (the moment's own link takes this judgement's side).
        // So is the moment's link to another lesson the path went through: a judgement of B,
        // reached by [situation, A, B], is not one of A.
        let strength = if *from == situation_id && *to == lesson.id {
            own(Some(old.strength))
        } else if kind == EdgeKind::Applies {
            graph::lean_less(Some(old.strength), applies, step)
        } else {
            graph::step(old.strength, if applies { step } else { -step })
        };
        let old = Some(old);
        let edge = set_edge(&w, old.as_ref(), from, to, kind, strength, &now)?;
        changes.edge(j.tier, &edge, old.map(|e| e.strength));
        moved.push((from.clone(), to.clone()));
    }
    if situation.is_some() && !moved.contains(&(situation_id.clone(), lesson.id.clone())) {
        let old = d.store().get_edge(&situation_id, &lesson.id, EdgeKind::Applies.as_str())?;
        if makes_links || old.is_some() {
            let strength = own(old.as_ref().map(|e| e.strength));
            let edge = set_edge(&w, old.as_ref(), &situation_id, &lesson.id, EdgeKind::Applies, strength, &now)?;
            changes.edge(j.tier, &edge, old.map(|e| e.strength));
        }
    }
    if let Some(helpful) = j.counts.filter(|_| !(j.tier == Tier::Deliberate && judged_before)) {
        let mut m = w.get(&lesson.id)?.ok_or_else(|| Error::NotFound(lesson.id.clone()))?;
        count_outcome(&mut m, helpful, j.tier, &mut changes);
        w.put(&m, &Prepared::default())?;
    } else if j.counted.is_some() && !applies && (leaned == Some(true) || j.counted == Some(true)) {
        // `not-relevant` where a `used` had counted a helpful outcome: the user changed their
        // mind about this moment, so that outcome is taken back (used, not-relevant, used counts
        // one, not two).
        let mut m = w.get(&lesson.id)?.ok_or_else(|| Error::NotFound(lesson.id.clone()))?;
        uncount_helpful(&mut m, &mut changes);
        w.put(&m, &Prepared::default())?;
    }
    bound(d, t, &w, &lesson.id, &moment.project, &mut changes)?;
    let lines = changes.write(&w, t.learning.max_adjustments)?;
    Ok((situation.map(|s| s.id), said.is_some(), lines))
}

/// Stores an edge at `strength`, keeping when it was made.
pub(super) fn set_edge(w: &Writer<'_>, old: Option<&Edge>, source: &str, target: &str, kind: EdgeKind, strength: f64, now: &str) -> Result<Edge> {
    let edge = Edge {
        source: source.into(),
        target: target.into(),
        kind,
        strength: graph::clamp(strength),
        created_at: old.map_or_else(|| now.to_string(), |e| e.created_at.clone()),
        updated_at: now.to_string(),
    };
    w.link(&edge)?;
    Ok(edge)
}

/// Keeps the lesson's situations and the project's within their bounds: past them, the link
/// (for a lesson) or the situation (for a project) unused longest goes.
/// Keeps a lesson's situations and the project's within their bounds, the least recently seen
/// going first; each link taken out is a line of the adjustment log.
fn bound(d: &Daemon, t: &Tuneables, w: &Writer<'_>, lesson: &str, project: &str, changes: &mut Changes) -> Result<()> {
    // A lesson's links in this project only: one project's feedback never evicts what another
    // project learned about a `global` lesson.
    let mut mine: Vec<(String, Edge)> = Vec::new();
    for e in d.store().edges_to(lesson)?.into_iter().filter(|e| e.kind == EdgeKind::Applies) {
        if let Some(s) = w.situation(&e.source)?.filter(|s| s.project == project) {
            mine.push((s.last_seen, e));
        }
    }
    if mine.len() > t.learning.max_situations_per_lesson {
        mine.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.source.cmp(&b.1.source)));
        let over = mine.len() - t.learning.max_situations_per_lesson;
        for (_, e) in mine.iter().take(over) {
            w.unlink(&e.source, &e.target, EdgeKind::Applies)?;
            changes.removed(e, &format!("evicted: the lesson keeps at most {} situations in a project (learning.max_situations_per_lesson)", t.learning.max_situations_per_lesson));
            drop_if_unlinked(d, w, &e.source)?;
        }
    }
    if d.memories().situations().in_project(project) > t.learning.max_situations_per_project {
        let mut mine: Vec<Situation> = d.store().all_situations().filter_map(|s| s.ok()).filter(|s| s.project == project).collect();
        mine.sort_by(|a, b| a.last_seen.cmp(&b.last_seen).then_with(|| a.id.cmp(&b.id)));
        let over = mine.len().saturating_sub(t.learning.max_situations_per_project);
        for s in mine.iter().take(over) {
            let edges = d.store().edges_from(&s.id)?;
            w.drop_situation(&s.id)?;
            for e in &edges {
                changes.removed(e, &format!("evicted with its situation: a project keeps at most {} (learning.max_situations_per_project)", t.learning.max_situations_per_project));
            }
        }
    }
    Ok(())
}

/// Drops a situation linked to nothing any more: it would only take room.
pub(super) fn drop_if_unlinked(d: &Daemon, w: &Writer<'_>, situation: &str) -> Result<()> {
    if d.store().edges_from(situation)?.is_empty() {
        w.drop_situation(situation)?;
    }
    Ok(())
}

/// Whether the session log has `id` said after `when`. The hook logs a saying at once, and the
/// outcome worker counts it in `times_surfaced` a moment later: a `not-useful` right after the
/// hook's answer, or one after the count caught up, reads the same in the log.
fn said_after(d: &Daemon, id: &str, when: &str) -> Result<bool> {
    let Some(since_ms) = attribution::millis(when) else { return Ok(true) };
    Ok(!d.store().events_since(since_ms.max(1) as u64, 1, |e| e.at.as_str() > when && e.advised.iter().any(|a| a.id == id))?.is_empty())
}

/// `not-useful`: the lesson's node weight drops, and it counts as an unhelpful outcome.
fn not_useful(d: &Daemon, t: &Tuneables, id: &str) -> Result<FeedbackReport> {
    let w = d.memories().writer();
    let mut m = w.get(id)?.ok_or_else(|| Error::NotFound(id.to_string()))?;
    // Said since the last `not-useful`: by the log's time when it was kept, else by the count.
    // The log is read first (the count lags a saying by the outcome worker's pass); a saying
    // the log has retired since is still the lesson's last saying, kept with the saying's own
    // time (so a saying counted late is no newer than it was).
    let said_since = match m.worth.not_useful_when.as_deref() {
        Some(when) => said_after(d, id, when)? || m.worth.last_said.as_deref().is_some_and(|last| last > when),
        None => m.worth.not_useful_at != Some(m.worth.times_surfaced),
    };
    if !said_since {
        let note = format!("nothing changed: {id} was marked not useful already and has not been said since (`cairn mute {id}` keeps it out of advice, `cairn forget {id}` removes it)");
        return Ok(FeedbackReport { memory: id.to_string(), moment: None, said_there: false, situation: None, changes: Vec::new(), note: Some(note) });
    }
    m.worth.not_useful_at = Some(m.worth.times_surfaced);
    m.worth.not_useful_when = Some(clock::now());
    let mut changes = Changes::new(format!("not-useful on {id}"));
    let old = m.node_weight;
    m.node_weight = (old - t.learning.node_step).clamp(Edge::MIN_STRENGTH, 1.0);
    changes.node(Tier::Deliberate, id, "node_weight", old, m.node_weight);
    count_outcome(&mut m, false, Tier::Deliberate, &mut changes);
    w.put(&m, &Prepared::default())?;
    let lines = changes.write(&w, t.learning.max_adjustments)?;
    Ok(FeedbackReport { memory: id.to_string(), moment: None, said_there: false, situation: None, changes: lines, note: None })
}

/// `graph link`: sets an edge outright (the manual tier). Both ends must exist; a situation's
/// link may only reach a lesson of its project or `global`.
pub async fn link(d: &Daemon, req: GraphLink) -> Result<Vec<String>> {
    let t = d.tuneables();
    let kind = match req.kind.as_deref() {
        None => EdgeKind::Manual,
        Some(k) => EdgeKind::parse(k).ok_or_else(|| Error::Invalid(format!("unknown edge kind {k:?}: applies, co_used, manual, caused_by, depends_on, similar")))?,
    };
    if !req.strength.is_finite() || !(0.0..=1.0).contains(&req.strength) {
        return Err(Error::Invalid(format!("strength {} is not between 0 and 1 (it is kept within [{}, {}])", req.strength, Edge::MIN_STRENGTH, Edge::MAX_STRENGTH)));
    }
    let lines = tokio::task::block_in_place(|| {
        let w = d.memories().writer();
        match edge_refusal(&w, &req.source, &req.target, kind)? {
            Some(Refusal::Invalid(why)) => return Err(Error::Invalid(why)),
            Some(Refusal::Missing(id)) => return Err(Error::NotFound(id)),
            None => {}
        }
        let old = d.store().get_edge(&req.source, &req.target, kind.as_str())?;
        let mut changes = Changes::new(format!("graph link {} {} {}", req.source, req.target, req.strength));
        let edge = set_edge(&w, old.as_ref(), &req.source, &req.target, kind, req.strength, &clock::now())?;
        changes.edge(Tier::Manual, &edge, old.map(|e| e.strength));
        changes.write(&w, t.learning.max_adjustments)
    })?;
    d.store().durable().await?;
    Ok(lines)
}

/// Why an edge may not be kept.
pub(super) enum Refusal {
    /// An end that is not there (a memory, or the lesson a situation links to).
    Missing(String),
    Invalid(String),
}

/// Why an edge from `source` to `target` of `kind` may not be kept, if it may not: the rules
/// `graph link` and `import` share (feedback makes only edges that keep them). Two different
/// ends; from a situation there is, `applies` only, to a lesson of its project or `global`;
/// between lessons there are, any kind but `applies`.
pub(super) fn edge_refusal(w: &Writer<'_>, source: &str, target: &str, kind: EdgeKind) -> Result<Option<Refusal>> {
    if source == target {
        return Ok(Some(Refusal::Invalid(format!("an edge needs two different ends ({source} -> itself)"))));
    }
    if source.starts_with(SITUATION_PREFIX) {
        if kind != EdgeKind::Applies {
            return Ok(Some(Refusal::Invalid(format!("a situation ({source}) links to a lesson with `applies` only, not `{}`", kind.as_str()))));
        }
        let Some(s) = w.situation(source)? else {
            return Ok(Some(Refusal::Invalid(format!("`applies` edge from {source}, which is not a situation here (situation lines come before edges)"))));
        };
        let Some(lesson) = w.get(target)? else { return Ok(Some(Refusal::Missing(target.to_string()))) };
        if lesson.project != s.project && lesson.project != GLOBAL_PROJECT {
            return Ok(Some(Refusal::Invalid(format!("situation {} of project {} may not link to {} of project {}: only to its own project's lessons or global ones", s.id, s.project, lesson.id, lesson.project))));
        }
        return Ok(None);
    }
    if kind == EdgeKind::Applies {
        return Ok(Some(Refusal::Invalid(format!("`applies` edge from {source}, which is not a situation here: between lessons use manual, co_used, ..."))));
    }
    if target.starts_with(SITUATION_PREFIX) {
        return Ok(Some(Refusal::Invalid(format!("a {} edge to {target}, a situation: only situations link to lessons", kind.as_str()))));
    }
    let mut projects = Vec::new();
    for end in [source, target] {
        match w.get(end)? {
            Some(m) => projects.push(m.project),
            None => return Ok(Some(Refusal::Missing(end.to_string()))),
        }
    }
    // Activation never crosses from one project's lessons to another's: a link that would carry
    // it there carries nothing, and saying it was made would mislead. (Causes and dependencies
    // may cross.)
    if matches!(kind, EdgeKind::Manual | EdgeKind::CoUsed | EdgeKind::Similar) && projects[0] != projects[1] && !projects.iter().any(|p| p == GLOBAL_PROJECT) {
        return Ok(Some(Refusal::Invalid(format!("{source} (project {}) and {target} (project {}) are lessons of different projects: a `{}` link carries activation only within a project or to global lessons", projects[0], projects[1], kind.as_str()))));
    }
    Ok(None)
}

/// `graph show`: a lesson's edges, with the situation each incoming link comes from.
pub fn show(d: &Daemon, id: &str) -> Result<GraphView> {
    let memory = d.memories().get(id).ok_or_else(|| Error::NotFound(id.to_string()))?;
    let out = d.store().edges_from(id)?;
    let mut into = Vec::new();
    for e in d.store().edges_to(id)? {
        let s = if e.source.starts_with(SITUATION_PREFIX) { d.store().get_situation(&e.source)? } else { None };
        into.push((e, s));
    }
    let muted = d.memories().is_muted(id);
    Ok(GraphView { memory: super::tiers::with_tier(memory), out, into, muted })
}

/// `graph log`: the newest lines, of one memory when asked.
pub fn log(d: &Daemon, q: GraphLogQuery) -> Result<Vec<Value>> {
    let limit = (q.limit as usize).clamp(1, 10_000);
    Ok(match &q.memory {
        // The lines about a memory through the log's index by subject.
        Some(m) => {
            let lines = d.store().adjustments_of(m, limit)?;
            // No line about an id that names nothing is a mistyped id, not a quiet lesson (a
            // forgotten memory's history is still there, and shown).
            if lines.is_empty() && d.memories().get(m).is_none() && d.store().get_situation(m)?.is_none() {
                return Err(Error::NotFound(m.clone()));
            }
            lines
        }
        None => d.store().adjustments(limit, |_| true)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn effectiveness_is_a_beta_posterior_mean() {
        assert_eq!(effectiveness(0, 0), 0.5);
        assert!((effectiveness(1, 0) - 2.0 / 3.0).abs() < 1e-12);
        assert!((effectiveness(0, 1) - 1.0 / 3.0).abs() < 1e-12);
        assert!((effectiveness(3, 1) - 4.0 / 6.0).abs() < 1e-12);
    }
}
