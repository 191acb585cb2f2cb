//! The memory graph and feedback: the three verbs that teach cairn where a lesson applies
//! (`used`, `not-relevant`, `not-useful`), a manual link, a lesson's place in the graph, and the
//! adjustment log.

use serde::{Deserialize, Serialize};

use super::scope::Scope;
use crate::memory::{Edge, Memory, Situation};

/// What the user says about a lesson.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FeedbackVerb {
    /// The lesson was the right one for that moment.
    Used,
    /// The route was wrong: not a lesson for that moment (the lesson keeps its worth).
    NotRelevant,
    /// The lesson itself is stale, wrong or badly written (no moment needed).
    NotUseful,
}

impl FeedbackVerb {
    pub fn as_str(self) -> &'static str {
        match self {
            FeedbackVerb::Used => "used",
            FeedbackVerb::NotRelevant => "not-relevant",
            FeedbackVerb::NotUseful => "not-useful",
        }
    }
}

/// Feedback on `memory`, for one moment: the tool call `tool_use_id` (in `session` when given),
/// else the latest moment of `session`, else of the latest session in the scope's project.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FeedbackRequest {
    pub verb: FeedbackVerb,
    pub memory: String,
    #[serde(default)]
    pub session: Option<String>,
    #[serde(default)]
    pub tool_use_id: Option<String>,
    #[serde(default)]
    pub scope: Scope,
}

/// What a feedback changed, acknowledged once it is on disk.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FeedbackReport {
    pub memory: String,
    /// The moment it was about, in words (event, tool, intent, time), when the verb takes one.
    #[serde(default)]
    pub moment: Option<String>,
    /// Whether the lesson had been said at that moment.
    #[serde(default)]
    pub said_there: bool,
    /// The situation the moment became (new or seen again).
    #[serde(default)]
    pub situation: Option<String>,
    /// Every change, one line each (the adjustment log has them too).
    pub changes: Vec<String>,
    /// Why nothing changed, when nothing did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// `cairn graph link`: sets an edge's strength outright (the manual tier).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GraphLink {
    pub source: String,
    pub target: String,
    pub strength: f64,
    /// `manual` unless named (`applies` from a situation, `co_used`, ...).
    #[serde(default)]
    pub kind: Option<String>,
}

/// A lesson's place in the graph.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GraphView {
    pub memory: Memory,
    /// Edges out of it.
    pub out: Vec<Edge>,
    /// Edges into it, with the situation each comes from when it is one.
    pub into: Vec<(Edge, Option<Situation>)>,
    /// Whether it is kept out of advice (`cairn mute`).
    #[serde(default)]
    pub muted: bool,
}

/// `cairn graph log`: the newest lines of the adjustment log, of one memory when given.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct GraphLogQuery {
    #[serde(default)]
    pub memory: Option<String>,
    pub limit: u32,
}

/// What a line of the adjustment log (as `graph_log` answers it) changed, in words:
/// `source -[kind]-> target` for an edge, `field of id` for a node.
pub fn adjustment_what(line: &serde_json::Value) -> String {
    let part = |e: &[serde_json::Value], i: usize| e.get(i).and_then(|v| v.as_str()).unwrap_or("").to_string();
    match (line["edge"].as_array(), line["node"].as_str()) {
        (Some(e), _) => format!("{} -[{}]-> {}", part(e, 0), part(e, 2), part(e, 1)),
        (_, Some(n)) => format!("{} of {n}", line["field"].as_str().unwrap_or("node")),
        _ => "?".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adjustment_lines_in_words() {
        assert_eq!(adjustment_what(&serde_json::json!({"edge": ["s", "m", "applies"]})), "s -[applies]-> m");
        assert_eq!(adjustment_what(&serde_json::json!({"node": "m", "field": "node_weight"})), "node_weight of m");
        assert_eq!(adjustment_what(&serde_json::json!({"edge": []})), " -[]-> ", "a short edge is not a panic");
        assert_eq!(adjustment_what(&serde_json::json!({})), "?");
    }
}
