//! Capture at work: after the hook has answered, the capture worker reads the sessions the hook
//! noted (a prompt, a failure, a candidate's shadow) and
//! - records each candidate's shadow moments (where it would have been said);
//! - reads corrections and standing instructions from prompts, recoveries from failures, and
//!   failures seen in several sessions (`learning::capture`), each moment once;
//! - passes each text through the quality gate (`learning::gate`): a primitive is dropped, a
//!   text the user rejected before is dropped, a near-duplicate strengthens the lesson it
//!   repeats (its link to the moment, and for a candidate its evidence and the shadow moments of
//!   that session, now confirmed), and the rest becomes a candidate: source `captured`, the gate's
//!   reasons, the moments it rests on as evidence, the moment it corrected as its situation
//!   (`caused_by`);
//! - promotes a candidate the gate called `quality` once `capture.promote_after` of its shadow
//!   moments are confirmed (the same lesson taught again, the failure it names recurring, or the
//!   user's `used` there). `cairn review` lists, accepts, rejects and edits candidates.

use std::sync::Arc;
use std::time::Duration;

use cairn_proto::{
    CandidateView, Capture, Judged, JudgeRequest, Memory, MemoryEdit, Moment, Promotion, Quality, QualityView, ReviewAction, ReviewList, ReviewOutcome, ReviewQuery, Shadow,
    ShadowRecord, GLOBAL_PROJECT,
};

use super::daemon::Daemon;
use super::error::{Error, Result};
use super::feedback::{at_moment, Judgement};
use super::retrieve::{with_retrieval, Patience};
use crate::base::{clock, redact};
use crate::config::Tuneables;
use crate::learning::attribution::{acted, failed, is_result};
use crate::learning::capture::{self, describe, error_gist, recoveries, signature};
use crate::learning::gate::{self, Bars, Verdict};
use crate::learning::{duplicate, heard};
use crate::learning::graph::Tier;
use crate::retrieval::hybrid::Fusion;
use crate::semantic::Prepared;
use crate::store::sessions::SessionEvent;

/// How many of a session's newest events are read.
const SESSION_READ: usize = 400;
/// How long the worker lets events gather before reading a session.
const GATHER: Duration = Duration::from_millis(300);
/// How often sessions waiting on a recovery's window are looked at again.
const TICK: Duration = Duration::from_secs(30);
/// Most moments kept as a candidate's evidence, and as its shadow record.
const MAX_EVIDENCE: usize = 10;
const MAX_SHADOW: usize = 20;
/// The closest lessons the gate compares a candidate with.
const NEAREST: usize = 5;
/// Most calls of a turn a correction is taken to correct (its situations).
const CORRECTED: usize = 3;
/// The source of every captured lesson.
pub const CAPTURED_SOURCE: &str = "captured";

/// Starts the worker.
pub fn spawn(d: &Arc<Daemon>) {
    // Sessions with a failure that may still wait for its recovery: a restart must not lose it.
    let t = d.tuneables();
    if t.capture.enabled {
        super::workers::resume(d, Daemon::captures, t.capture.window_minutes, |e| is_result(e) && failed(e), "capture from the session");
    }
    super::workers::serve(d, Daemon::captures, GATHER, TICK, "capture from the session", |d, session| async move { settle(&d, &session).await });
}

/// The gate's bars from the settings.
fn bars(t: &Tuneables) -> Bars {
    Bars { quality: t.capture.quality_bar, keep: t.capture.keep_bar, duplicate_cosine: t.capture.duplicate_cosine, ..Bars::default() }
}

fn moment_of(e: &SessionEvent) -> Moment {
    let text: String = redact::redact_text(&describe(e)).chars().take(300).collect();
    Moment { at: e.at.clone(), session: e.session_id.clone(), event: e.event.clone(), text }
}

/// A text capture offers to the gate, with what it rests on.
struct Offer<'a> {
    text: String,
    from: &'static str,
    project: &'a str,
    session: &'a str,
    at: &'a str,
    evidence: Vec<Moment>,
    /// The moments the lesson would have helped at (the calls a prompt corrected, the failed
    /// call), oldest first.
    moments: Vec<&'a SessionEvent>,
    /// Moments that already do what the lesson says (a recovery's call that worked): its
    /// situations on the other side, where it need not be said.
    remedies: Vec<&'a SessionEvent>,
    /// How the lesson was heard in a prompt (see `gate::Input::heard`).
    heard: gate::HeardBy,
    /// Lessons kept from the same prompt: another rule said beside this one, never this one
    /// said again (`capture::from_prompt` already keeps one of a rule said twice).
    siblings: &'a [String],
}

/// Captures what it can from one session; `true` when nothing is left waiting.
pub async fn settle(d: &Daemon, session: &str) -> Result<bool> {
    let t = d.tuneables();
    if !t.capture.enabled {
        return Ok(true);
    }
    let mut events = d.store().session_events_newest(session, SESSION_READ)?;
    events.reverse();
    let now = clock::now_unix_ms() as i128;
    let mut waiting = false;

    // Shadows first: a capture below may confirm them.
    for e in events.iter().filter(|e| !e.shadow.is_empty()) {
        for (id, p) in &e.shadow {
            if !d.store().capture_seen(&format!("shadow\0{}\0{}\0{}\0{id}", e.session_id, e.at, e.event))? {
                tokio::task::block_in_place(|| shadow(d, id, e, *p))?;
            }
        }
    }

    // Corrections and standing instructions.
    for (i, e) in events.iter().enumerate().filter(|(_, e)| e.event == "UserPromptSubmit") {
        if d.store().capture_seen(&format!("prompt\0{}\0{}", e.session_id, e.at))? {
            continue;
        }
        let prompt = e.payload.get("prompt").and_then(|p| p.as_str()).unwrap_or("");
        // The moments it corrected: the last calls before it in the same turn, in the prompt's
        // project (a session that moved between projects keeps each one's moments its own).
        let mut before: Vec<&SessionEvent> = events[..i].iter().rev().take_while(|x| x.event != "UserPromptSubmit").filter(|x| is_result(x) && x.project == e.project && x.intent.as_deref().is_some_and(|w| !w.trim().is_empty())).take(CORRECTED).collect();
        before.reverse();
        let heard = heard_in(d, prompt).await;
        let by = heard.by();
        let mut kept: Vec<String> = Vec::new();
        for text in heard.lessons {
            let mut evidence = vec![moment_of(e)];
            evidence.extend(before.iter().map(|m| moment_of(m)));
            // The lesson's situations: the calls it speaks of (a word of the lesson in the call:
            // `npm install` before "use pnpm here, not npm"). A standing instruction said after
            // an unrelated call ("always run the linter before committing" after `make build`)
            // keeps that call as evidence only: linked, every later build would be a moment the
            // user taught it for.
            let terms: std::collections::HashSet<String> = crate::base::text::terms(&text).into_iter().collect();
            let spoken_of: Vec<&SessionEvent> = before.iter().copied().filter(|m| crate::base::text::terms(m.intent.as_deref().unwrap_or("")).iter().any(|w| terms.contains(w))).collect();
            if let Some(id) = offer(d, &t, Offer { text, from: "prompt", project: &e.project, session: &e.session_id, at: &e.at, evidence, moments: spoken_of, remedies: Vec::new(), heard: by, siblings: &kept }).await? {
                kept.push(id);
            }
        }
    }

    // Recoveries, and failures left without one.
    let found = recoveries(&events, t.capture.window_calls, t.capture.window_minutes);
    for r in &found {
        let (f, w) = (&events[r.failed], &events[r.worked]);
        if d.store().capture_seen(&format!("recovery\0{}\0{}", f.session_id, f.at))? {
            continue;
        }
        if let Some(sig) = signature(f) {
            d.store().failure_done(&sig, &f.project)?;
        }
        let text = redact::redact_text(&r.text);
        offer(d, &t, Offer { text, from: "recovery", project: &f.project, session: &f.session_id, at: &w.at, evidence: vec![moment_of(f), moment_of(w)], moments: vec![f], remedies: vec![w], heard: gate::HeardBy::Not, siblings: &[] }).await?;
        // A candidate that says this call never got fixed is no longer true.
        retire_never_fixed(d, &f.project, &failed_call(f))?;
    }
    for (i, f) in events.iter().enumerate().filter(|(_, e)| is_result(e) && failed(e)) {
        if found.iter().any(|r| r.failed == i) {
            continue;
        }
        let Some(t0) = crate::learning::attribution::millis(&f.at) else { continue };
        if ((now - t0) as f64) < t.capture.window_minutes * 60_000.0 {
            // A recovery may still come.
            waiting = true;
            continue;
        }
        if d.store().capture_seen(&format!("failure\0{}\0{}", f.session_id, f.at))? {
            continue;
        }
        let Some(sig) = signature(f) else { continue };
        let call = failed_call(f);
        let gist = redact::redact_text(&error_gist(f.payload.get("error").and_then(|v| v.as_str()).unwrap_or("")));
        let record = d.store().note_failure(&sig, &f.project, &moment_of(f), &call, &gist)?;
        if !record.captured && record.sessions.len() >= t.capture.repeated_failure_sessions {
            d.store().failure_done(&sig, &f.project)?;
            let why = if gist.is_empty() { String::new() } else { format!(" ({gist})") };
            // No count in the text: the failure goes on after the lesson is made, and a count
            // written once would go stale.
            let text = format!("In this project, {}{why}: seen in more than one session, never fixed in one. Find the cause before running it again.", keeps_failing(&call));
            // Its evidence: a moment of each session it failed in.
            let mut evidence = record.moments.clone();
            if !evidence.iter().any(|m| m.session == f.session_id) {
                evidence.push(moment_of(f));
            }
            offer(d, &t, Offer { text, from: "failure", project: &f.project, session: &f.session_id, at: &f.at, evidence, moments: vec![f], remedies: Vec::new(), heard: gate::HeardBy::Not, siblings: &[] }).await?;
        }
    }
    d.store().durable().await?;
    Ok(!waiting)
}

/// A failed call as a lesson names it: redacted, on one line, at most 80 characters.
fn failed_call(f: &SessionEvent) -> String {
    redact::redact_text(&acted(f)).split_whitespace().collect::<Vec<_>>().join(" ").chars().take(80).collect()
}

/// How a repeated failure's lesson names its call: written by `settle`, looked for by
/// [`retire_never_fixed`].
fn keeps_failing(call: &str) -> String {
    format!("`{call}` keeps failing")
}

/// Removes the candidates of `project` captured from failures that say `call` keeps failing,
/// never fixed: a recovery has just fixed it. A promoted lesson is the user's, and stays.
fn retire_never_fixed(d: &Daemon, project: &str, call: &str) -> Result<()> {
    let says = keeps_failing(call);
    let stale: Vec<String> = d.memories().candidates().iter().filter_map(|id| d.memories().get(id)).filter(|m| m.is_candidate() && m.project == project && m.capture.as_ref().is_some_and(|c| c.from == "failure") && m.text.contains(&says)).map(|m| m.id).collect();
    for id in stale {
        tracing::info!(%id, call, "a recovery fixed what a candidate said never got fixed; the candidate goes");
        tokio::task::block_in_place(|| d.memories().writer().remove(&id))?;
    }
    Ok(())
}

/// What a prompt teaches, and how the prompt model read it.
struct Heard {
    lessons: Vec<String>,
    /// The prompt model's reading, when it took part.
    reading: Option<heard::Reading>,
    /// Why the sentence the model rated highest is no lesson after all, when it is not.
    refused: Option<&'static str>,
}

impl Heard {
    /// How its lessons were heard: by the model when it read the prompt, else by the patterns.
    fn by(&self) -> gate::HeardBy {
        match &self.reading {
            Some(r) => gate::HeardBy::Model(r.probability),
            None if !self.lessons.is_empty() => gate::HeardBy::Patterns,
            None => gate::HeardBy::Not,
        }
    }
}

/// What a prompt teaches: what capture's patterns hear in it; else, with the embedding model
/// loaded (the one the prompt model was fitted under), the sentence the prompt model rates
/// highest when it reads the prompt as stating a lesson and none of the reasons for "no lesson"
/// in `capture::not_a_lesson` holds for that sentence.
async fn heard_in(d: &Daemon, prompt: &str) -> Heard {
    let prompt = &heard::without_escapes(&heard::without_cut_marks(prompt));
    let found = capture::from_prompt(prompt);
    if !found.is_empty() || prompt.trim().is_empty() {
        return Heard { lessons: found, reading: None, refused: None };
    }
    let nothing = || Heard { lessons: Vec::new(), reading: None, refused: None };
    let model = heard::builtin();
    let Some(embedder) = d.embedder_ready().await.filter(|e| model.fits(&e.facts().fingerprint)) else { return nothing() };
    let sentences = heard::sentences(prompt);
    let whole = heard::prompt_text(prompt);
    // Each distinct text embedded once: a prompt of one sentence is that sentence.
    let mut refs: Vec<&str> = vec![whole.as_str()];
    let at: Vec<usize> = sentences
        .iter()
        .map(|s| {
            refs.iter().position(|r| *r == s.as_str()).unwrap_or_else(|| {
                refs.push(s.as_str());
                refs.len() - 1
            })
        })
        .collect();
    let vectors = match tokio::task::block_in_place(|| embedder.embed(&refs)) {
        Ok(v) if v.len() == refs.len() => v,
        Ok(_) => return nothing(),
        Err(e) => {
            tracing::warn!(error = %e, "cannot embed a prompt; its patterns alone decide");
            return nothing();
        }
    };
    let per_sentence: Vec<Vec<f32>> = at.iter().map(|&i| vectors[i].clone()).collect();
    let reading = model.read(&vectors[0], &per_sentence);
    tracing::debug!(probability = reading.probability, states = reading.states_lesson, "prompt read by the prompt model");
    let (lessons, refused) = match (reading.states_lesson, reading.best) {
        (true, Some(best)) if sentences.get(best).is_some_and(|s| capture::in_paste(prompt, s)) => (Vec::new(), Some("pasted output")),
        (true, Some(best)) => match capture::not_a_lesson(&sentences, best) {
            None => (capture::lesson_of(&sentences, best).into_iter().collect(), None),
            refused => (Vec::new(), refused),
        },
        _ => (Vec::new(), None),
    };
    Heard { lessons, reading: Some(reading), refused }
}

/// The lessons closest to `text` in `project` (and `global`), but those `besides` (the lesson
/// itself, or others said beside it): id, text, cosine.
fn nearest(d: &Daemon, t: &Tuneables, text: &str, project: &str, besides: &[&str]) -> Vec<(String, String, Option<f64>)> {
    let projects: Vec<&str> = if project == GLOBAL_PROJECT { vec![GLOBAL_PROJECT] } else { vec![project, GLOBAL_PROJECT] };
    let hits = with_retrieval(d, t, text, Patience::Human, Fusion::from_settings(&t.retrieval), None, |r| r.hybrid(text, &projects, NEAREST * 4));
    // The seed pack's lessons are general; what the user says in their project is their own,
    // however close to one ("whenever you change the schema, run `make migrate` too" beside the
    // seed on backing up before migrations): it is never taken for a seed said again.
    hits.into_iter()
        .filter(|h| !besides.contains(&h.id.as_str()))
        .filter_map(|h| d.memories().get(&h.id).filter(|m| m.source != crate::advisor::seeds::SEED_SOURCE).map(|m| (m.id, m.text, h.cosine)))
        .take(NEAREST)
        .collect()
}

/// The gate's judgement of a lesson imported from the user's own files (`claude-md`), against
/// the other lessons of its project: its scores, its verdict, and the verdict's reason.
pub async fn judge_import(d: &Daemon, t: &Tuneables, text: &str, source: &str, project: &str, id: &str) -> (Quality, String, String) {
    let j = judge_against(d, t, text, source, project, &[id], gate::HeardBy::Not).await;
    (quality_of(&j), j.verdict.as_str().to_string(), j.reasons.last().cloned().unwrap_or_default())
}

/// The gate's judgement of `text` against the lessons of `project`, but those `besides`.
async fn judge_against(d: &Daemon, t: &Tuneables, text: &str, from: &str, project: &str, besides: &[&str], heard: gate::HeardBy) -> gate::Judgement {
    let embedder = d.embedder_ready().await;
    let near = tokio::task::block_in_place(|| nearest(d, t, text, project, besides));
    let input = gate::Input { text, source: from, nearest: near.iter().map(|(id, text, c)| (id.as_str(), text.as_str(), *c)).collect(), heard };
    let duplicates = Some(duplicate::builtin()).filter(|m| embedder.as_ref().is_some_and(|e| m.fits(&e.facts().fingerprint)));
    gate::judge(&input, &Bars { duplicates, ..bars(t) })
}

/// A lowercase category from the lesson's words.
fn category_of(text: &str, from: &str) -> &'static str {
    let words: Vec<String> = text.to_lowercase().split(|c: char| !c.is_alphanumeric() && c != '-').map(str::to_string).collect();
    let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
    if has(&["secret", "secrets", "token", "tokens", "password", "credential", "credentials", "env", "apikey", "key", "keys"]) {
        "security"
    } else if has(&["git", "branch", "push", "commit", "rebase", "merge", "force-push", "main", "master", "pr"]) {
        "git"
    } else if has(&["test", "tests", "pytest", "jest", "vitest", "mock", "mocks", "fixture", "fixtures", "coverage"]) {
        "testing"
    } else if has(&["npm", "pnpm", "yarn", "pip", "poetry", "uv", "cargo", "install", "lockfile", "dependency", "dependencies", "package", "packages"]) {
        "dependencies"
    } else if has(&["sql", "migration", "migrations", "db", "database", "postgres", "schema", "table", "column"]) {
        "database"
    } else if has(&["deploy", "prod", "production", "staging", "release", "kubectl", "k8s", "terraform", "helm", "docker"]) {
        "deployment"
    } else if from == "prompt" {
        "preference"
    } else {
        "tooling"
    }
}

fn quality_of(j: &gate::Judgement) -> Quality {
    Quality { actionability: j.actionability, novelty: j.novelty, reasoning: j.reasoning, specificity: j.specificity, outcome_linked: j.outcome_linked }
}

/// Passes a captured text through the gate and keeps what it says to keep; the id of the
/// candidate it made, if it made one.
async fn offer(d: &Daemon, t: &Tuneables, o: Offer<'_>) -> Result<Option<String>> {
    if rejected(d, o.project, &o.text)? {
        d.turned_away(1);
        return Ok(None);
    }
    let siblings: Vec<&str> = o.siblings.iter().map(String::as_str).collect();
    let j = judge_against(d, t, &o.text, o.from, o.project, &siblings, o.heard).await;
    tracing::debug!(text = %o.text, verdict = j.verdict.as_str(), score = j.score, "captured");
    match j.verdict {
        Verdict::Primitive => {
            d.turned_away(1);
        }
        Verdict::Duplicate => {
            d.turned_away(1);
            let id = j.duplicate_of.clone().unwrap_or_default();
            strengthen(d, t, &id, &o).await?;
        }
        Verdict::Quality | Verdict::NeedsWork => {
            let context: String = format!("captured from {}: {}", o.from, o.evidence.first().map_or("", |m| m.text.as_str())).chars().take(300).collect();
            let mut m = crate::exchange::new_memory(ulid::Ulid::new().to_string(), o.project.to_string(), o.text.clone(), category_of(&o.text, o.from).into(), CAPTURED_SOURCE.into(), Vec::new(), context);
            m.capture = Some(Capture { from: o.from.into(), verdict: j.verdict.as_str().into(), reasons: j.reasons.clone(), evidence: o.evidence.clone(), shadow: Vec::new(), promoted: None });
            m.worth.quality = Some(quality_of(&j));
            m.worth.verdict = Some(j.verdict.as_str().into());
            m.why.action_type = Some(if o.from == "prompt" { "conversation" } else { "tool_use" }.into());
            m.why.rationale = o.evidence.first().map(|e| e.text.clone());
            // The moments it corrected become its situations, and what caused it: linked first,
            // so the candidate is seen (and kept) whole, with its causes, or not at all. A crash
            // in between leaves links to a lesson that does not exist, which nothing follows.
            // A moment that cannot be linked (its embedding failed) costs the candidate its
            // causes, never the candidate itself.
            m.why.caused_by = match link_at(d, t, &m, &o.moments, true, &[], &format!("captured {} from {}", m.id, o.from)).await {
                Ok(caused_by) => caused_by,
                Err(e) => {
                    tracing::warn!(error = %e, id = %m.id, "captured lesson kept without its moments");
                    Vec::new()
                }
            };
            // The call that worked is a situation too, on the other side: a moment like it
            // already does what the lesson says. Not when it is the failed call's own situation
            // (a near-identical moment), whose side it would turn.
            if let Err(e) = link_at(d, t, &m, &o.remedies, false, &m.why.caused_by, &format!("captured {} from {}: the call that worked", m.id, o.from)).await {
                tracing::warn!(error = %e, id = %m.id, "captured lesson kept without the moment that worked");
            }
            super::memories::save(d, &m).await?;
            return Ok(Some(m.id));
        }
    }
    Ok(None)
}

/// Whether the user rejected `text` in `project`: in these words, or in others that say the same
/// ([`capture::says_the_same`]).
fn rejected(d: &Daemon, project: &str, text: &str) -> Result<bool> {
    Ok(d.store().is_rejected(project, text)? || d.store().rejected_texts()?.iter().any(|(p, r)| p.as_deref().is_none_or(|p| p == project) && capture::says_the_same(&r.text, text)))
}

/// Links each moment's situation (found or made) to `lesson`, a deliberate step, as the
/// capture's evidence taught it: as one it applies to, or (`applies` false) one it is not for,
/// leaving alone a situation of `keep` (the lesson's own, whose side it would turn). Returns
/// the situations linked, each once.
async fn link_at(d: &Daemon, t: &Tuneables, lesson: &Memory, moments: &[&SessionEvent], applies: bool, keep: &[String], reason: &str) -> Result<Vec<String>> {
    let mut situations: Vec<String> = Vec::new();
    for moment in moments {
        let vector = super::feedback::embed_moment(d, moment).await?;
        let v = vector.as_ref().map(|(f, v)| (f.as_str(), v.as_slice()));
        if !keep.is_empty() {
            let words = moment.intent.clone().unwrap_or_default();
            let same = d.memories().situations().same(&crate::retrieval::situations::Moment::new(&moment.project, &words, v), t.learning.same_situation).map(|(id, _)| id);
            if same.is_some_and(|id| keep.contains(&id)) {
                continue;
            }
        }
        let judgement = Judgement { applies, tier: Tier::Deliberate, step: t.learning.step_deliberate, reason: reason.to_string(), counts: None, counted: None };
        let (situation, _, _) = tokio::task::block_in_place(|| at_moment(d, t, lesson, moment, v, &judgement))?;
        situations.extend(situation.filter(|s| !situations.contains(s)));
    }
    Ok(situations)
}

/// A near-duplicate capture strengthens the lesson it repeats: the moment's link to it, and for
/// a candidate its evidence and the shadow moments of this session before the capture.
async fn strengthen(d: &Daemon, t: &Tuneables, id: &str, o: &Offer<'_>) -> Result<()> {
    let Some(lesson) = d.memories().get(id) else { return Ok(()) };
    let moments: Vec<&SessionEvent> = o.moments.iter().copied().filter(|m| lesson.project == m.project || lesson.project == GLOBAL_PROJECT).collect();
    link_at(d, t, &lesson, &moments, true, &[], &format!("{id} captured again from {}", o.from)).await?;
    if !lesson.is_candidate() {
        return Ok(());
    }
    let by = match o.from {
        "prompt" => "the same lesson taught again",
        "recovery" => "the same failure recovered from again",
        _ => "the same failure again",
    };
    tokio::task::block_in_place(|| -> Result<()> {
        let w = d.memories().writer();
        let Some(mut m) = w.get(id)? else { return Ok(()) };
        let Some(c) = m.capture.as_mut() else { return Ok(()) };
        for e in &o.evidence {
            if !c.evidence.iter().any(|x| x.at == e.at && x.session == e.session) {
                c.evidence.push(e.clone());
            }
        }
        let over = c.evidence.len().saturating_sub(MAX_EVIDENCE);
        c.evidence.drain(..over);
        for s in c.shadow.iter_mut().filter(|s| s.session == o.session && s.at.as_str() < o.at && s.confirmed.is_none()) {
            s.confirmed = Some(true);
            s.by = Some(by.into());
        }
        capture::promote_if_due(&mut m, t.capture.promote_after, &clock::now());
        m.updated_at = clock::now();
        w.put(&m, &Prepared::default())?;
        Ok(())
    })
}

/// Records that candidate `id` would have been said at `e`.
fn shadow(d: &Daemon, id: &str, e: &SessionEvent, p: f64) -> Result<()> {
    let w = d.memories().writer();
    let Some(mut m) = w.get(id)? else { return Ok(()) };
    if !m.is_candidate() {
        return Ok(());
    }
    let Some(c) = m.capture.as_mut() else { return Ok(()) };
    // One tool call is one moment: its PreToolUse and PostToolUse share a `tool_use_id`.
    if c.shadow.iter().any(|s| s.session == e.session_id && ((s.at == e.at && s.event == e.event) || (e.tool_use_id.is_some() && s.tool_use_id == e.tool_use_id))) {
        return Ok(());
    }
    c.shadow.push(Shadow { at: e.at.clone(), session: e.session_id.clone(), event: e.event.clone(), tool_use_id: e.tool_use_id.clone(), probability: p, confirmed: None, by: None });
    if c.shadow.len() > MAX_SHADOW {
        // The oldest moment nothing was told of goes first; confirmed ones are the record.
        let i = c.shadow.iter().position(|s| s.confirmed.is_none()).unwrap_or(0);
        c.shadow.remove(i);
    }
    w.put(&m, &Prepared::default())?;
    Ok(())
}

fn view(m: &Memory, t: &Tuneables) -> CandidateView {
    let c = m.capture.clone().unwrap_or_default();
    let q = m.worth.quality.clone().unwrap_or_default();
    let score = gate::score([q.actionability, q.specificity, q.reasoning, q.novelty, q.outcome_linked]);
    let moments = c
        .shadow
        .iter()
        .rev()
        .map(|s| {
            let told = match (s.confirmed, &s.by) {
                (Some(true), Some(by)) => format!("confirmed: {by}"),
                (Some(false), Some(by)) => format!("wrong: {by}"),
                _ => "nothing told yet".into(),
            };
            format!("{} {} in session {} (p {:.2}): {told}", s.at, s.event, s.session, s.probability)
        })
        .collect();
    CandidateView {
        id: m.id.clone(),
        text: m.text.clone(),
        project: m.project.clone(),
        source: c.from.clone(),
        created_at: m.created_at.clone(),
        evidence: c.evidence.iter().map(|e| format!("{} {}", e.at, e.text)).collect(),
        shadow: ShadowRecord {
            would_have_spoken: c.shadow.len(),
            confirmed: c.confirmed(),
            shown_wrong: c.shadow.iter().filter(|s| s.confirmed == Some(false)).count(),
            promotes_at: if c.verdict == Verdict::Quality.as_str() { t.capture.promote_after } else { 0 },
            moments,
        },
        quality: QualityView {
            verdict: c.verdict.clone(),
            score,
            actionability: q.actionability,
            specificity: q.specificity,
            reasoning: q.reasoning,
            novelty: q.novelty,
            outcome_linked: q.outcome_linked,
            reasons: c.reasons.clone(),
            duplicate_of: None,
        },
    }
}

/// `cairn review`: the candidates of the project (and `global`), or of every project.
pub fn review(d: &Daemon, q: ReviewQuery) -> Result<ReviewList> {
    let t = d.tuneables();
    let project = d.project_for(&q.scope);
    let (mut found, others): (Vec<Memory>, Vec<Memory>) =
        d.memories().candidates().iter().filter_map(|id| d.memories().get(id)).filter(|m| m.is_candidate()).partition(|m| q.all || m.project == project || m.project == GLOBAL_PROJECT);
    found.sort_by(|a, b| b.created_at.cmp(&a.created_at).then_with(|| a.id.cmp(&b.id)));
    let counts = counts(d, (!q.all).then_some(project.as_str()));
    Ok(ReviewList { candidates: found.iter().map(|m| view(m, &t)).collect(), elsewhere: others.len() as u64, counts })
}

/// Capture's counts in `project` (its candidates and promoted lessons with the global ones, as
/// review lists them; the rejections made in it), or in every project.
pub fn counts(d: &Daemon, project: Option<&str>) -> cairn_proto::CaptureCounts {
    let (candidates, promoted) = match project {
        Some(p) => d.memories().captured_counts_in(|m| m == p || m == GLOBAL_PROJECT),
        None => d.memories().captured_counts(),
    };
    cairn_proto::CaptureCounts { candidates, promoted, rejected: d.store().rejected_count(project) as u64, turned_away: d.turned_away(0) }
}

fn candidate(d: &Daemon, id: &str) -> Result<Memory> {
    let m = d.memories().get(id).ok_or_else(|| Error::NotFound(id.to_string()))?;
    if m.capture.is_none() {
        return Err(Error::Failed(format!("{id} is not a captured lesson (only candidates are reviewed)")));
    }
    Ok(m)
}

/// `cairn review accept|reject|edit`.
pub async fn act(d: &Daemon, action: ReviewAction) -> Result<ReviewOutcome> {
    let t = d.tuneables();
    match action {
        ReviewAction::Accept { id } => {
            let m = candidate(d, &id)?;
            if !m.is_candidate() {
                return Ok(ReviewOutcome { message: format!("{id} was promoted already"), memory: m });
            }
            let m = tokio::task::block_in_place(|| -> Result<Memory> {
                let w = d.memories().writer();
                let mut m = w.get(&id)?.ok_or_else(|| Error::NotFound(id.clone()))?;
                if let Some(c) = m.capture.as_mut() {
                    c.promoted = Some(Promotion { at: clock::now(), by: "user".into() });
                }
                m.updated_at = clock::now();
                w.put(&m, &Prepared::default())?;
                Ok(m)
            })?;
            d.store().durable().await?;
            Ok(ReviewOutcome { message: format!("accepted {id}: it speaks from now on"), memory: m })
        }
        ReviewAction::Reject { id } => {
            // Rejected twice (a command run again): the first one stands.
            if d.store().get_memory(&id)?.is_none() && let Some(text) = d.store().rejection_of(&id)? {
                return Err(Error::Failed(format!("{id} was rejected already: {text:?} is not captured again")));
            }
            let m = candidate(d, &id)?;
            if !m.is_candidate() {
                return Err(Error::Failed(format!("{id} was promoted already: use `cairn forget {id}` to remove it")));
            }
            tokio::task::block_in_place(|| -> Result<()> {
                let w = d.memories().writer();
                d.store().reject_text(&m.project, &m.text, Some(&id))?;
                // The words it was captured in, if the user edited it first.
                if let Some(first) = d.store().take_edited(&id)? {
                    d.store().reject_text(&m.project, &first, Some(&id))?;
                }
                w.remove(&id)?;
                Ok(())
            })?;
            d.store().durable().await?;
            Ok(ReviewOutcome { message: format!("rejected {id}: removed, and the same text will not be captured again"), memory: m })
        }
        ReviewAction::Edit { id, text } => {
            let m = candidate(d, &id)?;
            // Judged in its new words before they are kept, against the other lessons (its own
            // old words are no duplicate of it). A primitive is never stored, whoever wrote it:
            // `cairn add` keeps a text of the user's own as it is.
            let from = m.capture.as_ref().map_or("prompt", |c| c.from.as_str()).to_string();
            let j = judge_against(d, &t, text.trim(), &from, &m.project, &[id.as_str()], gate::HeardBy::Not).await;
            if j.verdict == Verdict::Primitive {
                let why = j.reasons.iter().rev().find_map(|r| r.strip_prefix("primitive: ")).unwrap_or("too little to act on");
                return Err(Error::Invalid(format!("not edited: the gate finds {:?} primitive ({why}); say what to do and about what, or keep it as your own with `cairn add`", text.trim())));
            }
            if m.is_candidate() {
                d.store().note_edited(&id, &m.text)?;
            }
            super::memories::edit(d, MemoryEdit { id: id.clone(), text: Some(text), ..Default::default() }).await?;
            let m = tokio::task::block_in_place(|| -> Result<Memory> {
                let w = d.memories().writer();
                let mut m = w.get(&id)?.ok_or_else(|| Error::NotFound(id.clone()))?;
                m.worth.quality = Some(quality_of(&j));
                if let Some(c) = m.capture.as_mut() {
                    c.reasons = j.reasons.clone();
                    // What the user wrote is kept (a primitive was refused above); a duplicate of
                    // another lesson waits for the user as needs work.
                    c.verdict = if j.verdict == Verdict::Quality { "quality" } else { "needs_work" }.into();
                }
                w.put(&m, &Prepared::default())?;
                Ok(m)
            })?;
            d.store().durable().await?;
            let state = if m.is_candidate() { "still a candidate (`cairn review accept` promotes it)" } else { "promoted already" };
            Ok(ReviewOutcome { message: format!("edited {id}: {state}; the gate says {}", j.verdict.as_str()), memory: m })
        }
    }
}

fn quality_view(j: &gate::Judgement) -> QualityView {
    QualityView {
        verdict: j.verdict.as_str().into(),
        score: j.score,
        actionability: j.actionability,
        specificity: j.specificity,
        reasoning: j.reasoning,
        novelty: j.novelty,
        outcome_linked: j.outcome_linked,
        reasons: j.reasons.clone(),
        duplicate_of: j.duplicate_of.clone(),
    }
}

/// `cairn review judge`: what capture and the gate make of a text; stores nothing.
pub async fn judge(d: &Daemon, req: JudgeRequest) -> Result<Judged> {
    let text = req.text.trim();
    if text.is_empty() {
        return Err(Error::Invalid("give a text to judge".into()));
    }
    super::retrieve::bounded_query(text)?;
    let t = d.tuneables();
    let project = d.project_for(&req.scope);
    let (captured, subject, by) = if req.prompt {
        let heard = heard_in(d, text).await;
        let by = heard.by();
        match heard.lessons.into_iter().next() {
            Some(lesson) => (Some(lesson.clone()), lesson, by),
            None => {
                let why = match (heard.reading, heard.refused) {
                    (Some(r), _) if !r.states_lesson => format!("the prompt model reads no lesson in it (probability {:.2}, under {:.2})", r.probability, heard::builtin().threshold),
                    (Some(r), Some(reason)) => format!("the prompt model reads a lesson in it (probability {:.2}), but its sentence is {reason}", r.probability),
                    (Some(_), None) => "the prompt model reads a lesson in it, but its sentence is too short to be one".to_string(),
                    (None, _) => capture::why_nothing(text).to_string(),
                };
                return Ok(Judged { captured: None, not_captured: Some(why), quality: None, keep: false });
            }
        }
    } else {
        (None, text.to_string(), gate::HeardBy::Not)
    };
    let from = req.source.as_deref().unwrap_or("prompt");
    let j = judge_against(d, &t, &subject, from, &project, &[], by).await;
    let rejected = rejected(d, &project, &subject)?;
    Ok(Judged { captured, not_captured: rejected.then(|| "rejected before: never captured again".to_string()), keep: j.verdict.keeps() && !rejected, quality: Some(quality_view(&j)) })
}
