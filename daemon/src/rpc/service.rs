//! The service: one thin handler per request. Each counts itself in flight (shutdown drains
//! them), calls one use case of `crate::app`, and turns its error into the protocol's.

use std::sync::Arc;
use std::time::Duration;

use cairn_proto::service::Cairn;
use cairn_proto::*;
use tarpc::context::Context;

use crate::app::{self, Daemon};

#[derive(Clone)]
pub struct Service(pub Arc<Daemon>);

/// The protocol's error for a use case's; a store error is logged here, once, in the words the
/// store gives it (a refused write names the disk).
fn wire(d: &Daemon, e: app::Error) -> RpcError {
    match e {
        app::Error::NotFound(id) => RpcError::NotFound(id),
        app::Error::Invalid(message) => RpcError::Invalid(message),
        app::Error::Failed(message) => RpcError::Failed(message),
        app::Error::Store(e) => {
            let e = d.store().explain(e);
            tracing::error!(error = %e, "store error");
            RpcError::Store(e.to_string())
        }
        e @ app::Error::Write { .. } => RpcError::Store(e.to_string()),
    }
}

impl Cairn for Service {
    async fn handshake(self, _: Context) -> Handshake {
        Handshake { version: VERSION.to_string(), protocol: PROTOCOL_VERSION }
    }

    async fn status(self, _: Context) -> Status {
        let _g = self.0.enter();
        app::status::status(&self.0).await
    }

    async fn hook(self, ctx: Context, protocol: u32, payload: serde_json::Value) -> Result<HookReply, RpcError> {
        let _g = self.0.enter();
        if protocol != PROTOCOL_VERSION {
            return Err(RpcError::ProtocolMismatch { daemon: PROTOCOL_VERSION, client: protocol });
        }
        // The request's deadline is the hook's own: an answer after it is never shown.
        app::hook::event(&self.0, payload, Some(ctx.deadline)).await.map_err(|e| wire(&self.0, e))
    }

    async fn add(self, _: Context, memory: NewMemory) -> Result<Memory, RpcError> {
        let _g = self.0.enter();
        app::memories::add(&self.0, memory).await.map_err(|e| wire(&self.0, e))
    }

    async fn show(self, _: Context, id: String) -> Result<Memory, RpcError> {
        let _g = self.0.enter();
        app::memories::show(&self.0, id).await.map_err(|e| wire(&self.0, e))
    }

    async fn edit(self, _: Context, edit: MemoryEdit) -> Result<Memory, RpcError> {
        let _g = self.0.enter();
        app::memories::edit(&self.0, edit).await.map_err(|e| wire(&self.0, e))
    }

    async fn forget(self, _: Context, id: String) -> Result<Memory, RpcError> {
        let _g = self.0.enter();
        app::memories::forget(&self.0, id).await.map_err(|e| wire(&self.0, e))
    }

    async fn list(self, _: Context, query: ListQuery) -> Result<Page<Memory>, RpcError> {
        let _g = self.0.enter();
        app::memories::list(&self.0, query).await.map_err(|e| wire(&self.0, e))
    }

    async fn import(self, _: Context, batch: ImportBatch) -> Result<ImportReport, RpcError> {
        let _g = self.0.enter();
        app::exchange::import(&self.0, batch).await.map_err(|e| wire(&self.0, e))
    }

    async fn export(self, _: Context, after: Option<String>, limit: u32) -> Result<Page<String>, RpcError> {
        let _g = self.0.enter();
        app::exchange::export(&self.0, after, limit).await.map_err(|e| wire(&self.0, e))
    }

    async fn advise(self, _: Context, request: AdviseRequest) -> Result<Advice, RpcError> {
        let _g = self.0.enter();
        app::advice::advise(&self.0, request).await.map_err(|e| wire(&self.0, e))
    }

    async fn config_show(self, _: Context) -> ConfigReport {
        let _g = self.0.enter();
        app::config::show(&self.0).await
    }

    async fn config_init(self, _: Context, force: bool) -> Result<Vec<String>, RpcError> {
        let _g = self.0.enter();
        app::config::init(&self.0, force).await.map_err(|e| wire(&self.0, e))
    }

    async fn pause(self, _: Context, scope: Scope) -> Result<String, RpcError> {
        let _g = self.0.enter();
        app::quiet::pause(&self.0, scope, true).await.map_err(|e| wire(&self.0, e))
    }

    async fn resume(self, _: Context, scope: Scope) -> Result<String, RpcError> {
        let _g = self.0.enter();
        app::quiet::pause(&self.0, scope, false).await.map_err(|e| wire(&self.0, e))
    }

    async fn search(self, _: Context, request: SearchRequest) -> Result<SearchResults, RpcError> {
        let _g = self.0.enter();
        app::search::search(&self.0, request).await.map_err(|e| wire(&self.0, e))
    }

    async fn reindex(self, _: Context) -> Result<JobProgress, RpcError> {
        let _g = self.0.enter();
        app::semantic::reindex(&self.0).await.map_err(|e| wire(&self.0, e))
    }

    async fn job(self, _: Context, id: Option<u64>) -> Option<JobProgress> {
        app::semantic::job(&self.0, id).await
    }

    async fn load_model(self, _: Context) -> String {
        let _g = self.0.enter();
        app::semantic::load_model(&self.0).await
    }

    async fn mute(self, _: Context, id: String, muted: bool) -> Result<Memory, RpcError> {
        let _g = self.0.enter();
        app::quiet::mute(&self.0, id, muted).await.map_err(|e| wire(&self.0, e))
    }

    async fn seeds(self, _: Context, action: SeedAction) -> Result<SeedReport, RpcError> {
        let _g = self.0.enter();
        app::seeds::seed(&self.0, action).await.map_err(|e| wire(&self.0, e))
    }

    async fn log(self, _: Context, query: LogQuery) -> Result<Vec<LogEntry>, RpcError> {
        let _g = self.0.enter();
        app::log::log(&self.0, query).await.map_err(|e| wire(&self.0, e))
    }

    async fn feedback(self, _: Context, request: FeedbackRequest) -> Result<FeedbackReport, RpcError> {
        let _g = self.0.enter();
        app::feedback::feedback(&self.0, request).await.map_err(|e| wire(&self.0, e))
    }

    async fn graph_link(self, _: Context, link: GraphLink) -> Result<Vec<String>, RpcError> {
        let _g = self.0.enter();
        app::feedback::link(&self.0, link).await.map_err(|e| wire(&self.0, e))
    }

    async fn graph_show(self, _: Context, id: String) -> Result<GraphView, RpcError> {
        let _g = self.0.enter();
        app::feedback::show(&self.0, &id).map_err(|e| wire(&self.0, e))
    }

    async fn graph_log(self, _: Context, query: GraphLogQuery) -> Result<Vec<serde_json::Value>, RpcError> {
        let _g = self.0.enter();
        app::feedback::log(&self.0, query).map_err(|e| wire(&self.0, e))
    }

    async fn review(self, _: Context, query: ReviewQuery) -> Result<ReviewList, RpcError> {
        let _g = self.0.enter();
        app::capture::review(&self.0, query).map_err(|e| wire(&self.0, e))
    }

    async fn review_act(self, _: Context, action: ReviewAction) -> Result<ReviewOutcome, RpcError> {
        let _g = self.0.enter();
        app::capture::act(&self.0, action).await.map_err(|e| wire(&self.0, e))
    }

    async fn judge(self, _: Context, request: JudgeRequest) -> Result<Judged, RpcError> {
        let _g = self.0.enter();
        app::capture::judge(&self.0, request).await.map_err(|e| wire(&self.0, e))
    }

    async fn weights(self, _: Context, query: WeightsQuery) -> Result<WeightsReport, RpcError> {
        let _g = self.0.enter();
        app::weights::weights(&self.0, query).await.map_err(|e| wire(&self.0, e))
    }

    async fn why(self, _: Context, id: String) -> Result<WhyReport, RpcError> {
        let _g = self.0.enter();
        app::causality::why(&self.0, &id).map_err(|e| wire(&self.0, e))
    }

    async fn chain(self, _: Context, id: String) -> Result<ChainReport, RpcError> {
        let _g = self.0.enter();
        app::causality::chain(&self.0, &id).map_err(|e| wire(&self.0, e))
    }

    async fn dependents(self, _: Context, id: String) -> Result<DependentsReport, RpcError> {
        let _g = self.0.enter();
        app::causality::dependents(&self.0, &id).map_err(|e| wire(&self.0, e))
    }

    async fn causality_stats(self, _: Context, query: CausalityQuery) -> Result<CausalityStats, RpcError> {
        let _g = self.0.enter();
        app::causality::stats(&self.0, query).map_err(|e| wire(&self.0, e))
    }

    async fn prune(self, _: Context, dry_run: bool) -> Result<PruneReport, RpcError> {
        let _g = self.0.enter();
        app::tiers::prune(&self.0, dry_run).await.map_err(|e| wire(&self.0, e))
    }

    async fn archive(self, _: Context, action: ArchiveAction) -> Result<ArchiveReport, RpcError> {
        let _g = self.0.enter();
        app::tiers::archive(&self.0, action).await.map_err(|e| wire(&self.0, e))
    }

    async fn predict(self, _: Context, query: PredictQuery) -> Result<PredictReport, RpcError> {
        let _g = self.0.enter();
        app::prediction::report(&self.0, query).map_err(|e| wire(&self.0, e))
    }

    async fn recalculate_tiers(self, _: Context) -> Result<std::collections::BTreeMap<String, u64>, RpcError> {
        let _g = self.0.enter();
        tokio::task::block_in_place(|| app::tiers::recalculate(&self.0)).map_err(|e| wire(&self.0, e))
    }

    async fn overview(self, _: Context, query: OverviewQuery) -> Result<Overview, RpcError> {
        let _g = self.0.enter();
        app::dashboard::overview(&self.0, query).await.map_err(|e| wire(&self.0, e))
    }

    async fn advice_page(self, _: Context, query: AdvicePageQuery) -> Result<AdvicePage, RpcError> {
        let _g = self.0.enter();
        app::dashboard::advice_page(&self.0, query).await.map_err(|e| wire(&self.0, e))
    }

    async fn shutdown(self, _: Context) {
        tracing::info!("shutdown requested");
        let daemon = self.0.clone();
        // Let this answer reach the client before connections close.
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            daemon.stop_serving();
        });
    }
}
