//! A lesson's page: its text and record, its worth and node weight over time (from the graph's
//! adjustment log), its situations and edges drawn as a small graph, its causal chain, its
//! adjustment log and where it was said. Its buttons are the only writes the dashboard makes:
//! used / not relevant at a moment it was said, not useful, mute; each a POST with the CSRF
//! token, answered with a redirect back here that says what changed.

use std::sync::Arc;

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use axum::response::{Html, Redirect};
use axum::Form;
use cairn_proto::{AdvicePageQuery, FeedbackRequest, FeedbackVerb, GraphLogQuery, GraphView};
use serde::Deserialize;
use serde_json::Value;

use crate::app::{App, PageError};
use crate::svg::{self, Node, Series};
use crate::view::{self, Layout};

/// Adjustment-log lines read for a lesson (its history is drawn from them).
const HISTORY: u32 = 500;

#[derive(Deserialize, Default)]
pub struct Params {
    done: Option<String>,
}

pub struct Fact {
    pub name: &'static str,
    pub value: String,
}

pub struct Moment {
    pub at: String,
    pub event: String,
    pub intent: String,
    pub verdict: String,
    pub session: String,
    pub tool_use_id: String,
}

pub struct Link {
    pub kind: String,
    pub direction: &'static str,
    pub other: String,
    pub href: Option<String>,
    pub strength: String,
}

pub struct Adjust {
    pub at: String,
    pub what: String,
    pub change: String,
    pub source: String,
    pub reason: String,
}

pub struct ChainRow {
    pub indent: String,
    pub text: String,
    pub href: Option<String>,
    pub kind: String,
}

#[derive(Template)]
#[template(path = "lesson.html")]
pub struct Page {
    layout: Layout,
    action: String,
    text: String,
    context: String,
    facts: Vec<Fact>,
    muted: bool,
    csrf: String,
    done: Option<String>,
    history: Option<String>,
    graph: Option<String>,
    links: Vec<Link>,
    chain: Vec<ChainRow>,
    chain_notes: Vec<String>,
    adjustments: Vec<Adjust>,
    moments: Vec<Moment>,
    moments_href: String,
}

/// The worth and node weight after each change, oldest first, from the log's lines (newest
/// first) about this lesson's node.
fn history(id: &str, lines: &[Value]) -> Vec<(String, Option<f64>, Option<f64>)> {
    let mut points = Vec::new();
    let (mut worth, mut weight) = (None, None);
    for l in lines.iter().rev().filter(|l| l["node"].as_str() == Some(id)) {
        let (at, new) = (l["at"].as_str().unwrap_or_default(), l["new"].as_f64());
        match l["field"].as_str() {
            Some("effectiveness") => worth = new.or(worth),
            Some("node_weight") => weight = new.or(weight),
            _ => continue,
        }
        points.push((view::time(at), worth, weight));
    }
    points
}

fn adjustment(l: &Value) -> Adjust {
    let what = if l["edge"].is_array() { format!("edge {}", cairn_proto::adjustment_what(l)) } else { cairn_proto::adjustment_what(l) };
    let old = l["old"].as_f64().map_or("new".to_string(), |o| format!("{o:.3}"));
    Adjust {
        at: view::time(l["at"].as_str().unwrap_or_default()),
        what,
        change: format!("{old} → {:.3}", l["new"].as_f64().unwrap_or_default()),
        source: l["source"].as_str().unwrap_or_default().to_string(),
        reason: l["reason"].as_str().unwrap_or_default().to_string(),
    }
}

fn neighbours(g: &GraphView) -> (Vec<Link>, Vec<Node>) {
    let mut links = Vec::new();
    let mut nodes = Vec::new();
    let href = |id: &str| (!id.starts_with(cairn_proto::SITUATION_PREFIX)).then(|| format!("/lesson/{}", view::segment(id)));
    for e in &g.out {
        links.push(Link { kind: e.kind.as_str().into(), direction: "to", other: e.target.clone(), href: href(&e.target), strength: format!("{:.2}", e.strength) });
        nodes.push(Node { label: e.target.clone(), kind: e.kind.as_str().into(), strength: e.strength, incoming: false, href: href(&e.target) });
    }
    for (e, s) in &g.into {
        let label = s.as_ref().map_or(e.source.clone(), |s| format!("{} ({})", s.text, s.tool.as_deref().unwrap_or(&s.event)));
        links.push(Link { kind: e.kind.as_str().into(), direction: "from", other: label.clone(), href: href(&e.source), strength: format!("{:.2}", e.strength) });
        nodes.push(Node { label, kind: e.kind.as_str().into(), strength: e.strength, incoming: true, href: href(&e.source) });
    }
    (links, nodes)
}

pub async fn page(State(app): State<Arc<App>>, Path(id): Path<String>, Query(p): Query<Params>) -> Result<Html<String>, PageError> {
    let g = crate::ask!(app, graph_show(id.clone()))?;
    let chain = crate::ask!(app, chain(id.clone()))?;
    let lines = crate::ask!(app, graph_log(GraphLogQuery { memory: Some(id.clone()), limit: HISTORY }))?;
    let said = crate::ask!(app, advice_page(AdvicePageQuery { lesson: Some(id.clone()), limit: 10, ..Default::default() }))?;
    let m = &g.memory;
    let tier = m.now.tier.map(|t| format!("{t:?}").to_lowercase()).unwrap_or_else(|| "–".into());
    let mut facts = vec![
        Fact { name: "Id", value: m.id.clone() },
        Fact { name: "Project", value: m.project.clone() },
        Fact { name: "Category", value: m.category.clone() },
        Fact { name: "Source", value: m.source.clone() },
        Fact { name: "Worth", value: format!("{:.2} ({} helpful, {} unhelpful, {} ignored, said {} times)", m.worth.effectiveness, m.worth.helpful, m.worth.unhelpful, m.worth.ignored, m.worth.times_surfaced) },
        Fact { name: "Node weight", value: format!("{:.2}", m.node_weight) },
        Fact { name: "Tier", value: format!("{tier} (last access {}, {} accesses)", m.now.last_accessed.as_deref().map_or("never".into(), view::time), m.now.access_count) },
        Fact { name: "Created", value: view::time(&m.created_at) },
        Fact { name: "Updated", value: view::time(&m.updated_at) },
    ];
    if !m.tags.is_empty() {
        facts.push(Fact { name: "Tags", value: m.tags.join(", ") });
    }
    if !m.examples.is_empty() {
        facts.push(Fact { name: "Example moments", value: m.examples.join(" · ") });
    }
    if !m.not_examples.is_empty() {
        facts.push(Fact { name: "Near misses", value: m.not_examples.join(" · ") });
    }
    if let Some(a) = &m.why.action_type {
        facts.push(Fact { name: "Action type", value: a.clone() });
    }
    if let Some(r) = &m.why.rationale {
        facts.push(Fact { name: "Rationale", value: r.clone() });
    }
    if m.is_candidate() {
        facts.push(Fact { name: "Status", value: "a captured candidate: it does not speak until promoted (see Review)".into() });
    }
    let points = history(&m.id, &lines);
    let history = (!points.is_empty()).then(|| {
        let xs: Vec<String> = points.iter().map(|p| p.0.clone()).collect();
        svg::lines(
            "Worth and node weight after each change",
            &xs,
            &[Series { name: "worth".into(), class: "s-hit", values: points.iter().map(|p| p.1).collect() }, Series { name: "node weight".into(), class: "s-median", values: points.iter().map(|p| p.2).collect() }],
            Some(1.0),
            &|v| format!("{v:.2}"),
        )
    });
    let (links, nodes) = neighbours(&g);
    let graph = (!nodes.is_empty()).then(|| svg::graph("This lesson's edges", &m.text, &nodes));
    let chain_rows = chain
        .chain
        .iter()
        .map(|c| ChainRow { indent: "— ".repeat(c.depth), text: c.text.clone(), href: (c.kind == "memory").then(|| format!("/lesson/{}", view::segment(&c.id))), kind: c.kind.clone() })
        .collect();
    let moments = said
        .rows
        .iter()
        .map(|r| {
            let e = &r.entry;
            let verdict = e.outcomes.iter().find(|o| o.memory == m.id).map_or("no outcome yet".into(), |o| o.verdict.clone());
            Moment {
                at: view::time(&e.at),
                event: format!("{}{}", e.event, e.tool_name.as_deref().map(|t| format!(" · {t}")).unwrap_or_default()),
                intent: e.intent.clone().unwrap_or_default(),
                verdict,
                session: e.session_id.clone(),
                tool_use_id: e.tool_use_id.clone().unwrap_or_default(),
            }
        })
        .collect();
    let page = Page {
        layout: Layout::new("Lesson", "/lessons"),
        action: format!("/lesson/{}", view::segment(&m.id)),
        text: m.text.clone(),
        context: m.context.clone(),
        facts,
        muted: g.muted,
        csrf: app.secrets.csrf.clone(),
        done: view::given(&p.done),
        history,
        graph,
        links,
        chain: chain_rows,
        chain_notes: chain.notes.clone(),
        adjustments: lines.iter().take(50).map(adjustment).collect(),
        moments,
        moments_href: format!("/advice{}", view::query(&[("lesson", Some(&m.id))])),
    };
    Ok(Html(page.render()?))
}

#[derive(Deserialize)]
pub struct FeedbackForm {
    csrf: String,
    verb: String,
    session: Option<String>,
    tool_use_id: Option<String>,
}

pub async fn feedback(State(app): State<Arc<App>>, Path(id): Path<String>, headers: HeaderMap, Form(f): Form<FeedbackForm>) -> Result<Redirect, PageError> {
    crate::auth::check_write(&app, &headers, &f.csrf)?;
    let verb = match f.verb.as_str() {
        "used" => FeedbackVerb::Used,
        "not-relevant" => FeedbackVerb::NotRelevant,
        "not-useful" => FeedbackVerb::NotUseful,
        other => return Err(PageError::Invalid(format!("{other:?} is not a feedback verb (used, not-relevant, not-useful)"))),
    };
    let (session, tool_use_id) = (view::given(&f.session), view::given(&f.tool_use_id));
    // A moment is a tool call of a session: without both, the daemon would pick the session's
    // newest moment, which may not be the one the button stood beside.
    if verb != FeedbackVerb::NotUseful && (session.is_none() || tool_use_id.is_none()) {
        return Err(PageError::Invalid(format!("{} needs the tool call it is about: use the buttons beside a moment the lesson was said", verb.as_str())));
    }
    let req = FeedbackRequest { verb, memory: id.clone(), session, tool_use_id, scope: Default::default() };
    let report = crate::tell!(app, feedback(req.clone()))?;
    let done = format!("{}: {}", verb.as_str(), if report.changes.is_empty() { "nothing changed".to_string() } else { report.changes.join("; ") });
    Ok(Redirect::to(&format!("/lesson/{}{}", view::segment(&id), view::query(&[("done", Some(&done))]))))
}

#[derive(Deserialize)]
pub struct MuteForm {
    csrf: String,
    muted: String,
}

pub async fn mute(State(app): State<Arc<App>>, Path(id): Path<String>, headers: HeaderMap, Form(f): Form<MuteForm>) -> Result<Redirect, PageError> {
    crate::auth::check_write(&app, &headers, &f.csrf)?;
    let muted = match f.muted.as_str() {
        "1" | "true" => true,
        "0" | "false" => false,
        other => return Err(PageError::Invalid(format!("muted {other:?} is not 1 or 0"))),
    };
    crate::tell!(app, mute(id.clone(), muted))?;
    let done = if muted { "muted: it is kept out of advice" } else { "unmuted: it may be said again" };
    Ok(Redirect::to(&format!("/lesson/{}{}", view::segment(&id), view::query(&[("done", Some(done))]))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_follows_the_node_lines_oldest_first() {
        let lines = vec![
            serde_json::json!({"at": "2026-01-03T00:00:00.000Z", "node": "m", "field": "node_weight", "old": 1.0, "new": 0.9}),
            serde_json::json!({"at": "2026-01-02T00:00:00.000Z", "edge": ["s", "m", "applies"], "old": null, "new": 0.6}),
            serde_json::json!({"at": "2026-01-01T00:00:00.000Z", "node": "m", "field": "effectiveness", "old": 0.5, "new": 0.667}),
        ];
        let h = history("m", &lines);
        assert_eq!(h.len(), 2);
        assert_eq!(h[0].1, Some(0.667));
        assert_eq!(h[1], ("2026-01-03 00:00:00".into(), Some(0.667), Some(0.9)));
        assert_eq!(adjustment(&lines[1]).what, "edge s -[applies]-> m");
    }
}
