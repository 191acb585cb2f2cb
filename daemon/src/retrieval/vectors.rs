//! The semantic index: one usearch HNSW graph (cosine, f16 vectors) per project, so a search
//! for project A reads A's graph and `global`'s and nothing else, by construction.
//!
//! Every embedding the store holds has a key that is new each time the memory is embedded, so
//! "the graph holds this key" means "the graph holds this version". The graphs are saved beside
//! the store now and then and at shutdown (never rewritten per insert); at load they are
//! reconciled with the store: keys the graph lacks are added from the stored vectors, and a graph
//! holding keys the store no longer names is rebuilt from the store. A manifest records the
//! model's fingerprint and dimension, and graphs built by another model are not loaded.

use foldhash::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use usearch::{Index, IndexOptions, MetricKind, ScalarKind};

use super::recall::Stamp;
use super::examples::{Examples, LessonExamples};

const MANIFEST: &str = "manifest.json";
const MANIFEST_VERSION: u32 = 1;
/// Candidates the graph search keeps while it walks (at least the number asked for).
const EXPANSION_SEARCH: usize = 64;

#[derive(Debug, thiserror::Error)]
pub enum VectorError {
    #[error("vector index: {0}")]
    Index(String),
    #[error("vector index file {path}: {message}")]
    File { path: PathBuf, message: String },
    #[error("a vector of dimension {found} does not fit an index of dimension {expected}")]
    Dimension { found: usize, expected: usize },
}

fn index_err(e: impl std::fmt::Display) -> VectorError {
    VectorError::Index(e.to_string())
}

#[derive(Debug, Serialize, Deserialize)]
struct Manifest {
    version: u32,
    fingerprint: String,
    dimension: usize,
    /// Project -> file stem of its graph.
    parts: std::collections::BTreeMap<String, String>,
}

/// One embedding the store holds, as the index sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredKey {
    pub id: String,
    pub project: String,
    pub key: u64,
}

/// What reconciling a loaded index with the store did.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Repair {
    /// Vectors the saved graphs lacked (written after the last save).
    pub added: usize,
    /// Graphs rebuilt because they held versions the store no longer has.
    pub rebuilt_parts: usize,
    /// Stored embeddings whose vector could not be read.
    pub unreadable: usize,
}

struct Part {
    project: String,
    index: Index,
    ids: HashMap<u64, Arc<str>>,
    /// Changed since the last save (atomic: saving needs only a shared borrow).
    dirty: std::sync::atomic::AtomicBool,
}

fn flag(value: bool) -> std::sync::atomic::AtomicBool {
    std::sync::atomic::AtomicBool::new(value)
}

#[derive(Clone, Copy)]
struct Entry {
    part: usize,
    key: u64,
}

/// The graphs of every project, with the mapping between memory ids and graph keys.
pub struct VectorIndex {
    dimension: usize,
    fingerprint: String,
    parts: Vec<Part>,
    part_of: HashMap<String, usize>,
    entries: HashMap<Arc<str>, Entry>,
    /// Lessons' example moments, embedded: not in the graph files, rebuilt when the model loads.
    examples: Examples,
    /// This state of the index (every change takes a new one), for [`super::recall`].
    stamp: Stamp,
}

fn options(dimension: usize) -> IndexOptions {
    IndexOptions {
        dimensions: dimension,
        metric: MetricKind::Cos,
        // f16 kept recall at 0.998 against exact search on this model; i8 lost recall.
        quantization: ScalarKind::F16,
        connectivity: 0,
        expansion_add: 0,
        expansion_search: EXPANSION_SEARCH,
        multi: false,
    }
}

fn new_graph(dimension: usize) -> Result<Index, VectorError> {
    let index = Index::new(&options(dimension)).map_err(index_err)?;
    index.change_expansion_search(EXPANSION_SEARCH);
    Ok(index)
}

/// File stem of a project's graph: project names are free strings (often paths).
fn stem(project: &str) -> String {
    let digest = Sha256::digest(project.as_bytes());
    digest.iter().take(10).map(|b| format!("{b:02x}")).collect()
}

fn write_atomically(path: &Path, write: impl FnOnce(&Path) -> Result<(), VectorError>) -> Result<(), VectorError> {
    let tmp = path.with_extension("tmp");
    write(&tmp)?;
    std::fs::rename(&tmp, path).map_err(|e| VectorError::File { path: path.to_path_buf(), message: e.to_string() })
}

impl VectorIndex {
    pub fn new(dimension: usize, fingerprint: &str) -> VectorIndex {
        VectorIndex { dimension, fingerprint: fingerprint.to_string(), parts: Vec::new(), part_of: HashMap::default(), entries: HashMap::default(), examples: Examples::default(), stamp: Stamp::fresh() }
    }

    /// This state of the index: any change gives it a new stamp.
    pub fn stamp(&self) -> Stamp {
        self.stamp
    }

    /// The model whose vectors the index holds.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    pub fn dimension(&self) -> usize {
        self.dimension
    }

    /// Memories with a vector in the index.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The key of `id`'s vector in the index, if it has one.
    pub fn key_of(&self, id: &str) -> Option<u64> {
        self.entries.get(id).map(|e| e.key)
    }

    /// Whether any change awaits a save.
    pub fn is_dirty(&self) -> bool {
        self.parts.iter().any(|p| p.dirty.load(std::sync::atomic::Ordering::Relaxed))
    }

    fn part(&mut self, project: &str) -> Result<usize, VectorError> {
        if let Some(&p) = self.part_of.get(project) {
            return Ok(p);
        }
        let index = new_graph(self.dimension)?;
        self.parts.push(Part { project: project.to_string(), index, ids: HashMap::default(), dirty: flag(true) });
        self.part_of.insert(project.to_string(), self.parts.len() - 1);
        Ok(self.parts.len() - 1)
    }

    fn add_to(&mut self, part: usize, id: Arc<str>, key: u64, vector: &[f32]) -> Result<(), VectorError> {
        self.stamp = Stamp::fresh();
        let p = &mut self.parts[part];
        if p.index.size() + 1 > p.index.capacity() {
            p.index.reserve((p.index.capacity() * 2).max(64)).map_err(index_err)?;
        }
        p.index.add(key, vector).map_err(index_err)?;
        p.ids.insert(key, id.clone());
        *p.dirty.get_mut() = true;
        self.entries.insert(id, Entry { part, key });
        Ok(())
    }

    /// Puts `vector` as `id`'s (replacing its previous vector, in whatever project that was).
    pub fn upsert(&mut self, id: &str, project: &str, key: u64, vector: &[f32]) -> Result<(), VectorError> {
        if vector.len() != self.dimension {
            return Err(VectorError::Dimension { found: vector.len(), expected: self.dimension });
        }
        self.remove_vector(id)?;
        let part = self.part(project)?;
        self.add_to(part, Arc::from(id), key, vector)
    }

    /// Takes `id` out: its vector and its examples; whether it had a vector.
    pub fn remove(&mut self, id: &str) -> Result<bool, VectorError> {
        // `remove_vector` takes the new stamp.
        self.examples.remove(id);
        self.remove_vector(id)
    }

    /// The lessons' example moments.
    pub fn examples(&self) -> &Examples {
        &self.examples
    }

    /// Sets (`Some`) or drops (`None`) `id`'s example moments.
    pub fn set_examples(&mut self, id: &str, examples: Option<LessonExamples>) -> Result<(), VectorError> {
        self.stamp = Stamp::fresh();
        match examples {
            None => {
                self.examples.remove(id);
            }
            Some(e) => {
                if let Some(v) = e.applies.iter().chain(&e.not).find(|m| m.vector.len() != self.dimension) {
                    return Err(VectorError::Dimension { found: v.vector.len(), expected: self.dimension });
                }
                self.examples.set(id, e);
            }
        }
        Ok(())
    }

    /// Takes `id`'s vector out and keeps its examples (its text changed and is not embedded
    /// yet); whether it had one.
    pub fn remove_vector(&mut self, id: &str) -> Result<bool, VectorError> {
        self.stamp = Stamp::fresh();
        let Some(entry) = self.entries.remove(id) else { return Ok(false) };
        let p = &mut self.parts[entry.part];
        p.index.remove(entry.key).map_err(index_err)?;
        p.ids.remove(&entry.key);
        *p.dirty.get_mut() = true;
        Ok(true)
    }

    /// The `k` memories most similar to `query` among `projects`, most similar first, with their
    /// cosine similarity.
    pub fn search(&self, query: &[f32], projects: &[&str], k: usize) -> Vec<(String, f32)> {
        if query.len() != self.dimension || k == 0 {
            return Vec::new();
        }
        let mut hits: Vec<(String, f32)> = Vec::new();
        for project in projects {
            let Some(&p) = self.part_of.get(*project) else { continue };
            let part = &self.parts[p];
            if part.index.size() == 0 {
                continue;
            }
            let found = match part.index.search(query, k) {
                Ok(m) => m,
                Err(e) => {
                    tracing::error!(error = %e, project, "vector search failed");
                    continue;
                }
            };
            for (key, distance) in found.keys.iter().zip(&found.distances) {
                if let Some(id) = part.ids.get(key) {
                    hits.push((id.to_string(), 1.0 - distance));
                }
            }
        }
        hits.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        hits.truncate(k);
        hits
    }

    /// `id`'s vector as the index holds it (f16 precision).
    pub fn vector(&self, id: &str) -> Option<Vec<f32>> {
        let entry = self.entries.get(id)?;
        let mut out = vec![0f32; self.dimension];
        match self.parts[entry.part].index.get(entry.key, &mut out) {
            Ok(1) => Some(out),
            _ => None,
        }
    }

    /// Writes the graphs that changed, then the manifest; returns how many graphs were written.
    /// Each file is written beside its place and renamed, so a crash leaves old or new, never half.
    pub fn save(&self, dir: &Path) -> Result<usize, VectorError> {
        std::fs::create_dir_all(dir).map_err(|e| VectorError::File { path: dir.to_path_buf(), message: e.to_string() })?;
        let mut written = 0;
        let mut parts = std::collections::BTreeMap::new();
        use std::sync::atomic::Ordering::Relaxed;
        for part in &self.parts {
            let file = dir.join(format!("{}.usearch", stem(&part.project)));
            if part.ids.is_empty() {
                if part.dirty.swap(false, Relaxed) {
                    let _ = std::fs::remove_file(&file);
                }
                continue;
            }
            if part.dirty.swap(false, Relaxed) {
                let name = file.clone();
                let saved = write_atomically(&file, |tmp| {
                    part.index.save(&tmp.to_string_lossy()).map_err(|e| VectorError::File { path: name.clone(), message: e.to_string() })
                });
                if let Err(e) = saved {
                    part.dirty.store(true, Relaxed);
                    return Err(e);
                }
                written += 1;
            }
            parts.insert(part.project.clone(), stem(&part.project));
        }
        let manifest = Manifest { version: MANIFEST_VERSION, fingerprint: self.fingerprint.clone(), dimension: self.dimension, parts };
        let path = dir.join(MANIFEST);
        write_atomically(&path, |tmp| {
            std::fs::write(tmp, serde_json::to_vec_pretty(&manifest).expect("manifest serialises"))
                .map_err(|e| VectorError::File { path: path.clone(), message: e.to_string() })
        })?;
        Ok(written)
    }

    /// Loads the graphs saved in `dir` for this model, reconciled with what the store holds:
    /// `stored` lists every current embedding, `vector_of` reads one from the store. Graphs of
    /// another model (or dimension) are left unread; the reason is returned beside the index.
    pub fn load(
        dir: &Path,
        fingerprint: &str,
        dimension: usize,
        stored: &[StoredKey],
        vector_of: impl Fn(&str) -> Option<Vec<f32>>,
    ) -> Result<(VectorIndex, Repair, Option<String>), VectorError> {
        let mut index = VectorIndex::new(dimension, fingerprint);
        let mut skipped = None;
        match std::fs::read(dir.join(MANIFEST)) {
            Ok(bytes) => match serde_json::from_slice::<Manifest>(&bytes) {
                Ok(m) if m.fingerprint == fingerprint && m.dimension == dimension && m.version == MANIFEST_VERSION => {
                    for (project, file_stem) in m.parts {
                        let path = dir.join(format!("{file_stem}.usearch"));
                        match Index::restore(&path.to_string_lossy()) {
                            Ok(graph) if graph.dimensions() == dimension => {
                                graph.change_expansion_search(EXPANSION_SEARCH);
                                index.parts.push(Part { project: project.clone(), index: graph, ids: HashMap::default(), dirty: flag(false) });
                                index.part_of.insert(project, index.parts.len() - 1);
                            }
                            Ok(_) => tracing::warn!(file = %path.display(), "vector graph has another dimension; rebuilding it"),
                            Err(e) => tracing::warn!(file = %path.display(), error = %e, "cannot read vector graph; rebuilding it from the store"),
                        }
                    }
                }
                Ok(m) => skipped = Some(format!("the index was built by model {} (dimension {}); this model is {fingerprint} (dimension {dimension})", m.fingerprint, m.dimension)),
                Err(e) => skipped = Some(format!("unreadable index manifest: {e}")),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => skipped = Some(format!("cannot read the index manifest: {e}")),
        }
        let repair = index.reconcile(stored, vector_of)?;
        Ok((index, repair, skipped))
    }

    /// Brings the index in line with `stored`: maps the keys it holds, adds what it lacks from
    /// the store, rebuilds graphs holding keys the store no longer names, and forgets ids the
    /// store does not list.
    pub fn reconcile(&mut self, stored: &[StoredKey], vector_of: impl Fn(&str) -> Option<Vec<f32>>) -> Result<Repair, VectorError> {
        let mut repair = Repair::default();
        let listed: std::collections::HashSet<&str> = stored.iter().map(|s| s.id.as_str()).collect();
        let gone: Vec<Arc<str>> = self.entries.keys().filter(|id| !listed.contains(&***id)).cloned().collect();
        for id in gone {
            self.remove(&id)?;
        }
        for s in stored {
            let current = self.entries.get(s.id.as_str()).copied();
            let in_place = current.is_some_and(|e| e.key == s.key && self.parts[e.part].project == s.project);
            if in_place {
                continue;
            }
            let part = self.part(&s.project)?;
            // A graph read from disk holds keys nobody has mapped yet.
            if current.is_none() && self.parts[part].index.contains(s.key) && !self.parts[part].ids.contains_key(&s.key) {
                let id: Arc<str> = Arc::from(s.id.as_str());
                self.parts[part].ids.insert(s.key, id.clone());
                self.entries.insert(id, Entry { part, key: s.key });
                continue;
            }
            match vector_of(&s.id) {
                Some(v) if v.len() == self.dimension => {
                    self.upsert(&s.id, &s.project, s.key, &v)?;
                    repair.added += 1;
                }
                _ => {
                    self.remove(&s.id)?;
                    repair.unreadable += 1;
                }
            }
        }
        // Keys in a graph that nobody maps are versions the store has replaced or deleted.
        for p in 0..self.parts.len() {
            if self.parts[p].index.size() > self.parts[p].ids.len() {
                self.rebuild_part(p)?;
                repair.rebuilt_parts += 1;
            }
        }
        Ok(repair)
    }

    /// Rebuilds one graph from the vectors it holds under mapped keys.
    fn rebuild_part(&mut self, p: usize) -> Result<(), VectorError> {
        self.stamp = Stamp::fresh();
        let fresh = new_graph(self.dimension)?;
        let part = &self.parts[p];
        fresh.reserve(part.ids.len().max(64)).map_err(index_err)?;
        let mut buf = vec![0f32; self.dimension];
        let mut lost = Vec::new();
        for (&key, id) in &part.ids {
            match part.index.get(key, &mut buf) {
                Ok(1) => fresh.add(key, &buf).map_err(index_err)?,
                _ => lost.push(id.clone()),
            }
        }
        let part = &mut self.parts[p];
        part.index = fresh;
        *part.dirty.get_mut() = true;
        for id in lost {
            if let Some(e) = self.entries.remove(&id) {
                self.parts[p].ids.remove(&e.key);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(seed: u64, dim: usize) -> Vec<f32> {
        // A deterministic pseudo-random unit vector.
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut v: Vec<f32> = (0..dim)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % 2000) as f32 / 1000.0 - 1.0
            })
            .collect();
        crate::retrieval::similarity::normalize(&mut v);
        v
    }

    const DIM: usize = 16;

    #[test]
    fn searches_stay_within_their_projects() {
        let mut idx = VectorIndex::new(DIM, "fp");
        idx.upsert("a1", "alpha", 1, &unit(1, DIM)).unwrap();
        idx.upsert("b1", "beta", 2, &unit(1, DIM)).unwrap();
        idx.upsert("g1", "global", 3, &unit(2, DIM)).unwrap();
        let hits = idx.search(&unit(1, DIM), &["alpha", "global"], 10);
        let ids: Vec<&str> = hits.iter().map(|h| h.0.as_str()).collect();
        assert_eq!(ids, vec!["a1", "g1"]);
        assert!((hits[0].1 - 1.0).abs() < 1e-3, "identical vectors have similarity 1: {}", hits[0].1);
        assert!(idx.search(&unit(1, DIM), &["nobody"], 10).is_empty());
    }

    #[test]
    fn upsert_moves_and_replaces() {
        let mut idx = VectorIndex::new(DIM, "fp");
        idx.upsert("m", "alpha", 1, &unit(1, DIM)).unwrap();
        idx.upsert("m", "beta", 2, &unit(2, DIM)).unwrap();
        assert_eq!(idx.len(), 1);
        assert!(idx.search(&unit(1, DIM), &["alpha"], 5).is_empty());
        assert_eq!(idx.search(&unit(2, DIM), &["beta"], 5)[0].0, "m");
        assert!(idx.remove("m").unwrap());
        assert!(!idx.remove("m").unwrap());
        assert!(idx.is_empty());
        assert!(matches!(idx.upsert("x", "alpha", 9, &[1.0]), Err(VectorError::Dimension { .. })));
    }

    #[test]
    fn saved_graphs_reload_and_are_reconciled_with_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let vectors: HashMap<String, Vec<f32>> = (0..40).map(|i| (format!("m{i}"), unit(i, DIM))).collect();
        let mut stored: Vec<StoredKey> = (0..40).map(|i| StoredKey { id: format!("m{i}"), project: if i % 2 == 0 { "a".into() } else { "global".into() }, key: i }).collect();
        let mut idx = VectorIndex::new(DIM, "fp");
        for s in &stored {
            idx.upsert(&s.id, &s.project, s.key, &vectors[&s.id]).unwrap();
        }
        assert_eq!(idx.save(dir.path()).unwrap(), 2);
        assert!(!idx.is_dirty());

        // After the save: m0 re-embedded (new key), m1 deleted, m40 added. Then a "crash".
        let mut vectors = vectors;
        vectors.insert("m0".into(), unit(100, DIM));
        vectors.insert("m40".into(), unit(40, DIM));
        vectors.remove("m1");
        stored[0].key = 1000;
        stored.remove(1);
        stored.push(StoredKey { id: "m40".into(), project: "a".into(), key: 40 });

        let (loaded, repair, skipped) = VectorIndex::load(dir.path(), "fp", DIM, &stored, |id| vectors.get(id).cloned()).unwrap();
        assert!(skipped.is_none());
        assert_eq!(loaded.len(), 40);
        assert_eq!(repair.added, 2, "m0's new version and m40");
        assert_eq!(repair.rebuilt_parts, 2, "both graphs held a replaced or deleted version");
        for s in &stored {
            assert_eq!(loaded.key_of(&s.id), Some(s.key));
            let top = &loaded.search(&vectors[&s.id], &[s.project.as_str()], 1)[0];
            assert_eq!(top.0, s.id);
        }
        assert!(loaded.search(&unit(1, DIM), &["global"], 40).iter().all(|h| h.0 != "m1"), "a deleted memory never comes back");
    }

    #[test]
    fn another_model_s_graphs_are_not_loaded() {
        let dir = tempfile::tempdir().unwrap();
        let mut idx = VectorIndex::new(DIM, "old-model");
        idx.upsert("m", "a", 1, &unit(1, DIM)).unwrap();
        idx.save(dir.path()).unwrap();
        let stored = vec![StoredKey { id: "m".into(), project: "a".into(), key: 1 }];
        let (loaded, _, skipped) = VectorIndex::load(dir.path(), "new-model", DIM, &[], |_| None).unwrap();
        assert!(loaded.is_empty());
        assert!(skipped.unwrap().contains("old-model"));
        let (same, repair, _) = VectorIndex::load(dir.path(), "old-model", DIM, &stored, |_| None).unwrap();
        assert_eq!((same.len(), repair.added), (1, 0), "the saved graph is used as it is");
    }

    #[test]
    fn a_corrupt_graph_is_rebuilt_from_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let mut idx = VectorIndex::new(DIM, "fp");
        idx.upsert("m", "a", 1, &unit(1, DIM)).unwrap();
        idx.save(dir.path()).unwrap();
        std::fs::write(dir.path().join(format!("{}.usearch", stem("a"))), b"garbage").unwrap();
        let stored = vec![StoredKey { id: "m".into(), project: "a".into(), key: 1 }];
        let (loaded, repair, _) = VectorIndex::load(dir.path(), "fp", DIM, &stored, |_| Some(unit(1, DIM))).unwrap();
        assert_eq!((loaded.len(), repair.added), (1, 1));
        assert_eq!(loaded.search(&unit(1, DIM), &["a"], 1)[0].0, "m");
    }
}
