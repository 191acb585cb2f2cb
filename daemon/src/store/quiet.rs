//! What the user keeps out of advice without deleting it: muted memories, and the seed pack's
//! state (on or off as a whole, seeds turned off one by one, and which seeds were ever loaded, so
//! that a seed the user forgot is not loaded again).

use std::collections::HashSet;

use super::codec::StoreError;
use super::Store;

const PACK: &[u8] = b"pack";
const LOADED: &[u8] = b"loaded\0";
const OFF: &[u8] = b"off\0";

fn ids_with_prefix(tree: &sled::Tree, prefix: &[u8]) -> Result<HashSet<String>, StoreError> {
    tree.scan_prefix(prefix).keys().map(|k| Ok(String::from_utf8_lossy(&k?[prefix.len()..]).into_owned())).collect()
}

fn set_flag(tree: &sled::Tree, key: Vec<u8>, on: bool) -> Result<bool, StoreError> {
    let changed = if on { tree.insert(key, b"")?.is_none() } else { tree.remove(key)?.is_some() };
    Ok(changed)
}

impl Store {
    /// Ids of the memories kept out of advice.
    pub fn muted_ids(&self) -> Result<HashSet<String>, StoreError> {
        self.muted.iter().keys().map(|k| Ok(String::from_utf8_lossy(&k?).into_owned())).collect()
    }

    /// Mutes or unmutes a memory; whether anything changed.
    pub fn set_muted(&self, id: &str, muted: bool) -> Result<bool, StoreError> {
        set_flag(&self.muted, id.as_bytes().to_vec(), muted)
    }

    /// Whether the seed pack is on; `None` in a home that has not decided yet (its first start).
    pub fn seed_pack(&self) -> Result<Option<bool>, StoreError> {
        Ok(self.seed_state.get(PACK)?.map(|v| v.as_ref() == b"on"))
    }

    pub fn set_seed_pack(&self, on: bool) -> Result<(), StoreError> {
        self.seed_state.insert(PACK, if on { &b"on"[..] } else { &b"off"[..] })?;
        Ok(())
    }

    /// Seeds ever loaded into this home.
    pub fn seeds_loaded(&self) -> Result<HashSet<String>, StoreError> {
        ids_with_prefix(&self.seed_state, LOADED)
    }

    pub fn mark_seed_loaded(&self, id: &str) -> Result<(), StoreError> {
        set_flag(&self.seed_state, [LOADED, id.as_bytes()].concat(), true).map(|_| ())
    }

    /// Replaces the set of seeds ever loaded.
    pub fn set_seeds_loaded(&self, ids: &HashSet<String>) -> Result<(), StoreError> {
        for id in self.seeds_loaded()? {
            if !ids.contains(&id) {
                set_flag(&self.seed_state, [LOADED, id.as_bytes()].concat(), false)?;
            }
        }
        for id in ids {
            self.mark_seed_loaded(id)?;
        }
        Ok(())
    }

    /// Seeds turned off one by one.
    pub fn seeds_off(&self) -> Result<HashSet<String>, StoreError> {
        ids_with_prefix(&self.seed_state, OFF)
    }

    pub fn set_seed_off(&self, id: &str, off: bool) -> Result<bool, StoreError> {
        set_flag(&self.seed_state, [OFF, id.as_bytes()].concat(), off)
    }
}
