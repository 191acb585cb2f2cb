//! A memory considered for advice, with everything known about it: what retrieval found, the
//! rule that put it forward, and its enrichment (effectiveness, recency, its embedding, a seed's
//! weight).

use crate::config::rules::Priority;
use crate::retrieval::Hit;


/// The node weight at or under which the user's `used` no longer makes a lesson speak like an
/// instruction: five `not-useful` steps of 0.1 from 1.
pub const INSTRUCTED_NODE_WEIGHT: f64 = 0.5;

/// A candidate's standing among the others retrieved for the same moment.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Standing {
    /// The closest in meaning of all retrieved.
    pub best: bool,
    /// Its closeness minus the closest other's (clamped to +-0.3).
    pub margin: f64,
}

/// A trigger rule that put a memory forward.
#[derive(Debug, Clone, PartialEq)]
pub struct Triggered {
    pub rule: String,
    pub priority: Priority,
    /// Confidence in the rule itself: 1 for the user's and cairn's rules, less for learned ones.
    pub confidence: f64,
    /// A rule cairn learned (from `learned:`), not one the user, the pack or cairn wrote.
    pub learned: bool,
    /// The text of the tool input the pattern matched.
    pub matched: String,
    /// `Some(category)` when the rule named a category and this memory was its most relevant.
    pub via_category: Option<String>,
    /// The rule may interrupt the tool call (critical, `interrupt: true`), if interrupts are on.
    pub interrupt: bool,
}

/// Where a candidate came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Semantic,
    Trigger,
    Both,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Semantic => "semantic",
            Source::Trigger => "trigger",
            Source::Both => "both",
        }
    }
}

/// A memory considered for advice.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub id: String,
    pub text: String,
    pub category: String,
    pub project: String,
    /// Set when retrieval found it (or, for a triggered memory, scored it).
    pub hit: Option<Hit>,
    pub trigger: Option<Triggered>,
    /// Beta-prior effectiveness in [0, 1].
    pub effectiveness: f64,
    /// Its node weight in the memory graph (1, lowered by `not-useful`).
    pub node_weight: f64,
    /// 1 for a memory touched just now, halving every `recency_half_life_days`.
    pub recency: f64,
    /// The memory's embedding, for diversity (absent without the model).
    pub vector: Option<Vec<f32>>,
    /// Whether retrieval itself put it forward (a triggered memory is also scored, but that
    /// alone does not make it retrieved).
    pub found: bool,
    /// For a seed lesson: its weight in the decision and what the weight rests on.
    pub seed: Option<(f64, String)>,
    /// Its standing among everything retrieved for the moment (closest in meaning, and by how
    /// much): set by the gathering, which sees them all.
    pub standing: Standing,
    /// Activation spread to it along the memory graph's edges from another lesson of the moment.
    pub activation: Option<Activation>,
    /// A captured lesson still earning its voice: scored like any other, never said; where it
    /// would have been, the moment is its shadow record.
    pub pending: bool,
    /// For a captured lesson: when and from what, in words (for `why`).
    pub captured: Option<String>,
    /// The lesson's remedy the action already holds (`super::remedy`), in the lesson's words.
    pub complies: Option<String>,
    /// The words an edit takes out that the lesson names (`super::remedy`).
    pub takes_out: Vec<String>,
    /// A rule naming this lesson whose pattern matched and whose `unless` did too: the action is
    /// the safe form of the rule's case (`kubectl --context kind-dev apply`), and the lesson is
    /// not said for it, by the rule or by meaning.
    pub safe_form: Option<String>,
    /// Why the lesson holds elsewhere than where the action aims (`super::scope`): a lesson
    /// about production at a command against `localhost`.
    pub elsewhere: Option<String>,
    /// The rule that put the lesson forward does not fire on its nearest near miss: the two
    /// differ in what the rule catches (`sudo pip install -r requirements.txt` beside the near
    /// miss `pip install -r requirements.txt`), however close they read, so that near miss is
    /// no veto.
    pub rule_tells_apart: bool,
}

/// Activation that reached a lesson through the memory graph, with the path it took (node ids
/// from where it started: a situation or a lesson of the moment, then lessons).
#[derive(Debug, Clone, PartialEq)]
pub struct Activation {
    pub value: f64,
    pub path: Vec<String>,
    /// The text of the lesson it came from.
    pub from: String,
}

impl Candidate {
    /// The path that reached it through the memory graph: a situation learned in this project
    /// that says it applies, then the lesson; the lesson alone when retrieval or a rule found it.
    pub fn path(&self) -> Vec<String> {
        match (self.hit.as_ref().and_then(|h| h.learned.applies.as_ref()), &self.activation) {
            (Some(m), _) => vec![m.situation.clone(), self.id.clone()],
            (None, Some(a)) => a.path.clone(),
            (None, None) => vec![self.id.clone()],
        }
    }

    /// The activation spread to it (0 when none).
    pub fn activation(&self) -> f64 {
        self.activation.as_ref().map_or(0.0, |a| a.value)
    }

    /// The user's feedback says the lesson applies to a moment like this one: a situation they
    /// linked to it is at least `same_moment` close, closer than any they said it is not for,
    /// and they have not judged the lesson itself not useful again and again since (its node
    /// weight above [`INSTRUCTED_NODE_WEIGHT`]): a lesson they keep calling stale speaks only as
    /// the model decides, its odds scaled down.
    ///
    /// An example moment the user gave their own lesson (`--example`; a seed's are the pack's
    /// guesses, weighed by the model) is their word the same way: a moment as close as
    /// `same_moment` to it, closer than to any of the lesson's near misses, gets the lesson.
    pub fn by_feedback(&self, same_moment: f64) -> bool {
        if self.node_weight <= INSTRUCTED_NODE_WEIGHT {
            return false;
        }
        let Some(h) = &self.hit else { return false };
        let taught = h.learned.applies.as_ref().is_some_and(|yes| yes.closeness >= same_moment && h.learned.not.as_ref().is_none_or(|no| no.closeness < yes.closeness));
        let exemplified = self.seed.is_none()
            && h.example.as_ref().is_some_and(|(c, _)| *c >= same_moment && h.counter.as_ref().is_none_or(|(n, _)| n < c) && h.learned.not.as_ref().is_none_or(|no| no.closeness < *c));
        taught || exemplified
    }

    pub fn source(&self) -> Source {
        match (&self.trigger, self.found) {
            (Some(_), true) => Source::Both,
            (Some(_), false) => Source::Trigger,
            (None, _) => Source::Semantic,
        }
    }

    /// The retrieval relevance (0 for a memory only a rule put forward).
    pub fn relevance(&self) -> f64 {
        self.hit.as_ref().map_or(0.0, |h| h.relevance)
    }
}
