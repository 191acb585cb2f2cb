//! A stand-in model for tests where the model is not what is tested: deterministic, instant,
//! and meaningful enough that texts sharing words are near and texts sharing none are far (each
//! word stem hashed into one of the vector's dimensions).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use super::error::EmbedError;
use super::spec::{Embed, Loader, ModelFacts, ModelSpec};
use crate::retrieval::similarity::normalize;

pub const DIMENSION: usize = 64;

pub struct Fake {
    facts: ModelFacts,
    /// Texts embedded so far, to see what the engine asked for.
    pub embedded: AtomicUsize,
}

impl Fake {
    pub fn new(fingerprint: &str) -> Fake {
        Fake { facts: ModelFacts { name: "fake".into(), fingerprint: fingerprint.into(), dimension: DIMENSION }, embedded: AtomicUsize::new(0) }
    }

    pub fn vector(text: &str) -> Vec<f32> {
        let mut v = vec![0f32; DIMENSION];
        for term in crate::base::text::terms(text) {
            let h = term.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
            v[(h % DIMENSION as u64) as usize] += 1.0;
        }
        // An empty text still gets a unit vector.
        if v.iter().all(|x| *x == 0.0) {
            v[0] = 1.0;
        }
        normalize(&mut v);
        v
    }
}

impl Embed for Fake {
    fn facts(&self) -> &ModelFacts {
        &self.facts
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.embedded.fetch_add(texts.len(), Ordering::Relaxed);
        Ok(texts.iter().map(|t| Fake::vector(t)).collect())
    }

    fn try_embed(&self, texts: &[&str], _wait: std::time::Duration) -> Result<Option<Vec<Vec<f32>>>, EmbedError> {
        self.embed(texts).map(Some)
    }
}

/// A loader that always gives `model`.
pub fn loader(model: Arc<Fake>) -> Loader {
    Arc::new(move |_: &ModelSpec| Ok(model.clone() as Arc<dyn Embed>))
}

/// A loader that always fails, as a missing model file does.
pub fn missing() -> Loader {
    Arc::new(|spec: &ModelSpec| Err(EmbedError::Missing { path: spec.model.clone(), role: cairn_proto::model::Role::Model }))
}
