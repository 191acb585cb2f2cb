//! Example moments of lessons, embedded: where a lesson applies ("Push the rebased branch: git
//! push -f origin develop") and near misses where it does not. A moment close to one of a
//! lesson's examples is evidence for the lesson even when the action and the lesson share no
//! words; a moment closer to a near miss than to the lesson and its examples is evidence against.
//! Held beside the graphs, rebuilt from the memories when the model loads (they are few: a seed
//! carries about seven). Pure; no I/O.

use foldhash::HashMap;

use sha2::{Digest, Sha256};

use super::similarity::cosine;

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
    moments.iter().map(|m| (cosine(query, &m.vector) as f64, &m.text)).max_by(|a, b| a.0.total_cmp(&b.0)).map(|(c, t)| (c, t.clone()))
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

    /// How close `query` is to `id`'s examples; `None` for a lesson without any.
    pub fn evidence(&self, id: &str, query: &[f32]) -> Option<ExampleEvidence> {
        let e = self.by_id.get(id)?;
        Some(ExampleEvidence { applies: closest(&e.applies, query), not: closest(&e.not, query) })
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
        let e = ex.evidence("push", &[0.8, 0.6]).unwrap();
        assert_eq!(e.applies.as_ref().map(|(_, t)| t.as_str()), Some("force develop"));
        assert!((e.applies.unwrap().0 - 0.96).abs() < 1e-6);
        assert!((e.not.unwrap().0 - 0.6).abs() < 1e-6);
        assert!(ex.evidence("none", &[1.0, 0.0]).is_none());
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
}
