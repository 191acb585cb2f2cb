//! Why: the reason each lesson was said, every signal named, in words for people and short for
//! the hook's context text; and why a lesson weighed was not said. Pure.

use super::candidate::{Candidate, Source};

/// Why a considered candidate was not said.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Failed the relevance gate.
    Gated(String),
    /// Fused score under `min_fusion_score`.
    Undecided(String),
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
}

impl Verdict {
    pub fn describe(&self) -> String {
        match self {
            Verdict::Gated(r) => format!("gated: {r}"),
            Verdict::Undecided(r) => format!("not decided: {r}"),
            Verdict::Cooldown => "said earlier in this session (cooldown)".into(),
            Verdict::Redundant(r) => format!("redundant: {r}"),
            Verdict::CategoryCap => "its category had its share".into(),
            Verdict::Outshone(r) => format!("outshone: {r}"),
            Verdict::OverLimit => "past the item limit or the character budget".into(),
        }
    }
}

/// The terms of a candidate's score, as `why` names them.
pub struct Terms {
    pub source: Source,
    pub relevance: f64,
    pub recency_boost: f64,
    pub score: f64,
}

/// `why` (every signal) and its first clause (for the hook's context text).
pub fn why(c: &Candidate, t: &Terms, salience: (f64, &str)) -> (String, String) {
    let relevance = t.relevance;
    let relevance_clause = c.hit.as_ref().map(|h| match h.semantic {
        Some(semantic) => format!("relevance {relevance:.2} (semantic {semantic:.2}, words {:.2}: {})", h.lexical, h.words()),
        None => format!("relevance {relevance:.2} (words {:.2}: {}; no embeddings)", h.lexical, h.words()),
    });
    let mut clauses = Vec::new();
    let short_why = match &c.trigger {
        Some(tr) => {
            let short = format!("trigger {} ({})", tr.rule, tr.priority.name());
            let mut clause = format!("{short} on `{}`", tr.matched);
            if let Some(cat) = &tr.via_category {
                clause.push_str(&format!(", the most relevant {cat} lesson"));
            }
            if tr.confidence < 1.0 {
                clause.push_str(&format!(", learned rule (confidence {:.2})", tr.confidence));
            }
            clauses.push(clause);
            if let Some(rc) = relevance_clause.filter(|_| t.source == Source::Both) {
                clauses.push(rc);
            }
            short
        }
        None => {
            clauses.push(relevance_clause.unwrap_or_default());
            match c.hit.as_ref() {
                Some(h) => match h.semantic {
                    Some(semantic) => format!("relevance {relevance:.2} (semantic {semantic:.2}, words {:.2})", h.lexical),
                    None => format!("relevance {relevance:.2} (words {:.2})", h.lexical),
                },
                None => format!("relevance {relevance:.2}"),
            }
        }
    };
    clauses.push(format!("salience {:.2} ({})", salience.0, salience.1));
    if (c.effectiveness - 0.5).abs() > 1e-9 {
        clauses.push(format!("effectiveness {:.2}", c.effectiveness));
    }
    if t.recency_boost > 0.005 {
        clauses.push(format!("recency {:.2}", c.recency));
    }
    if let Some((w, basis)) = &c.seed {
        clauses.push(format!("seed lesson, weight {w:.2} ({basis})"));
    }
    clauses.push(format!("score {:.2}; from {}", t.score, c.project));
    (clauses.join("; "), short_why)
}
