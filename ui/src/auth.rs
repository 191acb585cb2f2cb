//! The dashboard's secrets and the checks on every request: the token (from the URL `cairn ui`
//! printed, then a cookie scoped to this server's port) on every route, 401 with an empty body
//! without it; and on every write, a CSRF token from the page's form and a same-origin check.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::app::{App, PageError};

pub struct Secrets {
    /// What the URL carries; required on every request.
    pub token: String,
    /// What the pages' forms carry; required on every write.
    pub csrf: String,
}

fn random_hex() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

impl Secrets {
    pub fn generate() -> Result<Secrets, getrandom::Error> {
        Ok(Secrets { token: random_hex()?, csrf: random_hex()? })
    }
}

/// Compares two secrets in time that does not depend on where they differ.
pub fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The cookie's name: one per port, so two dashboards (two homes) never share one.
fn cookie_name(port: u16) -> String {
    format!("cairn_ui_{port}")
}

/// A query string's pairs (none when it is absent or does not parse).
fn query_pairs(query: Option<&str>) -> Vec<(String, String)> {
    query.and_then(|q| serde_urlencoded::from_str(q).ok()).unwrap_or_default()
}

/// The value of `key` in a query string, if any.
fn query_value(query: Option<&str>, key: &str) -> Option<String> {
    query_pairs(query).into_iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// The hosts this server answers as (`Host`; an `Origin` is `http://` and one of them).
fn hosts(port: u16) -> [String; 2] {
    [format!("127.0.0.1:{port}"), format!("localhost:{port}")]
}

/// The token in this server's cookie, if any.
fn cookie_token(headers: &HeaderMap, port: u16) -> Option<String> {
    let name = cookie_name(port);
    headers.get_all(header::COOKIE).iter().filter_map(|v| v.to_str().ok()).flat_map(|v| v.split(';')).find_map(|pair| {
        let (k, v) = pair.trim().split_once('=')?;
        (k == name).then(|| v.to_string())
    })
}

/// Every route: the token or nothing. A token in the URL is kept in a cookie so the page's own
/// links and forms need not carry it.
pub async fn require_token(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    // A page of another site that a DNS rebinding points at 127.0.0.1 names its own host.
    if request.headers().get(header::HOST).is_some_and(|h| !hosts(app.port).iter().any(|o| h.as_bytes() == o.as_bytes())) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    // The browser `cairn ui` opens signs in with a one-time code instead of the token.
    if request.uri().path() == "/signin" {
        return signin(&app, request.uri().query());
    }
    let from_query = query_value(request.uri().query(), "token");
    let given = from_query.clone().or_else(|| cookie_token(request.headers(), app.port));
    if !given.is_some_and(|t| same(&t, &app.secrets.token)) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    if from_query.is_some() && request.method() == axum::http::Method::GET {
        // Signed in: the cookie from now on, and the same page without the token in the
        // address bar and the history.
        let rest: Vec<(String, String)> = query_pairs(request.uri().query()).into_iter().filter(|(k, _)| k != "token").collect();
        let query = if rest.is_empty() { String::new() } else { format!("?{}", serde_urlencoded::to_string(rest).unwrap_or_default()) };
        return signed_in(&app, &format!("{}{query}", request.uri().path()));
    }
    next.run(request).await
}

/// A redirect to `to` (a path of this server) carrying the session cookie.
fn signed_in(app: &App, to: &str) -> Response {
    let mut response = (StatusCode::SEE_OTHER, [(header::LOCATION, to.to_string())]).into_response();
    let cookie = format!("{}={}; HttpOnly; SameSite=Strict; Path=/", cookie_name(app.port), app.secrets.token);
    if let Ok(v) = HeaderValue::from_str(&cookie) {
        response.headers_mut().append(header::SET_COOKIE, v);
    }
    response
}

/// `/signin?code=...`: a code `cairn ui` left beside the socket, good once and briefly.
fn signin(app: &App, query: Option<&str>) -> Response {
    let code = query_value(query, "code");
    let Some(code) = code.filter(|c| cairn_proto::ui::is_signin_code(c)) else {
        return StatusCode::UNAUTHORIZED.into_response();
    };
    let file = app.signin_file(&code);
    // Taken at once, whatever follows: a code is good for one sign-in.
    let fresh = std::fs::symlink_metadata(&file)
        .ok()
        .filter(|m| m.is_file())
        .and_then(|m| m.modified().ok())
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age.as_secs() <= cairn_proto::ui::SIGNIN_SECONDS);
    if std::fs::remove_file(&file).is_err() || !fresh {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    signed_in(app, "/")
}

/// A write's checks: the form's CSRF token, and where the request says it comes from (a
/// browser sends `Origin` and `Sec-Fetch-Site` on a POST; another site's page cannot forge them).
pub fn check_write(app: &App, headers: &HeaderMap, csrf: &str) -> Result<(), PageError> {
    if !same(csrf, &app.secrets.csrf) {
        return Err(PageError::Forbidden);
    }
    let ours = hosts(app.port).map(|h| format!("http://{h}"));
    if headers.get(header::ORIGIN).is_some_and(|origin| !ours.iter().any(|o| origin.as_bytes() == o.as_bytes())) {
        return Err(PageError::Forbidden);
    }
    if headers.get("sec-fetch-site").is_some_and(|site| !matches!(site.as_bytes(), b"same-origin" | b"none")) {
        return Err(PageError::Forbidden);
    }
    Ok(())
}

/// Headers every answer carries: no framing, no sniffing, nothing loaded from elsewhere.
pub async fn harden(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"),
    );
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_compare_whole_and_come_from_query_or_cookie() {
        assert!(same("abc", "abc"));
        assert!(!same("abc", "abd") && !same("abc", "ab") && !same("", "a"));
        assert_eq!(query_value(Some("a=1&token=xyz"), "token"), Some("xyz".into()));
        assert_eq!(query_value(Some("a=1"), "token"), None);
        assert_eq!(query_value(None, "token"), None);
        let mut h = HeaderMap::new();
        h.insert(header::COOKIE, HeaderValue::from_static("x=1; cairn_ui_8080=tok; cairn_ui_9090=other"));
        assert_eq!(cookie_token(&h, 8080), Some("tok".into()));
        assert_eq!(cookie_token(&h, 7070), None);
        let s = Secrets::generate().unwrap();
        assert_eq!(s.token.len(), 64);
        assert_ne!(s.token, s.csrf);
    }
}
