//! Example moments of lessons, embedded: where a lesson applies ("Push the rebased branch: git
//! push -f origin develop") and near misses where it does not. A moment close to one of a
//! lesson's examples is evidence for the lesson even when the action and the lesson share no
//! words; a moment closer to a near miss than to the lesson and its examples is evidence against.
//! Held beside the graphs, rebuilt from the memories when the model loads (they are few: a seed
//! carries about seven). Pure; no I/O.

use foldhash::{HashMap, HashSet};

use sha2::{Digest, Sha256};

use super::similarity::cosine;
use crate::base::text;

/// One example moment and its embedding.
#[derive(Debug, Clone, PartialEq)]
pub struct Moment {
    pub text: String,
    pub vector: Vec<f32>,
}

/// A lesson's example moments, embedded.
#[derive(Debug, Clone, PartialEq)]
pub struct LessonExamples {
    pub project: String,
    /// Hash of the texts embedded (see [`hash`]): unchanged examples are not embedded again.
    pub hash: String,
    pub applies: Vec<Moment>,
    pub not: Vec<Moment>,
}

/// How close a moment is to a lesson's examples: the closest of each kind, with its text.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ExampleEvidence {
    pub applies: Option<(f64, String)>,
    pub not: Option<(f64, String)>,
}

/// The hash that says whether a lesson's examples (or its project) changed.
pub fn hash(project: &str, applies: &[String], not: &[String]) -> String {
    let joined = format!("{project}\u{1d}{}\u{1e}{}", applies.join("\u{1f}"), not.join("\u{1f}"));
    Sha256::digest(joined.as_bytes()).iter().take(12).map(|b| format!("{b:02x}")).collect()
}

fn closest(moments: &[Moment], query: &[f32]) -> Option<(f64, String)> {
    closest_weighed(moments, query, &|_| 1.0)
}

/// The closest of `moments`, each cosine scaled by `weigh(text)` (at most 1). Weighed from the
/// closest down, and only while a cosine could still beat the best weighed one: a weight reads
/// the example's words, and this runs for every hit of every hook event.
fn closest_weighed(moments: &[Moment], query: &[f32], weigh: &dyn Fn(&str) -> f64) -> Option<(f64, String)> {
    let mut by_cosine: Vec<(f64, &String)> = moments.iter().map(|m| (cosine(query, &m.vector) as f64, &m.text)).collect();
    by_cosine.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut best: Option<(f64, &String)> = None;
    for (c, text) in by_cosine {
        if best.is_some_and(|(b, _)| c <= b) {
            break;
        }
        let w = c * weigh(text);
        if best.is_none_or(|(b, _)| w > b) {
            best = Some((w, text));
        }
    }
    best.map(|(c, t)| (c, t.clone()))
}

/// What an example lends a moment that has none of its anchors, as a share of its cosine: the
/// rest comes as far as the moment has them. Chosen on the tune part of the fresh-install set and
/// a tune set of routine commands (BENCHMARKS.md): 0.25-0.6 read the same on the first, 0.75 left
/// none of the second advised, 0.85 and up gave back harm on the first.
const UNANCHORED: f64 = 0.75;

/// The share of an example's anchors (its terms the lesson also has, by `lesson_has`) that the
/// moment's terms hold, as the weight of the example's closeness ([`UNANCHORED`] with none, 1
/// with all). "Clear the build directory: rm -rf $BUILD_DIR/" is an example of the `rm -rf
/// $DIR/` lesson by `rm`, `rf` and `dir`; "Delete the old build log: rm build/output.log" is as
/// close in meaning (the model reads "build") with `rm` alone. An example sharing no word with
/// its lesson counts in full.
pub fn anchor_share(example: &str, moment_terms: &HashSet<String>, lesson_has: &dyn Fn(&str) -> bool) -> f64 {
    let anchors: HashSet<String> = text::terms(example).into_iter().filter(|t| lesson_has(t)).collect();
    if anchors.is_empty() {
        return 1.0;
    }
    let share = anchors.iter().filter(|t| moment_terms.contains(t.as_str())).count() as f64 / anchors.len() as f64;
    UNANCHORED + (1.0 - UNANCHORED) * share
}

/// Every lesson's examples, by memory id.
#[derive(Debug, Default, Clone)]
pub struct Examples {
    by_id: HashMap<String, LessonExamples>,
}

impl Examples {
    /// Lessons with examples.
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// The hash of what is held for `id`, to tell whether its examples changed.
    pub fn hash_of(&self, id: &str) -> Option<&str> {
        self.by_id.get(id).map(|e| e.hash.as_str())
    }

    /// The lessons held.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.by_id.keys().map(String::as_str)
    }

    pub fn set(&mut self, id: &str, examples: LessonExamples) {
        self.by_id.insert(id.to_string(), examples);
    }

    pub fn remove(&mut self, id: &str) -> bool {
        self.by_id.remove(id).is_some()
    }

    /// How close `query` is to `id`'s examples; `None` for a lesson without any. Each example
    /// the lesson applies to lends its cosine scaled by `weigh(its text)` (how far the moment
    /// shares its anchors: [`anchor_share`]); a near miss counts in full (a wrong silence costs
    /// less than a wrong word).
    pub fn evidence(&self, id: &str, query: &[f32], weigh: &dyn Fn(&str) -> f64) -> Option<ExampleEvidence> {
        let e = self.by_id.get(id)?;
        Some(ExampleEvidence { applies: closest_weighed(&e.applies, query, weigh), not: closest(&e.not, query) })
    }

    /// The `k` lessons among `projects` whose closest example is closest to `query`, with that
    /// cosine. A linear scan: examples are few (a handful per lesson that has any).
    pub fn search(&self, query: &[f32], projects: &[&str], k: usize) -> Vec<(String, f64)> {
        let mut hits: Vec<(String, f64)> = self
            .by_id
            .iter()
            .filter(|(_, e)| projects.contains(&e.project.as_str()))
            .filter_map(|(id, e)| closest(&e.applies, query).map(|(c, _)| (id.clone(), c)))
            .collect();
        hits.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        hits.truncate(k);
        hits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moment(text: &str, v: [f32; 2]) -> Moment {
        Moment { text: text.into(), vector: v.to_vec() }
    }

    #[test]
    fn evidence_is_the_closest_of_each_kind() {
        let mut ex = Examples::default();
        ex.set("push", LessonExamples { project: "global".into(), hash: hash("global", &["a".into()], &[]), applies: vec![moment("force main", [1.0, 0.0]), moment("force develop", [0.6, 0.8])], not: vec![moment("own branch", [0.0, 1.0])] });
        ex.set("other", LessonExamples { project: "/elsewhere".into(), hash: String::new(), applies: vec![moment("x", [1.0, 0.0])], not: vec![] });
        let e = ex.evidence("push", &[0.8, 0.6], &|_| 1.0).unwrap();
        assert_eq!(e.applies.as_ref().map(|(_, t)| t.as_str()), Some("force develop"));
        assert!((e.applies.unwrap().0 - 0.96).abs() < 1e-6);
        assert!((e.not.unwrap().0 - 0.6).abs() < 1e-6);
        assert!(ex.evidence("none", &[1.0, 0.0], &|_| 1.0).is_none());
        assert_eq!(ex.search(&[1.0, 0.0], &["global"], 5), vec![("push".to_string(), 1.0)], "another project's lesson is not found");
        assert_eq!(ex.search(&[1.0, 0.0], &["global", "/elsewhere"], 5).len(), 2);
        assert!(ex.remove("push") && !ex.remove("push"));
    }

    #[test]
    fn the_hash_tells_the_kinds_apart() {
        assert_ne!(hash("p", &["a".into()], &[]), hash("p", &[], &["a".into()]));
        assert_ne!(hash("p", &["a b".into()], &[]), hash("p", &["a".into(), "b".into()], &[]));
        assert_ne!(hash("p", &["a".into()], &[]), hash("q", &["a".into()], &[]));
        assert_eq!(hash("p", &["a".into()], &["b".into()]), hash("p", &["a".into()], &["b".into()]));
    }

    #[test]
    fn an_example_lends_its_closeness_as_far_as_the_moment_has_its_anchors() {
        let lesson = text::terms("Before `rm -rf` on a path built from a variable or glob, print the expanded path (or use `${VAR:?}`): an empty variable turns `rm -rf $DIR/` into `rm -rf /`.");
        let has = |t: &str| lesson.iter().any(|l| l == t);
        let terms = |s: &str| text::terms(s).into_iter().collect::<HashSet<String>>();
        let example = "Clear the build directory: rm -rf $BUILD_DIR/";
        assert_eq!(anchor_share(example, &terms("Wipe the output folder rm -rf $OUT_DIR/"), &has), 1.0, "every anchor: the full closeness");
        let some = anchor_share(example, &terms("Delete the old build log rm build/output.log"), &has);
        assert!((some - (UNANCHORED + (1.0 - UNANCHORED) / 3.0)).abs() < 1e-9, "`rm` without `rf` and `dir`: {some}");
        assert_eq!(anchor_share(example, &terms("Open a pull request gh pr create"), &has), UNANCHORED, "none of them");
        assert_eq!(anchor_share("Tidy up the workspace", &terms("anything"), &has), 1.0, "an example sharing no word with its lesson counts in full");
        // In the evidence: the closest example after weighing, near misses in full.
        let mut ex = Examples::default();
        ex.set("rm", LessonExamples { project: "global".into(), hash: String::new(), applies: vec![moment("rm -rf $BUILD_DIR/", [1.0, 0.0]), moment("find . -delete", [0.8, 0.6])], not: vec![moment("rm tmp.csv", [1.0, 0.0])] });
        let e = ex.evidence("rm", &[1.0, 0.0], &|t| if t.starts_with("rm") { 0.75 } else { 1.0 }).unwrap();
        assert_eq!(e.applies.map(|(c, t)| ((c * 100.0).round(), t)), Some((80.0, "find . -delete".to_string())));
        assert_eq!(e.not.map(|(c, _)| c), Some(1.0));
    }
}
