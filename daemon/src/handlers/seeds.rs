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
            SeedView {
                id: s.id.clone(),
                category: s.category.clone(),
                priority: crate::advisor::rank::priority_name(s.priority).to_string(),
                text: s.text.clone(),
                state: state.to_string(),
                triggers: !s.triggers.is_empty(),
            }
        })
        .collect();
    Ok(SeedReport { pack_enabled: quiet.pack_on, seeds })
}

fn known(id: &str) -> Result<(), RpcError> {
    match seeds::find(id) {
        Some(_) => Ok(()),
        None => Err(RpcError::Invalid(format!("{id} is not a seed of the pack (see `cairn seed --list`)"))),
    }
}

pub async fn handle(d: &Daemon, action: SeedAction) -> Result<SeedReport, RpcError> {
    match action {
        SeedAction::List => return report(d),
        SeedAction::Enable(None) => {
            tokio::task::block_in_place(|| {
                load(d, None)?;
                set_pack(d, true)
            })?;
        }
        SeedAction::Disable(None) => set_pack(d, false)?,
        SeedAction::Enable(Some(id)) => {
            known(&id)?;
            tokio::task::block_in_place(|| {
                load(d, Some(&id))?;
                d.store.set_seed_off(&id, false).map_err(store_error)?;
                d.quiet.write().expect("quiet lock").seeds_off.remove(&id);
                Ok::<_, RpcError>(())
            })?;
        }
        SeedAction::Disable(Some(id)) => {
            known(&id)?;
            d.store.set_seed_off(&id, true).map_err(store_error)?;
            d.quiet.write().expect("quiet lock").seeds_off.insert(id);
        }
    }
    d.store.durable().await;
    report(d)
}
