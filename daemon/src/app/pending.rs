//! The sessions outcome attribution still waits on: noted by the hook (cheaply, after its
//! answer), taken by the outcome worker (`super::outcomes`).

use std::collections::HashSet;
use parking_lot::Mutex;

use tokio::sync::Notify;

/// The sessions with lessons whose outcome is not settled yet.
#[derive(Default)]
pub struct Pending {
    sessions: Mutex<HashSet<String>>,
    wake: Notify,
}

impl Pending {
    /// After a hook event: a session that was just told something (or ended), or that still
    /// waits on an outcome, is read again shortly.
    pub fn note(&self, session: &str, wanted: bool) {
        let mut s = self.sessions.lock();
        if wanted || s.contains(session) {
            s.insert(session.to_string());
            drop(s);
            self.wake.notify_one();
        }
    }

    /// Every session noted, in order; none is left.
    pub fn take(&self) -> Vec<String> {
        let mut s = self.sessions.lock();
        let mut all: Vec<String> = s.drain().collect();
        all.sort();
        all
    }

    /// Keeps a session for the next round.
    pub fn keep(&self, session: String) {
        self.sessions.lock().insert(session);
    }

    pub fn is_empty(&self) -> bool {
        self.sessions.lock().is_empty()
    }

    /// Waits for the next [`Pending::note`].
    pub async fn notified(&self) {
        self.wake.notified().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_sessions_told_something_are_read_again() {
        let p = Pending::default();
        p.note("quiet", false);
        assert!(p.is_empty(), "a session never told anything costs nothing");
        p.note("told", true);
        p.note("told", false);
        assert_eq!(p.take(), vec!["told".to_string()]);
        assert!(p.is_empty());
        p.keep("waiting".into());
        p.note("waiting", false);
        assert_eq!(p.take(), vec!["waiting".to_string()]);
    }
}
