//! `import`: one batch of JSONL lines. Each line is added, updated (same id) or rejected with
//! its line number and reason; the batch's texts are embedded together, ahead of the writes, and
//! the batch is acknowledged once durable.

use cairn_proto::{ImportBatch, ImportReport, Memory, Rejection, RpcError};

use crate::exchange::{self, ImportItem, MinimalMemory};
use crate::semantic::Prepared;
use crate::state::{store_error, Daemon};

/// A minimal line applied to the memory's current version, or a new memory.
fn apply_minimal(m: &MinimalMemory, id: &str, current: Option<Memory>) -> Memory {
    let category = m.category.clone().unwrap_or_else(|| exchange::DEFAULT_CATEGORY.into());
    let project = m.project.clone().unwrap_or_else(|| cairn_proto::GLOBAL_PROJECT.into());
    let tags = m.tags.clone().unwrap_or_default();
    let source = m.source.clone().unwrap_or_else(|| "user".into());
    match current {
        // An existing id: the line's fields replace the old ones; history and worth stay.
        Some(mut old) => {
            old.text = m.text.clone();
            old.category = category;
            old.project = project;
            old.tags = tags;
            old.source = source;
            old.updated_at = exchange::now();
            old
        }
        None => exchange::new_memory(id.to_string(), project, m.text.clone(), category, source, tags, String::new()),
    }
}

pub async fn handle(d: &Daemon, batch: ImportBatch) -> Result<ImportReport, RpcError> {
    let default_project = exchange::default_import_project(batch.default_project.as_deref()).to_string();
    let mut report = ImportReport::default();
    let mut items = Vec::new();
    for line in batch.lines {
        if line.text.trim().is_empty() {
            continue;
        }
        match exchange::parse_import_line(&line.text, &default_project) {
            Err(reason) => report.rejected.push(Rejection { line: line.line, reason }),
            Ok(ImportItem::Minimal(mut m)) => {
                m.id.get_or_insert_with(|| ulid::Ulid::new().to_string());
                items.push(ImportItem::Minimal(m));
            }
            Ok(item) => items.push(item),
        }
    }

    // What each memory will look like once written, to embed the batch in one go.
    let mut projected = Vec::new();
    for item in &items {
        match item {
            ImportItem::Minimal(m) => {
                let id = m.id.as_deref().expect("ids assigned above");
                let current = d.store.get_memory(id).map_err(store_error)?;
                projected.push(apply_minimal(m, id, current));
            }
            ImportItem::Memory(m) => projected.push((**m).clone()),
            ImportItem::Edge(_) | ImportItem::State(_) => {}
        }
    }
    let prepared: Prepared = d.prepare(&projected.iter().collect::<Vec<_>>()).await;

    tokio::task::block_in_place(|| {
        for item in items {
            let updated = match item {
                ImportItem::Minimal(m) => {
                    let id = m.id.clone().expect("ids assigned above");
                    d.put_memory_with(&id, &prepared, |current| apply_minimal(&m, &id, current))?
                }
                ImportItem::Memory(m) => d.put_memory(&m, &prepared)?.is_some(),
                ImportItem::Edge(e) => d.store.put_edge(&e).map_err(store_error)?.is_some(),
                ImportItem::State(state) => {
                    crate::handlers::seeds::apply_state(d, &state)?;
                    continue;
                }
            };
            if updated {
                report.updated += 1;
            } else {
                report.added += 1;
            }
        }
        Ok::<_, RpcError>(())
    })?;
    d.store.durable().await;
    crate::semantic::release_memory();
    Ok(report)
}
