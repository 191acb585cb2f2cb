//! Claude Code's own memory files as lessons (`cairn import --claude-memory`): where they are,
//! and the instructions in them. Claude Code loads these files whole into every session (up to
//! its size limits, silently cut past them); as lessons, the one that matters is said at the
//! moment it matters. Pure apart from reading the files, each a bounded regular file.
//!
//! What is read, and into which project:
//! - the user's `CLAUDE.md` and `rules/*.md` in Claude Code's folder (`$CLAUDE_CONFIG_DIR`, else
//!   `~/.claude`): `global`;
//! - the project's `CLAUDE.md`, `.claude/CLAUDE.md`, `CLAUDE.local.md`, `.claude/rules/*.md`,
//!   and the `CLAUDE.md` / `CLAUDE.local.md` of the folders above it (Claude Code loads those
//!   too): the project;
//! - the project's auto-memory folder (`projects/<the root, every character but letters and
//!   digits made '-'>/memory/` in Claude Code's folder): each topic file is one lesson, and
//!   `MEMORY.md`'s lines other than its links to topic files are instructions.
//!
//! An instruction is a list item or a paragraph; headings become its context, and code blocks,
//! tables, HTML comments and lines without three words are left out. `@path` lines import
//! another file, as Claude Code's do (5 levels at most).
//!
//! Each lesson's id is made from its project, its group (the file, or the folder for rules and
//! topic files) and its text, so a re-import finds the same lesson again (updated, never
//! duplicated), and a lesson whose text left its group can be told apart and removed.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Largest memory file read: Claude Code itself reads a few tens of KB of each.
pub const MAX_FILE_BYTES: u64 = 256 * 1024;
/// Most files read from one folder (rules, topic files).
const MAX_FOLDER_FILES: usize = 200;
/// How deep `@path` imports are followed, as in Claude Code.
const MAX_IMPORT_DEPTH: usize = 5;
/// Longest lesson made from one instruction or topic file; longer text is cut at a word.
pub const MAX_LESSON_CHARS: usize = 2_000;
/// Fewest words a line has to reach the gate: one word is no instruction; two may be one
/// ("No lodash.", "pnpm only."), and the gate says which.
const MIN_WORDS: usize = 2;
/// The mark of a lesson imported from a Claude Code memory file.
pub const SOURCE: &str = "claude-md";
/// Every id this import makes starts so.
pub const ID_PREFIX: &str = "cm-";

/// One lesson found in a memory file.
#[derive(Debug, Clone, PartialEq)]
pub struct Lesson {
    pub id: String,
    pub project: String,
    pub text: String,
    /// The file and the headings above the instruction.
    pub context: String,
}

/// A place Claude Code keeps memory (a file, or a folder of rules or topic files), read or not.
#[derive(Debug)]
pub struct Group {
    pub project: String,
    /// Every id of this group starts so: lessons with it that this import did not find again
    /// have left their file.
    pub id_prefix: String,
    /// What was read: each file with the number of lessons found in it.
    pub read: Vec<(PathBuf, usize)>,
    /// A file that is there but could not be read (too large, not a regular file, not text),
    /// or a folder that could not be listed, each with why.
    pub errors: Vec<String>,
    /// The paths of those: the lessons that came from them are left as they are.
    pub unreadable: Vec<PathBuf>,
    pub lessons: Vec<Lesson>,
}

impl Group {
    fn fail(&mut self, path: &Path, why: String) {
        self.errors.push(why);
        self.unreadable.push(path.to_path_buf());
    }

    /// Whether a lesson this group gave before, from `file` (the start of its context), can
    /// be judged gone: not when the file, or a folder above it, could not be read this time.
    fn read_through(&self, file: &Path) -> bool {
        !self.unreadable.iter().any(|u| file.starts_with(u))
    }
}

/// The lessons an earlier import made (`(id, context)`) that this one did not find again
/// (`kept`): they have left their files. One whose file could not be read this time stays (it
/// may still be there), but an unreadable file does not keep the lessons of the files beside
/// it, so a deleted topic file's lesson goes although another topic file is unreadable.
pub fn gone(groups: &[Group], kept: &std::collections::HashSet<String>, existing: &[(String, String)]) -> Vec<String> {
    existing
        .iter()
        .filter(|(id, _)| !kept.contains(id))
        .filter(|(id, context)| {
            let file = Path::new(context.split(" > ").next().unwrap_or(""));
            groups.iter().any(|g| id.starts_with(&g.id_prefix) && g.read_through(file))
        })
        .map(|(id, _)| id.clone())
        .collect()
}

/// Claude Code's own folder: `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
pub fn claude_dir(home: &Path) -> PathBuf {
    match std::env::var_os("CLAUDE_CONFIG_DIR").filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => home.join(".claude"),
    }
}

/// The name Claude Code gives a project's folder under `projects/`: every UTF-16 unit that is
/// not an ASCII letter or digit becomes '-'. Names over 200 units are cut there and get a hash
/// of Claude Code's own, which [`auto_memory_dir`] finds by the cut name.
pub fn project_folder_name(root: &str) -> String {
    let mut name = String::with_capacity(root.len());
    for c in root.chars() {
        if c.is_ascii_alphanumeric() {
            name.push(c);
        } else {
            name.extend(std::iter::repeat_n('-', c.len_utf16()));
        }
    }
    name
}

/// The project's auto-memory folder (which may not exist).
pub fn auto_memory_dir(claude: &Path, root: &str) -> PathBuf {
    const MAX_NAME: usize = 200;
    let projects = claude.join("projects");
    let name = project_folder_name(root);
    if name.len() <= MAX_NAME {
        return projects.join(name).join("memory");
    }
    // Long names end in a hash cairn cannot make: the one folder whose name starts with the cut
    // name and a '-', if there is exactly one.
    let cut = format!("{}-", &name[..MAX_NAME]);
    let matches: Vec<PathBuf> = std::fs::read_dir(&projects)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_str().is_some_and(|n| n.starts_with(&cut)))
        .map(|e| e.path())
        .take(2)
        .collect();
    match matches.as_slice() {
        [only] => only.join("memory"),
        _ => projects.join(&cut).join("memory"),
    }
}

/// Every place of memory for `project` (rooted at `root`, a folder; `None` for `--global`).
pub fn gather(claude: &Path, project: Option<(&str, &Path)>) -> Vec<Group> {
    let global = cairn_proto::GLOBAL_PROJECT;
    let mut groups = vec![file_group(&claude.join("CLAUDE.md"), global), folder_group(&claude.join("rules"), global, Folder::Rules)];
    if let Some((project, root)) = project {
        for name in ["CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"] {
            groups.push(file_group(&root.join(name), project));
        }
        groups.push(folder_group(&root.join(".claude/rules"), project, Folder::Rules));
        // The folders above the project, as Claude Code walks them, up to but not including
        // `/`.
        for above in root.ancestors().skip(1).filter(|dir| dir.parent().is_some()) {
            for name in ["CLAUDE.md", "CLAUDE.local.md"] {
                let path = above.join(name);
                if path.exists() {
                    groups.push(file_group(&path, project));
                }
            }
        }
        groups.push(folder_group(&auto_memory_dir(claude, project), project, Folder::AutoMemory));
    }
    groups
}

/// The id prefix of a group: its project and path.
fn group_prefix(project: &str, path: &Path) -> String {
    let digest = Sha256::new().chain_update(project.as_bytes()).chain_update([0]).chain_update(path.as_os_str().as_encoded_bytes()).finalize();
    format!("{ID_PREFIX}{}-", hex(&digest[..5]))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn empty_group(path: &Path, project: &str) -> Group {
    Group { project: project.to_string(), id_prefix: group_prefix(project, path), read: vec![], errors: vec![], unreadable: vec![], lessons: vec![] }
}

/// Reads a memory file, or says why not; `None` when it is not there.
fn read(path: &Path) -> Option<Result<String, String>> {
    match cairn_proto::files::read_text(path, MAX_FILE_BYTES) {
        Ok(text) => Some(Ok(text)),
        Err(e) if e.is_missing() => None,
        Err(e) => Some(Err(format!("{}: {e}", path.display()))),
    }
}

/// One file (and the files it imports) as a group of its own.
fn file_group(path: &Path, project: &str) -> Group {
    let mut group = empty_group(path, project);
    add_file(&mut group, path, 0, &mut Vec::new());
    group
}

fn add_file(group: &mut Group, path: &Path, depth: usize, seen: &mut Vec<PathBuf>) {
    let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    if seen.contains(&real) {
        return;
    }
    seen.push(real);
    let text = match read(path) {
        None => return,
        Some(Err(e)) => return group.fail(path, e),
        Some(Ok(text)) => text,
    };
    let parsed = instructions(&text);
    let before = group.lessons.len();
    for found in &parsed.instructions {
        let context = match found.headings.is_empty() {
            true => path.display().to_string(),
            false => format!("{} > {}", path.display(), found.headings.join(" > ")),
        };
        push(group, &found.text, context);
    }
    group.read.push((path.to_path_buf(), group.lessons.len() - before));
    if depth < MAX_IMPORT_DEPTH {
        let dir = path.parent().unwrap_or(Path::new("/"));
        for import in parsed.imports {
            add_file(group, &resolve_import(dir, &import), depth + 1, seen);
        }
    }
}

/// A lesson for the group, unless the same text is there already.
fn push(group: &mut Group, text: &str, context: String) {
    let text = cut(text, MAX_LESSON_CHARS);
    let digest = Sha256::new().chain_update(text.as_bytes()).finalize();
    let id = format!("{}{}", group.id_prefix, hex(&digest[..8]));
    if group.lessons.iter().all(|l| l.id != id) {
        group.lessons.push(Lesson { id, project: group.project.clone(), text, context });
    }
}

/// `@path` as Claude Code reads it: relative to the importing file, `~/` from the user's home.
fn resolve_import(dir: &Path, import: &str) -> PathBuf {
    match import.strip_prefix("~/") {
        Some(rest) => std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default().join(rest),
        None => dir.join(import),
    }
}

enum Folder {
    /// Every `*.md` is read as instructions.
    Rules,
    /// Each topic file is one lesson; `MEMORY.md` is its index.
    AutoMemory,
}

/// The `*.md` files of a folder and its subfolders (two levels), in name order, bounded. A
/// folder that is there but cannot be listed, and the files past the bound, are the group's
/// unreadable places: what came from them before is not taken for deleted.
fn markdown_files(dir: &Path, group: &mut Group) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![(dir.to_path_buf(), 0)];
    while let Some((d, depth)) = dirs.pop() {
        let entries = match std::fs::read_dir(&d) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                group.fail(&d, format!("{}: cannot list the folder: {e}", d.display()));
                continue;
            }
        };
        for entry in entries.flatten() {
            let path = entry.path();
            // Symlinks are followed by the reader's checks; folders are entered only when real.
            // A folder named like a memory file is that file, not a folder to enter: the reader
            // names it (not a regular file) and its lessons stay, instead of looking deleted.
            let md = path.extension().is_some_and(|e| e == "md");
            match entry.file_type() {
                Ok(_) if md => files.push(path),
                Ok(t) if t.is_dir() && depth < 2 => dirs.push((path, depth + 1)),
                _ => {}
            }
        }
    }
    files.sort();
    if files.len() > MAX_FOLDER_FILES {
        group.errors.push(format!("{}: {} files past the first {MAX_FOLDER_FILES} (in name order) not read", dir.display(), files.len() - MAX_FOLDER_FILES));
        group.unreadable.extend(files[MAX_FOLDER_FILES..].iter().cloned());
    }
    files.truncate(MAX_FOLDER_FILES);
    files
}

fn folder_group(dir: &Path, project: &str, kind: Folder) -> Group {
    let mut group = empty_group(dir, project);
    let files = markdown_files(dir, &mut group);
    match kind {
        Folder::Rules => {
            for file in files {
                add_file(&mut group, &file, 0, &mut Vec::new());
            }
        }
        Folder::AutoMemory => {
            let index = dir.join("MEMORY.md");
            let topics: Vec<&PathBuf> = files.iter().filter(|f| **f != index).collect();
            if let Some(read) = read(&index) {
                match read {
                    Err(e) => group.fail(&index, e),
                    Ok(text) => {
                        let before = group.lessons.len();
                        // Its links to topic files are the topic files' business.
                        for found in instructions(&text).instructions.into_iter().filter(|i| !links_to_topic(&i.raw, dir)) {
                            push(&mut group, &found.text, index.display().to_string());
                        }
                        group.read.push((index.clone(), group.lessons.len() - before));
                    }
                }
            }
            for topic in topics {
                match read(topic) {
                    None => {}
                    Some(Err(e)) => group.fail(topic, e),
                    Some(Ok(text)) => {
                        let before = group.lessons.len();
                        if let Some(lesson) = topic_lesson(&text) {
                            push(&mut group, &lesson, topic.display().to_string());
                        }
                        group.read.push((topic.clone(), group.lessons.len() - before));
                    }
                }
            }
        }
    }
    group
}

/// Whether a line of `MEMORY.md` links to one of the folder's topic files.
fn links_to_topic(raw: &str, dir: &Path) -> bool {
    link_targets(raw).iter().any(|t| !t.contains("://") && t.ends_with(".md") && dir.join(t).is_file())
}

/// The targets of the `[text](target)` links in a line.
fn link_targets(line: &str) -> Vec<String> {
    let mut targets = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        let Some(end) = after.find(')') else { break };
        targets.push(after[..end].trim().to_string());
        rest = &after[end..];
    }
    targets
}

/// One topic file as one lesson: its front matter's `description` when the body is empty, else
/// the body's instructions joined into one text.
fn topic_lesson(text: &str) -> Option<String> {
    let (front, body) = front_matter(text);
    let parts: Vec<String> = instructions(body).instructions.into_iter().map(|i| i.text).collect();
    let joined = parts.iter().map(|p| p.trim_end_matches(['.', ';']).to_string()).collect::<Vec<_>>().join("; ");
    let lesson = if joined.is_empty() { front.iter().find_map(|(k, v)| (k == "description").then(|| v.clone())).unwrap_or_default() } else { joined };
    (words(&lesson) >= MIN_WORDS).then_some(lesson)
}

/// A leading `---` block of `key: value` lines, and the text after it.
fn front_matter(text: &str) -> (Vec<(String, String)>, &str) {
    let Some(rest) = text.strip_prefix("---\n").or_else(|| text.strip_prefix("---\r\n")) else { return (vec![], text) };
    let Some(end) = rest.find("\n---") else { return (vec![], text) };
    let fields = rest[..end]
        .lines()
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().trim_matches(['"', '\'']).to_string()))
        .collect();
    let body = rest[end + 4..].split_once('\n').map_or("", |(_, b)| b);
    (fields, body)
}

/// What a markdown file holds for cairn.
#[derive(Debug, Default)]
pub struct Parsed {
    pub instructions: Vec<Instruction>,
    /// `@path` lines, in order.
    pub imports: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Instruction {
    /// In plain words: markup taken out, whitespace made single.
    pub text: String,
    /// The headings above it, outermost first.
    pub headings: Vec<String>,
    /// As written (for telling links apart).
    raw: String,
}

/// The instructions of a CLAUDE.md-style file: each list item, and each paragraph outside a
/// list. A list item that only leads into its sub-items ("Testing:") is put before each of
/// them instead. A short code block right after an item or paragraph that ends in ':' joins it.
pub fn instructions(text: &str) -> Parsed {
    // A byte-order mark is no part of the first line.
    let (_, body) = front_matter(text.trim_start_matches('\u{feff}'));
    let body = strip_comments(body);
    let mut parsed = Parsed::default();
    let mut headings: Vec<(usize, String)> = Vec::new();
    // Items and paragraphs as they are built: (indent, lead-in parents, raw text).
    let mut blocks: Vec<Block> = Vec::new();
    let mut open: Option<Block> = None;
    let mut fence: Option<(String, Vec<String>)> = None;
    for line in body.lines() {
        let trimmed = line.trim();
        if let Some((marker, code)) = &mut fence {
            if trimmed.starts_with(marker.as_str()) {
                let code = std::mem::take(code);
                fence = None;
                // A short command after "Run the tests with:" completes it.
                if let Some(last) = open.as_mut().or(blocks.last_mut()).filter(|b| b.raw.trim_end().ends_with(':')) {
                    let lines: Vec<&str> = code.iter().map(|l| l.trim()).filter(|l| !l.is_empty()).collect();
                    if (1..=3).contains(&lines.len()) {
                        last.raw = format!("{} `{}`", last.raw.trim_end(), lines.join("; "));
                    }
                }
            } else {
                code.push(line.to_string());
            }
            continue;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            blocks.extend(open.take());
            fence = Some((trimmed[..3].to_string(), Vec::new()));
            continue;
        }
        // A quote's marker ("> **Note:** ...") is no part of what it says.
        let trimmed = trimmed.strip_prefix('>').map_or(trimmed, str::trim_start);
        if trimmed.is_empty() {
            blocks.extend(open.take());
            continue;
        }
        // A line of `=` or `-` under a paragraph's one line makes it a heading (setext).
        let underline = trimmed.len() >= 2 && (trimmed.chars().all(|c| c == '=') || trimmed.chars().all(|c| c == '-'));
        if underline && let Some(b) = open.as_ref().filter(|b| !b.item && b.raw.split_whitespace().count() <= 8) {
            let level = if trimmed.starts_with('=') { 1 } else { 2 };
            let title = clean(&b.raw);
            open = None;
            headings.retain(|(l, _)| *l < level);
            headings.push((level, title));
            continue;
        }
        if let Some(level) = heading_level(trimmed) {
            blocks.extend(open.take());
            let title = clean(trimmed[level..].trim().trim_end_matches('#'));
            headings.retain(|(l, _)| *l < level);
            headings.push((level, title));
            continue;
        }
        if trimmed.starts_with('|') || is_rule(trimmed) {
            blocks.extend(open.take());
            continue;
        }
        if let Some(path) = import_line(trimmed) {
            blocks.extend(open.take());
            parsed.imports.push(path);
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let heads: Vec<String> = headings.iter().map(|(_, t)| t.clone()).collect();
        match list_item(trimmed) {
            Some(item) => {
                blocks.extend(open.take());
                open = Some(Block { indent, item: true, raw: item.to_string(), headings: heads });
            }
            None => match &mut open {
                // A continuation line.
                Some(b) => {
                    b.raw.push(' ');
                    b.raw.push_str(trimmed);
                }
                None => open = Some(Block { indent, item: false, raw: trimmed.to_string(), headings: heads }),
            },
        }
    }
    blocks.extend(open.take());
    // Lead-ins: an item ending in ':' followed by deeper items is put before each of them.
    let mut leads: Vec<(usize, String)> = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        if b.item {
            leads.retain(|(indent, _)| *indent < b.indent);
        } else {
            leads.clear();
        }
        let has_children = blocks.get(i + 1).is_some_and(|next| next.item && next.indent > b.indent && b.item);
        let text = clean(&b.raw);
        let lead_text = leads.iter().map(|(_, t)| t.as_str()).collect::<Vec<_>>().join(" ");
        if has_children && text.ends_with(':') {
            leads.push((b.indent, text));
            continue;
        }
        let full = if lead_text.is_empty() { text } else { format!("{lead_text} {text}") };
        // A lead-in with nothing after it ("Run the whole test suite:" before a long code
        // block) says what follows, which is not here.
        if full.ends_with(':') {
            continue;
        }
        if words(&full) >= MIN_WORDS {
            parsed.instructions.push(Instruction { text: full, headings: b.headings.clone(), raw: b.raw.clone() });
        }
    }
    parsed
}

struct Block {
    indent: usize,
    item: bool,
    raw: String,
    headings: Vec<String>,
}

fn heading_level(line: &str) -> Option<usize> {
    let level = line.bytes().take_while(|&b| b == b'#').count();
    ((1..=6).contains(&level) && line[level..].starts_with(' ')).then_some(level)
}

fn is_rule(line: &str) -> bool {
    line.len() >= 3 && (line.chars().all(|c| c == '-' || c == ' ') || line.chars().all(|c| c == '*' || c == ' ') || line.chars().all(|c| c == '_' || c == ' '))
}

/// A line that is only `@path` (alone or as a list item): an import.
fn import_line(line: &str) -> Option<String> {
    let line = list_item(line).unwrap_or(line).trim();
    let path = line.strip_prefix('@')?;
    (!path.is_empty() && !path.contains(char::is_whitespace) && (path.contains('/') || path.contains('.'))).then(|| path.to_string())
}

/// The text of a list item (`-`, `*`, `+`, `1.`, `1)`), if the line is one.
fn list_item(line: &str) -> Option<&str> {
    let rest = line.strip_prefix(['-', '*', '+']).or_else(|| {
        let digits = line.bytes().take_while(u8::is_ascii_digit).count();
        (digits > 0 && digits < 10).then(|| line[digits..].strip_prefix(['.', ')'])).flatten()
    })?;
    let rest = rest.strip_prefix(' ').or_else(|| rest.strip_prefix('\t'))?;
    // A task list's box.
    let rest = rest.strip_prefix("[ ] ").or_else(|| rest.strip_prefix("[x] ")).or_else(|| rest.strip_prefix("[X] ")).unwrap_or(rest);
    Some(rest.trim())
}

/// HTML comments taken out (Claude Code hides them from the model too).
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("<!--") {
        out.push_str(&rest[..start]);
        match rest[start..].find("-->") {
            Some(end) => rest = &rest[start + end + 3..],
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

/// Markup out, words kept: `**bold**`, `__x__`, links' text kept and targets dropped, backticks
/// kept (a command stays a command), whitespace made single.
fn clean(raw: &str) -> String {
    let mut text = String::with_capacity(raw.len());
    let mut rest = raw;
    // [text](target) -> text
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find("](").map(|i| open + i) else { break };
        let Some(end) = rest[close + 2..].find(')').map(|i| close + 2 + i) else { break };
        text.push_str(&rest[..open]);
        text.push_str(&rest[open + 1..close]);
        rest = &rest[end + 1..];
    }
    text.push_str(rest);
    let text = text.replace("**", "").replace("__", "");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Words with a letter in them.
fn words(text: &str) -> usize {
    text.split_whitespace().filter(|w| w.chars().any(char::is_alphabetic)).count()
}

/// At most `max` characters, cut at a word, with an ellipsis when cut.
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let head: String = text.chars().take(max - 1).collect();
    let at = head.rfind(char::is_whitespace).filter(|&i| i > max / 2).unwrap_or(head.len());
    format!("{}…", head[..at].trim_end())
}

/// The share of words two texts have in common, of the words either has (lowercase, split at
/// anything not a letter or a digit).
fn likeness(a: &str, b: &str) -> f64 {
    let words = |t: &str| t.to_lowercase().split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_string).collect::<std::collections::HashSet<_>>();
    let (a, b) = (words(a), words(b));
    let union = a.union(&b).count();
    if union == 0 { 0.0 } else { a.intersection(&b).count() as f64 / union as f64 }
}

/// An instruction edited in its file is the lesson it was, not a new one: for each lesson whose
/// id is not among `existing` (id, text), the existing lesson of the same file (its id's group
/// prefix) whose text is gone from the file and shares at least half its words with it, the
/// most alike first. Returns (new id, existing id) pairs; the import writes the new text under
/// the existing id, so the lesson keeps what it learned, its tags and its examples.
pub fn carried_over(lessons: &[&Lesson], prefixes: &[&str], existing: &[(String, String)]) -> Vec<(String, String)> {
    let ids: std::collections::HashSet<&str> = lessons.iter().map(|l| l.id.as_str()).collect();
    let known: std::collections::HashSet<&str> = existing.iter().map(|(id, _)| id.as_str()).collect();
    let prefix_of = |id: &str| prefixes.iter().find(|p| id.starts_with(**p)).copied();
    // Every pairing of a new lesson and a lesson gone from its file, most alike first.
    let mut pairs: Vec<(f64, &str, &str)> = Vec::new();
    for l in lessons.iter().filter(|l| !known.contains(l.id.as_str())) {
        let Some(prefix) = prefix_of(&l.id) else { continue };
        for (id, text) in existing.iter().filter(|(id, _)| !ids.contains(id.as_str()) && id.starts_with(prefix)) {
            let like = likeness(&l.text, text);
            if like >= 0.5 {
                pairs.push((like, l.id.as_str(), id.as_str()));
            }
        }
    }
    pairs.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)).then_with(|| a.2.cmp(b.2)));
    let mut out: Vec<(String, String)> = Vec::new();
    for (_, new, old) in pairs {
        if !out.iter().any(|(n, o)| n == new || o == old) {
            out.push((new.to_string(), old.to_string()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(markdown: &str) -> Vec<String> {
        instructions(markdown).instructions.into_iter().map(|i| i.text).collect()
    }

    #[test]
    fn items_paragraphs_and_their_headings() {
        let md = "---\ntitle: x\n---\n# Project\n\nThis repo is the billing service for the shop.\n\n## Testing\n\n- Run `pnpm test` before every commit, never `npm test`\n- Keep\n  tests fast: under a second each\n* [ ] Use the fixtures in tests/data, not live accounts\n1. Never push straight to main\n\n| a | b |\n|---|---|\n\n<!-- a note\nfor people only -->\n---\n- ok\n";
        let parsed = instructions(md);
        let got: Vec<(String, Vec<String>)> = parsed.instructions.iter().map(|i| (i.text.clone(), i.headings.clone())).collect();
        assert_eq!(
            got,
            vec![
                ("This repo is the billing service for the shop.".to_string(), vec!["Project".to_string()]),
                ("Run `pnpm test` before every commit, never `npm test`".to_string(), vec!["Project".to_string(), "Testing".to_string()]),
                ("Keep tests fast: under a second each".to_string(), vec!["Project".to_string(), "Testing".to_string()]),
                ("Use the fixtures in tests/data, not live accounts".to_string(), vec!["Project".to_string(), "Testing".to_string()]),
                ("Never push straight to main".to_string(), vec!["Project".to_string(), "Testing".to_string()]),
            ]
        );
    }

    #[test]
    fn lead_ins_go_before_their_items_and_code_completes_a_colon() {
        let md = "- When you change the schema:\n  - write a migration with alembic\n  - regenerate the models\n- Run the linter with:\n\n```sh\nmake lint\n```\n\n```\na\nb\nc\nd\n```\n";
        assert_eq!(
            texts(md),
            vec![
                "When you change the schema: write a migration with alembic",
                "When you change the schema: regenerate the models",
                "Run the linter with: `make lint`",
            ]
        );
    }

    #[test]
    fn fragments_links_and_imports() {
        let md = "# Notes\n- pnpm\n- See [the guide](docs/guide.md) for **every** deploy step\n@docs/more.md\n- @~/personal.md\nsee @inline not an import\n- No lodash.\n";
        let parsed = instructions(md);
        assert_eq!(parsed.instructions.iter().map(|i| i.text.as_str()).collect::<Vec<_>>(), vec!["See the guide for every deploy step", "see @inline not an import", "No lodash."]);
        assert_eq!(parsed.imports, vec!["docs/more.md", "~/personal.md"]);
    }

    #[test]
    fn a_mark_a_quote_setext_headings_and_a_lead_in_left_alone() {
        let md = "\u{feff}- Always run `make fmt` before committing\n\nTesting\n=======\n\n> **Note:** never run the e2e suite against staging\n\nRun the whole test suite:\n\n```\na\nb\nc\nd\n```\n";
        let parsed = instructions(md);
        let got: Vec<(String, Vec<String>)> = parsed.instructions.iter().map(|i| (i.text.clone(), i.headings.clone())).collect();
        assert_eq!(got, vec![("Always run `make fmt` before committing".to_string(), vec![]), ("Note: never run the e2e suite against staging".to_string(), vec!["Testing".to_string()])]);
    }

    #[test]
    fn folder_names_as_claude_code_makes_them() {
        assert_eq!(project_folder_name("/home/me/src/my_app.v2"), "-home-me-src-my-app-v2");
        // A character outside the BMP is two UTF-16 units, so two dashes.
        assert_eq!(project_folder_name("/a/😀b"), "-a---b");
        let dir = tempfile::tempdir().unwrap();
        let long = format!("/{}", "x".repeat(250));
        let name = project_folder_name(&long);
        std::fs::create_dir_all(dir.path().join("projects").join(format!("{}-abc123", &name[..200])).join("memory")).unwrap();
        assert_eq!(auto_memory_dir(dir.path(), &long), dir.path().join("projects").join(format!("{}-abc123", &name[..200])).join("memory"));
        assert_eq!(auto_memory_dir(dir.path(), "/short"), dir.path().join("projects/-short/memory"));
    }

    #[test]
    fn long_text_is_cut_at_a_word() {
        let text = "word ".repeat(1000);
        let c = cut(text.trim(), 50);
        assert!(c.chars().count() <= 50 && c.ends_with("word…"), "{c}");
        assert_eq!(cut("short enough", 50), "short enough");
    }

    /// A home with every kind of file: what goes where, ids stable across reads, one id per
    /// text within a group, unreadable files named, imports followed once.
    #[test]
    fn gathering_a_home() {
        let dir = tempfile::tempdir().unwrap();
        let claude = dir.path().join("claude");
        let root = dir.path().join("work/app");
        std::fs::create_dir_all(claude.join("rules")).unwrap();
        std::fs::create_dir_all(root.join(".claude/rules")).unwrap();
        std::fs::write(claude.join("CLAUDE.md"), "- Always answer in British English spelling\n").unwrap();
        std::fs::write(claude.join("rules/git.md"), "- Sign every commit with your key\n").unwrap();
        std::fs::write(root.join("CLAUDE.md"), "# App\n- Use pnpm here, never npm or yarn\n- Use pnpm here, never npm or yarn\n@docs/extra.md\n").unwrap();
        std::fs::create_dir_all(root.join("docs")).unwrap();
        std::fs::write(root.join("docs/extra.md"), "- Do not edit the generated files in src/gen\n@../CLAUDE.md\n").unwrap();
        std::fs::write(dir.path().join("work/CLAUDE.md"), "- Every service in work/ deploys with the make deploy target\n").unwrap();
        let fifo = root.join("CLAUDE.local.md");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo reads a valid C string.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let project = root.to_str().unwrap();
        let memory = auto_memory_dir(&claude, project);
        std::fs::create_dir_all(&memory).unwrap();
        std::fs::write(memory.join("MEMORY.md"), "- [Deploys](deploys.md) - how deploys go\n- The staging database is reset every night at 2am\n").unwrap();
        std::fs::write(memory.join("deploys.md"), "---\nname: deploys\ndescription: how deploys go\ntype: project\n---\nDeploys go through the release branch.\n\n- Tag the release before merging it\n").unwrap();
        std::fs::write(memory.join("empty.md"), "---\ndescription: the flaky payment tests need the mock server running\n---\n").unwrap();
        // A rules file that became a folder is named, not taken for deleted (nor entered).
        std::fs::create_dir_all(root.join(".claude/rules/db.md")).unwrap();
        std::fs::write(root.join(".claude/rules/db.md/inner.md"), "- Inner files of a folder named db.md are not read\n").unwrap();

        let groups = gather(&claude, Some((project, &root)));
        let all: Vec<&Lesson> = groups.iter().flat_map(|g| &g.lessons).collect();
        let by_text = |t: &str| all.iter().find(|l| l.text == t).unwrap_or_else(|| panic!("{t:?} not in {all:#?}"));
        assert_eq!(by_text("Always answer in British English spelling").project, "global");
        assert_eq!(by_text("Sign every commit with your key").project, "global");
        let pnpm = by_text("Use pnpm here, never npm or yarn");
        assert_eq!(pnpm.project, project);
        assert!(pnpm.context.ends_with("app/CLAUDE.md > App"), "{}", pnpm.context);
        assert_eq!(all.iter().filter(|l| l.text == pnpm.text).count(), 1, "one lesson per text in a group");
        assert!(by_text("Do not edit the generated files in src/gen").context.ends_with("docs/extra.md"));
        assert_eq!(by_text("Every service in work/ deploys with the make deploy target").project, project);
        assert!(by_text("The staging database is reset every night at 2am").context.ends_with("MEMORY.md"));
        assert_eq!(by_text("Deploys go through the release branch; Tag the release before merging it").project, project);
        by_text("the flaky payment tests need the mock server running");
        assert!(!all.iter().any(|l| l.text.contains("how deploys go")), "a link to a topic file is the topic file's");
        let errors: Vec<&String> = groups.iter().flat_map(|g| &g.errors).collect();
        assert!(errors.len() == 2 && errors.iter().any(|e| e.contains("CLAUDE.local.md") && e.contains("FIFO")), "{errors:?}");
        assert!(errors.iter().any(|e| e.contains("rules/db.md")), "{errors:?}");
        assert!(!all.iter().any(|l| l.text.contains("Inner files")));
        // Every id starts with its group's prefix, and reading again gives the same ids.
        assert!(groups.iter().all(|g| g.lessons.iter().all(|l| l.id.starts_with(&g.id_prefix) && l.id.starts_with(ID_PREFIX))));
        let again: Vec<String> = gather(&claude, Some((project, &root))).iter().flat_map(|g| g.lessons.iter().map(|l| l.id.clone())).collect();
        assert_eq!(again, all.iter().map(|l| l.id.clone()).collect::<Vec<_>>());
        // Global alone reads only the user's files.
        let global: Vec<Lesson> = gather(&claude, None).into_iter().flat_map(|g| g.lessons).collect();
        assert_eq!(global.len(), 2);
    }

    proptest::proptest! {
        /// Any text parses without panic, and every instruction has three words and no newline.
        #[test]
        fn any_text_parses(text in "(?s).{0,400}") {
            for i in instructions(&text).instructions {
                proptest::prop_assert!(words(&i.text) >= MIN_WORDS && !i.text.contains('\n'));
            }
        }
    }

    /// A deleted topic file's lesson goes although another topic file cannot be read; the
    /// unreadable file's lesson, and those of a folder that cannot be listed, stay.
    #[test]
    fn an_unreadable_file_keeps_its_own_lessons_only() {
        let dir = tempfile::tempdir().unwrap();
        let claude = dir.path().join("claude");
        let root = dir.path().join("app");
        std::fs::create_dir_all(&root).unwrap();
        let project = root.to_str().unwrap();
        let memory = auto_memory_dir(&claude, project);
        std::fs::create_dir_all(memory.join("team")).unwrap();
        for (file, text) in [("kept.md", "The billing service owns the invoices table."), ("deleted.md", "Staging resets every night at 2am."), ("broken.md", "The flaky payment tests need the mock server."), ("team/notes.md", "Releases are cut on Tuesdays.")] {
            std::fs::write(memory.join(file), format!("{text}\n")).unwrap();
        }
        let first = gather(&claude, Some((project, &root)));
        let existing: Vec<(String, String)> = first.iter().flat_map(|g| g.lessons.iter().map(|l| (l.id.clone(), l.context.clone()))).collect();
        assert_eq!(existing.len(), 4, "{existing:?}");
        let id_from = |file: &str| existing.iter().find(|(_, c)| c.ends_with(file)).unwrap().0.clone();

        std::fs::remove_file(memory.join("deleted.md")).unwrap();
        std::fs::remove_file(memory.join("broken.md")).unwrap();
        std::fs::create_dir(memory.join("broken.md")).unwrap();
        let groups = gather(&claude, Some((project, &root)));
        let kept: std::collections::HashSet<String> = groups.iter().flat_map(|g| g.lessons.iter().map(|l| l.id.clone())).collect();
        assert_eq!(gone(&groups, &kept, &existing), vec![id_from("deleted.md")]);

        // A subfolder that cannot be listed keeps its files' lessons (root lists anything, so
        // the check is skipped there).
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(memory.join("team"), std::fs::Permissions::from_mode(0o000)).unwrap();
        if std::fs::read_dir(memory.join("team")).is_err() {
            let groups = gather(&claude, Some((project, &root)));
            let kept: std::collections::HashSet<String> = groups.iter().flat_map(|g| g.lessons.iter().map(|l| l.id.clone())).collect();
            assert_eq!(gone(&groups, &kept, &existing), vec![id_from("deleted.md")], "an unlistable folder's lesson stays");
            assert!(groups.iter().flat_map(|g| &g.errors).any(|e| e.contains("cannot list the folder")));
        }
        std::fs::set_permissions(memory.join("team"), std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn an_edited_instruction_carries_over_to_the_lesson_it_was() {
        let lesson = |id: &str, text: &str| Lesson { id: id.into(), project: "/p".into(), text: text.into(), context: String::new() };
        let edited = lesson("cm-aa-new1", "Never run rm -rf on a path built from a variable without checking that it is set.");
        let fresh = lesson("cm-aa-new2", "Deploys go through the release pipeline.");
        let kept = lesson("cm-aa-old3", "Use pnpm here.");
        let existing = vec![
            ("cm-aa-old1".to_string(), "Never run rm -rf on a path built from a variable without checking it is set.".to_string()),
            ("cm-aa-old3".to_string(), "Use pnpm here.".to_string()),
            ("cm-bb-old9".to_string(), "Never run rm -rf on a path built from a variable without checking that it is set.".to_string()),
        ];
        let moved = carried_over(&[&edited, &fresh, &kept], &["cm-aa-", "cm-bb-"], &existing);
        // The edit keeps its lesson; a new instruction is new; another file's lesson is its own.
        assert_eq!(moved, vec![("cm-aa-new1".to_string(), "cm-aa-old1".to_string())]);
        assert!(carried_over(&[&kept], &["cm-aa-"], &existing).is_empty(), "a lesson still in its file is not taken");
    }
}
