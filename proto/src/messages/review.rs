//! Captured lessons: the candidates `cairn review` lists and acts on, the quality gate's
//! judgement of a text (`cairn review judge`), and the capture counts `status` shows.

use serde::{Deserialize, Serialize};

use super::scope::Scope;
use crate::memory::Memory;

/// `cairn review`: the candidates in a project (and `global`), or in every project.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ReviewQuery {
    #[serde(default)]
    pub scope: Scope,
    /// Every project, not just the current one.
    #[serde(default)]
    pub all: bool,
}

/// The candidates, newest first.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ReviewList {
    pub candidates: Vec<CandidateView>,
    /// Candidates of other projects, left out of this list (`cairn review --all` shows them;
    /// `cairn status` counts them all).
    #[serde(default)]
    pub elsewhere: u64,
    /// Capture's counts in the projects listed (waiting, promoted, rejected; `turned_away` is
    /// the daemon's since start).
    #[serde(default)]
    pub counts: CaptureCounts,
}

/// One candidate as `cairn review --json` shows it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CandidateView {
    pub id: String,
    pub text: String,
    pub project: String,
    /// What it was captured from: `prompt`, `recovery` or `failure`.
    pub source: String,
    pub created_at: String,
    /// The moments it rests on, in words.
    pub evidence: Vec<String>,
    pub shadow: ShadowRecord,
    pub quality: QualityView,
}

/// When a candidate would have been said, and how that turned out.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ShadowRecord {
    /// Moments where it would have been said.
    pub would_have_spoken: usize,
    /// Of those, later shown right (by an outcome or feedback).
    pub confirmed: usize,
    /// Of those, later shown wrong.
    pub shown_wrong: usize,
    /// Confirmed moments it needs for promotion on its own (0 when the gate said it needs work:
    /// only the user promotes it then).
    pub promotes_at: usize,
    /// The moments, newest first, in words.
    pub moments: Vec<String>,
}

/// The quality gate's judgement: a verdict, five scores in [0, 1], a reason per dimension.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct QualityView {
    /// `quality`, `needs_work`, `primitive` or `duplicate`.
    pub verdict: String,
    pub score: f64,
    pub actionability: f64,
    pub specificity: f64,
    pub reasoning: f64,
    pub novelty: f64,
    pub outcome_linked: f64,
    pub reasons: Vec<String>,
    /// For a near-duplicate: the lesson it repeats (which a capture strengthens instead).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicate_of: Option<String>,
}

/// `cairn review accept|reject|edit ID`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "action")]
pub enum ReviewAction {
    /// Promote it: it speaks from now on.
    Accept { id: String },
    /// Remove it, and remember its text so that the same lesson is not captured again.
    Reject { id: String },
    /// Rewrite its text (it stays a candidate, judged again; `accept` promotes it).
    Edit { id: String, text: String },
}

/// What a review action did.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ReviewOutcome {
    /// The candidate as it is now (as it was, for a rejection).
    pub memory: Memory,
    pub message: String,
}

/// `cairn review judge`: what capture and the gate make of a text, stored nowhere.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct JudgeRequest {
    pub text: String,
    /// The text is a user's prompt: capture reads it first (most prompts are not lessons).
    #[serde(default)]
    pub prompt: bool,
    /// What it would be captured from, for the gate (`prompt`, `recovery`, `failure`, ...).
    #[serde(default)]
    pub source: Option<String>,
    #[serde(default)]
    pub scope: Scope,
}

/// The judgement of one text.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Judged {
    /// For a prompt: the lesson capture reads from it, if any.
    #[serde(default)]
    pub captured: Option<String>,
    /// Why capture read nothing, for a prompt that gave nothing.
    #[serde(default)]
    pub not_captured: Option<String>,
    /// The gate's judgement of the captured text (or of the text itself when it is no prompt).
    #[serde(default)]
    pub quality: Option<QualityView>,
    /// Whether capture would keep it (as a candidate, or as evidence for the lesson it repeats).
    pub keep: bool,
}

/// Capture's counts, for `status`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct CaptureCounts {
    /// Candidates waiting for promotion.
    pub candidates: u64,
    /// Captured lessons promoted (by their shadow record or by the user).
    pub promoted: u64,
    /// Texts rejected by the user, never captured again.
    pub rejected: u64,
    /// Captures turned away by the gate or taken as evidence for an existing lesson, since start.
    pub turned_away: u64,
}
