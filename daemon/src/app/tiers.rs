//! Memory tiers at work (`temporal::tiers` has the rule): an access (said, searched, shown,
//! feedback) touches a memory; a job counts the tiers (hourly, every six hours in `--lite`) for
//! `status`, and reads (`show`, `list`) compute a memory's tier from its last access; pruning moves what expired unproven to the archive,
//! one JSONL file per memory under the data folder (its export line, then its edges), and
//! `archive restore` brings it back exactly.
//!
//! Nothing is lost on the way: the archive file is written and flushed before the memory leaves
//! the store, and removed only after the restored memory is durable.

use std::collections::BTreeMap;
use std::path::PathBuf;

use cairn_proto::{ArchiveAction, ArchiveReport, ArchivedView, Memory, PruneReport, Tier};

use super::daemon::Daemon;
use super::error::{Error, Result};
use crate::base::clock;
use crate::exchange::{self, ImportItem};
use crate::semantic::Prepared;
use crate::temporal::tiers;

/// Largest archive file read back.
const MAX_ARCHIVE_FILE: u64 = 16 << 20;

fn folder(d: &Daemon) -> PathBuf {
    d.paths().data_dir.join("archive")
}

fn file(d: &Daemon, id: &str) -> Result<PathBuf> {
    exchange::validate_id(id).map_err(Error::Invalid)?;
    Ok(folder(d).join(format!("{}.jsonl", file_name(id))))
}

/// An archive file's name for a memory's id: the id itself when it is a plain name (a ULID, a
/// seed's id), else `~` and its bytes in hex. An id may hold any printable character (an
/// imported one is kept as given), and none may name a path outside the archive (`../x`,
/// `/tmp/y`).
fn file_name(id: &str) -> String {
    if id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_')) {
        id.to_string()
    } else {
        format!("~{}", crate::base::text::hex(id.as_bytes()))
    }
}

/// The id an archive file's name stands for ([`file_name`] read back).
fn id_of(name: &str) -> Option<String> {
    match name.strip_prefix('~') {
        Some(h) => crate::base::text::unhex(h).and_then(|b| String::from_utf8(b).ok()),
        None => Some(name.to_string()),
    }
}

/// Records an access to each memory: last accessed now, one more access, tier active.
pub fn touch(d: &Daemon, ids: &[String]) -> Result<()> {
    let now = clock::now();
    let w = d.memories().writer();
    for id in ids {
        let Some(mut m) = w.get(id)? else { continue };
        m.now.last_accessed = Some(now.clone());
        m.now.access_count += 1;
        w.put(&m, &Prepared::default())?;
    }
    Ok(())
}

/// Every memory's tier as it is now, counted per tier (what `status` shows). The tier itself
/// is not stored: it is computed whenever a memory is read (an export carries the last access
/// it comes from, so a round trip stays exact).
pub fn recalculate(d: &Daemon) -> Result<BTreeMap<String, u64>> {
    let now = time::OffsetDateTime::now_utc();
    let mut counts = BTreeMap::new();
    for m in d.store().memories_after(None) {
        let tier = tiers::of(&m?, now);
        *counts.entry(tier_name(tier).to_string()).or_default() += 1;
    }
    d.set_tier_counts(counts.clone());
    Ok(counts)
}

pub fn tier_name(t: Tier) -> &'static str {
    match t {
        Tier::Active => "active",
        Tier::Recent => "recent",
        Tier::Archived => "archived",
        Tier::Expired => "expired",
    }
}

/// A memory with its tier as it is now (on read).
pub fn with_tier(mut m: Memory) -> Memory {
    m.now.tier = Some(tiers::of(&m, time::OffsetDateTime::now_utc()));
    m
}

fn view(m: &Memory, archived_at: Option<String>, reason: String) -> ArchivedView {
    ArchivedView { id: m.id.clone(), project: m.project.clone(), text: m.text.clone(), source: m.source.clone(), archived_at, reason }
}

/// `cairn prune [--dry-run]`, and the daily job.
pub async fn prune(d: &Daemon, dry_run: bool) -> Result<PruneReport> {
    let now = time::OffsetDateTime::now_utc();
    let mut due = Vec::new();
    for m in d.store().memories_after(None) {
        let m = m?;
        if let Some(reason) = tiers::prunable(&m, now) {
            due.push((m, reason));
        }
    }
    let mut report = PruneReport { dry_run, archived: Vec::new(), archive: folder(d).display().to_string() };
    if dry_run {
        report.archived = due.iter().map(|(m, r)| view(m, None, r.clone())).collect();
        return Ok(report);
    }
    std::fs::create_dir_all(folder(d)).map_err(|e| Error::Failed(format!("cannot make the archive folder {}: {e}", folder(d).display())))?;
    for (m, reason) in due {
        let at = clock::now();
        tokio::task::block_in_place(|| archive_one(d, &m, &reason, &at))?;
        report.archived.push(view(&m, Some(at), reason));
    }
    d.store().durable().await?;
    if !report.archived.is_empty() {
        tracing::info!(archived = report.archived.len(), "expired memories moved to the archive");
    }
    Ok(report)
}

/// One memory to its archive file (flushed), then out of the store with its edges.
fn archive_one(d: &Daemon, m: &Memory, reason: &str, at: &str) -> Result<()> {
    let w = d.memories().writer();
    let mut lines = vec![serde_json::json!({"kind": "archived", "at": at, "reason": reason}).to_string(), exchange::memory_line(m)];
    let mut edges = d.store().edges_from(&m.id)?;
    edges.extend(d.store().edges_to(&m.id)?);
    lines.extend(edges.iter().map(exchange::edge_line));
    let path = file(d, &m.id)?;
    let written = cairn_proto::files::replace(&path, (lines.join("\n") + "\n").as_bytes()).and_then(|()| std::fs::File::open(folder(d))?.sync_all());
    written.map_err(|source| Error::Write { path: path.clone(), source })?;
    w.remove(&m.id)?;
    Ok(())
}

/// An archive file: when and why, the memory, its edges.
fn read(d: &Daemon, id: &str) -> Result<(String, String, Memory, Vec<cairn_proto::Edge>)> {
    let path = file(d, id)?;
    let text = cairn_proto::files::read_text(&path, MAX_ARCHIVE_FILE).map_err(|e| Error::NotFound(format!("{id} in the archive ({}: {e})", path.display())))?;
    let mut lines = text.lines();
    let head: serde_json::Value = lines.next().and_then(|l| serde_json::from_str(l).ok()).unwrap_or_default();
    let (at, reason) = (head["at"].as_str().unwrap_or("").to_string(), head["reason"].as_str().unwrap_or("").to_string());
    let (mut memory, mut edges) = (None, Vec::new());
    for (n, line) in lines.enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        match exchange::parse_import_line(line, cairn_proto::GLOBAL_PROJECT).map_err(|e| Error::Failed(format!("{}: line {}: {e}", path.display(), n + 2)))? {
            ImportItem::Memory(m) => memory = Some(*m),
            ImportItem::Edge(e) => edges.push(e),
            _ => {}
        }
    }
    let memory = memory.ok_or_else(|| Error::Failed(format!("{} holds no memory", path.display())))?;
    // The file of an id holds that memory: one put there by hand holding another is no restore.
    if memory.id != id {
        return Err(Error::Failed(format!("{} holds memory {:?}, not {id:?}", path.display(), memory.id)));
    }
    Ok((at, reason, memory, edges))
}

/// `cairn archive list|restore ID`.
pub async fn archive(d: &Daemon, action: ArchiveAction) -> Result<ArchiveReport> {
    match action {
        ArchiveAction::List => {
            let mut entries = Vec::new();
            let dir = match std::fs::read_dir(folder(d)) {
                Ok(dir) => dir,
                Err(_) => return Ok(ArchiveReport { entries, restored: None, message: "the archive is empty".into() }),
            };
            let mut ids: Vec<String> = dir.filter_map(|e| e.ok()).filter_map(|e| e.file_name().to_str().and_then(|n| n.strip_suffix(".jsonl")).and_then(id_of)).collect();
            ids.sort();
            for id in ids {
                match read(d, &id) {
                    Ok((at, reason, m, _)) => entries.push(view(&m, Some(at), reason)),
                    Err(e) => tracing::warn!(error = %e, "an archive file cannot be read"),
                }
            }
            let message = format!("{} memories in the archive", entries.len());
            Ok(ArchiveReport { entries, restored: None, message })
        }
        ArchiveAction::Restore { id } => {
            let (_, _, memory, edges) = read(d, &id)?;
            if d.memories().get(&id).is_some() {
                return Err(Error::Failed(format!("{id} is in the store already: remove it from the archive by hand if it is a stale copy ({})", file(d, &id)?.display())));
            }
            let prepared = d.prepare(&[&memory]).await;
            let restored = tokio::task::block_in_place(|| -> Result<usize> {
                let w = d.memories().writer();
                w.put(&memory, &prepared)?;
                let mut linked = 0;
                for e in &edges {
                    // An edge whose other end went meanwhile stays out.
                    let other = if e.source == id { &e.target } else { &e.source };
                    let there = if other.starts_with(cairn_proto::SITUATION_PREFIX) { w.situation(other)?.is_some() } else { w.get(other)?.is_some() };
                    if there {
                        w.link(e)?;
                        linked += 1;
                    }
                }
                Ok(linked)
            })?;
            d.store().durable().await?;
            let path = file(d, &id)?;
            std::fs::remove_file(&path).map_err(|e| Error::Failed(format!("restored, but cannot remove {}: {e}", path.display())))?;
            let message = format!("restored {id} with {restored} of its {} edges", edges.len());
            Ok(ArchiveReport { entries: Vec::new(), restored: Some(memory), message })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_archive_file_name_stays_in_the_archive_and_reads_back_as_its_id() {
        for id in ["01M8G2NZ39XXYDC02TRNWVXC02", "seed-git-force-push", "../../../victim", "/tmp/victim", "a/b", "~x", "é"] {
            let name = file_name(id);
            assert!(!name.contains('/') && !name.starts_with('.'), "{id}: {name}");
            assert_eq!(id_of(&name).as_deref(), Some(id));
        }
        assert_eq!(file_name("seed-git-force-push"), "seed-git-force-push", "plain ids keep the names archives have");
    }
}
