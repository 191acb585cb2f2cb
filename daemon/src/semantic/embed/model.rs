//! The embedding model at run time: ONNX Runtime loaded from a file cairn knows (never
//! downloaded), a sentence-transformer ONNX model and its tokenizer. Texts become unit vectors:
//! tokenised without padding to a fixed length, batched by similar length, mean-pooled over the
//! attention mask, and normalised. Texts longer than the model's window are embedded window by
//! window and pooled, so their tail is never silently dropped.

use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;

use ort::session::builder::GraphOptimizationLevel;
use ort::session::{Session, SessionInputValue};
use ort::value::TensorRef;

use super::error::EmbedError;
use super::pool;
use super::spec::{Embed, Loader, ModelFacts, ModelSpec};
use crate::retrieval::similarity::normalize;

/// Most sequences in one run of the model; bounds the runtime's working memory.
const MAX_BATCH: usize = 16;
/// Most padded tokens in one run of the model (sequences x longest sequence): bounds both the
/// runtime's working memory and how long one run holds the model (~0.25 ms a token here).
const MAX_BATCH_TOKENS: usize = 1024;

/// A loaded model, ready to embed. Runs are serialised: one session, one caller at a time.
pub struct Embedder {
    session: Mutex<Session>,
    tokenizer: tokenizers::Tokenizer,
    inputs: Vec<String>,
    output: String,
    dimension: usize,
    max_tokens: usize,
    facts: ModelFacts,
    _environment: ort::environment::Environment,
}

/// Embeds one batch of token-id sequences.
type BatchRunner<'a> = dyn FnMut(&[&[u32]]) -> Result<Vec<Vec<f32>>, EmbedError> + 'a;

/// One window of one text, ready to batch.
struct Window {
    text: usize,
    ids: Vec<u32>,
}

impl Embedder {
    /// Verifies and loads the model: the runtime library first, then the tokenizer and model.
    pub fn load(spec: &ModelSpec) -> Result<Embedder, EmbedError> {
        let fingerprint = spec.verify()?;
        let runtime_err = |message: String| EmbedError::Runtime { path: spec.runtime.clone(), message };
        let environment = ort::init_from(&spec.runtime)
            .map_err(|e| runtime_err(e.to_string()))?
            .with_name("cairn")
            .with_telemetry(false)
            .build()
            .map_err(|e| runtime_err(e.to_string()))?;

        let mut tokenizer = tokenizers::Tokenizer::from_file(&spec.tokenizer)
            .map_err(|e| EmbedError::Tokenizer { path: spec.tokenizer.clone(), message: e.to_string() })?;
        // The shipped tokenizer pads every input to 128 tokens; cairn pads each batch itself, to
        // its longest text, and cuts long texts into windows instead of truncating them.
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(None)
            .map_err(|e| EmbedError::Tokenizer { path: spec.tokenizer.clone(), message: e.to_string() })?;

        let model_err = |message: String| EmbedError::Model { path: spec.model.clone(), message };
        let build = || -> Result<Session, String> {
            let e = |e: ort::Error<ort::session::builder::SessionBuilder>| e.to_string();
            Session::builder(&environment)
                .map_err(|e| e.to_string())?
                .with_optimization_level(GraphOptimizationLevel::All)
                .map_err(e)?
                .with_intra_threads(spec.threads.max(1))
                .map_err(e)?
                .with_inter_threads(1)
                .map_err(e)?
                // Workers spin while a run lasts (waking a sleeping one for each of the model's
                // ~100 parallel steps costs ~1.5 ms a query here) and stop when it ends: a worker
                // spinning after a run holds a core the hook's own process and the daemon's other
                // threads need.
                .with_intra_op_spinning(true)
                .map_err(e)?
                .with_config_entry("session.force_spinning_stop", "1")
                .map_err(e)?
                .commit_from_file(&spec.model)
                .map_err(|e| e.to_string())
        };
        let session = build().map_err(model_err)?;
        // Loading leaves large freed buffers (the folded weights' intermediates) that malloc keeps.
        crate::process::memory::release();

        let inputs: Vec<String> = session.inputs().iter().map(|i| i.name().to_string()).collect();
        for required in ["input_ids", "attention_mask"] {
            if !inputs.iter().any(|i| i == required) {
                return Err(model_err(format!("the model has no `{required}` input (it has {inputs:?}); cairn needs a sentence-transformer ONNX export")));
            }
        }
        let output = session
            .outputs()
            .iter()
            .map(|o| o.name().to_string())
            .find(|n| n == "last_hidden_state")
            .or_else(|| session.outputs().first().map(|o| o.name().to_string()))
            .ok_or_else(|| model_err("the model has no outputs".into()))?;

        let mut embedder = Embedder {
            session: Mutex::new(session),
            tokenizer,
            inputs,
            output,
            dimension: 0,
            max_tokens: spec.max_tokens.max(8),
            facts: ModelFacts { name: String::new(), fingerprint, dimension: 0 },
            _environment: environment,
        };
        // The dimension is whatever the model says it is: ask it once.
        let probe = embedder.embed(&["cairn"])?;
        embedder.dimension = probe[0].len();
        if embedder.dimension == 0 {
            return Err(model_err("the model returned an empty embedding".into()));
        }
        embedder.facts.dimension = embedder.dimension;
        embedder.facts.name = if spec.builtin_model { cairn_proto::model::MODEL_NAME.to_string() } else { format!("custom model {}", spec.model.display()) };
        Ok(embedder)
    }

    pub fn facts(&self) -> &ModelFacts {
        &self.facts
    }

    pub fn dimension(&self) -> usize {
        self.dimension
    }

    /// Unit vectors for short `texts` (one run of the model), or `None` when the model stays
    /// busy with other work for longer than `wait`: the hook's way. Hooks of parallel tool calls
    /// come together, and each embedding takes a few milliseconds: a short wait lets each have
    /// the model in turn, where `try_lock` alone left all but one to keywords.
    pub fn try_embed(&self, texts: &[&str], wait: Duration) -> Result<Option<Vec<Vec<f32>>>, EmbedError> {
        let Some(mut session) = self.session.try_lock_for(wait) else { return Ok(None) };
        self.embed_with(texts, &mut |batch| self.run(&mut session, batch)).map(Some)
    }

    /// Unit vectors for `texts`, in order. The model is taken batch by batch, so bulk work
    /// lets others in between its batches.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.embed_with(texts, &mut |batch| {
            let mut session = self.session.lock();
            self.run(&mut session, batch)
        })
    }

    /// Tokenises, windows and batches `texts`; `run` embeds one batch.
    fn embed_with(&self, texts: &[&str], run: &mut BatchRunner<'_>) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut windows = Vec::new();
        for (i, text) in texts.iter().enumerate() {
            let encoding = self.tokenizer.encode(*text, true).map_err(|e| EmbedError::Inference(format!("cannot tokenise: {e}")))?;
            for ids in pool::windows(encoding.get_ids(), self.max_tokens) {
                windows.push(Window { text: i, ids });
            }
        }
        // Similar lengths together: less padding per batch.
        let mut order: Vec<usize> = (0..windows.len()).collect();
        order.sort_by_key(|&w| windows[w].ids.len());
        let mut window_vectors: Vec<Vec<f32>> = vec![Vec::new(); windows.len()];
        let mut start = 0;
        while start < order.len() {
            let mut end = start + 1;
            while end < order.len() && end - start < MAX_BATCH && (end - start + 1) * windows[order[end]].ids.len() <= MAX_BATCH_TOKENS {
                end += 1;
            }
            let batch: Vec<&[u32]> = order[start..end].iter().map(|&w| windows[w].ids.as_slice()).collect();
            for (&w, v) in order[start..end].iter().zip(run(&batch)?) {
                window_vectors[w] = v;
            }
            start = end;
        }
        // Pool each text's windows, in the text's order.
        let mut per_text: Vec<(Vec<Vec<f32>>, Vec<usize>)> = vec![(Vec::new(), Vec::new()); texts.len()];
        for (w, v) in windows.iter().zip(window_vectors) {
            per_text[w.text].0.push(v);
            per_text[w.text].1.push(w.ids.len());
        }
        Ok(per_text.iter().map(|(vs, ws)| pool::pool_windows(vs, ws)).collect())
    }

    /// One run of the model over sequences padded to the longest; a unit vector per sequence.
    fn run(&self, session: &mut Session, batch: &[&[u32]]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let rows = batch.len();
        let cols = batch.iter().map(|s| s.len()).max().unwrap_or(0);
        let mut ids = vec![0i64; rows * cols];
        let mut mask = vec![0i64; rows * cols];
        for (r, seq) in batch.iter().enumerate() {
            for (c, &id) in seq.iter().enumerate() {
                ids[r * cols + c] = id as i64;
                mask[r * cols + c] = 1;
            }
        }
        let types = vec![0i64; rows * cols];
        let fail = |e: ort::Error| EmbedError::Inference(e.to_string());
        let mut inputs: Vec<(String, SessionInputValue<'_>)> = Vec::with_capacity(3);
        for name in &self.inputs {
            let data: &[i64] = match name.as_str() {
                "input_ids" => &ids,
                "attention_mask" => &mask,
                "token_type_ids" => &types,
                other => return Err(EmbedError::Inference(format!("the model wants an input cairn does not know: `{other}`"))),
            };
            inputs.push((name.clone(), TensorRef::from_array_view(([rows, cols], data)).map_err(fail)?.into()));
        }
        let outputs = session.run(inputs).map_err(fail)?;
        let (shape, data) = outputs[self.output.as_str()].try_extract_tensor::<f32>().map_err(fail)?;
        // A model of the user's own may answer in any shape: check it before reading.
        let dims: Vec<usize> = shape.iter().map(|&d| d.max(0) as usize).collect();
        let fits = match dims.as_slice() {
            [r, c, d] => *r == rows && *c == cols && *d > 0 && data.len() == r * c * d,
            [r, d] => *r == rows && *d > 0 && data.len() == r * d,
            _ => false,
        };
        if !fits {
            return Err(EmbedError::Inference(format!("the model answered shape {shape:?} for a batch of {rows} x {cols} tokens")));
        }
        let out = match shape.len() {
            // Token states [rows, cols, dim]: mean over the real tokens.
            3 => {
                let dim = shape[2] as usize;
                (0..rows)
                    .map(|r| {
                        let mut v = pool::mean_pool(&data[r * cols * dim..(r + 1) * cols * dim], &mask[r * cols..(r + 1) * cols], dim);
                        normalize(&mut v);
                        v
                    })
                    .collect()
            }
            // Already one vector per sequence [rows, dim].
            2 => {
                let dim = shape[1] as usize;
                (0..rows)
                    .map(|r| {
                        let mut v = data[r * dim..(r + 1) * dim].to_vec();
                        normalize(&mut v);
                        v
                    })
                    .collect()
            }
            _ => return Err(EmbedError::Inference(format!("unexpected output shape {shape:?}"))),
        };
        Ok(out)
    }
}

impl Embed for Embedder {
    fn facts(&self) -> &ModelFacts {
        &self.facts
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Embedder::embed(self, texts)
    }

    fn try_embed(&self, texts: &[&str], wait: Duration) -> Result<Option<Vec<Vec<f32>>>, EmbedError> {
        Embedder::try_embed(self, texts, wait)
    }
}

/// The real loader: ONNX Runtime and the model's files.
pub fn onnx_loader() -> Loader {
    Arc::new(|spec: &ModelSpec| Embedder::load(spec).map(|e| Arc::new(e) as Arc<dyn Embed>))
}
