//! The command line: every command, its arguments and its help, as clap reads them. `main.rs`
//! runs what this parses.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::commands;

#[derive(Parser)]
#[command(name = "cairn", version, about = "A memory that learns, for coding agents", propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// Which project a command works on; without either flag, the project of the current directory.
#[derive(Args, Clone, Default)]
pub struct ProjectArgs {
    /// Work on this project (any string; by default the git root of the current directory).
    #[arg(long, conflicts_with = "global", value_parser = non_empty)]
    pub project: Option<String>,
    /// Work on the `global` project: lessons that apply everywhere.
    #[arg(long)]
    pub global: bool,
}

#[derive(Subcommand)]
pub enum Command {
    /// Start the daemon in the background and wait until it answers.
    Up {
        /// Run only the essential periodic jobs.
        #[arg(long)]
        lite: bool,
    },
    /// Stop the daemon gracefully.
    Down,
    /// Show what the daemon is doing (exit 3 when it is not running).
    Status {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Handle one Claude Code hook event from stdin (for Claude Code's settings); always exits 0, whatever it is given.
    Hook,
    /// Remember a lesson; prints the new id.
    Add {
        /// The lesson, in a sentence or two: what to do or avoid, and why.
        text: String,
        /// What it is about (git, testing, security, deployment...; `general` by default).
        #[arg(long)]
        category: Option<String>,
        /// Comma-separated tags.
        #[arg(long, value_delimiter = ',')]
        tags: Vec<String>,
        /// Where the lesson applies (file, command, situation).
        #[arg(long)]
        context: Option<String>,
        #[command(flatten)]
        examples: ExampleArgs,
        #[command(flatten)]
        why: WhyArgs,
        /// Take its dependencies from every project's memories of the hour before, not only
        /// this project's.
        #[arg(long)]
        cross_project: bool,
        #[command(flatten)]
        scope: ProjectArgs,
    },
    /// Import memories from a JSONL file (one memory per line), or Claude Code's own memory.
    /// Lines that name no project go to `--project` when given, else to `global` (not to the
    /// current directory's project: an export restored elsewhere keeps what it says).
    Import {
        /// The JSONL file (as `cairn export` writes it, or one `{"text": ...}` per line).
        #[arg(required_unless_present = "claude_memory")]
        file: Option<PathBuf>,
        /// Import Claude Code's own memory instead: the user's and the project's CLAUDE.md and
        /// rules files and the project's auto memory, one lesson per instruction or memory
        /// file; again later, it updates them and removes those no longer in their files.
        #[arg(long, conflicts_with = "file")]
        claude_memory: bool,
        #[command(flatten)]
        scope: ProjectArgs,
    },
    /// Export every memory and edge as versioned JSONL (to FILE, or stdout).
    Export {
        /// Write here (atomically) rather than to stdout.
        file: Option<PathBuf>,
    },
    /// Show one memory, every field.
    Show {
        /// The memory's id.
        #[arg(value_parser = an_id)]
        id: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Change a memory's text, category, tags, context or example moments.
    Edit {
        /// The memory's id.
        #[arg(value_parser = an_id)]
        id: String,
        /// The new text of the lesson.
        #[arg(long)]
        text: Option<String>,
        /// The new category.
        #[arg(long)]
        category: Option<String>,
        /// Comma-separated tags, replacing the current ones (empty to clear).
        #[arg(long, value_delimiter = ',', num_args = 0..)]
        tags: Option<Vec<String>>,
        /// Where the lesson applies (file, command, situation).
        #[arg(long)]
        context: Option<String>,
        #[command(flatten)]
        examples: ExampleArgs,
        /// Remove every example moment (both kinds) before adding those given.
        #[arg(long)]
        clear_examples: bool,
        #[command(flatten)]
        why: WhyArgs,
    },
    /// Why a memory exists: its action type, rationale, causes, dependencies and descendants.
    Why {
        /// The memory's id.
        #[arg(value_parser = an_id)]
        id: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// The chain of causes from the root down to a memory (root first, indented by depth).
    Chain {
        /// The memory's id.
        #[arg(value_parser = an_id)]
        id: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Every memory that descends from one through its causes or dependencies, in any project.
    Dependents {
        /// The memory's id.
        #[arg(value_parser = an_id)]
        id: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Move expired memories that never proved useful, and that you did not write or accept,
    /// to the archive (restorable with `cairn archive restore`).
    Prune {
        /// Only say which would move.
        #[arg(long)]
        dry_run: bool,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// The archive of pruned memories: list it, or restore one with its edges.
    Archive {
        #[command(subcommand)]
        action: ArchiveCmd,
    },
    /// What this project is likely to need next: its memories by prediction score, with the
    /// reasons and the likely next access (stale predictions are refreshed first).
    Predict {
        /// Refresh every prediction of the project first, not only those a day old.
        #[arg(long)]
        refresh: bool,
        /// How many to list.
        #[arg(short = 'k', long, default_value_t = 10)]
        limit: u32,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        scope: ProjectArgs,
    },
    /// Serve cairn's memory to an MCP client on stdin and stdout (Claude Code starts it when it
    /// is registered: `cairn hooks install --mcp`).
    Mcp,
    /// Open the dashboard: what cairn knows, said and learned, served on 127.0.0.1 with a secret
    /// token in its URL (starts the server, or reuses the one running, and prints the URL).
    Ui {
        /// Port to serve on (default: any free one).
        #[arg(long)]
        port: Option<u16>,
        /// Print the URL without opening a browser.
        #[arg(long)]
        no_open: bool,
        /// Stop the dashboard serving this home.
        #[arg(long, conflicts_with_all = ["port", "no_open"])]
        stop: bool,
    },
    /// Causality in numbers: `cairn causality stats`.
    Causality {
        #[command(subcommand)]
        action: CausalityCmd,
    },
    /// List memories of this project and `global` (or of every project with --all).
    List {
        #[command(flatten)]
        scope: ProjectArgs,
        /// Every project's memories.
        #[arg(long, conflicts_with_all = ["project", "global"])]
        all: bool,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Forget a memory for good.
    Forget {
        /// The memory's id.
        #[arg(value_parser = an_id)]
        id: String,
    },
    /// Check what cairn needs, with the fix for anything wrong.
    Doctor,
    /// Wire cairn into Claude Code's settings, or take it out again.
    Hooks {
        #[command(subcommand)]
        action: HooksAction,
    },
    /// Run cairnd as a systemd user service (Linux) or launchd agent (macOS).
    Service {
        #[command(subcommand)]
        action: ServiceAction,
        /// Service manager (default: this system's).
        #[arg(long, value_enum, global = true)]
        kind: Option<commands::service::Kind>,
    },
    /// The effective settings, or commented default files.
    Config {
        #[command(subcommand)]
        action: ConfigAction,
    },
    /// Stop advising and recording for a project (the current one by default).
    Pause {
        #[command(flatten)]
        scope: ProjectArgs,
    },
    /// Advise and record for a paused project again.
    Resume {
        #[command(flatten)]
        scope: ProjectArgs,
    },
    /// Show the daemon's log.
    Logs {
        /// Keep printing as the log grows.
        #[arg(short, long)]
        follow: bool,
        /// How many of the last lines to show first.
        #[arg(short = 'n', long, default_value_t = 40)]
        lines: usize,
    },
    /// The advice given: what, when, for which event and tool call, why, and what happened.
    Log {
        /// Only this session's advice.
        #[arg(long)]
        session: Option<String>,
        /// The last N pieces of advice.
        #[arg(long, default_value_t = 20)]
        last: u32,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Advice in every project (by default, this project's; with --session, that session's).
        #[arg(long, conflicts_with_all = ["project", "global"])]
        all: bool,
        #[command(flatten)]
        scope: ProjectArgs,
    },
    /// Keep a memory out of advice without deleting it.
    Mute {
        /// The memory's id.
        #[arg(value_parser = an_id)]
        id: String,
    },
    /// Let a muted memory be advised again.
    Unmute {
        /// The memory's id.
        #[arg(value_parser = an_id)]
        id: String,
    },
    /// Tell cairn whether a lesson was right for a moment, so that it learns where lessons apply.
    Feedback {
        #[command(subcommand)]
        verb: FeedbackCmd,
    },
    /// Lessons cairn captured from your corrections and its recoveries, waiting to be promoted:
    /// list them (with their evidence, shadow record and quality), or accept, reject or edit one.
    Review {
        #[command(subcommand)]
        action: Option<ReviewCmd>,
        /// Print JSON instead of text: {"candidates": [{"id", "text", "source", "evidence", "shadow", "quality"}]}.
        #[arg(long)]
        json: bool,
        /// Candidates of every project, not just this one's (and global ones).
        #[arg(long)]
        all: bool,
        #[command(flatten)]
        scope: ProjectArgs,
    },
    /// How much each signal counts in this project's decisions (relevance, salience, trigger,
    /// effectiveness, activation, recency), learned from what became of lessons, against the
    /// default; `reset` goes back to the default, `learn` runs a tuning pass now.
    Weights {
        /// `show` (the default), `reset` or `learn`.
        #[arg(value_enum, default_value_t = WeightsVerb::Show)]
        action: WeightsVerb,
        /// The prediction's weights (temporal, causal, frequency: what the project needs next)
        /// instead of the decision's.
        #[arg(long)]
        prediction: bool,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        scope: ProjectArgs,
    },
    /// The memory graph: situations, links and strengths, and the log of every change.
    Graph {
        #[command(subcommand)]
        action: GraphAction,
    },
    /// The seed pack of universal lessons: list it, or turn it (or one seed) off or on.
    Seed {
        /// `list`: the same as --list (as `archive list` and `hooks status` are said).
        #[arg(value_parser = ["list"], hide = true)]
        action: Option<String>,
        /// List every seed with its state.
        #[arg(long)]
        list: bool,
        /// Turn the pack (or the seed ID) on; loads seeds this home never had.
        #[arg(long, value_name = "ID", num_args = 0..=1, conflicts_with = "disable")]
        enable: Option<Option<String>>,
        /// Turn the pack (or the seed ID) off; nothing is deleted.
        #[arg(long, value_name = "ID", num_args = 0..=1)]
        disable: Option<Option<String>>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Fetch the embedding model (ONNX Runtime, model, tokenizer) and check every sha256.
    Setup {
        /// Fetch every file again, even those already in place.
        #[arg(long)]
        force: bool,
        /// Copy the files from this models folder (an installed copy) where their sha256 is right, and fetch only the rest.
        #[arg(long, value_name = "DIR")]
        from: Option<PathBuf>,
    },
    /// Search memories by meaning and keywords, with the evidence for each result.
    Search {
        /// What to look for (flags may come before or after it; put words starting with `-`
        /// after `--`).
        #[arg(required = true)]
        text: Vec<String>,
        /// Most results.
        #[arg(short = 'k', long = "limit", value_name = "N")]
        k: Option<u32>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        scope: ProjectArgs,
    },
    /// Re-embed every memory and rebuild the semantic index, with progress.
    Reindex,
    /// Show the advice cairn would give, and why (a dry run unless --session is given).
    Advise {
        /// What is about to happen, in words (everything after the flags, dashes included).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        text: Vec<String>,
        /// A Claude Code hook payload to advise on instead of TEXT.
        #[arg(long, conflicts_with = "text")]
        hook_input: Option<PathBuf>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Most lessons to say (by default as the hook would: the limit for the event).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        limit: Option<u32>,
        /// Apply and update this session's cooldowns, and record the advice.
        #[arg(long)]
        session: Option<String>,
        /// Also show what was considered and not said, and why.
        #[arg(long)]
        explain: bool,
        #[command(flatten)]
        scope: ProjectArgs,
    },
}

/// Which settings file `hooks` works on.
#[derive(Args, Clone, Copy)]
pub struct HooksTarget {
    /// `.claude/settings.json` of the current project.
    #[arg(long, conflicts_with = "user")]
    project: bool,
    /// `~/.claude/settings.json`, for every project (the default).
    #[arg(long)]
    user: bool,
}

impl HooksTarget {
    pub fn target(self) -> commands::hooks::Target {
        if self.project { commands::hooks::Target::Project } else { commands::hooks::Target::User }
    }
}

/// Which moment a feedback is about.
#[derive(Args)]
pub struct MomentArgs {
    /// The lesson.
    pub memory: String,
    /// The session of the moment (`cairn log` shows them); by default the project's latest.
    #[arg(long)]
    pub session: Option<String>,
    /// The tool call, by Claude Code's id (`toolu_...`); by default the session's latest moment.
    #[arg(long)]
    pub tool_use_id: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub scope: ProjectArgs,
}

#[derive(Subcommand)]
pub enum FeedbackCmd {
    /// The lesson was the right one for that moment: it is said at moments like it.
    Used(MomentArgs),
    /// The lesson was not for that moment: it is not said at moments like it (its worth stays).
    NotRelevant(MomentArgs),
    /// The lesson itself is stale, wrong or badly written: it weighs less everywhere.
    NotUseful {
        /// The lesson.
        #[arg(value_parser = an_id)]
        memory: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// Why a memory exists, as `add` and `edit` take it.
#[derive(Args, Clone, Default)]
pub struct WhyArgs {
    /// What kind of action it records: conversation, decision, file_edit, tool_use, research,
    /// implementation, refactor, bug_fix, documentation, testing or exploration.
    #[arg(long)]
    pub action_type: Option<String>,
    /// Why it exists, in your words.
    #[arg(long)]
    pub rationale: Option<String>,
    /// A memory (or situation) it came from; repeatable (for `edit`, the list replaces the old).
    #[arg(long = "caused-by")]
    pub caused_by: Vec<String>,
}

#[derive(Subcommand)]
pub enum ArchiveCmd {
    /// The memories in the archive, with when and why they were moved.
    List {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Bring one back into the store, with its edges, as it was.
    Restore {
        /// The memory's id.
        #[arg(value_parser = an_id)]
        id: String,
    },
}

#[derive(Subcommand)]
pub enum CausalityCmd {
    /// Memories with a cause, with dependencies, roots, action types, broken links, the
    /// deepest chain.
    Stats {
        /// Every project, not just this one (and global).
        #[arg(long)]
        all: bool,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        scope: ProjectArgs,
    },
}

/// What `cairn weights` does.
#[derive(clap::ValueEnum, Clone, Copy, PartialEq, Eq)]
pub enum WeightsVerb {
    /// Show the weights in force, the default, sample size, last run and history.
    Show,
    /// Go back to the default weights (the history is kept).
    Reset,
    /// Run a tuning pass now (it runs hourly by itself).
    Learn,
}

#[derive(Subcommand)]
pub enum ReviewCmd {
    /// Promote a candidate: it is said from now on.
    Accept {
        /// The candidate's id (see `cairn review`).
        #[arg(value_parser = an_id)]
        id: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Remove a candidate; the same text is never captured again.
    Reject {
        /// The candidate's id (see `cairn review`).
        #[arg(value_parser = an_id)]
        id: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Rewrite a candidate's text (it stays a candidate until accepted).
    Edit {
        /// The candidate's id (see `cairn review`).
        #[arg(value_parser = an_id)]
        id: String,
        /// The new text.
        text: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// What capture and the quality gate make of a text (stores nothing).
    Judge {
        /// The candidate lesson, or with --prompt a user's prompt.
        text: String,
        /// The text is a prompt: capture reads the lesson from it first.
        #[arg(long)]
        prompt: bool,
        /// What the text would be captured from: prompt (the default), recovery, failure, claude-md.
        #[arg(long, value_parser = ["prompt", "recovery", "failure", "claude-md"])]
        source: Option<String>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        scope: ProjectArgs,
    },
}

#[derive(Subcommand)]
pub enum GraphAction {
    /// Set the strength of the edge SOURCE -> TARGET outright (kept within 0.05 and 0.95).
    Link {
        /// The lesson (or situation) the edge starts from.
        source: String,
        /// The lesson it leads to.
        target: String,
        /// The new strength, from 0 to 1.
        #[arg(long, value_parser = unit_number)]
        strength: f64,
        /// The edge's kind: manual (the default), co_used, applies (from a situation), ...
        #[arg(long)]
        kind: Option<String>,
    },
    /// A lesson's edges, with the situations linked to it.
    Show {
        /// The lesson.
        #[arg(value_parser = an_id)]
        memory: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// The newest changes to the graph (one JSON line each with --json), of one lesson if given.
    Log {
        /// Only this memory's adjustments.
        #[arg(long)]
        memory: Option<String>,
        /// How many of the newest changes to show (at least 1).
        #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..))]
        last: u32,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// A number from 0 to 1 (`NaN` and infinities are no strength).
fn unit_number(s: &str) -> Result<f64, String> {
    let x: f64 = s.trim().parse().map_err(|_| format!("{s:?} is not a number"))?;
    if x.is_finite() && (0.0..=1.0).contains(&x) { Ok(x) } else { Err(format!("{s} is not between 0 and 1")) }
}

#[derive(Subcommand)]
pub enum HooksAction {
    /// Add cairn's hooks (idempotent; a timestamped backup is written first). A tool call is
    /// advised on with its result, which reaches the model where advice before the call would;
    /// calls that only look around (Read, Grep, Glob, LS, web search and fetch, TodoWrite...) are
    /// left out: no lesson is expected there, and each hook costs Claude Code about 10 ms.
    Install {
        #[command(flatten)]
        target: HooksTarget,
        /// Run on every tool call, the look-arounds too (their calls are then recorded and
        /// rules can fire on them), at about 10 ms more for each.
        #[arg(long)]
        all_tools: bool,
        /// Also run before each shell command, so that an interrupt rule (with
        /// `triggers.interrupts` on) can stop it, at about 10 ms more for each.
        #[arg(long)]
        interrupts: bool,
        /// Also register cairn's MCP server (`cairn mcp`) for Claude Code: in the project's
        /// `.mcp.json` with --project, else in `~/.claude.json`.
        #[arg(long)]
        mcp: bool,
    },
    /// Remove exactly the hooks cairn added.
    Uninstall {
        #[command(flatten)]
        target: HooksTarget,
    },
    /// Say where cairn's hooks are installed.
    Status,
}

/// Example moments of a lesson: evidence of where it applies, in words.
#[derive(Args, Debug, Default)]
pub struct ExampleArgs {
    /// A moment the lesson applies to, as the action or request reads ("Push the rebased branch:
    /// git push -f origin develop"); repeatable. On `edit`, the ones given replace the lesson's.
    #[arg(long = "example", value_name = "MOMENT")]
    pub examples: Vec<String>,
    /// A near miss it does not apply to (the safe variant, a read about the subject); repeatable.
    /// On `edit`, the ones given replace the lesson's.
    #[arg(long = "not-example", value_name = "MOMENT")]
    pub not_examples: Vec<String>,
}

#[derive(Subcommand)]
pub enum ServiceAction {
    /// Write the service file and say how to enable it.
    Install,
    /// Stop and remove the service.
    Uninstall,
    /// Say whether the service is installed and running.
    Status,
}

#[derive(Subcommand)]
pub enum ConfigAction {
    /// Print the effective settings, each with where its value came from.
    Show {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Write commented default tuneables.json and trigger_rules.yaml.
    Init {
        /// Replace existing files (after a backup).
        #[arg(long)]
        force: bool,
    },
}

/// A memory's id: an empty one names nothing, and is a usage error rather than "no memory with
/// id ''".
fn an_id(value: &str) -> Result<String, String> {
    if value.trim().is_empty() { Err("must not be empty: give a memory's id (`cairn list`, `cairn review`)".into()) } else { Ok(value.to_string()) }
}

/// A value that says something: an empty `--project ""` would silently mean the current
/// directory's project.
fn non_empty(value: &str) -> Result<String, String> {
    if value.trim().is_empty() { Err("must not be empty (leave the option out for the current directory's project)".into()) } else { Ok(value.to_string()) }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// Every command, and every argument and option of every command, says what it is in
    /// `--help`.
    #[test]
    fn every_command_and_option_has_a_description() {
        fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for arg in cmd.get_arguments().filter(|a| !matches!(a.get_id().as_str(), "help" | "version")) {
                if arg.get_help().is_none() && arg.get_long_help().is_none() {
                    missing.push(format!("{path} {}", arg.get_id()));
                }
            }
            for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
                if sub.get_about().is_none() {
                    missing.push(format!("{path} {} (the command)", sub.get_name()));
                }
                walk(sub, &format!("{path} {}", sub.get_name()), missing);
            }
        }
        let mut missing = Vec::new();
        walk(&super::Cli::command(), "cairn", &mut missing);
        assert!(missing.is_empty(), "without a description: {missing:?}");
    }

    #[test]
    fn options_that_would_mean_something_else_are_refused() {
        use clap::Parser;
        for args in [&["cairn", "list", "--project", ""][..], &["cairn", "weights", "--project", " "], &["cairn", "review", "judge", "--source", "bogus", "a b c d"], &["cairn", "seed", "bogus"], &["cairn", "review", "accept", ""], &["cairn", "show", " "], &["cairn", "forget", ""]] {
            assert!(super::Cli::try_parse_from(args).is_err(), "{args:?}");
        }
        for args in [&["cairn", "list", "--project", "api"][..], &["cairn", "review", "judge", "--source", "claude-md", "a b c d"], &["cairn", "seed", "list"]] {
            assert!(super::Cli::try_parse_from(args).is_ok(), "{args:?}");
        }
    }
}
