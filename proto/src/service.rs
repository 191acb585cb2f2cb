//! The tarpc service between `cairn` and `cairnd`.
//!
//! `handshake` comes first and never changes shape, so any client can tell which protocol a
//! daemon speaks before it sends anything else.

use crate::memory::Memory;
use crate::messages::*;

#[tarpc::service]
pub trait Cairn {
    /// Version and protocol of the daemon. Stable across every protocol version.
    async fn handshake() -> Handshake;
    async fn status() -> Status;
    /// One Claude Code hook event; `protocol` is the client's [`crate::PROTOCOL_VERSION`].
    async fn hook(protocol: u32, payload: serde_json::Value) -> Result<HookReply, RpcError>;
    async fn add(memory: NewMemory) -> Result<Memory, RpcError>;
    async fn show(id: String) -> Result<Memory, RpcError>;
    async fn edit(edit: MemoryEdit) -> Result<Memory, RpcError>;
    async fn forget(id: String) -> Result<Memory, RpcError>;
    async fn list(query: ListQuery) -> Result<Page<Memory>, RpcError>;
    async fn import(batch: ImportBatch) -> Result<ImportReport, RpcError>;
    /// One page of export lines; pass the previous page's `next` as `after`.
    async fn export(after: Option<String>, limit: u32) -> Result<Page<String>, RpcError>;
    async fn advise(request: AdviseRequest) -> Result<Advice, RpcError>;
    /// The effective configuration with the source of every value.
    async fn config_show() -> ConfigReport;
    /// Writes commented default config files; existing ones are kept unless `force`.
    async fn config_init(force: bool) -> Result<Vec<String>, RpcError>;
    /// Stops advice and recording for a project; answers the project's name.
    async fn pause(scope: Scope) -> Result<String, RpcError>;
    async fn resume(scope: Scope) -> Result<String, RpcError>;
    /// Hybrid search (keywords and embeddings) within a project and `global`.
    async fn search(request: SearchRequest) -> Result<SearchResults, RpcError>;
    /// Starts re-embedding every memory and rebuilding the semantic index (or answers the
    /// reindex already running); poll [`Cairn::job`] for progress.
    async fn reindex() -> Result<JobProgress, RpcError>;
    /// A background job's progress: the one with `id`, or the latest.
    async fn job(id: Option<u64>) -> Option<JobProgress>;
    /// Loads the model now (after `cairn setup`, or in `--lite` before first use) and answers
    /// the model state as `status` shows it.
    async fn load_model() -> String;
    /// Keeps a memory out of advice (or lets it back in) without deleting it.
    async fn mute(id: String, muted: bool) -> Result<Memory, RpcError>;
    /// Lists, enables or disables the seed pack or one seed.
    async fn seeds(action: SeedAction) -> Result<SeedReport, RpcError>;
    /// The advice given: what, when, for which event and tool call, why, and what happened.
    async fn log(query: LogQuery) -> Result<Vec<LogEntry>, RpcError>;
    /// Feedback on a lesson at a moment; answered once what it changed is on disk.
    async fn feedback(request: FeedbackRequest) -> Result<FeedbackReport, RpcError>;
    /// Sets an edge's strength outright (the manual tier).
    async fn graph_link(link: GraphLink) -> Result<Vec<String>, RpcError>;
    /// A lesson's edges and situations.
    async fn graph_show(id: String) -> Result<GraphView, RpcError>;
    /// The newest lines of the graph's adjustment log, newest first.
    async fn graph_log(query: GraphLogQuery) -> Result<Vec<serde_json::Value>, RpcError>;
    /// Captured candidates waiting for promotion.
    async fn review(query: ReviewQuery) -> Result<ReviewList, RpcError>;
    /// Accept, reject or edit a candidate.
    async fn review_act(action: ReviewAction) -> Result<ReviewOutcome, RpcError>;
    /// What capture and the quality gate make of a text; stores nothing.
    async fn judge(request: JudgeRequest) -> Result<Judged, RpcError>;
    /// The learned mix of the decision's signal groups: show, reset, or learn now.
    async fn weights(query: WeightsQuery) -> Result<WeightsReport, RpcError>;
    /// Why a memory exists: its causes, dependencies and reasoning.
    async fn why(id: String) -> Result<WhyReport, RpcError>;
    /// The chain of causes from the root down to a memory.
    async fn chain(id: String) -> Result<ChainReport, RpcError>;
    /// Every memory descending from one, across projects.
    async fn dependents(id: String) -> Result<DependentsReport, RpcError>;
    /// Counts of causes, dependencies, roots and action types.
    async fn causality_stats(query: CausalityQuery) -> Result<CausalityStats, RpcError>;
    /// Moves expired memories no one vouched for to the archive (or says which, in a dry run).
    async fn prune(dry_run: bool) -> Result<PruneReport, RpcError>;
    /// The archive: list it, or restore one memory.
    async fn archive(action: ArchiveAction) -> Result<ArchiveReport, RpcError>;
    /// What a project is likely to need next, with the reasons.
    async fn predict(query: PredictQuery) -> Result<PredictReport, RpcError>;
    /// Every memory's tier from its last access now, counted per tier.
    async fn recalculate_tiers() -> Result<std::collections::BTreeMap<String, u64>, RpcError>;
    /// The dashboard's overview: memories counted by project, category, source and tier, and
    /// each day's activity, aggregated in the daemon.
    async fn overview(query: OverviewQuery) -> Result<Overview, RpcError>;
    /// One page of the advice log, newest first, with filters.
    async fn advice_page(query: AdvicePageQuery) -> Result<AdvicePage, RpcError>;
    /// Drain, flush and exit. Answers before the daemon goes away.
    async fn shutdown() -> ();
}
