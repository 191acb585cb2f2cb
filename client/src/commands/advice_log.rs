//! `log` (the advice given, with its reasons and what became of each tool call), `mute` /
//! `unmute`, and `seed` (the seed pack).

use cairn_proto::{LogQuery, SeedAction};

use super::{client, ctx, print_json, scope, Failure};
use crate::cli::ProjectArgs;

pub async fn log(session: Option<String>, last: u32, json: bool, all: bool, args: ProjectArgs) -> Result<(), Failure> {
    let c = client().await?;
    let entries = c.log(ctx(), LogQuery { session, last, scope: scope(&args), all }).await??;
    // The counts of the projects shown: `--all` every one's.
    let capture = c.review(ctx(), cairn_proto::ReviewQuery { scope: scope(&args), all }).await??.counts;
    if json {
        print_json(&serde_json::json!({ "entries": entries, "capture": capture }));
        return Ok(());
    }
    if entries.is_empty() {
        outln!("no advice given yet");
    }
    for e in &entries {
        let tool = match (&e.tool_name, &e.tool_use_id) {
            (Some(t), Some(id)) => format!(" {t} ({id})"),
            (Some(t), None) => format!(" {t}"),
            _ => String::new(),
        };
        let outcome = e.outcome.as_deref().map(|o| format!(" -> {o}")).unwrap_or_default();
        outln!("{}  session {}  {}{tool}{outcome}", e.at, e.session_id, e.event);
        if let Some(intent) = e.intent.as_deref().filter(|i| !i.is_empty()) {
            outln!("  intent: {intent}");
        }
        if let Some(d) = &e.decision {
            outln!("  interrupt: {d}");
        }
        for item in &e.items {
            outln!("  [{}] {} (score {:.2}): {}", item.category, item.id, item.score, item.text);
            outln!("    why: {}", item.why);
            if let Some(o) = e.outcomes.iter().find(|o| o.memory == item.id) {
                let when = if o.settled { "" } else { " (so far)" };
                outln!("    outcome: {}{when}: {}", o.verdict, o.evidence);
            }
        }
    }
    outln!("captured lessons: {} candidate(s) waiting (`cairn review`), {} promoted, {} rejected", capture.candidates, capture.promoted, capture.rejected);
    Ok(())
}

pub async fn mute(id: String, muted: bool) -> Result<(), Failure> {
    let m = client().await?.mute(ctx(), id, muted).await??;
    if muted {
        outln!("muted {}: kept out of advice (still listed, searchable and exported); `cairn unmute {}` lets it back", m.id, m.id);
    } else {
        outln!("unmuted {}", m.id);
    }
    Ok(())
}

pub async fn seed(list: bool, enable: Option<Option<String>>, disable: Option<Option<String>>, json: bool) -> Result<(), Failure> {
    let action = match (enable, disable) {
        (Some(id), None) => SeedAction::Enable(id),
        (None, Some(id)) => SeedAction::Disable(id),
        (None, None) if list => SeedAction::List,
        (None, None) => return Err(Failure::new(2, "say what to do: --list, --enable [ID] or --disable [ID]")),
        (Some(_), Some(_)) => return Err(Failure::new(2, "--enable and --disable together")),
    };
    let changed = !matches!(action, SeedAction::List);
    let report = client().await?.seeds(ctx(), action).await??;
    if json {
        print_json(&report);
        return Ok(());
    }
    for note in &report.notes {
        outln!("{note}");
    }
    if changed && !list {
        return Ok(());
    }
    outln!("seed pack: {} ({} seeds)", if report.pack_enabled { "on" } else { "off" }, report.seeds.len());
    for s in &report.seeds {
        let cut = s.text.chars().count() > 90;
        let text: String = s.text.chars().take(90).collect();
        outln!("{:<11} {:<28} [{}, {}]{}  {text}{}", s.state, s.id, s.category, s.priority, if s.triggers { ", triggers" } else { "" }, if cut { "..." } else { "" });
    }
    Ok(())
}
