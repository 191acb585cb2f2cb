//! The routes: one page per path, the writes a lesson's page and the review page make, the
//! bundled stylesheet; the token checked on all of them and hardening headers on every answer.

use std::sync::Arc;

use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::{middleware, Router};

use crate::app::{App, PageError};
use crate::pages;

/// The stylesheet, bundled into the binary: nothing is fetched from anywhere else.
const STYLE: &str = include_str!("../assets/style.css");

async fn style() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], STYLE)
}

async fn not_found() -> impl IntoResponse {
    PageError::NotFound("no such page".into()).into_response()
}

async fn method_not_allowed() -> impl IntoResponse {
    (StatusCode::METHOD_NOT_ALLOWED, "").into_response()
}

pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(pages::overview::page))
        .route("/advice", get(pages::advice::page))
        .route("/lessons", get(pages::lessons::page))
        .route("/lesson/{id}", get(pages::lesson::page))
        .route("/lesson/{id}/feedback", post(pages::lesson::feedback))
        .route("/lesson/{id}/mute", post(pages::lesson::mute))
        .route("/review", get(pages::review::page))
        .route("/review/{id}", post(pages::review::act))
        .route("/learning", get(pages::learning::page))
        .route("/static/style.css", get(style))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn_with_state(app.clone(), crate::auth::require_token))
        .layer(middleware::from_fn(crate::auth::harden))
        .with_state(app)
}
