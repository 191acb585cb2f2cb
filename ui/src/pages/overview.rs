//! The overview: memories by project, category, source and tier; advice said and what became
//! of it per day; hit and followed rates; the daemon's hook time and the hook's misses; the
//! model and the index. Everything is counted by the daemon (`overview`).

use std::sync::Arc;

use askama::Template;
use axum::extract::{Query, State};
use axum::response::Html;
use cairn_proto::{DayStats, Overview, OverviewQuery};
use serde::Deserialize;

use crate::app::{App, PageError};
use crate::svg::{self, Series};
use crate::view::{self, Layout, Opt};

#[derive(Deserialize, Default)]
pub struct Params {
    project: Option<String>,
    days: Option<String>,
}

pub struct Card {
    pub label: &'static str,
    pub value: String,
    pub note: String,
}

pub struct DayRow {
    pub day: String,
    pub events: u64,
    pub said: u64,
    pub followed: u64,
    pub ignored: u64,
    pub contradicted: u64,
    pub unknown: u64,
    pub used: u64,
    pub missed: u64,
    pub not_relevant: u64,
    pub hit: String,
    pub hook: String,
    pub misses: u64,
}

#[derive(Template)]
#[template(path = "overview.html")]
pub struct Page {
    layout: Layout,
    projects: Vec<Opt>,
    ranges: Vec<Opt>,
    scope: String,
    cards: Vec<Card>,
    has_activity: bool,
    said_chart: String,
    outcomes_chart: String,
    rates_chart: String,
    hook_chart: String,
    by_project: String,
    by_category: String,
    by_source: String,
    by_tier: String,
    model: String,
    index: String,
    job: Option<String>,
    store_failure: Option<String>,
    generated_at: String,
    rows: Vec<DayRow>,
}

/// The ranges offered, in days.
const RANGES: [u32; 4] = [7, 30, 90, 365];

fn counts(c: &[cairn_proto::Count]) -> Vec<(String, u64)> {
    c.iter().map(|c| (c.name.clone(), c.count)).collect()
}

fn series(days: &[DayStats], pick: impl Fn(&DayStats) -> Option<f64>) -> Vec<Option<f64>> {
    days.iter().map(pick).collect()
}

pub fn render(o: &Overview, range: u32) -> Result<String, PageError> {
    let xs: Vec<String> = o.days.iter().map(|d| d.day.clone()).collect();
    let t = &o.total;
    let judged = t.followed + t.ignored + t.contradicted;
    let s = &o.status;
    let cards = vec![
        Card { label: "Memories", value: o.memories.to_string(), note: format!("{} candidates waiting", o.candidates) },
        Card { label: "Lessons said", value: t.said.to_string(), note: format!("at {} of {} moments weighed", t.advised, t.weighed) },
        Card { label: "Hit rate", value: view::pct(t.hit_rate()), note: format!("said at {} of {} moments known to need it ({} marked used where it was not said)", t.hits(), t.hits() + t.missed, t.missed) },
        Card { label: "Followed rate", value: view::pct(t.followed_rate()), note: format!("{} followed of {judged} judged", t.followed) },
        Card { label: "Hook time (median)", value: view::ms_bound(t.hook_quantile(0.5)), note: format!("p95 {} over {} requests", view::ms_bound(t.hook_quantile(0.95)), t.hook_requests()) },
        Card { label: "Hook misses", value: t.hook_misses.to_string(), note: format!("{} in the log; last {}", s.hook_misses, s.last_hook_miss.as_deref().map_or("never".into(), view::time)) },
    ];
    let said_chart = svg::bars("Lessons said per day", &xs, &[Series { name: "lessons said".into(), class: "s-said", values: series(&o.days, |d| Some(d.said as f64)) }], false);
    let outcomes_chart = svg::bars(
        "What became of the lessons said, per day",
        &xs,
        &[
            Series { name: "followed".into(), class: "s-followed", values: series(&o.days, |d| Some(d.followed as f64)) },
            Series { name: "ignored".into(), class: "s-ignored", values: series(&o.days, |d| Some(d.ignored as f64)) },
            Series { name: "contradicted".into(), class: "s-contradicted", values: series(&o.days, |d| Some(d.contradicted as f64)) },
            Series { name: "unknown".into(), class: "s-unknown", values: series(&o.days, |d| Some(d.unknown as f64)) },
        ],
        true,
    );
    let rates_chart = svg::lines(
        "Hit and followed rates per day",
        &xs,
        &[
            Series { name: "hit rate".into(), class: "s-hit", values: series(&o.days, |d| d.hit_rate()) },
            Series { name: "followed rate".into(), class: "s-followed", values: series(&o.days, |d| d.followed_rate()) },
        ],
        Some(1.0),
        &|v| format!("{:.0}%", v * 100.0),
    );
    let bound = |v: Option<f64>| v.map(|v| if v.is_infinite() { 2000.0 } else { v });
    let hook_chart = svg::lines(
        "The daemon's time per hook request, per day (bucket bounds)",
        &xs,
        &[
            Series { name: "median".into(), class: "s-median", values: series(&o.days, |d| bound(d.hook_quantile(0.5))) },
            Series { name: "p95".into(), class: "s-p95", values: series(&o.days, |d| bound(d.hook_quantile(0.95))) },
        ],
        None,
        &|v| format!("{v} ms"),
    );
    let index = if s.index.loaded {
        format!("{} of {} memories indexed, {} pending{}", s.index.indexed, s.index.memories, s.index.pending, if s.index.unsaved { ", changes not saved yet" } else { "" })
    } else {
        "not loaded (search and advice use keywords meanwhile)".to_string()
    };
    let model = match &s.model_info {
        Some(m) => format!("{} ({}, {} dimensions)", s.model, m.name, m.dimension),
        None => s.model.clone(),
    };
    let job = s.job.as_ref().filter(|j| !j.finished).map(|j| format!("{}: {} ({} of {})", j.kind, j.phase, j.done, j.total));
    let mut projects = vec![Opt { value: String::new(), label: "All projects".into(), selected: o.project.is_none() }];
    projects.extend(o.projects.iter().map(|p| Opt { value: p.clone(), label: view::project(p), selected: o.project.as_deref() == Some(p) }));
    let ranges = RANGES.iter().map(|d| Opt { value: d.to_string(), label: format!("{d} days"), selected: *d == range }).collect();
    let rows = o.days.iter().rev().filter(|d| d.events + d.said + d.used + d.missed + d.not_relevant + d.not_useful + d.hook_misses > 0).map(|d| DayRow {
        day: d.day.clone(),
        events: d.events,
        said: d.said,
        followed: d.followed,
        ignored: d.ignored,
        contradicted: d.contradicted,
        unknown: d.unknown,
        used: d.used,
        missed: d.missed,
        not_relevant: d.not_relevant,
        hit: view::pct(d.hit_rate()),
        hook: view::ms_bound(d.hook_quantile(0.5)),
        misses: d.hook_misses,
    }).collect::<Vec<_>>();
    let page = Page {
        layout: Layout::new("Overview", "/"),
        projects,
        ranges,
        scope: o.project.as_deref().map_or("every project".into(), |p| format!("{} (and global lessons)", view::project(p))),
        cards,
        has_activity: t.events > 0 || t.used + t.missed + t.not_relevant + t.not_useful + t.hook_misses > 0,
        said_chart,
        outcomes_chart,
        rates_chart,
        hook_chart,
        by_project: svg::hbars("Memories by project", &counts(&o.by_project)),
        by_category: svg::hbars("Memories by category", &counts(&o.by_category)),
        by_source: svg::hbars("Memories by source", &counts(&o.by_source)),
        by_tier: svg::hbars("Memories by tier", &counts(&o.by_tier)),
        model,
        index,
        job,
        store_failure: s.store_failure.clone(),
        generated_at: view::time(&o.generated_at),
        rows,
    };
    Ok(page.render()?)
}

pub async fn page(State(app): State<Arc<App>>, Query(p): Query<Params>) -> Result<Html<String>, PageError> {
    let days = match view::given(&p.days) {
        Some(d) => d.parse::<u32>().map_err(|_| PageError::Invalid(format!("days {d:?} is not a number of days")))?,
        None => 30,
    };
    let q = OverviewQuery { project: view::given(&p.project), days };
    let o = crate::ask!(app, overview(q.clone()))?;
    Ok(Html(render(&o, days)?))
}
