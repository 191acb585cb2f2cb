//! Deciding what to say, in this order and never the other way round (Spark's fix 2):
//! 1. the gate, `min_similarity`, on retrieval relevance alone (the hybrid of keywords and
//!    embeddings); a trigger's candidate bypasses it, since its pattern matched;
//! 2. the fusion ([`super::fuse`]) and the decision, `min_fusion_score`, on the fused score.
//!    Nothing after fusion filters on raw similarity again, so a well-fused item is never
//!    dropped by a similarity test;
//! 3. cooldown, MMR and category caps ([`super::diversity`]), the best item's company, and the
//!    item limit.
//!
//! Pure and cheap, so that the advice benchmark can tune thresholds over gathered candidates.

use super::candidate::Candidate;
use super::diversity;
use super::explain::Verdict;
use super::fuse::{fuse, Scored};
use super::policy::{Gates, Policy};
use super::salience::Salience;

/// What the advisor made of one event: what it would say (in order) and what it would not, with
/// the verdict for each.
#[derive(Debug, Default)]
pub struct Considered {
    pub said: Vec<Scored>,
    pub not_said: Vec<(Scored, Verdict)>,
}

/// The relevance gate. Triggered candidates pass: their rule matched the action itself.
pub fn gate(c: &Candidate, gates: &Gates) -> Result<(), String> {
    if c.trigger.is_some() {
        return Ok(());
    }
    let Some(h) = &c.hit else { return Err("not retrieved".into()) };
    if h.relevance < gates.min_similarity {
        return Err(format!("relevance {:.2} < min_similarity {:.2}", h.relevance, gates.min_similarity));
    }
    let needed = gates.min_matched_terms.min(h.query_terms);
    if h.cosine.is_none() && h.matched.len() < needed {
        return Err(format!("no embeddings, and {} of the {needed} query words needed matched", h.matched.len()));
    }
    Ok(())
}

/// Gates, fuses and decides. Returns what passed, best first, and what did not, with why.
pub fn rank(candidates: Vec<Candidate>, salience: (f64, &str), gates: &Gates) -> (Vec<Scored>, Vec<(Scored, Verdict)>) {
    let mut kept = Vec::new();
    let mut dropped = Vec::new();
    for c in candidates {
        let gated = gate(&c, gates);
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

/// Decides what to say: gate, fuse, decide, skip what `cooled` says was said recently, MMR,
/// category caps, and the item limit.
pub fn choose(candidates: Vec<Candidate>, salience: &Salience, policy: &Policy, cooled: impl Fn(&str) -> bool) -> Considered {
    let (decided, mut not_said) = rank(candidates, (salience.score, salience.reason), &policy.gates);
    let mut fresh = Vec::new();
    for s in decided {
        if cooled(&s.candidate.id) {
            not_said.push((s, Verdict::Cooldown));
        } else {
            fresh.push(s);
        }
    }
    let (diverse, redundant) = diversity::mmr(fresh, policy.mmr_lambda, policy.mmr_duplicate);
    not_said.extend(redundant);
    let (capped, over_cap) = diversity::cap_categories(diverse, &policy.category_caps, policy.default_category_cap);
    not_said.extend(over_cap);
    // The best item's company: only items near it in score.
    let top = capped.iter().map(|s| s.score).fold(f64::NEG_INFINITY, f64::max);
    let mut said = Vec::with_capacity(capped.len());
    for s in capped {
        if s.score < policy.min_relative_score * top {
            let reason = format!("score {:.2} < {:.2} x the best item's {top:.2}", s.score, policy.min_relative_score);
            not_said.push((s, Verdict::Outshone(reason)));
        } else {
            said.push(s);
        }
    }
    if said.len() > policy.limit {
        not_said.extend(said.split_off(policy.limit).into_iter().map(|s| (s, Verdict::OverLimit)));
    }
    Considered { said, not_said }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::advisor::candidate::{Source, Triggered};
    use crate::config::rules::Priority;
    use crate::config::Tuneables;
    use crate::retrieval::hybrid::Fusion;
    use crate::retrieval::Hit;

    fn cand(id: &str, lexical: f64, cosine: Option<f64>, matched: usize, effectiveness: f64) -> Candidate {
        let mut hit = Hit::by_words(id.into(), lexical * 5.0, lexical, (0..matched).map(|i| format!("w{i}")).collect(), 4);
        hit.cosine = cosine;
        Fusion { weight_similarity: 0.7, similarity_floor: 0.15, similarity_ceiling: 0.9 }.apply(&mut hit);
        Candidate {
            id: id.into(),
            text: format!("memory {id}"),
            category: "general".into(),
            project: "p".into(),
            hit: Some(hit),
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
        c.hit = None;
        c.found = false;
        c
    }

    fn gates() -> Gates {
        Gates { min_similarity: 0.4, min_fusion_score: 0.45, weight_recency: 0.0, ..Gates::from_settings(&Tuneables::default()) }
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
        one.hit.as_mut().unwrap().query_terms = 1;
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
