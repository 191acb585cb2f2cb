//! Advice: the hook's reply, `advise`, and the log of advice given. One item shape serves all
//! three: what was said (or weighed and not said), its score, why, and every signal.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Scope;

/// The daemon's answer to a hook event, before the client shapes it for Claude Code.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct HookReply {
    /// Text for `hookSpecificOutput.additionalContext`, when there is advice worth giving.
    #[serde(default)]
    pub additional_context: Option<String>,
    /// An interrupt (opt-in): the tool call needs the user's say (`ask`) or is refused (`deny`).
    #[serde(default)]
    pub decision: Option<HookDecision>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HookDecision {
    /// `ask` or `deny`: Claude Code's `permissionDecision`.
    pub permission: String,
    /// Names the rule and the lesson.
    pub reason: String,
}

/// Which advice `cairn log` shows.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct LogQuery {
    #[serde(default)]
    pub session: Option<String>,
    /// The project whose advice to show (by default the current directory's; with a session,
    /// every project unless one is named).
    #[serde(default)]
    pub scope: Scope,
    /// Every project.
    #[serde(default)]
    pub all: bool,
    /// Most entries, newest last.
    pub last: u32,
}

/// One event that carried advice.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LogEntry {
    pub at: String,
    pub session_id: String,
    pub event: String,
    pub project: String,
    #[serde(default)]
    pub tool_name: Option<String>,
    #[serde(default)]
    pub tool_use_id: Option<String>,
    #[serde(default)]
    pub intent: Option<String>,
    /// What was said, as it was then.
    pub items: Vec<AdviceItem>,
    /// An interrupt's decision, when there was one.
    #[serde(default)]
    pub decision: Option<String>,
    /// What became of the tool call afterwards, where the log knows: `succeeded`, `failed: ...`.
    #[serde(default)]
    pub outcome: Option<String>,
    /// What became of each lesson said, as attributed so far (see [`LessonOutcome`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outcomes: Vec<LessonOutcome>,
}

/// What a lesson said at a moment changed: `followed`, `ignored`, `contradicted` or `unknown`,
/// with the evidence; `settled` once nothing later can change it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LessonOutcome {
    pub memory: String,
    pub verdict: String,
    pub settled: bool,
    pub evidence: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct AdviseRequest {
    /// Free text to advise on.
    #[serde(default)]
    pub text: Option<String>,
    /// A Claude Code hook payload to advise on instead.
    #[serde(default)]
    pub hook_input: Option<serde_json::Value>,
    #[serde(default)]
    pub scope: Scope,
    #[serde(default)]
    pub limit: Option<u32>,
    /// With a session, cooldowns apply and the advice is recorded; without, a pure dry run.
    #[serde(default)]
    pub session: Option<String>,
    /// Also answer what was considered and not said, with the verdict for each.
    #[serde(default)]
    pub explain: bool,
}

/// Advice before formatting: what the hook would emit and why.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Advice {
    pub intent: String,
    pub project: String,
    pub advice: Vec<AdviceItem>,
    /// How much the action warranted advice at all (0 to 1), and why.
    #[serde(default)]
    pub salience: f64,
    #[serde(default)]
    pub salience_reason: String,
    /// With `explain`: the candidates not said, each with its verdict.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub considered: Vec<AdviceItem>,
    /// The interrupt the hook would answer with (`ask` or `deny`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<String>,
    /// The project is paused (`cairn pause`): nothing is advised or recorded there.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub paused: bool,
}

/// One lesson the advisor said, or weighed and did not say: in an answer, in `--explain`'s list
/// of what was considered, and in the session log as it was then.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AdviceItem {
    pub id: String,
    pub text: String,
    #[serde(default)]
    pub category: String,
    pub score: f64,
    pub why: String,
    /// Every signal that went into the score, each under its own name.
    #[serde(default)]
    pub signals: Signals,
    /// `semantic` (retrieval found it), `trigger` (a rule put it forward), `both`, or `session`
    /// (the session-start brief).
    #[serde(default)]
    pub source: String,
    /// For an item considered and not said: why not (gated, not decided, cooldown, redundant,
    /// category cap, outshone, limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<String>,
    /// The path that reached the lesson through the memory graph, node ids from where it
    /// started: `[situation, lesson]` when a situation learned from feedback spoke for it, the
    /// lesson alone when retrieval or a rule found it. Feedback follows it back.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub path: Vec<String>,
    /// The trigger rule that put it forward, when one did: outcome attribution checks later
    /// calls against it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
}

/// Signals in an [`AdviceItem`], named once so client and daemon agree.
pub type Signals = BTreeMap<String, f64>;
