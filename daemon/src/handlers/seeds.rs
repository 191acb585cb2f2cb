//! `seed`: the seed pack, loaded once on a home's first start (unless `CAIRN_SEED_PACK=off`),
//! listed, and turned off or on as a whole or one seed at a time. Turning off deletes nothing;
//! turning on loads seeds this home never had (a seed the user forgot stays forgotten unless
//! named).

use cairn_proto::{RpcError, SeedAction, SeedReport, SeedView};

use crate::advisor::MemoryLookup;
use crate::seeds::{self, SEED_SOURCE};
use crate::semantic::Prepared;
use crate::state::{store_error, Daemon};

/// Loads the seeds this home never had (or the one named, even if it was forgotten). Returns
/// how many were added.
fn load(d: &Daemon, only: Option<&str>) -> Result<usize, RpcError> {
    let loaded = d.store.seeds_loaded().map_err(store_error)?;
    let now = crate::exchange::now();
    let mut added = 0;
    for seed in seeds::pack() {
        let wanted = match only {
            Some(id) => seed.id == id,
            None => !loaded.contains(&seed.id),
        };
        if !wanted || d.store.memory(&seed.id).is_some() {
            continue;
        }
        d.put_memory(&seeds::memory_of(seed, &now), &Prepared::default())?;
        d.store.mark_seed_loaded(&seed.id).map_err(store_error)?;
        added += 1;
    }
    Ok(added)
}

fn set_pack(d: &Daemon, on: bool) -> Result<(), RpcError> {
    d.store.set_seed_pack(on).map_err(store_error)?;
    d.quiet.write().expect("quiet lock").pack_on = on;
    Ok(())
}

/// On a home's first start: the pack is loaded, unless `CAIRN_SEED_PACK` says `off`.
pub fn first_start(d: &Daemon) -> Result<(), RpcError> {
    if d.store.seed_pack().map_err(store_error)?.is_some() {
        return Ok(());
    }
    let off = std::env::var("CAIRN_SEED_PACK").is_ok_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "off" | "0" | "false" | "no"));
    if off {
        tracing::info!("seed pack not loaded (CAIRN_SEED_PACK=off); `cairn seed --enable` loads it");
        return set_pack(d, false);
    }
    let added = load(d, None)?;
    set_pack(d, true)?;
    d.store.flush().map_err(store_error)?;
    tracing::info!(seeds = added, "seed pack loaded");
    Ok(())
}

/// Takes on an exported home's advice state (the last line of an export): its mutes, its seeds
/// turned off, and its seed pack as it was: seeds it never had or had forgotten are taken out
/// again if this home loaded them by itself (only seeds still as the pack wrote them).
pub fn apply_state(d: &Daemon, state: &crate::exchange::AdviceState) -> Result<(), RpcError> {
    let _w = d.write_lock();
    let loaded: std::collections::HashSet<String> = state.seeds_loaded.iter().cloned().collect();
    let forgotten: std::collections::HashSet<&String> = state.seeds_forgotten.iter().collect();
    for seed in seeds::pack() {
        let pristine = d.store.get_memory(&seed.id).map_err(store_error)?.is_some_and(|m| m.source == SEED_SOURCE);
        if pristine && (!loaded.contains(&seed.id) || forgotten.contains(&seed.id)) {
            d.store.remove_memory(&seed.id).map_err(store_error)?;
            d.lexical.write().expect("index lock").remove(&seed.id);
            crate::semantic::drop_embedding(d, &seed.id);
            d.quiet.write().expect("quiet lock").seeds.remove(&seed.id);
            d.recent.lock().expect("recent lock").forget(&seed.id);
        }
    }
    d.store.set_seeds_loaded(&loaded).map_err(store_error)?;
    if let Some(on) = state.seed_pack {
        set_pack(d, on)?;
    }
    let mut quiet = d.quiet.write().expect("quiet lock");
    for id in &state.seeds_off {
        d.store.set_seed_off(id, true).map_err(store_error)?;
        quiet.seeds_off.insert(id.clone());
    }
    for id in &state.muted {
        d.store.set_muted(id, true).map_err(store_error)?;
        quiet.muted.insert(id.clone());
    }
    Ok(())
}

fn report(d: &Daemon) -> Result<SeedReport, RpcError> {
    let quiet = d.quiet.read().expect("quiet lock").clone();
    let loaded = d.store.seeds_loaded().map_err(store_error)?;
    let seeds = seeds::pack()
        .iter()
        .map(|s| {
            let state = match d.store.memory(&s.id) {
                None if loaded.contains(&s.id) => "forgotten",
                None => "not loaded",
                Some(m) if m.source != SEED_SOURCE => "yours",
                Some(_) if quiet.muted.contains(&s.id) || quiet.seeds_off.contains(&s.id) => "off",
                Some(_) if !quiet.pack_on => "pack off",
                Some(_) => "on",
            };
            // An edited seed is shown as the user wrote it.
            let text = d.store.memory(&s.id).filter(|m| m.source != SEED_SOURCE).map_or_else(|| s.text.clone(), |m| m.text);
            SeedView {
                id: s.id.clone(),
                category: s.category.clone(),
                priority: crate::advisor::rank::priority_name(s.priority).to_string(),
                text,
                state: state.to_string(),
                triggers: !s.triggers.is_empty(),
            }
        })
        .collect();
    Ok(SeedReport { pack_enabled: quiet.pack_on, seeds, notes: Vec::new() })
}

fn known(id: &str) -> Result<(), RpcError> {
    match seeds::find(id) {
        Some(_) => Ok(()),
        None => Err(RpcError::Invalid(format!("{id} is not a seed of the pack (see `cairn seed --list`)"))),
    }
}

fn is_yours(d: &Daemon, id: &str) -> bool {
    d.store.memory(id).is_some_and(|m| m.source != SEED_SOURCE)
}

pub async fn handle(d: &Daemon, action: SeedAction) -> Result<SeedReport, RpcError> {
    let mut notes = Vec::new();
    match action {
        SeedAction::List => return report(d),
        SeedAction::Enable(None) => {
            let added = tokio::task::block_in_place(|| {
                let added = load(d, None)?;
                set_pack(d, true)?;
                Ok::<_, RpcError>(added)
            })?;
            notes.push(format!("seed pack on{}", if added > 0 { format!(" ({added} seeds loaded)") } else { String::new() }));
        }
        SeedAction::Disable(None) => {
            set_pack(d, false)?;
            notes.push("seed pack off: its lessons are kept but not said (`cairn seed --enable` turns it on again)".into());
        }
        SeedAction::Enable(Some(id)) => {
            known(&id)?;
            let added = tokio::task::block_in_place(|| {
                let added = load(d, Some(&id))?;
                d.store.set_seed_off(&id, false).map_err(store_error)?;
                d.store.set_muted(&id, false).map_err(store_error)?;
                let mut quiet = d.quiet.write().expect("quiet lock");
                quiet.seeds_off.remove(&id);
                quiet.muted.remove(&id);
                Ok::<_, RpcError>(added)
            })?;
            notes.push(format!("{id} on{}", if added > 0 { " (loaded)" } else { "" }));
            if !d.quiet.read().expect("quiet lock").pack_on && !is_yours(d, &id) {
                notes.push("the seed pack is off, so it is not said yet: `cairn seed --enable` turns the pack on".into());
            }
        }
        SeedAction::Disable(Some(id)) => {
            known(&id)?;
            if is_yours(d, &id) {
                return Err(RpcError::Invalid(format!("{id} is yours now (you edited it), not the pack's: `cairn mute {id}` keeps it out of advice")));
            }
            d.store.set_seed_off(&id, true).map_err(store_error)?;
            d.quiet.write().expect("quiet lock").seeds_off.insert(id.clone());
            notes.push(format!("{id} off (kept, not said; `cairn seed --enable {id}` turns it on again)"));
        }
    }
    d.store.durable().await;
    let mut r = report(d)?;
    r.notes = notes;
    Ok(r)
}
