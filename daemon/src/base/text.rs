//! Turns text into index terms: splits words (camelCase and snake_case included), lowercases,
//! drops stop words and very short tokens, and stems with the English Snowball stemmer so that
//! "validating tokens" and "validate token" meet. Also hex, for keys written into cursors and
//! file names.

use std::sync::OnceLock;

use rust_stemmers::{Algorithm, Stemmer};

/// Words too common in prose and hook payloads to tell lessons apart.
const STOP_WORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be",
    "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did",
    "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further", "get", "got", "had",
    "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how", "i", "if", "in", "into", "is",
    "it", "its", "itself", "just", "let", "lets", "like", "make", "me", "more", "most", "my", "need", "no",
    "nor", "not", "now", "of", "off", "on", "once", "one", "only", "or", "other", "our", "ours", "out",
    "over", "own", "please", "same", "she", "should", "so", "some", "such", "sure", "than", "that", "the",
    "their", "theirs", "them", "then", "there", "these", "they", "thing", "things", "this", "those",
    "through", "to", "too", "under", "until", "up", "use", "using", "very", "want", "was", "way", "we",
    "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you",
    "your", "yours", "yourself",
];

fn stemmer() -> &'static Stemmer {
    static STEMMER: OnceLock<Stemmer> = OnceLock::new();
    STEMMER.get_or_init(|| Stemmer::create(Algorithm::English))
}

fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.binary_search(&word).is_ok()
}

/// Splits on anything that is not alphanumeric and on lower-to-upper case changes.
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).flat_map(split_camel)
}

fn split_camel(word: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in word.chars() {
        if c.is_uppercase() && prev_lower && !current.is_empty() {
            parts.push(std::mem::take(&mut current));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        parts.push(current);
    }
    parts
}

/// Index terms of `text`, in order, repeats kept (term frequency matters).
pub fn terms(text: &str) -> Vec<String> {
    terms_with_words(text).into_iter().map(|(term, _)| term).collect()
}

/// Each index term with the lowercased word it came from, for explaining a match.
pub fn terms_with_words(text: &str) -> Vec<(String, String)> {
    words(text)
        .filter(|w| w.chars().count() >= 2 && !w.chars().all(|c| c.is_ascii_digit()) && !is_stop_word(w))
        .map(|w| (stemmer().stem(&w).into_owned(), w))
        .collect()
}

/// Words that mark a clause of a lesson as a warning: its words are what not to do.
const WARNS: &[&str] = &["never", "don't", "dont", "do not", "not", "no", "avoid", "rather than", "instead of", "without", "unless", "skips", "skip"];

/// The clauses of a lesson's prose: split at ';', ',', '(' and ')', at a '.' that ends a
/// sentence, and at a ": " that ends a sentence's lead ("Guard against overlap: ..."), not one
/// that follows a code name (`concurrencyPolicy: Forbid`, `restart_policy: always`).
pub fn clauses(text: &str) -> impl Iterator<Item = &str> {
    text.split([';', ',', '(', ')']).flat_map(|c| c.split(". ")).flat_map(sentence_colons)
}

fn sentence_colons(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, _) in text.match_indices(": ") {
        let before = text[start..i].rsplit(char::is_whitespace).next().unwrap_or("");
        let code_name = before.contains(['_', '.']) || before.chars().skip(1).any(char::is_uppercase) && before.chars().any(char::is_lowercase);
        if !code_name {
            out.push(&text[start..i]);
            start = i + 2;
        }
    }
    out.push(&text[start..]);
    out
}

/// Whether a clause of a lesson warns ("never ...", "don't ...", "instead of ..."): its words
/// are what not to do, not the remedy.
pub fn warns(clause: &str) -> bool {
    let lower = format!(" {} ", clause.to_lowercase().replace(['\u{2019}'], "'"));
    WARNS.iter().any(|w| {
        let mut at = 0;
        while let Some(i) = lower[at..].find(w) {
            let (start, end) = (at + i, at + i + w.len());
            let bounded = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric() && c != '\'');
            if bounded(lower[..start].chars().next_back()) && bounded(lower[end..].chars().next()) {
                return true;
            }
            at = end;
        }
        false
    })
}

/// The index terms of a lesson's clauses that warn: what it says not to do ("never UPDATE or
/// DELETE its rows" gives `updat`, `delet`, `row`), repeats kept.
pub fn warned_terms(text: &str) -> Vec<String> {
    clauses(text).filter(|c| warns(c)).flat_map(terms).collect()
}

/// Bytes as lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Hex read back into bytes; `None` for anything else.
pub fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lesson_splits_into_clauses_that_warn_or_not() {
        let lesson = "Scheduled jobs must guard against overlap: concurrencyPolicy: Forbid on CronJobs; never UPDATE rows (use a new entry).";
        let all: Vec<&str> = clauses(lesson).map(str::trim).collect();
        assert_eq!(all, vec!["Scheduled jobs must guard against overlap", "concurrencyPolicy: Forbid on CronJobs", "never UPDATE rows", "use a new entry", "."]);
        let warned: Vec<&str> = clauses(lesson).filter(|c| warns(c)).map(str::trim).collect();
        assert_eq!(warned, vec!["never UPDATE rows"]);
        assert!(warns("Don\u{2019}t push") && warns("use pnpm instead of npm") && !warns("notify the team") && !warns("nothing"));
    }

    #[test]
    fn stop_words_are_sorted_for_binary_search() {
        let mut sorted = STOP_WORDS.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, STOP_WORDS);
    }

    #[test]
    fn stems_and_drops_noise() {
        assert_eq!(terms("Validating the tokens"), vec!["valid", "token"]);
        assert_eq!(terms("validate token"), vec!["valid", "token"]);
    }

    #[test]
    fn splits_code_identifiers() {
        assert_eq!(terms("validateToken"), vec!["valid", "token"]);
        assert_eq!(terms("user_session_id"), vec!["user", "session", "id"]);
        assert_eq!(terms("git push --force origin main"), vec!["git", "push", "forc", "origin", "main"]);
    }

    #[test]
    fn drops_numbers_and_single_letters() {
        assert!(terms("What is 2+2?").is_empty());
        assert_eq!(terms("a b c HTTP 404"), vec!["http"]);
    }

    #[test]
    fn non_ascii_words_survive() {
        assert_eq!(terms("Übersetzung prüfen"), vec!["übersetzung", "prüfen"]);
    }
}
