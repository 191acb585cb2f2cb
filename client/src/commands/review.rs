//! `review`: the lessons cairn captured itself, waiting for promotion; accept, reject, edit, and
//! `review judge` to see what capture and the quality gate make of a text. `weights`: what
//! cairn learned about how much each signal counts.

use cairn_proto::{JudgeRequest, QualityView, ReviewAction, ReviewQuery, WeightsAction, WeightsQuery};

use super::{client, ctx, print_json, scope, Failure};
use crate::cli::ProjectArgs;

fn quality(q: &QualityView, indent: &str) {
    outln!(
        "{indent}quality: {} (score {:.2}: actionability {:.2}, specificity {:.2}, reasoning {:.2}, novelty {:.2}, outcome link {:.2})",
        q.verdict, q.score, q.actionability, q.specificity, q.reasoning, q.novelty, q.outcome_linked
    );
    for r in &q.reasons {
        outln!("{indent}  {r}");
    }
}

pub async fn list(json: bool, all: bool, args: ProjectArgs) -> Result<(), Failure> {
    let list = client().await?.review(ctx(), ReviewQuery { scope: scope(&args), all }).await??;
    if json {
        print_json(&list);
        return Ok(());
    }
    let elsewhere = match list.elsewhere {
        0 => String::new(),
        n => format!("{n} more in other projects: `cairn review --all` lists them"),
    };
    if list.candidates.is_empty() {
        match elsewhere.is_empty() {
            true => outln!("no candidates: cairn captures lessons from your corrections (\"no, use pnpm here\") and from failed calls it recovered from"),
            false => outln!("no candidates in this project; {elsewhere}"),
        }
        return Ok(());
    }
    for c in &list.candidates {
        outln!("{}  ({}, captured from {} at {})", c.id, c.project, c.source, c.created_at);
        outln!("  {}", c.text);
        let s = &c.shadow;
        let promotes = if s.promotes_at > 0 { format!("promoted at {} confirmed", s.promotes_at) } else { "needs work: promoted only by you".into() };
        outln!("  shadow: would have been said {} time(s), {} confirmed, {} shown wrong; {promotes}", s.would_have_spoken, s.confirmed, s.shown_wrong);
        for m in s.moments.iter().take(5) {
            outln!("    {m}");
        }
        outln!("  evidence:");
        for e in &c.evidence {
            outln!("    {e}");
        }
        quality(&c.quality, "  ");
        outln!("");
    }
    if !elsewhere.is_empty() {
        outln!("{elsewhere}");
    }
    outln!("`cairn review accept|reject|edit ID` to act on one");
    Ok(())
}

pub async fn act(action: ReviewAction, json: bool) -> Result<(), Failure> {
    let r = client().await?.review_act(ctx(), action).await??;
    if json {
        print_json(&r);
    } else {
        outln!("{}", r.message);
        outln!("{}", r.memory.one_line());
    }
    Ok(())
}

pub async fn judge(text: String, prompt: bool, source: Option<String>, json: bool, args: ProjectArgs) -> Result<(), Failure> {
    let j = client().await?.judge(ctx(), JudgeRequest { text, prompt, source, scope: scope(&args) }).await??;
    if json {
        print_json(&j);
        return Ok(());
    }
    if let Some(c) = &j.captured {
        outln!("captured: {c}");
    }
    if let Some(n) = &j.not_captured {
        outln!("not captured: {n}");
    }
    if let Some(q) = &j.quality {
        quality(q, "");
        if let Some(d) = &q.duplicate_of {
            outln!("repeats {d}: that lesson would be strengthened instead");
        }
    }
    outln!("{}", if j.keep { "kept as a candidate" } else { "not kept" });
    Ok(())
}

pub async fn weights(action: WeightsAction, prediction: bool, json: bool, args: ProjectArgs) -> Result<(), Failure> {
    let r = client().await?.weights(ctx(), WeightsQuery { scope: scope(&args), action, prediction }).await??;
    if json {
        print_json(&r);
        return Ok(());
    }
    if !r.message.is_empty() {
        outln!("{}", r.message);
    }
    let state = match (r.learned, r.history.is_empty()) {
        (true, _) => "learned",
        (false, true) => "default (none learned yet)",
        // After a reset: the runs before it are kept, below.
        (false, false) => "default (reset; earlier runs kept)",
    };
    outln!("project {}: {state}; {} samples ({} proved right; {} needed to learn)", r.project, r.samples, r.positives, r.min_samples);
    outln!("  {:<14} {:>8} {:>8}", "signal", "current", "default");
    for w in &r.weights {
        outln!("  {:<14} {:>8.3} {:>8.3}", w.signal, w.current, w.default);
    }
    match &r.last_run {
        Some(at) => outln!("last run {at}; {} run(s) kept", r.history.len()),
        None => outln!("no run yet: runs hourly once there are enough samples (`cairn weights learn` runs one now)"),
    }
    // The history, newest first: when, on how many samples, and the weights it left.
    for run in r.history.iter().rev() {
        let mix: Vec<String> = run.weights.iter().map(|(s, w)| format!("{s} {w:.3}")).collect();
        outln!("  {}  {} samples ({} right): {}", run.at, run.samples, run.positives, mix.join(", "));
    }
    Ok(())
}
