//! Learned fusion weights at work (`learning::weights` has the rule): samples recorded as
//! outcomes settle and as feedback comes, a tuning run per project (hourly, or `cairn weights
//! learn`), the mix mirrored for the hook, `cairn weights` to show and reset it.

use cairn_proto::{Signals, WeightLine, WeightsAction, WeightsQuery, WeightsReport, WeightsRun};

use super::daemon::Daemon;
use super::error::Result;
use crate::base::clock;
use crate::learning::weights::{self, Mix, Sample, DEFAULT, MIN_SAMPLES, SIGNALS};
use crate::store::weights::Run;

/// Records what became of a lesson at a moment, with the signals it had there.
pub fn record(d: &Daemon, project: &str, signals: &Signals, positive: bool) -> Result<()> {
    d.store().add_weight_sample(project, &Sample { signals: weights::from_signals(signals), positive })?;
    Ok(())
}

/// One tuning run for `project`: `Some(run)` when the samples allowed one.
pub fn learn(d: &Daemon, project: &str) -> Result<Option<Run>> {
    let samples = d.store().weight_samples(project)?;
    let Some(target) = weights::fit(&samples) else { return Ok(None) };
    let current = d.store().weights_record(project)?.weights.unwrap_or(DEFAULT);
    let next = weights::step(&current, &target);
    let run = Run { at: clock::now(), samples: samples.len(), positives: samples.iter().filter(|s| s.positive).count(), target, weights: next };
    d.store().put_weights(project, Some(run.clone()))?;
    d.set_mix(project, Some(next));
    tracing::info!(project, samples = run.samples, "fusion weights learned");
    Ok(Some(run))
}

/// The hourly job: a run for every project with samples.
pub fn learn_all(d: &Daemon) -> Result<()> {
    for project in d.store().weight_projects()? {
        learn(d, &project)?;
    }
    Ok(())
}

fn lines(mix: &Mix) -> Vec<(String, f64)> {
    SIGNALS.iter().zip(mix).map(|(s, w)| (s.to_string(), *w)).collect()
}

/// `cairn weights [reset|learn]`.
pub async fn weights(d: &Daemon, q: WeightsQuery) -> Result<WeightsReport> {
    let project = d.project_for(&q.scope);
    if q.prediction {
        return prediction_weights(d, &q, project).await;
    }
    let message = match q.action {
        WeightsAction::Show => String::new(),
        WeightsAction::Reset => {
            d.store().put_weights(&project, None)?;
            d.set_mix(&project, None);
            "back to the default weights (the history is kept)".into()
        }
        WeightsAction::Learn => match tokio::task::block_in_place(|| learn(d, &project))? {
            Some(run) => format!("learned from {} samples ({} proved right)", run.samples, run.positives),
            None => format!("not learned: it takes at least {MIN_SAMPLES} samples, some right and some not"),
        },
    };
    if q.action != WeightsAction::Show {
        d.store().durable().await?;
    }
    let record = d.store().weights_record(&project)?;
    let samples = d.store().weight_samples(&project)?;
    let current = record.weights.unwrap_or(DEFAULT);
    Ok(WeightsReport {
        learned: record.weights.is_some(),
        weights: SIGNALS.iter().enumerate().map(|(i, s)| WeightLine { signal: s.to_string(), current: current[i], default: DEFAULT[i] }).collect(),
        samples: samples.len(),
        positives: samples.iter().filter(|s| s.positive).count(),
        min_samples: MIN_SAMPLES,
        last_run: record.history.last().map(|r| r.at.clone()),
        history: record.history.iter().map(|r| WeightsRun { at: r.at.clone(), samples: r.samples, positives: r.positives, weights: lines(&r.weights) }).collect(),
        project,
        message,
    })
}

/// `cairn weights --prediction`: the prediction's three weights (layer 4).
async fn prediction_weights(d: &Daemon, q: &WeightsQuery, project: String) -> Result<WeightsReport> {
    use crate::temporal::prediction::{COMPONENTS, DEFAULT_WEIGHTS};
    let message = match q.action {
        WeightsAction::Show => String::new(),
        WeightsAction::Reset => {
            d.store().put_prediction_weights(&project, None)?;
            "back to Wake's weights (the history is kept)".into()
        }
        WeightsAction::Learn => match tokio::task::block_in_place(|| super::prediction::learn(d, &project))? {
            Some(run) => format!("learned from {} predictions ({} followed by an access)", run.samples, run.hits),
            None => format!("not learned: it takes at least {MIN_SAMPLES} predictions, some followed by an access and some not"),
        },
    };
    if q.action != WeightsAction::Show {
        d.store().durable().await?;
    }
    let record = d.store().prediction_record(&project)?;
    let samples = d.store().prediction_samples(&project)?;
    let current = super::prediction::weights_of(d, &project);
    Ok(WeightsReport {
        learned: record.weights.is_some(),
        weights: COMPONENTS.iter().enumerate().map(|(i, s)| WeightLine { signal: s.to_string(), current: current[i], default: DEFAULT_WEIGHTS[i] }).collect(),
        samples: samples.len(),
        positives: samples.iter().filter(|s| s.hit).count(),
        min_samples: MIN_SAMPLES,
        last_run: record.history.last().map(|r| r.at.clone()),
        history: record.history.iter().map(|r| WeightsRun { at: r.at.clone(), samples: r.samples, positives: r.hits, weights: COMPONENTS.iter().map(|c| c.to_string()).zip(r.weights.iter().copied()).collect() }).collect(),
        project,
        message,
    })
}
