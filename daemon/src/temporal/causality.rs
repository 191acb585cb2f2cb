//! Causality (Wake's layer 1, why), pure: what kinds of action a memory may record, the
//! dependencies a new lesson takes from the hour before it, the walk up `caused_by` to the root
//! (safe against cycles and links to what no longer exists), every transitive descendant, and
//! the counts `cairn causality stats` shows.
//!
//! A memory's `caused_by` names what it came from: other memories, or situations (the moments a
//! captured lesson corrected). Its `dependencies` name the memories it was written on top of.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

/// The kinds of action a memory records (`--action-type`): cairn's and Wake's.
pub const ACTION_TYPES: &[&str] = &[
    "conversation", "decision", "file_edit", "tool_use", "research", "implementation", "refactor", "bug_fix", "documentation", "testing", "exploration",
];

/// Most dependencies a new lesson takes from the hour before it.
pub const MAX_DEPENDENCIES: usize = 5;
/// How far back a new lesson looks for what it depends on.
pub const DEPENDENCY_WINDOW_S: i64 = 3600;

/// An action type in its stored form (`bug-fix` and `Bug Fix` are `bug_fix`), or why not.
pub fn action_type(given: &str) -> Result<String, String> {
    let t = given.trim().to_lowercase().replace(['-', ' '], "_");
    if ACTION_TYPES.contains(&t.as_str()) {
        Ok(t)
    } else {
        Err(format!("unknown action type `{given}`: one of {}", ACTION_TYPES.join(", ")))
    }
}

/// What a node of the causal graph is, as the walk sees it.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Memory { text: String, caused_by: Vec<String> },
    Situation { text: String },
    Missing,
}

/// One step of a chain or of a list of dependents.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub id: String,
    /// 0 for the root of a chain (or the first generation of dependents, counted from 1).
    pub depth: usize,
    /// `memory`, `situation` or `missing`.
    pub kind: &'static str,
    pub text: String,
}

/// A node as a step at `depth`.
pub fn step(id: &str, depth: usize, node: &Node) -> Step {
    let (kind, text) = match node {
        Node::Memory { text, .. } => ("memory", text.clone()),
        Node::Situation { text } => ("situation", text.clone()),
        Node::Missing => ("missing", String::new()),
    };
    Step { id: id.to_string(), depth, kind, text }
}

/// The chain from `start` up its first `caused_by` link to the root, root first (depth 0),
/// with notes on where it stopped early: a cycle, or a link to something gone. A memory with
/// several causes follows the first that exists; the others are named in a note.
pub fn chain(start: &str, lookup: impl Fn(&str) -> Node) -> (Vec<Step>, Vec<String>) {
    let mut path: Vec<(String, Node)> = Vec::new();
    let mut notes = Vec::new();
    let mut seen = HashSet::new();
    let mut current = start.to_string();
    loop {
        let node = lookup(&current);
        seen.insert(current.clone());
        let parents = match &node {
            Node::Memory { caused_by, .. } => caused_by.clone(),
            _ => Vec::new(),
        };
        path.push((current.clone(), node.clone()));
        if matches!(node, Node::Missing) {
            notes.push(format!("{current} no longer exists: the chain stops there"));
            break;
        }
        let Some(next) = parents.iter().find(|p| !matches!(lookup(p), Node::Missing)).or(parents.first()).cloned() else { break };
        if parents.len() > 1 {
            let others: Vec<&String> = parents.iter().filter(|p| **p != next).collect();
            notes.push(format!("{current} has other causes too: {}", others.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")));
        }
        if seen.contains(&next) {
            notes.push(format!("{current} -> {next} closes a cycle: the chain stops there"));
            break;
        }
        current = next;
    }
    path.reverse();
    let steps = path.iter().enumerate().map(|(depth, (id, node))| step(id, depth, node)).collect();
    (steps, notes)
}

/// Every memory that descends from `start` through `caused_by` or `dependencies`, nearest
/// first (depth 1: its direct children), each once, whatever cycles there are. `children` maps
/// an id to the memories that name it.
pub fn dependents(start: &str, children: &HashMap<String, Vec<String>>, lookup: impl Fn(&str) -> Node) -> Vec<Step> {
    let mut out = Vec::new();
    let mut seen: HashSet<String> = HashSet::from([start.to_string()]);
    let mut queue: VecDeque<(String, usize)> = VecDeque::from([(start.to_string(), 0)]);
    while let Some((id, depth)) = queue.pop_front() {
        let mut kids = children.get(&id).cloned().unwrap_or_default();
        kids.sort();
        for kid in kids {
            if seen.insert(kid.clone()) {
                out.push(step(&kid, depth + 1, &lookup(&kid)));
                queue.push_back((kid, depth + 1));
            }
        }
    }
    out
}

/// The dependencies of a lesson written at `now` (Unix seconds): the memories changed in the
/// hour before, newest first, at most [`MAX_DEPENDENCIES`]. `recent` is (id, changed at, Unix
/// seconds), in any order; `own` is left out.
pub fn dependencies(recent: &[(String, i64)], now: i64, own: &str) -> Vec<String> {
    let mut within: Vec<&(String, i64)> = recent.iter().filter(|(id, at)| id != own && *at <= now && now - *at <= DEPENDENCY_WINDOW_S).collect();
    within.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    within.dedup_by(|a, b| a.0 == b.0);
    within.into_iter().take(MAX_DEPENDENCIES).map(|(id, _)| id.clone()).collect()
}

/// What `causality stats` counts over a set of memories.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stats {
    pub memories: usize,
    pub with_cause: usize,
    pub with_dependencies: usize,
    /// Memories others descend from that have no cause of their own.
    pub roots: usize,
    pub by_action_type: BTreeMap<String, usize>,
    /// Links to memories or situations that no longer exist.
    pub broken_links: usize,
    /// The longest chain to a root, in links.
    pub deepest_chain: usize,
}

/// One memory as the stats see it.
pub struct Record<'a> {
    pub id: &'a str,
    pub action_type: Option<&'a str>,
    pub caused_by: &'a [String],
    pub dependencies: &'a [String],
}

/// Counts over `records`; `exists` says whether a linked id is a memory or situation there.
pub fn stats(records: &[Record<'_>], exists: impl Fn(&str) -> bool) -> Stats {
    let mut s = Stats { memories: records.len(), ..Stats::default() };
    let named: HashSet<&str> = records.iter().flat_map(|r| r.caused_by.iter().chain(r.dependencies).map(String::as_str)).collect();
    let by_id: HashMap<&str, &Record<'_>> = records.iter().map(|r| (r.id, r)).collect();
    for r in records {
        s.with_cause += usize::from(!r.caused_by.is_empty());
        s.with_dependencies += usize::from(!r.dependencies.is_empty());
        s.roots += usize::from(r.caused_by.is_empty() && named.contains(r.id));
        *s.by_action_type.entry(r.action_type.unwrap_or("unrecorded").to_string()).or_default() += 1;
        s.broken_links += r.caused_by.iter().chain(r.dependencies).filter(|l| !exists(l)).count();
        // Depth up the first cause, cycle-safe.
        let (mut depth, mut seen, mut cur) = (0, HashSet::from([r.id]), r);
        while let Some(next) = cur.caused_by.first().and_then(|p| by_id.get(p.as_str())) {
            if !seen.insert(next.id) {
                break;
            }
            depth += 1;
            cur = next;
        }
        s.deepest_chain = s.deepest_chain.max(depth);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph<'a>(edges: &'a [(&'a str, &'a [&'a str])]) -> impl Fn(&str) -> Node + 'a {
        move |id: &str| match edges.iter().find(|(k, _)| *k == id) {
            Some((_, parents)) => Node::Memory { text: format!("lesson {id}"), caused_by: parents.iter().map(|p| p.to_string()).collect() },
            None if id.starts_with("sit_") => Node::Situation { text: "a moment".into() },
            None => Node::Missing,
        }
    }

    #[test]
    fn a_chain_runs_root_first_and_stops_at_cycles_and_missing_links() {
        let g = graph(&[("c", &["b"]), ("b", &["a"]), ("a", &["sit_1"])]);
        let (steps, notes) = chain("c", &g);
        assert_eq!(steps.iter().map(|s| (s.id.as_str(), s.depth)).collect::<Vec<_>>(), vec![("sit_1", 0), ("a", 1), ("b", 2), ("c", 3)]);
        assert_eq!(steps[0].kind, "situation");
        assert!(notes.is_empty());
        let cyclic = graph(&[("x", &["y"]), ("y", &["z"]), ("z", &["x"])]);
        let (steps, notes) = chain("x", &cyclic);
        assert_eq!(steps.len(), 3, "each once: {steps:?}");
        assert!(notes[0].contains("cycle"), "{notes:?}");
        let broken = graph(&[("m", &["gone"])]);
        let (steps, notes) = chain("m", &broken);
        assert_eq!((steps[0].id.as_str(), steps[0].kind), ("gone", "missing"));
        assert!(notes[0].contains("no longer exists"));
        // Several causes: the first that exists is followed, the rest named.
        let g = graph(&[("m", &["gone", "p"]), ("p", &[])]);
        let (steps, notes) = chain("m", &g);
        assert_eq!(steps.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(), vec!["p", "m"]);
        assert!(notes[0].contains("other causes too: gone"));
        let (alone, _) = chain("solo", graph(&[("solo", &[])]));
        assert_eq!(alone.len(), 1);
    }

    #[test]
    fn dependents_are_every_descendant_once_even_round_a_cycle() {
        let children: HashMap<String, Vec<String>> =
            [("a", vec!["b", "c"]), ("b", vec!["d"]), ("d", vec!["a", "e"]), ("c", vec!["d"])].into_iter().map(|(k, v)| (k.to_string(), v.into_iter().map(str::to_string).collect())).collect();
        let g = graph(&[("a", &[]), ("b", &["a"]), ("c", &["a"]), ("d", &["b"]), ("e", &["d"])]);
        let out = dependents("a", &children, &g);
        assert_eq!(out.iter().map(|s| (s.id.as_str(), s.depth)).collect::<Vec<_>>(), vec![("b", 1), ("c", 1), ("d", 2), ("e", 3)]);
        assert!(dependents("e", &children, &g).is_empty());
    }

    #[test]
    fn a_new_lesson_depends_on_at_most_five_of_the_hour_before() {
        let now = 10_000;
        let recent: Vec<(String, i64)> = (0..8).map(|i| (format!("m{i}"), now - 600 * i)).chain([("old".to_string(), now - 4000), ("self".to_string(), now)]).collect();
        let deps = dependencies(&recent, now, "self");
        assert_eq!(deps, vec!["m0", "m1", "m2", "m3", "m4"]);
        assert!(!deps.contains(&"old".to_string()));
        assert!(dependencies(&[("later".into(), now + 5)], now, "x").is_empty(), "nothing from the future");
    }

    #[test]
    fn action_types_are_checked_and_normalised() {
        assert_eq!(action_type("Bug Fix").unwrap(), "bug_fix");
        assert_eq!(action_type("file-edit").unwrap(), "file_edit");
        assert!(action_type("lunch").unwrap_err().contains("one of conversation"));
    }

    #[test]
    fn stats_count_causes_roots_types_and_broken_links() {
        let (a, b, c) = (vec![], vec!["a".to_string()], vec!["b".to_string(), "gone".to_string()]);
        let deps = vec!["a".to_string()];
        let records = vec![
            Record { id: "a", action_type: Some("decision"), caused_by: &a, dependencies: &[] },
            Record { id: "b", action_type: None, caused_by: &b, dependencies: &deps },
            Record { id: "c", action_type: Some("decision"), caused_by: &c, dependencies: &[] },
        ];
        let s = stats(&records, |id| ["a", "b", "c"].contains(&id));
        assert_eq!((s.memories, s.with_cause, s.with_dependencies, s.roots, s.broken_links, s.deepest_chain), (3, 2, 1, 1, 1, 2));
        assert_eq!(s.by_action_type["decision"], 2);
        assert_eq!(s.by_action_type["unrecorded"], 1);
    }
}
