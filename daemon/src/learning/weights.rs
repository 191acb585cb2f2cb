//! Learned fusion weights, pure: per project, how much each of the decision's six signal groups
//! (relevance, salience, trigger, effectiveness, activation, recency) counts, learned from what
//! happened to lessons there.
//!
//! The weights are a mix: each in [`MIN`, `MAX`] and together 1 (to within 1e-12, a float's rounding). The default mix is even
//! (1/6 each) and leaves the shipped decision as it was fitted; a learned mix scales each
//! group's terms in the decision by `learned / default` (a group at 1/3 counts twice).
//!
//! The fit learns from both sides, unlike an average over hits alone (which says only which
//! signals were high when something went well, not which ones tell good from bad): each sample
//! is a lesson at a moment with the six signals it had there and a label. Positive: said and
//! followed, or confirmed by `feedback used` where it was not said (a miss). Negative: said and
//! contradicted or ignored, or `feedback not-relevant`. A logistic regression over the six
//! signals gives each group's coefficient; the mix is the positive coefficients normalised to 1,
//! clamped to the bounds with the remainder redistributed among the weights not pinned at one.
//! A run moves each weight at most [`MAX_STEP`] toward the fit, and runs only with at least
//! [`MIN_SAMPLES`] samples holding both labels.

use crate::base::logistic;

/// The signal groups, in the mix's order.
pub const SIGNALS: [&str; 6] = ["relevance", "salience", "trigger", "effectiveness", "activation", "recency"];
pub const MIN: f64 = 0.1;
pub const MAX: f64 = 0.6;
/// Samples a project needs before its mix is learned.
pub const MIN_SAMPLES: usize = 20;
/// Largest move of one weight in one run.
pub const MAX_STEP: f64 = 0.05;

pub use crate::store::weights::{Mix, Sample};

/// The even mix: the decision as it shipped.
pub const DEFAULT: Mix = [1.0 / 6.0; 6];

/// A said lesson's six signals from what the advisor recorded with it (`AdviceItem.signals`):
/// relevance, salience, the trigger's confidence, effectiveness, activation (or a learned
/// situation's closeness) and recency, each within [0, 1].
pub fn from_signals(s: &cairn_proto::Signals) -> Mix {
    let get = |k: &str| s.get(k).copied().unwrap_or(0.0);
    let activation = get("activation").max(get("learned"));
    [get("relevance"), get("salience"), get("trigger_conf"), get("effectiveness"), activation, get("recency")].map(|v| if v.is_finite() { v.clamp(0.0, 1.0) } else { 0.0 })
}

/// The group a decision term belongs to, by its name (`None`: a term no group scales, such as
/// a category indicator or a seed's weight).
pub fn group(term: &str) -> Option<usize> {
    match term {
        "meaning" | "best" | "margin" | "by_example" | "words" | "learned" => Some(0),
        "salience" | "prompt" | "looks_around" => Some(1),
        t if t.starts_with("rule") || t == "trigger" => Some(2),
        "outcome" => Some(3),
        "activation" => Some(4),
        "recency" => Some(5),
        _ => None,
    }
}

/// The factor a mix puts on each group's terms.
pub fn multipliers(mix: &Mix) -> Mix {
    let mut m = [1.0; 6];
    for (i, w) in mix.iter().enumerate() {
        m[i] = w / DEFAULT[i];
    }
    m
}

/// Clamps every weight to [`MIN`, `MAX`] and makes them sum to 1 (within 1e-12) by moving only the
/// weights not pinned at a bound (in as many rounds as pinning takes).
pub fn redistribute(mut w: Mix) -> Mix {
    redistribute_in(&mut w);
    w
}

/// [`redistribute`] for a mix of any size (the prediction's three weights too).
pub fn redistribute_in(w: &mut [f64]) {
    let even = 1.0 / w.len().max(1) as f64;
    for x in w.iter_mut() {
        *x = if x.is_finite() { x.clamp(MIN, MAX) } else { even };
    }
    for _ in 0..12 {
        let deficit = 1.0 - w.iter().sum::<f64>();
        if deficit.abs() < 1e-12 {
            break;
        }
        let free: Vec<usize> = (0..w.len()).filter(|&i| if deficit > 0.0 { w[i] < MAX - 1e-12 } else { w[i] > MIN + 1e-12 }).collect();
        if free.is_empty() {
            break;
        }
        let share = deficit / free.len() as f64;
        for i in free {
            w[i] = (w[i] + share).clamp(MIN, MAX);
        }
    }
}

/// The mix the samples point to: positive logistic coefficients of the six signals, normalised
/// and redistributed; `None` with too few samples or only one label.
pub fn fit(samples: &[Sample]) -> Option<Mix> {
    let rows: Vec<(&[f64], bool)> = samples.iter().map(|s| (&s.signals[..], s.positive)).collect();
    let v = fit_rows(&rows)?;
    let mut mix = [0.0; 6];
    mix.copy_from_slice(&v);
    Some(mix)
}

/// [`fit`] for rows of any width: each row's signals (in [0, 1]) and whether it proved right.
pub fn fit_rows(rows: &[(&[f64], bool)]) -> Option<Vec<f64>> {
    let positives = rows.iter().filter(|r| r.1).count();
    let width = rows.first()?.0.len();
    if rows.len() < MIN_SAMPLES || positives == 0 || positives == rows.len() || width == 0 {
        return None;
    }
    let x: Vec<Vec<f64>> = rows.iter().map(|(s, _)| std::iter::once(1.0).chain(s.iter().map(|v| v.clamp(0.0, 1.0))).collect()).collect();
    let y: Vec<f64> = rows.iter().map(|r| f64::from(u8::from(r.1))).collect();
    let beta = logistic::fit(&x, &y, 0.01);
    let coefficients: Vec<f64> = beta[1..].iter().map(|b| b.max(0.0)).collect();
    let total: f64 = coefficients.iter().sum();
    if total <= 0.0 || !total.is_finite() {
        return None;
    }
    let mut mix: Vec<f64> = coefficients.iter().map(|c| c / total).collect();
    redistribute_in(&mut mix);
    Some(mix)
}

/// One run's move from `current` toward `target`: along the line between them, no weight
/// moving more than [`MAX_STEP`]. Both are mixes (in bounds, summing to 1), so every point
/// between is one too.
pub fn step(current: &Mix, target: &Mix) -> Mix {
    let mut next = *current;
    step_in(&mut next, target);
    next
}

/// [`step`] for a mix of any size.
pub fn step_in(current: &mut [f64], target: &[f64]) {
    let far = current.iter().zip(target).map(|(c, t)| (t - c).abs()).fold(0.0, f64::max);
    let share = if far > MAX_STEP { MAX_STEP / far } else { 1.0 };
    for (n, t) in current.iter_mut().zip(target) {
        *n += (t - *n) * share;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift), so the test needs no crate and never flakes.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> f64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    fn planted(mix: Mix, n: usize, seed: u64) -> Vec<Sample> {
        let mut rng = Rng(seed);
        (0..n)
            .map(|_| {
                let mut signals = [0.0; 6];
                signals.iter_mut().for_each(|s| *s = rng.next());
                // Outcomes come from the planted mix: the better the weighted signals, the likelier
                // the lesson proves right.
                let z: f64 = signals.iter().zip(&mix).map(|(s, w)| s * w).sum::<f64>();
                let p = logistic::sigmoid(12.0 * (z - 0.5));
                Sample { signals, positive: rng.next() < p }
            })
            .collect()
    }

    #[test]
    fn a_planted_mix_is_recovered_within_0_05() {
        for (mix, seed) in [([0.4, 0.1, 0.1, 0.2, 0.1, 0.1], 7), ([0.25, 0.25, 0.1, 0.1, 0.15, 0.15], 11), ([0.1, 0.3, 0.2, 0.1, 0.2, 0.1], 23)] {
            let got = fit(&planted(mix, 20_000, seed)).expect("enough samples");
            for (g, w) in got.iter().zip(&mix) {
                assert!((g - w).abs() <= 0.05, "planted {mix:?}, learned {got:?}");
            }
            assert!((got.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        }
    }

    #[test]
    fn misses_teach_what_hits_alone_cannot() {
        // Every sample has high recency whatever happened: averaging the hits would give recency
        // a large weight; the fit sees that it does not tell right from wrong.
        let mut rng = Rng(5);
        let samples: Vec<Sample> = (0..4000)
            .map(|_| {
                let relevance = rng.next();
                let mut signals = [relevance, rng.next(), 0.0, 0.5, 0.0, 0.9 + 0.1 * rng.next()];
                signals[2] = rng.next() * 0.1;
                Sample { signals, positive: rng.next() < logistic::sigmoid(10.0 * (relevance - 0.5)) }
            })
            .collect();
        let got = fit(&samples).unwrap();
        assert!(got[0] >= 0.5 && got[5] <= 0.11, "{got:?}");
    }

    #[test]
    fn a_planted_prediction_mix_of_three_is_recovered_and_two_pinned_weights_stay_pinned() {
        let mut rng = Rng(31);
        let planted = [0.5, 0.3, 0.2];
        let rows: Vec<(Vec<f64>, bool)> = (0..20_000)
            .map(|_| {
                let c: Vec<f64> = (0..3).map(|_| rng.next()).collect();
                let z: f64 = c.iter().zip(planted).map(|(a, w)| a * w).sum();
                let hit = rng.next() < logistic::sigmoid(12.0 * (z - 0.5));
                (c, hit)
            })
            .collect();
        let borrowed: Vec<(&[f64], bool)> = rows.iter().map(|(c, h)| (&c[..], *h)).collect();
        let got = fit_rows(&borrowed).unwrap();
        for (g, w) in got.iter().zip(planted) {
            assert!((g - w).abs() <= 0.05, "planted {planted:?}, learned {got:?}");
        }
        // Two weights pinned at the floor at once: the whole remainder goes to the third.
        let mut w = [0.0, 0.01, 0.99];
        redistribute_in(&mut w);
        assert!(w.iter().all(|x| (MIN - 1e-12..=MAX + 1e-12).contains(x)), "{w:?}");
        assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{w:?}");
        // Two pinned at the ceiling: the floor one takes what is left.
        let mut w = [0.9, 0.8, 0.0];
        redistribute_in(&mut w);
        assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-12 && w.iter().all(|x| (MIN - 1e-12..=MAX + 1e-12).contains(x)), "{w:?}");
        let mut s = [0.4, 0.3, 0.3];
        step_in(&mut s, &[0.1, 0.3, 0.6]);
        assert!((s[0] - 0.35).abs() < 1e-12 && (s.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{s:?}");
    }

    #[test]
    fn weights_stay_in_bounds_and_sum_to_one() {
        for raw in [[0.9, 0.0, 0.0, 0.05, 0.05, 0.0], [0.05, 0.05, 0.05, 0.05, 0.05, 0.3], [0.0, 0.5, 0.5, 0.5, 0.1, 0.1], [3.0, 2.0, 1.0, 0.0, 0.0, 0.0]] {
            let w = redistribute(raw);
            assert!(w.iter().all(|x| (MIN - 1e-12..=MAX + 1e-12).contains(x)), "{raw:?} -> {w:?}");
            assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{raw:?} -> {w:?}");
        }
        // Too much in all: only the weights with room above the floor give it back.
        let w = redistribute([0.0, 0.5, 0.5, 0.5, 0.1, 0.1]);
        assert_eq!((w[0], w[4], w[5]), (MIN, MIN, MIN), "{w:?}");
        let w = redistribute([0.6, 0.6, 0.6, 0.6, 0.6, 0.6]);
        assert!(w.iter().all(|x| (x - 1.0 / 6.0).abs() < 1e-12), "{w:?}");
        let w = redistribute([f64::NAN, 0.2, 0.2, 0.2, 0.2, 0.2]);
        assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn a_run_moves_a_bounded_step_and_needs_enough_samples() {
        let next = step(&DEFAULT, &redistribute([0.6, 0.1, 0.1, 0.1, 0.0, 0.1]));
        assert!(next.iter().zip(&DEFAULT).all(|(n, d)| (n - d).abs() <= MAX_STEP + 1e-9), "{next:?}");
        assert!((next.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert_eq!(fit(&planted(DEFAULT, MIN_SAMPLES - 1, 3)), None);
        let all_right: Vec<Sample> = (0..50).map(|_| Sample { signals: [0.5; 6], positive: true }).collect();
        assert_eq!(fit(&all_right), None, "one label teaches nothing");
        assert_eq!(multipliers(&DEFAULT), [1.0; 6]);
        assert_eq!(group("meaning"), Some(0));
        assert_eq!(group("category_git"), None);
    }
}
