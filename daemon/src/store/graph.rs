//! The memory graph in the store: situations (moments where a lesson was judged to apply or
//! not), edges indexed both ways (`edges` by source, `edges_in` by target), and the adjustment
//! log, one JSON record per change, keyed by a rising id so that it reads in the order it was
//! written and the oldest go first past its bound. All in the one sled database, so a change to the graph and its line
//! in the log reach the disk together.

use cairn_proto::{Edge, Situation};
use sled::transaction::ConflictableTransactionResult;
use sled::Transactional;
use serde_json::Value;

use super::codec::{adjustment_index_key, adjustment_subjects, decode, encode, StoreError};
use super::Store;

pub(super) fn edge_key(source: &str, target: &str, kind: &str) -> Vec<u8> {
    [source.as_bytes(), b"\0", target.as_bytes(), b"\0", kind.as_bytes()].concat()
}

pub(super) fn reverse_key(source: &str, target: &str, kind: &str) -> Vec<u8> {
    [target.as_bytes(), b"\0", source.as_bytes(), b"\0", kind.as_bytes()].concat()
}

/// The source, target and kind in a reverse key.
fn split_reverse(key: &[u8]) -> Option<(String, String, String)> {
    let mut parts = key.split(|b| *b == 0);
    let target = String::from_utf8(parts.next()?.to_vec()).ok()?;
    let source = String::from_utf8(parts.next()?.to_vec()).ok()?;
    let kind = String::from_utf8(parts.next()?.to_vec()).ok()?;
    Some((source, target, kind))
}

impl Store {
    /// Stores an edge and its reverse entry together (one transaction over both trees).
    pub fn put_edge(&self, edge: &Edge) -> Result<Option<Edge>, StoreError> {
        let key = edge_key(&edge.source, &edge.target, edge.kind.as_str());
        let reverse = reverse_key(&edge.source, &edge.target, edge.kind.as_str());
        let bytes = encode(edge);
        let previous = (&self.edges, &self.edges_in).transaction(|(edges, edges_in)| -> ConflictableTransactionResult<Option<sled::IVec>, ()> {
            edges_in.insert(reverse.as_slice(), &[] as &[u8])?;
            Ok(edges.insert(key.as_slice(), bytes.as_slice())?)
        })?;
        previous.map(|bytes| decode(&key, &bytes)).transpose()
    }

    pub fn get_edge(&self, source: &str, target: &str, kind: &str) -> Result<Option<Edge>, StoreError> {
        let key = edge_key(source, target, kind);
        self.edges.get(&key)?.map(|bytes| decode(&key, &bytes)).transpose()
    }

    pub fn remove_edge(&self, source: &str, target: &str, kind: &str) -> Result<Option<Edge>, StoreError> {
        let key = edge_key(source, target, kind);
        let reverse = reverse_key(source, target, kind);
        let removed = (&self.edges, &self.edges_in).transaction(|(edges, edges_in)| -> ConflictableTransactionResult<Option<sled::IVec>, ()> {
            edges_in.remove(reverse.as_slice())?;
            Ok(edges.remove(key.as_slice())?)
        })?;
        removed.map(|bytes| decode(&key, &bytes)).transpose()
    }

    /// Edges out of `source`.
    pub fn edges_from(&self, source: &str) -> Result<Vec<Edge>, StoreError> {
        let prefix = [source.as_bytes(), b"\0"].concat();
        self.edges
            .scan_prefix(&prefix)
            .map(|item| {
                let (key, value) = item?;
                decode(&key, &value)
            })
            .collect()
    }

    /// Edges into `target`.
    pub fn edges_to(&self, target: &str) -> Result<Vec<Edge>, StoreError> {
        let prefix = [target.as_bytes(), b"\0"].concat();
        let mut out = Vec::new();
        for item in self.edges_in.scan_prefix(&prefix) {
            let (key, _) = item?;
            let Some((source, target, kind)) = split_reverse(&key) else { continue };
            if let Some(edge) = self.get_edge(&source, &target, &kind)? {
                out.push(edge);
            }
        }
        Ok(out)
    }

    /// Removes every edge from or to `id`; returns them.
    pub fn remove_edges_of(&self, id: &str) -> Result<Vec<Edge>, StoreError> {
        let mut gone = self.edges_from(id)?;
        gone.extend(self.edges_to(id)?);
        for e in &gone {
            self.remove_edge(&e.source, &e.target, e.kind.as_str())?;
        }
        Ok(gone)
    }

    pub fn put_situation(&self, situation: &Situation) -> Result<(), StoreError> {
        self.situations.insert(situation.id.as_bytes(), encode(situation))?;
        Ok(())
    }

    pub fn get_situation(&self, id: &str) -> Result<Option<Situation>, StoreError> {
        self.situations.get(id)?.map(|bytes| decode(id.as_bytes(), &bytes)).transpose()
    }

    /// Removes a situation, its vector and its edges.
    pub fn remove_situation(&self, id: &str) -> Result<Option<Situation>, StoreError> {
        let Some(bytes) = self.situations.remove(id)? else { return Ok(None) };
        self.remove_edges_of(id)?;
        self.situation_vectors.remove(id)?;
        Ok(Some(decode(id.as_bytes(), &bytes)?))
    }

    /// A situation's embedding, with the fingerprint of the model that made it (f16, as the
    /// semantic index keeps vectors). Apart from the memories' embeddings, which the semantic
    /// index is reconciled with.
    pub fn put_situation_vector(&self, id: &str, fingerprint: &str, vector: &[f32]) -> Result<(), StoreError> {
        let mut bytes = Vec::with_capacity(2 + fingerprint.len() + vector.len() * 2);
        bytes.extend((fingerprint.len() as u16).to_be_bytes());
        bytes.extend(fingerprint.as_bytes());
        bytes.extend(vector.iter().flat_map(|x| half::f16::from_f32(*x).to_le_bytes()));
        self.situation_vectors.insert(id.as_bytes(), bytes)?;
        Ok(())
    }

    /// A situation's embedding and the fingerprint of the model that made it.
    pub fn situation_vector(&self, id: &str) -> Result<Option<(String, Vec<f32>)>, StoreError> {
        let Some(bytes) = self.situation_vectors.get(id)? else { return Ok(None) };
        let corrupt = || StoreError::Corrupt(format!("vector of situation {id}"));
        let n = u16::from_be_bytes(bytes.get(..2).ok_or_else(corrupt)?.try_into().map_err(|_| corrupt())?) as usize;
        let fingerprint = String::from_utf8(bytes.get(2..2 + n).ok_or_else(corrupt)?.to_vec()).map_err(|_| corrupt())?;
        let rest = &bytes[2 + n..];
        if rest.len() % 2 != 0 {
            return Err(corrupt());
        }
        Ok(Some((fingerprint, rest.chunks_exact(2).map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f32()).collect())))
    }

    /// Every situation, in id order.
    pub fn all_situations(&self) -> impl Iterator<Item = Result<Situation, StoreError>> + '_ {
        self.situations_after(None)
    }

    /// Situations in id order, starting after `after`.
    pub fn situations_after(&self, after: Option<&str>) -> impl Iterator<Item = Result<Situation, StoreError>> + '_ {
        let range = match after {
            Some(a) => self.situations.range::<&[u8], _>((std::ops::Bound::Excluded(a.as_bytes()), std::ops::Bound::Unbounded)),
            None => self.situations.iter(),
        };
        range.map(|item| {
            let (key, value) = item?;
            decode(&key, &value)
        })
    }

    pub fn situation_count(&self) -> usize {
        self.situations.len()
    }

    /// Appends one line to the adjustment log, and retires the oldest past `max`. Under the
    /// write lock (one writer at a time keeps the count right).
    pub fn append_adjustment(&self, line: &Value, max: usize) -> Result<(), StoreError> {
        // sled's ids rise across restarts, so the log stays in the order it was written.
        let id = self.db.generate_id()?.to_be_bytes();
        // Each line is also found by what it is about (a lesson's page reads its own lines).
        self.adjustment_indexed(&id, line, Some(&encode(line)))?;
        let mut count = self.adjustment_count.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        while count > max as u64 {
            let Some((old_id, old)) = self.adjustments.first()? else { break };
            self.adjustment_indexed(&old_id, &decode(&old_id, &old)?, None)?;
            count = self.adjustment_count.fetch_sub(1, std::sync::atomic::Ordering::Relaxed) - 1;
        }
        Ok(())
    }

    /// Writes the adjustment line `id` (`bytes`, the encoded `line`) with its index entries, or
    /// with `None` removes both, in one transaction: a crash between them never leaves a line its
    /// lesson's page cannot find, nor an entry for a line gone.
    fn adjustment_indexed(&self, id: &[u8], line: &Value, bytes: Option<&[u8]>) -> Result<(), StoreError> {
        let index: Vec<Vec<u8>> = adjustment_subjects(line).into_iter().map(|subject| adjustment_index_key(subject, id)).collect();
        (&self.adjustments, &self.adjustments_by).transaction(|(log, by)| -> ConflictableTransactionResult<(), ()> {
            match bytes {
                Some(b) => log.insert(id, b).map(drop)?,
                None => log.remove(id).map(drop)?,
            }
            for key in &index {
                match bytes {
                    Some(_) => by.insert(key.as_slice(), &[] as &[u8]).map(drop)?,
                    None => by.remove(key.as_slice()).map(drop)?,
                }
            }
            Ok(())
        })?;
        Ok(())
    }

    /// The newest lines about `subject` (its node, or an edge from or to it), newest first, at
    /// most `limit`, through the index: a lesson's history costs its own lines, not the log's.
    pub fn adjustments_of(&self, subject: &str, limit: usize) -> Result<Vec<Value>, StoreError> {
        let prefix = adjustment_index_key(subject, &[]);
        let mut out = Vec::new();
        for item in self.adjustments_by.scan_prefix(&prefix).rev() {
            let (key, _) = item?;
            if let Some(bytes) = self.adjustments.get(&key[prefix.len()..])? {
                out.push(decode(&key, &bytes)?);
                if out.len() >= limit {
                    break;
                }
            }
        }
        Ok(out)
    }

    /// The adjustment log's newest lines that `keep` accepts, newest first, at most `limit`.
    pub fn adjustments(&self, limit: usize, keep: impl Fn(&Value) -> bool) -> Result<Vec<Value>, StoreError> {
        let mut out = Vec::new();
        for item in self.adjustments.iter().rev() {
            let (key, value) = item?;
            let line: Value = decode(&key, &value)?;
            if keep(&line) {
                out.push(line);
                if out.len() >= limit {
                    break;
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cairn_proto::EdgeKind;

    fn edge(source: &str, target: &str, kind: EdgeKind, strength: f64) -> Edge {
        Edge { source: source.into(), target: target.into(), kind, strength, created_at: "t".into(), updated_at: "t".into() }
    }

    #[tokio::test]
    async fn edges_are_found_both_ways_and_go_with_their_node() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), 1 << 20).unwrap();
        store.put_edge(&edge("sit_1", "m1", EdgeKind::Applies, 0.51)).unwrap();
        store.put_edge(&edge("sit_2", "m1", EdgeKind::Applies, 0.49)).unwrap();
        store.put_edge(&edge("m1", "m2", EdgeKind::CoUsed, 0.3)).unwrap();
        assert_eq!(store.edges_to("m1").unwrap().len(), 2);
        assert_eq!(store.edges_from("m1").unwrap().len(), 1);
        assert_eq!(store.get_edge("sit_1", "m1", "applies").unwrap().unwrap().strength, 0.51);
        // A prefix of another id is not that id.
        store.put_edge(&edge("m", "m10", EdgeKind::Manual, 0.5)).unwrap();
        assert_eq!(store.edges_from("m").unwrap().len(), 1);
        assert_eq!(store.remove_edges_of("m1").unwrap().len(), 3);
        assert!(store.edges_to("m1").unwrap().is_empty() && store.edges_to("m2").unwrap().is_empty());
        assert!(store.get_edge("sit_1", "m1", "applies").unwrap().is_none());
    }

    #[tokio::test]
    async fn a_situation_goes_with_its_vector_and_links() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), 1 << 20).unwrap();
        let s = Situation { id: "sit_1".into(), project: "/p".into(), event: "PostToolUse".into(), tool: Some("Bash".into()), text: "npm install lodash".into(), meaning: "Install lodash".into(), shape: Some("npm install".into()), created_at: "t".into(), last_seen: "t".into(), seen: 1 };
        store.put_situation(&s).unwrap();
        store.put_situation_vector("sit_1", "model-x", &[0.5, -0.25]).unwrap();
        store.put_edge(&edge("sit_1", "m1", EdgeKind::Applies, 0.51)).unwrap();
        assert_eq!(store.situation_vector("sit_1").unwrap(), Some(("model-x".to_string(), vec![0.5, -0.25])));
        assert_eq!(store.all_situations().count(), 1);
        assert_eq!(store.remove_situation("sit_1").unwrap(), Some(s));
        assert!(store.situation_vector("sit_1").unwrap().is_none() && store.edges_to("m1").unwrap().is_empty());
        assert_eq!(store.situation_count(), 0);
    }

    #[tokio::test]
    async fn the_adjustment_log_is_bounded_and_newest_first() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), 1 << 20).unwrap();
        for i in 0..12 {
            store.append_adjustment(&serde_json::json!({"n": i}), 10).unwrap();
        }
        let all = store.adjustments(100, |_| true).unwrap();
        assert_eq!(all.len(), 10);
        assert_eq!(all[0]["n"], 11);
        assert_eq!(all[9]["n"], 2);
        assert_eq!(store.adjustments(3, |l| l["n"].as_i64().unwrap() % 2 == 0).unwrap().iter().map(|l| l["n"].as_i64().unwrap()).collect::<Vec<_>>(), vec![10, 8, 6]);
    }

    #[tokio::test]
    async fn a_subjects_lines_are_found_by_the_index_and_leave_it_with_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), 1 << 20).unwrap();
        for i in 0..12 {
            let line = if i % 3 == 0 { serde_json::json!({"n": i, "node": "m1"}) } else { serde_json::json!({"n": i, "edge": ["sit_1", "m2", "applies"]}) };
            store.append_adjustment(&line, 10).unwrap();
        }
        let of = |id: &str, limit| store.adjustments_of(id, limit).unwrap().iter().map(|l| l["n"].as_i64().unwrap()).collect::<Vec<_>>();
        // Lines 0 and 1 were retired with their index entries.
        assert_eq!(of("m1", 10), [9, 6, 3]);
        assert_eq!(of("m2", 2), [11, 10]);
        assert_eq!(of("sit_1", 100).len(), 7);
        assert!(of("m", 10).is_empty(), "a prefix of an id is not the id");
        assert_eq!(store.adjustments_by.len(), 3 + 2 * 7);
    }
}
