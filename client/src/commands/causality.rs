//! `why`, `chain`, `dependents` and `causality stats`: why memories exist and what came of them;
//! `prune` and `archive`: what expired unproven, moved aside and brought back; `predict`: what
//! a project is likely to need next.

use cairn_proto::{ArchiveAction, CausalLink, CausalityQuery, PredictQuery};

use super::{client, ctx, print_json, scope, Failure};
use crate::cli::ProjectArgs;

fn line(l: &CausalLink) -> String {
    match l.kind.as_str() {
        "missing" => format!("{} (no longer exists)", l.id),
        "situation" => format!("{} (a moment): {}", l.id, l.text),
        _ => format!("{}: {}", l.id, l.text),
    }
}

pub async fn why(id: String, json: bool) -> Result<(), Failure> {
    let r = client().await?.why(ctx(), id).await??;
    if json {
        print_json(&r);
        return Ok(());
    }
    for s in &r.story {
        outln!("{s}");
    }
    Ok(())
}

pub async fn chain(id: String, json: bool) -> Result<(), Failure> {
    let r = client().await?.chain(ctx(), id).await??;
    if json {
        print_json(&r);
        return Ok(());
    }
    for l in &r.chain {
        outln!("{}{}", "  ".repeat(l.depth), line(l));
    }
    for n in &r.notes {
        outln!("note: {n}");
    }
    Ok(())
}

pub async fn dependents(id: String, json: bool) -> Result<(), Failure> {
    let r = client().await?.dependents(ctx(), id).await??;
    if json {
        print_json(&r);
        return Ok(());
    }
    if r.dependents.is_empty() {
        outln!("nothing descends from {}", r.root);
    }
    for l in &r.dependents {
        outln!("{}{}", "  ".repeat(l.depth.saturating_sub(1)), line(l));
    }
    Ok(())
}

pub async fn stats(all: bool, json: bool, args: ProjectArgs) -> Result<(), Failure> {
    let s = client().await?.causality_stats(ctx(), CausalityQuery { scope: scope(&args), all }).await??;
    if json {
        print_json(&s);
        return Ok(());
    }
    outln!("{}: {} memories", s.project.as_deref().map_or("every project".to_string(), |p| format!("project {p} (and global)")), s.memories);
    outln!("  with a cause: {}; with dependencies: {}; roots: {}; deepest chain: {} link(s); broken links: {}", s.with_cause, s.with_dependencies, s.roots, s.deepest_chain, s.broken_links);
    for (t, n) in &s.by_action_type {
        outln!("  {t}: {n}");
    }
    Ok(())
}

pub async fn prune(dry_run: bool, json: bool) -> Result<(), Failure> {
    let r = client().await?.prune(ctx(), dry_run).await??;
    if json {
        print_json(&r);
        return Ok(());
    }
    let verb = if r.dry_run { "would move" } else { "moved" };
    outln!("{verb} {} memories to the archive ({})", r.archived.len(), r.archive);
    for a in &r.archived {
        outln!("  {}  ({}, {})  {}: {}", a.id, a.project, a.source, a.text, a.reason);
    }
    Ok(())
}

pub async fn archive(action: ArchiveAction, json: bool) -> Result<(), Failure> {
    let r = client().await?.archive(ctx(), action).await??;
    if json {
        print_json(&r);
        return Ok(());
    }
    outln!("{}", r.message);
    for a in &r.entries {
        outln!("  {}  ({}, {}, archived {})  {}: {}", a.id, a.project, a.source, a.archived_at.as_deref().unwrap_or("?"), a.text, a.reason);
    }
    Ok(())
}

pub async fn predict(refresh: bool, limit: u32, json: bool, args: ProjectArgs) -> Result<(), Failure> {
    let r = client().await?.predict(ctx(), PredictQuery { scope: scope(&args), refresh, limit: Some(limit) }).await??;
    if json {
        print_json(&r);
        return Ok(());
    }
    let w = &r.weights;
    outln!(
        "project {}: {} refreshed; weights temporal {:.2}, causal {:.2}, frequency {:.2} ({})",
        r.project,
        r.refreshed,
        w.first().unwrap_or(&0.0),
        w.get(1).unwrap_or(&0.0),
        w.get(2).unwrap_or(&0.0),
        if r.learned { "learned" } else { "default" }
    );
    for p in &r.items {
        let next = p.next_access.as_deref().map(|n| format!("; next about {n}")).unwrap_or_default();
        outln!("  {:.2}  {}  {}  [{}{next}]", p.score, p.id, p.text, p.reasons.join(", "));
    }
    Ok(())
}
