//! `cairn`: the hook client Claude Code runs on every event, and the command line for people.
//! Depends on the protocol crate only: it never opens the store or loads a model.

mod commands;
mod connect;
mod hook;
mod input;
mod launch;
mod misslog;
mod output;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use commands::Failure;

#[derive(Parser)]
#[command(name = "cairn", version, about = "A memory that learns, for coding agents", propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Which project a command works on; without either flag, the project of the current directory.
#[derive(Args, Clone, Default)]
pub struct ProjectArgs {
    /// Work on this project (any string; by default the git root of the current directory).
    #[arg(long, conflicts_with = "global")]
    pub project: Option<String>,
    /// Work on the `global` project: lessons that apply everywhere.
    #[arg(long)]
    pub global: bool,
}

#[derive(Subcommand)]
enum Command {
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
        #[arg(long)]
        json: bool,
    },
    /// Handle one Claude Code hook event from stdin (for Claude Code's settings).
    Hook,
    /// Remember a lesson; prints the new id.
    Add {
        text: String,
        #[arg(long)]
        category: Option<String>,
        /// Comma-separated tags.
        #[arg(long, value_delimiter = ',')]
        tags: Vec<String>,
        /// Where the lesson applies (file, command, situation).
        #[arg(long)]
        context: Option<String>,
        #[command(flatten)]
        scope: ProjectArgs,
    },
    /// Import memories from a JSONL file (one memory per line).
    Import {
        file: PathBuf,
        #[command(flatten)]
        scope: ProjectArgs,
    },
    /// Export every memory and edge as versioned JSONL (to FILE, or stdout).
    Export { file: Option<PathBuf> },
    /// Show one memory, every field.
    Show {
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// Change a memory's text, category, tags or context.
    Edit {
        id: String,
        #[arg(long)]
        text: Option<String>,
        #[arg(long)]
        category: Option<String>,
        /// Comma-separated tags, replacing the current ones (empty to clear).
        #[arg(long, value_delimiter = ',', num_args = 0..)]
        tags: Option<Vec<String>>,
        #[arg(long)]
        context: Option<String>,
    },
    /// List memories of this project and `global` (or of every project with --all).
    List {
        #[command(flatten)]
        scope: ProjectArgs,
        #[arg(long, conflicts_with_all = ["project", "global"])]
        all: bool,
        #[arg(long)]
        json: bool,
    },
    /// Forget a memory for good.
    Forget { id: String },
    /// Show the advice cairn would give, and why (a dry run unless --session is given).
    Advise {
        /// What is about to happen, in words (everything after the flags, dashes included).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        text: Vec<String>,
        /// A Claude Code hook payload to advise on instead of TEXT.
        #[arg(long, conflicts_with = "text")]
        hook_input: Option<PathBuf>,
        #[arg(long)]
        json: bool,
        #[arg(long)]
        limit: Option<u32>,
        /// Apply and update this session's cooldowns, and record the advice.
        #[arg(long)]
        session: Option<String>,
        #[command(flatten)]
        scope: ProjectArgs,
    },
}

fn main() {
    // The hook's deadline counts from here, before anything else runs.
    let started = std::time::Instant::now();
    let cli = Cli::parse();
    if let Command::Hook = cli.command {
        hook::run(started);
    }
    let code = match run(cli.command) {
        Ok(()) => 0,
        Err(Failure { code, message }) => {
            if !message.is_empty() {
                eprintln!("cairn: {message}");
            }
            code
        }
    };
    std::process::exit(code);
}

fn run(command: Command) -> Result<(), Failure> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_io().enable_time().build().map_err(Failure::from)?;
    rt.block_on(async {
        match command {
            Command::Hook => unreachable!("handled before the runtime starts"),
            Command::Up { lite } => commands::lifecycle::up(lite).await,
            Command::Down => commands::lifecycle::down().await,
            Command::Status { json } => commands::lifecycle::status(json).await,
            Command::Add { text, category, tags, context, scope } => commands::memories::add(text, category, tags, context, scope).await,
            Command::Import { file, scope } => commands::exchange::import(file, scope).await,
            Command::Export { file } => commands::exchange::export(file).await,
            Command::Show { id, json } => commands::memories::show(id, json).await,
            Command::Edit { id, text, category, tags, context } => commands::memories::edit(id, text, category, tags, context).await,
            Command::List { scope, all, json } => commands::memories::list(scope, all, json).await,
            Command::Forget { id } => commands::memories::forget(id).await,
            Command::Advise { text, hook_input, json, limit, session, scope } => {
                commands::advise::advise(text, hook_input, json, limit, session, scope).await
            }
        }
    })
}
