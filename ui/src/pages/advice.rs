//! The advice log: what was said, when, at which event and tool call, why (every signal), and
//! what became of it; filtered by project, session, lesson and outcome, a page at a time.

use std::sync::Arc;

use askama::Template;
use axum::extract::{Query, State};
use axum::response::Html;
use cairn_proto::{AdvicePage, AdvicePageQuery, LogEntry};
use serde::Deserialize;

use crate::app::{App, PageError};
use crate::view::{self, Layout, Opt};

/// Rows per page.
const PAGE: u32 = 50;

#[derive(Deserialize, Default)]
pub struct Params {
    project: Option<String>,
    session: Option<String>,
    lesson: Option<String>,
    outcome: Option<String>,
    before: Option<String>,
}

pub struct Item {
    pub href: String,
    pub id: String,
    pub text: String,
    pub category: String,
    pub score: String,
    pub why: String,
    pub source: String,
    pub path: String,
    pub signals: Vec<(String, String)>,
    pub verdict: String,
    pub evidence: String,
}

pub struct Row {
    pub at: String,
    pub project: String,
    pub project_full: String,
    pub session: String,
    pub session_href: String,
    pub event: String,
    pub tool: String,
    pub tool_use_id: String,
    pub intent: String,
    pub decision: String,
    pub tool_outcome: String,
    pub items: Vec<Item>,
}

#[derive(Template)]
#[template(path = "advice.html")]
pub struct Page {
    layout: Layout,
    project: String,
    session: String,
    lesson: String,
    outcomes: Vec<Opt>,
    rows: Vec<Row>,
    older: Option<String>,
    newest: Option<String>,
    scanned: u64,
    oldest: String,
    filtered: bool,
}

const OUTCOMES: [&str; 6] = ["", "followed", "ignored", "contradicted", "unknown", "none"];

/// A log entry as the page shows it (the lesson links go to the lesson's page).
pub fn row(e: &LogEntry) -> Row {
    let items = e
        .items
        .iter()
        .map(|i| {
            let o = e.outcomes.iter().find(|o| o.memory == i.id);
            Item {
                href: format!("/lesson/{}", view::segment(&i.id)),
                id: i.id.clone(),
                text: i.text.clone(),
                category: i.category.clone(),
                score: format!("{:.2}", i.score),
                why: i.why.clone(),
                source: i.source.clone(),
                path: i.path.join(" → "),
                signals: i.signals.iter().map(|(k, v)| (k.clone(), format!("{v:.3}"))).collect(),
                verdict: o.map_or("no outcome yet".into(), |o| format!("{}{}", o.verdict, if o.settled { "" } else { " (not settled)" })),
                evidence: o.map_or(String::new(), |o| o.evidence.clone()),
            }
        })
        .collect();
    Row {
        at: view::time(&e.at),
        project: view::project(&e.project),
        project_full: e.project.clone(),
        session: e.session_id.chars().take(12).collect(),
        session_href: format!("/advice{}", view::query(&[("session", Some(&e.session_id))])),
        event: e.event.clone(),
        tool: e.tool_name.clone().unwrap_or_default(),
        tool_use_id: e.tool_use_id.clone().unwrap_or_default(),
        intent: e.intent.clone().unwrap_or_default(),
        decision: e.decision.clone().unwrap_or_default(),
        tool_outcome: e.outcome.clone().unwrap_or_default(),
        items,
    }
}

pub fn render(p: &Params, page: &AdvicePage) -> Result<String, PageError> {
    let filters = |before: Option<&str>| {
        view::query(&[("project", p.project.as_deref()), ("session", p.session.as_deref()), ("lesson", p.lesson.as_deref()), ("outcome", p.outcome.as_deref()), ("before", before)])
    };
    let page = Page {
        layout: Layout::new("Advice log", "/advice"),
        project: p.project.clone().unwrap_or_default(),
        session: p.session.clone().unwrap_or_default(),
        lesson: p.lesson.clone().unwrap_or_default(),
        outcomes: OUTCOMES.iter().map(|o| Opt { value: o.to_string(), label: if o.is_empty() { "any".into() } else { o.to_string() }, selected: p.outcome.as_deref().unwrap_or("") == *o }).collect(),
        rows: page.rows.iter().map(|r| row(&r.entry)).collect(),
        older: page.next.as_deref().map(|n| format!("/advice{}", filters(Some(n)))),
        newest: p.before.as_ref().map(|_| format!("/advice{}", filters(None))),
        scanned: page.scanned,
        oldest: page.oldest.as_deref().map(view::time).unwrap_or_default(),
        filtered: [&p.project, &p.session, &p.lesson, &p.outcome].iter().any(|f| f.is_some()),
    };
    Ok(page.render()?)
}

pub async fn page(State(app): State<Arc<App>>, Query(p): Query<Params>) -> Result<Html<String>, PageError> {
    let p = Params { project: view::given(&p.project), session: view::given(&p.session), lesson: view::given(&p.lesson), outcome: view::given(&p.outcome), before: view::given(&p.before) };
    let q = AdvicePageQuery { project: p.project.clone(), session: p.session.clone(), lesson: p.lesson.clone(), outcome: p.outcome.clone(), before: p.before.clone(), limit: PAGE };
    let page = crate::ask!(app, advice_page(q.clone()))?;
    Ok(Html(render(&p, &page)?))
}
