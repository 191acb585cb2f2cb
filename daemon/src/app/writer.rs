//! The memories and every index over them, and the one write path that keeps them in step.
//!
//! Every memory write (add, edit, forget, import, mute, the seed pack's toggles, pause, and the
//! memory graph's situations, edges and adjustment log) goes through a [`Writer`], which holds
//! the write lock and changes the store, the keyword index, the memory's embedding (store and
//! graph), the situations' index and the in-memory mirrors (what is kept quiet, the recent
//! changes, the outcome count, paused projects) together. Nothing else writes them: an index
//! never holds an older version than the store, and no mirror drifts from it.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use parking_lot::{Mutex, MutexGuard, RwLock, RwLockReadGuard};

use cairn_proto::{Edge, EdgeKind, Memory, Situation, GLOBAL_PROJECT};

use super::census::{Census, Counted};
use crate::advisor::lookup::{MemoryLookup, Quiet};
use crate::base::event::action_kind;
use crate::advisor::seeds::{self, SEED_SOURCE};
use crate::retrieval::lexical::{FieldWeights, LexicalDoc, LexicalIndex};
use crate::retrieval::recent::RecentChanges;
use crate::retrieval::situations::{Act, Situations};
use crate::semantic::sync::{drop_embedding, refresh};
use crate::semantic::{Prepared, Semantic};
use crate::retrieval::recall::RecallCache;
use crate::store::{Store, StoreError};

/// Queries whose hits are kept for when they come again: a session's usual commands and more.
const RECALLED: usize = 64;

pub struct Memories {
    store: Arc<Store>,
    semantic: Arc<Semantic>,
    lexical: RwLock<LexicalIndex>,
    /// The last queries' keyword and meaning hits, for a moment that comes again.
    recall: RecallCache,
    /// What is kept out of advice (muted memories, the seed pack's state), mirrored from the store.
    quiet: RwLock<Quiet>,
    /// Each project's most recently changed memories, for `resume`'s brief.
    recent: Mutex<RecentChanges>,
    /// Each project's most recently touched memories (accessed or changed), the startup brief's
    /// pool: a lesson in daily use stays in it however long ago it was written.
    touched: Mutex<RecentChanges>,
    /// Paused projects, mirrored from the store for the hook's quick check.
    paused: RwLock<HashSet<String>>,
    /// The memory graph's situations and their links, for the hook.
    situations: RwLock<Situations>,
    /// Outcomes recorded on memories (helpful + unhelpful), for the seeds' weight.
    outcomes: AtomicUsize,
    /// Captured lessons: candidates still earning their voice, and those promoted.
    captured: Mutex<Captured>,
    /// Every memory's project, category, source and last access, for the dashboard's counts.
    census: Mutex<Census>,
    /// Serialises store-and-index updates so an index never holds an older version than the store.
    writes: Mutex<()>,
}

/// A memory that is one of the pack's seeds, unedited (an imported line that merely says
/// `source: seed` under another id is the user's).
fn is_seed(m: &Memory) -> bool {
    m.source == SEED_SOURCE && seeds::find(&m.id).is_some()
}

fn outcome_count(m: &Memory) -> usize {
    (m.worth.helpful + m.worth.unhelpful) as usize
}

/// Puts `id` in `set` or takes it out.
fn toggle(set: &mut HashSet<String>, id: &str, on: bool) {
    if on {
        set.insert(id.to_string());
    } else {
        set.remove(id);
    }
}

/// An RFC 3339 time as Unix seconds (0 when it does not parse: the oldest).
pub fn unix_seconds(at: &str) -> f64 {
    crate::base::clock::parse_timestamp(at).map_or(0.0, |t| t.unix_timestamp() as f64)
}

/// The situations and their links, from the store, each vector with the model that made it
/// (the index compares a moment with it only under the same model, else by words).
fn load_situations(store: &Store) -> Result<Situations, StoreError> {
    let mut out = Situations::default();
    for s in store.all_situations() {
        let s = s?;
        let vector = store.situation_vector(&s.id)?;
        out.upsert(&s.id, &s.project, &s.text, Act { kind: &action_kind(&s.event, s.tool.as_deref()), command: s.shape.as_deref() }, vector, unix_seconds(&s.last_seen));
        for e in store.edges_from(&s.id)?.into_iter().filter(|e| e.kind == EdgeKind::Applies) {
            out.link(&e.source, &e.target, Some(e.strength));
        }
    }
    // The edges between lessons, for spreading activation.
    for e in store.edges_after(None) {
        let (_, e) = e?;
        if e.kind != EdgeKind::Applies && !e.source.starts_with(cairn_proto::SITUATION_PREFIX) {
            out.set_between(&e.source, &e.target, e.kind, Some(e.strength));
        }
    }
    Ok(out)
}

/// Ids of the captured lessons, by state, for `status` and the capture worker.
#[derive(Default)]
struct Captured {
    candidates: HashSet<String>,
    promoted: HashSet<String>,
}

impl Captured {
    fn note(&mut self, m: &Memory) {
        toggle(&mut self.candidates, &m.id, m.is_candidate());
        toggle(&mut self.promoted, &m.id, m.capture.as_ref().is_some_and(|c| c.promoted.is_some()));
    }

    fn forget(&mut self, id: &str) {
        self.candidates.remove(id);
        self.promoted.remove(id);
    }
}

/// When a memory was last touched: accessed or changed, whichever is later (both RFC 3339 in
/// UTC, which sort as text).
fn last_touch(m: &Memory) -> &str {
    match m.now.last_accessed.as_deref() {
        Some(a) if a > m.updated_at.as_str() => a,
        _ => &m.updated_at,
    }
}

fn doc(m: &Memory) -> LexicalDoc<'_> {
    LexicalDoc { id: &m.id, project: &m.project, text: &m.text, context: &m.context, tags: &m.tags, category: &m.category }
}

impl Memories {
    /// Reads every memory of `store` into the indexes and mirrors.
    pub fn load(store: Arc<Store>, semantic: Arc<Semantic>) -> Result<Memories, StoreError> {
        let mut lexical = LexicalIndex::new(FieldWeights::default());
        let mut seeds = HashSet::new();
        let mut outcomes = 0;
        let mut recent = RecentChanges::default();
        let mut touched = RecentChanges::default();
        let mut captured = Captured::default();
        let mut census = Census::default();
        for memory in store.memories_after(None) {
            let memory = memory?;
            captured.note(&memory);
            census.note(&memory);
            lexical.upsert(&doc(&memory));
            if is_seed(&memory) {
                seeds.insert(memory.id.clone());
            }
            outcomes += outcome_count(&memory);
            recent.note(&memory.project, &memory.id, &memory.updated_at);
            touched.note(&memory.project, &memory.id, last_touch(&memory));
        }
        let quiet = Quiet { muted: store.muted_ids()?, seeds_off: store.seeds_off()?, pack_on: store.seed_pack()?.unwrap_or(false), seeds };
        let paused = store.paused_projects()?.into_iter().collect();
        let situations = load_situations(&store)?;
        Ok(Memories {
            store,
            semantic,
            lexical: RwLock::new(lexical),
            recall: RecallCache::new(RECALLED),
            quiet: RwLock::new(quiet),
            recent: Mutex::new(recent),
            touched: Mutex::new(touched),
            paused: RwLock::new(paused),
            situations: RwLock::new(situations),
            outcomes: AtomicUsize::new(outcomes),
            captured: Mutex::new(captured),
            census: Mutex::new(census),
            writes: Mutex::new(()),
        })
    }

    /// One memory, or `None` (a store error is logged).
    pub fn get(&self, id: &str) -> Option<Memory> {
        self.store.memory(id)
    }

    pub fn count(&self) -> u64 {
        self.store.memory_count()
    }

    /// The keyword index, for reading.
    pub fn lexical(&self) -> RwLockReadGuard<'_, LexicalIndex> {
        self.lexical.read()
    }

    /// The last queries' hits (each kept only while the indexes it was found in are unchanged).
    pub fn recall(&self) -> &RecallCache {
        &self.recall
    }

    /// The situations' index, for reading.
    pub fn situations(&self) -> RwLockReadGuard<'_, Situations> {
        self.situations.read()
    }

    /// The store, for reading the graph.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// A snapshot of what is kept out of advice.
    pub fn quiet(&self) -> Quiet {
        self.quiet.read().clone()
    }

    /// Whether a memory is kept out of advice (`cairn mute`).
    pub fn is_muted(&self, id: &str) -> bool {
        self.quiet.read().muted.contains(id)
    }

    pub fn is_paused(&self, project: &str) -> bool {
        self.paused.read().contains(project)
    }

    /// Paused projects, sorted.
    pub fn paused(&self) -> Vec<String> {
        let mut p: Vec<String> = self.paused.read().iter().cloned().collect();
        p.sort();
        p
    }

    /// Ids of `project`'s most recently changed memories, newest first (a bounded pool).
    pub fn newest(&self, project: &str) -> Vec<String> {
        self.recent.lock().newest(project).iter().map(|(_, id)| id.clone()).collect()
    }

    /// Ids of `project`'s most recently touched memories (accessed or changed), latest first (a
    /// bounded pool).
    pub fn recently_touched(&self, project: &str) -> Vec<String> {
        self.touched.lock().newest(project).iter().map(|(_, id)| id.clone()).collect()
    }

    /// Ids of `project`'s memories changed after `since`, newest first.
    pub fn changed_since(&self, project: &str, since: &str) -> Vec<String> {
        self.recent.lock().changed_since(project, since)
    }

    /// A seed lesson's weight in the decision for an event in `projects` (its project and `global`),
    /// and what it rests on (see [`seeds::weight`]): the user's own lessons there count.
    pub fn seed_weight(&self, projects: &[&str]) -> (f64, String) {
        let seeds = if projects.contains(&GLOBAL_PROJECT) { self.quiet.read().seeds.len() } else { 0 };
        let own = self.lexical().count_in(projects).saturating_sub(seeds) as u64;
        let outcomes = self.outcomes.load(Ordering::Relaxed) as u64;
        (seeds::weight(own, outcomes), format!("{own} lessons of your own, {outcomes} outcomes"))
    }

    /// Ids of the candidates waiting for promotion, sorted.
    pub fn candidates(&self) -> Vec<String> {
        let mut v: Vec<String> = self.captured.lock().candidates.iter().cloned().collect();
        v.sort();
        v
    }

    /// Candidates and promoted captured lessons, every project's.
    pub fn captured_counts(&self) -> (u64, u64) {
        let c = self.captured.lock();
        (c.candidates.len() as u64, c.promoted.len() as u64)
    }

    /// Candidates and promoted captured lessons of the projects `keep` keeps.
    pub fn captured_counts_in(&self, keep: impl Fn(&str) -> bool) -> (u64, u64) {
        let (candidates, promoted): (Vec<String>, Vec<String>) = {
            let c = self.captured.lock();
            (c.candidates.iter().cloned().collect(), c.promoted.iter().cloned().collect())
        };
        let kept = |ids: &[String]| ids.iter().filter(|id| self.get(id).is_some_and(|m| keep(&m.project))).count() as u64;
        (kept(&candidates), kept(&promoted))
    }

    /// The memories of the projects `keep` keeps, counted for the dashboard (tiers as of `now`,
    /// Unix seconds), and every project with a memory.
    pub fn census(&self, keep: impl Fn(&str) -> bool, now: i64) -> (Counted, Vec<String>) {
        let c = self.census.lock();
        (c.count(keep, now), c.projects())
    }

    /// Holds memory writes off (for the semantic engine's catch-up under the same lock).
    pub fn hold(&self) -> MutexGuard<'_, ()> {
        self.writes.lock()
    }

    /// The write path: everything written through it changes together, under the write lock.
    pub fn writer(&self) -> Writer<'_> {
        Writer { m: self, _lock: self.hold() }
    }
}

/// Holds the write lock; every memory write goes through one.
pub struct Writer<'a> {
    m: &'a Memories,
    _lock: MutexGuard<'a, ()>,
}

impl Writer<'_> {
    /// The current version of a memory, read under the lock (to build the next one from it).
    pub fn get(&self, id: &str) -> Result<Option<Memory>, StoreError> {
        self.m.store.get_memory(id)
    }

    /// Stores a memory and brings the indexes, its embedding and the mirrors in line; not yet
    /// durable. `prepared` holds embeddings computed ahead. Returns the version it replaced.
    pub fn put(&self, memory: &Memory, prepared: &Prepared) -> Result<Option<Memory>, StoreError> {
        let m = self.m;
        let previous = m.store.put_memory(memory)?;
        m.lexical.write().upsert(&doc(memory));
        refresh(&m.store, &m.semantic, memory, prepared);
        {
            let mut quiet = m.quiet.write();
            if is_seed(memory) {
                quiet.seeds.insert(memory.id.clone());
            } else {
                quiet.seeds.remove(&memory.id);
            }
        }
        m.recent.lock().note(&memory.project, &memory.id, &memory.updated_at);
        m.touched.lock().note(&memory.project, &memory.id, last_touch(memory));
        m.captured.lock().note(memory);
        m.census.lock().note(memory);
        let (after, before) = (outcome_count(memory), previous.as_ref().map_or(0, outcome_count));
        let _ = m.outcomes.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| Some((v + after).saturating_sub(before)));
        Ok(previous)
    }

    /// Removes a memory, its edges, its embedding and everything kept of it (its mute included).
    pub fn remove(&self, id: &str) -> Result<Option<Memory>, StoreError> {
        let m = self.m;
        let removed = m.store.remove_memory(id)?;
        m.lexical.write().remove(id);
        drop_embedding(&m.store, &m.semantic, id);
        if let Some(memory) = &removed {
            m.store.set_muted(id, false)?;
            let mut quiet = m.quiet.write();
            quiet.muted.remove(id);
            quiet.seeds.remove(id);
            m.recent.lock().forget(id);
            m.touched.lock().forget(id);
            m.captured.lock().forget(id);
            m.census.lock().forget(id);
            m.situations.write().unlink_lesson(id);
            let n = outcome_count(memory);
            let _ = m.outcomes.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| Some(v.saturating_sub(n)));
        }
        Ok(removed)
    }

    /// Stores an edge (a situation's link is mirrored into the situations' index).
    pub fn link(&self, edge: &Edge) -> Result<Option<Edge>, StoreError> {
        let previous = self.m.store.put_edge(edge)?;
        if edge.kind == EdgeKind::Applies {
            self.m.situations.write().link(&edge.source, &edge.target, Some(edge.strength));
        } else if !edge.source.starts_with(cairn_proto::SITUATION_PREFIX) {
            self.m.situations.write().set_between(&edge.source, &edge.target, edge.kind, Some(edge.strength));
        }
        Ok(previous)
    }

    /// Removes an edge.
    pub fn unlink(&self, source: &str, target: &str, kind: EdgeKind) -> Result<Option<Edge>, StoreError> {
        let removed = self.m.store.remove_edge(source, target, kind.as_str())?;
        if kind == EdgeKind::Applies {
            self.m.situations.write().link(source, target, None);
        } else {
            self.m.situations.write().set_between(source, target, kind, None);
        }
        Ok(removed)
    }

    /// A situation, read under the lock.
    pub fn situation(&self, id: &str) -> Result<Option<Situation>, StoreError> {
        self.m.store.get_situation(id)
    }

    /// Stores a situation (and its embedding, made by the model `fingerprint` names).
    pub fn keep_situation(&self, situation: &Situation, vector: Option<(&str, &[f32])>) -> Result<(), StoreError> {
        self.m.store.put_situation(situation)?;
        if let Some((fingerprint, v)) = vector {
            self.m.store.put_situation_vector(&situation.id, fingerprint, v)?;
        }
        let vector = match vector {
            Some((fingerprint, v)) => Some((fingerprint.to_string(), v.to_vec())),
            None => self.m.store.situation_vector(&situation.id)?,
        };
        self.m.situations.write().upsert(&situation.id, &situation.project, &situation.text, Act { kind: &action_kind(&situation.event, situation.tool.as_deref()), command: situation.shape.as_deref() }, vector, unix_seconds(&situation.last_seen));
        Ok(())
    }

    /// Removes a situation with its links.
    pub fn drop_situation(&self, id: &str) -> Result<Option<Situation>, StoreError> {
        let removed = self.m.store.remove_situation(id)?;
        self.m.situations.write().remove(id);
        Ok(removed)
    }

    /// Appends a line to the graph's adjustment log (bounded to `max` lines).
    pub fn log_adjustment(&self, line: &serde_json::Value, max: usize) -> Result<(), StoreError> {
        self.m.store.append_adjustment(line, max)
    }

    /// Keeps a memory out of advice, or lets it back.
    /// A rejected text brought back from an export: capture never offers it again, and a
    /// candidate of the same words waiting in review goes, as a rejection in review takes it.
    pub fn restore_rejection(&self, project: Option<&str>, text: &str, candidate: Option<&str>) -> Result<(), StoreError> {
        self.m.store.restore_rejection(project, text, candidate)?;
        let words = crate::store::captures::text_key(text);
        for id in self.m.candidates() {
            let Some(m) = self.get(&id)? else { continue };
            if m.is_candidate() && project.is_none_or(|p| p == m.project) && crate::store::captures::text_key(&m.text) == words {
                self.remove(&id)?;
            }
        }
        Ok(())
    }

    pub fn mute(&self, id: &str, muted: bool) -> Result<(), StoreError> {
        self.m.store.set_muted(id, muted)?;
        toggle(&mut self.m.quiet.write().muted, id, muted);
        Ok(())
    }

    /// Turns the seed pack as a whole on or off.
    pub fn seed_pack(&self, on: bool) -> Result<(), StoreError> {
        self.m.store.set_seed_pack(on)?;
        self.m.quiet.write().pack_on = on;
        Ok(())
    }

    /// Turns one seed off, or on again.
    pub fn seed_off(&self, id: &str, off: bool) -> Result<(), StoreError> {
        self.m.store.set_seed_off(id, off)?;
        toggle(&mut self.m.quiet.write().seeds_off, id, off);
        Ok(())
    }

    /// Notes that a seed was loaded into this home (so a seed the user forgets stays forgotten).
    pub fn seed_loaded(&self, id: &str) -> Result<(), StoreError> {
        self.m.store.mark_seed_loaded(id)
    }

    /// Replaces the set of seeds ever loaded (an import of another home's state).
    pub fn seeds_loaded(&self, ids: &HashSet<String>) -> Result<(), StoreError> {
        self.m.store.set_seeds_loaded(ids)
    }

    /// Stops (or restarts) advice and recording for a project.
    pub fn pause(&self, project: &str, paused: bool) -> Result<(), StoreError> {
        self.m.store.set_paused(project, paused)?;
        toggle(&mut self.m.paused.write(), project, paused);
        Ok(())
    }
}

