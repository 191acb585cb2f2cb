//! Gate, fuse and decide: turns candidates into scored advice, each signal kept separate and
//! named so that `why` can show it. Pure; no I/O.
//!
//! Two thresholds, in this order and never the other way round (Spark's fix 2):
//! 1. the gate, `min_similarity`, on retrieval relevance alone (the hybrid of keywords and
//!    embeddings); a trigger's candidate bypasses it, since its pattern matched;
//! 2. the decision, `min_fusion_score`, on the fused score. Nothing after fusion filters on raw
//!    similarity again, so a well-fused item is never dropped by a similarity test.
//!
//! The fusion starts from Spark's revised formula, every term its own signal:
//! - retrieved: `relevance x (1 + outcome_boost + recency_boost) x salience_factor` (x a seed's
//!   weight, for a seed lesson)
//! - triggered: `trigger_base x trigger_conf + outcome_boost / 2 + priority_bonus`
//! - both: the larger of the two.
//!
//! where `outcome_boost = weight_outcome x (effectiveness - 0.5) x 2` (an untested memory, at
//! its Beta prior 0.5, is neutral), `recency_boost = weight_recency x recency`, and
//! `salience_factor = 1 - weight_salience x (1 - salience)` (a look-around needs stronger
//! evidence than a push).

use cairn_proto::Signals;

use crate::hybrid::{Evidence, Fusion};
use crate::triggers::Priority;

/// What retrieval found out about a memory for this query.
#[derive(Debug, Clone, PartialEq)]
pub struct Retrieved {
    pub lexical: f64,
    pub cosine: Option<f64>,
    pub bm25: f64,
    /// Query words the memory matched, as the user wrote them.
    pub matched_words: Vec<String>,
    pub query_terms: usize,
}

impl Retrieved {
    pub fn evidence(&self) -> Evidence {
        Evidence { lexical: self.lexical, cosine: self.cosine }
    }
}

/// A trigger rule that put a memory forward.
#[derive(Debug, Clone, PartialEq)]
pub struct Triggered {
    pub rule: String,
    pub priority: Priority,
    /// Confidence in the rule itself: 1 for the user's and cairn's rules, less for learned ones.
    pub confidence: f64,
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

/// A memory considered for advice, with everything known about it.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub id: String,
    pub text: String,
    pub category: String,
    pub project: String,
    /// Set when retrieval found it (or, for a triggered memory, scored it).
    pub retrieved: Option<Retrieved>,
    pub trigger: Option<Triggered>,
    /// Beta-prior effectiveness in [0, 1].
    pub effectiveness: f64,
    /// 1 for a memory touched just now, halving every `recency_half_life_days`.
    pub recency: f64,
    /// The memory's embedding, for diversity (absent without the model).
    pub vector: Option<Vec<f32>>,
    /// Whether retrieval itself put it forward (a triggered memory is also scored, but that
    /// alone does not make it retrieved).
    pub found: bool,
    /// For a seed lesson: its weight in fusion and what the weight rests on.
    pub seed: Option<(f64, String)>,
}

impl Candidate {
    pub fn source(&self) -> Source {
        match (&self.trigger, self.found) {
            (Some(_), true) => Source::Both,
            (Some(_), false) => Source::Trigger,
            (None, _) => Source::Semantic,
        }
    }
}

/// Thresholds and weights from the tuneables.
#[derive(Debug, Clone, PartialEq)]
pub struct Gates {
    pub min_similarity: f64,
    pub min_fusion_score: f64,
    /// Without embeddings, a memory must share at least this many query terms (fewer if the
    /// query has fewer).
    pub min_matched_terms: usize,
    pub weight_outcome: f64,
    pub weight_recency: f64,
    pub weight_salience: f64,
    pub trigger_base: f64,
    /// Added to a trigger's score by its priority: critical, high, normal, background.
    pub priority_bonus: [f64; 4],
    pub fusion: Fusion,
}

impl Default for Gates {
    fn default() -> Gates {
        Gates {
            min_similarity: 0.5,
            min_fusion_score: 0.65,
            min_matched_terms: 2,
            weight_outcome: 0.3,
            weight_recency: 0.1,
            weight_salience: 0.5,
            trigger_base: 0.9,
            priority_bonus: [0.2, 0.1, 0.0, -0.1],
            fusion: Fusion { weight_similarity: 0.7, similarity_floor: 0.15, similarity_ceiling: 0.9 },
        }
    }
}

/// 0 for critical up to 3 for background.
pub fn priority_index(p: Priority) -> usize {
    match p {
        Priority::Critical => 0,
        Priority::High => 1,
        Priority::Normal => 2,
        Priority::Background => 3,
    }
}

pub fn priority_name(p: Priority) -> &'static str {
    ["critical", "high", "normal", "background"][priority_index(p)]
}

/// A candidate after fusion.
#[derive(Debug, Clone)]
pub struct Scored {
    pub candidate: Candidate,
    pub source: Source,
    pub relevance: f64,
    pub score: f64,
    pub signals: Signals,
    /// The reason in words, every signal named.
    pub why: String,
    /// The first clause of `why`, short enough for the hook's context text.
    pub short_why: String,
}

/// Why a considered candidate was not said (or `Said`).
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Said,
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
            Verdict::Said => "said".into(),
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

/// The relevance gate. Triggered candidates pass: their rule matched the action itself.
pub fn gate(c: &Candidate, relevance: f64, gates: &Gates) -> Result<(), String> {
    if c.trigger.is_some() {
        return Ok(());
    }
    let Some(r) = &c.retrieved else { return Err("not retrieved".into()) };
    if relevance < gates.min_similarity {
        return Err(format!("relevance {relevance:.2} < min_similarity {:.2}", gates.min_similarity));
    }
    let needed = gates.min_matched_terms.min(r.query_terms);
    if r.cosine.is_none() && r.matched_words.len() < needed {
        return Err(format!("no embeddings, and {} of the {needed} query words needed matched", r.matched_words.len()));
    }
    Ok(())
}

fn words_clause(r: &Retrieved) -> String {
    if r.matched_words.is_empty() {
        "no shared words".to_string()
    } else {
        r.matched_words.iter().map(|w| format!("'{w}'")).collect::<Vec<_>>().join(", ")
    }
}

/// Fuses a candidate's signals into its score, with `why`.
pub fn fuse(c: Candidate, salience: (f64, &str), gates: &Gates) -> Scored {
    let source = c.source();
    let relevance = c.retrieved.as_ref().map_or(0.0, |r| gates.fusion.relevance(r.evidence()));
    let outcome_boost = gates.weight_outcome * (c.effectiveness.clamp(0.0, 1.0) - 0.5) * 2.0;
    let recency_boost = gates.weight_recency * c.recency.clamp(0.0, 1.0);
    let salience_factor = 1.0 - gates.weight_salience.clamp(0.0, 1.0) * (1.0 - salience.0.clamp(0.0, 1.0));
    // A seed yields to the user's own lessons as they accumulate, by what retrieval found; a
    // rule that matched the action itself speaks at full strength (a critical warning must not
    // fade because the user wrote many lessons of their own).
    let seed_weight = c.seed.as_ref().map_or(1.0, |(w, _)| *w);
    let retrieved_score = relevance * (1.0 + outcome_boost + recency_boost) * salience_factor * seed_weight;
    let trigger_score = c.trigger.as_ref().map(|t| gates.trigger_base * t.confidence + outcome_boost / 2.0 + gates.priority_bonus[priority_index(t.priority)]);
    let score = match (source, trigger_score) {
        (Source::Semantic, _) | (_, None) => retrieved_score,
        (Source::Trigger, Some(t)) => t,
        (Source::Both, Some(t)) => t.max(retrieved_score),
    };


    let mut signals = Signals::new();
    signals.insert("relevance".into(), relevance);
    signals.insert("salience".into(), salience.0);
    signals.insert("effectiveness".into(), c.effectiveness);
    signals.insert("outcome_boost".into(), outcome_boost);
    signals.insert("recency".into(), c.recency);
    signals.insert("recency_boost".into(), recency_boost);
    signals.insert("trigger_conf".into(), c.trigger.as_ref().map_or(0.0, |t| t.confidence));
    signals.insert("source_semantic".into(), if source == Source::Trigger { 0.0 } else { 1.0 });
    signals.insert("source_trigger".into(), if source == Source::Semantic { 0.0 } else { 1.0 });
    if let Some(r) = &c.retrieved {
        signals.insert("lexical".into(), r.lexical);
        signals.insert("bm25".into(), r.bm25);
        if let Some(cos) = r.cosine {
            signals.insert("similarity".into(), cos);
            signals.insert("semantic".into(), gates.fusion.semantic(cos));
        }
    }
    if c.seed.is_some() {
        signals.insert("seed_weight".into(), seed_weight);
    }
    if let Some(t) = &c.trigger {
        signals.insert("priority".into(), 3.0 - priority_index(t.priority) as f64);
        signals.insert("priority_bonus".into(), gates.priority_bonus[priority_index(t.priority)]);
    }

    let relevance_clause = c.retrieved.as_ref().map(|r| match r.cosine {
        Some(cos) => format!("relevance {relevance:.2} (semantic {:.2}, words {:.2}: {})", gates.fusion.semantic(cos), r.lexical, words_clause(r)),
        None => format!("relevance {relevance:.2} (words {:.2}: {}; no embeddings)", r.lexical, words_clause(r)),
    });
    let mut clauses = Vec::new();
    let short_why = match &c.trigger {
        Some(t) => {
            let short = format!("trigger {} ({})", t.rule, priority_name(t.priority));
            let mut clause = format!("{short} on `{}`", t.matched);
            if let Some(cat) = &t.via_category {
                clause.push_str(&format!(", the most relevant {cat} lesson"));
            }
            if t.confidence < 1.0 {
                clause.push_str(&format!(", learned rule (confidence {:.2})", t.confidence));
            }
            clauses.push(clause);
            if let Some(rc) = relevance_clause.filter(|_| source == Source::Both) {
                clauses.push(rc);
            }
            short
        }
        None => {
            clauses.push(relevance_clause.unwrap_or_default());
            match c.retrieved.as_ref().map(|r| (r.cosine, r.lexical)) {
                Some((Some(cos), lexical)) => format!("relevance {relevance:.2} (semantic {:.2}, words {lexical:.2})", gates.fusion.semantic(cos)),
                Some((None, lexical)) => format!("relevance {relevance:.2} (words {lexical:.2})"),
                None => format!("relevance {relevance:.2}"),
            }
        }
    };
    clauses.push(format!("salience {:.2} ({})", salience.0, salience.1));
    if (c.effectiveness - 0.5).abs() > 1e-9 {
        clauses.push(format!("effectiveness {:.2}", c.effectiveness));
    }
    if recency_boost > 0.005 {
        clauses.push(format!("recency {:.2}", c.recency));
    }
    if let Some((w, basis)) = &c.seed {
        clauses.push(format!("seed lesson, weight {w:.2} ({basis})"));
    }
    clauses.push(format!("score {score:.2}; from {}", c.project));
    let why = clauses.join("; ");
    Scored { source, relevance, score, signals, why, short_why, candidate: c }
}

/// Gates, fuses and decides. Returns what passed, best first, and what did not, with why.
pub fn rank(candidates: Vec<Candidate>, salience: (f64, &str), gates: &Gates) -> (Vec<Scored>, Vec<(Scored, Verdict)>) {
    let mut kept = Vec::new();
    let mut dropped = Vec::new();
    for c in candidates {
        let relevance = c.retrieved.as_ref().map_or(0.0, |r| gates.fusion.relevance(r.evidence()));
        let gated = gate(&c, relevance, gates);
        let scored = fuse(c, salience, gates);
        match gated {
            Err(reason) => dropped.push((scored, Verdict::Gated(reason))),
            Ok(()) if scored.score < gates.min_fusion_score => {
                let reason = format!("score {:.2} < min_fusion_score {:.2}", scored.score, gates.min_fusion_score);
                dropped.push((scored, Verdict::Undecided(reason)));
            }
            Ok(()) => kept.push(scored),
        }
    }
    kept.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.candidate.id.cmp(&b.candidate.id)));
    (kept, dropped)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(id: &str, lexical: f64, cosine: Option<f64>, matched: usize, effectiveness: f64) -> Candidate {
        Candidate {
            id: id.into(),
            text: format!("memory {id}"),
            category: "general".into(),
            project: "p".into(),
            retrieved: Some(Retrieved { lexical, cosine, bm25: lexical * 5.0, matched_words: (0..matched).map(|i| format!("w{i}")).collect(), query_terms: 4 }),
            trigger: None,
            effectiveness,
            recency: 0.0,
            vector: None,
            found: true,
            seed: None,
        }
    }

    fn trig(id: &str, priority: Priority) -> Candidate {
        let mut c = cand(id, 0.0, Some(0.0), 0, 0.5);
        c.trigger = Some(Triggered { rule: "force_push".into(), priority, confidence: 1.0, matched: "git push --force".into(), via_category: Some("git".into()), interrupt: false });
        c.retrieved = None;
        c.found = false;
        c
    }

    fn gates() -> Gates {
        Gates { min_similarity: 0.4, min_fusion_score: 0.45, weight_recency: 0.0, ..Gates::default() }
    }

    const LOUD: (f64, &str) = (1.0, "pushes");

    fn ids(v: &[Scored]) -> Vec<&str> {
        v.iter().map(|s| s.candidate.id.as_str()).collect()
    }

    #[test]
    fn the_gate_looks_at_relevance_only() {
        let (kept, dropped) = rank(vec![cand("a", 0.9, None, 3, 0.5), cand("b", 0.3, None, 3, 0.5)], LOUD, &gates());
        assert_eq!(ids(&kept), vec!["a"]);
        assert!(matches!(&dropped[0].1, Verdict::Gated(r) if r.contains("min_similarity")), "{dropped:?}");
    }

    #[test]
    fn a_trigger_is_never_gated_by_relevance() {
        let (kept, _) = rank(vec![trig("t", Priority::Critical)], LOUD, &gates());
        assert_eq!(ids(&kept), vec!["t"]);
        assert_eq!(kept[0].relevance, 0.0);
        assert_eq!(kept[0].source, Source::Trigger);
        assert!(kept[0].why.starts_with("trigger force_push (critical) on `git push --force`"), "{}", kept[0].why);
        assert_eq!(kept[0].short_why, "trigger force_push (critical)");
        assert_eq!(kept[0].signals["trigger_conf"], 1.0);
    }

    #[test]
    fn a_high_fusion_item_is_not_dropped_by_similarity_after_ranking() {
        // Just past the gate, lifted by its record; an item of higher raw similarity but a poor
        // record falls under the decision line. Ranking follows the fused score, and nothing
        // after it filters on similarity again.
        let proven = cand("proven", 0.42, None, 3, 1.0);
        let poor = cand("poor", 0.5, None, 3, 0.0);
        let (kept, dropped) = rank(vec![poor, proven], LOUD, &gates());
        assert_eq!(ids(&kept), vec!["proven"]);
        assert!(kept[0].score > kept[0].relevance);
        assert!(matches!(dropped[0].1, Verdict::Undecided(_)));
    }

    #[test]
    fn salience_weighs_on_retrieved_advice_only() {
        let quiet = (0.15, "looks around");
        let (loud_kept, _) = rank(vec![cand("a", 0.6, None, 3, 0.5)], LOUD, &gates());
        let (quiet_kept, quiet_dropped) = rank(vec![cand("a", 0.6, None, 3, 0.5)], quiet, &gates());
        assert_eq!(loud_kept.len(), 1);
        assert!(quiet_kept.is_empty() && matches!(quiet_dropped[0].1, Verdict::Undecided(_)), "a read-only look around needs stronger evidence");
        let (t, _) = rank(vec![trig("t", Priority::High)], quiet, &gates());
        assert_eq!(t.len(), 1, "a trigger speaks whatever the salience");
    }

    #[test]
    fn priorities_order_triggers() {
        let (kept, _) = rank(vec![trig("normal", Priority::Normal), trig("critical", Priority::Critical), trig("high", Priority::High)], LOUD, &gates());
        assert_eq!(ids(&kept), vec!["critical", "high", "normal"]);
    }

    #[test]
    fn untested_memories_are_neutral_and_outcomes_reorder() {
        let (kept, _) = rank(vec![cand("weak", 0.8, None, 3, 0.2), cand("strong", 0.8, None, 3, 0.9)], LOUD, &gates());
        assert_eq!(ids(&kept), vec!["strong", "weak"]);
        let (kept, _) = rank(vec![cand("a", 0.7, None, 3, 0.5)], LOUD, &gates());
        assert!((kept[0].score - 0.7).abs() < 1e-12);
        assert_eq!(kept[0].signals["outcome_boost"], 0.0);
    }

    #[test]
    fn without_embeddings_words_must_match() {
        assert!(rank(vec![cand("k", 0.9, None, 1, 0.5)], LOUD, &gates()).0.is_empty());
        let mut one = cand("one", 0.9, None, 1, 0.5);
        one.retrieved.as_mut().unwrap().query_terms = 1;
        assert_eq!(rank(vec![one], LOUD, &gates()).0.len(), 1);
        // With embeddings, relevance alone decides: a paraphrase shares no word.
        assert_eq!(rank(vec![cand("p", 0.0, Some(0.7), 0, 0.5)], LOUD, &gates()).0.len(), 1);
    }

    #[test]
    fn seeds_weigh_less_as_the_user_s_own_lessons_grow() {
        let mut seed = cand("s", 0.8, None, 3, 0.5);
        seed.seed = Some((0.75, "25 of your own".into()));
        let (kept, _) = rank(vec![seed, cand("own", 0.8, None, 3, 0.5)], LOUD, &gates());
        assert_eq!(ids(&kept), vec!["own", "s"]);
        assert!((kept[1].score - 0.75 * kept[0].score).abs() < 1e-12);
        assert_eq!(kept[1].signals["seed_weight"], 0.75);
        assert!(kept[1].why.contains("seed lesson, weight 0.75 (25 of your own)"), "{}", kept[1].why);
    }

    #[test]
    fn a_triggered_seed_keeps_its_strength() {
        let mut t = trig("seed", Priority::Critical);
        t.seed = Some((0.5, "many lessons of your own".into()));
        let (kept, _) = rank(vec![t], LOUD, &gates());
        assert!((kept[0].score - 1.1).abs() < 1e-12, "{}", kept[0].score);
    }

    #[test]
    fn why_names_every_signal() {
        let (kept, _) = rank(vec![cand("a", 0.5, Some(0.6), 2, 0.7)], (0.9, "changes something shared"), &gates());
        let why = &kept[0].why;
        for part in ["relevance", "semantic 0.60", "words 0.50: 'w0', 'w1'", "salience 0.90 (changes something shared)", "effectiveness 0.70", "score", "from p"] {
            assert!(why.contains(part), "{why} lacks {part}");
        }
        assert!(kept[0].short_why.starts_with("relevance"), "{}", kept[0].short_why);
        for s in ["relevance", "semantic", "similarity", "lexical", "bm25", "salience", "effectiveness", "recency", "trigger_conf"] {
            assert!(kept[0].signals.contains_key(s), "signals lack {s}");
        }
    }
}
