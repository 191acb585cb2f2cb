//! The model's life: lazy, loading, loaded, or unavailable with the reason and the fix. Anyone
//! may ask for a load; the worker does it. The hook only ever asks and goes on; a person's
//! command may wait, a bounded time. With no worker to hear (shutting down), the model is
//! declared unavailable, so that nobody waits for a load that will not come.

use std::sync::mpsc;
use std::sync::Arc;

use parking_lot::Mutex;
use std::time::Duration;

use super::embed::Embed;

/// Longest a person's command waits for the model to load.
const READY_WAIT: Duration = Duration::from_secs(120);

/// Where the model is in its life.
#[derive(Clone)]
pub enum ModelState {
    /// Not loaded yet; loads on first use (`--lite`) or right after start.
    Lazy,
    Loading,
    Loaded(Arc<dyn Embed>),
    /// Cannot load: what is wrong, and the fix.
    Unavailable { reason: String, fix: String },
}

/// What the worker is asked to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Load,
    /// Rebuild the index; the job's id, for its progress.
    Reindex(u64),
}

/// The model's state, and the way to the worker that changes it.
pub struct Model {
    state: tokio::sync::watch::Sender<ModelState>,
    commands: Mutex<Option<mpsc::Sender<Command>>>,
}

impl Default for Model {
    fn default() -> Self {
        Model { state: tokio::sync::watch::channel(ModelState::Lazy).0, commands: Mutex::new(None) }
    }
}

impl Model {
    pub fn state(&self) -> ModelState {
        self.state.borrow().clone()
    }

    pub fn set(&self, s: ModelState) {
        self.state.send_replace(s);
    }

    /// The model, if it is loaded now.
    pub fn loaded(&self) -> Option<Arc<dyn Embed>> {
        match &*self.state.borrow() {
            ModelState::Loaded(e) => Some(e.clone()),
            _ => None,
        }
    }

    /// The model if it is loaded now; if it has not been loaded yet, asks for it and answers
    /// `None` at once (the hook's path).
    pub fn embedder_now(&self) -> Option<Arc<dyn Embed>> {
        match self.state() {
            ModelState::Loaded(e) => Some(e),
            ModelState::Lazy => {
                self.request_load();
                None
            }
            _ => None,
        }
    }

    /// The model, waiting (a bounded time) for it to load if it has not yet; `None` when it
    /// cannot load.
    pub async fn ready(&self) -> Option<Arc<dyn Embed>> {
        self.request_load();
        let mut rx = self.state.subscribe();
        let settled = tokio::time::timeout(READY_WAIT, rx.wait_for(|s| !matches!(s, ModelState::Lazy | ModelState::Loading))).await;
        match settled {
            Ok(Ok(state)) => match &*state {
                ModelState::Loaded(e) => Some(e.clone()),
                _ => None,
            },
            _ => {
                tracing::warn!("the model is still loading; going on without it");
                None
            }
        }
    }

    /// Asks the worker to load the model unless it is loaded, loading or known to be unavailable.
    pub fn request_load(&self) {
        if self.begin_load(|s| matches!(s, ModelState::Lazy)) {
            self.send(Command::Load);
        }
    }

    /// Forgets why the model was unavailable and tries again (after `cairn setup`).
    pub fn retry_load(&self) {
        if self.begin_load(|s| matches!(s, ModelState::Lazy | ModelState::Unavailable { .. })) {
            self.send(Command::Load);
        }
    }

    /// Moves to `Loading` from a state `from` accepts; whether it moved.
    fn begin_load(&self, from: impl Fn(&ModelState) -> bool) -> bool {
        self.state.send_if_modified(|s| {
            if from(s) {
                *s = ModelState::Loading;
                true
            } else {
                false
            }
        })
    }

    /// Hands `c` to the worker. With no worker to take it, nobody will load, so nobody may
    /// wait for it: a lazy or loading model becomes unavailable.
    pub fn send(&self, c: Command) {
        let sent = self.commands.lock().as_ref().is_some_and(|tx| tx.send(c).is_ok());
        if !sent {
            self.state.send_if_modified(|s| {
                if matches!(s, ModelState::Lazy | ModelState::Loading) {
                    *s = ModelState::Unavailable { reason: "cairnd is shutting down".into(), fix: "start it again with `cairn up`".into() };
                    true
                } else {
                    false
                }
            });
        }
    }

    /// The worker's end of the channel: commands sent from now on reach it.
    pub fn connect(&self) -> mpsc::Receiver<Command> {
        let (tx, rx) = mpsc::channel();
        *self.commands.lock() = Some(tx);
        rx
    }

    /// Closes the worker's channel: it ends once its current command is done.
    pub fn close(&self) {
        self.commands.lock().take();
    }

    /// The worker is gone: whoever waits for a load that will not come is told so.
    pub fn disconnect(&self) {
        self.close();
        self.send(Command::Load);
    }

    /// What `status` says of the model.
    pub fn status_text(&self, enabled: bool) -> String {
        if !enabled {
            return "off: model.enabled is false in tuneables.json; keyword ranking only".into();
        }
        match self.state() {
            ModelState::Lazy => "lazy".into(),
            ModelState::Loading => "loading".into(),
            ModelState::Loaded(_) => "loaded".into(),
            ModelState::Unavailable { reason, fix } => format!("missing: {reason}; {fix} (keyword ranking meanwhile)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semantic::embed::fake::Fake;

    fn name(m: &Model) -> &'static str {
        match m.state() {
            ModelState::Lazy => "lazy",
            ModelState::Loading => "loading",
            ModelState::Loaded(_) => "loaded",
            ModelState::Unavailable { .. } => "unavailable",
        }
    }

    #[test]
    fn a_load_is_asked_for_once_and_then_awaited() {
        let m = Model::default();
        let rx = m.connect();
        assert_eq!(name(&m), "lazy");
        assert!(m.embedder_now().is_none(), "the hook never waits");
        assert_eq!(name(&m), "loading");
        m.request_load();
        m.embedder_now();
        assert_eq!(rx.try_iter().collect::<Vec<_>>(), vec![Command::Load], "one load, however often asked");
        m.set(ModelState::Loaded(Arc::new(Fake::new("f"))));
        assert!(m.embedder_now().is_some() && m.loaded().is_some());
        assert_eq!(m.status_text(true), "loaded");
        assert!(m.status_text(false).starts_with("off: model.enabled is false"));
    }

    #[test]
    fn an_unavailable_model_is_tried_again_only_when_asked() {
        let m = Model::default();
        let rx = m.connect();
        m.set(ModelState::Unavailable { reason: "no file".into(), fix: "run `cairn setup`".into() });
        m.request_load();
        assert!(rx.try_recv().is_err(), "a known failure is not retried by every event");
        assert_eq!(m.status_text(true), "missing: no file; run `cairn setup` (keyword ranking meanwhile)");
        m.retry_load();
        assert_eq!((name(&m), rx.try_recv().ok()), ("loading", Some(Command::Load)));
    }

    #[test]
    fn without_a_worker_nobody_waits() {
        let m = Model::default();
        m.request_load();
        assert!(matches!(m.state(), ModelState::Unavailable { ref reason, .. } if reason.contains("shutting down")));
        let m = Model::default();
        let _rx = m.connect();
        m.request_load();
        m.disconnect();
        assert_eq!(name(&m), "unavailable", "a load asked for and never done is called off");
    }

    #[tokio::test]
    async fn ready_waits_for_the_load_to_settle() {
        let m = Arc::new(Model::default());
        let rx = m.connect();
        let loader = m.clone();
        let worker = std::thread::spawn(move || {
            assert_eq!(rx.recv().unwrap(), Command::Load);
            std::thread::sleep(Duration::from_millis(20));
            loader.set(ModelState::Loaded(Arc::new(Fake::new("f"))));
        });
        assert!(m.ready().await.is_some());
        worker.join().unwrap();
        let failing = Model::default();
        let rx = failing.connect();
        failing.request_load();
        assert_eq!(rx.recv().unwrap(), Command::Load);
        failing.set(ModelState::Unavailable { reason: "bad".into(), fix: "fix".into() });
        assert!(failing.ready().await.is_none(), "an unavailable model is not waited for");
    }
}
