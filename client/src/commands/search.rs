//! `search` (hybrid retrieval, with each result's evidence) and `reindex` (rebuild the semantic
//! index, with progress polled from the daemon's job).

use std::io::IsTerminal;
use std::time::Duration;

use cairn_proto::{JobProgress, SearchRequest};

use super::{client, ctx, print_json, scope, Failure};
use crate::cli::ProjectArgs;

pub async fn search(text: Vec<String>, k: Option<u32>, json: bool, args: ProjectArgs) -> Result<(), Failure> {
    let text = text.join(" ");
    if text.trim().is_empty() {
        return Err(Failure::new(2, "give a text to search for"));
    }
    let found = client().await?.search(ctx(), SearchRequest { text, scope: scope(&args), k, browse: false }).await??;
    if json {
        print_json(&found);
        return Ok(());
    }
    if found.mode != "hybrid" {
        errln!("(keywords only: the embedding model is not loaded; see `cairn status`)");
    }
    if found.results.is_empty() {
        outln!("no memory matches: none shares a word with the query{}", if found.mode == "hybrid" { " or comes close to it in meaning" } else { "" });
    }
    for (i, r) in found.results.iter().enumerate() {
        let similarity = r.similarity.map_or_else(|| "-".to_string(), |s| format!("{s:.2}"));
        outln!("{:>2}. [{}] {} ({})  score {:.2}  similarity {similarity}  bm25 {:.2}", i + 1, r.category, r.id, r.project, r.score, r.bm25);
        outln!("    {}", r.text);
        outln!("    why: {}", r.why);
    }
    Ok(())
}

fn line(p: &JobProgress) -> String {
    format!("{}: {} {}/{}", p.kind, p.phase, p.done, p.total)
}

pub async fn reindex() -> Result<(), Failure> {
    let c = client().await?;
    let mut progress = c.reindex(ctx()).await??;
    let tty = std::io::stderr().is_terminal();
    let mut last = String::new();
    while !progress.finished {
        let now = line(&progress);
        if now != last {
            if tty {
                err!("\r\x1b[2K{now}");
            } else {
                errln!("{now}");
            }
            last = now;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        progress = c.job(ctx(), Some(progress.id)).await?.ok_or_else(|| Failure::new(1, "the reindex job vanished (did cairnd restart?)"))?;
    }
    if tty {
        errln!();
    }
    match progress.error {
        Some(e) => Err(Failure::new(1, format!("reindex failed: {e}"))),
        None => {
            outln!("reindexed {} memories in {:.1}s", progress.total, progress.elapsed_ms as f64 / 1000.0);
            Ok(())
        }
    }
}
