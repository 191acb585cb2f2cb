//! What of a memory is embedded, and the hash that tells a current vector from a stale one.

use cairn_proto::Memory;
use sha2::{Digest, Sha256};

/// What of a memory is embedded: its text, and the situation it applies to when it names one.
pub fn embedding_text(memory: &Memory) -> String {
    if memory.context.trim().is_empty() {
        memory.text.clone()
    } else {
        format!("{}\n{}", memory.text, memory.context.trim())
    }
}

/// A short, stable hash of an embedded text: tells a current vector from a stale one.
pub fn text_hash(text: &str) -> String {
    Sha256::digest(text.as_bytes()).iter().take(12).map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_stable_and_tell_texts_apart() {
        assert_eq!(text_hash("abc"), text_hash("abc"));
        assert_ne!(text_hash("abc"), text_hash("abd"));
        assert_eq!(text_hash("abc"), "ba7816bf8f01cfea414140de", "sha256 of 'abc', first 12 bytes");
    }

    #[test]
    fn the_context_is_embedded_with_the_text() {
        let mut m = crate::exchange::new_memory("a".into(), "p".into(), "Pin versions".into(), "deps".into(), "user".into(), vec![], String::new());
        assert_eq!(embedding_text(&m), "Pin versions");
        m.context = "  in CI  ".into();
        assert_eq!(embedding_text(&m), "Pin versions\nin CI");
    }
}
