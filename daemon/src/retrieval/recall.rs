//! What retrieval found for a query, kept for the next time the same query comes: a coding agent
//! runs the same commands over and over (the tests, `git status`, the build), and each time the
//! keyword and meaning searches would find exactly the same memories. An entry is only reused
//! while both indexes are the very ones it was found in: every change to an index gives it a new
//! [`Stamp`], and the stamps are part of the key, so a memory added, edited or removed is never
//! missed or served stale. Only the searches' hits are kept; what depends on the moment (the
//! situations learned, example evidence, fusion) is worked out afresh each time.

use std::hash::{Hash, Hasher};
use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicU64, Ordering};

use lru::LruCache;
use parking_lot::Mutex;

use super::hit::Hit;

static NEXT_STAMP: AtomicU64 = AtomicU64::new(1);

/// Names one state of an index: a new index, and each change to one, takes a stamp never handed
/// out before in this process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Stamp(u64);

impl Stamp {
    pub fn fresh() -> Stamp {
        Stamp(NEXT_STAMP.fetch_add(1, Ordering::Relaxed))
    }
}

impl Default for Stamp {
    fn default() -> Self {
        Stamp::fresh()
    }
}

/// Everything the searches' answer depends on.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RecallKey {
    words: String,
    projects: Vec<String>,
    depth: usize,
    lexical: Stamp,
    /// The semantic index's state and the query vector's bits (hashed), when meaning took part.
    meaning: Option<(Stamp, u64)>,
}

impl RecallKey {
    pub fn new(words: &str, projects: &[&str], depth: usize, lexical: Stamp, meaning: Option<(Stamp, &[f32])>) -> RecallKey {
        let meaning = meaning.map(|(stamp, vector)| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            for x in vector {
                x.to_bits().hash(&mut h);
            }
            (stamp, h.finish())
        });
        RecallKey { words: words.to_string(), projects: projects.iter().map(|p| p.to_string()).collect(), depth, lexical, meaning }
    }
}

/// The last queries' hits, least recently used first out. A query's hits are kept the second
/// time it is seen (a query seen once is remembered by its hash alone), so that the many queries
/// that never come again cost no copy of their hits.
pub struct RecallCache {
    lru: Mutex<LruCache<RecallKey, Vec<Hit>>>,
    seen: Mutex<LruCache<u64, ()>>,
}

impl RecallCache {
    pub fn new(size: usize) -> RecallCache {
        let size = NonZeroUsize::new(size.max(1)).expect("non-zero");
        RecallCache { lru: Mutex::new(LruCache::new(size)), seen: Mutex::new(LruCache::new(size.saturating_mul(NonZeroUsize::new(4).expect("non-zero")))) }
    }

    pub fn get(&self, key: &RecallKey) -> Option<Vec<Hit>> {
        self.lru.lock().get(key).cloned()
    }

    /// Whether `key` should be kept: it was seen before (and is now remembered as seen).
    pub fn wanted(&self, key: &RecallKey) -> bool {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        key.hash(&mut h);
        self.seen.lock().put(h.finish(), ()).is_some()
    }

    pub fn put(&self, key: RecallKey, hits: &[Hit]) {
        self.lru.lock().put(key, hits.to_vec());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(words: &str, lexical: Stamp, meaning: Option<(Stamp, &[f32])>) -> RecallKey {
        RecallKey::new(words, &["p", "global"], 50, lexical, meaning)
    }

    #[test]
    fn stamps_are_never_handed_out_twice() {
        let (a, b) = (Stamp::fresh(), Stamp::default());
        assert_ne!(a, b);
    }

    #[test]
    fn a_hit_list_is_served_only_for_the_same_query_and_index_states() {
        let cache = RecallCache::new(4);
        let (words, vectors) = (Stamp::fresh(), Stamp::fresh());
        let v = [0.5_f32, 0.25];
        let hits = vec![Hit::by_words("m1".into(), 2.0, 0.5, vec!["push".into()], 2)];
        cache.put(key("git push", words, Some((vectors, &v))), &hits);
        assert_eq!(cache.get(&key("git push", words, Some((vectors, &v)))), Some(hits));
        // Another query, another vector, an index changed since, or no meaning: not served.
        assert!(cache.get(&key("git pull", words, Some((vectors, &v)))).is_none());
        assert!(cache.get(&key("git push", words, Some((vectors, &[0.5, 0.26])))).is_none());
        assert!(cache.get(&key("git push", Stamp::fresh(), Some((vectors, &v)))).is_none());
        assert!(cache.get(&key("git push", words, Some((Stamp::fresh(), &v)))).is_none());
        assert!(cache.get(&key("git push", words, None)).is_none());
        assert!(cache.get(&RecallKey::new("git push", &["p"], 50, words, Some((vectors, &v)))).is_none());
    }

    #[test]
    fn a_query_is_wanted_from_its_second_time() {
        let cache = RecallCache::new(2);
        let s = Stamp::fresh();
        assert!(!cache.wanted(&key("a", s, None)));
        assert!(cache.wanted(&key("a", s, None)));
        assert!(!cache.wanted(&key("a", Stamp::fresh(), None)), "another state of the index is another query");
    }

    #[test]
    fn the_least_recently_used_goes_first() {
        let cache = RecallCache::new(2);
        let s = Stamp::fresh();
        for q in ["a", "b"] {
            cache.put(key(q, s, None), &[]);
        }
        assert!(cache.get(&key("a", s, None)).is_some());
        cache.put(key("c", s, None), &[]);
        assert!(cache.get(&key("b", s, None)).is_none());
        assert!(cache.get(&key("a", s, None)).is_some());
    }
}
