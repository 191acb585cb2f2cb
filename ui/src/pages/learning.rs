//! Learning: a project's learned fusion weights (the decision's signal groups) and prediction
//! weights (temporal, causal, frequency) against their defaults, over the runs that learned
//! them, with sample sizes.

use std::sync::Arc;

use askama::Template;
use axum::extract::{Query, State};
use axum::response::Html;
use cairn_proto::{OverviewQuery, Scope, WeightsQuery, WeightsReport, GLOBAL_PROJECT};
use serde::Deserialize;

use crate::app::{App, PageError};
use crate::svg::{self, Series};
use crate::view::{self, Layout, Opt};

#[derive(Deserialize, Default)]
pub struct Params {
    project: Option<String>,
}

pub struct WeightRow {
    pub signal: String,
    pub current: String,
    pub default: String,
    pub moved: String,
}

pub struct Mix {
    pub title: &'static str,
    pub learned: bool,
    pub rows: Vec<WeightRow>,
    pub samples: String,
    pub last_run: String,
    pub chart: Option<String>,
}

#[derive(Template)]
#[template(path = "learning.html")]
pub struct Page {
    layout: Layout,
    projects: Vec<Opt>,
    project: String,
    mixes: Vec<Mix>,
}

/// Classes for up to six signals' lines, in turn.
const CLASSES: [&str; 6] = ["s-0", "s-1", "s-2", "s-3", "s-4", "s-5"];
const NAMES: usize = CLASSES.len();

fn mix(title: &'static str, r: &WeightsReport) -> Mix {
    let rows = r.weights.iter().map(|w| WeightRow { signal: w.signal.clone(), current: format!("{:.3}", w.current), default: format!("{:.3}", w.default), moved: format!("{:+.3}", w.current - w.default) }).collect();
    let chart = (!r.history.is_empty()).then(|| {
        let xs: Vec<String> = r.history.iter().map(|h| view::time(&h.at)).collect();
        let signals: Vec<String> = r.weights.iter().map(|w| w.signal.clone()).take(NAMES).collect();
        let series: Vec<Series> = signals
            .iter()
            .enumerate()
            .map(|(i, s)| Series {
                name: s.clone(),
                class: CLASSES[i],
                values: r.history.iter().map(|h| h.weights.iter().find(|(n, _)| n == s).map(|(_, v)| *v)).collect(),
            })
            .collect();
        svg::lines(title, &xs, &series, None, &|v| format!("{v:.2}"))
    });
    Mix {
        title,
        learned: r.learned,
        rows,
        samples: format!("{} samples held, {} of them right; a mix is learned from {}", r.samples, r.positives, r.min_samples),
        last_run: r.last_run.as_deref().map_or("never".into(), view::time),
        chart,
    }
}

pub async fn page(State(app): State<Arc<App>>, Query(p): Query<Params>) -> Result<Html<String>, PageError> {
    let known = crate::ask!(app, overview(OverviewQuery { project: None, days: 1 }))?.projects;
    let project = view::given(&p.project).or_else(|| known.iter().find(|p| p.as_str() != GLOBAL_PROJECT).cloned()).unwrap_or_else(|| GLOBAL_PROJECT.to_string());
    let scope = if project == GLOBAL_PROJECT { Scope { global: true, ..Default::default() } } else { Scope { project: Some(project.clone()), ..Default::default() } };
    let fusion = crate::ask!(app, weights(WeightsQuery { scope: scope.clone(), prediction: false, ..Default::default() }))?;
    let prediction = crate::ask!(app, weights(WeightsQuery { scope: scope.clone(), prediction: true, ..Default::default() }))?;
    let mut projects: Vec<Opt> = known.iter().map(|p| Opt { value: p.clone(), label: view::project(p), selected: *p == project }).collect();
    if !known.contains(&project) {
        projects.insert(0, Opt { value: project.clone(), label: view::project(&project), selected: true });
    }
    let page = Page {
        layout: Layout::new("Learning", "/learning"),
        projects,
        project: view::project(&project),
        mixes: vec![mix("Fusion weights: how much each group of signals counts in the decision", &fusion), mix("Prediction weights: temporal, causal, frequency", &prediction)],
    };
    Ok(Html(page.render()?))
}
