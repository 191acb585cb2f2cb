//! `cairn config show|init`, `cairn pause|resume` and `cairn logs`: settings, the per-project
//! opt-out, and the daemon's log.

use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::MetadataExt;
use std::time::Duration;

use cairn_proto::Paths;

use super::{client, ctx, print_json, scope, Failure};
use crate::cli::ProjectArgs;

pub async fn show(json: bool) -> Result<(), Failure> {
    let report = client().await?.config_show(ctx()).await?;
    if json {
        print_json(&report);
        return Ok(());
    }
    if report.tuneables_state == "ok" {
        outln!("{}: ok", report.tuneables_file);
    } else {
        outln!("{}", report.tuneables_state);
        outln!("  (the last good settings below stay in force until the file is fixed)");
    }
    let width = report.settings.iter().map(|s| s.key.len()).max().unwrap_or(0);
    for s in &report.settings {
        outln!("  {:width$} = {:<8} ({})", s.key, s.value.to_string(), s.source);
    }
    if !report.renamed_keys.is_empty() {
        outln!("  keys to look at (renamed, or an earlier default whose meaning changed): {}", report.renamed_keys.join("; "));
    }
    if !report.unknown_keys.is_empty() {
        outln!("  unknown keys, kept and ignored: {}", report.unknown_keys.join(", "));
    }
    if report.rules_state == "ok" {
        outln!("{}: ok", report.rules_file);
    } else {
        outln!("{}", report.rules_state);
        outln!("  (the last good rules below stay in force until the file is fixed)");
    }
    if report.rules.is_empty() {
        outln!("  no trigger rules from this file");
    }
    for r in &report.rules {
        let kind = if r.learned { "learned" } else { "rule" };
        let interrupt = if r.interrupt { ", interrupts" } else { "" };
        outln!("  {kind} {} ({}{interrupt}): /{}/ -> {}", r.name, r.priority, r.pattern, r.surface.join(", "));
    }
    Ok(())
}

pub async fn init(force: bool) -> Result<(), Failure> {
    for line in client().await?.config_init(ctx(), force).await?? {
        outln!("{line}");
    }
    Ok(())
}

pub async fn pause(args: ProjectArgs, paused: bool) -> Result<(), Failure> {
    if args.global {
        return Err(Failure::new(2, "`global` holds lessons, not events: pause a project (the current one, or --project P), or set CAIRN_DISABLE=1 to silence every hook"));
    }
    let c = client().await?;
    let project = if paused { c.pause(ctx(), scope(&args)).await?? } else { c.resume(ctx(), scope(&args)).await?? };
    if paused {
        outln!("paused {project}: no advice, and nothing recorded, until `cairn resume`");
    } else {
        outln!("resumed {project}");
    }
    Ok(())
}

/// Prints the last `lines` lines of the daemon's log, then follows it (across rotations) if asked.
pub fn logs(lines: usize, follow: bool) -> Result<(), Failure> {
    let paths = Paths::from_env()?;
    let path = paths.logs_dir.join("cairnd.log");
    let mut file = std::fs::File::open(&path).map_err(|e| Failure::new(1, format!("cannot read {}: {e} (has cairnd run with this home?)", path.display())))?;
    let mut text = String::new();
    file.read_to_string(&mut text)?;
    let all: Vec<&str> = text.lines().collect();
    let mut out = crate::print::Out::new();
    for line in &all[all.len().saturating_sub(lines)..] {
        writeln!(out, "{line}")?;
    }
    out.flush()?;
    if !follow {
        return Ok(());
    }
    let mut offset = file.stream_position()?;
    loop {
        std::thread::sleep(Duration::from_millis(250));
        let current = std::fs::metadata(&path).ok();
        let rotated = current.as_ref().is_some_and(|m| m.ino() != file.metadata().map(|f| f.ino()).unwrap_or(0) || m.len() < offset);
        if rotated {
            // Rotated: finish the old file (still open), then the new one starts from the top.
            file.seek(SeekFrom::Start(offset))?;
            let mut rest = Vec::new();
            file.read_to_end(&mut rest)?;
            out.write_all(&rest)?;
            file = std::fs::File::open(&path)?;
            offset = 0;
        }
        file.seek(SeekFrom::Start(offset))?;
        let mut chunk = Vec::new();
        file.read_to_end(&mut chunk)?;
        offset += chunk.len() as u64;
        out.write_all(&chunk)?;
        out.flush()?;
    }
}
