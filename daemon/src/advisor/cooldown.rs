//! Per-session cooldown: a memory advised in a session is not repeated there until the cooldown
//! has passed. Time is passed in, so the logic is pure and testable.

use std::collections::HashMap;
use std::time::{Duration, Instant};

/// Most sessions tracked at once; the least recently active are dropped past it.
const MAX_SESSIONS: usize = 4096;

#[derive(Default)]
pub struct Cooldowns {
    sessions: HashMap<String, Session>,
}

#[derive(Default)]
struct Session {
    last_seen: Option<Instant>,
    advised: HashMap<String, Instant>,
}

impl Cooldowns {
    /// Whether `memory` may be advised in `session` at `now`.
    pub fn allows(&self, session: &str, memory: &str, now: Instant, cooldown: Duration) -> bool {
        self.sessions
            .get(session)
            .and_then(|s| s.advised.get(memory))
            .is_none_or(|at| now.saturating_duration_since(*at) >= cooldown)
    }

    pub fn record(&mut self, session: &str, memory: &str, now: Instant) {
        if !self.sessions.contains_key(session) && self.sessions.len() >= MAX_SESSIONS {
            self.evict_oldest();
        }
        let entry = self.sessions.entry(session.to_string()).or_default();
        entry.last_seen = Some(now);
        entry.advised.insert(memory.to_string(), now);
    }

    /// Forgets a session (it ended).
    pub fn end(&mut self, session: &str) {
        self.sessions.remove(session);
    }

    fn evict_oldest(&mut self) {
        if let Some(oldest) = self.sessions.iter().min_by_key(|(_, s)| s.last_seen).map(|(k, _)| k.clone()) {
            self.sessions.remove(&oldest);
        }
    }

    pub fn sessions(&self) -> usize {
        self.sessions.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeats_wait_for_the_cooldown() {
        let mut c = Cooldowns::default();
        let t0 = Instant::now();
        let cd = Duration::from_secs(60);
        assert!(c.allows("s", "m", t0, cd));
        c.record("s", "m", t0);
        assert!(!c.allows("s", "m", t0 + Duration::from_secs(59), cd));
        assert!(c.allows("s", "m", t0 + Duration::from_secs(60), cd));
        assert!(c.allows("other", "m", t0, cd));
        c.end("s");
        assert!(c.allows("s", "m", t0, cd));
    }

    #[test]
    fn session_count_is_bounded() {
        let mut c = Cooldowns::default();
        let t0 = Instant::now();
        for i in 0..MAX_SESSIONS + 10 {
            c.record(&format!("s{i}"), "m", t0 + Duration::from_millis(i as u64));
        }
        assert_eq!(c.sessions(), MAX_SESSIONS);
        assert!(c.allows("s0", "m", t0, Duration::from_secs(60)), "oldest session was evicted");
    }
}
