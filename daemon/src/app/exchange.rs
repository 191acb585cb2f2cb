//! `import` and `export`. An import is a batch of JSONL lines: each is added, updated (same id)
//! or rejected with its line number and reason; the batch's texts are embedded together, ahead
//! of the writes, and the batch is acknowledged once durable. An export is every memory, then
//! every edge, then the home's advice state (mutes, the seed pack, rejected texts), a page at a time; cursors
//! are `m:<id>` within memories and `e:<hex key>` within edges.

use std::collections::HashSet;

use cairn_proto::{ImportBatch, ImportReport, Page, Rejection};

use super::daemon::Daemon;
use super::error::{Error, Result};
use super::seeds::apply_state;
use crate::exchange::{self, apply_minimal, AdviceState, ImportItem};
use crate::base::text::{hex, unhex};
use crate::learning::repeat;
use crate::semantic::Prepared;

const MAX_PAGE: u32 = 5000;
/// Imported lessons the quality gate scores: those read from Claude Code's memory files.
const GATED_SOURCE: &str = "claude-md";

pub async fn import(d: &Daemon, batch: ImportBatch) -> Result<ImportReport> {
    let default_project = exchange::default_import_project(batch.default_project.as_deref()).to_string();
    let mut report = ImportReport::default();
    let mut items = Vec::new();
    for line in batch.lines {
        if line.text.trim().is_empty() {
            continue;
        }
        match exchange::parse_import_line(&line.text, &default_project) {
            Err(reason) => report.rejected.push(Rejection { line: line.line, reason, text: None }),
            Ok(ImportItem::Minimal(mut m)) => {
                // Claude Code's memory files may hold secrets (a key pasted into CLAUDE.md, a
                // file an `@` line imports): the lesson keeps none, and one that was only a secret
                // is none.
                if m.source.as_deref() == Some(GATED_SOURCE) {
                    m.text = crate::base::redact::redact_text(&m.text);
                    if m.text.replace(crate::base::redact::MASK, " ").split_whitespace().count() < 3 {
                        report.rejected.push(Rejection { line: line.line, reason: "it holds a secret and little else: not a lesson".into(), text: None });
                        continue;
                    }
                }
                m.id.get_or_insert_with(|| ulid::Ulid::new().to_string());
                items.push((line.line, ImportItem::Minimal(m)));
            }
            Ok(ImportItem::Situation(mut s)) => {
                // A situation holds redacted text only, wherever it comes from: a file written
                // by hand, or by an older release, may hold a secret the hook would have masked.
                s.text = crate::base::redact::redact_text(&s.text);
                s.meaning = crate::base::redact::redact_text(&s.meaning);
                items.push((line.line, ImportItem::Situation(s)));
            }
            Ok(item) => items.push((line.line, item)),
        }
    }

    // What each memory will look like once written, to embed the batch in one go.
    let mut projected = Vec::new();
    for (_, item) in &items {
        match item {
            ImportItem::Minimal(m) => {
                let id = m.id.as_deref().expect("ids assigned above");
                let current = d.store().get_memory(id)?;
                projected.push(apply_minimal(m, id, current));
            }
            ImportItem::Memory(m) => projected.push((**m).clone()),
            ImportItem::Edge(_) | ImportItem::State(_) | ImportItem::Situation(_) => {}
        }
    }
    let prepared: Prepared = d.prepare(&projected.iter().collect::<Vec<_>>()).await;
    // Lessons from the user's Claude Code memory files pass the quality gate too: scored (shown
    // in `show`); what it finds primitive (an introduction, a statistic, a fragment) is left
    // out, as a captured primitive is. A near-duplicate of a lesson from elsewhere (`cairn add`,
    // a capture) is kept: the user wrote both, and which of the two is "the same again" would
    // change from one import to the next.
    let t = d.tuneables();
    // An instruction the files say twice (in two sections of a CLAUDE.md, or in two files of the
    // project) is one lesson: the first time it is said, in file order. The later ones are left
    // out, named with the line they repeat, so a re-import of the same files decides the same.
    // Only lines as the import of those files sends them (text, not whole memories): a restore
    // from an export brings back every lesson it had.
    let as_text: HashSet<&str> = items.iter().filter_map(|(_, item)| match item {
        ImportItem::Minimal(m) => m.id.as_deref(),
        _ => None,
    }).collect();
    let repeated = said_again(d, projected.iter().filter(|m| as_text.contains(m.id.as_str()))).await;
    let mut judged = std::collections::HashMap::new();
    for m in projected.iter().filter(|m| m.source == GATED_SOURCE && !repeated.contains_key(&m.id)) {
        judged.insert(m.id.clone(), super::capture::judge_import(d, &t, &m.text, &m.source, &m.project, &m.id).await);
    }
    // Situations come without their embeddings: made again here, as the advisor makes a moment's.
    let situation_vectors = situation_vectors(d, &items).await;

    tokio::task::block_in_place(|| {
        for (line, item) in items {
            // One lock hold per line, so the hook's reads and other writes interleave.
            let w = d.memories().writer();
            let updated = match item {
                ImportItem::Minimal(m) => {
                    let id = m.id.clone().expect("ids assigned above");
                    let current = w.get(&id)?;
                    let before = current.clone();
                    if let Some(first) = repeated.get(&id) {
                        report.repeated.push(Rejection { line, reason: format!("the same as {first:?}"), text: Some(m.text.clone()) });
                        continue;
                    }
                    let mut memory = apply_minimal(&m, &id, current);
                    if let Some((quality, verdict, why)) = judged.get(&id) {
                        if verdict == "primitive" {
                            report.left_out.push(Rejection { line, reason: why.trim_start_matches("primitive: ").to_string(), text: Some(memory.text.clone()) });
                            continue;
                        }
                        memory.worth.quality = Some(quality.clone());
                        memory.worth.verdict = Some(verdict.clone());
                    }
                    // The same lesson again (a re-import) is left as it was, its time of change
                    // and its judgement included (a score against the lessons around it, which
                    // moves as they come and go).
                    let same = |b: &cairn_proto::Memory| {
                        let mut again = memory.clone();
                        again.updated_at = b.updated_at.clone();
                        again.worth.quality = b.worth.quality.clone();
                        again.worth.verdict = b.worth.verdict.clone();
                        again == *b
                    };
                    if before.as_ref().is_some_and(same) {
                        report.unchanged += 1;
                        continue;
                    }
                    w.put(&memory, &prepared)?;
                    before.is_some()
                }
                ImportItem::Memory(m) => {
                    // A record exactly as the home has it (a restore run twice) is left alone.
                    if w.get(&m.id)?.as_ref() == Some(&*m) {
                        report.unchanged += 1;
                        continue;
                    }
                    w.put(&m, &prepared)?.is_some()
                }
                ImportItem::Edge(e) => {
                    // An edge keeps the rules `graph link` and feedback keep: a situation's link
                    // from a situation there is, to a lesson of its project or `global`.
                    if let Some(reason) = bad_link(&w, &e)? {
                        report.rejected.push(Rejection { line, reason, text: None });
                        continue;
                    }
                    if d.store().get_edge(&e.source, &e.target, e.kind.as_str())?.as_ref() == Some(&e) {
                        report.unchanged += 1;
                        continue;
                    }
                    w.link(&e)?.is_some()
                }
                ImportItem::Situation(s) => {
                    let existed = w.situation(&s.id)?.is_some();
                    let vector = situation_vectors.as_ref().and_then(|(f, v)| v.get(&s.id).map(|v| (f.as_str(), v.as_slice())));
                    w.keep_situation(&s, vector)?;
                    existed
                }
                ImportItem::State(state) => {
                    apply_state(&w, &state)?;
                    continue;
                }
            };
            if updated {
                report.updated += 1;
            } else {
                report.added += 1;
            }
        }
        Ok::<_, Error>(())
    })?;
    d.store().durable().await?;
    crate::process::memory::release();
    Ok(report)
}

/// The lessons of the user's memory files in this batch that say an earlier one again, by id,
/// each with the text of the one it repeats ([`repeat::said_again`], on their texts alone).
async fn said_again<'m>(d: &Daemon, projected: impl Iterator<Item = &'m cairn_proto::Memory>) -> std::collections::HashMap<String, String> {
    let gated: Vec<&cairn_proto::Memory> = projected.filter(|m| m.source == GATED_SOURCE).collect();
    if gated.len() < 2 {
        return std::collections::HashMap::new();
    }
    let texts: Vec<&str> = gated.iter().map(|m| m.text.as_str()).collect();
    let vectors: Vec<Vec<f32>> = match d.embedder_ready().await {
        Some(e) => tokio::task::block_in_place(|| e.embed(&texts)).unwrap_or_default(),
        None => Vec::new(),
    };
    let lines: Vec<repeat::Line<'_>> = gated.iter().enumerate().map(|(i, m)| repeat::Line { project: &m.project, text: &m.text, vector: vectors.get(i).map(Vec::as_slice) }).collect();
    repeat::said_again(&lines)
        .into_iter()
        .enumerate()
        .filter_map(|(i, first)| first.map(|j| (gated[i].id.clone(), gated[j].text.clone())))
        .collect()
}

/// Why an imported edge cannot be stored, if it cannot: the rules `graph link` keeps
/// ([`super::feedback::edge_refusal`]), an end not there named as a line that should come first.
fn bad_link(w: &crate::app::writer::Writer<'_>, e: &cairn_proto::Edge) -> Result<Option<String>> {
    Ok(super::feedback::edge_refusal(w, &e.source, &e.target, e.kind)?.map(|r| match r {
        super::feedback::Refusal::Invalid(why) => why,
        super::feedback::Refusal::Missing(id) => format!("the `{}` edge's end {id} is not a memory here (memory lines come before edges)", e.kind.as_str()),
    }))
}

/// The embeddings of the situations among `items`, with the model's fingerprint, when the model
/// is available (else they are compared by words until a later judgement embeds them).
async fn situation_vectors(d: &Daemon, items: &[(u64, ImportItem)]) -> Option<(String, std::collections::HashMap<String, Vec<f32>>)> {
    let situations: Vec<&cairn_proto::Situation> = items.iter().filter_map(|(_, i)| if let ImportItem::Situation(s) = i { Some(&**s) } else { None }).collect();
    if situations.is_empty() {
        return None;
    }
    let embedder = d.embedder_ready().await?;
    let fingerprint = d.semantic().graphs().read().as_ref().map(|g| g.fingerprint().to_string())?;
    let texts: Vec<&str> = situations.iter().map(|s| if s.meaning.trim().is_empty() { s.text.as_str() } else { s.meaning.as_str() }).collect();
    match tokio::task::block_in_place(|| embedder.embed(&texts)) {
        Ok(vectors) => Some((fingerprint, situations.iter().map(|s| s.id.clone()).zip(vectors).collect())),
        Err(e) => {
            tracing::warn!(error = %e, "cannot embed imported situations; they are compared by words");
            None
        }
    }
}

/// The home's advice state, every list sorted so that an export is the same byte for byte.
pub fn advice_state(d: &Daemon) -> Result<AdviceState> {
    let sorted = |set: HashSet<String>| {
        let mut v: Vec<String> = set.into_iter().collect();
        v.sort();
        v
    };
    let store = d.store();
    let loaded = store.seeds_loaded()?;
    let forgotten = loaded.iter().filter(|id| store.get_memory(id).ok().flatten().is_none()).cloned().collect();
    Ok(AdviceState {
        seed_pack: store.seed_pack()?,
        seeds_loaded: sorted(loaded),
        seeds_forgotten: sorted(forgotten),
        seeds_off: sorted(store.seeds_off()?),
        muted: sorted(store.muted_ids()?),
        rejected: store.rejected_texts()?.into_iter().map(|(project, r)| exchange::RejectedText { project, text: r.text, candidate: r.candidate }).collect(),
    })
}

pub async fn export(d: &Daemon, after: Option<String>, limit: u32) -> Result<Page<String>> {
    let limit = limit.clamp(1, MAX_PAGE) as usize;
    let mut lines = Vec::new();
    // Memories, then situations, then edges (whose ends are then known), then the state.
    let (memory_after, situation_after, edge_after, stage) = match after.as_deref() {
        None => (None, None, None, 0),
        Some(c) if c.starts_with("m:") => (Some(&c[2..]), None, None, 0),
        Some(c) if c.starts_with("s:") => (None, Some(&c[2..]), None, 1),
        Some(c) if c.starts_with("e:") => (None, None, Some(unhex(&c[2..]).ok_or_else(|| Error::Invalid(format!("bad export cursor {c:?}")))?), 2),
        Some(c) => return Err(Error::Invalid(format!("bad export cursor {c:?}"))),
    };
    if stage == 0 {
        for memory in d.store().memories_after(memory_after) {
            let memory = memory?;
            lines.push(exchange::memory_line(&memory));
            if lines.len() == limit {
                return Ok(Page { items: lines, next: Some(format!("m:{}", memory.id)) });
            }
        }
    }
    if stage <= 1 {
        for situation in d.store().situations_after(situation_after) {
            let situation = situation?;
            lines.push(exchange::situation_line(&situation));
            if lines.len() == limit {
                return Ok(Page { items: lines, next: Some(format!("s:{}", situation.id)) });
            }
        }
    }
    for edge in d.store().edges_after(edge_after.as_deref()) {
        let (key, edge) = edge?;
        lines.push(exchange::edge_line(&edge));
        if lines.len() == limit {
            return Ok(Page { items: lines, next: Some(format!("e:{}", hex(&key))) });
        }
    }
    lines.push(exchange::state_line(&advice_state(d)?));
    Ok(Page { items: lines, next: None })
}

#[cfg(test)]
mod tests {
    #[test]
    fn hex_round_trips() {
        let key = b"a\0b\0caused_by".to_vec();
        assert_eq!(super::unhex(&super::hex(&key)).unwrap(), key);
        assert!(super::unhex("abc").is_none());
        assert!(super::unhex("zz").is_none());
    }
}
