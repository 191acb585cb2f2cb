//! Review: the lessons cairn captured itself and that still earn their voice, with their
//! evidence, shadow record and quality; accept, reject or edit each (POST with the CSRF token).

use std::sync::Arc;

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use axum::response::{Html, Redirect};
use axum::Form;
use cairn_proto::{ReviewAction, ReviewQuery};
use serde::Deserialize;

use crate::app::{App, PageError};
use crate::view::{self, Layout};

#[derive(Deserialize, Default)]
pub struct Params {
    done: Option<String>,
}

pub struct Candidate {
    pub id: String,
    pub action: String,
    pub href: String,
    pub text: String,
    pub project: String,
    pub source: String,
    pub created: String,
    pub evidence: Vec<String>,
    pub shadow: String,
    pub moments: Vec<String>,
    pub quality: String,
    pub reasons: Vec<String>,
}

#[derive(Template)]
#[template(path = "review.html")]
pub struct Page {
    layout: Layout,
    csrf: String,
    done: Option<String>,
    candidates: Vec<Candidate>,
}

pub async fn page(State(app): State<Arc<App>>, Query(p): Query<Params>) -> Result<Html<String>, PageError> {
    let list = crate::ask!(app, review(ReviewQuery { all: true, ..Default::default() }))?;
    let candidates = list
        .candidates
        .into_iter()
        .map(|c| Candidate {
            action: format!("/review/{}", view::segment(&c.id)),
            href: format!("/lesson/{}", view::segment(&c.id)),
            shadow: format!("would have spoken {} times; {} confirmed, {} shown wrong; promoted at {} confirmed", c.shadow.would_have_spoken, c.shadow.confirmed, c.shadow.shown_wrong, c.shadow.promotes_at),
            moments: c.shadow.moments,
            quality: format!(
                "{} ({:.2}): actionability {:.2}, specificity {:.2}, reasoning {:.2}, novelty {:.2}, outcome link {:.2}",
                c.quality.verdict, c.quality.score, c.quality.actionability, c.quality.specificity, c.quality.reasoning, c.quality.novelty, c.quality.outcome_linked
            ),
            reasons: c.quality.reasons,
            project: view::project(&c.project),
            created: view::time(&c.created_at),
            id: c.id,
            text: c.text,
            source: c.source,
            evidence: c.evidence,
        })
        .collect();
    let page = Page { layout: Layout::new("Review", "/review"), csrf: app.secrets.csrf.clone(), done: view::given(&p.done), candidates };
    Ok(Html(page.render()?))
}

#[derive(Deserialize)]
pub struct ActForm {
    csrf: String,
    action: String,
    text: Option<String>,
}

pub async fn act(State(app): State<Arc<App>>, Path(id): Path<String>, headers: HeaderMap, Form(f): Form<ActForm>) -> Result<Redirect, PageError> {
    crate::auth::check_write(&app, &headers, &f.csrf)?;
    let action = match f.action.as_str() {
        "accept" => ReviewAction::Accept { id },
        "reject" => ReviewAction::Reject { id },
        "edit" => match view::given(&f.text) {
            Some(text) => ReviewAction::Edit { id, text },
            None => return Err(PageError::Invalid("an edit needs the new text".into())),
        },
        other => return Err(PageError::Invalid(format!("{other:?} is not accept, reject or edit"))),
    };
    let outcome = crate::tell!(app, review_act(action.clone()))?;
    Ok(Redirect::to(&format!("/review{}", view::query(&[("done", Some(&outcome.message))]))))
}
