//! `cairn weights`: the learned mix of the decision's signal groups in a project, against the
//! default, with its sample size and history; reset, or learn now.

use serde::{Deserialize, Serialize};

use super::scope::Scope;

/// What `weights` does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WeightsAction {
    #[default]
    Show,
    /// Back to the default mix (the history is kept).
    Reset,
    /// Run a tuning pass now.
    Learn,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct WeightsQuery {
    #[serde(default)]
    pub scope: Scope,
    #[serde(default)]
    pub action: WeightsAction,
    /// The prediction's weights (temporal, causal, frequency) instead of the decision's.
    #[serde(default)]
    pub prediction: bool,
}

/// `cairn predict`: what the project is likely to need next.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct PredictQuery {
    #[serde(default)]
    pub scope: Scope,
    /// Refresh every prediction of the project first, not only the stale ones.
    #[serde(default)]
    pub refresh: bool,
    #[serde(default)]
    pub limit: Option<u32>,
}

/// One memory as prediction sees it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Predicted {
    pub id: String,
    pub text: String,
    pub score: f64,
    pub reasons: Vec<String>,
    pub next_access: Option<String>,
    /// temporal, causal, frequency.
    pub components: Vec<f64>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct PredictReport {
    pub project: String,
    pub refreshed: usize,
    /// The weights used (temporal, causal, frequency), and whether they were learned.
    pub weights: Vec<f64>,
    pub learned: bool,
    pub items: Vec<Predicted>,
}

/// One weight: a signal group, learned and default.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WeightLine {
    pub signal: String,
    pub current: f64,
    pub default: f64,
}

/// One past run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WeightsRun {
    pub at: String,
    pub samples: usize,
    pub positives: usize,
    /// signal -> weight after the run.
    pub weights: Vec<(String, f64)>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct WeightsReport {
    pub project: String,
    /// Whether a learned mix is in force (else the default).
    pub learned: bool,
    pub weights: Vec<WeightLine>,
    /// Samples held (lessons at moments with what became of them) and how many proved right.
    pub samples: usize,
    pub positives: usize,
    /// Samples needed before a mix is learned.
    pub min_samples: usize,
    pub last_run: Option<String>,
    /// Newest last.
    pub history: Vec<WeightsRun>,
    /// What the action did, in words.
    pub message: String,
}
