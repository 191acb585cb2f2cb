//! Layer 5, the durable store: sled trees for memories, edges, the session log, embeddings,
//! what is kept quiet, and metadata, with a schema version. Records are JSON so that added fields
//! need no migration.
//!
//! Invariant: a memory write is acknowledged to a client only after [`Store::durable`] returns,
//! so an acknowledged write survives `kill -9` of the daemon. Hook events are the exception by
//! design: their flush starts as the hook is answered ([`Store::durable_soon`]), because the hook
//! path never waits on a disk.

pub mod codec;
pub mod commit;
pub mod embeddings;
pub mod graph;
pub mod captures;
pub mod daily;
pub mod outcomes;
pub mod weights;
pub mod quiet;
pub mod schema;
pub mod sessions;

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use cairn_proto::{Edge, Memory};

use codec::{decode, encode};
pub use codec::StoreError;
use commit::Committer;

pub struct Store {
    /// The store's folder, named in errors about its disk.
    dir: std::path::PathBuf,
    db: sled::Db,
    memories: sled::Tree,
    /// Edges by `source\0target\0kind`, and `edges_in` the same keys target first.
    edges: sled::Tree,
    edges_in: sled::Tree,
    /// Situations of the memory graph, by id, and their embeddings.
    situations: sled::Tree,
    situation_vectors: sled::Tree,
    /// The graph's adjustment log, by rising id.
    adjustments: sled::Tree,
    /// The adjustment log by subject: `subject\0line id`.
    adjustments_by: sled::Tree,
    session_log: sled::Tree,
    session_index: sled::Tree,
    /// What became of each lesson said (outcome attribution), by moment.
    outcomes: sled::Tree,
    /// Each day's activity per project (`daily.rs`), for the dashboard.
    daily: sled::Tree,
    paused: sled::Tree,
    /// Capture's own state (`captures.rs`): moments read, texts rejected, failures by signature.
    captures: sled::Tree,
    /// Learned fusion weights: samples and each project's mix (`weights.rs`).
    weights: sled::Tree,
    /// Memories kept out of advice (`cairn mute`).
    muted: sled::Tree,
    /// The seed pack's state: on or off, seeds ever loaded, seeds turned off.
    seed_state: sled::Tree,
    /// Per memory: `m\0<id>` its embedding's bookkeeping, `v\0<id>` the vector (little-endian
    /// f16: the precision the semantic index keeps, at half the bytes of f32).
    embeddings: sled::Tree,
    memory_count: AtomicU64,
    adjustment_count: AtomicU64,
    event_count: AtomicU64,
    prune_lock: parking_lot::Mutex<()>,
    /// The session log's keys, rising even within a millisecond (`Ulid::new` alone does not:
    /// its random part would put two events of one millisecond in either order).
    event_ids: parking_lot::Mutex<ulid::Generator>,
    committer: Arc<Committer>,
}

/// Free space wanted before the store is opened again after its disk refused a write: room for
/// sled's next segments and the flush it retries.
const ROOM_TO_RESUME: u64 = 8 << 20;
/// What the probe writes (and syncs) to see the disk take writes.
const PROBE_BYTES: usize = 1 << 20;

/// Bytes an unprivileged process may still write on the filesystem holding `dir`.
fn free_bytes(dir: &Path) -> std::io::Result<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).map_err(std::io::Error::other)?;
    let mut st = std::mem::MaybeUninit::<libc::statvfs>::zeroed();
    // SAFETY: `c` is a valid C string and `st` a buffer of the right type for statvfs to fill.
    if unsafe { libc::statvfs(c.as_ptr(), st.as_mut_ptr()) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: statvfs returned 0, so it filled the struct.
    let st = unsafe { st.assume_init() };
    // The fields' types differ between platforms (u64 on Linux x86-64, narrower elsewhere).
    #[allow(clippy::unnecessary_cast)]
    Ok((st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
}

/// How long to wait for the store's lock held by a daemon that is exiting.
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(5);


impl Store {
    /// Opens (or creates) the store in `dir`; needs a tokio runtime for the group committer.
    /// A store still locked by a daemon on its way out is waited for, briefly.
    pub fn open(dir: &Path, cache_bytes: u64) -> Result<Store, StoreError> {
        let config = sled::Config::new()
            .path(dir)
            .cache_capacity(cache_bytes)
            // Acknowledged writes are flushed by the committer; this only bounds the rest.
            .flush_every_ms(Some(1000));
        let started = std::time::Instant::now();
        let db = loop {
            match config.open() {
                Ok(db) => break db,
                // sled reports a held lock as a generic I/O error that names it in its text.
                Err(sled::Error::Io(e))
                    if (e.kind() == std::io::ErrorKind::WouldBlock || e.to_string().contains("acquire lock")) && started.elapsed() < LOCK_WAIT =>
                {
                    std::thread::sleep(std::time::Duration::from_millis(25));
                }
                Err(source) => return Err(StoreError::Open { path: dir.to_path_buf(), source }),
            }
        };
        let meta = db.open_tree("meta")?;
        schema::ensure(&db, &meta, schema::CURRENT, schema::MIGRATIONS)?;
        let memories = db.open_tree("memories")?;
        let session_log = db.open_tree("session_log")?;
        let store = Store {
            memory_count: AtomicU64::new(memories.len() as u64),
            event_count: AtomicU64::new(session_log.len() as u64),
            adjustment_count: AtomicU64::new(db.open_tree("adjustments")?.len() as u64),
            prune_lock: parking_lot::Mutex::new(()),
            event_ids: parking_lot::Mutex::new(ulid::Generator::new()),
            edges: db.open_tree("edges")?,
            edges_in: db.open_tree("edges_in")?,
            situations: db.open_tree("situations")?,
            situation_vectors: db.open_tree("situation_vectors")?,
            adjustments: db.open_tree("adjustments")?,
            adjustments_by: db.open_tree("adjustments_by")?,
            session_index: db.open_tree("session_index")?,
            outcomes: db.open_tree("outcomes")?,
            daily: db.open_tree("daily")?,
            paused: db.open_tree("paused")?,
            captures: db.open_tree("captures")?,
            weights: db.open_tree("weights")?,
            muted: db.open_tree("muted")?,
            seed_state: db.open_tree("seed_state")?,
            embeddings: db.open_tree("embeddings")?,
            committer: Committer::start(db.clone()),
            dir: dir.to_path_buf(),
            memories,
            session_log,
            db,
        };
        Ok(store)
    }

    /// Waits until every write made so far is on disk; fails at once, with the reason, when
    /// the disk has refused a write.
    pub async fn durable(&self) -> Result<(), StoreError> {
        self.committer.durable().await.map_err(|reason| self.unwritable_because(reason))
    }

    /// Why the store cannot write any more in this run, once its disk has refused a write.
    pub fn failure(&self) -> Option<String> {
        self.committer.failure()
    }

    /// The store's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Fails fast, before touching a tree, once the disk has refused a write.
    pub fn writable(&self) -> Result<(), StoreError> {
        match self.failure() {
            Some(reason) => Err(self.unwritable_because(reason)),
            None => Ok(()),
        }
    }

    /// A store error as the user should read it: a write refused for want of room marks the
    /// store unwritable (sled refuses every later write of this run) and names its folder and
    /// the cause; once the store is unwritable, every I/O error is said that way.
    pub fn explain(&self, e: StoreError) -> StoreError {
        match e {
            StoreError::Sled(sled::Error::Io(io)) if commit::is_full(&io) || self.failure().is_some() => {
                if commit::is_full(&io) {
                    self.committer.fail(commit::FULL_DISK.to_string());
                }
                let reason = self.failure().unwrap_or_else(|| commit::describe(&sled::Error::Io(io)));
                self.unwritable_because(reason)
            }
            other => other,
        }
    }

    /// Makes the store refuse writes as after a failed flush, for tests of what follows.
    #[cfg(test)]
    pub(crate) fn refuse_writes_for_test(&self, reason: &str) {
        self.committer.fail(reason.to_string());
    }

    /// Whether the store refuses writes because its disk was full (a probe can tell when that
    /// has mended), rather than for another cause.
    pub fn failed_for_room(&self) -> bool {
        self.failure().as_deref() == Some(commit::FULL_DISK)
    }

    /// Whether the store's disk takes writes again: enough room free, and a probe file written
    /// and synced there. Only asked while the store refuses writes.
    pub fn disk_takes_writes(&self) -> Result<(), String> {
        let free = free_bytes(&self.dir).map_err(|e| format!("cannot ask the disk for its free space: {e}"))?;
        if free < ROOM_TO_RESUME {
            return Err(format!("{} MiB free, waiting for {}", free >> 20, ROOM_TO_RESUME >> 20));
        }
        let probe = self.dir.join(".cairn-probe");
        let wrote = (|| {
            use std::io::Write;
            let mut f = std::fs::OpenOptions::new().write(true).create(true).truncate(true).open(&probe)?;
            f.write_all(&vec![0u8; PROBE_BYTES])?;
            f.sync_all()
        })();
        let _ = std::fs::remove_file(&probe);
        wrote.map_err(|e| format!("a probe write failed: {e}"))
    }

    fn unwritable_because(&self, reason: String) -> StoreError {
        StoreError::Unwritable { dir: self.dir.clone(), reason }
    }

    /// Starts making every write so far durable, without waiting: for the hook path, which must
    /// never wait on a disk. The flush follows within one flusher cycle.
    pub fn durable_soon(&self) {
        self.committer.request();
    }

    /// Flushes synchronously (shutdown).
    pub fn flush(&self) -> Result<(), StoreError> {
        self.db.flush()?;
        Ok(())
    }

    pub fn memory_count(&self) -> u64 {
        self.memory_count.load(Ordering::Relaxed)
    }

    pub fn get_memory(&self, id: &str) -> Result<Option<Memory>, StoreError> {
        self.memories.get(id)?.map(|bytes| decode(id.as_bytes(), &bytes)).transpose()
    }

    /// Inserts or replaces a memory; returns the version it replaced.
    pub fn put_memory(&self, memory: &Memory) -> Result<Option<Memory>, StoreError> {
        self.writable()?;
        let previous = self.memories.insert(memory.id.as_bytes(), encode(memory))?;
        if previous.is_none() {
            self.memory_count.fetch_add(1, Ordering::Relaxed);
        }
        previous.map(|bytes| decode(memory.id.as_bytes(), &bytes)).transpose()
    }

    /// Removes a memory and every edge that touches it.
    pub fn remove_memory(&self, id: &str) -> Result<Option<Memory>, StoreError> {
        self.writable()?;
        let Some(bytes) = self.memories.remove(id)? else { return Ok(None) };
        self.memory_count.fetch_sub(1, Ordering::Relaxed);
        self.remove_embedding(id)?;
        self.remove_edges_of(id)?;
        Ok(Some(decode(id.as_bytes(), &bytes)?))
    }

    /// Memories in id order, starting after `after`.
    pub fn memories_after(&self, after: Option<&str>) -> impl Iterator<Item = Result<Memory, StoreError>> + '_ {
        let range = match after {
            Some(a) => self.memories.range::<&[u8], _>((std::ops::Bound::Excluded(a.as_bytes()), std::ops::Bound::Unbounded)),
            None => self.memories.iter(),
        };
        range.map(|item| {
            let (key, value) = item?;
            decode(&key, &value)
        })
    }

    /// Projects paused by the user (no advice, nothing recorded).
    pub fn paused_projects(&self) -> Result<Vec<String>, StoreError> {
        self.paused.iter().keys().map(|k| Ok(String::from_utf8_lossy(&k?).into_owned())).collect()
    }

    pub fn set_paused(&self, project: &str, paused: bool) -> Result<bool, StoreError> {
        let changed = if paused {
            self.paused.insert(project.as_bytes(), crate::base::clock::now().as_bytes())?.is_none()
        } else {
            self.paused.remove(project.as_bytes())?.is_some()
        };
        Ok(changed)
    }

    /// Edges in key order, starting after the edge whose key is `after`; yields each edge's cursor.
    pub fn edges_after(&self, after: Option<&[u8]>) -> impl Iterator<Item = Result<(Vec<u8>, Edge), StoreError>> + '_ {
        let range = match after {
            Some(a) => self.edges.range::<&[u8], _>((std::ops::Bound::Excluded(a), std::ops::Bound::Unbounded)),
            None => self.edges.iter(),
        };
        range.map(|item| {
            let (key, value) = item?;
            Ok((key.to_vec(), decode(&key, &value)?))
        })
    }
}
