//! Prediction at work (`temporal::prediction` has the formulas): each memory's score, reasons
//! and likely next access, refreshed when a day old (by a job every six hours, and for a
//! project at its SessionStart, off the hook's path); what followed each prediction (was the
//! memory accessed before the next one?) kept as a sample; and each project's weights of the
//! three components learned from hits and misses alike (layer 4), within [0.1, 0.6], summing
//! to 1, a bounded step per run.

use std::collections::HashMap;

use cairn_proto::{Memory, PredictQuery, PredictReport, Predicted, GLOBAL_PROJECT};

use super::daemon::Daemon;
use super::error::Result;
use super::writer::unix_seconds;
use crate::base::clock;
use crate::learning::weights;
use crate::semantic::Prepared;
use crate::store::weights::{PredictionRun, PredictionSample};
use crate::temporal::{prediction, tiers};

/// A prediction older than this is refreshed.
pub const STALE_HOURS: f64 = 24.0;

/// The weights of temporal, causal and frequency for `project`: learned, or Wake's.
pub fn weights_of(d: &Daemon, project: &str) -> [f64; 3] {
    match d.store().prediction_record(project).ok().and_then(|r| r.weights) {
        Some(w) if w.len() == 3 => [w[0], w[1], w[2]],
        _ => prediction::DEFAULT_WEIGHTS,
    }
}

/// The prediction for `m` now.
fn predict(m: &mut Memory, dependents: usize, w: [f64; 3], now: time::OffsetDateTime) {
    let now_s = now.unix_timestamp();
    let last = m.now.last_accessed.as_deref().map(|a| unix_seconds(a) as i64);
    let hours = last.map(|l| (now_s - l) as f64 / 3600.0);
    let tier = tiers::of(m, now);
    let c = [prediction::temporal(hours, tier), prediction::causal(!m.why.caused_by.is_empty(), dependents), prediction::frequency(m.now.access_count)];
    let score = prediction::score(c, w);
    m.next.prediction_score = score;
    m.next.reasons = prediction::reasons(score, hours, m.now.access_count, c[1], tier);
    m.next.predicted_next_access = prediction::next_access(unix_seconds(&m.created_at) as i64, last, m.now.access_count, now_s)
        .and_then(|t| time::OffsetDateTime::from_unix_timestamp(t).ok())
        .map(clock::timestamp);
    m.next.last_predicted = Some(clock::timestamp(now));
    m.next.components = Some(c.to_vec());
}

/// Refreshes the predictions older than [`STALE_HOURS`] (all with `force`) of `project` (and
/// `global`), or of every project; each old prediction's outcome becomes a sample first.
/// Returns how many were refreshed.
pub fn refresh(d: &Daemon, project: Option<&str>, force: bool) -> Result<usize> {
    let now = time::OffsetDateTime::now_utc();
    let counts: HashMap<String, usize> = super::causality::children(d)?.into_iter().map(|(id, kids)| (id, kids.len())).collect();
    let stale_before = clock::timestamp(now - time::Duration::seconds_f64(STALE_HOURS * 3600.0));
    let mut due = Vec::new();
    for m in d.store().memories_after(None) {
        let m = m?;
        let wanted = project.is_none_or(|p| m.project == p || m.project == GLOBAL_PROJECT);
        if wanted && (force || m.next.last_predicted.as_deref().is_none_or(|t| t < stale_before.as_str())) {
            due.push(m.id);
        }
    }
    let mut mixes: HashMap<String, [f64; 3]> = HashMap::new();
    for id in &due {
        let w = d.memories().writer();
        let Some(mut m) = w.get(id)? else { continue };
        // What followed the last prediction: an access since, or none.
        if let (Some(at), Some(c)) = (m.next.last_predicted.clone(), m.next.components.clone()) {
            let hit = m.now.last_accessed.as_deref().is_some_and(|a| a > at.as_str());
            d.store().add_prediction_sample(&m.project, &PredictionSample { components: c, hit })?;
        }
        let mix = *mixes.entry(m.project.clone()).or_insert_with(|| weights_of(d, &m.project));
        let named = counts.get(&m.id).copied().unwrap_or(0);
        predict(&mut m, named, mix, now);
        w.put(&m, &Prepared::default())?;
    }
    Ok(due.len())
}

/// One tuning run of `project`'s prediction weights: `Some(run)` when its samples allowed one.
pub fn learn(d: &Daemon, project: &str) -> Result<Option<PredictionRun>> {
    let samples = d.store().prediction_samples(project)?;
    let rows: Vec<(&[f64], bool)> = samples.iter().filter(|s| s.components.len() == 3).map(|s| (&s.components[..], s.hit)).collect();
    let Some(target) = weights::fit_rows(&rows) else { return Ok(None) };
    let mut next = weights_of(d, project).to_vec();
    weights::step_in(&mut next, &target);
    let run = PredictionRun { at: clock::now(), samples: rows.len(), hits: rows.iter().filter(|r| r.1).count(), weights: next };
    d.store().put_prediction_weights(project, Some(run.clone()))?;
    Ok(Some(run))
}

/// The job: stale predictions refreshed everywhere, then each project's weights learned.
pub fn job(d: &Daemon) -> Result<()> {
    let n = refresh(d, None, false)?;
    if n > 0 {
        tracing::info!(refreshed = n, "predictions refreshed");
    }
    let mut projects: Vec<String> = d.store().memories_after(None).filter_map(|m| m.ok().map(|m| m.project)).collect();
    projects.sort();
    projects.dedup();
    for p in projects {
        learn(d, &p)?;
    }
    Ok(())
}

/// How long the worker lets SessionStarts gather before refreshing their projects.
const GATHER: std::time::Duration = std::time::Duration::from_millis(500);

/// Starts the worker that refreshes a project's stale predictions after its SessionStart (the
/// hook only notes the project).
pub fn spawn(d: &std::sync::Arc<Daemon>) {
    // Nothing is ever kept waiting, so the tick never fires.
    super::workers::serve(d, Daemon::predictions, GATHER, std::time::Duration::from_secs(3600), "refresh the project's predictions", |d, project| async move {
        tokio::task::block_in_place(|| refresh(&d, Some(&project), false)).map(|_| true)
    });
}

/// `cairn predict`: the project's stale predictions refreshed (all with `--refresh`), then its
/// memories by prediction, best first.
pub fn report(d: &Daemon, q: PredictQuery) -> Result<PredictReport> {
    let project = d.project_for(&q.scope);
    let refreshed = tokio::task::block_in_place(|| refresh(d, Some(&project), q.refresh))?;
    let mut items: Vec<Predicted> = Vec::new();
    for m in d.store().memories_after(None) {
        let m = m?;
        if (m.project == project || m.project == GLOBAL_PROJECT) && m.next.last_predicted.is_some() && !m.is_candidate() {
            items.push(Predicted { id: m.id, text: m.text, score: m.next.prediction_score, reasons: m.next.reasons, next_access: m.next.predicted_next_access, components: m.next.components.unwrap_or_default() });
        }
    }
    items.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.id.cmp(&b.id)));
    items.truncate(q.limit.unwrap_or(10) as usize);
    let learned = d.store().prediction_record(&project)?.weights.is_some();
    let weights = weights_of(d, &project).to_vec();
    Ok(PredictReport { project, refreshed, weights, learned, items })
}
