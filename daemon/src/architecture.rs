//! The layering rule of `lib.rs`, checked on the source itself: every file of the daemon opens
//! with a `//!` line, uses only its own layer and the layers below it, and no files import each
//! other round a circle; and memories are written only through the write path. Imports are read
//! from `crate::` and `super::` paths and a folder's own module names (comments and string
//! literals left out); a file's test module may use any lower layer too, and its `super::` is the
//! file under test.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, from the bottom; modules on one line form one layer and do not use each other.
const LAYERS: &[&[&str]] = &[
    &["base"],
    &["process"],
    &["config"],
    &["exchange"],
    &["store"],
    &["retrieval"],
    &["semantic"],
    &["temporal", "learning"],
    &["advisor"],
    &["app"],
    &["rpc"],
];

/// Files outside the layers: this check itself.
const EXEMPT: &[&str] = &["architecture"];

fn layer_of(top: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&top))
}

/// A source file and the module path it defines (`advisor/gather.rs` is `advisor::gather`).
struct File {
    path: PathBuf,
    module: Vec<String>,
    text: String,
}

fn collect(dir: &Path, root: &Path, out: &mut Vec<File>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).expect("source folder").map(|e| e.expect("entry").path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect(&path, root, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(root).expect("under src");
            let mut module: Vec<String> = rel.iter().map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string()).collect();
            if module.last().is_some_and(|m| m == "mod" || m == "lib" || m == "main") {
                module.pop();
            }
            let text = std::fs::read_to_string(&path).expect("readable source");
            out.push(File { path, module, text });
        }
    }
}

/// The text without comments, string literals and char literals, so that only code is read.
fn code_only(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let rest = &text[i..];
        if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
        } else if rest.starts_with("/*") {
            i += rest.find("*/").map_or(rest.len(), |e| e + 2);
        } else if let Some(len) = raw_string(rest) {
            i += len;
        } else if rest.starts_with('"') {
            let mut j = 1;
            while j < rest.len() && rest.as_bytes()[j] != b'"' {
                j += if rest.as_bytes()[j] == b'\\' { 2 } else { 1 };
            }
            i += (j + 1).min(rest.len());
        } else if let Some(len) = char_literal(rest) {
            i += len;
        } else {
            let c = rest.chars().next().expect("not empty");
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// The length of a raw string (`r"..."`, `r#"..."#`, any number of `#`) at the start of `s`.
fn raw_string(s: &str) -> Option<usize> {
    let hashes = s.strip_prefix('r')?.bytes().take_while(|b| *b == b'#').count();
    let body = s[1 + hashes..].strip_prefix('"')?;
    let end = format!("\"{}", "#".repeat(hashes));
    Some(body.find(&end).map_or(s.len(), |e| 2 + hashes + e + end.len()))
}

/// The length of a char literal (`'x'`, `'\''`, `'\u{1F600}'`) at the start of `s`; `None` for
/// a lifetime (`'a`).
fn char_literal(s: &str) -> Option<usize> {
    let body = s.strip_prefix('\'')?;
    let len = if let Some(escaped) = body.strip_prefix('\\') {
        1 + escaped.find('\'')?
    } else {
        body.chars().next()?.len_utf8()
    };
    body[len..].starts_with('\'').then_some(len + 2)
}

/// Where an inline `#[cfg(test)] mod tests { ... }` block starts and ends in `code`.
fn test_block(code: &str) -> Option<(usize, usize)> {
    let start = code.find("#[cfg(test)]\nmod tests {")?;
    let open = start + code[start..].find('{')?;
    let mut depth = 0usize;
    for (at, c) in code[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some((start, open + at + 1));
                }
            }
            _ => {}
        }
    }
    Some((start, code.len()))
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The paths that follow `at` in `code`, with `{a, b::c}` groups spread out; each path is the
/// segments after the prefix.
fn paths_after(code: &str, prefix: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(found) = code[from..].find(prefix) {
        let at = from + found;
        from = at + prefix.len();
        // A whole word only: `super::` inside `super::super::` is read once, from its start.
        if code[..at].chars().next_back().is_some_and(|c| is_ident(c) || c == ':') {
            continue;
        }
        spread(&code[at + prefix.len()..], Vec::new(), &mut out);
    }
    out
}

/// Reads one path (or a group) at the start of `s`, appending complete paths to `out`.
fn spread(s: &str, base: Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
    let mut path = base;
    let mut i = 0;
    loop {
        let rest = &s[i..];
        let trimmed = rest.trim_start();
        i += rest.len() - trimmed.len();
        if let Some(group) = trimmed.strip_prefix('{') {
            i += 1;
            let mut consumed = 0;
            loop {
                let inner = &group[consumed..];
                let t = inner.trim_start();
                consumed += inner.len() - t.len();
                if t.starts_with('}') || t.is_empty() {
                    consumed += 1;
                    break;
                }
                consumed += spread(t, path.clone(), out);
                let after = &group[consumed..];
                let t = after.trim_start();
                consumed += after.len() - t.len();
                if t.starts_with(',') {
                    consumed += 1;
                }
            }
            return i + consumed;
        }
        let name: String = trimmed.chars().take_while(|c| is_ident(*c) || *c == '*').collect();
        if name.is_empty() {
            break;
        }
        i += name.len();
        path.push(name);
        if s[i..].starts_with("::") {
            i += 2;
        } else {
            break;
        }
    }
    out.push(path);
    i
}

/// The file a module path lands in: the longest prefix that is a file's module.
fn resolve<'a>(path: &[String], modules: &'a BTreeMap<Vec<String>, usize>) -> Option<&'a usize> {
    (1..=path.len()).rev().find_map(|n| modules.get(&path[..n]))
}

/// Every file's imports: (importing file, imported file, in a test module).
fn imports(files: &[File]) -> Vec<(usize, usize, bool)> {
    let modules: BTreeMap<Vec<String>, usize> = files.iter().enumerate().map(|(i, f)| (f.module.clone(), i)).collect();
    let mut out = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let code = code_only(&f.text);
        let (start, end) = test_block(&code).unwrap_or((code.len(), code.len()));
        let outside = format!("{}{}", &code[..start], &code[end..]);
        for (part, test) in [(outside.as_str(), false), (&code[start..end], true)] {
            let mut targets: Vec<Vec<String>> = paths_after(part, "crate::");
            if !test {
                // `super` is the parent of the file's module, `super::super` its grandparent.
                for p in paths_after(part, "super::") {
                    let ups = 1 + p.iter().take_while(|s| *s == "super").count();
                    let mut base = f.module.clone();
                    base.truncate(base.len().saturating_sub(ups));
                    base.extend(p.into_iter().skip_while(|s| s == "super"));
                    targets.push(base);
                }
                // A folder's own modules, named without a prefix (`use hit::Hit`).
                for child in children(part) {
                    for p in paths_after(part, &format!("{child}::")) {
                        targets.push(f.module.iter().cloned().chain(std::iter::once(child.clone())).chain(p).collect());
                    }
                }
            }
            for t in targets {
                if let Some(&j) = resolve(&t, &modules)
                    && j != i
                    && !out.contains(&(i, j, test))
                {
                    out.push((i, j, test));
                }
            }
        }
    }
    out
}

/// The modules a file declares (`mod name;`, `pub mod name;`).
fn children(code: &str) -> Vec<String> {
    code.lines()
        .filter_map(|l| {
            let l = l.trim();
            let rest = l.strip_prefix("pub mod ").or_else(|| l.strip_prefix("mod "))?;
            let name = rest.strip_suffix(';')?;
            name.chars().all(is_ident).then(|| name.to_string())
        })
        .collect()
}

fn source_files() -> Vec<File> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    collect(&root, &root, &mut files);
    files
}

#[test]
fn every_file_opens_with_its_doc_line() {
    for f in source_files() {
        assert!(f.text.starts_with("//!"), "{} does not open with a `//!` line", f.path.display());
    }
}

#[test]
fn no_file_uses_a_higher_layer() {
    let files = source_files();
    let mut broken = Vec::new();
    for (i, j, test) in imports(&files) {
        let (from, to) = (&files[i].module, &files[j].module);
        let (Some(from_top), Some(to_top)) = (from.first(), to.first()) else { continue };
        if EXEMPT.contains(&from_top.as_str()) {
            continue;
        }
        let (Some(a), Some(b)) = (layer_of(from_top), layer_of(to_top)) else {
            broken.push(format!("{} or {} is in no layer", from.join("::"), to.join("::")));
            continue;
        };
        if b > a || (b == a && from_top != to_top) {
            broken.push(format!("{}{} uses {} (layer {} uses layer {})", from.join("::"), if test { " (tests)" } else { "" }, to.join("::"), a + 1, b + 1));
        }
    }
    for f in files.iter().filter(|f| !EXEMPT.contains(&f.module.join("::").as_str())) {
        if let Some(top) = f.module.first() {
            assert!(layer_of(top).is_some(), "{} is in no layer: add its folder to LAYERS and to lib.rs", f.path.display());
        }
    }
    assert!(broken.is_empty(), "the layering rule is broken:\n{}", broken.join("\n"));
}

#[test]
fn no_files_import_each_other_round_a_circle() {
    let files = source_files();
    let mut edges: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
    for (i, j, test) in imports(&files) {
        if !test {
            edges.entry(i).or_default().insert(j);
        }
    }
    // Depth-first search for a back edge; the path to it is the circle.
    fn visit(n: usize, edges: &BTreeMap<usize, BTreeSet<usize>>, state: &mut BTreeMap<usize, u8>, stack: &mut Vec<usize>) -> Option<Vec<usize>> {
        state.insert(n, 1);
        stack.push(n);
        for &m in edges.get(&n).into_iter().flatten() {
            match state.get(&m) {
                Some(1) => {
                    let at = stack.iter().position(|&s| s == m).expect("on the stack");
                    return Some(stack[at..].iter().copied().chain(std::iter::once(m)).collect());
                }
                Some(_) => {}
                None => {
                    if let Some(c) = visit(m, edges, state, stack) {
                        return Some(c);
                    }
                }
            }
        }
        stack.pop();
        state.insert(n, 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in 0..files.len() {
        if !state.contains_key(&n)
            && let Some(circle) = visit(n, &edges, &mut state, &mut Vec::new())
        {
            let names: Vec<String> = circle.iter().map(|&i| files[i].path.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap_or(&files[i].path).display().to_string()).collect();
            panic!("files import each other round a circle: {}", names.join(" -> "));
        }
    }
}

/// The store's methods that write memories or what is kept of them (the write path's own
/// methods have other names, so a call is found whatever the receiver is called).
const MEMORY_WRITES: &[&str] = &["put_memory", "remove_memory", "set_muted", "set_seed_pack", "set_seed_off", "mark_seed_loaded", "set_seeds_loaded", "set_paused", "put_edge", "remove_edge", "remove_edges_of", "put_situation", "remove_situation", "put_situation_vector", "append_adjustment"];

#[test]
fn memories_are_written_only_through_the_write_path() {
    let mut broken = Vec::new();
    for f in source_files() {
        let module = f.module.join("::");
        // The store defines them, the write path calls them; test code builds its own fixtures.
        if f.module.first().is_some_and(|m| m == "store") || module == "app::writer" || f.module.last().is_some_and(|m| m == "tests") || EXEMPT.contains(&module.as_str()) {
            continue;
        }
        let code = code_only(&f.text);
        let (start, end) = test_block(&code).unwrap_or((code.len(), code.len()));
        let code = format!("{}{}", &code[..start], &code[end..]);
        for method in MEMORY_WRITES {
            if code.contains(&format!(".{method}(")) || code.contains(&format!("::{method}(")) {
                broken.push(format!("{module} calls the store's {method}"));
            }
        }
    }
    assert!(broken.is_empty(), "memory writes outside app::writer's write path:\n{}", broken.join("\n"));
}

#[test]
fn the_reader_sees_what_a_file_imports() {
    let files = vec![
        File { path: "src/a/mod.rs".into(), module: vec!["a".into()], text: "//! a\npub mod x;\nmod z;\n#[cfg(test)]\nmod tests;\npub use x::{Y, z::W};\nuse z::V;\n".into() },
        File {
            path: "src/a/x.rs".into(),
            module: vec!["a".into(), "x".into()],
            text: "//! x\nuse super::z::W; // crate::b::c\nfn f() { let s = \"crate::b\"; let q = ['\"', '\\'']; crate::b::c::go(); }\n#[cfg(test)]\nmod tests { use super::*; use crate::b::B; }\nfn g<'a>(x: &'a str) { let r = r##\"crate::z\"##; /* crate::y */ super::z::V::new(); }\n".into(),
        },
        File { path: "src/a/z.rs".into(), module: vec!["a".into(), "z".into()], text: "//! z\n".into() },
        File { path: "src/b/c.rs".into(), module: vec!["b".into(), "c".into()], text: "//! c\n".into() },
        File { path: "src/b/mod.rs".into(), module: vec!["b".into()], text: "//! b\n".into() },
    ];
    let mut got: Vec<(String, String, bool)> = imports(&files).into_iter().map(|(i, j, t)| (files[i].module.join("::"), files[j].module.join("::"), t)).collect();
    got.sort();
    let want = vec![
        ("a".to_string(), "a::x".to_string(), false),
        ("a".into(), "a::z".into(), false),
        ("a::x".into(), "a::z".into(), false),
        ("a::x".into(), "b".into(), true),
        ("a::x".into(), "b::c".into(), false),
    ];
    assert_eq!(got, want);
}
