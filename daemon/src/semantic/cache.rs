//! Query embeddings kept in memory, most recently used first: a hook event repeats the intents
//! of earlier ones often, and an embedding costs milliseconds where a lookup costs nothing.

use std::num::NonZeroUsize;
use std::sync::Arc;

use parking_lot::Mutex;
use std::time::Instant;

use lru::LruCache;

use super::embed::{Embed, EmbedError};

pub struct QueryCache {
    lru: Mutex<LruCache<String, Arc<Vec<f32>>>>,
}

impl QueryCache {
    pub fn new(size: usize) -> QueryCache {
        QueryCache { lru: Mutex::new(LruCache::new(NonZeroUsize::new(size.max(1)).expect("non-zero"))) }
    }

    /// The embedding of a query, from the cache when it was asked before. With `wait` false
    /// (the hook), a model busy with bulk work is not waited for: `Ok(None)`.
    pub fn vector(&self, embedder: &dyn Embed, text: &str, wait: bool) -> Result<Option<Arc<Vec<f32>>>, EmbedError> {
        if let Some(v) = self.lru.lock().get(text) {
            return Ok(Some(v.clone()));
        }
        let started = Instant::now();
        let vectors = if wait { Some(embedder.embed(&[text])?) } else { embedder.try_embed(&[text])? };
        let Some(mut vectors) = vectors else { return Ok(None) };
        tracing::debug!(elapsed_us = started.elapsed().as_micros() as u64, chars = text.len(), "query embedded");
        let v = Arc::new(vectors.remove(0));
        self.lru.lock().put(text.to_string(), v.clone());
        Ok(Some(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semantic::embed::fake::Fake;
    use std::sync::atomic::Ordering;

    #[test]
    fn a_repeated_query_is_not_embedded_again() {
        let model = Fake::new("f");
        let cache = QueryCache::new(2);
        let a = cache.vector(&model, "force push", false).unwrap().unwrap();
        let again = cache.vector(&model, "force push", true).unwrap().unwrap();
        assert!(Arc::ptr_eq(&a, &again));
        assert_eq!(model.embedded.load(Ordering::Relaxed), 1);
        cache.vector(&model, "b", true).unwrap();
        cache.vector(&model, "c", true).unwrap();
        cache.vector(&model, "force push", true).unwrap();
        assert_eq!(model.embedded.load(Ordering::Relaxed), 4, "the least recently used went first");
    }
}
