//! `add`, `show`, `edit`, `list` and `forget`: one memory at a time.

use cairn_proto::{ListQuery, Memory, MemoryEdit, NewMemory};

use super::{client, ctx, print_json, scope, Failure};
use crate::cli::{ExampleArgs, ProjectArgs, WhyArgs};

#[allow(clippy::too_many_arguments)]
pub async fn add(text: String, category: Option<String>, tags: Vec<String>, context: Option<String>, examples: ExampleArgs, why: WhyArgs, cross_project: bool, args: ProjectArgs) -> Result<(), Failure> {
    let c = client().await?;
    let new = NewMemory {
        text,
        category,
        tags,
        context,
        source: Some("user".into()),
        scope: scope(&args),
        examples: examples.examples,
        not_examples: examples.not_examples,
        action_type: why.action_type,
        rationale: why.rationale,
        caused_by: why.caused_by,
        cross_project,
    };
    let memory = c.add(ctx(), new).await??;
    outln!("{}", memory.id);
    Ok(())
}

fn print_memory(m: &Memory) {
    outln!("id:         {}", m.id);
    outln!("project:    {}", m.project);
    outln!("category:   {}", m.category);
    outln!("source:     {}", m.source);
    if !m.tags.is_empty() {
        outln!("tags:       {}", m.tags.join(", "));
    }
    outln!("created:    {}", m.created_at);
    outln!("updated:    {}", m.updated_at);
    // Only what was computed: the tier and the outcome counts come with later releases, and a
    // record imported from elsewhere may carry them.
    if let Some(tier) = m.now.tier {
        outln!("tier:       {}", serde_json::to_value(tier).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default());
    }
    let w = &m.worth;
    if w.times_surfaced + w.helpful + w.unhelpful + w.ignored > 0 {
        outln!("worth:      said {}, helpful {}, unhelpful {}, ignored {}, effectiveness {:.2}", w.times_surfaced, w.helpful, w.unhelpful, w.ignored, w.effectiveness);
    }
    if let Some(last) = &m.now.last_accessed {
        outln!("accessed:   {last} ({} times)", m.now.access_count);
    }
    if !m.context.is_empty() {
        outln!("context:    {}", m.context);
    }
    for e in &m.examples {
        outln!("example:    {e}");
    }
    for e in &m.not_examples {
        outln!("not for:    {e}");
    }
    outln!();
    outln!("{}", m.text);
}

pub async fn show(id: String, json: bool) -> Result<(), Failure> {
    let memory = client().await?.show(ctx(), id).await??;
    if json { print_json(&memory) } else { print_memory(&memory) }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
pub async fn edit(id: String, text: Option<String>, category: Option<String>, tags: Option<Vec<String>>, context: Option<String>, examples: ExampleArgs, clear: bool, why: WhyArgs) -> Result<(), Failure> {
    // A list given replaces its kind; --clear-examples empties both first.
    let replace = |given: Vec<String>| if given.is_empty() && !clear { None } else { Some(given) };
    let edit = MemoryEdit {
        id,
        text,
        category,
        tags,
        context,
        examples: replace(examples.examples),
        not_examples: replace(examples.not_examples),
        action_type: why.action_type,
        rationale: why.rationale,
        caused_by: (!why.caused_by.is_empty()).then_some(why.caused_by),
    };
    let memory = client().await?.edit(ctx(), edit).await??;
    outln!("{}", memory.id);
    Ok(())
}

pub async fn forget(id: String) -> Result<(), Failure> {
    let memory = client().await?.forget(ctx(), id).await??;
    outln!("forgot {}", memory.id);
    Ok(())
}

const PAGE: u32 = 1000;

pub async fn list(args: ProjectArgs, all: bool, json: bool) -> Result<(), Failure> {
    let c = client().await?;
    let mut after = None;
    let mut memories = Vec::new();
    loop {
        let page = c.list(ctx(), ListQuery { scope: scope(&args), all, after, limit: PAGE }).await??;
        if json {
            memories.extend(page.items);
        } else {
            for m in &page.items {
                outln!("{}", m.one_line());
            }
        }
        match page.next {
            Some(next) => after = Some(next),
            None => break,
        }
    }
    if json {
        print_json(&serde_json::json!({ "memories": memories }));
    }
    Ok(())
}
