//! Each memory's embedding: its bookkeeping (graph key, project, model, hash of the embedded
//! text) and its vector, kept in the `embeddings` tree so that the semantic index can always be
//! rebuilt or repaired from the store.

use super::codec::{decode, encode, StoreError};
use super::Store;

/// The bookkeeping of one stored embedding; the vector sits beside it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct EmbeddingRecord {
    /// The vector's key in the semantic index; new for every embedding, never reused.
    pub key: u64,
    pub project: String,
    /// The model that made the vector.
    pub fingerprint: String,
    /// Hash of the text that was embedded, to tell a stale vector from a current one.
    pub text_hash: String,
}

const RECORD_PREFIX: &[u8] = b"m\0";
const VECTOR_PREFIX: &[u8] = b"v\0";
/// The next embedding key, kept with every embedding written so that a key is never reused,
/// even after the memory holding the highest one is deleted.
const NEXT_KEY: &[u8] = b"n\0next";

fn prefixed(prefix: &[u8], id: &str) -> Vec<u8> {
    [prefix, id.as_bytes()].concat()
}

impl Store {
    /// Stores a memory's embedding, record and vector together (one atomic batch).
    pub fn put_embedding(&self, id: &str, record: &EmbeddingRecord, vector: &[f32]) -> Result<(), StoreError> {
        let bytes: Vec<u8> = vector.iter().flat_map(|x| half::f16::from_f32(*x).to_le_bytes()).collect();
        let mut batch = sled::Batch::default();
        batch.insert(prefixed(RECORD_PREFIX, id), encode(record));
        batch.insert(prefixed(VECTOR_PREFIX, id), bytes);
        // Keys are handed out in rising order under the daemon's write lock.
        batch.insert(NEXT_KEY, &(record.key + 1).to_be_bytes());
        self.embeddings.apply_batch(batch)?;
        Ok(())
    }

    /// The lowest embedding key never handed out (0 in a store without embeddings).
    pub fn next_embedding_key(&self) -> Result<u64, StoreError> {
        Ok(self.embeddings.get(NEXT_KEY)?.and_then(|b| <[u8; 8]>::try_from(b.as_ref()).ok()).map_or(0, u64::from_be_bytes))
    }

    pub fn remove_embedding(&self, id: &str) -> Result<(), StoreError> {
        let mut batch = sled::Batch::default();
        batch.remove(prefixed(RECORD_PREFIX, id));
        batch.remove(prefixed(VECTOR_PREFIX, id));
        self.embeddings.apply_batch(batch)?;
        Ok(())
    }

    pub fn embedding_record(&self, id: &str) -> Result<Option<EmbeddingRecord>, StoreError> {
        let key = prefixed(RECORD_PREFIX, id);
        self.embeddings.get(&key)?.map(|bytes| decode(&key, &bytes)).transpose()
    }

    pub fn embedding_vector(&self, id: &str) -> Result<Option<Vec<f32>>, StoreError> {
        let Some(bytes) = self.embeddings.get(prefixed(VECTOR_PREFIX, id))? else { return Ok(None) };
        if bytes.len() % 2 != 0 {
            return Err(StoreError::Corrupt(format!("embedding of {id}: {} bytes is not a vector", bytes.len())));
        }
        Ok(Some(bytes.chunks_exact(2).map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f32()).collect()))
    }

    /// Every embedding record with its memory id, in id order (vectors are not read).
    pub fn embedding_records(&self) -> impl Iterator<Item = Result<(String, EmbeddingRecord), StoreError>> + '_ {
        self.embeddings.scan_prefix(RECORD_PREFIX).map(|item| {
            let (key, value) = item?;
            let id = String::from_utf8_lossy(&key[RECORD_PREFIX.len()..]).into_owned();
            Ok((id, decode(&key, &value)?))
        })
    }
}
