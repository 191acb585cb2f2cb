//! The engine's slow work against a real store and the stand-in model: loading, reconciling the
//! saved graphs with the store after writes they missed, bulk embedding, reindexing, and the
//! worker's life.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use parking_lot::{Mutex, MutexGuard};

use cairn_proto::Memory;

use super::embed::fake::{self, Fake};
use super::embed::{Loader, ModelSpec};
use super::host::Host;
use super::load::load;
use super::reindex::reindex;
use super::state::ModelState;
use super::sync::{refresh, Prepared};
use super::{worker, Semantic};
use crate::store::Store;

struct TestHost {
    store: Store,
    semantic: Semantic,
    writes: Mutex<()>,
    stopping: AtomicBool,
}

impl Host for TestHost {
    fn store(&self) -> &Store {
        &self.store
    }
    fn semantic(&self) -> &Semantic {
        &self.semantic
    }
    fn hold_writes(&self) -> MutexGuard<'_, ()> {
        self.writes.lock()
    }
    fn model_spec(&self) -> ModelSpec {
        ModelSpec { runtime: "/none/rt.so".into(), model: "/none/model.onnx".into(), tokenizer: "/none/tok.json".into(), builtin_runtime: true, builtin_model: true, max_tokens: 256, threads: 1 }
    }
    fn stopping(&self) -> bool {
        self.stopping.load(Ordering::Relaxed)
    }
}

/// The store of a home, and the engines that come and go over it (one per "start").
struct Home {
    dir: tempfile::TempDir,
    store: Option<Store>,
}

impl Home {
    fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("store"), 8 << 20).unwrap();
        Home { dir, store: Some(store) }
    }

    /// An engine over this home's store and graph folder, as at a start of the daemon.
    fn start(&mut self, loader: Loader) -> TestHost {
        let semantic = Semantic::new(self.dir.path().join("vectors"), 64, loader);
        TestHost { store: self.store.take().expect("one engine at a time"), semantic, writes: Mutex::new(()), stopping: AtomicBool::new(false) }
    }

    /// Takes the store back from a stopped engine.
    fn stop(&mut self, host: TestHost) {
        self.store = Some(host.store);
    }
}

fn memory(id: &str, text: &str) -> Memory {
    crate::exchange::new_memory(id.into(), "/p".into(), text.into(), "general".into(), "user".into(), vec![], String::new())
}

/// A write as the daemon makes it: the store, then the embedding in step.
fn write(host: &TestHost, m: &Memory) {
    let _w = host.hold_writes();
    host.store.put_memory(m).unwrap();
    refresh(&host.store, &host.semantic, m, &Prepared::default());
}

fn indexed(host: &TestHost) -> Vec<String> {
    let guard = host.semantic.graphs().read();
    let index = guard.as_ref().expect("loaded");
    let mut ids: Vec<String> = ["a", "b", "c", "d"].iter().filter(|id| index.key_of(id).is_some()).map(|id| id.to_string()).collect();
    ids.sort();
    ids
}

fn embedded(model: &Fake) -> usize {
    model.embedded.load(Ordering::Relaxed)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_load_embeds_what_has_no_vector_and_saves() {
    let mut home = Home::new();
    let host = home.start(fake::missing());
    // Written before any model: stored, no vector.
    write(&host, &memory("a", "rotate the api tokens"));
    write(&host, &memory("b", "pin the docker images"));
    assert!(host.store.embedding_record("a").unwrap().is_none());
    home.stop(host);

    let model = Arc::new(Fake::new("m1"));
    let host = home.start(fake::loader(model.clone()));
    load(&host);
    assert!(matches!(host.semantic.model().state(), ModelState::Loaded(_)));
    assert_eq!(indexed(&host), vec!["a", "b"]);
    assert_eq!(embedded(&model), 2);
    let job = host.semantic.jobs().get(None).expect("the embedding job");
    assert_eq!((job.kind.as_str(), job.done, job.total, job.finished), ("embed", 2, 2, true));
    assert_eq!(host.semantic.graphs().counts(), (true, 2, false), "saved: nothing unsaved");
    assert!(host.semantic.dir().join("manifest.json").is_file());
    load(&host);
    assert_eq!(embedded(&model), 2, "a loaded model is not loaded again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_saved_graphs_are_reconciled_with_the_store() {
    let mut home = Home::new();
    let model = Arc::new(Fake::new("m1"));
    let host = home.start(fake::loader(model.clone()));
    load(&host);
    for (id, text) in [("a", "rotate the api tokens"), ("b", "pin the docker images"), ("c", "run migrations on a copy")] {
        write(&host, &memory(id, text));
    }
    host.semantic.graphs().save(&host.store, host.semantic.dir()).unwrap();
    // After the save: one memory written, one forgotten, one changed; the graphs on disk miss all three.
    write(&host, &memory("d", "review the helm charts"));
    host.store.remove_memory("b").unwrap();
    host.store.put_memory(&memory("c", "run the migrations on a copy of production first")).unwrap();
    home.stop(host);

    let before = embedded(&model);
    let host = home.start(fake::loader(model.clone()));
    load(&host);
    assert_eq!(indexed(&host), vec!["a", "c", "d"], "the new one added, the forgotten one gone");
    assert_eq!(embedded(&model) - before, 1, "only the changed text is embedded again; d's stored vector is reused");
    let c = host.store.embedding_record("c").unwrap().unwrap();
    assert_eq!(c.text_hash, crate::semantic::embed::text_hash("run the migrations on a copy of production first"));
    assert_eq!(host.semantic.graphs().key_of("c"), Some(c.key), "the graph holds the current version");
    // New keys never reuse an old one.
    write(&host, &memory("b", "pin the docker images again"));
    let b = host.store.embedding_record("b").unwrap().unwrap();
    assert!(["a", "c", "d"].iter().all(|id| host.store.embedding_record(id).unwrap().unwrap().key < b.key));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_model_embeds_everything_again_and_ignores_the_old_graphs() {
    let mut home = Home::new();
    let host = home.start(fake::loader(Arc::new(Fake::new("m1"))));
    load(&host);
    write(&host, &memory("a", "rotate the api tokens"));
    write(&host, &memory("b", "pin the docker images"));
    host.semantic.graphs().save(&host.store, host.semantic.dir()).unwrap();
    home.stop(host);

    let other = Arc::new(Fake::new("m2"));
    let host = home.start(fake::loader(other.clone()));
    load(&host);
    assert_eq!(indexed(&host), vec!["a", "b"]);
    assert_eq!(embedded(&other), 2, "vectors of another model are never used");
    assert_eq!(host.store.embedding_record("a").unwrap().unwrap().fingerprint, "m2");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_that_cannot_load_says_why_and_how_to_fix_it() {
    let mut home = Home::new();
    let host = home.start(fake::missing());
    load(&host);
    match host.semantic.model().state() {
        ModelState::Unavailable { reason, fix } => {
            assert!(reason.contains("the embedding model not found at /none/model.onnx"), "{reason}");
            assert_eq!(fix, "run `cairn setup`");
        }
        _ => panic!("not unavailable"),
    }
    // Without a model, a write that changes a memory's text drops its stale vector.
    home.stop(host);
    let host = home.start(fake::loader(Arc::new(Fake::new("m1"))));
    load(&host);
    write(&host, &memory("a", "rotate the api tokens"));
    home.stop(host);
    let host = home.start(fake::missing());
    write(&host, &memory("a", "rotate the database passwords"));
    assert!(host.store.embedding_record("a").unwrap().is_none(), "a stale vector is not kept");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reindex_embeds_every_memory_again() {
    let mut home = Home::new();
    let model = Arc::new(Fake::new("m1"));
    let host = home.start(fake::loader(model.clone()));
    for (id, text) in [("a", "rotate the api tokens"), ("b", "pin the docker images"), ("c", "review the helm charts")] {
        write(&host, &memory(id, text));
    }
    let job = host.semantic.jobs().start("reindex", "queued", 0).id;
    reindex(&host, job);
    let done = host.semantic.jobs().get(Some(job)).unwrap();
    assert!(done.finished && done.error.is_none(), "{done:?}");
    assert_eq!((done.done, done.total, done.phase.as_str()), (3, 3, "done"));
    assert_eq!(indexed(&host), vec!["a", "b", "c"]);
    let keys: Vec<u64> = ["a", "b", "c"].iter().map(|id| host.store.embedding_record(id).unwrap().unwrap().key).collect();
    let before = embedded(&model);
    let job = host.semantic.jobs().start("reindex", "queued", 0).id;
    reindex(&host, job);
    assert_eq!(embedded(&model) - before, 3, "every memory, current or not");
    assert!(["a", "b", "c"].iter().zip(&keys).all(|(id, old)| host.store.embedding_record(id).unwrap().unwrap().key > *old), "new keys");

    // Stopping: the job says so and the rest waits for the next start.
    host.stopping.store(true, Ordering::Relaxed);
    let job = host.semantic.jobs().start("reindex", "queued", 0).id;
    reindex(&host, job);
    assert!(host.semantic.jobs().get(Some(job)).unwrap().error.unwrap().contains("stopped by shutdown"));

    // Without a model, a reindex fails with the reason.
    home.stop(host);
    let host = home.start(fake::missing());
    let job = host.semantic.jobs().start("reindex", "queued", 0).id;
    reindex(&host, job);
    assert!(host.semantic.jobs().get(Some(job)).unwrap().error.unwrap().contains("run `cairn setup`"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_worker_loads_on_request_and_reports_when_it_is_gone() {
    let mut home = Home::new();
    let host = Arc::new(home.start(fake::loader(Arc::new(Fake::new("m1")))));
    worker::spawn(&host);
    assert!(host.semantic.model().ready().await.is_some(), "a request is answered by the worker");
    write(&host, &memory("a", "rotate the api tokens"));
    let job = host.semantic.request_reindex();
    let finished = (0..500).find_map(|_| {
        std::thread::sleep(std::time::Duration::from_millis(10));
        host.semantic.jobs().get(Some(job.id)).filter(|p| p.finished)
    });
    assert_eq!(finished.map(|p| (p.phase, p.done)), Some(("done".to_string(), 1)), "the worker ran the reindex");
    host.stopping.store(true, Ordering::Relaxed);
    worker::stop(host.as_ref());
    host.semantic.model().set(ModelState::Lazy);
    host.semantic.model().request_load();
    assert!(matches!(host.semantic.model().state(), ModelState::Unavailable { ref reason, .. } if reason.contains("shutting down")));
    let host = Arc::try_unwrap(host).ok().expect("the worker let go of its host");
    home.stop(host);
}

/// The moments held for `id`: the closest of each kind to a query (any query names one of each
/// kind when the lesson has any), and whether a search over examples finds the lesson.
fn examples_of(host: &TestHost, id: &str) -> Option<(bool, bool, bool)> {
    let guard = host.semantic.graphs().read();
    let index = guard.as_ref()?;
    let query = vec![1.0; index.dimension()];
    let e = index.examples().evidence(id, &query, &|_| 1.0)?;
    let found = index.examples().search(&query, &["/p"], 10).iter().any(|(m, _)| m == id);
    Some((e.applies.is_some(), e.not.is_some(), found))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn example_moments_are_embedded_with_their_lesson_and_rebuilt_at_load_and_reindex() {
    let mut home = Home::new();
    let model = Arc::new(Fake::new("m1"));
    let host = home.start(fake::loader(model.clone()));
    load(&host);
    let mut m = memory("a", "never force-push a shared branch");
    m.examples = vec!["push the rebased develop over the remote".into(), "force push main".into()];
    m.not_examples = vec!["force push my own feature branch".into()];
    let before = embedded(&model);
    write(&host, &m);
    assert_eq!(embedded(&model) - before, 4, "the lesson and its three moments");
    assert_eq!(examples_of(&host, "a"), Some((true, true, true)), "both kinds held, and the lesson found by its examples");
    // Unchanged examples are not embedded again; a changed list is.
    let before = embedded(&model);
    m.text = "never force-push main or develop".into();
    write(&host, &m);
    assert_eq!(embedded(&model) - before, 1, "only the new text");
    m.examples.push("git push -f origin release/2.4".into());
    write(&host, &m);
    assert_eq!(embedded(&model) - before, 1 + 4, "the three examples and the near miss, again");
    // A lesson without examples holds none; one forgotten holds none either.
    let mut b = memory("b", "pin the docker images");
    write(&host, &b);
    assert!(examples_of(&host, "b").is_none());
    b.examples = vec!["docker build -t shop:latest .".into()];
    write(&host, &b);
    assert_eq!(examples_of(&host, "b"), Some((true, false, true)));
    {
        let _w = host.hold_writes();
        host.store.remove_memory("b").unwrap();
        super::sync::drop_embedding(&host.store, &host.semantic, "b");
    }
    assert!(examples_of(&host, "b").is_none(), "forgotten, its moments go with it");
    // Not kept in the graph files: a new start embeds them again, and a reindex too.
    home.stop(host);
    let model = Arc::new(Fake::new("m1"));
    let host = home.start(fake::loader(model.clone()));
    load(&host);
    assert_eq!(examples_of(&host, "a"), Some((true, true, true)), "embedded again at load");
    let job = host.semantic.jobs().start("reindex", "queued", 0).id;
    reindex(&host, job);
    assert_eq!(examples_of(&host, "a"), Some((true, true, true)), "and after a reindex");
    m.examples.clear();
    m.not_examples.clear();
    write(&host, &m);
    assert!(examples_of(&host, "a").is_none(), "a lesson whose examples are taken away holds none");

    // A bulk write embeds the moments in its batch, ahead of the lock: none at the write.
    let mut c = memory("c", "review the helm charts");
    c.examples = vec!["helm upgrade shop charts/shop".into(), "helm install api charts/api".into()];
    let prepared = Prepared::for_memories(Some(model.as_ref()), &[&c]);
    let before = embedded(&model);
    {
        let _w = host.hold_writes();
        host.store.put_memory(&c).unwrap();
        refresh(&host.store, &host.semantic, &c, &prepared);
    }
    assert_eq!(embedded(&model), before, "text and moments came from the batch");
    assert_eq!(examples_of(&host, "c").map(|e| e.0), Some(true));
}
