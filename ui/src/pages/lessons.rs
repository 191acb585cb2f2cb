//! Lessons: every memory a page at a time, of one project or all, or the best matches of a
//! search (cairn's own hybrid search), each linking to its page.

use std::sync::Arc;

use askama::Template;
use axum::extract::{Query, State};
use axum::response::Html;
use cairn_proto::{ListQuery, Scope, SearchRequest, GLOBAL_PROJECT};
use serde::Deserialize;

use crate::app::{App, PageError};
use crate::view::{self, Layout};

const PAGE: u32 = 50;

#[derive(Deserialize, Default)]
pub struct Params {
    project: Option<String>,
    q: Option<String>,
    after: Option<String>,
}

pub struct Row {
    pub href: String,
    pub text: String,
    pub project: String,
    pub category: String,
    pub source: String,
    pub extra: String,
}

#[derive(Template)]
#[template(path = "lessons.html")]
pub struct Page {
    layout: Layout,
    project: String,
    q: String,
    rows: Vec<Row>,
    heading: String,
    next: Option<String>,
}

/// The scope of a project named in the page (`global` is its own).
fn scope(project: Option<&str>) -> Scope {
    match project {
        Some(GLOBAL_PROJECT) => Scope { global: true, ..Default::default() },
        Some(p) => Scope { project: Some(p.to_string()), ..Default::default() },
        None => Scope { global: true, ..Default::default() },
    }
}

pub async fn page(State(app): State<Arc<App>>, Query(p): Query<Params>) -> Result<Html<String>, PageError> {
    let (project, q, after) = (view::given(&p.project), view::given(&p.q), view::given(&p.after));
    let (rows, heading, next) = match &q {
        Some(text) => {
            let req = SearchRequest { text: text.clone(), scope: scope(project.as_deref()), k: Some(PAGE), browse: true };
            let found = crate::ask!(app, search(req.clone()))?;
            let rows = found
                .results
                .iter()
                .map(|h| Row { href: format!("/lesson/{}", view::segment(&h.id)), text: h.text.clone(), project: view::project(&h.project), category: h.category.clone(), source: String::new(), extra: format!("score {:.2}", h.score) })
                .collect::<Vec<_>>();
            let within = project.as_deref().map_or("global lessons (choose a project to search it too)".to_string(), |p| format!("{} and global", view::project(p)));
            (rows, format!("Best matches in {within}"), None)
        }
        None => {
            let req = ListQuery { scope: scope(project.as_deref()), all: project.is_none(), after: after.clone(), limit: PAGE };
            let page = crate::ask!(app, list(req.clone()))?;
            let rows = page
                .items
                .iter()
                .map(|m| Row {
                    href: format!("/lesson/{}", view::segment(&m.id)),
                    text: m.text.clone(),
                    project: view::project(&m.project),
                    category: m.category.clone(),
                    source: m.source.clone(),
                    extra: format!("worth {:.2}", m.worth.effectiveness),
                })
                .collect::<Vec<_>>();
            let next = page.next.as_deref().map(|n| format!("/lessons{}", view::query(&[("project", project.as_deref()), ("after", Some(n))])));
            (rows, project.as_deref().map_or("Every lesson".into(), |p| format!("Lessons of {} and global", view::project(p))), next)
        }
    };
    let page = Page { layout: Layout::new("Lessons", "/lessons"), project: project.unwrap_or_default(), q: q.unwrap_or_default(), rows, heading, next };
    Ok(Html(page.render()?))
}
