//! `search`: hybrid retrieval for a person, each result with its evidence.

use serde::{Deserialize, Serialize};

use super::Scope;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SearchRequest {
    pub text: String,
    #[serde(default)]
    pub scope: Scope,
    /// Most results (default 10).
    #[serde(default)]
    pub k: Option<u32>,
    /// Looking, not using (the dashboard): what is found is not counted as accessed.
    #[serde(default)]
    pub browse: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SearchResults {
    pub results: Vec<SearchHit>,
    /// `hybrid` (keywords and embeddings) or `keywords` (no model).
    pub mode: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SearchHit {
    pub id: String,
    pub text: String,
    pub project: String,
    pub category: String,
    /// The fused relevance, 0 to 1.
    pub score: f64,
    /// Cosine similarity of the embeddings; `null` without the model.
    pub similarity: Option<f64>,
    pub bm25: f64,
    pub why: String,
}
