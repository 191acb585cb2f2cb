//! The progress of long jobs (embedding after a load, a reindex) that clients poll: a small
//! registry of the latest jobs, each with its phase, counts and outcome. In memory only; a
//! restarted daemon has no jobs.

use parking_lot::Mutex;
use std::time::Instant;

use cairn_proto::JobProgress;

/// Finished jobs remembered for `cairn status` and polling clients.
const KEPT: usize = 8;

struct Job {
    progress: JobProgress,
    started: Instant,
}

#[derive(Default)]
pub struct Jobs {
    jobs: Mutex<Vec<Job>>,
    next: std::sync::atomic::AtomicU64,
}

fn millis_since(t: Instant) -> u64 {
    t.elapsed().as_millis() as u64
}

impl Jobs {
    /// Registers a new job of `kind` unless one is running; the job, and whether it is new.
    pub fn start_once(&self, kind: &str, phase: &str) -> (JobProgress, bool) {
        let mut jobs = self.jobs.lock();
        if let Some(j) = jobs.iter().find(|j| !j.progress.finished && j.progress.kind == kind) {
            return (j.progress.clone(), false);
        }
        (self.push(&mut jobs, kind, phase, 0), true)
    }

    /// Registers a new job; the oldest finished ones make room for it.
    pub fn start(&self, kind: &str, phase: &str, total: u64) -> JobProgress {
        let mut jobs = self.jobs.lock();
        self.push(&mut jobs, kind, phase, total)
    }

    fn push(&self, jobs: &mut Vec<Job>, kind: &str, phase: &str, total: u64) -> JobProgress {
        let progress = JobProgress {
            id: self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1,
            kind: kind.into(),
            phase: phase.into(),
            done: 0,
            total,
            finished: false,
            error: None,
            started_at: crate::base::clock::now(),
            elapsed_ms: 0,
        };
        jobs.push(Job { progress: progress.clone(), started: Instant::now() });
        while jobs.len() > KEPT {
            match jobs.iter().position(|j| j.progress.finished) {
                Some(i) => {
                    jobs.remove(i);
                }
                None => break,
            }
        }
        progress
    }

    pub fn update(&self, id: u64, f: impl FnOnce(&mut JobProgress)) {
        if let Some(j) = self.jobs.lock().iter_mut().find(|j| j.progress.id == id) {
            f(&mut j.progress);
            if j.progress.finished {
                j.progress.elapsed_ms = millis_since(j.started);
            }
        }
    }

    /// Marks a job done, or failed with its reason.
    pub fn finish(&self, id: u64, outcome: Result<(), String>) {
        self.update(id, |p| {
            p.finished = true;
            match outcome {
                Ok(()) => p.phase = "done".into(),
                Err(e) => {
                    p.phase = "failed".into();
                    p.error = Some(e);
                }
            }
        });
    }

    /// Every unfinished job fails with `reason` (its worker is gone).
    pub fn fail_unfinished(&self, reason: &str) {
        for j in self.jobs.lock().iter_mut().filter(|j| !j.progress.finished) {
            j.progress.finished = true;
            j.progress.phase = "failed".into();
            j.progress.error = Some(reason.to_string());
            j.progress.elapsed_ms = millis_since(j.started);
        }
    }

    /// A job's progress: the one asked for, or the latest.
    pub fn get(&self, id: Option<u64>) -> Option<JobProgress> {
        let jobs = self.jobs.lock();
        let job = match id {
            Some(id) => jobs.iter().find(|j| j.progress.id == id),
            None => jobs.last(),
        }?;
        let mut p = job.progress.clone();
        if !p.finished {
            p.elapsed_ms = millis_since(job.started);
        }
        Some(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_run_finish_and_make_room() {
        let jobs = Jobs::default();
        let a = jobs.start("reindex", "queued", 0);
        assert_eq!(a.id, 1);
        assert_eq!(jobs.start_once("reindex", "queued").0.id, 1, "running already");
        jobs.update(a.id, |p| p.done = 3);
        assert_eq!(jobs.get(Some(1)).unwrap().done, 3);
        jobs.finish(a.id, Err("no model".into()));
        let done = jobs.get(None).unwrap();
        assert!(done.finished && done.phase == "failed" && done.error.as_deref() == Some("no model"));
        for _ in 0..KEPT + 3 {
            let j = jobs.start("embed", "embedding", 1);
            jobs.finish(j.id, Ok(()));
        }
        assert!(jobs.get(Some(1)).is_none(), "the oldest finished jobs make room");
        assert_eq!(jobs.get(None).unwrap().phase, "done");
        let (running, new) = jobs.start_once("reindex", "queued");
        assert!(new);
        assert_eq!(jobs.start_once("reindex", "queued"), (running.clone(), false), "one at a time");
        jobs.fail_unfinished("worker gone");
        assert_eq!(jobs.get(Some(running.id)).unwrap().error.as_deref(), Some("worker gone"));
    }
}
