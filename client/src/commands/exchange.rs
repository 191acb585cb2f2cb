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

/// "N unchanged, " when a re-import left lines as they were.
fn unchanged(total: &ImportReport) -> String {
    if total.unchanged > 0 { format!("{} unchanged, ", total.unchanged) } else { String::new() }
}

pub async fn import(file: PathBuf, args: ProjectArgs) -> Result<(), Failure> {
    let mut reader = BufReader::new(open_import(&file)?);
    let c = client().await?;
    // `--project` read as every command reads it (a path is its folder's project).
    let default_project = if args.global { Some(cairn_proto::GLOBAL_PROJECT.to_string()) } else { super::scope(&args).project };
    let progress = std::io::stderr().is_terminal();
    let mut total = ImportReport::default();
    let mut batch = Vec::new();
    let mut bytes = 0;
    let mut n: u64 = 0;
    let mut next = read_line(&mut reader, MAX_LINE_BYTES).map_err(|e| Failure::new(1, format!("{}: line 1: {e}", file.display())))?;
    while let Some(line) = next {
        n += 1;
        match line {
            Line::Text(raw) => match String::from_utf8(raw) {
                Ok(text) => {
                    bytes += text.len();
                    batch.push(ImportLine { line: n, text });
                }
                // Rejected here, like any other bad line, rather than ending the import.
                Err(_) => total.rejected.push(cairn_proto::Rejection { line: n, reason: "not UTF-8 text".into(), text: None }),
            },
            Line::TooLong(len) => total.rejected.push(cairn_proto::Rejection {
                line: n,
                reason: format!("{len} bytes, over the {} MiB a line may hold; not imported", MAX_LINE_BYTES >> 20),
                text: None,
            }),
        }
        next = read_line(&mut reader, MAX_LINE_BYTES).map_err(|e| Failure::new(1, format!("{}: line {}: {e}", file.display(), n + 1)))?;
        if batch.len() >= BATCH_LINES || bytes >= BATCH_BYTES || (next.is_none() && !batch.is_empty()) {
            send(&c, std::mem::take(&mut batch), default_project.clone(), &mut total).await?;
            bytes = 0;
            if progress {
                err!("\rimported {n} lines ({} added, {} updated, {} rejected)", total.added, total.updated, total.rejected.len());
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
    for r in total.left_out.iter().chain(&total.repeated) {
        outln!("{}: line {}: left out: {}", file.display(), r.line, r.reason);
    }
    let left_out = total.left_out.len() + total.repeated.len();
    let left_out = if left_out > 0 { format!("{left_out} left out, ") } else { String::new() };
    outln!("{} added, {} updated, {}{left_out}{} rejected", total.added, total.updated, unchanged(&total), total.rejected.len());
    if !total.rejected.is_empty() {
        // The rest is imported; the exit code says not everything was.
        let rest = if total.rejected.len() as u64 >= n { "nothing was imported" } else { "the others were imported" };
        return Err(Failure::new(1, format!("{} of {n} lines were rejected (listed above); {rest}", total.rejected.len())));
    }
    Ok(())
}

/// Sends one batch of import lines and adds its report to `total`.
async fn send(c: &cairn_proto::CairnClient, lines: Vec<ImportLine>, default_project: Option<String>, total: &mut ImportReport) -> Result<(), Failure> {
    let report = c.import(crate::connect::ctx(IMPORT_TIMEOUT), ImportBatch { lines, default_project }).await??;
    total.added += report.added;
    total.updated += report.updated;
    total.unchanged += report.unchanged;
    total.rejected.extend(report.rejected);
    total.left_out.extend(report.left_out);
    total.repeated.extend(report.repeated);
    Ok(())
}

/// `import --claude-memory`: Claude Code's memory files of the user and the project (of the
/// current directory, `--project`'s folder, or none with `--global`) as lessons. Ids come from
/// each lesson's project, file and text ([`crate::claude_memory`]), so importing again updates
/// what is there, adds what is new and removes what left its file; a file that is there but
/// cannot be read leaves its lessons as they are, and makes the exit code 1.
pub async fn import_claude_memory(args: ProjectArgs) -> Result<(), Failure> {
    use crate::claude_memory::{self, SOURCE};
    let claude = claude_memory::claude_dir(&super::user_home()?);
    let cwd = std::env::current_dir()?;
    let target = match (&args.project, args.global) {
        (_, true) => None,
        (Some(p), false) => {
            let project = super::project_arg(p);
            let root = PathBuf::from(&project);
            // A name is bad usage here (the memory is found from a folder); a path to a folder
            // that is not there is a failure, as every missing thing a command names is.
            if !root.is_absolute() {
                return Err(Failure::new(2, format!("--project {p:?} is not a folder: Claude Code's memory is found from a project's folder")));
            }
            if !root.is_dir() {
                return Err(Failure::new(1, format!("--project {p:?}: there is no folder {}", root.display())));
            }
            Some((project, root))
        }
        // The checkout Claude Code runs in holds its CLAUDE.md files; the project (the main
        // checkout of a worktree) names its auto memory.
        (None, false) => Some((cairn_proto::project::project_of(&cwd), cairn_proto::project::checkout_root(&cwd))),
    };
    let groups = claude_memory::gather(&claude, target.as_ref().map(|(p, r)| (p.as_str(), r.as_path())));
    let lessons: Vec<&claude_memory::Lesson> = groups.iter().flat_map(|g| &g.lessons).collect();
    for g in &groups {
        for (path, n) in &g.read {
            // Read, not yet kept: the gate may leave some out (listed below).
            outln!("{}: {n} instruction{} read ({})", path.display(), if *n == 1 { "" } else { "s" }, g.project);
        }
    }
    if groups.iter().all(|g| g.read.is_empty() && g.errors.is_empty()) {
        match &target {
            Some((_, root)) => outln!("no Claude Code memory files found (looked in {} and {})", claude.display(), root.display()),
            None => outln!("no Claude Code memory files found (looked in {})", claude.display()),
        }
    }

    let c = client().await?;
    // The lessons these files gave before: an instruction edited in its file carries over to
    // the lesson it was (what it learned, tags, examples), and one gone from its file goes.
    let prefixes: Vec<&str> = groups.iter().map(|g| g.id_prefix.as_str()).collect();
    // (id, text, context): the context starts with the file the lesson came from.
    let mut existing: Vec<(String, String, String)> = Vec::new();
    let mut after = None;
    loop {
        let page = c.list(ctx(), cairn_proto::ListQuery { scope: Default::default(), all: true, after, limit: EXPORT_PAGE }).await??;
        existing.extend(page.items.into_iter().filter(|m| m.source == SOURCE && prefixes.iter().any(|p| m.id.starts_with(p))).map(|m| (m.id, m.text, m.context)));
        match page.next {
            Some(next) => after = Some(next),
            None => break,
        }
    }
    let by_text: Vec<(String, String)> = existing.iter().map(|(id, text, _)| (id.clone(), text.clone())).collect();
    let moved: std::collections::HashMap<String, String> = claude_memory::carried_over(&lessons, &prefixes, &by_text).into_iter().collect();
    let id_of = |l: &claude_memory::Lesson| moved.get(&l.id).cloned().unwrap_or_else(|| l.id.clone());
    let mut total = ImportReport::default();
    // Each lesson is judged by the quality gate and embedded: a large file takes a while.
    let progress = std::io::stderr().is_terminal() && lessons.len() > BATCH_LINES;
    for (n, chunk) in lessons.chunks(BATCH_LINES).enumerate() {
        let lines = chunk
            .iter()
            .enumerate()
            .map(|(i, l)| ImportLine {
                line: (n * BATCH_LINES + i + 1) as u64,
                text: serde_json::json!({"id": id_of(l), "text": l.text, "project": l.project, "source": SOURCE, "context": l.context}).to_string(),
            })
            .collect();
        send(&c, lines, None, &mut total).await?;
        if progress {
            err!("\rimported {} of {} lessons", (n * BATCH_LINES + chunk.len()), lessons.len());
        }
    }
    if progress {
        errln!();
    }
    for r in &total.rejected {
        let at = lessons.get(r.line as usize - 1).map_or(String::new(), |l| l.context.clone());
        errln!("{at}: {}", r.reason);
    }
    // What the quality gate found no lesson in is left out (and goes, if an import before kept
    // it); not an error: Claude Code still reads the file whole.
    let left_out: std::collections::HashSet<String> = total.left_out.iter().chain(&total.repeated).filter_map(|r| lessons.get(r.line as usize - 1).map(|l| id_of(l))).collect();
    for r in &total.left_out {
        if let Some(l) = lessons.get(r.line as usize - 1) {
            // The daemon's reading of the line: a secret in it redacted.
            outln!("left out, not a lesson ({}): {:?} ({})", r.reason, r.text.as_deref().unwrap_or("..."), l.context);
        }
    }
    // An instruction said twice is one lesson, the first. The daemon compares the lines of one
    // batch ([`BATCH_LINES`]): a repeat further off than that stays a lesson of its own.
    for r in &total.repeated {
        if let Some(l) = lessons.get(r.line as usize - 1) {
            outln!("left out, said again ({}): {:?} ({})", r.reason, r.text.as_deref().unwrap_or("..."), l.context);
        }
    }

    // What left its file: lessons not found again, unless their file could not be read.
    let kept: std::collections::HashSet<String> = lessons.iter().map(|l| id_of(l)).filter(|id| !left_out.contains(id)).collect();
    let by_context: Vec<(String, String)> = existing.into_iter().map(|(id, _, context)| (id, context)).collect();
    let gone = claude_memory::gone(&groups, &kept, &by_context);
    let removed = gone.len();
    for id in gone {
        c.forget(ctx(), id).await??;
    }
    outln!("{} added, {} updated, {}{removed} removed (no longer in their files or no lessons), {} left out, {} rejected", total.added, total.updated, unchanged(&total), total.left_out.len() + total.repeated.len(), total.rejected.len());
    let errors: Vec<&String> = groups.iter().flat_map(|g| &g.errors).collect();
    for e in &errors {
        errln!("cannot read {e}");
    }
    if !errors.is_empty() || !total.rejected.is_empty() {
        return Err(Failure::new(1, format!("{} file{} could not be read and {} lesson{} were rejected (above); the rest was imported", errors.len(), if errors.len() == 1 { "" } else { "s" }, total.rejected.len(), if total.rejected.len() == 1 { "" } else { "s" })));
    }
    Ok(())
}

/// Opens an import file: a regular file, or a pipe (`cairn import <(...)`, `/dev/stdin`); a
/// folder or a device is refused (`/dev/zero` would be one endless line).
fn open_import(file: &std::path::Path) -> Result<std::fs::File, Failure> {
    use std::os::unix::fs::FileTypeExt;
    let cannot = |e: &dyn std::fmt::Display| Failure::new(1, format!("cannot read {}: {e}", file.display()));
    let kind = std::fs::metadata(file).map_err(|e| cannot(&e))?.file_type();
    if !(kind.is_file() || kind.is_fifo()) {
        return Err(cannot(&"not a file or a pipe"));
    }
    std::fs::File::open(file).map_err(|e| cannot(&e))
}

/// Longest import line read (1 MiB): a lesson's text is at most 20,000 characters, so a longer
/// line is a mistake, and is rejected on its own without being held in memory.
const MAX_LINE_BYTES: usize = 1 << 20;

/// One line of an import file, without its newline.
#[derive(Debug, PartialEq)]
enum Line {
    Text(Vec<u8>),
    /// Longer than the limit: only its length is kept.
    TooLong(u64),
}

/// The next line of `r`, keeping at most `max` bytes of it; `None` at the end.
fn read_line(r: &mut impl BufRead, max: usize) -> std::io::Result<Option<Line>> {
    let mut buf = Vec::new();
    let mut len: u64 = 0;
    let mut started = false;
    loop {
        let chunk = match r.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(started.then_some(if len > max as u64 { Line::TooLong(len) } else { Line::Text(buf) }));
        }
        started = true;
        let (part, used, ends) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], i + 1, true),
            None => (chunk, chunk.len(), false),
        };
        len += part.len() as u64;
        if len <= max as u64 {
            buf.extend_from_slice(part);
        } else if !buf.is_empty() {
            buf = Vec::new();
        }
        r.consume(used);
        if ends {
            return Ok(Some(if len > max as u64 { Line::TooLong(len) } else { Line::Text(buf) }));
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_past_the_limit_are_measured_not_kept() {
        let text = format!("short\n{}\n\nlast", "x".repeat(50));
        let mut r = std::io::BufReader::with_capacity(8, text.as_bytes());
        assert_eq!(read_line(&mut r, 10).unwrap(), Some(Line::Text(b"short".to_vec())));
        assert_eq!(read_line(&mut r, 10).unwrap(), Some(Line::TooLong(50)));
        assert_eq!(read_line(&mut r, 10).unwrap(), Some(Line::Text(Vec::new())));
        assert_eq!(read_line(&mut r, 10).unwrap(), Some(Line::Text(b"last".to_vec())));
        assert_eq!(read_line(&mut r, 10).unwrap(), None);
        // A final newline ends the last line; it does not start another.
        let mut r = std::io::BufReader::new(&b"a\n"[..]);
        assert_eq!(read_line(&mut r, 10).unwrap(), Some(Line::Text(b"a".to_vec())));
        assert_eq!(read_line(&mut r, 10).unwrap(), None);
        // Exactly the limit is kept.
        let mut r = std::io::BufReader::new(&b"0123456789"[..]);
        assert_eq!(read_line(&mut r, 10).unwrap(), Some(Line::Text(b"0123456789".to_vec())));
    }
}
