//! `import`: one batch of JSONL lines. Each line is added, updated (same id) or rejected with
//! its line number and reason; the batch is acknowledged once durable.

use cairn_proto::{ImportBatch, ImportReport, Memory, Rejection, RpcError};

use crate::exchange::{self, ImportItem, MinimalMemory};
use crate::state::{store_error, Daemon};

fn apply_minimal(d: &Daemon, m: MinimalMemory) -> Result<bool, RpcError> {
    let (text, category, project, tags, source) = (
        m.text,
        m.category.unwrap_or_else(|| exchange::DEFAULT_CATEGORY.into()),
        m.project.unwrap_or_else(|| cairn_proto::GLOBAL_PROJECT.into()),
        m.tags.unwrap_or_default(),
        m.source.unwrap_or_else(|| "user".into()),
    );
    let id = m.id.unwrap_or_else(|| ulid::Ulid::new().to_string());
    d.put_memory_with(&id.clone(), |current| match current {
        // An existing id: the line's fields replace the old ones; history and worth stay.
        Some(mut old) => {
            old.text = text;
            old.category = category;
            old.project = project;
            old.tags = tags;
            old.source = source;
            old.updated_at = exchange::now();
            old
        }
        None => exchange::new_memory(id, project, text, category, source, tags, String::new()),
    })
}

fn apply_full(d: &Daemon, memory: &Memory) -> Result<bool, RpcError> {
    Ok(d.put_memory(memory)?.is_some())
}

pub async fn handle(d: &Daemon, batch: ImportBatch) -> Result<ImportReport, RpcError> {
    let default_project = exchange::default_import_project(batch.default_project.as_deref()).to_string();
    let mut report = ImportReport::default();
    for line in batch.lines {
        if line.text.trim().is_empty() {
            continue;
        }
        let updated = match exchange::parse_import_line(&line.text, &default_project) {
            Err(reason) => {
                report.rejected.push(Rejection { line: line.line, reason });
                continue;
            }
            Ok(ImportItem::Minimal(m)) => apply_minimal(d, m)?,
            Ok(ImportItem::Memory(m)) => apply_full(d, &m)?,
            Ok(ImportItem::Edge(e)) => d.store.put_edge(&e).map_err(store_error)?.is_some(),
        };
        if updated {
            report.updated += 1;
        } else {
            report.added += 1;
        }
    }
    d.store.durable().await;
    Ok(report)
}
