//! The use cases against an in-process daemon: a temporary home and store, no socket, and the
//! stand-in model (`semantic::embed::fake`) where the model is not what is tested.

use std::sync::Arc;

use cairn_proto::{AdviseRequest, ImportBatch, ImportLine, ListQuery, LogQuery, MemoryEdit, NewMemory, Paths, Scope, SearchRequest, SeedAction, GLOBAL_PROJECT};
use serde_json::json;

use super::{advice, config, exchange, hook, log, memories, periodic, quiet, search, seeds, status, Daemon, Error};
use crate::advisor::lookup::MemoryLookup;
use crate::config::LiveConfig;
use crate::semantic::embed::fake::{self, Fake};
use crate::store::Store;

struct Fixture {
    daemon: Arc<Daemon>,
    model: Arc<Fake>,
    _home: tempfile::TempDir,
}

impl Drop for Fixture {
    fn drop(&mut self) {
        self.daemon.shutdown().cancel();
        self.daemon.stop();
    }
}

/// A daemon in a temporary home, its model loaded, with the seed pack (or without).
async fn daemon_with(seed_pack: bool, tuneables: Option<&str>) -> Fixture {
    let home = tempfile::tempdir().unwrap();
    let paths = Paths::resolve(|k| (k == "CAIRN_HOME").then(|| home.path().as_os_str().to_os_string()), 0).unwrap();
    for dir in [&paths.data_dir, &paths.config_dir, &paths.logs_dir] {
        std::fs::create_dir_all(dir).unwrap();
    }
    if let Some(text) = tuneables {
        std::fs::write(paths.tuneables_file(), text).unwrap();
    }
    let config = Arc::new(LiveConfig::load(&paths.config_dir, &paths.tuneables_file(), &paths.trigger_rules_file()));
    let store = Store::open(&paths.data_dir.join("store"), 8 << 20).unwrap();
    let model = Arc::new(Fake::new("fake-1"));
    let daemon = Arc::new(Daemon::new(paths, cairn_proto::Mode::Full, store, config, fake::loader(model.clone())).unwrap());
    if seed_pack {
        seeds::first_start(&daemon).unwrap();
    } else {
        daemon.memories().writer().seed_pack(false).unwrap();
    }
    daemon.start();
    assert!(daemon.embedder_ready().await.is_some(), "the stand-in model loads");
    Fixture { daemon, model, _home: home }
}

async fn daemon() -> Fixture {
    daemon_with(false, None).await
}

fn in_project(p: &str) -> Scope {
    Scope { project: Some(p.into()), ..Scope::default() }
}

async fn add(d: &Daemon, text: &str, project: &str, category: &str) -> String {
    let scope = if project == GLOBAL_PROJECT { Scope { global: true, ..Scope::default() } } else { in_project(project) };
    memories::add(d, NewMemory { text: text.into(), category: Some(category.into()), tags: vec![], context: None, source: None, scope, examples: vec![], not_examples: vec![], ..Default::default() }).await.unwrap().id
}

fn push_event(session: &str, tool_use_id: &str, command: &str) -> serde_json::Value {
    json!({"hook_event_name": "PreToolUse", "session_id": session, "tool_use_id": tool_use_id, "cwd": "/nowhere/p", "tool_name": "Bash",
           "tool_input": {"command": command, "description": "Push the branch"}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_reaches_the_store_every_index_and_every_mirror_and_a_forget_takes_it_all_away() {
    let f = daemon().await;
    let d = &f.daemon;
    let id = add(d, "Rotate the staging API tokens every month", "/p", "security").await;
    let m = d.memories();
    assert!(m.get(&id).is_some(), "stored");
    assert_eq!(m.lexical().search("staging tokens", None, 5)[0].id, id, "in the keyword index");
    let key = d.semantic().graphs().key_of(&id).expect("in the semantic index");
    assert!(d.store().embedding_vector(&id).unwrap().is_some(), "its vector is stored");
    assert_eq!(m.newest("/p"), vec![id.clone()], "among the project's recent changes");

    // An edit re-embeds under a new key; the old vector is gone from the graph.
    let edited = memories::edit(d, MemoryEdit { id: id.clone(), text: Some("Rotate the production database passwords".into()), ..MemoryEdit::default() }).await.unwrap();
    assert_eq!(edited.text, "Rotate the production database passwords");
    assert!(m.lexical().search("staging tokens", None, 5).is_empty() && !m.lexical().search("database passwords", None, 5).is_empty());
    assert_ne!(d.semantic().graphs().key_of(&id), Some(key), "a new key for the new text");

    // Muted, then forgotten: nothing of it stays, its mute included.
    quiet::mute(d, id.clone(), true).await.unwrap();
    assert!(m.quiet().silences(&id) && d.store().muted_ids().unwrap().contains(&id));
    memories::forget(d, id.clone()).await.unwrap();
    assert!(m.get(&id).is_none() && m.lexical().search("database passwords", None, 5).is_empty());
    assert_eq!(d.semantic().graphs().key_of(&id), None);
    assert!(d.store().embedding_record(&id).unwrap().is_none());
    assert!(!m.quiet().silences(&id) && !d.store().muted_ids().unwrap().contains(&id), "the mute went with it");
    assert!(m.newest("/p").is_empty() && m.recently_touched("/p").is_empty());
    assert!(matches!(memories::forget(d, id.clone()).await, Err(Error::NotFound(_))));
    assert!(matches!(quiet::mute(d, id, true).await, Err(Error::NotFound(_))));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_is_refused_with_the_reason() {
    let f = daemon().await;
    let d = &f.daemon;
    let empty = memories::add(d, NewMemory { text: "   ".into(), category: None, tags: vec![], context: None, source: None, scope: Scope::default(), examples: vec![], not_examples: vec![], ..Default::default() }).await;
    assert!(matches!(empty, Err(Error::Invalid(ref r)) if r.contains("text is empty")));
    let nothing = memories::edit(d, MemoryEdit { id: "x".into(), ..MemoryEdit::default() }).await;
    assert!(matches!(nothing, Err(Error::Invalid(ref r)) if r.contains("nothing to change")));
    let missing = memories::edit(d, MemoryEdit { id: "x".into(), text: Some("t".into()), ..MemoryEdit::default() }).await;
    assert!(matches!(missing, Err(Error::NotFound(_))));
    assert!(matches!(search::search(d, SearchRequest { text: "x".into(), k: Some(0), ..SearchRequest::default() }).await, Err(Error::Invalid(_))));
    assert!(matches!(advice::advise(d, AdviseRequest::default()).await, Err(Error::Invalid(_))));
    assert!(matches!(log::log(d, LogQuery { last: 0, ..LogQuery::default() }).await, Err(Error::Invalid(_))));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hook_advises_records_and_keeps_to_its_cooldown() {
    let f = daemon().await;
    let d = &f.daemon;
    let id = add(d, "Never force-push to main; open a pull request instead", GLOBAL_PROJECT, "git").await;
    // The start's warm-up runs the hook's path as a dry run: nothing recorded, no cooldown.
    advice::warm(&f.daemon).await.unwrap();
    assert_eq!(d.store().event_count(), 0, "the warm-up records nothing");
    let unsessioned = hook::event(d, push_event("-", "t0", "git push --force origin main"), None).await.unwrap();
    assert!(unsessioned.additional_context.is_some_and(|c| c.contains("Never force-push to main")), "the warm-up started no cooldown");
    let reply = hook::event(d, push_event("s1", "t1", "git push --force origin main"), None).await.unwrap();
    let context = reply.additional_context.expect("advice for a force push");
    assert!(context.contains("Never force-push to main"), "{context}");
    assert!(context.contains("trigger force_push (critical)"), "the rule that spoke is named: {context}");

    // Recorded, with what was said; the same call again within the cooldown says nothing.
    let events = d.store().session_events("s1").unwrap();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].advised.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(), vec![id.as_str()]);
    assert!(events[0].advised[0].signals.contains_key("trigger_conf"), "the signals are kept with what was said");
    let again = hook::event(d, push_event("s1", "t2", "git push --force origin main"), None).await.unwrap();
    assert!(again.additional_context.is_none(), "said once per cooldown");

    // Its outcome is found by the tool call's id; a session's end ends its cooldowns.
    hook::event(d, json!({"hook_event_name": "PostToolUseFailure", "session_id": "s1", "tool_use_id": "t1", "cwd": "/nowhere/p", "tool_name": "Bash", "error": "rejected"}), None).await.unwrap();
    let entries = log::log(d, LogQuery { session: Some("s1".into()), last: 10, ..LogQuery::default() }).await.unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].outcome.as_deref(), Some("failed: rejected"));
    assert_eq!(entries[0].items[0].id, id);
    hook::event(d, json!({"hook_event_name": "SessionEnd", "session_id": "s1", "cwd": "/nowhere/p"}), None).await.unwrap();
    assert!(hook::event(d, push_event("s1", "t3", "git push --force origin main"), None).await.unwrap().additional_context.is_some(), "a new cooldown after the end");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_after_the_hooks_deadline_says_nothing_and_starts_no_cooldown() {
    let f = daemon().await;
    let d = &f.daemon;
    add(d, "Never force-push to main; open a pull request instead", GLOBAL_PROJECT, "git").await;
    // The hook gave up before the answer was ready: it is never shown.
    let late = hook::event(d, push_event("s1", "t1", "git push --force origin main"), Some(std::time::Instant::now())).await.unwrap();
    assert!(late.additional_context.is_none() && late.decision.is_none());
    let events = d.store().session_events("s1").unwrap();
    assert_eq!(events.len(), 1, "the event is still recorded");
    assert!(events[0].advised.is_empty(), "nothing recorded as said: {:?}", events[0].advised);
    // So the session's next moment is told.
    let next = hook::event(d, push_event("s1", "t2", "git push --force origin main"), Some(std::time::Instant::now() + std::time::Duration::from_secs(5))).await.unwrap();
    assert!(next.additional_context.is_some_and(|c| c.contains("Never force-push")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_never_reach_the_session_log() {
    let f = daemon().await;
    let d = &f.daemon;
    let secret = "sk_live_51Habcdefghijklmnopqrstuvwx";
    hook::event(d, push_event("s2", "t1", &format!("STRIPE_KEY={secret} ./deploy.sh")), None).await.unwrap();
    let events = d.store().session_events("s2").unwrap();
    let stored = serde_json::to_string(&events).unwrap();
    assert!(!stored.contains(secret), "{stored}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_project_gets_nothing_and_leaves_nothing() {
    let f = daemon().await;
    let d = &f.daemon;
    add(d, "Never force-push to main; open a pull request instead", GLOBAL_PROJECT, "git").await;
    let project = quiet::pause(d, Scope { cwd: Some("/nowhere/p".into()), ..Scope::default() }, true).await.unwrap();
    assert_eq!(d.memories().paused(), vec![project.clone()]);
    assert!(d.store().paused_projects().unwrap().contains(&project), "it survives restarts");
    let reply = hook::event(d, push_event("s3", "t1", "git push --force origin main"), None).await.unwrap();
    assert!(reply.additional_context.is_none());
    assert!(d.store().session_events("s3").unwrap().is_empty(), "nothing recorded");
    let dry = advice::advise(d, AdviseRequest { text: Some("git push --force origin main".into()), scope: in_project(&project), ..AdviseRequest::default() }).await.unwrap();
    assert!(dry.advice.is_empty());
    quiet::pause(d, in_project(&project), false).await.unwrap();
    assert!(hook::event(d, push_event("s3", "t2", "git push --force origin main"), None).await.unwrap().additional_context.is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn advise_is_a_dry_run_unless_a_session_is_named() {
    // A bar the lesson clears with the stand-in model: what is tested is the recording.
    let f = daemon_with(false, Some(r#"{"ranking": {"min_fusion_score": 0.5}}"#)).await;
    let d = &f.daemon;
    add(d, "Run the database migrations on a copy of production first", "/p", "deployment").await;
    let ask = |session: Option<&str>| AdviseRequest { text: Some("run the database migrations on production".into()), scope: in_project("/p"), session: session.map(str::to_string), explain: true, ..AdviseRequest::default() };
    let dry = advice::advise(d, ask(None)).await.unwrap();
    assert_eq!(dry.advice.len(), 1, "{:?}", dry.considered);
    assert!(d.store().recent_events(10, |_| true).unwrap().is_empty(), "a dry run records nothing");
    assert_eq!(advice::advise(d, ask(None)).await.unwrap().advice.len(), 1, "and starts no cooldown");
    let recorded = advice::advise(d, ask(Some("s4"))).await.unwrap();
    assert_eq!(recorded.advice.len(), 1);
    assert_eq!(d.store().session_events("s4").unwrap().len(), 1);
    let cooled = advice::advise(d, ask(Some("s4"))).await.unwrap();
    assert!(cooled.advice.is_empty());
    assert!(cooled.considered.iter().any(|c| c.verdict.as_deref() == Some("said earlier in this session (cooldown)")), "{:?}", cooled.considered);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_seed_pack_loads_once_turns_off_and_on_and_steps_aside_for_an_edit() {
    let f = daemon_with(true, None).await;
    let d = &f.daemon;
    let pack = crate::advisor::seeds::pack().len();
    assert_eq!(d.memories().count() as usize, pack);
    assert_eq!(d.store().seeds_loaded().unwrap().len(), pack);
    seeds::first_start(d).unwrap();
    assert_eq!(d.memories().count() as usize, pack, "a second start loads nothing");
    let force = "seed-git-force-push";
    assert!(hook::event(d, push_event("s5", "t1", "git push --force origin main"), None).await.unwrap().additional_context.unwrap().contains("[git]"));

    let off = seeds::seed(d, SeedAction::Disable(None)).await.unwrap();
    assert!(!off.pack_enabled && d.memories().quiet().silences(force));
    assert!(hook::event(d, push_event("s6", "t1", "git push --force origin main"), None).await.unwrap().additional_context.is_none(), "the pack off is silent");
    let on = seeds::seed(d, SeedAction::Enable(None)).await.unwrap();
    assert!(on.pack_enabled && !d.memories().quiet().silences(force));

    // An edited seed is the user's: out of the pack's set, not turned off with it.
    memories::edit(d, MemoryEdit { id: force.into(), text: Some("We force-push only to our own feature branches".into()), ..MemoryEdit::default() }).await.unwrap();
    assert_eq!(d.memories().get(force).unwrap().source, "user");
    assert!(matches!(seeds::seed(d, SeedAction::Disable(Some(force.into()))).await, Err(Error::Failed(_))));
    seeds::seed(d, SeedAction::Disable(None)).await.unwrap();
    assert!(!d.memories().quiet().silences(force), "the pack off leaves the user's lesson alone");
    let (_, basis) = d.memories().seed_weight(&[GLOBAL_PROJECT]);
    assert!(basis.starts_with("1 lessons of your own"), "{basis}");

    // A forgotten seed stays forgotten when the pack is turned on again.
    let other = "seed-git-discard-work";
    memories::forget(d, other.into()).await.unwrap();
    seeds::seed(d, SeedAction::Enable(None)).await.unwrap();
    assert!(d.memories().get(other).is_none());
    let listed = seeds::seed(d, SeedAction::List).await.unwrap();
    assert_eq!(listed.seeds.iter().find(|s| s.id == other).unwrap().state, "forgotten");
    assert_eq!(listed.seeds.iter().find(|s| s.id == force).unwrap().state, "yours");
    assert!(matches!(seeds::seed(d, SeedAction::Enable(Some("seed-nope".into()))).await, Err(Error::Failed(_))));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seeds_from_an_older_pack_take_on_its_example_moments_and_the_user_s_edits_are_kept() {
    let f = daemon_with(true, None).await;
    let d = &f.daemon;
    let (plain, edited) = ("seed-sql-params", "seed-git-force-push");
    // As an earlier cairn loaded them: no example moments.
    for id in [plain, edited] {
        let mut m = d.memories().get(id).unwrap();
        (m.examples, m.not_examples) = (Vec::new(), Vec::new());
        memories::save(d, &m).await.unwrap();
    }
    memories::edit(d, MemoryEdit { id: edited.into(), text: Some("We force-push only our own branches".into()), ..MemoryEdit::default() }).await.unwrap();
    seeds::first_start(d).unwrap();
    let pack = crate::advisor::seeds::find(plain).unwrap();
    let m = d.memories().get(plain).unwrap();
    assert_eq!((&m.examples, &m.not_examples), (&pack.examples, &pack.not_examples), "the next start brings them up to date");
    assert!(d.memories().get(edited).unwrap().examples.is_empty(), "a seed the user edited is theirs, left alone");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_export_imported_into_an_empty_home_exports_the_same() {
    let f = daemon_with(true, None).await;
    let d = &f.daemon;
    let mine = add(d, "Pin dependency versions in the lockfile", "/p", "dependencies").await;
    quiet::mute(d, mine.clone(), true).await.unwrap();
    memories::forget(d, "seed-git-discard-work".into()).await.unwrap();
    seeds::seed(d, SeedAction::Disable(Some("seed-deps-pin".into()))).await.unwrap();
    let export = |d: Arc<Daemon>| async move {
        let mut lines = Vec::new();
        let mut after = None;
        loop {
            let page = exchange::export(&d, after, 7).await.unwrap();
            lines.extend(page.items);
            match page.next {
                Some(next) => after = Some(next),
                None => return lines,
            }
        }
    };
    let first = export(d.clone()).await;
    let g = daemon_with(true, None).await;
    let batch = ImportBatch { lines: first.iter().enumerate().map(|(i, t)| ImportLine { line: i as u64 + 1, text: t.clone() }).collect(), default_project: None };
    let report = exchange::import(&g.daemon, batch).await.unwrap();
    assert!(report.rejected.is_empty(), "{:?}", report.rejected);
    assert_eq!(export(g.daemon.clone()).await, first, "the same bytes");
    assert!(g.daemon.memories().quiet().silences(&mine), "the mute came along");
    assert!(g.daemon.memories().get("seed-git-discard-work").is_none(), "the forgotten seed too");
    assert!(g.daemon.semantic().graphs().key_of(&mine).is_some(), "imported memories are embedded");

    // A bad line is rejected with its number; the rest goes in.
    let batch = ImportBatch { lines: vec![ImportLine { line: 1, text: "{\"text\": \"Keep it\"}".into() }, ImportLine { line: 2, text: "nope".into() }], default_project: Some("/q".into()) };
    let report = exchange::import(&g.daemon, batch).await.unwrap();
    assert_eq!((report.added, report.rejected.len(), report.rejected[0].line), (1, 1, 2));
    let listed = memories::list(&g.daemon, ListQuery { scope: in_project("/q"), limit: 100, ..ListQuery::default() }).await.unwrap();
    assert!(listed.items.iter().any(|m| m.text == "Keep it" && m.project == "/q"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_finds_by_words_and_by_meaning_within_the_project() {
    let f = daemon().await;
    let d = &f.daemon;
    let here = add(d, "Validate session tokens on the server", "/p", "security").await;
    add(d, "Validate session tokens on the server of the other team", "/other", "security").await;
    let found = search::search(d, SearchRequest { text: "session tokens".into(), scope: in_project("/p"), k: Some(5), ..SearchRequest::default() }).await.unwrap();
    assert_eq!(found.mode, "hybrid");
    assert_eq!(found.results.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), vec![here.as_str()], "another project's memory never shows");
    let hit = &found.results[0];
    assert!(hit.similarity.is_some() && hit.bm25 > 0.0);
    assert!(hit.why.contains("semantic") && hit.why.contains("matched 'session', 'tokens'"), "{}", hit.why);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_come_from_the_table_and_former_names_are_reported() {
    let f = daemon_with(false, Some(r#"{"semantic": {"min_fusion_score": 0.6}, "advice": {"cooldown_s": 60}}"#)).await;
    let d = &f.daemon;
    assert_eq!((d.tuneables().ranking.min_fusion_score, d.tuneables().advice.cooldown_s), (0.6, 60));
    let s = status::status(d).await;
    assert_eq!(s.renamed_config_keys, vec!["semantic.min_fusion_score is now ranking.min_fusion_score"]);
    assert_eq!((s.model.as_str(), s.index.loaded, s.config.as_str()), ("loaded", true, "ok"));
    let shown = config::show(d).await;
    let bar = shown.settings.iter().find(|s| s.key == "ranking.min_fusion_score").unwrap();
    assert_eq!((bar.value.clone(), bar.source.as_str()), (json!(0.6), "tuneables.json"));
    assert_eq!(shown.settings.iter().find(|s| s.key == "ranking.min_similarity").unwrap().source, "default");
    assert_eq!(shown.renamed_keys, s.renamed_config_keys);
    let written = config::init(d, false).await.unwrap();
    assert!(written[0].starts_with("kept") && written[1].starts_with("wrote"), "{written:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_model_cairn_goes_by_keywords() {
    let home = tempfile::tempdir().unwrap();
    let paths = Paths::resolve(|k| (k == "CAIRN_HOME").then(|| home.path().as_os_str().to_os_string()), 0).unwrap();
    std::fs::create_dir_all(&paths.data_dir).unwrap();
    let config = Arc::new(LiveConfig::load(&paths.config_dir, &paths.tuneables_file(), &paths.trigger_rules_file()));
    let store = Store::open(&paths.data_dir.join("store"), 8 << 20).unwrap();
    let d = Arc::new(Daemon::new(paths, cairn_proto::Mode::Lite, store, config, fake::missing()).unwrap());
    d.memories().writer().seed_pack(false).unwrap();
    d.start();
    let id = add(&d, "Never force-push to main; open a pull request instead", GLOBAL_PROJECT, "git").await;
    assert!(d.store().memory(&id).is_some() && d.semantic().graphs().key_of(&id).is_none());
    let s = status::status(&d).await;
    assert!(s.model.starts_with("missing: ") && s.model.contains("run `cairn setup`"), "{}", s.model);
    let found = search::search(&d, SearchRequest { text: "force push main".into(), k: Some(3), ..SearchRequest::default() }).await.unwrap();
    assert_eq!((found.mode.as_str(), found.results[0].id.as_str()), ("keywords", id.as_str()));
    assert!(hook::event(&d, push_event("s7", "t1", "git push --force origin main"), None).await.unwrap().additional_context.is_some());
    d.shutdown().cancel();
    d.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bulk_work_embeds_in_batches() {
    let f = daemon().await;
    let d = &f.daemon;
    let before = f.model.embedded.load(std::sync::atomic::Ordering::Relaxed);
    let lines: Vec<ImportLine> = (0..40).map(|i| ImportLine { line: i + 1, text: json!({"text": format!("lesson number {i} about caching")}).to_string() }).collect();
    let report = exchange::import(d, ImportBatch { lines, default_project: None }).await.unwrap();
    assert_eq!(report.added, 40);
    assert_eq!(f.model.embedded.load(std::sync::atomic::Ordering::Relaxed) - before, 40, "each text embedded once, ahead of the writes");
    assert_eq!(d.semantic().graphs().counts().1, 40);
}

/// A store whose disk refused a write (as after a failed flush): writes fail at once naming the
/// folder, status says so, search and the hook go on, and the recovery job restarts the daemon
/// once the disk takes writes (a temp folder has room) unless a stop was asked for. Another
/// cause than a full disk waits for a minute of uptime first. The same, through a real full
/// disk, is the end-to-end test `reliability::a_full_disk_...` (where namespaces allow).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_that_refuses_writes_fails_them_fast_and_the_daemon_restarts_once_the_disk_takes_them() {
    let f = daemon().await;
    let d = &f.daemon;
    add(d, "Never force-push to main: everyone who pulled it loses commits", GLOBAL_PROJECT, "git").await;
    d.store().refuse_writes_for_test(crate::store::commit::FULL_DISK);
    let refused = memories::add(d, NewMemory { text: "Use pnpm here".into(), category: None, tags: vec![], context: None, source: None, scope: in_project("/p"), examples: vec![], not_examples: vec![], ..Default::default() }).await;
    let message = refused.unwrap_err().to_string();
    assert!(message.contains("the disk is full") && message.contains(&*d.paths().data_dir.to_string_lossy()), "{message}");
    assert!(status::status(d).await.store_failure.is_some_and(|f| f.contains("the disk is full")));
    let found = search::search(d, SearchRequest { text: "force-push main".into(), scope: in_project("/p"), k: None, ..SearchRequest::default() }).await.unwrap();
    assert!(!found.results.is_empty());
    let reply = hook::event(d, push_event("s9", "t9", "git push --force origin main"), None).await.unwrap();
    assert!(reply.additional_context.is_some_and(|c| c.contains("force-push")), "advice goes on");
    periodic::recover_store(d);
    assert!(d.restarting() && d.shutdown().is_cancelled(), "the disk has room: restart to reopen the store");
    d.stop_serving();
    assert!(!d.restarting(), "a stop asked for wins over the restart");

    // Another cause: no restart within the first minute.
    let g = daemon().await;
    g.daemon.store().refuse_writes_for_test("the disk refused a write (Input/output error)");
    periodic::recover_store(&g.daemon);
    assert!(!g.daemon.restarting() && !g.daemon.shutdown().is_cancelled());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_startup_brief_reads_the_lessons_touched_lately_however_long_ago_written() {
    use super::brief::{session_start, BriefWeights};
    let f = daemon().await;
    let d = &f.daemon;
    let old = add(d, "Deploy the billing service with the blue-green script", "/p", "deployment").await;
    {
        // Proven useful: the brief's first pick, when it is in the pool at all.
        let w = d.memories().writer();
        let mut m = w.get(&old).unwrap().unwrap();
        (m.worth.helpful, m.worth.effectiveness) = (5, 6.0 / 7.0);
        w.put(&m, &crate::semantic::Prepared::default()).unwrap();
    }
    for i in 0..crate::retrieval::recent::KEPT {
        add(d, &format!("Lesson {i} of the project"), "/p", "code").await;
    }
    let brief = || session_start(d, BriefWeights { half_life: 30.0, prediction: 0.2 }, "/p", "startup", None, 3).0.into_iter().map(|i| i.id).collect::<Vec<_>>();
    assert!(!d.memories().newest("/p").contains(&old) && !brief().contains(&old), "the premise: {} lessons written since", crate::retrieval::recent::KEPT);
    super::tiers::touch(d, std::slice::from_ref(&old)).unwrap();
    assert_eq!(d.memories().recently_touched("/p")[0], old);
    assert_eq!(brief()[0], old, "accessed lately and proven useful: the brief brings it first");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_outcomes_of_a_moment_live_as_long_as_the_moment() {
    use crate::store::outcomes::{outcome_key, OutcomeRecord};
    use crate::store::sessions::SessionEvent;
    let f = daemon_with(false, Some(r#"{"sessions": {"max_events": 2}}"#)).await;
    let d = &f.daemon;
    // Three moments with two lessons said at each: more records (6) than moments kept (2).
    let mut keys = Vec::new();
    for i in 0..3 {
        let at = crate::base::clock::now();
        let tool_use_id = format!("toolu_{i}");
        let event = SessionEvent { at: at.clone(), session_id: "s".into(), event: "PostToolUse".into(), project: "/p".into(), tool_name: Some("Bash".into()), tool_use_id: Some(tool_use_id.clone()), intent: None, meaning: None, payload: json!({}), advised: vec![], decision: None, shadow: vec![] };
        d.store().append_event(&event).unwrap();
        for memory in ["a", "b"] {
            let record = OutcomeRecord { at: at.clone(), session_id: "s".into(), event: "PostToolUse".into(), tool_use_id: Some(tool_use_id.clone()), project: "/p".into(), memory: memory.into(), verdict: "followed".into(), settled: true, evidence: "e".into(), decided_at: at.clone() };
            let key = outcome_key(&at, "s", "PostToolUse", Some(&tool_use_id), memory);
            d.store().put_outcome(&key, &record).unwrap();
            keys.push((i, key));
        }
        std::thread::sleep(std::time::Duration::from_millis(3));
    }
    periodic::prune_sessions(d);
    assert_eq!(d.store().event_count(), 2, "the oldest moment retired");
    for (i, key) in &keys {
        // A record outliving its moment is harmless; a moment outliving its records would be
        // attributed, and its lessons counted, again.
        assert_eq!(d.store().get_outcome(key).unwrap().is_some(), *i > 0, "moment {i}'s record");
    }
}
