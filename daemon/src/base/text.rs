//! Turns text into index terms: splits words (camelCase and snake_case included), lowercases,
//! drops stop words and very short tokens, and stems with the English Snowball stemmer so that
//! "validating tokens" and "validate token" meet.

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

#[cfg(test)]
mod tests {
    use super::*;

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
