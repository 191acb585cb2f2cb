//! `import` and `export`: JSONL in and out, in batches so that progress shows and no message
//! grows past the transport's frame limit.

use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::path::PathBuf;

use cairn_proto::{ImportBatch, ImportLine, ImportReport};

use super::{client, ctx, Failure};
use crate::cli::ProjectArgs;

/// Lines per request: each batch is embedded as one, so it is kept small enough to answer well
/// within the request's patience and to show progress often.
const BATCH_LINES: usize = 200;
const BATCH_BYTES: usize = 1024 * 1024;
/// Patience for one import batch (its embedding included).
const IMPORT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);
const EXPORT_PAGE: u32 = 1000;

pub async fn import(file: PathBuf, args: ProjectArgs) -> Result<(), Failure> {
    let reader = BufReader::new(std::fs::File::open(&file).map_err(|e| Failure::new(1, format!("cannot read {}: {e}", file.display())))?);
    let c = client().await?;
    let default_project = if args.global { Some(cairn_proto::GLOBAL_PROJECT.to_string()) } else { args.project.clone() };
    let progress = std::io::stderr().is_terminal();
    let mut total = ImportReport::default();
    let mut batch = Vec::new();
    let mut bytes = 0;
    let mut lines = reader.split(b'\n').enumerate().peekable();
    while let Some((n, line)) = lines.next() {
        let raw = line.map_err(|e| Failure::new(1, format!("{}: line {}: {e}", file.display(), n + 1)))?;
        match String::from_utf8(raw) {
            Ok(text) => {
                bytes += text.len();
                batch.push(ImportLine { line: n as u64 + 1, text });
            }
            // Rejected here, like any other bad line, rather than ending the import.
            Err(_) => total.rejected.push(cairn_proto::Rejection { line: n as u64 + 1, reason: "not UTF-8 text".into() }),
        }
        if batch.len() >= BATCH_LINES || bytes >= BATCH_BYTES || lines.peek().is_none() {
            let report = c.import(crate::connect::ctx(IMPORT_TIMEOUT), ImportBatch { lines: std::mem::take(&mut batch), default_project: default_project.clone() }).await??;
            bytes = 0;
            total.added += report.added;
            total.updated += report.updated;
            total.rejected.extend(report.rejected);
            if progress {
                err!("\rimported {} lines ({} added, {} updated, {} rejected)", n + 1, total.added, total.updated, total.rejected.len());
            }
        }
    }
    if progress {
        errln!();
    }
    total.rejected.sort_by_key(|r| r.line);
    for r in &total.rejected {
        errln!("{}: line {}: {}", file.display(), r.line, r.reason);
    }
    outln!("{} added, {} updated, {} rejected", total.added, total.updated, total.rejected.len());
    Ok(())
}

pub async fn export(file: Option<PathBuf>) -> Result<(), Failure> {
    let result = export_to(file.as_deref()).await;
    if result.is_err()
        && let Some(path) = &file
    {
        let _ = std::fs::remove_file(partial(path));
    }
    result
}

async fn export_to(file: Option<&std::path::Path>) -> Result<(), Failure> {
    let c = client().await?;
    let mut out: Box<dyn Write> = match file {
        // Written beside the target and renamed, so a failed export never leaves half a file.
        Some(path) => Box::new(tempfile_beside(path)?),
        None => Box::new(crate::print::Out::new()),
    };
    let mut after = None;
    let mut count = 0;
    loop {
        let page = c.export(ctx(), after, EXPORT_PAGE).await??;
        for line in &page.items {
            writeln!(out, "{line}")?;
        }
        count += page.items.len();
        match page.next {
            Some(next) => after = Some(next),
            None => break,
        }
    }
    out.flush()?;
    drop(out);
    if let Some(path) = file {
        std::fs::rename(partial(path), path)?;
        errln!("exported {count} records to {}", path.display());
    }
    Ok(())
}

fn partial(path: &std::path::Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".partial");
    path.with_file_name(name)
}

fn tempfile_beside(path: &std::path::Path) -> Result<std::io::BufWriter<std::fs::File>, Failure> {
    let file = std::fs::File::create(partial(path)).map_err(|e| Failure::new(1, format!("cannot write {}: {e}", path.display())))?;
    Ok(std::io::BufWriter::new(file))
}
