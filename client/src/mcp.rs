//! `cairn mcp`: cairn's memory as a stdio MCP server (the official Rust SDK, `rmcp`), a thin
//! layer over the daemon's RPC: each tool is one request, its answer the daemon's JSON (reasons
//! included), its failure an MCP tool error with the daemon's message. Tools carry Wake's names
//! and meanings, and cairn's own (`advise`, `feedback`, `graph_link`). The daemon is started as
//! the hook starts it when it is not running. Nothing but the protocol is written to stdout.

use cairn_proto::{
    AdviseRequest, ArchiveAction, CausalityQuery, FeedbackRequest, FeedbackVerb, GraphLink, NewMemory, PredictQuery, Scope, SearchRequest, WeightsAction, WeightsQuery,
};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{schemars, tool, tool_handler, tool_router, ErrorData, ServerHandler, ServiceExt};
use serde::Deserialize;

use crate::commands::{client_starting_daemon as client, ctx, project_arg, Failure};

/// The project a tool works on: the one named, else the server's folder (Claude Code starts it
/// in the project).
fn scope(project: Option<&str>) -> Scope {
    Scope { cwd: std::env::current_dir().ok().map(|d| d.display().to_string()), project: project.map(project_arg), global: project == Some(cairn_proto::GLOBAL_PROJECT) }
}

/// A daemon's answer as the tool's result: its JSON, or a tool error with the message.
fn answer<T: serde::Serialize>(r: Result<T, Failure>) -> Result<CallToolResult, ErrorData> {
    Ok(match r {
        Ok(v) => CallToolResult::success(vec![ContentBlock::text(serde_json::to_string_pretty(&v).unwrap_or_default())]),
        Err(f) => CallToolResult::error(vec![ContentBlock::text(in_tool_words(&f.message))]),
    })
}

/// The daemon's messages name the command line's options; a tool's caller knows its parameters.
fn in_tool_words(message: &str) -> String {
    [(", or --hook-input FILE", ""), ("--tool-use-id", "`tool_use_id`"), ("--session", "`session`"), ("--caused-by", "`caused_by`"), ("--project", "`project`"), ("--strength", "`strength`"), ("--kind", "`kind`")]
        .iter()
        .fold(message.to_string(), |m, (cli, tool)| m.replace(cli, tool))
}

/// Requests to the daemon at once: each holds a connection, and a client sending hundreds of
/// calls together would take the daemon's every connection (it serves 256), failing some of its
/// own calls and keeping hooks waiting. The rest queue here.
static IN_FLIGHT: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(16);

/// This call's turn to use the daemon, held while it does.
async fn turn() -> Result<tokio::sync::SemaphorePermit<'static>, Failure> {
    IN_FLIGHT.acquire().await.map_err(|e| Failure::new(1, format!("cannot queue the request: {e}")))
}

/// Runs one request against the daemon.
macro_rules! call {
    ($method:ident $(, $arg:expr)*) => {
        answer(async {
            let _turn = turn().await?;
            let c = client().await?;
            let out = c.$method(ctx() $(, $arg)*).await??;
            Ok::<_, Failure>(out)
        }.await)
    };
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct SaveContext {
    /// The lesson or context to remember: what to do or avoid, and why.
    pub text: String,
    /// Its category (git, testing, security, deployment, ...; `general` by default).
    pub category: Option<String>,
    /// Its project (by default the server's folder's; `global` for everywhere).
    pub project: Option<String>,
    /// The kind of action it records: conversation, decision, file_edit, tool_use, research,
    /// implementation, refactor, bug_fix, documentation, testing, exploration.
    pub action_type: Option<String>,
    /// Why it exists.
    pub rationale: Option<String>,
    /// Ids of memories it came from.
    #[serde(default)]
    pub caused_by: Vec<String>,
    /// Take its dependencies from every project's memories of the hour before.
    #[serde(default)]
    pub cross_project: bool,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ById {
    /// The memory's id.
    pub id: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct SearchContext {
    /// What to look for, in words.
    pub query: String,
    /// The project (by default the server's folder's); its `global` lessons are searched too.
    pub project: Option<String>,
    /// Most results, from 1 to 1000 (10 by default).
    #[schemars(range(min = 1, max = 1000))]
    pub limit: Option<u32>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct InProject {
    /// The project (by default the server's folder's).
    pub project: Option<String>,
    /// Every project instead.
    #[serde(default)]
    pub all: bool,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Prune {
    /// Only say what would move to the archive.
    #[serde(default)]
    pub dry_run: bool,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct HighValue {
    /// The project (by default the server's folder's).
    pub project: Option<String>,
    /// How many (10 by default).
    pub limit: Option<u32>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Advise {
    /// The action about to be taken, or the request, in words.
    pub text: String,
    /// The project (by default the server's folder's).
    pub project: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Feedback {
    /// `used` (the lesson was right for the moment), `not-relevant` (not for that moment) or
    /// `not-useful` (the lesson itself is stale or wrong).
    pub verb: String,
    /// The lesson's id.
    pub memory: String,
    /// The session of the moment (by default the project's latest).
    pub session: Option<String>,
    /// The tool call of the moment.
    pub tool_use_id: Option<String>,
    /// The project (by default the server's folder's).
    pub project: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Link {
    /// The lesson (or situation) the edge starts from.
    pub source: String,
    /// The lesson it leads to.
    pub target: String,
    /// The strength, from 0 to 1 (kept within 0.05 and 0.95).
    pub strength: f64,
    /// The kind: manual (the default), co_used, applies, caused_by, similar.
    pub kind: Option<String>,
}

/// cairn's memory over MCP.
#[derive(Clone)]
pub struct CairnMcp {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl CairnMcp {
    pub fn new() -> Self {
        CairnMcp { tool_router: Self::tool_router() }
    }

    #[tool(description = "Remember a lesson (Wake: save a context), with why it exists: its action type, rationale and what it came from. Returns the stored memory.")]
    async fn save_context(&self, Parameters(p): Parameters<SaveContext>) -> Result<CallToolResult, ErrorData> {
        let new = NewMemory {
            text: p.text,
            category: p.category,
            source: Some("agent".into()),
            scope: scope(p.project.as_deref()),
            action_type: p.action_type,
            rationale: p.rationale,
            caused_by: p.caused_by,
            cross_project: p.cross_project,
            ..Default::default()
        };
        call!(add, new)
    }

    #[tool(description = "Load one memory by id, every field (its tier computed now). Loading it counts as an access.")]
    async fn load_context(&self, Parameters(p): Parameters<ById>) -> Result<CallToolResult, ErrorData> {
        call!(show, p.id)
    }

    #[tool(description = "Search memories by meaning and words in a project and global; each result says why it ranks where it does.")]
    async fn search_context(&self, Parameters(p): Parameters<SearchContext>) -> Result<CallToolResult, ErrorData> {
        // Refused in the tool's own terms (the daemon names the command line's `-k`).
        if p.limit.is_some_and(|k| !(1..=1000).contains(&k)) {
            return answer::<()>(Err(Failure::new(2, "limit must be between 1 and 1000")));
        }
        call!(search, SearchRequest { text: p.query, scope: scope(p.project.as_deref()), k: p.limit, browse: false })
    }

    #[tool(description = "Reconstruct why a memory exists: its action type, rationale, causes, dependencies, the root of its chain and what descends from it.")]
    async fn reconstruct_reasoning(&self, Parameters(p): Parameters<ById>) -> Result<CallToolResult, ErrorData> {
        call!(why, p.id)
    }

    #[tool(description = "The chain of causes from the root down to a memory (root first, with depths); notes say where it stopped early (a cycle, a link to something gone).")]
    async fn build_causal_chain(&self, Parameters(p): Parameters<ById>) -> Result<CallToolResult, ErrorData> {
        call!(chain, p.id)
    }

    #[tool(description = "Causality in numbers for a project (or all): memories with a cause, with dependencies, roots, action types, broken links, the deepest chain.")]
    async fn get_causality_stats(&self, Parameters(p): Parameters<InProject>) -> Result<CallToolResult, ErrorData> {
        call!(causality_stats, CausalityQuery { scope: scope(p.project.as_deref()), all: p.all })
    }

    #[tool(description = "Every memory that descends from one through its causes or dependencies, in any project, nearest first.")]
    async fn get_cross_project_dependents(&self, Parameters(p): Parameters<ById>) -> Result<CallToolResult, ErrorData> {
        call!(dependents, p.id)
    }

    #[tool(description = "The memory's state: memories, tiers (active, recent, archived, expired), captured lessons, the model and index, hook misses.")]
    async fn get_memory_stats(&self) -> Result<CallToolResult, ErrorData> {
        answer(async {
            let _turn = turn().await?;
            Ok::<_, Failure>(client().await?.status(ctx()).await?)
        }.await)
    }

    #[tool(description = "Recalculate every memory's tier from its last access now, and count them per tier.")]
    async fn recalculate_memory_tiers(&self) -> Result<CallToolResult, ErrorData> {
        call!(recalculate_tiers)
    }

    #[tool(description = "Move expired memories that never proved useful, and that no one wrote or accepted, to the archive (restorable; nothing is deleted). With dry_run, only say which.")]
    async fn prune_expired_contexts(&self, Parameters(p): Parameters<Prune>) -> Result<CallToolResult, ErrorData> {
        call!(prune, p.dry_run)
    }

    #[tool(description = "Refresh every prediction of a project now (score, reasons, likely next access), and list the project's memories by prediction.")]
    async fn update_predictions(&self, Parameters(p): Parameters<HighValue>) -> Result<CallToolResult, ErrorData> {
        call!(predict, PredictQuery { scope: scope(p.project.as_deref()), refresh: true, limit: p.limit })
    }

    #[tool(description = "The memories a project is most likely to need next, by prediction score, each with its reasons and likely next access.")]
    async fn get_high_value_contexts(&self, Parameters(p): Parameters<HighValue>) -> Result<CallToolResult, ErrorData> {
        call!(predict, PredictQuery { scope: scope(p.project.as_deref()), refresh: false, limit: p.limit })
    }

    #[tool(description = "How well prediction predicts in a project: its weights (temporal, causal, frequency) learned from hits and misses against Wake's defaults, the sample size and the last run.")]
    async fn get_propagation_stats(&self, Parameters(p): Parameters<HighValue>) -> Result<CallToolResult, ErrorData> {
        call!(weights, WeightsQuery { scope: scope(p.project.as_deref()), action: WeightsAction::Show, prediction: true })
    }

    #[tool(description = "What cairn learned in a project: the decision's signal weights (relevance, salience, trigger, effectiveness, activation, recency) against the default, with sample size and last run.")]
    async fn get_learning_stats(&self, Parameters(p): Parameters<HighValue>) -> Result<CallToolResult, ErrorData> {
        call!(weights, WeightsQuery { scope: scope(p.project.as_deref()), action: WeightsAction::Show, prediction: false })
    }

    #[tool(description = "The lessons cairn would give for an action or request, and why each was chosen (a dry run: nothing is recorded).")]
    async fn advise(&self, Parameters(p): Parameters<Advise>) -> Result<CallToolResult, ErrorData> {
        call!(advise, AdviseRequest { text: Some(p.text), hook_input: None, scope: scope(p.project.as_deref()), limit: None, session: None, explain: true })
    }

    #[tool(description = "Tell cairn whether a lesson was right for a moment: used, not-relevant (the route was wrong) or not-useful (the lesson itself is stale or wrong). Acknowledged once on disk.")]
    async fn feedback(&self, Parameters(p): Parameters<Feedback>) -> Result<CallToolResult, ErrorData> {
        let verb = match p.verb.as_str() {
            "used" => FeedbackVerb::Used,
            "not-relevant" | "not_relevant" => FeedbackVerb::NotRelevant,
            "not-useful" | "not_useful" => FeedbackVerb::NotUseful,
            other => return Ok(CallToolResult::error(vec![ContentBlock::text(format!("unknown verb `{other}`: used, not-relevant or not-useful"))])),
        };
        call!(feedback, FeedbackRequest { verb, memory: p.memory, session: p.session, tool_use_id: p.tool_use_id, scope: scope(p.project.as_deref()) })
    }

    #[tool(description = "Set the strength of the edge source -> target in the memory graph outright (the manual tier).")]
    async fn graph_link(&self, Parameters(p): Parameters<Link>) -> Result<CallToolResult, ErrorData> {
        call!(graph_link, GraphLink { source: p.source, target: p.target, strength: p.strength, kind: p.kind })
    }

    #[tool(description = "The archive of pruned memories (Wake's expired contexts), with when and why each was moved.")]
    async fn list_archive(&self) -> Result<CallToolResult, ErrorData> {
        call!(archive, ArchiveAction::List)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for CairnMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("cairn", cairn_proto::VERSION))
            .with_instructions("cairn: a local memory of lessons for coding agents. Every answer says why.")
    }
}

/// Serves MCP on stdin and stdout until the client goes away.
pub async fn serve() -> Result<(), Failure> {
    let service = CairnMcp::new().serve(crate::mcp_stdio::stdio()).await.map_err(|e| Failure::new(1, format!("cannot start the MCP server: {e}")))?;
    service.waiting().await.map_err(|e| Failure::new(1, format!("the MCP server stopped: {e}")))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_tools_parameters_not_the_command_line_s_options() {
        assert_eq!(in_tool_words("invalid request: give a text to advise on, or --hook-input FILE"), "invalid request: give a text to advise on");
        assert_eq!(in_tool_words("no recorded moment in project p: name one with --session and --tool-use-id (see `cairn log`)"), "no recorded moment in project p: name one with `session` and `tool_use_id` (see `cairn log`)");
        assert_eq!(in_tool_words("--caused-by nope: no memory or situation has that id"), "`caused_by` nope: no memory or situation has that id");
    }
}
