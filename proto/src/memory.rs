//! The memory record (Spark's insight, Wake's context snapshot, the graph's node) and the edges
//! between memories, exactly as they are stored and exported.
//!
//! Every field of the design's Data section exists from the first schema version so that later
//! features fill fields instead of migrating records. Timestamps are RFC 3339 strings in UTC.
//!
//! Reserved fields: cairn writes a memory's identity (id, project, text, context, category,
//! source, tags, times), feedback and outcomes fill `worth`'s counts and effectiveness and
//! `node_weight`, the quality gate fills `worth`'s quality and verdict for captured lessons and
//! those imported from Claude Code's memory files, and capture fills `capture` and, for what it
//! captured, `why`'s action type, rationale and `caused_by`. The layers that fill the rest come
//! with later releases, and until then these fields keep their starting values and nothing
//! presents them as computed: the rest of `why` with temporal intelligence (causality), `now` and
//! `next` with the memory tiers and prediction.

use serde::{Deserialize, Serialize};

/// One remembered lesson.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Memory {
    /// Stable identifier: a ULID for new memories, kept as given on import.
    pub id: String,
    /// Project the lesson belongs to, or `global`.
    pub project: String,
    pub text: String,
    /// Where the lesson came from in the user's work (file, command, situation).
    #[serde(default)]
    pub context: String,
    /// Free lowercase category: security, git, testing, deployment, preference, ...
    pub category: String,
    /// Who made it: user, seed, captured, distilled, agent.
    pub source: String,
    #[serde(default)]
    pub tags: Vec<String>,
    /// Moments the lesson applies to, in words ("Push the rebased branch: git push -f origin
    /// develop"): evidence for its relevance where the action and the lesson share no words.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<String>,
    /// Near misses it does not apply to (the safe variant, a read about the subject): a moment
    /// closer to one of these than to the lesson and its examples is not advised.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_examples: Vec<String>,
    pub created_at: String,
    pub updated_at: String,
    /// Why it exists (Wake layer 1). Filled by capture for what it captured; the rest comes with
    /// temporal intelligence (causality).
    #[serde(default)]
    pub why: Why,
    /// How relevant it is now (Wake layer 2). Reserved: filled by the memory tiers.
    #[serde(default)]
    pub now: Now,
    /// What is expected next (Wake layer 3). Reserved: filled by prediction.
    #[serde(default)]
    pub next: Next,
    /// What it has proven to be worth (Spark): feedback counts helpful (`used`) and unhelpful
    /// (`not-useful`) outcomes, and effectiveness is their Beta(1, 1) posterior mean.
    #[serde(default)]
    pub worth: Worth,
    /// Node weight in the memory graph: 1, lowered by each `not-useful` (never under 0.05); it
    /// scales the lesson's odds in every decision.
    #[serde(default = "default_node_weight")]
    pub node_weight: f64,
    /// For a lesson cairn captured itself (from a correction or a recovery): what it came from,
    /// the quality gate's reasons, and, while it is a candidate, when it would have been said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capture: Option<Capture>,
}

impl Memory {
    /// Whether it is a captured lesson still earning its voice: scored, never said.
    pub fn is_candidate(&self) -> bool {
        self.capture.as_ref().is_some_and(|c| c.promoted.is_none())
    }

    /// A compact one-line view for listings.
    pub fn one_line(&self) -> String {
        let text: String = self.text.chars().take(100).collect();
        let ellipsis = if self.text.chars().count() > 100 { "..." } else { "" };
        format!("{}  [{}] ({})  {}{}", self.id, self.category, self.project, text, ellipsis)
    }
}

fn default_node_weight() -> f64 {
    1.0
}

/// How a captured lesson came to be, and its record while it is a candidate.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Capture {
    /// What it was captured from: `prompt` (a correction or standing instruction), `recovery`
    /// (a failed call, then a changed one that worked) or `failure` (the same failure in
    /// several sessions).
    pub from: String,
    /// The quality gate's verdict when it was captured: `quality` or `needs_work`.
    pub verdict: String,
    /// The gate's reasons, one per dimension.
    #[serde(default)]
    pub reasons: Vec<String>,
    /// The moments it rests on, redacted, oldest first (bounded).
    #[serde(default)]
    pub evidence: Vec<Moment>,
    /// Moments where it would have been said while a candidate, oldest first (bounded).
    #[serde(default)]
    pub shadow: Vec<Shadow>,
    /// When and by whom it was promoted (`auto` or `user`); absent while a candidate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub promoted: Option<Promotion>,
}

impl Capture {
    /// Shadow moments later shown right (by an outcome or the user's feedback).
    pub fn confirmed(&self) -> usize {
        self.shadow.iter().filter(|s| s.confirmed == Some(true)).count()
    }
}

/// A recorded moment a captured lesson rests on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Moment {
    pub at: String,
    pub session: String,
    /// The hook event (`UserPromptSubmit`, `PostToolUseFailure`, ...).
    pub event: String,
    /// What happened, in words, redacted and cut.
    pub text: String,
}

/// A moment where a candidate would have been said, and what was later shown of it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Shadow {
    pub at: String,
    pub session: String,
    pub event: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// The decision's probability there.
    pub probability: f64,
    /// `Some(true)`: later shown right; `Some(false)`: shown wrong; `None`: nothing told yet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmed: Option<bool>,
    /// What showed it (a correction teaching it again, the failure it names recurring, the user's
    /// feedback).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
}

/// A candidate's promotion to a lesson that speaks.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Promotion {
    pub at: String,
    /// `auto` (its shadow moments were confirmed often enough) or `user` (`cairn review accept`).
    pub by: String,
}

/// Causality: the reason a memory exists and what it came from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Why {
    #[serde(default)]
    pub action_type: Option<String>,
    #[serde(default)]
    pub rationale: Option<String>,
    /// Ids of memories this one was caused by.
    #[serde(default)]
    pub caused_by: Vec<String>,
    #[serde(default)]
    pub dependencies: Vec<String>,
}

/// Recency tier of a memory (Wake layer 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// Touched within the hour.
    Active,
    /// Within a day.
    Recent,
    /// Within thirty days.
    Archived,
    /// Older.
    Expired,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Now {
    /// The memory's tier, once the temporal layer has computed one; absent until then (stores
    /// from before schema 2 said `active` for every memory without computing it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier: Option<Tier>,
    #[serde(default)]
    pub last_accessed: Option<String>,
    #[serde(default)]
    pub access_count: u64,
}

/// Prediction of the next use (Wake layer 3).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Next {
    #[serde(default)]
    pub prediction_score: f64,
    #[serde(default)]
    pub reasons: Vec<String>,
    #[serde(default)]
    pub predicted_next_access: Option<String>,
    #[serde(default)]
    pub last_predicted: Option<String>,
    /// The components the score was made of (temporal, causal, frequency), kept to learn the
    /// weights from what followed (was it accessed before the next prediction?).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub components: Option<Vec<f64>>,
}

/// Outcome record (Spark): how often surfaced and how it went.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Worth {
    #[serde(default)]
    pub times_surfaced: u64,
    #[serde(default)]
    pub helpful: u64,
    #[serde(default)]
    pub unhelpful: u64,
    /// Times it was said and then ignored (the agent did what it warns about); an ignore counts
    /// as unhelpful only when the one before it was ignored too.
    #[serde(default)]
    pub ignored: u64,
    /// Ignored outcomes since the last followed or helpful one.
    #[serde(default)]
    pub ignored_in_a_row: u64,
    /// Posterior mean of a Beta(1, 1) prior: a new memory starts at 0.5.
    #[serde(default = "default_effectiveness")]
    pub effectiveness: f64,
    /// Quality-gate scores, once the memory has been judged (captured lessons, and lessons
    /// imported from Claude Code's memory files).
    #[serde(default)]
    pub quality: Option<Quality>,
    #[serde(default)]
    pub verdict: Option<String>,
    /// `times_surfaced` when the user last said `not-useful`: a second one before the lesson is
    /// said again changes nothing (a command run twice by accident does not halve its standing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_useful_at: Option<u64>,
    /// When the user last said `not-useful`: a saying logged since then counts as said again
    /// even before the outcome worker has counted it in `times_surfaced` (a moment later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_useful_when: Option<String>,
    /// When it was last said (the saying's own time, as the session log has it), counted by the
    /// outcome worker: what tells a saying the session log has since retired.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_said: Option<String>,
}

fn default_effectiveness() -> f64 {
    0.5
}

impl Default for Worth {
    fn default() -> Self {
        Worth {
            times_surfaced: 0,
            helpful: 0,
            unhelpful: 0,
            ignored: 0,
            ignored_in_a_row: 0,
            effectiveness: default_effectiveness(),
            quality: None,
            verdict: None,
            not_useful_at: None,
            not_useful_when: None,
            last_said: None,
        }
    }
}

/// Spark's five quality dimensions, each in [0, 1].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Quality {
    pub actionability: f64,
    pub novelty: f64,
    pub reasoning: f64,
    pub specificity: f64,
    pub outcome_linked: f64,
}

/// Kind of link in the memory graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EdgeKind {
    CausedBy,
    DependsOn,
    CoRetrieved,
    Similar,
    Manual,
    /// Situation -> lesson: the lesson was judged to apply (strength above 0.5) or not to apply
    /// (below) at that moment.
    Applies,
    /// Lesson -> lesson: said together in sessions that went well.
    CoUsed,
}

impl EdgeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EdgeKind::CausedBy => "caused_by",
            EdgeKind::DependsOn => "depends_on",
            EdgeKind::CoRetrieved => "co_retrieved",
            EdgeKind::Similar => "similar",
            EdgeKind::Manual => "manual",
            EdgeKind::Applies => "applies",
            EdgeKind::CoUsed => "co_used",
        }
    }

    pub fn parse(name: &str) -> Option<EdgeKind> {
        [EdgeKind::CausedBy, EdgeKind::DependsOn, EdgeKind::CoRetrieved, EdgeKind::Similar, EdgeKind::Manual, EdgeKind::Applies, EdgeKind::CoUsed].into_iter().find(|k| k.as_str() == name)
    }
}

/// A moment where a lesson was judged to apply or not: the redacted intent of a tool call or a
/// prompt, in its project. Near-identical moments are one situation, seen again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Situation {
    /// `sit_` and a ULID, so that it never collides with a memory's id.
    pub id: String,
    pub project: String,
    /// The hook event it came from (`PostToolUse`, `UserPromptSubmit`, ...).
    pub event: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The moment's intent in words, redacted: for keywords and for people.
    pub text: String,
    /// Its natural-language form, redacted: what is embedded (the advisor embeds a moment's the
    /// same way).
    #[serde(default)]
    pub meaning: String,
    /// For a shell command, its shape: the program and what it was asked to do (`npm install`),
    /// without the arguments; a moment running a command of the same shape is near it where its
    /// lesson applies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<String>,
    pub created_at: String,
    /// Last time a judgement or a match touched it: unused situations fade from here.
    pub last_seen: String,
    /// How many judgements it gathered (a near-identical moment counts again).
    #[serde(default = "one")]
    pub seen: u64,
}

fn one() -> u64 {
    1
}

/// The prefix of every situation's id.
pub const SITUATION_PREFIX: &str = "sit_";

/// A directed, weighted link; strength stays within [`Edge::MIN_STRENGTH`, `Edge::MAX_STRENGTH`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Edge {
    pub source: String,
    pub target: String,
    pub kind: EdgeKind,
    pub strength: f64,
    pub created_at: String,
    pub updated_at: String,
}

impl Edge {
    pub const MIN_STRENGTH: f64 = 0.05;
    pub const MAX_STRENGTH: f64 = 0.95;
}
