//! The memory graph's arithmetic: edge strengths, the three tiers of change, the side a
//! situation's link leans to, and spreading activation with the path that reached each lesson.
//! Pure; the store and the indexes hold what this computes.
//!
//! A situation is a moment (a tool call or a prompt, redacted) where a lesson was judged to apply
//! or not. Its `applies` link to the lesson leans to one side of [`NEUTRAL`]: above, the lesson
//! applies to moments like it; below, it does not. A deliberate judgement (feedback) first moves
//! the link to its own side, then a step further, so the latest judgement decides and each
//! repeated one adds confidence: however small the step, one `used` or one `not-relevant`
//! changes the next decision on a moment like it. Other edges (`co_used`, `manual`, ...) only
//! step up or down.

use std::collections::HashMap;

use cairn_proto::Edge;
use serde::{Deserialize, Serialize};

/// A situation link that says neither (the index reads the side from the same constant).
pub use crate::retrieval::situations::{leans, NEUTRAL};

/// Keeps a strength within the graph's bounds, so an edge can always be revived or weakened.
pub fn clamp(strength: f64) -> f64 {
    if strength.is_nan() {
        return NEUTRAL;
    }
    strength.clamp(Edge::MIN_STRENGTH, Edge::MAX_STRENGTH)
}

/// Who changed a strength, which sets the size of the step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// The daemon, from what happened (co-use in a session that went well): tiny steps.
    Automatic,
    /// The user's feedback verbs: a hundred times the automatic step.
    Deliberate,
    /// What became of a lesson said (followed, contradicted, ignored), attributed from the
    /// session: between the two, and never across a judgement the user made.
    Outcome,
    /// `cairn graph link`: set outright.
    Manual,
}

impl Tier {
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Automatic => "automatic",
            Tier::Deliberate => "deliberate",
            Tier::Outcome => "outcome",
            Tier::Manual => "manual",
        }
    }
}

/// A plain step up or down, clamped.
pub fn step(current: f64, delta: f64) -> f64 {
    clamp(current + delta)
}

/// A judgement on a situation link: `applies` or not, by `step` (positive). A link on the other
/// side, or a new one (`None`), starts from [`NEUTRAL`].
pub fn judge(current: Option<f64>, applies: bool, step: f64) -> f64 {
    let step = step.abs();
    let from = current.unwrap_or(NEUTRAL);
    if applies {
        clamp(from.max(NEUTRAL) + step)
    } else {
        clamp(from.min(NEUTRAL) - step)
    }
}

/// An outcome's step on a situation link: toward its side by `step`, but a link on the other
/// side (a judgement of the user's) only comes back toward [`NEUTRAL`], never past it; a new
/// link is judged.
pub fn nudge(current: Option<f64>, applies: bool, step: f64) -> f64 {
    let step = step.abs();
    match current {
        None => judge(None, applies, step),
        Some(c) if applies && c < NEUTRAL => clamp((c + step).min(NEUTRAL)),
        Some(c) if !applies && c > NEUTRAL => clamp((c - step).max(NEUTRAL)),
        Some(c) => judge(Some(c), applies, step),
    }
}

/// A judgement on a merely similar moment, on another situation's link on the other side (the
/// path that said a lesson went through a situation the user taught): by `step`, but by at most
/// half of what the link leans, so that it never comes back to [`NEUTRAL`]. That situation's
/// own judgement keeps its side for moments as close to it as ever (the user's `used` on a
/// `.format` query is not undone by their `not-relevant` on the fix beside it); on the same
/// side, or for a new link, as [`nudge`].
pub fn lean_less(current: Option<f64>, applies: bool, step: f64) -> f64 {
    let step = step.abs();
    match current {
        Some(c) if applies && c < NEUTRAL => c + step.min((NEUTRAL - c) / 2.0),
        Some(c) if !applies && c > NEUTRAL => c - step.min((c - NEUTRAL) / 2.0),
        _ => nudge(current, applies, step),
    }
}

/// How far spreading activation goes and where it stops.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    /// Each hop multiplies the activation by this, times the edge's strength.
    pub decay: f64,
    /// Activation below this stops spreading (and is not reported).
    pub floor: f64,
    /// Hops from a seed node: 1 or 2.
    pub hops: usize,
}

/// A node reached by spreading activation, with the path that reached it (node ids, seed first).
#[derive(Debug, Clone, PartialEq)]
pub struct Reached {
    pub activation: f64,
    pub path: Vec<String>,
}

/// The weight activation crosses an edge with: what its strength says above neutral, from 0 at
/// 0.5 (no evidence, as a new automatic edge) to 0.9 at the ceiling; an edge under 0.5 carries
/// none.
pub fn carries(strength: f64) -> f64 {
    ((clamp(strength) - NEUTRAL) * 2.0).max(0.0)
}

/// Spreads activation from `seeds` (node, activation) along `edges(node)` (target, weight)
/// for up to `spread.hops` hops. Each node keeps its strongest activation and the path that gave
/// it; seeds are reported as reached by themselves. Deterministic: ties go to the smaller id.
pub fn spread(seeds: &[(String, f64)], edges: impl Fn(&str) -> Vec<(String, f64)>, spread: Spread) -> HashMap<String, Reached> {
    let mut reached: HashMap<String, Reached> = HashMap::new();
    let mut frontier: Vec<String> = Vec::new();
    for (node, activation) in seeds {
        if !activation.is_finite() || *activation < spread.floor {
            continue;
        }
        let better = reached.get(node).is_none_or(|r| *activation > r.activation);
        if better {
            reached.insert(node.clone(), Reached { activation: *activation, path: vec![node.clone()] });
            frontier.push(node.clone());
        }
    }
    for _ in 0..spread.hops {
        frontier.sort();
        frontier.dedup();
        let mut next = Vec::new();
        // What each node had when the hop began: a node raised during this hop spreads its new
        // activation at the next one, so no path is longer than its hops.
        let start: Vec<(String, Reached)> = frontier.iter().filter_map(|n| reached.get(n).cloned().map(|r| (n.clone(), r))).collect();
        for (node, from) in &start {
            let mut out = edges(node);
            out.sort_by(|a, b| a.0.cmp(&b.0));
            for (target, strength) in out {
                if from.path.contains(&target) {
                    continue;
                }
                let activation = from.activation * strength.clamp(0.0, 1.0) * spread.decay;
                if activation < spread.floor {
                    continue;
                }
                if reached.get(&target).is_none_or(|r| activation > r.activation) {
                    let mut path = from.path.clone();
                    path.push(target.clone());
                    reached.insert(target.clone(), Reached { activation, path });
                    next.push(target);
                }
            }
        }
        frontier = next;
    }
    reached
}

/// One change to the graph, as a line of the adjustment log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Adjustment {
    pub at: String,
    /// `automatic`, `deliberate` or `manual`.
    pub source: String,
    /// `[source, target, kind]` for an edge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edge: Option<[String; 3]>,
    /// A memory's id for its node weight or worth.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// What changed on a node (`node_weight`, `worth`); absent for an edge's strength.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// The value before (`None`: the edge is new).
    pub old: Option<f64>,
    pub new: f64,
    pub delta: f64,
    pub reason: String,
}


#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strengths_stay_inside_their_bounds() {
        assert_eq!(clamp(2.0), Edge::MAX_STRENGTH);
        assert_eq!(clamp(-1.0), Edge::MIN_STRENGTH);
        assert_eq!(clamp(f64::NAN), NEUTRAL);
        assert_eq!(step(0.949, 0.01), Edge::MAX_STRENGTH);
        assert_eq!(step(0.06, -0.01), Edge::MIN_STRENGTH);
        assert!((step(0.3, 0.00001) - 0.30001).abs() < 1e-12, "the automatic tier moves, however little");
    }

    #[test]
    fn a_judgement_takes_its_own_side_first() {
        let step = 0.01;
        // New links lean the judgement's way by one step.
        assert!((judge(None, true, step) - 0.51).abs() < 1e-12);
        assert!((judge(None, false, step) - 0.49).abs() < 1e-12);
        assert_eq!(leans(judge(None, true, step)), Some(true));
        assert_eq!(leans(judge(None, false, step)), Some(false));
        // The latest judgement decides: a link that leaned the other way crosses over.
        assert_eq!(leans(judge(Some(0.2), true, step)), Some(true));
        assert_eq!(leans(judge(Some(0.9), false, step)), Some(false));
        // The same judgement again adds confidence.
        assert!(judge(Some(0.51), true, step) > 0.51);
        assert!(judge(Some(0.49), false, step) < 0.49);
        // And never leaves the bounds.
        assert_eq!(judge(Some(0.95), true, step), Edge::MAX_STRENGTH);
        assert_eq!(judge(Some(0.05), false, step), Edge::MIN_STRENGTH);
        assert_eq!(leans(NEUTRAL), None);
    }

    #[test]
    fn an_outcome_never_overrules_a_judgement() {
        let step = 0.005;
        assert_eq!(leans(nudge(None, true, step)), Some(true), "a new link is judged");
        assert!(nudge(Some(0.6), true, step) > 0.6 && nudge(Some(0.6), false, step) < 0.6);
        // A link the user judged the other way comes back to neutral at most.
        assert!((nudge(Some(0.3), true, step) - 0.305).abs() < 1e-12);
        assert_eq!(nudge(Some(0.499), true, step), NEUTRAL);
        assert_eq!(nudge(Some(0.501), false, step), NEUTRAL);
        assert_eq!(leans(nudge(Some(0.49), true, 0.4)), None);
        // Another situation's link leans less, and keeps its side however often.
        let mut c = 0.51;
        for _ in 0..20 {
            let next = lean_less(Some(c), false, 0.01);
            assert!(next < c && leans(next) == Some(true), "{next}");
            c = next;
        }
        assert!((lean_less(Some(0.9), false, 0.01) - 0.89).abs() < 1e-12, "a strong link moves by the step");
        assert!(lean_less(Some(0.47), true, 0.01) < NEUTRAL);
        assert_eq!(lean_less(Some(0.6), true, 0.01), nudge(Some(0.6), true, 0.01));
    }

    fn graph<'a>(edges: &'a [(&'a str, &'a str, f64)]) -> impl Fn(&str) -> Vec<(String, f64)> + 'a {
        move |from: &str| edges.iter().filter(|(a, _, _)| *a == from).map(|(_, b, s)| (b.to_string(), *s)).collect()
    }

    #[test]
    fn activation_spreads_with_decay_and_keeps_its_path() {
        let edges = [("s1", "a", 0.9), ("a", "b", 0.5), ("b", "c", 0.9), ("s1", "b", 0.1)];
        let out = spread(&[("s1".into(), 1.0)], graph(&edges), Spread { decay: 0.8, floor: 0.01, hops: 2 });
        assert!((out["a"].activation - 0.72).abs() < 1e-12);
        assert_eq!(out["a"].path, vec!["s1", "a"]);
        // b: directly 1 x 0.1 x 0.8 = 0.08, through a 0.72 x 0.5 x 0.8 = 0.288: the stronger path wins.
        assert!((out["b"].activation - 0.288).abs() < 1e-12);
        assert_eq!(out["b"].path, vec!["s1", "a", "b"]);
        // c: two hops only by the direct, weak way (1 x 0.1 x 0.8 x 0.9 x 0.8); three through a.
        assert!((out["c"].activation - 0.0576).abs() < 1e-12);
        assert_eq!(out["c"].path, vec!["s1", "b", "c"]);
        let one = spread(&[("s1".into(), 1.0)], graph(&edges), Spread { decay: 0.8, floor: 0.01, hops: 1 });
        assert!(!one.contains_key("c") && (one["b"].activation - 0.08).abs() < 1e-12, "one hop");
        assert_eq!(out["s1"].path, vec!["s1"]);
    }

    #[test]
    fn activation_stops_under_its_floor_and_never_loops() {
        let edges = [("s", "a", 0.5), ("a", "s", 0.95), ("a", "b", 0.05)];
        let out = spread(&[("s".into(), 0.5)], graph(&edges), Spread { decay: 0.5, floor: 0.05, hops: 2 });
        assert!((out["a"].activation - 0.125).abs() < 1e-12);
        assert!(!out.contains_key("b"), "0.125 x 0.05 x 0.5 is under the floor");
        assert_eq!(out["s"].activation, 0.5, "a cycle back to the seed does not raise it");
        assert!(spread(&[("s".into(), 0.01)], graph(&edges), Spread { decay: 0.5, floor: 0.05, hops: 2 }).is_empty());
        assert!(spread(&[("s".into(), f64::NAN)], graph(&edges), Spread { decay: 0.5, floor: 0.05, hops: 2 }).is_empty());
    }

    #[test]
    fn adjustments_say_what_they_touched() {
        let a = Adjustment { at: "t".into(), source: "deliberate".into(), edge: Some(["s".into(), "m".into(), "applies".into()]), node: None, field: None, old: None, new: 0.51, delta: 0.01, reason: "used".into() };
        // The store indexes a line by what it is about, as it reads it from the line's fields.
        assert_eq!(crate::store::codec::adjustment_subjects(&serde_json::to_value(&a).unwrap()), ["m", "s"]);
        let node = Adjustment { edge: None, node: Some("m".into()), field: Some("node_weight".into()), ..a.clone() };
        assert_eq!(crate::store::codec::adjustment_subjects(&serde_json::to_value(&node).unwrap()), ["m"]);
        let line = serde_json::to_string(&a).unwrap();
        assert!(!line.contains("\"node\""), "{line}");
        assert_eq!(serde_json::from_str::<Adjustment>(&line).unwrap(), a);
    }
}
