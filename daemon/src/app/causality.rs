//! Causality at work (`temporal::causality` has the rules): the causes and dependencies a new
//! or edited memory records, and `cairn why`, `chain`, `dependents` and `causality stats` over
//! the store.

use std::collections::HashMap;

use cairn_proto::{CausalLink, CausalityQuery, CausalityStats, ChainReport, DependentsReport, Memory, WhyReport, GLOBAL_PROJECT, SITUATION_PREFIX};

use super::daemon::Daemon;
use super::error::{Error, Result};
use super::writer::unix_seconds;
use crate::base::clock;
use crate::temporal::causality::{self, Node, Step};

/// What `id` is now: a memory, a situation, or nothing.
fn node(d: &Daemon, id: &str) -> Node {
    if id.starts_with(SITUATION_PREFIX) {
        return match d.store().get_situation(id) {
            Ok(Some(s)) => Node::Situation { text: s.text },
            _ => Node::Missing,
        };
    }
    match d.memories().get(id) {
        Some(m) => Node::Memory { text: m.text, caused_by: m.why.caused_by },
        None => Node::Missing,
    }
}

fn link(s: Step) -> CausalLink {
    CausalLink { id: s.id, kind: s.kind.to_string(), text: s.text, depth: s.depth }
}

fn linked(d: &Daemon, ids: &[String]) -> Vec<CausalLink> {
    ids.iter().map(|id| link(causality::step(id, 0, &node(d, id)))).collect()
}

/// Checks what a memory says it came from: memories or situations that exist, never itself.
pub fn check_causes(d: &Daemon, own: &str, caused_by: &[String]) -> Result<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    for c in caused_by.iter().map(|c| c.trim()).filter(|c| !c.is_empty()) {
        if c == own {
            return Err(Error::Invalid(format!("{own} cannot be caused by itself")));
        }
        if matches!(node(d, c), Node::Missing) {
            return Err(Error::Failed(format!("--caused-by {c}: no memory or situation has that id")));
        }
        if !out.iter().any(|x| x == c) {
            out.push(c.to_string());
        }
    }
    Ok(out)
}

/// The dependencies of a memory written now in `project`: the memories changed in the hour
/// before (its project's, or with `cross_project` every project's), at most five.
pub fn dependencies_now(d: &Daemon, project: &str, own: &str, cross_project: bool) -> Result<Vec<String>> {
    let now = unix_seconds(&clock::now()) as i64;
    let since = time::OffsetDateTime::from_unix_timestamp(now - causality::DEPENDENCY_WINDOW_S).map(clock::timestamp).unwrap_or_default();
    // The seed pack is loaded, not written: a lesson is never written on top of it.
    let written = |m: &cairn_proto::Memory| m.source != crate::advisor::seeds::SEED_SOURCE;
    let recent: Vec<(String, i64)> = if cross_project {
        let mut v = Vec::new();
        for m in d.store().memories_after(None) {
            let m = m?;
            if m.updated_at.as_str() > since.as_str() && written(&m) {
                v.push((m.id.clone(), unix_seconds(&m.updated_at) as i64));
            }
        }
        v
    } else {
        d.memories().changed_since(project, &since).into_iter().filter_map(|id| d.memories().get(&id)).filter(written).map(|m| (m.id.clone(), unix_seconds(&m.updated_at) as i64)).collect()
    };
    Ok(causality::dependencies(&recent, now, own))
}

/// Which memories name each id in their causes or dependencies (every project).
pub(super) fn children(d: &Daemon) -> Result<HashMap<String, Vec<String>>> {
    let mut out: HashMap<String, Vec<String>> = HashMap::new();
    for m in d.store().memories_after(None) {
        let m = m?;
        for parent in m.why.caused_by.iter().chain(&m.why.dependencies) {
            out.entry(parent.clone()).or_default().push(m.id.clone());
        }
    }
    Ok(out)
}

fn memory(d: &Daemon, id: &str) -> Result<Memory> {
    d.memories().get(id).ok_or_else(|| not_a_memory(d, id))
}

/// Why `id` names no memory: a moment's id (`why` names the moments a lesson came from) is said
/// to be one, with what it was and the lessons it is linked to; anything else is not found.
pub fn not_a_memory(d: &Daemon, id: &str) -> Error {
    let Ok(Some(s)) = d.store().get_situation(id) else { return Error::NotFound(id.to_string()) };
    let lessons: Vec<String> = d.store().edges_from(id).unwrap_or_default().iter().map(|e| {
        let side = if e.kind == cairn_proto::EdgeKind::Applies && e.strength < 0.5 { "not for" } else { e.kind.as_str() };
        format!("{} ({side}, {:.2})", e.target, e.strength)
    }).collect();
    let linked = if lessons.is_empty() { "no lesson".to_string() } else { lessons.join(", ") };
    Error::Failed(format!(
        "{id} is a moment a lesson was linked to, not a memory: '{}' in {}, first {}, seen {} time(s); linked to {linked} (`cairn graph show ID` shows a lesson's moments)",
        s.text, s.project, s.created_at, s.seen
    ))
}

/// `cairn why`: what a memory records of its reasons, its causes and dependencies as they are
/// now, and the reasoning in words.
pub fn why(d: &Daemon, id: &str) -> Result<WhyReport> {
    let m = memory(d, id)?;
    let caused_by = linked(d, &m.why.caused_by);
    let dependencies = linked(d, &m.why.dependencies);
    let dependents = causality::dependents(id, &children(d)?, |x| node(d, x)).len();
    let mut story = Vec::new();
    story.push(format!("{} ({}, {}): {}", m.id, m.category, m.project, m.text));
    match &m.why.action_type {
        Some(t) => story.push(format!("recorded as {t}, {}", m.created_at)),
        None => story.push(format!("written {} (no action type recorded)", m.created_at)),
    }
    if let Some(r) = &m.why.rationale {
        story.push(format!("because: {r}"));
    }
    if let Some(c) = &m.capture {
        story.push(format!("captured from {}{}", c.from, c.promoted.as_ref().map_or(" (a candidate)".to_string(), |p| format!(", promoted {} by {}", p.at, p.by))));
    }
    for l in &caused_by {
        story.push(match l.kind.as_str() {
            "missing" => format!("caused by {}, which no longer exists", l.id),
            kind => format!("caused by {kind} {}: {}", l.id, l.text),
        });
    }
    if !dependencies.is_empty() {
        story.push(format!("written on top of {} lesson(s) of the hour before: {}", dependencies.len(), dependencies.iter().map(|l| l.id.as_str()).collect::<Vec<_>>().join(", ")));
    }
    let (steps, _) = causality::chain(id, |x| node(d, x));
    if steps.len() > 1 {
        story.push(format!("root of its chain: {} ({} link(s) up)", steps[0].id, steps.len() - 1));
    }
    if dependents > 0 {
        story.push(format!("{dependents} memory(ies) descend from it (`cairn dependents {id}`)"));
    }
    Ok(WhyReport { memory: m, caused_by, dependencies, dependents, story })
}

/// `cairn chain`: root first.
pub fn chain(d: &Daemon, id: &str) -> Result<ChainReport> {
    memory(d, id)?;
    let (steps, notes) = causality::chain(id, |x| node(d, x));
    Ok(ChainReport { chain: steps.into_iter().map(link).collect(), notes })
}

/// `cairn dependents`: every descendant, across projects.
pub fn dependents(d: &Daemon, id: &str) -> Result<DependentsReport> {
    memory(d, id)?;
    let found = causality::dependents(id, &children(d)?, |x| node(d, x));
    Ok(DependentsReport { root: id.to_string(), dependents: found.into_iter().map(link).collect() })
}

/// `cairn causality stats`: of the project (and `global`), or of every project.
pub fn stats(d: &Daemon, q: CausalityQuery) -> Result<CausalityStats> {
    let project = (!q.all).then(|| d.project_for(&q.scope));
    let mut all = Vec::new();
    for m in d.store().memories_after(None) {
        let m = m?;
        if project.as_deref().is_none_or(|p| m.project == p || m.project == GLOBAL_PROJECT) {
            all.push(m);
        }
    }
    let records: Vec<causality::Record<'_>> =
        all.iter().map(|m| causality::Record { id: &m.id, action_type: m.why.action_type.as_deref(), caused_by: &m.why.caused_by, dependencies: &m.why.dependencies }).collect();
    let s = causality::stats(&records, |id| !matches!(node(d, id), Node::Missing));
    Ok(CausalityStats {
        project,
        memories: s.memories,
        with_cause: s.with_cause,
        with_dependencies: s.with_dependencies,
        roots: s.roots,
        by_action_type: s.by_action_type,
        broken_links: s.broken_links,
        deepest_chain: s.deepest_chain,
    })
}
