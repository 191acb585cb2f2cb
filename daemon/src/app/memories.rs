//! The use cases over single memories: `add`, `show`, `edit`, `forget`, `list`. Each write goes
//! through the write path ([`super::writer`]) and is acknowledged once durable.

use cairn_proto::{ListQuery, Memory, MemoryEdit, NewMemory, Page, GLOBAL_PROJECT};

use super::daemon::Daemon;
use super::error::{Error, Result};
use crate::advisor::seeds::SEED_SOURCE;
use crate::exchange;
use crate::temporal::causality;
use crate::semantic::Prepared;

/// Largest page a client may ask for.
const MAX_PAGE: u32 = 5000;

/// Stores a memory, updates the indexes, embeds it, and waits until the write is durable.
pub async fn save(d: &Daemon, memory: &Memory) -> Result<Option<Memory>> {
    let prepared = d.prepare(&[memory]).await;
    // The write lock may be held a while (a load catching up): never block the runtime on it.
    let previous = tokio::task::block_in_place(|| d.memories().writer().put(memory, &prepared))?;
    d.store().durable().await?;
    Ok(previous)
}

/// `add`: a new memory from the command line.
pub async fn add(d: &Daemon, req: NewMemory) -> Result<Memory> {
    let text = exchange::validate_text(&req.text).map_err(Error::Invalid)?;
    let category = exchange::normalize_category(req.category.as_deref().unwrap_or(exchange::DEFAULT_CATEGORY)).map_err(Error::Invalid)?;
    let tags = exchange::normalize_tags(&req.tags).map_err(Error::Invalid)?;
    let source = exchange::validate_source(req.source.as_deref().unwrap_or("user")).map_err(Error::Invalid)?;
    let project = exchange::validate_project(&d.project_for(&req.scope)).map_err(Error::Invalid)?;
    let context = req.context.unwrap_or_default().trim().to_string();
    let examples = exchange::normalize_examples("--example", &req.examples).map_err(Error::Invalid)?;
    let not_examples = exchange::normalize_examples("--not-example", &req.not_examples).map_err(Error::Invalid)?;
    let action_type = req.action_type.as_deref().map(causality::action_type).transpose().map_err(Error::Invalid)?;
    let rationale = req.rationale.as_deref().map(rationale).transpose()?;
    let id = ulid::Ulid::new().to_string();
    let caused_by = super::causality::check_causes(d, &id, &req.caused_by)?;
    // What it was written on top of: the project's memories of the hour before (or every
    // project's with --cross-project).
    let dependencies = super::causality::dependencies_now(d, &project, &id, req.cross_project)?;
    let mut memory = exchange::new_memory(id, project, text, category, source, tags, context);
    memory.examples = examples;
    memory.not_examples = not_examples;
    memory.why.action_type = action_type;
    memory.why.rationale = rationale;
    memory.why.caused_by = caused_by;
    memory.why.dependencies = dependencies;
    save(d, &memory).await?;
    Ok(memory)
}

/// Longest rationale kept.
const MAX_RATIONALE: usize = 2_000;

/// A rationale as kept: trimmed, not empty, bounded.
fn rationale(r: &str) -> Result<String> {
    let r = r.trim();
    if r.is_empty() {
        return Err(Error::Invalid("--rationale is empty".into()));
    }
    if r.chars().count() > MAX_RATIONALE {
        return Err(Error::Invalid(format!("--rationale is longer than {MAX_RATIONALE} characters")));
    }
    Ok(r.to_string())
}

/// `show`: one memory, every field.
pub async fn show(d: &Daemon, id: String) -> Result<Memory> {
    let Some(m) = d.store().get_memory(&id)? else { return Err(super::causality::not_a_memory(d, &id)) };
    // Being shown is an access; the tier shown is the one it had until now.
    let shown = super::tiers::with_tier(m);
    tokio::task::block_in_place(|| super::tiers::touch(d, std::slice::from_ref(&shown.id)))?;
    Ok(shown)
}

/// `edit`: changes a memory's text, category, tags or context; everything else is kept.
pub async fn edit(d: &Daemon, edit: MemoryEdit) -> Result<Memory> {
    let text = edit.text.as_deref().map(exchange::validate_text).transpose().map_err(Error::Invalid)?;
    let category = edit.category.as_deref().map(exchange::normalize_category).transpose().map_err(Error::Invalid)?;
    let tags = edit.tags.as_deref().map(exchange::normalize_tags).transpose().map_err(Error::Invalid)?;
    let examples = edit.examples.as_deref().map(|e| exchange::normalize_examples("--example", e)).transpose().map_err(Error::Invalid)?;
    let not_examples = edit.not_examples.as_deref().map(|e| exchange::normalize_examples("--not-example", e)).transpose().map_err(Error::Invalid)?;
    let action_type = edit.action_type.as_deref().map(causality::action_type).transpose().map_err(Error::Invalid)?;
    let rationale_given = edit.rationale.as_deref().map(rationale).transpose()?;
    let caused_by = edit.caused_by.as_deref().map(|c| super::causality::check_causes(d, &edit.id, c)).transpose()?;
    if text.is_none() && category.is_none() && tags.is_none() && edit.context.is_none() && examples.is_none() && not_examples.is_none() && action_type.is_none() && rationale_given.is_none() && caused_by.is_none() {
        return Err(Error::Invalid("nothing to change: give --text, --category, --tags, --context, --example, --not-example, --action-type, --rationale or --caused-by".into()));
    }
    // The model is made ready first: the new text is embedded under the lock.
    let _ = d.embedder_ready().await;
    let updated = tokio::task::block_in_place(|| {
        let w = d.memories().writer();
        let mut m = w.get(&edit.id)?.ok_or_else(|| Error::NotFound(edit.id.clone()))?;
        if let Some(t) = text {
            m.text = t;
        }
        if let Some(c) = category {
            m.category = c;
        }
        if let Some(t) = tags {
            m.tags = t;
        }
        if let Some(c) = edit.context {
            m.context = c.trim().to_string();
        }
        if let Some(e) = examples {
            m.examples = e;
        }
        if let Some(e) = not_examples {
            m.not_examples = e;
        }
        if let Some(t) = action_type {
            m.why.action_type = Some(t);
        }
        if let Some(r) = rationale_given {
            m.why.rationale = Some(r);
        }
        if let Some(c) = caused_by {
            m.why.caused_by = c;
        }
        // A seed the user edits becomes theirs: it leaves the pack and weighs as their own.
        if m.source == SEED_SOURCE {
            m.source = "user".into();
        }
        m.updated_at = crate::base::clock::now();
        w.put(&m, &Prepared::default())?;
        Ok::<_, Error>(m)
    })?;
    d.store().durable().await?;
    Ok(updated)
}

/// `forget`: removes a memory and its edges for good.
pub async fn forget(d: &Daemon, id: String) -> Result<Memory> {
    let t = d.tuneables();
    let removed = tokio::task::block_in_place(|| -> Result<Option<Memory>> {
        let w = d.memories().writer();
        // Its links go with it: each is a line of the adjustment log, and a situation linked to
        // nothing else goes too (it would only ever activate the lesson forgotten).
        let mut edges = d.store().edges_to(&id)?;
        edges.extend(d.store().edges_from(&id)?);
        let removed = w.remove(&id)?;
        if removed.is_some() && !edges.is_empty() {
            let mut changes = super::feedback::Changes::new(format!("{id} forgotten"));
            for e in &edges {
                changes.removed(e, &format!("{id} forgotten: its links go with it"));
            }
            for e in edges.iter().filter(|e| e.source.starts_with(cairn_proto::SITUATION_PREFIX)) {
                super::feedback::drop_if_unlinked(d, &w, &e.source)?;
            }
            changes.write(&w, t.learning.max_adjustments)?;
        }
        Ok(removed)
    })?;
    d.store().durable().await?;
    removed.ok_or(Error::NotFound(id))
}

/// `list`: memories of a project (plus `global`), or of every project, a page at a time.
pub async fn list(d: &Daemon, q: ListQuery) -> Result<Page<Memory>> {
    let limit = q.limit.clamp(1, MAX_PAGE) as usize;
    let project = d.project_for(&q.scope);
    let wanted = |m: &Memory| q.all || m.project == project || m.project == GLOBAL_PROJECT;
    let mut items = Vec::new();
    let mut next = None;
    for memory in d.store().memories_after(q.after.as_deref()) {
        let memory = memory?;
        if !wanted(&memory) {
            continue;
        }
        if items.len() == limit {
            next = items.last().map(|m: &Memory| m.id.clone());
            break;
        }
        items.push(super::tiers::with_tier(memory));
    }
    Ok(Page { items, next })
}
