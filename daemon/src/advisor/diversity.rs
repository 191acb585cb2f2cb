//! Diversity: MMR over the decided advice, so that near-duplicates do not crowd out a different
//! lesson, then category caps. Pure; no I/O.
//!
//! MMR picks what a rule put forward first (in the order given), then the best-scoring item,
//! then each time the item that maximises
//! `lambda x score - (1 - lambda) x (its highest similarity to an item already picked)`.
//! Similarity is the cosine of the memories' embeddings (term overlap without them). An item
//! at least `duplicate` similar to one already picked says nothing new and is dropped.

use std::collections::{HashMap, HashSet};

use super::explain::Verdict;
use super::fuse::Scored;
use crate::base::text;
use crate::retrieval::similarity::cosine;

/// How similar two memories are: embedding cosine, else the overlap of their terms.
pub fn similarity(a: &Scored, b: &Scored) -> f64 {
    match (&a.candidate.vector, &b.candidate.vector) {
        (Some(x), Some(y)) => cosine(x, y) as f64,
        _ => {
            let ta: HashSet<String> = text::terms(&a.candidate.text).into_iter().collect();
            let tb: HashSet<String> = text::terms(&b.candidate.text).into_iter().collect();
            let union = ta.union(&tb).count();
            if union == 0 { 0.0 } else { ta.intersection(&tb).count() as f64 / union as f64 }
        }
    }
}

/// Orders `items` (best first) by MMR, those `first` says first; returns the picked order and
/// the dropped duplicates.
pub fn mmr(items: Vec<Scored>, lambda: f64, duplicate: f64, first: impl Fn(&Scored) -> bool) -> (Vec<Scored>, Vec<(Scored, Verdict)>) {
    let lambda = lambda.clamp(0.0, 1.0);
    let mut remaining = items;
    let mut picked: Vec<Scored> = Vec::with_capacity(remaining.len());
    let mut dropped = Vec::new();
    while !remaining.is_empty() {
        // Each remaining item's closest picked item.
        let closest: Vec<(f64, Option<usize>)> = remaining
            .iter()
            .map(|r| picked.iter().enumerate().map(|(i, p)| (similarity(r, p), Some(i))).fold((0.0, None), |best, x| if x.0 > best.0 { x } else { best }))
            .collect();
        // Among those that come first, the earliest; else MMR's choice.
        let best = match (0..remaining.len()).find(|&i| first(&remaining[i])) {
            Some(i) => i,
            None => (0..remaining.len())
                .max_by(|&a, &b| {
                    let va = lambda * remaining[a].score - (1.0 - lambda) * closest[a].0;
                    let vb = lambda * remaining[b].score - (1.0 - lambda) * closest[b].0;
                    va.total_cmp(&vb).then_with(|| remaining[b].candidate.id.cmp(&remaining[a].candidate.id))
                })
                .expect("not empty"),
        };
        let (sim, near) = closest[best];
        let item = remaining.remove(best);
        match near {
            Some(i) if sim >= duplicate => {
                let reason = format!("{sim:.2} similar to {}", picked[i].candidate.id);
                dropped.push((item, Verdict::Redundant(reason)));
            }
            _ => picked.push(item),
        }
    }
    (picked, dropped)
}

/// Keeps at most `cap(category)` items per category, in order.
pub fn cap_categories(items: Vec<Scored>, caps: &HashMap<String, usize>, default_cap: usize) -> (Vec<Scored>, Vec<(Scored, Verdict)>) {
    let mut counts: HashMap<String, usize> = HashMap::new();
    let mut kept = Vec::new();
    let mut dropped = Vec::new();
    for item in items {
        let cap = caps.get(&item.candidate.category).copied().unwrap_or(default_cap);
        let n = counts.entry(item.candidate.category.clone()).or_default();
        if *n < cap {
            *n += 1;
            kept.push(item);
        } else {
            dropped.push((item, Verdict::CategoryCap));
        }
    }
    (kept, dropped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::advisor::candidate::Candidate;
    use crate::advisor::fuse::fuse;
    use crate::advisor::policy::Gates;
    use crate::config::Tuneables;
    use crate::retrieval::Hit;

    fn item(id: &str, category: &str, score_hint: f64, vector: Vec<f32>) -> Scored {
        let c = Candidate {
            id: id.into(),
            text: format!("text of {id}"),
            category: category.into(),
            project: "p".into(),
            hit: Some(Hit::by_words(id.into(), 1.0, score_hint, vec!["w".into(), "x".into()], 2)),
            trigger: None,
            effectiveness: 0.5,
            node_weight: 1.0,
            recency: 0.0,
            vector: Some(vector),
            found: true,
            seed: None,
            standing: Default::default(),
            activation: None,
            pending: false,
            captured: None,
            complies: None,
            takes_out: Vec::new(),
            safe_form: None,
            elsewhere: None,
            rule_tells_apart: false,
        };
        let gates = Gates { model: crate::advisor::decision::known_model(), ..Gates::from_settings(&Tuneables::default()) };
        fuse(c, &crate::advisor::salience::Salience { score: 1.0, reason: "test" }, false, &gates)
    }

    fn unit(v: &[f32]) -> Vec<f32> {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter().map(|x| x / n).collect()
    }

    #[test]
    fn mmr_drops_a_near_duplicate_and_keeps_a_different_lesson() {
        let a = item("a", "git", 0.9, unit(&[1.0, 0.0, 0.0]));
        let a2 = item("a-again", "git", 0.88, unit(&[0.99, 0.05, 0.0]));
        let b = item("b", "testing", 0.6, unit(&[0.0, 1.0, 0.0]));
        let (picked, dropped) = mmr(vec![a, a2, b], 0.5, 0.9, |_| false);
        assert_eq!(picked.iter().map(|s| s.candidate.id.as_str()).collect::<Vec<_>>(), vec!["a", "b"]);
        assert_eq!(dropped.len(), 1);
        assert!(matches!(&dropped[0].1, Verdict::Redundant(r) if r.contains("similar to a")), "{:?}", dropped[0].1);
    }

    #[test]
    fn mmr_prefers_diversity_over_a_slightly_better_echo() {
        let a = item("a", "x", 0.9, unit(&[1.0, 0.0]));
        let echo = item("echo", "x", 0.85, unit(&[0.8, 0.6]));
        let other = item("other", "y", 0.7, unit(&[0.0, 1.0]));
        let (picked, _) = mmr(vec![a, echo, other], 0.5, 0.95, |_| false);
        assert_eq!(picked.iter().map(|s| s.candidate.id.as_str()).collect::<Vec<_>>(), vec!["a", "other", "echo"]);
        // With lambda 1, pure relevance: the order is the scores'.
        let (picked, _) = mmr(vec![item("a", "x", 0.9, unit(&[1.0, 0.0])), item("echo", "x", 0.85, unit(&[0.8, 0.6])), item("other", "y", 0.7, unit(&[0.0, 1.0]))], 1.0, 1.1, |_| false);
        assert_eq!(picked.iter().map(|s| s.candidate.id.as_str()).collect::<Vec<_>>(), vec!["a", "echo", "other"]);
    }

    #[test]
    fn categories_are_capped() {
        let items: Vec<Scored> = (0..5).map(|i| item(&format!("g{i}"), "git", 0.9 - i as f64 * 0.01, unit(&[1.0, i as f32]))).collect();
        let mut caps = HashMap::new();
        caps.insert("git".to_string(), 3);
        let (kept, dropped) = cap_categories(items, &caps, 2);
        assert_eq!(kept.len(), 3);
        assert!(dropped.iter().all(|(_, v)| *v == Verdict::CategoryCap));
        let other: Vec<Scored> = (0..3).map(|i| item(&format!("t{i}"), "testing", 0.9, unit(&[1.0, i as f32]))).collect();
        assert_eq!(cap_categories(other, &caps, 2).0.len(), 2, "the default cap");
    }
}
