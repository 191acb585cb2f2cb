//! Whether a candidate lesson is an existing lesson said again, read by a small learned model
//! over how close the candidate is to its nearest lessons. Pure: the caller retrieves and
//! embeds.
//!
//! A fixed cosine bar cannot tell a rewording from a neighbour: on the labelled capture sets a
//! lesson said again in other words lies at cosine 0.45-0.70 from the lesson it repeats, and a
//! different lesson about the same tool lies as close; the fixed bars (0.75, or 0.65 with a
//! third of the words shared) caught under a third of the rewordings. The model is a logistic
//! regression over the closest lesson's cosine (most of its weight), how far that lesson leads
//! the next one (a rewording has one lesson it repeats; a new lesson on a busy topic sits among
//! several), the words the two share, and the candidate's source (a failure that is an instance
//! of a lesson shares its command words and little of its meaning), fitted on the
//! labelled candidates by `cairn-capture-bench --fit-duplicates` and shipped as data
//! (`duplicate.json`) with its provenance; it is used only under the embedding model it was
//! fitted with.

use std::collections::HashSet;
use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

use crate::base::logistic::sigmoid;
use crate::base::text;

/// The closest lesson's lead over the next is read up to this (a lesson alone leads by it).
pub const MARGIN_CAP: f64 = 0.3;

/// The fitted model, as `duplicate.json` holds it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct DuplicateModel {
    pub version: u32,
    /// The embedding model the weights were fitted under (its fingerprint).
    pub fingerprint: String,
    pub intercept: f64,
    pub weights: Weights,
    /// Probability at or above which the candidate is the closest lesson again.
    pub threshold: f64,
    /// The same for a lesson the user was heard saying in a prompt: higher, since taking the
    /// user's own correction for a neighbouring lesson loses what they taught, where a rewording
    /// missed is a candidate they reject in `cairn review`.
    pub threshold_heard: f64,
    pub provenance: serde_json::Value,
}

/// One weight per input, by name.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Default)]
pub struct Weights {
    pub cosine: f64,
    pub margin: f64,
    pub words: f64,
    pub recovery: f64,
    pub failure: f64,
    pub claude_md: f64,
}

/// The model's inputs for one candidate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Inputs {
    /// Cosine with the closest lesson by meaning.
    pub cosine: f64,
    /// Its lead over the next closest, up to [`MARGIN_CAP`].
    pub margin: f64,
    /// Share of the shorter text's terms found in the other (see [`overlap`]).
    pub words: f64,
    pub recovery: bool,
    pub failure: bool,
    pub claude_md: bool,
}

impl Inputs {
    /// The inputs as a row for fitting: 1 for the intercept, then the inputs in [`Weights`]'s
    /// order.
    pub fn row(&self) -> Vec<f64> {
        let flag = |b: bool| if b { 1.0 } else { 0.0 };
        vec![1.0, self.cosine, self.margin, self.words, flag(self.recovery), flag(self.failure), flag(self.claude_md)]
    }
}

/// What the model reads: the closest lesson (an index into the nearest lessons given) and the
/// probability that the candidate is that lesson again.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reading {
    pub closest: usize,
    pub probability: f64,
    pub inputs: Inputs,
}

static BUILTIN: LazyLock<DuplicateModel> = LazyLock::new(|| serde_json::from_str(include_str!("duplicate.json")).expect("the shipped duplicate model parses"));

/// The shipped model.
pub fn builtin() -> &'static DuplicateModel {
    &BUILTIN
}

impl DuplicateModel {
    /// Whether the weights were fitted under the embedding model `fingerprint`.
    pub fn fits(&self, fingerprint: &str) -> bool {
        self.fingerprint == fingerprint
    }

    /// A model from the coefficients of a fit (in [`Inputs::row`]'s order).
    pub fn from_coefficients(beta: &[f64], threshold: f64, threshold_heard: f64, fingerprint: String, provenance: serde_json::Value) -> DuplicateModel {
        let b = |i: usize| beta.get(i).copied().unwrap_or(0.0);
        let weights = Weights { cosine: b(1), margin: b(2), words: b(3), recovery: b(4), failure: b(5), claude_md: b(6) };
        DuplicateModel { version: 1, fingerprint, intercept: b(0), weights, threshold, threshold_heard, provenance }
    }

    pub fn probability(&self, x: &Inputs) -> f64 {
        let w = &self.weights;
        let flag = |b: bool, w: f64| if b { w } else { 0.0 };
        sigmoid(
            self.intercept + w.cosine * x.cosine + w.margin * x.margin + w.words * x.words + flag(x.recovery, w.recovery) + flag(x.failure, w.failure) + flag(x.claude_md, w.claude_md),
        )
    }

    /// Reads a candidate against its nearest lessons (id, text, cosine); `None` when no lesson
    /// has a cosine (the model is not loaded, or no lesson is near).
    pub fn read(&self, text: &str, source: &str, nearest: &[(&str, &str, Option<f64>)]) -> Option<Reading> {
        let (closest, inputs) = inputs(text, source, nearest)?;
        Some(Reading { closest, probability: self.probability(&inputs), inputs })
    }

    /// Whether a reading says "the same lesson again"; `heard`: of a lesson the user was heard
    /// saying in a prompt.
    pub fn repeats(&self, r: &Reading, heard: bool) -> bool {
        r.probability >= if heard { self.threshold_heard } else { self.threshold }
    }
}

/// The model's inputs for `text` against its nearest lessons, with the index of the closest by
/// cosine; `None` when no lesson has a cosine.
pub fn inputs(text: &str, source: &str, nearest: &[(&str, &str, Option<f64>)]) -> Option<(usize, Inputs)> {
    let mut by_cosine: Vec<(usize, f64)> = nearest.iter().enumerate().filter_map(|(i, (_, _, c))| c.map(|c| (i, c))).collect();
    by_cosine.sort_by(|a, b| b.1.total_cmp(&a.1));
    let &(closest, cosine) = by_cosine.first()?;
    let next = by_cosine.get(1).map_or(0.0, |(_, c)| *c);
    let inputs = Inputs {
        cosine,
        margin: (cosine - next).clamp(0.0, MARGIN_CAP),
        words: overlap(text, nearest[closest].1),
        recovery: source == "recovery",
        failure: source == "failure",
        claude_md: source == "claude-md",
    };
    Some((closest, inputs))
}

/// The share of the shorter text's terms found in the other.
pub fn overlap(a: &str, b: &str) -> f64 {
    let (ta, tb): (HashSet<String>, HashSet<String>) = (text::terms(a).into_iter().collect(), text::terms(b).into_iter().collect());
    let shorter = ta.len().min(tb.len());
    if shorter == 0 {
        return 0.0;
    }
    ta.intersection(&tb).count() as f64 / shorter as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> DuplicateModel {
        DuplicateModel::from_coefficients(&[-7.0, 11.0, 1.5, 1.0, 0.0, 0.4, 0.0], 0.5, 0.7, "f".into(), serde_json::Value::Null)
    }

    #[test]
    fn the_shipped_model_parses_and_names_its_provenance() {
        let m = builtin();
        assert!(m.threshold > 0.0 && m.threshold < 1.0);
        assert!(m.threshold_heard >= m.threshold && m.threshold_heard < 1.0);
        assert!(m.weights.cosine > 0.0, "closer in meaning is more likely the same lesson");
        assert!(m.provenance["command"].as_str().is_some_and(|c| c.contains("--fit-duplicates")));
    }

    #[test]
    fn the_shipped_model_names_the_sets_as_they_are() {
        // A labelled set changed after the fit makes the provenance false: refit
        // (`--fit-duplicates`).
        use sha2::{Digest, Sha256};
        let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let sets = builtin().provenance["sets"].as_array().expect("sets");
        assert!(sets.len() >= 2);
        for set in sets {
            let file = set["file"].as_str().expect("file");
            let bytes = std::fs::read(repo.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
            let hex: String = Sha256::digest(&bytes).iter().map(|x| format!("{x:02x}")).collect();
            assert_eq!(Some(hex.as_str()), set["sha256"].as_str(), "{file} changed since duplicate.json was fitted");
        }
    }

    #[test]
    fn the_closest_by_cosine_is_read_whatever_the_order_given() {
        let nearest = [("a", "Use pnpm here, not npm.", Some(0.40)), ("b", "Never force-push main.", Some(0.80)), ("c", "Pin images.", None)];
        let (closest, x) = inputs("Do not force-push to main.", "prompt", &nearest).expect("cosines");
        assert_eq!(closest, 1);
        assert!((x.cosine - 0.80).abs() < 1e-9);
        assert!((x.margin - 0.3).abs() < 1e-9, "a lead of 0.4 is read up to the cap");
        assert!(x.words > 0.5, "force-push and main are shared: {}", x.words);
        assert!(inputs("x", "prompt", &[("a", "y", None)]).is_none(), "no cosine, no reading");
    }

    #[test]
    fn a_lesson_that_leads_its_neighbours_is_more_likely_repeated_than_one_among_many() {
        let m = model();
        let alone = m.read("Run database migrations on a copy first.", "prompt", &[("a", "Rehearse migrations on staging.", Some(0.60)), ("b", "Pin images.", Some(0.20))]).unwrap();
        let crowd = m.read("Run database migrations on a copy first.", "prompt", &[("a", "Rehearse migrations on staging.", Some(0.60)), ("b", "Back up before DDL.", Some(0.58))]).unwrap();
        assert!(alone.probability > crowd.probability);
        assert!(m.repeats(&alone, false) && !m.repeats(&crowd, false), "{} {}", alone.probability, crowd.probability);
        // What the user was heard saying needs more to be taken for another lesson.
        assert!(!m.repeats(&alone, true), "{}", alone.probability);
    }

    #[test]
    fn the_source_enters_as_its_own_weight() {
        let m = model();
        let near = [("a", "Use pnpm in storefront, not npm.", Some(0.55)), ("b", "Pin images.", Some(0.30))];
        let failure = m.read("In storefront, `npm install` fails (workspace:).", "failure", &near).unwrap();
        let prompt = m.read("In storefront, `npm install` fails (workspace:).", "prompt", &near).unwrap();
        assert!(failure.probability > prompt.probability);
        assert_eq!(failure.inputs.row().len(), 7);
    }
}
