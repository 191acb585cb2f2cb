//! The most recently changed memories of each project, newest first and bounded, kept beside
//! the store so that the session-start brief and `resume` never scan a whole project on the
//! hook's path. Pure; no I/O: the daemon feeds it at start and on every write.

use std::collections::HashMap;

/// Memories remembered per project.
pub const KEPT: usize = 256;

#[derive(Debug, Default)]
pub struct RecentChanges {
    /// Per project: (updated_at, id), newest first, ids unique.
    projects: HashMap<String, Vec<(String, String)>>,
}

impl RecentChanges {
    /// Notes that `id` (now in `project`) changed at `updated_at` (RFC 3339, UTC: sorts as text).
    pub fn note(&mut self, project: &str, id: &str, updated_at: &str) {
        self.forget(id);
        let list = self.projects.entry(project.to_string()).or_default();
        let at = list.partition_point(|(t, _)| t.as_str() > updated_at);
        if at >= KEPT {
            return;
        }
        list.insert(at, (updated_at.to_string(), id.to_string()));
        list.truncate(KEPT);
    }

    pub fn forget(&mut self, id: &str) {
        for list in self.projects.values_mut() {
            list.retain(|(_, i)| i != id);
        }
    }

    /// The newest changes of `project`, newest first.
    pub fn newest(&self, project: &str) -> &[(String, String)] {
        self.projects.get(project).map_or(&[], Vec::as_slice)
    }

    /// Ids of `project`'s memories changed after `since`, newest first.
    pub fn changed_since(&self, project: &str, since: &str) -> Vec<String> {
        self.newest(project).iter().take_while(|(t, _)| t.as_str() > since).map(|(_, id)| id.clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_newest_first_and_moves_on_change() {
        let mut r = RecentChanges::default();
        r.note("p", "a", "2026-01-01T00:00:01Z");
        r.note("p", "b", "2026-01-01T00:00:03Z");
        r.note("p", "c", "2026-01-01T00:00:02Z");
        let ids = |r: &RecentChanges| r.newest("p").iter().map(|(_, i)| i.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&r), vec!["b", "c", "a"]);
        r.note("p", "a", "2026-01-01T00:00:09Z");
        assert_eq!(ids(&r), vec!["a", "b", "c"], "a change moves a memory to the front");
        r.note("q", "b", "2026-01-01T00:00:10Z");
        assert_eq!(ids(&r), vec!["a", "c"], "a memory lives in one project");
        assert_eq!(r.changed_since("p", "2026-01-01T00:00:05Z"), vec!["a".to_string()]);
        r.forget("a");
        assert!(r.changed_since("p", "2026-01-01T00:00:05Z").is_empty());
    }

    #[test]
    fn stays_bounded() {
        let mut r = RecentChanges::default();
        for i in 0..KEPT + 50 {
            r.note("p", &format!("m{i}"), &format!("2026-01-01T00:{:02}:{:02}Z", i / 60, i % 60));
        }
        assert_eq!(r.newest("p").len(), KEPT);
        assert_eq!(r.newest("p")[0].1, format!("m{}", KEPT + 49));
    }
}
