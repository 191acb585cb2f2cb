//! The decision, learned: whether a lesson is worth saying at this moment, as a logistic model
//! over the signals the advisor computes. Pure; no I/O.
//!
//! Each candidate becomes a few named inputs ([`inputs`]): how close the moment is in meaning to
//! the lesson or one of its example moments (the raw cosine: advice is calibrated here, on
//! advice data, not by the floor and ceiling search learned on LoCoMo), whether it is the
//! closest lesson and by what margin, keyword evidence, the trigger that put it forward, the
//! action's salience (and whether it only looks around), whether the user typed it, whether the
//! action already holds the lesson's remedy (`super::remedy`), and the lesson's source and
//! category. The
//! model adds `weight x input` per input to an intercept and maps the sum (the logit) to a
//! probability; every term's contribution is kept for `why`.
//!
//! The weights are fitted ([`fit`]: L2-regularised logistic regression by Newton's method) on
//! the tune part of the labelled advice set by `cairn-advice-bench --fit`, which writes
//! `decision.json` with its provenance (set, its hash, date, command, operating point). Two
//! models ship: one for when embeddings take part, one for keywords alone (the model not
//! loaded). What the set cannot teach is added with fixed weights from the settings: a lesson's
//! proven effectiveness, its recency, and a seed's weight (see [`Fixed`]).

use std::collections::BTreeMap;
use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

use crate::base::logistic;

pub use super::candidate::Standing;
use super::candidate::Candidate;
use super::salience::READ_ONLY_CEILING;

/// Categories with an input of their own: the seed pack's, which every home has. Other
/// categories weigh nothing either way.
pub const CATEGORIES: &[&str] = &["security", "git", "destructive", "deployment", "database", "testing", "dependencies"];

/// Where `margin` is clamped: beyond it, a lead or a lag says nothing more.
const MARGIN_SPAN: f64 = 0.3;
/// How many words an edit takes out of what a lesson names make the `takes_out` input whole.
const TAKEN_FULL: usize = 2;

/// The moment a candidate is weighed for.
#[derive(Debug, Clone, Copy)]
pub struct Moment {
    /// Salience of the action, in [0, 1].
    pub salience: f64,
    /// The user typed it (a prompt), rather than the agent acting.
    pub prompt: bool,
}

/// A candidate's closeness in meaning to the moment: the larger of its cosine and its closest
/// example moment's; `None` without embeddings.
pub fn meaning(c: &Candidate) -> Option<f64> {
    c.hit.as_ref()?.closeness().map(|(m, _)| m)
}

/// Each candidate's standing among `all` (by [`meaning`]), in the same order.
pub fn standings(all: &[Option<f64>]) -> Vec<Standing> {
    let mut top = (f64::NEG_INFINITY, usize::MAX);
    let mut second = f64::NEG_INFINITY;
    for (i, m) in all.iter().enumerate() {
        let Some(m) = *m else { continue };
        if m > top.0 {
            second = top.0;
            top = (m, i);
        } else if m > second {
            second = m;
        }
    }
    all.iter()
        .enumerate()
        .map(|(i, m)| match *m {
            None => Standing::default(),
            Some(m) => {
                // Alone, nothing says how it compares: its standing is neutral.
                let other = if i == top.1 { second } else { top.0 };
                if !other.is_finite() {
                    return Standing::default();
                }
                Standing { best: i == top.1, margin: (m - other).clamp(-MARGIN_SPAN, MARGIN_SPAN) }
            }
        })
        .collect()
}

/// The named inputs of the decision for one candidate.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Inputs {
    pub values: Vec<(String, f64)>,
}

impl Inputs {
    pub fn get(&self, name: &str) -> f64 {
        self.values.iter().find(|(n, _)| n == name).map_or(0.0, |(_, v)| *v)
    }
}

/// The decision's inputs for candidate `c` at `moment`, given its standing. Only inputs that
/// are not zero are listed (a zero adds nothing).
pub fn inputs(c: &Candidate, standing: Standing, moment: Moment) -> Inputs {
    let mut v: Vec<(String, f64)> = Vec::new();
    let mut put = |name: &str, value: f64| {
        if value != 0.0 {
            v.push((name.to_string(), value));
        }
    };
    if let Some((m, by_example)) = c.hit.as_ref().and_then(|h| h.closeness()) {
        put("meaning", m);
        put("best", f64::from(u8::from(standing.best)));
        put("margin", standing.margin);
        put("by_example", f64::from(u8::from(by_example)));
    }
    if let Some(h) = &c.hit {
        put("words", h.lexical);
    }
    if let Some(t) = &c.trigger {
        let name = match t.priority.index() {
            0 => "rule_critical",
            1 => "rule_high",
            _ => "rule_other",
        };
        put(name, 1.0);
        put("rule_by_category", f64::from(u8::from(t.via_category.is_some())));
    }
    put("salience", moment.salience);
    // A look around (a read, a search, `git status`) is a kind of moment of its own, not just a
    // low salience: lessons rarely bear on it, whatever it mentions.
    put("looks_around", f64::from(u8::from(moment.salience < READ_ONLY_CEILING)));
    put("prompt", f64::from(u8::from(moment.prompt)));
    put("seed", f64::from(u8::from(c.seed.is_some())));
    // The action already holds the lesson's remedy (`make dev` beside "start the stack with make
    // dev"): most such moments comply, and saying the lesson there is noise.
    put("complies", f64::from(u8::from(c.complies.is_some())));
    // An edit that takes out words the lesson names changes what the lesson is about (a
    // `Forbid` turned to `Allow`, a `verifyJwt` call dropped): one word counts half, two or more
    // in full.
    put("takes_out", (c.takes_out.len().min(TAKEN_FULL) as f64) / TAKEN_FULL as f64);
    if CATEGORIES.contains(&c.category.as_str()) {
        put(&format!("category:{}", c.category), 1.0);
    }
    Inputs { values: v }
}

/// Where a fitted model came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// The labelled set, as a path in the repository, and the SHA-256 of its bytes.
    pub set: String,
    pub set_sha256: String,
    /// The part of it fitted on, and its size.
    pub part: String,
    pub events: usize,
    /// Candidate rows (one per lesson considered per event) and how many were relevant.
    pub rows: usize,
    pub positives: usize,
    pub date: String,
    pub command: String,
    /// How the operating point was chosen, and what it did on the part fitted on.
    pub operating_point: String,
}

/// One fitted logistic model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fitted {
    pub intercept: f64,
    pub weights: BTreeMap<String, f64>,
    /// The probability at or above which a lesson is said: the operating point chosen for this
    /// model (for the embeddings model, the default of `ranking.min_fusion_score`).
    pub threshold: f64,
    /// The L2 penalty it was fitted with.
    pub l2: f64,
}

/// The shipped decision: a model for when embeddings take part and one for keywords alone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Model {
    pub version: u32,
    pub with_embeddings: Fitted,
    pub words_only: Fitted,
    pub provenance: Provenance,
}

static BUILTIN: LazyLock<Model> = LazyLock::new(|| serde_json::from_str(include_str!("decision.json")).expect("the shipped decision model parses"));

impl Model {
    /// The model this release ships.
    pub fn builtin() -> &'static Model {
        &BUILTIN
    }
}

/// Terms added with fixed weights (from the settings): what the labelled set cannot teach.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fixed {
    /// Logit per unit of `(effectiveness - 0.5) x 2`.
    pub outcome: f64,
    /// Logit per unit of recency (1 touched now, halving every half-life).
    pub recency: f64,
    /// Logit per unit of activation spread to the lesson along the memory graph's edges.
    pub activation: f64,
    /// Logit per unit of learned closeness: how far above the floor the closest situation that
    /// applies is, as a share of the way from the floor to 1.
    pub learned: f64,
}

/// What a candidate brings besides the fitted inputs: each enters with a fixed weight.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Evidence {
    pub effectiveness: f64,
    pub recency: f64,
    pub activation: f64,
    pub learned: f64,
}

impl Fixed {
    /// From the settings' weights, which are shares of a score in [0, 1]: near the middle of a
    /// logistic curve a share `w` of probability is about `4 w` of logit (its slope there is 1/4).
    pub fn from_weights(weight_outcome: f64, weight_recency: f64) -> Fixed {
        Fixed { outcome: 4.0 * weight_outcome, recency: 4.0 * weight_recency, activation: 0.0, learned: 0.0 }
    }

    /// With activation and learned closeness weighed at these logits per unit.
    pub fn with_learning(self, activation: f64, learned: f64) -> Fixed {
        Fixed { activation, learned, ..self }
    }
}

/// One term of a decision: an input, its weight, and what it added to the logit.
#[derive(Debug, Clone, PartialEq)]
pub struct Term {
    pub name: String,
    pub value: f64,
    pub weight: f64,
    pub contribution: f64,
    /// Fitted on the labelled set, or fixed by the settings.
    pub fitted: bool,
}

/// What the model made of one candidate.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub probability: f64,
    pub logit: f64,
    pub intercept: f64,
    /// Every term that added something, largest effect first.
    pub terms: Vec<Term>,
}

pub use crate::base::logistic::sigmoid;

impl Fitted {
    /// The logit of `inputs` under the fitted weights alone.
    pub fn logit(&self, inputs: &Inputs) -> f64 {
        self.intercept + inputs.values.iter().map(|(n, v)| self.weights.get(n).copied().unwrap_or(0.0) * v).sum::<f64>()
    }

    /// The decision for a candidate with these inputs, effectiveness, recency, and the factors
    /// that scale its odds (a seed's weight, the lesson's node weight), each named.
    pub fn decide(&self, inputs: &Inputs, fixed: Fixed, e: &Evidence, scales: &[(&str, f64)]) -> Decision {
        let mut terms: Vec<Term> = inputs
            .values
            .iter()
            .filter_map(|(n, v)| self.weights.get(n).map(|w| Term { name: n.clone(), value: *v, weight: *w, contribution: w * v, fitted: true }))
            .filter(|t| t.contribution != 0.0)
            .collect();
        let outcome = (e.effectiveness.clamp(0.0, 1.0) - 0.5) * 2.0;
        let fixed_terms = [
            ("outcome", outcome, fixed.outcome),
            ("recency", e.recency.clamp(0.0, 1.0), fixed.recency),
            ("activation", e.activation.clamp(0.0, 1.0), fixed.activation),
            ("learned", e.learned.clamp(0.0, 1.0), fixed.learned),
        ];
        for (name, value, weight) in fixed_terms {
            if value * weight != 0.0 {
                terms.push(Term { name: name.into(), value, weight, contribution: value * weight, fitted: false });
            }
        }
        // A seed yields to the user's own lessons, and a lesson judged not useful to the rest:
        // their odds scale with the weight.
        for (name, w) in scales.iter().filter(|(_, w)| *w > 0.0 && *w < 1.0) {
            terms.push(Term { name: name.to_string(), value: *w, weight: 1.0, contribution: w.ln(), fitted: false });
        }
        let logit = self.intercept + terms.iter().map(|t| t.contribution).sum::<f64>();
        // Whatever went wrong upstream, a decision that is not a number says nothing.
        let logit = if logit.is_finite() { logit } else { f64::NEG_INFINITY };
        terms.sort_by(|a, b| b.contribution.abs().total_cmp(&a.contribution.abs()).then_with(|| a.name.cmp(&b.name)));
        Decision { probability: sigmoid(logit), logit, intercept: self.intercept, terms }
    }
}

impl Decision {
    /// The decision under a learned mix of signal groups: each term of a group scaled by the
    /// group's factor (learned weight / default weight), the logit and probability again.
    pub fn reweighed(mut self, mix: &crate::learning::weights::Mix) -> Decision {
        let factors = crate::learning::weights::multipliers(mix);
        for t in self.terms.iter_mut() {
            if let Some(g) = crate::learning::weights::group(&t.name) {
                t.weight *= factors[g];
                t.contribution *= factors[g];
            }
        }
        let logit = self.intercept + self.terms.iter().map(|t| t.contribution).sum::<f64>();
        self.logit = if logit.is_finite() { logit } else { f64::NEG_INFINITY };
        self.probability = sigmoid(self.logit);
        self.terms.sort_by(|a, b| b.contribution.abs().total_cmp(&a.contribution.abs()).then_with(|| a.name.cmp(&b.name)));
        self
    }
}

/// Fits `P(relevant) = sigmoid(b + w . x)` to `rows` (inputs, relevant) with an L2 penalty
/// `l2` on the weights (not the intercept), by Newton's method. Every input name seen in a
/// row gets a weight; names are sorted, so the fit is deterministic.
pub fn fit(rows: &[(Inputs, bool)], l2: f64) -> (f64, BTreeMap<String, f64>) {
    let names: Vec<String> = rows.iter().flat_map(|(i, _)| i.values.iter().map(|(n, _)| n.clone())).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
    let x: Vec<Vec<f64>> = rows
        .iter()
        .map(|(i, _)| {
            let mut row = vec![1.0];
            row.extend(names.iter().map(|n| i.get(n)));
            row
        })
        .collect();
    let y: Vec<f64> = rows.iter().map(|(_, r)| f64::from(u8::from(*r))).collect();
    let beta = logistic::fit(&x, &y, l2);
    (beta[0], names.into_iter().zip(beta.into_iter().skip(1)).collect())
}


/// A model with known weights, for tests that say what the decision does with its inputs
/// whatever the shipped fit.
#[cfg(test)]
pub fn known_model() -> &'static Model {
    static KNOWN: LazyLock<Model> = LazyLock::new(|| {
        let fitted = |weights: &[(&str, f64)], intercept: f64| Fitted { intercept, weights: weights.iter().map(|(n, w)| (n.to_string(), *w)).collect(), threshold: 0.5, l2: 1.0 };
        Model {
            version: 1,
            with_embeddings: fitted(&[("meaning", 10.0), ("words", 2.0), ("salience", 2.0), ("looks_around", -3.0), ("rule_high", 1.0), ("rule_other", 0.5), ("rule_by_category", 2.0)], -6.0),
            words_only: fitted(&[("words", 6.0), ("salience", 2.0), ("rule_high", 1.0), ("rule_by_category", 2.0)], -5.0),
            provenance: Model::builtin().provenance.clone(),
        }
    });
    &KNOWN
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::advisor::candidate::Triggered;
    use crate::config::rules::Priority;
    use crate::retrieval::Hit;

    fn cand(cosine: Option<f64>, example: Option<f64>, lexical: f64) -> Candidate {
        let mut hit = Hit::by_words("a".into(), lexical * 3.0, lexical, vec![], 3);
        hit.cosine = cosine;
        hit.example = example.map(|e| (e, "an example".to_string()));
        Candidate { id: "a".into(), text: "t".into(), category: "security".into(), project: "p".into(), hit: Some(hit), trigger: None, effectiveness: 0.5, node_weight: 1.0, recency: 0.0, vector: None, found: true, seed: None, standing: Standing::default(), activation: None, pending: false, captured: None, complies: None, takes_out: Vec::new(), safe_form: None, elsewhere: None, rule_tells_apart: false }
    }

    #[test]
    fn a_learned_mix_scales_each_group_and_the_default_changes_nothing() {
        let f = Fitted { intercept: -1.0, weights: [("meaning".to_string(), 4.0), ("salience".to_string(), 2.0)].into(), threshold: 0.5, l2: 1.0 };
        let inputs = Inputs { values: vec![("meaning".into(), 0.5), ("salience".into(), 1.0)] };
        let fixed = Fixed { outcome: 0.0, recency: 0.0, activation: 0.0, learned: 0.0 };
        let d = f.decide(&inputs, fixed, &Evidence::default(), &[]);
        assert_eq!(d.clone().reweighed(&crate::learning::weights::DEFAULT), d);
        let mut mix = [0.1; 6];
        mix[0] = 0.5;
        let r = d.clone().reweighed(&mix);
        // Relevance x3, salience x0.6: -1 + 2 x 3 + 2 x 0.6.
        assert!((r.logit - 6.2).abs() < 1e-9, "{r:?}");
        assert!((r.probability - sigmoid(6.2)).abs() < 1e-12);
    }

    #[test]
    fn standings_name_the_closest_and_the_margins() {
        let s = standings(&[Some(0.4), Some(0.55), None, Some(0.3)]);
        assert_eq!(s[1], Standing { best: true, margin: 0.55 - 0.4 });
        assert!(!s[0].best && (s[0].margin + 0.15).abs() < 1e-12);
        assert_eq!(s[2], Standing::default());
        assert!((s[3].margin + 0.25).abs() < 1e-12);
        assert_eq!(standings(&[Some(0.5), None])[0], Standing::default(), "alone, nothing says how it compares");
        assert_eq!(standings(&[Some(0.9), Some(0.1)])[0].margin, MARGIN_SPAN, "clamped");
    }

    #[test]
    fn inputs_name_every_signal_that_is_there() {
        let moment = Moment { salience: 0.9, prompt: false };
        let c = cand(Some(0.42), None, 0.25);
        let i = inputs(&c, Standing { best: true, margin: 0.08 }, moment);
        assert_eq!((i.get("meaning"), i.get("best"), i.get("margin"), i.get("words"), i.get("salience")), (0.42, 1.0, 0.08, 0.25, 0.9));
        assert_eq!(i.get("category:security"), 1.0);
        assert_eq!((i.get("by_example"), i.get("prompt"), i.get("seed"), i.get("rule_high")), (0.0, 0.0, 0.0, 0.0));
        // An example closer than the lesson's own text lends its closeness.
        let by_example = inputs(&cand(Some(0.3), Some(0.6), 0.0), Standing::default(), Moment { salience: 0.8, prompt: true });
        assert_eq!((by_example.get("meaning"), by_example.get("by_example"), by_example.get("prompt")), (0.6, 1.0, 1.0));
        assert_eq!(i.get("complies"), 0.0);
        let mut done = cand(Some(0.42), None, 0.25);
        done.complies = Some("make dev".into());
        assert_eq!(inputs(&done, Standing::default(), moment).get("complies"), 1.0);
        assert_eq!(i.get("takes_out"), 0.0);
        let mut edit = cand(Some(0.42), None, 0.25);
        edit.takes_out = vec!["forbid".into()];
        assert_eq!(inputs(&edit, Standing::default(), moment).get("takes_out"), 0.5, "one word counts half");
        edit.takes_out = vec!["verify".into(), "key".into(), "session".into()];
        assert_eq!(inputs(&edit, Standing::default(), moment).get("takes_out"), 1.0, "two or more in full");
        let look = inputs(&c, Standing::default(), Moment { salience: 0.15, prompt: false });
        assert_eq!((look.get("looks_around"), i.get("looks_around")), (1.0, 0.0));
        // Without embeddings there is no meaning, so no standing either.
        let words = inputs(&cand(None, None, 0.5), Standing { best: true, margin: 0.3 }, moment);
        assert_eq!((words.get("meaning"), words.get("best"), words.get("words")), (0.0, 0.0, 0.5));
        let mut t = cand(Some(0.2), None, 0.0);
        t.trigger = Some(Triggered { rule: "r".into(), priority: Priority::High, confidence: 1.0, learned: false, matched: "x".into(), via_category: Some("security".into()), interrupt: false });
        t.category = "style".into();
        let ti = inputs(&t, Standing::default(), moment);
        assert_eq!((ti.get("rule_high"), ti.get("rule_by_category"), ti.get("rule_critical")), (1.0, 1.0, 0.0));
        assert!(ti.values.iter().all(|(n, _)| !n.starts_with("category:")), "a category of its own weighs nothing");
    }

    #[test]
    fn a_decision_names_each_term_and_adds_up() {
        let f = Fitted { intercept: -3.0, weights: [("meaning".to_string(), 8.0), ("best".to_string(), 1.0), ("salience".to_string(), -0.5)].into(), threshold: 0.5, l2: 1.0 };
        let i = Inputs { values: vec![("meaning".into(), 0.5), ("best".into(), 1.0), ("salience".into(), 0.4), ("unknown".into(), 3.0)] };
        let d = f.decide(&i, Fixed::from_weights(0.3, 0.1), &Evidence { effectiveness: 1.0, ..Default::default() }, &[("seed_weight", 0.5), ("node_weight", 1.0)]);
        let names: Vec<&str> = d.terms.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, vec!["meaning", "outcome", "best", "seed_weight", "salience"], "largest effect first; an input the model has no weight for adds nothing");
        assert!((d.logit - (-3.0 + 4.0 + 1.0 - 0.2 + 1.2 + 0.5f64.ln())).abs() < 1e-9);
        assert!((d.probability - sigmoid(d.logit)).abs() < 1e-12);
        assert!(!d.terms.iter().find(|t| t.name == "outcome").unwrap().fitted);
        // An untested lesson (effectiveness at its prior) is neutral.
        let neutral = f.decide(&i, Fixed::from_weights(0.3, 0.1), &Evidence { effectiveness: 0.5, ..Default::default() }, &[]);
        assert!(neutral.terms.iter().all(|t| t.name != "outcome" && t.name != "seed_weight"));
    }

    #[test]
    fn fitting_recovers_a_known_model() {
        // Rows drawn deterministically from sigmoid(-2 + 4 m): the fit lands near (-2, 4).
        let mut rows = Vec::new();
        for i in 0..400 {
            let m = (i % 100) as f64 / 100.0;
            let p = sigmoid(-2.0 + 4.0 * m);
            // A fixed low-discrepancy sequence in place of random draws.
            let u = ((i as f64) * 0.618_033_988_75).fract();
            rows.push((Inputs { values: vec![("m".into(), m)] }, u < p));
        }
        let (b, w) = fit(&rows, 1e-6);
        assert!((b + 2.0).abs() < 0.5, "intercept {b}");
        assert!((w["m"] - 4.0).abs() < 0.8, "weight {}", w["m"]);
        // The penalty shrinks the weights towards zero.
        let (_, shrunk) = fit(&rows, 100.0);
        assert!(shrunk["m"].abs() < w["m"].abs());
    }

    #[test]
    fn fitting_survives_collinear_and_separable_inputs() {
        // Two copies of one input, and a class that one input separates perfectly.
        let rows: Vec<(Inputs, bool)> = (0..40)
            .map(|i| {
                let x = (i % 10) as f64 / 10.0;
                (Inputs { values: vec![("a".into(), x), ("b".into(), x)] }, x >= 0.5)
            })
            .collect();
        let (b, w) = fit(&rows, 0.0);
        assert!(b.is_finite() && w.values().all(|v| v.is_finite()), "{b} {w:?}");
        assert!(w["a"] > 0.0 && (w["a"] - w["b"]).abs() < 1e-6, "collinear inputs share the weight: {w:?}");
        let f = Fitted { intercept: b, weights: w, threshold: 0.5, l2: 0.0 };
        let p = |x: f64| sigmoid(f.logit(&Inputs { values: vec![("a".into(), x), ("b".into(), x)] }));
        assert!(p(0.9) > 0.9 && p(0.1) < 0.1);
    }

    #[test]
    fn a_cosine_that_is_not_a_number_is_no_evidence() {
        let c = cand(Some(f64::NAN), None, 0.2);
        assert_eq!(meaning(&c), None);
        let mut weights = Inputs::default();
        weights.values.push(("x".into(), f64::NAN));
        let f = Fitted { intercept: 0.0, weights: [("x".to_string(), 1.0)].into(), threshold: 0.5, l2: 1.0 };
        assert_eq!(f.decide(&weights, Fixed::from_weights(0.3, 0.1), &Evidence { effectiveness: 0.5, ..Default::default() }, &[]).probability, 0.0);
    }

    #[test]
    fn the_shipped_model_is_whole() {
        let m = Model::builtin();
        assert!(m.with_embeddings.weights.contains_key("meaning") && m.words_only.weights.contains_key("words"));
        assert!(!m.words_only.weights.contains_key("meaning"));
        for f in [&m.with_embeddings, &m.words_only] {
            assert!((0.0..1.0).contains(&f.threshold) && f.weights.values().all(|w| w.is_finite()));
        }
        assert!(m.provenance.command.contains("--fit") && m.provenance.set_sha256.len() == 64);
        assert!(m.provenance.rows > m.provenance.positives && m.provenance.positives > 0);
    }

    #[test]
    fn the_shipped_model_names_the_sets_as_they_are() {
        // A labelled set changed after the fit makes the provenance false: refit (`--fit`).
        use sha2::{Digest, Sha256};
        let hex = |b: &[u8]| -> String { Sha256::digest(b).iter().map(|x| format!("{x:02x}")).collect() };
        let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let p = &Model::builtin().provenance;
        let digests: String = p.set.split(" + ").map(|f| hex(&std::fs::read(repo.join(f)).unwrap_or_else(|e| panic!("{f}: {e}")))).collect();
        assert_eq!(hex(digests.as_bytes()), p.set_sha256, "{} changed since decision.json was fitted", p.set);
    }
}
