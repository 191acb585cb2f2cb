//! Caches the mapping from an event's working directory to its project (see
//! [`cairn_proto::project::project_of`]), since every hook event asks.

use std::collections::HashMap;
use std::path::Path;
use parking_lot::Mutex;
use std::time::{Duration, Instant};

use cairn_proto::project::project_of;

const TTL: Duration = Duration::from_secs(30);
const MAX_CACHED: usize = 1024;

/// Caches cwd -> project for a short while.
#[derive(Default)]
pub struct ProjectResolver {
    cache: Mutex<HashMap<String, (String, Instant)>>,
}

impl ProjectResolver {
    pub fn resolve(&self, cwd: &str) -> String {
        let now = Instant::now();
        if let Some((project, at)) = self.cache.lock().get(cwd)
            && now.duration_since(*at) < TTL
        {
            return project.clone();
        }
        let project = project_of(Path::new(cwd));
        let mut cache = self.cache.lock();
        if cache.len() >= MAX_CACHED {
            cache.retain(|_, (_, at)| now.duration_since(*at) < TTL);
            if cache.len() >= MAX_CACHED {
                cache.clear();
            }
        }
        cache.insert(cwd.to_string(), (project.clone(), now));
        project
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_and_caches() {
        let r = ProjectResolver::default();
        assert_eq!(r.resolve("/no/such/dir"), "/no/such/dir");
        assert_eq!(r.resolve("/no/such/dir/"), "/no/such/dir");
    }
}
