//! Why: the reason each lesson was said, every signal named, in words for people and short for
//! the hook's context text; and why a lesson weighed was not said. Pure.

use super::candidate::Candidate;
use super::decision::{Decision, Term};
use super::salience::Salience;

/// Why a considered candidate was not said.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Failed the relevance gate.
    Gated(String),
    /// The decision's probability under its bar (`min_fusion_score`).
    Undecided(String),
    /// The moment is closer to a near miss the lesson is not for than to it and its examples.
    NearMiss(String),
    /// Said in this session within the cooldown.
    Cooldown,
    /// Too close to an item already chosen.
    Redundant(String),
    /// Its category had its share already.
    CategoryCap,
    /// Far below the best item of the same answer.
    Outshone(String),
    /// Past the item limit or the character budget.
    OverLimit,
    /// A captured candidate that would have been said: recorded as its shadow, not said.
    Shadow,
}

impl Verdict {
    pub fn describe(&self) -> String {
        match self {
            Verdict::Gated(r) => format!("gated: {r}"),
            Verdict::Undecided(r) => format!("not decided: {r}"),
            Verdict::NearMiss(r) => format!("near miss: {r}"),
            Verdict::Cooldown => "said earlier in this session (cooldown)".into(),
            Verdict::Redundant(r) => format!("redundant: {r}"),
            Verdict::CategoryCap => "its category had its share".into(),
            Verdict::Outshone(r) => format!("outshone: {r}"),
            Verdict::OverLimit => "past the item limit or the character budget".into(),
            Verdict::Shadow => "a captured candidate: it would have been said here (its shadow record); it speaks once promoted".into(),
        }
    }
}

fn clip(text: &str, n: usize) -> String {
    if text.chars().count() <= n { text.to_string() } else { format!("{}...", text.chars().take(n).collect::<String>()) }
}

/// One term of the decision in words, with what it added to the logit.
fn term(c: &Candidate, t: &Term, salience: &Salience) -> String {
    let v = t.value;
    let words = match t.name.as_str() {
        "meaning" => match c.hit.as_ref().and_then(|h| h.lending_example()) {
            // A situation learned for it stands in for an example (its text marked so).
            Some(text) => match text.strip_suffix(crate::retrieval::LEARNED_MARK) {
                Some(moment) => format!("meaning {v:.2} (like '{}', where it was learned to apply)", clip(moment, 60)),
                None => format!("meaning {v:.2} (like its example '{}')", clip(text, 60)),
            },
            None => format!("meaning {v:.2}"),
        },
        "best" => "the closest lesson".to_string(),
        "margin" => format!("lead {v:+.2} over the next"),
        "by_example" => "found by an example".to_string(),
        "words" => format!("words {v:.2} ({})", c.hit.as_ref().map_or_else(String::new, |h| h.words())),
        "rule_critical" | "rule_high" | "rule_other" => "its rule".to_string(),
        "rule_by_category" => "picked from the rule's category".to_string(),
        "salience" => format!("salience {v:.2} ({})", salience.reason),
        "prompt" => "asked in words".to_string(),
        "seed" => "seed lesson".to_string(),
        "complies" => format!("the action already does what it asks ('{}')", c.complies.as_deref().unwrap_or("")),
        "takes_out" => format!("the edit takes out what it names ('{}')", c.takes_out.join(", ")),
        "outcome" => format!("effectiveness {:.2}", c.effectiveness),
        "recency" => format!("recency {v:.2}"),
        "seed_weight" => format!("seed weight {v:.2} ({})", c.seed.as_ref().map_or("", |(_, b)| b.as_str())),
        "node_weight" => format!("node weight {v:.2} (judged not useful)"),
        "learned" => "learned: applied to a moment like this".to_string(),
        "activation" => match &c.activation {
            Some(a) => {
                // Hops between lessons: a path may open at the situation that put its first
                // lesson forward, which is how that lesson was found, not a hop.
                let hops = a.path.iter().filter(|n| !n.starts_with(cairn_proto::SITUATION_PREFIX)).count().saturating_sub(1);
                format!("learned: linked from '{}' (activation {v:.2}, {hops} hop{})", clip(&a.from, 60), if hops == 1 { "" } else { "s" })
            }
            None => format!("activation {v:.2}"),
        },
        other => match other.strip_prefix("category:") {
            Some(cat) => format!("{cat} lesson"),
            None => format!("{other} {v:.2}"),
        },
    };
    format!("{words} {:+.2}", t.contribution)
}

/// What the situations learned from feedback say, in words: "learned: applied to a moment like
/// '...' (0.97; link 0.51)" ("applied to 3 moments like this, the closest '...'" when it was
/// linked to more than one), with the share of its anchors (its words the lesson has) this moment
/// has when it lacks some: "(0.63, 3 of 4 of its words the lesson has; link 0.51)", and
/// whether it is as close for running the same command on other arguments: "(0.90, the same
/// command; link 0.51)", or for being the same kind of action with every word of it the lesson
/// names: "(0.70, the same kind of action with its words the lesson names; link 0.51)".
fn learned(c: &Candidate) -> Option<String> {
    let h = c.hit.as_ref()?;
    let yes = h.learned.applies.as_ref().map(|m| {
        let anchors = if m.shared < m.anchors { format!(", {} of {} of its words the lesson has", m.shared, m.anchors) } else { String::new() };
        let command = if m.by_command {
            ", the same command"
        } else if m.by_anchors {
            ", the same kind of action with its words the lesson names"
        } else {
            ""
        };
        let times = if h.learned.like > 1 { format!("applied to {} moments like this, the closest", h.learned.like) } else { "applied to a moment like".to_string() };
        format!("learned: {times} '{}' ({:.2}{command}{anchors}; link {:.2})", clip(&m.text, 60), m.closeness, m.strength)
    });
    let no = h.learned.not.as_ref().map(|m| format!("learned: not for a moment like '{}' ({:.2}; link {:.2})", clip(&m.text, 60), m.closeness, m.strength));
    let both: Vec<String> = yes.into_iter().chain(no).collect();
    (!both.is_empty()).then(|| both.join("; "))
}

/// `why` (the decision and every term) and its first clause (for the hook's context text).
/// `instructed`: the user's feedback on a moment like this one speaks for the lesson.
pub fn why(c: &Candidate, d: &Decision, bar: f64, salience: &Salience, instructed: bool) -> (String, String) {
    let mut clauses = Vec::new();
    let decided = format!("p {:.2} (bar {bar:.2})", d.probability);
    // The short reason: the closeness in meaning when there is one, then the strongest other
    // term that spoke for the lesson; each without its number of logit.
    let bare = |t: &Term| {
        let full = term(c, t, salience);
        full.rsplit_once(' ').map_or(full.clone(), |(w, _)| w.to_string())
    };
    let mut leads: Vec<String> = d.terms.iter().filter(|t| t.name == "meaning").map(bare).collect();
    leads.extend(d.terms.iter().filter(|t| t.contribution > 0.0 && t.name != "meaning" && !t.name.starts_with("rule_")).take(1).map(bare));
    let short_why = match &c.trigger {
        Some(tr) => {
            let short = format!("trigger {} ({})", tr.rule, tr.priority.name());
            let mut clause = format!("{short} on `{}`", tr.matched);
            if let Some(cat) = &tr.via_category {
                clause.push_str(&format!(", the most relevant {cat} lesson"));
            }
            if tr.learned {
                clause.push_str(&format!(", learned rule (confidence {:.2})", tr.confidence));
            }
            clauses.push(clause);
            short
        }
        None if instructed => {
            let h = c.hit.as_ref();
            match (h.and_then(|h| h.learned.applies.as_ref()), h.and_then(|h| h.example.as_ref())) {
                (Some(m), example) if example.is_none_or(|(e, _)| m.closeness >= *e) => format!("learned: it applied to a moment like this ({:.2})", m.closeness),
                (_, Some((e, text))) => format!("your example: a moment like '{}' ({e:.2})", clip(text, 60)),
                _ => "learned".to_string(),
            }
        }
        None if leads.is_empty() => decided.clone(),
        None => format!("{decided}: {}", leads.join(", ")),
    };
    if let Some(l) = learned(c) {
        clauses.push(l);
    }
    let terms: Vec<String> = d.terms.iter().map(|t| term(c, t, salience)).collect();
    clauses.push(format!("{decided}: {}, base {:+.2}", terms.join(", "), d.intercept));
    if let Some((n, text)) = c.hit.as_ref().and_then(|h| h.counter.as_ref()) {
        clauses.push(format!("nearest moment it is not for '{}' ({n:.2})", clip(text, 60)));
    }
    if let Some(h) = &c.hit {
        clauses.push(h.explain());
    }
    if let Some((w, basis)) = &c.seed {
        clauses.push(format!("seed lesson, weight {w:.2} ({basis})"));
    }
    if let Some(captured) = &c.captured {
        clauses.push(captured.clone());
    }
    clauses.push(format!("from {}", c.project));
    (clauses.join("; "), short_why)
}
