//! `cairn`: the hook client Claude Code runs on every event, and the command line for people.
//! Depends on the protocol crate only: it never opens the store or loads a model.

#[macro_use]
mod print;

mod claude_memory;
mod cli;
mod commands;
mod connect;
mod hook;
mod launch;
mod mcp;
mod mcp_stdio;
mod settings;

use clap::Parser;

use cli::{Cli, Command, ConfigAction, FeedbackCmd, GraphAction, HooksAction, ReviewCmd, ServiceAction};
use commands::Failure;

fn main() {
    // The hook's deadline counts from here, before anything else runs.
    let started = std::time::Instant::now();
    // The hot path skips building the whole command-line parser. `cairn hook` takes no options,
    // and ignores any it is given: a hook must exit 0 whatever its command line says.
    if std::env::args_os().nth(1).is_some_and(|first| first == "hook") {
        hook::run(started);
    }
    let cli = Cli::parse();
    if let Command::Hook = cli.command {
        hook::run(started);
    }
    let code = match run(cli.command) {
        Ok(()) => 0,
        Err(Failure { code, message }) => {
            if !message.is_empty() {
                errln!("cairn: {message}");
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
            Command::Add { text, category, tags, context, examples, why, cross_project, scope } => commands::memories::add(text, category, tags, context, examples, why, cross_project, scope).await,
            Command::Import { file: Some(file), claude_memory: false, scope } => commands::exchange::import(file, scope).await,
            Command::Import { scope, .. } => commands::exchange::import_claude_memory(scope).await,
            Command::Export { file } => commands::exchange::export(file).await,
            Command::Show { id, json } => commands::memories::show(id, json).await,
            Command::Edit { id, text, category, tags, context, examples, clear_examples, why } => commands::memories::edit(id, text, category, tags, context, examples, clear_examples, why).await,
            Command::Prune { dry_run, json } => commands::causality::prune(dry_run, json).await,
            Command::Archive { action: cli::ArchiveCmd::List { json } } => commands::causality::archive(cairn_proto::ArchiveAction::List, json).await,
            Command::Archive { action: cli::ArchiveCmd::Restore { id } } => commands::causality::archive(cairn_proto::ArchiveAction::Restore { id }, false).await,
            Command::Why { id, json } => commands::causality::why(id, json).await,
            Command::Chain { id, json } => commands::causality::chain(id, json).await,
            Command::Dependents { id, json } => commands::causality::dependents(id, json).await,
            Command::Causality { action: cli::CausalityCmd::Stats { all, json, scope } } => commands::causality::stats(all, json, scope).await,
            Command::List { scope, all, json } => commands::memories::list(scope, all, json).await,
            Command::Forget { id } => commands::memories::forget(id).await,
            Command::Doctor => commands::doctor::doctor().await,
            Command::Hooks { action } => match action {
                HooksAction::Install { target, all_tools, interrupts, mcp } => {
                    // The MCP file is read first: one that cannot be read changes nothing at all.
                    let checked = if mcp { commands::hooks::check_mcp(target.target()) } else { Ok(()) };
                    checked.and_then(|()| commands::hooks::install(target.target(), settings::Wiring { all_tools, interrupts })).and_then(|()| if mcp { commands::hooks::install_mcp(target.target()) } else { Ok(()) })
                }
                HooksAction::Uninstall { target } => commands::hooks::uninstall(target.target()),
                HooksAction::Status => commands::hooks::status(),
            },
            Command::Service { action, kind } => {
                let kind = kind.unwrap_or_else(commands::service::Kind::native);
                match action {
                    ServiceAction::Install => commands::service::install(kind),
                    ServiceAction::Uninstall => commands::service::uninstall(kind),
                    ServiceAction::Status => commands::service::status(kind),
                }
            }
            Command::Config { action } => match action {
                ConfigAction::Show { json } => commands::config::show(json).await,
                ConfigAction::Init { force } => commands::config::init(force).await,
            },
            Command::Pause { scope } => commands::config::pause(scope, true).await,
            Command::Resume { scope } => commands::config::pause(scope, false).await,
            Command::Logs { follow, lines } => commands::config::logs(lines, follow),
            Command::Setup { force, from } => commands::setup::setup(force, from).await,
            Command::Log { session, last, json, all, scope } => commands::advice_log::log(session, last, json, all, scope).await,
            Command::Mute { id } => commands::advice_log::mute(id, true).await,
            Command::Unmute { id } => commands::advice_log::mute(id, false).await,
            Command::Feedback { verb } => match verb {
                FeedbackCmd::Used(m) => commands::graph::feedback(cairn_proto::FeedbackVerb::Used, m).await,
                FeedbackCmd::NotRelevant(m) => commands::graph::feedback(cairn_proto::FeedbackVerb::NotRelevant, m).await,
                FeedbackCmd::NotUseful { memory, json } => commands::graph::not_useful(memory, json).await,
            },
            Command::Review { action, json, all, scope } => match action {
                None => commands::review::list(json, all, scope).await,
                Some(ReviewCmd::Accept { id, json }) => commands::review::act(cairn_proto::ReviewAction::Accept { id }, json).await,
                Some(ReviewCmd::Reject { id, json }) => commands::review::act(cairn_proto::ReviewAction::Reject { id }, json).await,
                Some(ReviewCmd::Edit { id, text, json }) => commands::review::act(cairn_proto::ReviewAction::Edit { id, text }, json).await,
                Some(ReviewCmd::Judge { text, prompt, source, json, scope }) => commands::review::judge(text, prompt, source, json, scope).await,
            },
            Command::Mcp => mcp::serve().await,
            Command::Ui { port, no_open, stop } => commands::ui::ui(port, !no_open, stop).await,
            Command::Predict { refresh, limit, json, scope } => commands::causality::predict(refresh, limit, json, scope).await,
            Command::Weights { action, prediction, json, scope } => {
                let action = match action {
                    cli::WeightsVerb::Show => cairn_proto::WeightsAction::Show,
                    cli::WeightsVerb::Reset => cairn_proto::WeightsAction::Reset,
                    cli::WeightsVerb::Learn => cairn_proto::WeightsAction::Learn,
                };
                commands::review::weights(action, prediction, json, scope).await
            }
            Command::Graph { action } => match action {
                GraphAction::Link { source, target, strength, kind } => commands::graph::link(source, target, strength, kind).await,
                GraphAction::Show { memory, json } => commands::graph::show(memory, json).await,
                GraphAction::Log { memory, last, json } => commands::graph::log(memory, last, json).await,
            },
            Command::Seed { action, list, enable, disable, json } => commands::advice_log::seed(list || action.is_some(), enable, disable, json).await,
            Command::Search { text, k, json, scope } => commands::search::search(text, k, json, scope).await,
            Command::Reindex => commands::search::reindex().await,
            Command::Advise { text, hook_input, json, limit, session, explain, scope } => {
                commands::advise::advise(text, hook_input, json, limit, session, explain, scope).await
            }
        }
    })
}
