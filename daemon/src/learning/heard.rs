//! Whether a user's prompt states a lesson (a correction, a standing instruction, a rule of the
//! project), read by a small learned model over the prompt's meaning rather than by patterns of
//! words: people say rules in more ways than patterns list ("deps live in requirements/base.in",
//! "sidekiq args have to be plain json", a rule in the third sentence of a complaint), and each
//! fresh labelled batch found patterns missing half of them.
//!
//! The model is a logistic regression over two embeddings of the prompt: the whole prompt's and
//! the element-wise maximum over its sentences' (a rule buried in one sentence still shows). It
//! is fitted on the labelled capture sets by `cairn-capture-bench --fit` and ships as data
//! (`heard.json`) with its provenance; it is used only under the embedding model it was fitted
//! with. Which sentence states the lesson is the sentence the model rates highest on its own.
//! Pure: the caller embeds.

use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

use crate::base::logistic::sigmoid;

/// Longest prompt read (as capture's patterns read it).
pub const MAX_PROMPT_CHARS: usize = 4_000;
/// Most sentences embedded for one prompt.
pub const MAX_SENTENCES: usize = 12;

/// The fitted model, as `heard.json` holds it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct PromptModel {
    pub version: u32,
    /// The embedding model the weights were fitted under (its fingerprint).
    pub fingerprint: String,
    pub intercept: f64,
    /// Weights on the whole prompt's embedding, then on the sentences' maximum.
    pub whole: Vec<f64>,
    pub sentences: Vec<f64>,
    /// Probability at or above which a prompt is read as stating a lesson.
    pub threshold: f64,
    pub provenance: serde_json::Value,
}

static BUILTIN: LazyLock<PromptModel> = LazyLock::new(|| serde_json::from_str(include_str!("heard.json")).expect("the shipped prompt model parses"));

/// The shipped model.
pub fn builtin() -> &'static PromptModel {
    &BUILTIN
}

/// What the model reads in a prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    /// Probability that the prompt states a lesson.
    pub probability: f64,
    /// Whether that is at or above the model's threshold.
    pub states_lesson: bool,
    /// The sentence (index into the sentences) the model rates highest on its own.
    pub best: Option<usize>,
}

impl PromptModel {
    /// Whether the weights were fitted under the embedding model `fingerprint`.
    pub fn fits(&self, fingerprint: &str) -> bool {
        self.fingerprint == fingerprint
    }

    fn dimension(&self) -> usize {
        self.whole.len()
    }

    fn logit(&self, whole: &[f32], most: &[f32]) -> f64 {
        let dot = |w: &[f64], v: &[f32]| w.iter().zip(v).map(|(w, x)| w * *x as f64).sum::<f64>();
        self.intercept + dot(&self.whole, whole) + dot(&self.sentences, most)
    }

    /// Reads a prompt from its whole embedding and its sentences' embeddings (in the order of
    /// [`sentences`]). Vectors of another dimension read as no lesson.
    pub fn read(&self, whole: &[f32], sentences: &[Vec<f32>]) -> Reading {
        let d = self.dimension();
        if whole.len() != d || sentences.iter().any(|s| s.len() != d) || self.sentences.len() != d {
            return Reading { probability: 0.0, states_lesson: false, best: None };
        }
        let most = max_pool(sentences).unwrap_or_else(|| whole.to_vec());
        let probability = sigmoid(self.logit(whole, &most));
        // Each sentence on its own, as if it were the whole prompt.
        let best = sentences.iter().enumerate().map(|(i, s)| (i, self.logit(s, s))).max_by(|a, b| a.1.total_cmp(&b.1)).map(|(i, _)| i);
        Reading { probability, states_lesson: probability >= self.threshold, best }
    }
}

/// The element-wise maximum of `vectors` (the model's second input); `None` for none.
pub fn max_pool(vectors: &[Vec<f32>]) -> Option<Vec<f32>> {
    let first = vectors.first()?;
    let mut out = first.clone();
    for v in &vectors[1..] {
        for (o, x) in out.iter_mut().zip(v) {
            *o = o.max(*x);
        }
    }
    Some(out)
}

/// The model's inputs as one row (the whole prompt's embedding, then the sentences' maximum),
/// for fitting.
pub fn features(whole: &[f32], sentences: &[Vec<f32>]) -> Vec<f64> {
    let most = max_pool(sentences).unwrap_or_else(|| whole.to_vec());
    whole.iter().chain(&most).map(|x| *x as f64).collect()
}

/// `text` without the marks the hook leaves where it cut a long field (`...[N bytes cut by
/// cairn]...`): each becomes a sentence break, so that no lesson is read across the cut and no
/// lesson says "cut by cairn".
pub fn without_cut_marks(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("...[") {
        let after = &rest[i + 4..];
        match after.find(']').filter(|&j| j < 40 && after[..j].ends_with("cut by cairn")) {
            Some(j) => {
                out.push_str(rest[..i].trim_end());
                out.push_str(".\n");
                rest = after[j + 1..].trim_start_matches('.');
            }
            None => {
                out.push_str(&rest[..i + 4]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// `text` without a terminal's escape sequences (colours pasted with a command's output:
/// `\x1b[31m`), which are no part of what the user said.
pub fn without_escapes(text: &str) -> String {
    static ESCAPE: LazyLock<regex::Regex> = LazyLock::new(|| regex::Regex::new(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07").expect("a valid pattern"));
    ESCAPE.replace_all(text, "").into_owned()
}

/// The prompt as the model reads it: within [`MAX_PROMPT_CHARS`] (see [`bounded`]), trimmed.
pub fn prompt_text(prompt: &str) -> String {
    bounded(prompt, MAX_PROMPT_CHARS).trim().to_string()
}

/// A prompt within `max` characters: whole when it fits; else its first and its last half,
/// each cut back to whole sentences (a cut never leaves "not no." of "not node."), one after
/// the other. A user who pastes a long log says what they want before it or after it.
pub fn bounded(prompt: &str, max: usize) -> String {
    let chars: Vec<char> = prompt.chars().collect();
    if chars.len() <= max {
        return prompt.to_string();
    }
    let half = max / 2;
    let ends = |c: char| matches!(c, '.' | '!' | '?' | '\n');
    let head: String = chars[..half].iter().collect();
    let head = match head.rfind(ends) {
        Some(i) => head[..=i].to_string(),
        None => String::new(),
    };
    let tail: String = chars[chars.len() - half..].iter().collect();
    let tail = match tail.find(ends) {
        Some(i) => tail[i + 1..].to_string(),
        None => String::new(),
    };
    format!("{}\n{}", head.trim_end(), tail.trim_start())
}

/// The prompt's sentences: split at line ends, at ". ", "! ", "? " and at "; " (a dot inside a
/// path, a version or "e.g." does not end one); pieces of three characters or fewer dropped; at
/// most [`MAX_SENTENCES`]. A prompt with no such piece is one sentence.
pub fn sentences(prompt: &str) -> Vec<String> {
    let text = prompt_text(prompt);
    let mut out = Vec::new();
    for line in text.lines() {
        let mut start = 0;
        let chars: Vec<(usize, char)> = line.char_indices().collect();
        for (k, &(i, c)) in chars.iter().enumerate() {
            let next_is_space = chars.get(k + 1).is_some_and(|(_, n)| n.is_whitespace());
            let ends = match c {
                '!' | '?' => next_is_space,
                ';' => true,
                '.' => next_is_space && !line[..i].ends_with("e.g") && !line[..i].ends_with("i.e"),
                _ => false,
            };
            if ends {
                out.push(line[start..i + c.len_utf8()].to_string());
                start = i + c.len_utf8();
            }
        }
        out.push(line[start..].to_string());
    }
    let mut kept: Vec<String> = out.into_iter().map(|s| s.trim().to_string()).filter(|s| s.chars().count() > 3).collect();
    kept.truncate(MAX_SENTENCES);
    if kept.is_empty() && !text.is_empty() {
        kept.push(text);
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_terminals_escapes_are_no_part_of_a_prompt() {
        assert_eq!(without_escapes("always run \x1b[31mmake lint\x1b[0m before pushing"), "always run make lint before pushing");
    }

    #[test]
    fn the_hooks_cut_marks_are_sentence_breaks() {
        assert_eq!(without_cut_marks("always run make lint before committing because CI rejects it and we lose a day every...[5 more bytes cut by cairn]"), "always run make lint before committing because CI rejects it and we lose a day every.\n");
        assert_eq!(without_cut_marks("head words...[120 bytes cut by cairn]...tail words"), "head words.\ntail words");
        assert_eq!(without_cut_marks("a list...[1, 2] stays"), "a list...[1, 2] stays");
    }

    fn toy(threshold: f64) -> PromptModel {
        // Dimension 2: the first coordinate of the whole prompt, and of the sentences' maximum,
        // says "rule".
        PromptModel { version: 1, fingerprint: "fp".into(), intercept: -1.0, whole: vec![1.0, 0.0], sentences: vec![2.0, 0.0], threshold, provenance: serde_json::Value::Null }
    }

    #[test]
    fn sentences_split_where_a_sentence_ends_and_nowhere_else() {
        let s = sentences("fix the flaky test. btw deps live in requirements/base.in; never edit\nthe lock file by hand!\n\nv1.2.3 e.g. this ok? yes do it");
        assert_eq!(s, ["fix the flaky test.", "btw deps live in requirements/base.in;", "never edit", "the lock file by hand!", "v1.2.3 e.g. this ok?", "yes do it"]);
        assert_eq!(sentences("ok"), ["ok"], "a short prompt is one sentence");
        assert!(sentences("   ").is_empty());
        let many = "a rule here. ".repeat(40);
        assert_eq!(sentences(&many).len(), MAX_SENTENCES);
        // Any text, any script, is split without a panic on a char boundary.
        assert_eq!(sentences("ça va. ünïcödé! 日本語の文。 ok"), ["ça va.", "ünïcödé!", "日本語の文。 ok"]);
    }

    #[test]
    fn the_sentences_maximum_lets_a_buried_rule_show() {
        let m = toy(0.5);
        let request = vec![0.1, 0.9];
        let rule = vec![0.9, 0.1];
        // The whole prompt reads mostly as a request; its second sentence is a rule.
        let read = m.read(&[0.3, 0.7], &[request.clone(), rule.clone()]);
        // logit = -1 + 0.3 + 2 x 0.9 = 1.1
        assert!((read.probability - sigmoid(1.1)).abs() < 1e-6);
        assert!(read.states_lesson);
        assert_eq!(read.best, Some(1));
        let plain = m.read(&[0.1, 0.9], &[request]);
        assert!(!plain.states_lesson);
        assert_eq!(features(&[0.3, 0.7], &[vec![0.1, 0.9], vec![0.9, 0.1]]), vec![0.3f32 as f64, 0.7f32 as f64, 0.9f32 as f64, 0.9f32 as f64]);
    }

    #[test]
    fn another_dimension_or_no_sentence_reads_safely() {
        let m = toy(0.5);
        assert!(!m.read(&[0.9, 0.1, 0.0], &[]).states_lesson);
        let alone = m.read(&[0.9, 0.1], &[]);
        assert_eq!(alone.best, None);
        assert!(alone.states_lesson, "without sentences the whole prompt stands for them");
    }

    #[test]
    fn the_shipped_model_is_whole() {
        let m = builtin();
        assert_eq!(m.whole.len(), m.sentences.len());
        assert!(m.whole.len() >= 64);
        assert!((0.0..1.0).contains(&m.threshold));
        assert!(m.provenance.get("command").is_some() && m.provenance.get("sets").is_some());
    }
}
