//! Query embeddings kept in memory, most recently used first: a hook event repeats the intents
//! of earlier ones often, and an embedding costs milliseconds where a lookup costs nothing.

use std::num::NonZeroUsize;
use std::sync::Arc;

use parking_lot::Mutex;
use std::time::{Duration, Instant};

use lru::LruCache;

use super::embed::{Embed, EmbedError};

/// How long a query's embedding may wait for a model busy with other work.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Wait {
    /// A person's command: as long as it takes.
    Always,
    /// The hook: at most this long, then keywords alone.
    UpTo(Duration),
}

pub struct QueryCache {
    lru: Mutex<LruCache<String, Arc<Vec<f32>>>>,
}

impl QueryCache {
    pub fn new(size: usize) -> QueryCache {
        QueryCache { lru: Mutex::new(LruCache::new(NonZeroUsize::new(size.max(1)).expect("non-zero"))) }
    }

    /// The embedding of a query, from the cache when it was asked before. A model busy for
    /// longer than `wait` allows gives `Ok(None)`.
    pub fn vector(&self, embedder: &dyn Embed, text: &str, wait: Wait) -> Result<Option<Arc<Vec<f32>>>, EmbedError> {
        if let Some(v) = self.lru.lock().get(text) {
            return Ok(Some(v.clone()));
        }
        let started = Instant::now();
        let vectors = match wait {
            Wait::Always => Some(embedder.embed(&[text])?),
            Wait::UpTo(d) => embedder.try_embed(&[text], d)?,
        };
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
        let a = cache.vector(&model, "force push", Wait::UpTo(Duration::ZERO)).unwrap().unwrap();
        let again = cache.vector(&model, "force push", Wait::Always).unwrap().unwrap();
        assert!(Arc::ptr_eq(&a, &again));
        assert_eq!(model.embedded.load(Ordering::Relaxed), 1);
        cache.vector(&model, "b", Wait::Always).unwrap();
        cache.vector(&model, "c", Wait::Always).unwrap();
        cache.vector(&model, "force push", Wait::Always).unwrap();
        assert_eq!(model.embedded.load(Ordering::Relaxed), 4, "the least recently used went first");
    }
}
