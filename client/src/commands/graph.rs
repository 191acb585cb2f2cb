//! `feedback used|not-relevant|not-useful` and `graph link|show|log`: teaching cairn where a
//! lesson applies, and looking at what it learned.

use cairn_proto::{FeedbackReport, FeedbackRequest, FeedbackVerb, GraphLink, GraphLogQuery};

use super::{client, ctx, print_json, scope, Failure};
use crate::cli::MomentArgs;

fn report(r: &FeedbackReport, json: bool) {
    if json {
        print_json(r);
        return;
    }
    if let Some(m) = &r.moment {
        outln!("moment: {m}");
        outln!("{} was {}said there", r.memory, if r.said_there { "" } else { "not " });
    }
    if let Some(s) = &r.situation {
        outln!("situation: {s}");
    }
    for c in &r.changes {
        outln!("  {c}");
    }
    if let Some(note) = &r.note {
        outln!("{note}");
    }
}

pub async fn feedback(verb: FeedbackVerb, m: MomentArgs) -> Result<(), Failure> {
    let request = FeedbackRequest { verb, memory: m.memory, session: m.session, tool_use_id: m.tool_use_id, scope: scope(&m.scope) };
    let r = client().await?.feedback(ctx(), request).await??;
    report(&r, m.json);
    Ok(())
}

pub async fn not_useful(memory: String, json: bool) -> Result<(), Failure> {
    let request = FeedbackRequest { verb: FeedbackVerb::NotUseful, memory, session: None, tool_use_id: None, scope: Default::default() };
    let r = client().await?.feedback(ctx(), request).await??;
    report(&r, json);
    Ok(())
}

pub async fn link(source: String, target: String, strength: f64, kind: Option<String>) -> Result<(), Failure> {
    let lines = client().await?.graph_link(ctx(), GraphLink { source, target, strength, kind }).await??;
    for l in lines {
        outln!("{l}");
    }
    Ok(())
}

pub async fn show(memory: String, json: bool) -> Result<(), Failure> {
    let v = client().await?.graph_show(ctx(), memory).await??;
    if json {
        print_json(&v);
        return Ok(());
    }
    let m = &v.memory;
    outln!("{}", m.one_line());
    outln!("node weight {:.2}; effectiveness {:.2} ({} helpful, {} unhelpful)", m.node_weight, m.worth.effectiveness, m.worth.helpful, m.worth.unhelpful);
    if v.out.is_empty() && v.into.is_empty() {
        outln!("no edges yet: `cairn feedback used|not-relevant {}` after a moment teaches it where it applies", m.id);
    }
    for e in &v.out {
        outln!("  -> {} [{}] {:.4}", e.target, e.kind.as_str(), e.strength);
    }
    for (e, s) in &v.into {
        match s {
            Some(s) => {
                let side = if e.strength > 0.5 { "applies" } else if e.strength < 0.5 { "does not apply" } else { "neutral" };
                outln!("  <- {} [{}] {:.4} ({side}; seen {}x, last {}): {}", e.source, e.kind.as_str(), e.strength, s.seen, s.last_seen, s.text);
            }
            None => outln!("  <- {} [{}] {:.4}", e.source, e.kind.as_str(), e.strength),
        }
    }
    Ok(())
}

pub async fn log(memory: Option<String>, last: u32, json: bool) -> Result<(), Failure> {
    let lines = client().await?.graph_log(ctx(), GraphLogQuery { memory, limit: last }).await??;
    if lines.is_empty() && !json {
        outln!("no changes to the graph yet");
    }
    for l in lines.iter().rev() {
        if json {
            outln!("{l}");
        } else {
            let what = cairn_proto::adjustment_what(l);
            let old = l["old"].as_f64().map_or("new".to_string(), |o| format!("{o:.4}"));
            // The change itself too: an automatic step (0.00001) is invisible at four places.
            let delta = l["delta"].as_f64().map_or(String::new(), |d| format!(" ({d:+.5})"));
            outln!("{}  {}  {what}: {old} -> {:.4}{delta}  ({})", l["at"].as_str().unwrap_or(""), l["source"].as_str().unwrap_or(""), l["new"].as_f64().unwrap_or(0.0), l["reason"].as_str().unwrap_or(""));
        }
    }
    Ok(())
}
