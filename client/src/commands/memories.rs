//! `add`, `show`, `edit`, `list` and `forget`: one memory at a time.

use cairn_proto::{ListQuery, Memory, MemoryEdit, NewMemory};

use super::{client, ctx, print_json, scope, Failure};
use crate::ProjectArgs;

pub async fn add(text: String, category: Option<String>, tags: Vec<String>, context: Option<String>, args: ProjectArgs) -> Result<(), Failure> {
    let c = client().await?;
    let memory = c.add(ctx(), NewMemory { text, category, tags, context, source: Some("user".into()), scope: scope(&args) }).await??;
    println!("{}", memory.id);
    Ok(())
}

fn print_memory(m: &Memory) {
    println!("id:         {}", m.id);
    println!("project:    {}", m.project);
    println!("category:   {}", m.category);
    println!("source:     {}", m.source);
    if !m.tags.is_empty() {
        println!("tags:       {}", m.tags.join(", "));
    }
    println!("created:    {}", m.created_at);
    println!("updated:    {}", m.updated_at);
    println!("tier:       {:?}", m.now.tier);
    println!("worth:      surfaced {}, helpful {}, unhelpful {}, effectiveness {:.2}", m.worth.times_surfaced, m.worth.helpful, m.worth.unhelpful, m.worth.effectiveness);
    if !m.context.is_empty() {
        println!("context:    {}", m.context);
    }
    println!();
    println!("{}", m.text);
}

pub async fn show(id: String, json: bool) -> Result<(), Failure> {
    let memory = client().await?.show(ctx(), id).await??;
    if json { print_json(&memory) } else { print_memory(&memory) }
    Ok(())
}

pub async fn edit(id: String, text: Option<String>, category: Option<String>, tags: Option<Vec<String>>, context: Option<String>) -> Result<(), Failure> {
    let memory = client().await?.edit(ctx(), MemoryEdit { id, text, category, tags, context }).await??;
    println!("{}", memory.id);
    Ok(())
}

pub async fn forget(id: String) -> Result<(), Failure> {
    let memory = client().await?.forget(ctx(), id).await??;
    println!("forgot {}", memory.id);
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
                println!("{}", m.one_line());
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
