//! `advise`: the advice the hook would give for a text or a hook payload, and why.

use std::path::PathBuf;

use cairn_proto::AdviseRequest;

use super::{client, ctx, print_json, scope, Failure};
use crate::cli::ProjectArgs;

#[allow(clippy::too_many_arguments)]
pub async fn advise(text: Vec<String>, hook_input: Option<PathBuf>, json: bool, limit: Option<u32>, session: Option<String>, explain: bool, args: ProjectArgs) -> Result<(), Failure> {
    let hook_input = match hook_input {
        Some(path) => {
            let raw = std::fs::read_to_string(&path).map_err(|e| Failure::new(1, format!("cannot read {}: {e}", path.display())))?;
            let value = crate::hook::input::read_first_value(raw.as_bytes())
                .map_err(|e| Failure::new(2, format!("{} is not a JSON hook payload: {e}", path.display())))?
                .ok_or_else(|| Failure::new(2, format!("{} is empty", path.display())))?;
            Some(value)
        }
        None => None,
    };
    let text = (!text.is_empty()).then(|| text.join(" "));
    if text.is_none() && hook_input.is_none() {
        return Err(Failure::new(2, "give a text to advise on, or --hook-input FILE"));
    }
    let advice = client().await?.advise(ctx(), AdviseRequest { text, hook_input, scope: scope(&args), limit, session, explain }).await??;
    if json {
        print_json(&advice);
        return Ok(());
    }
    outln!("intent:   {}", advice.intent);
    outln!("project:  {}", advice.project);
    outln!("salience: {:.2} ({})", advice.salience, advice.salience_reason);
    if advice.paused {
        outln!("project {} is paused: nothing is advised or recorded there (`cairn resume` to advise again)", advice.project);
    } else if advice.advice.is_empty() {
        outln!("no advice worth giving");
    }
    for item in &advice.advice {
        outln!("\n[{}] {} (score {:.2}, {})\n  {}\n  why: {}", item.category, item.id, item.score, item.source, item.text, item.why);
    }
    if explain {
        outln!("\nconsidered and not said: {}", if advice.considered.is_empty() { "nothing" } else { "" });
        for c in &advice.considered {
            outln!("  [{}] {} (score {:.2}): {}\n    {}\n    why: {}", c.category, c.id, c.score, c.verdict.as_deref().unwrap_or(""), c.text, c.why);
        }
    }
    Ok(())
}
