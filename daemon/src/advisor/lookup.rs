//! Reading memories by id for the advisor (the store, or a map in tests and benchmarks), and
//! what the user keeps out of advice: muted memories, and seeds while the pack or the seed is off.

use std::collections::{HashMap, HashSet};

use cairn_proto::Memory;

use crate::store::Store;

/// Looks memories up by id.
pub trait MemoryLookup {
    fn memory(&self, id: &str) -> Option<Memory>;
    /// Whether a memory may be advised at all (not muted, not a seed turned off). Checked before
    /// a memory is read where only its id is known.
    fn audible(&self, _id: &str) -> bool {
        true
    }
}

impl MemoryLookup for HashMap<String, Memory> {
    fn memory(&self, id: &str) -> Option<Memory> {
        self.get(id).cloned()
    }
}

impl MemoryLookup for Store {
    fn memory(&self, id: &str) -> Option<Memory> {
        match self.get_memory(id) {
            Ok(m) => m,
            Err(e) => {
                tracing::error!(error = %e, id, "cannot read memory");
                None
            }
        }
    }
}

/// What the user keeps out of advice.
#[derive(Debug, Clone, Default)]
pub struct Quiet {
    pub muted: HashSet<String>,
    pub seeds_off: HashSet<String>,
    pub pack_on: bool,
    /// Ids of the memories that are seeds now (source `seed`, not edited since).
    pub seeds: HashSet<String>,
}

impl Quiet {
    /// Whether the memory `id` is kept out of advice.
    pub fn silences(&self, id: &str) -> bool {
        self.muted.contains(id) || (self.seeds.contains(id) && (!self.pack_on || self.seeds_off.contains(id)))
    }
}

/// A lookup that hides what the user keeps out of advice.
pub struct Audible<'a, L: MemoryLookup> {
    pub lookup: &'a L,
    pub quiet: &'a Quiet,
}

impl<L: MemoryLookup> MemoryLookup for Audible<'_, L> {
    fn memory(&self, id: &str) -> Option<Memory> {
        if self.quiet.silences(id) {
            return None;
        }
        self.lookup.memory(id)
    }

    fn audible(&self, id: &str) -> bool {
        !self.quiet.silences(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quiet_hides_mutes_and_seeds_that_are_off() {
        let mut q = Quiet { pack_on: true, ..Quiet::default() };
        q.seeds.insert("seed-a".into());
        q.muted.insert("mine".into());
        assert!(q.silences("mine") && !q.silences("seed-a") && !q.silences("other"));
        q.seeds_off.insert("seed-a".into());
        assert!(q.silences("seed-a"));
        q.seeds_off.clear();
        q.pack_on = false;
        assert!(q.silences("seed-a"), "the pack off silences its seeds");
        assert!(!q.silences("seed-b"), "an id that is no seed now is the user's");
        let m = crate::exchange::new_memory("mine".into(), "p".into(), "t".into(), "git".into(), "user".into(), vec![], String::new());
        let map: HashMap<String, Memory> = [("mine".to_string(), m)].into();
        let audible = Audible { lookup: &map, quiet: &q };
        assert!(audible.memory("mine").is_none() && !audible.audible("mine"));
    }
}
