//! Capture's own state, in one tree by prefix: `s\0<key>` a moment already read (so a session
//! read again captures nothing twice), `r\0<text key>` a text the user rejected (never captured
//! again), `f\0<signature>` a failure's record (the sessions it was seen in, bounded).

use serde::{Deserialize, Serialize};

use super::codec::{decode, encode, StoreError};
use super::Store;

/// Most sessions kept per failure signature.
const FAILURE_SESSIONS: usize = 8;
/// Most moments remembered as read; past it the oldest half is dropped (a moment that old is past
/// every window that could read it again).
const MAX_SEEN: usize = 50_000;

/// A failure seen across sessions.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FailureRecord {
    pub project: String,
    /// What failed and how, in words (the latest).
    pub call: String,
    pub gist: String,
    /// Sessions it was seen in, oldest first, without a recovery.
    pub sessions: Vec<String>,
    /// Set once a candidate was made of it (or offered and turned away).
    #[serde(default)]
    pub captured: bool,
    /// The first moment it was seen in each of `sessions` (a record from before they were kept
    /// has none): the candidate's evidence.
    #[serde(default)]
    pub moments: Vec<cairn_proto::Moment>,
}

/// A rejection: the words rejected and the candidate they were.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rejected {
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidate: Option<String>,
}

impl Rejected {
    /// A stored rejection; one written before they were records is its text alone.
    fn read(bytes: &[u8]) -> Rejected {
        serde_json::from_slice(bytes).unwrap_or_else(|_| Rejected { text: String::from_utf8_lossy(bytes).into_owned(), candidate: None })
    }
}

fn key(prefix: &str, rest: &str) -> Vec<u8> {
    [prefix.as_bytes(), b"\0", rest.as_bytes()].concat()
}

/// A text's key for rejection: its words, lowercased, without punctuation.
pub fn text_key(text: &str) -> String {
    text.to_lowercase().split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")
}

impl Store {
    /// Whether the moment `key` was read already; marks it read.
    pub fn capture_seen(&self, moment: &str) -> Result<bool, StoreError> {
        self.writable()?;
        let k = key("s", moment);
        let before = self.captures.insert(&k, crate::base::clock::now().as_bytes())?;
        if before.is_none() && self.captures.scan_prefix(b"s\0").count() > MAX_SEEN {
            let drop: Vec<_> = self.captures.scan_prefix(b"s\0").filter_map(|r| r.ok()).map(|(k, v)| (v, k)).collect::<std::collections::BTreeMap<_, _>>().into_values().take(MAX_SEEN / 2).collect();
            for k in drop {
                self.captures.remove(k)?;
            }
        }
        Ok(before.is_some())
    }

    /// Remembers a text the user rejected in `project`, with the candidate it was (when the
    /// rejection comes from review: a candidate edited before it was rejected leaves two texts,
    /// one rejection).
    pub fn reject_text(&self, project: &str, text: &str, candidate: Option<&str>) -> Result<(), StoreError> {
        self.keep_rejection(&format!("{project}\0{}", text_key(text)), text, candidate)
    }

    fn keep_rejection(&self, rest: &str, text: &str, candidate: Option<&str>) -> Result<(), StoreError> {
        self.writable()?;
        let record = Rejected { text: text.to_string(), candidate: candidate.map(str::to_string) };
        self.captures.insert(key("r", rest), encode(&record))?;
        Ok(())
    }

    /// Whether the user rejected `text` in `project` (or anywhere, before rejections were kept
    /// per project).
    pub fn is_rejected(&self, project: &str, text: &str) -> Result<bool, StoreError> {
        let words = text_key(text);
        Ok(self.captures.contains_key(key("r", &format!("{project}\0{words}")))? || self.captures.contains_key(key("r", &words))?)
    }

    /// Remembers the words a candidate was captured in, at its first edit: rejected, the
    /// candidate's first words are rejected too.
    pub fn note_edited(&self, id: &str, text: &str) -> Result<(), StoreError> {
        self.writable()?;
        self.captures.compare_and_swap(key("e", id), None::<&[u8]>, Some(text.as_bytes()))?.ok();
        Ok(())
    }

    /// The words a candidate was captured in, if it was edited since; forgets them.
    pub fn take_edited(&self, id: &str) -> Result<Option<String>, StoreError> {
        self.writable()?;
        Ok(self.captures.remove(key("e", id))?.map(|v| String::from_utf8_lossy(&v).into_owned()))
    }

    /// Every text the user rejected, in key order: its project (`None` for one kept before
    /// rejections were per project), its words as they were rejected and the candidate it was
    /// (when known). For export.
    pub fn rejected_texts(&self) -> Result<Vec<(Option<String>, Rejected)>, StoreError> {
        let mut out = Vec::new();
        for entry in self.captures.scan_prefix(b"r\0") {
            let (k, v) = entry?;
            let rest = String::from_utf8_lossy(&k[2..]).into_owned();
            let project = rest.split_once('\0').map(|(p, _)| p.to_string());
            out.push((project, Rejected::read(&v)));
        }
        Ok(out)
    }

    /// Brings back a rejection from an export, as it was kept (per project, or anywhere).
    pub fn restore_rejection(&self, project: Option<&str>, text: &str, candidate: Option<&str>) -> Result<(), StoreError> {
        match project {
            Some(p) => self.reject_text(p, text, candidate),
            None => self.keep_rejection(&text_key(text), text, candidate),
        }
    }

    /// How many rejections the user made: the candidates rejected (one, however many texts it
    /// left), and each text kept without its candidate (from a release before they were kept).
    /// For `status`, which shows what it can: an entry the store cannot read is not counted.
    /// With `project`, only its own rejections and those kept before they were per project.
    pub fn rejected_count(&self, project: Option<&str>) -> usize {
        let mut candidates = std::collections::HashSet::new();
        let mut without = 0;
        let prefix = match project {
            Some(p) => [b"r\0".as_slice(), p.as_bytes(), b"\0"].concat(),
            None => b"r\0".to_vec(),
        };
        // Rejections kept before they were per project have no project in their key.
        let older = project.map(|_| self.captures.scan_prefix(b"r\0").filter_map(Result::ok).filter(|(k, _)| !k[2..].contains(&0u8)));
        for (_, value) in self.captures.scan_prefix(prefix).filter_map(Result::ok).chain(older.into_iter().flatten()) {
            match Rejected::read(&value).candidate {
                Some(id) => {
                    candidates.insert(id);
                }
                None => without += 1,
            }
        }
        candidates.len() + without
    }

    /// The words `candidate` was rejected in, if the user rejected it in review.
    pub fn rejection_of(&self, candidate: &str) -> Result<Option<String>, StoreError> {
        for entry in self.captures.scan_prefix(b"r\0") {
            let r = Rejected::read(&entry?.1);
            if r.candidate.as_deref() == Some(candidate) {
                return Ok(Some(r.text));
            }
        }
        Ok(None)
    }

    /// Notes a failure with `signature` in `session`; returns its record as it is now.
    pub fn note_failure(&self, signature: &str, project: &str, moment: &cairn_proto::Moment, call: &str, gist: &str) -> Result<FailureRecord, StoreError> {
        let session = moment.session.as_str();
        self.writable()?;
        let k = key("f", &format!("{project}\0{signature}"));
        let mut r: FailureRecord = match self.captures.get(&k)? {
            Some(v) => decode(&k, &v)?,
            None => FailureRecord { project: project.into(), ..Default::default() },
        };
        r.call = call.into();
        r.gist = gist.into();
        if !r.sessions.iter().any(|s| s == session) {
            r.sessions.push(session.into());
            r.moments.push(moment.clone());
            if r.sessions.len() > FAILURE_SESSIONS {
                r.sessions.remove(0);
            }
            // Only the kept sessions' moments.
            r.moments.retain(|m| r.sessions.contains(&m.session));
        }
        self.captures.insert(&k, encode(&r))?;
        Ok(r)
    }

    /// Marks a failure as captured (or recovered from: it no longer waits for a repeat).
    pub fn failure_done(&self, signature: &str, project: &str) -> Result<(), StoreError> {
        let k = key("f", &format!("{project}\0{signature}"));
        if let Some(v) = self.captures.get(&k)? {
            let mut r: FailureRecord = decode(&k, &v)?;
            r.captured = true;
            self.captures.insert(&k, encode(&r))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn moments_rejections_and_failures_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("store"), 8 << 20).unwrap();
        assert!(!store.capture_seen("s1\0t1").unwrap());
        assert!(store.capture_seen("s1\0t1").unwrap(), "read once");
        store.reject_text("/a", "Use pnpm here, not npm.", Some("c0")).unwrap();
        assert!(store.is_rejected("/a", "use pnpm here -- not NPM").unwrap());
        assert!(!store.is_rejected("/b", "Use pnpm here, not npm.").unwrap(), "rejected in its project only");
        assert!(!store.is_rejected("/a", "Use yarn here.").unwrap());
        assert_eq!(store.rejected_count(None), 1);
        // A candidate edited, then rejected: two texts, one rejection.
        store.reject_text("/a", "Use pnpm in this repository; npm writes a second lockfile.", Some("c0")).unwrap();
        assert_eq!(store.rejected_count(None), 1);
        assert_eq!(store.rejection_of("c0").unwrap().as_deref(), Some("Use pnpm here, not npm."));
        assert_eq!(store.rejection_of("c9").unwrap(), None);
        store.restore_rejection(None, "Never run the seed script.", None).unwrap();
        // A rejection kept before they were records, as its text alone.
        store.captures.insert(key("r", "/a\0hand edit the lockfile"), b"Hand-edit the lockfile.".as_slice()).unwrap();
        assert_eq!(store.rejected_count(None), 3);
        // A project's count: its own rejections and those kept before projects.
        store.reject_text("/b", "Never edit vendor/.", Some("c1")).unwrap();
        assert_eq!((store.rejected_count(Some("/a")), store.rejected_count(Some("/b")), store.rejected_count(Some("/c"))), (3, 2, 1));
        assert_eq!(store.rejected_count(None), 4);
        store.captures.remove(key("r", "/b\0never edit vendor")).unwrap();
        assert!(store.is_rejected("/b", "never run the seed script").unwrap(), "one kept before projects: anywhere");
        let kept = store.rejected_texts().unwrap();
        let r = |text: &str, candidate: Option<&str>| Rejected { text: text.into(), candidate: candidate.map(str::to_string) };
        assert_eq!(kept, vec![
            (Some("/a".to_string()), r("Hand-edit the lockfile.", None)),
            (Some("/a".to_string()), r("Use pnpm here, not npm.", Some("c0"))),
            (Some("/a".to_string()), r("Use pnpm in this repository; npm writes a second lockfile.", Some("c0"))),
            (None, r("Never run the seed script.", None)),
        ]);
        store.note_edited("c1", "Rubocop -a, not -A.").unwrap();
        store.note_edited("c1", "a second edit keeps the first words").unwrap();
        assert_eq!(store.take_edited("c1").unwrap().as_deref(), Some("Rubocop -a, not -A."));
        assert_eq!(store.take_edited("c1").unwrap(), None);
        let seen = |session: &str, at: &str| cairn_proto::Moment { at: at.into(), session: session.into(), event: "PostToolUseFailure".into(), text: "Bash `make deploy` failed: token expired".into() };
        store.note_failure("make deploy :: token expired", "p", &seen("a", "1"), "make deploy", "token expired").unwrap();
        store.note_failure("make deploy :: token expired", "p", &seen("a", "2"), "make deploy", "token expired").unwrap();
        let r = store.note_failure("make deploy :: token expired", "p", &seen("b", "3"), "make deploy", "token expired").unwrap();
        assert_eq!(r.sessions, vec!["a", "b"]);
        // The first moment of each session, for the candidate's evidence.
        assert_eq!(r.moments, vec![seen("a", "1"), seen("b", "3")]);
        assert!(!r.captured);
        store.failure_done("make deploy :: token expired", "p").unwrap();
        let r = store.note_failure("make deploy :: token expired", "p", &seen("c", "4"), "make deploy", "token expired").unwrap();
        assert!(r.captured && r.sessions.len() == 3);
    }
}
