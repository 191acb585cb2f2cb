//! `seed`: the seed pack, loaded once on a home's first start (unless `CAIRN_SEED_PACK=off`),
//! listed, and turned off or on as a whole or one seed at a time. Turning off deletes nothing;
//! turning on loads seeds this home never had (a seed the user forgot stays forgotten unless
//! named). An export's advice state is taken on here too.

use std::collections::HashSet;

use cairn_proto::{SeedAction, SeedReport, SeedView};

use super::daemon::Daemon;
use super::error::{Error, Result};
use super::writer::Writer;
use crate::advisor::seeds::{self, SEED_SOURCE};
use crate::exchange::AdviceState;
use crate::semantic::Prepared;

/// Loads the seeds this home never had (or the one named, even if it was forgotten), one write
/// at a time so that other writes interleave. Returns how many were added.
fn load(d: &Daemon, only: Option<&str>) -> Result<usize> {
    let loaded = d.store().seeds_loaded()?;
    let now = crate::base::clock::now();
    let mut added = 0;
    for seed in seeds::pack() {
        let wanted = match only {
            Some(id) => seed.id == id,
            None => !loaded.contains(&seed.id),
        };
        let w = d.memories().writer();
        if !wanted || w.get(&seed.id)?.is_some() {
            continue;
        }
        w.put(&seeds::memory_of(seed, &now), &Prepared::default())?;
        w.seed_loaded(&seed.id)?;
        added += 1;
    }
    Ok(added)
}

/// Seeds still as the pack wrote them take on the example moments of this release's pack (a
/// home loaded by an older cairn has none). A seed the user edited is theirs and is left alone.
/// Returns how many were brought up to date.
fn refresh_examples(d: &Daemon) -> Result<usize> {
    let mut changed = 0;
    for seed in seeds::pack() {
        let w = d.memories().writer();
        let Some(mut m) = w.get(&seed.id)? else { continue };
        if m.source != SEED_SOURCE || (m.examples == seed.examples && m.not_examples == seed.not_examples) {
            continue;
        }
        m.examples = seed.examples.clone();
        m.not_examples = seed.not_examples.clone();
        w.put(&m, &Prepared::default())?;
        changed += 1;
    }
    Ok(changed)
}

/// On a home's first start: the pack is loaded, unless `CAIRN_SEED_PACK` says `off`. On every
/// later start, the pack's seeds take on this release's example moments.
pub fn first_start(d: &Daemon) -> Result<()> {
    if d.store().seed_pack()?.is_some() {
        let changed = refresh_examples(d)?;
        if changed > 0 {
            tracing::info!(seeds = changed, "seed pack's example moments brought up to date");
        }
        return Ok(());
    }
    let off = std::env::var("CAIRN_SEED_PACK").is_ok_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "off" | "0" | "false" | "no"));
    if off {
        tracing::info!("seed pack not loaded (CAIRN_SEED_PACK=off); `cairn seed --enable` loads it");
        return Ok(d.memories().writer().seed_pack(false)?);
    }
    let added = load(d, None)?;
    d.memories().writer().seed_pack(true)?;
    d.store().flush()?;
    tracing::info!(seeds = added, "seed pack loaded");
    Ok(())
}

/// Takes on an exported home's advice state (the last line of an export): its mutes, its seeds
/// turned off, and its seed pack as it was: seeds it never had or had forgotten are taken out
/// again if this home loaded them by itself (only seeds still as the pack wrote them).
pub fn apply_state(w: &Writer<'_>, state: &AdviceState) -> Result<()> {
    let loaded: HashSet<String> = state.seeds_loaded.iter().cloned().collect();
    let forgotten: HashSet<&String> = state.seeds_forgotten.iter().collect();
    for seed in seeds::pack() {
        let pristine = w.get(&seed.id)?.is_some_and(|m| m.source == SEED_SOURCE);
        if pristine && (!loaded.contains(&seed.id) || forgotten.contains(&seed.id)) {
            w.remove(&seed.id)?;
        }
    }
    w.seeds_loaded(&loaded)?;
    if let Some(on) = state.seed_pack {
        w.seed_pack(on)?;
    }
    for id in &state.seeds_off {
        w.seed_off(id, true)?;
    }
    for id in &state.muted {
        w.mute(id, true)?;
    }
    for r in &state.rejected {
        w.restore_rejection(r.project.as_deref(), &r.text, r.candidate.as_deref())?;
    }
    Ok(())
}

fn report(d: &Daemon) -> Result<SeedReport> {
    let quiet = d.memories().quiet();
    let loaded = d.store().seeds_loaded()?;
    let seeds = seeds::pack()
        .iter()
        .map(|s| {
            let memory = d.memories().get(&s.id);
            let state = match &memory {
                None if loaded.contains(&s.id) => "forgotten",
                None => "not loaded",
                Some(m) if m.source != SEED_SOURCE => "yours",
                Some(_) if quiet.muted.contains(&s.id) || quiet.seeds_off.contains(&s.id) => "off",
                Some(_) if !quiet.pack_on => "pack off",
                Some(_) => "on",
            };
            // An edited seed is shown as the user wrote it.
            let text = memory.filter(|m| m.source != SEED_SOURCE).map_or_else(|| s.text.clone(), |m| m.text);
            SeedView { id: s.id.clone(), category: s.category.clone(), priority: s.priority.name().to_string(), text, state: state.to_string(), triggers: !s.triggers.is_empty() }
        })
        .collect();
    Ok(SeedReport { pack_enabled: quiet.pack_on, seeds, notes: Vec::new() })
}

fn known(id: &str) -> Result<()> {
    match seeds::find(id) {
        Some(_) => Ok(()),
        None => Err(Error::Failed(format!("{id} is not a seed of the pack (see `cairn seed --list`)"))),
    }
}

fn is_yours(d: &Daemon, id: &str) -> bool {
    d.memories().get(id).is_some_and(|m| m.source != SEED_SOURCE)
}

pub async fn seed(d: &Daemon, action: SeedAction) -> Result<SeedReport> {
    let mut notes = Vec::new();
    match action {
        SeedAction::List => return report(d),
        SeedAction::Enable(None) => {
            let added = tokio::task::block_in_place(|| {
                let added = load(d, None)?;
                d.memories().writer().seed_pack(true)?;
                Ok::<_, Error>(added)
            })?;
            notes.push(format!("seed pack on{}", if added > 0 { format!(" ({added} seeds loaded)") } else { String::new() }));
        }
        SeedAction::Disable(None) => {
            tokio::task::block_in_place(|| d.memories().writer().seed_pack(false))?;
            notes.push("seed pack off: its lessons are kept but not said (`cairn seed --enable` turns it on again)".into());
        }
        SeedAction::Enable(Some(id)) => {
            known(&id)?;
            let added = tokio::task::block_in_place(|| {
                let added = load(d, Some(&id))?;
                let w = d.memories().writer();
                w.seed_off(&id, false)?;
                w.mute(&id, false)?;
                Ok::<_, Error>(added)
            })?;
            notes.push(format!("{id} on{}", if added > 0 { " (loaded)" } else { "" }));
            if !d.memories().quiet().pack_on && !is_yours(d, &id) {
                notes.push("the seed pack is off, so it is not said yet: `cairn seed --enable` turns the pack on".into());
            }
        }
        SeedAction::Disable(Some(id)) => {
            known(&id)?;
            if is_yours(d, &id) {
                return Err(Error::Failed(format!("{id} is yours now (you edited it), not the pack's: `cairn mute {id}` keeps it out of advice")));
            }
            tokio::task::block_in_place(|| d.memories().writer().seed_off(&id, true))?;
            notes.push(format!("{id} off (kept, not said; `cairn seed --enable {id}` turns it on again)"));
        }
    }
    d.store().durable().await?;
    let mut r = report(d)?;
    r.notes = notes;
    Ok(r)
}
