//! The human commands, grouped by what they act on. Each returns a [`Failure`] carrying the exit
//! code and message on error: 1 failed, 2 bad usage, 3 no daemon (for `status`).

pub mod advice_log;
pub mod advise;
pub mod causality;
pub mod config;
pub mod doctor;
pub mod exchange;
pub mod graph;
pub mod hooks;
pub mod lifecycle;
pub mod memories;
pub mod review;
pub mod search;
pub mod service;
pub mod setup;
pub mod ui;

use cairn_proto::{CairnClient, Paths, Scope};

use crate::connect::{self, ClientError};
use crate::cli::ProjectArgs;

pub struct Failure {
    pub code: i32,
    pub message: String,
}

impl Failure {
    pub fn new(code: i32, message: impl Into<String>) -> Failure {
        Failure { code, message: message.into() }
    }
}

impl From<ClientError> for Failure {
    fn from(e: ClientError) -> Failure {
        let code = match e {
            ClientError::Rpc(cairn_proto::RpcError::Invalid(_)) => 2,
            _ => 1,
        };
        Failure::new(code, e.to_string())
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Failure {
        Failure::new(1, e.to_string())
    }
}

impl From<cairn_proto::PathError> for Failure {
    fn from(e: cairn_proto::PathError) -> Failure {
        Failure::new(1, e.to_string())
    }
}

impl From<cairn_proto::RpcError> for Failure {
    fn from(e: cairn_proto::RpcError) -> Failure {
        ClientError::Rpc(e).into()
    }
}

impl From<tarpc::client::RpcError> for Failure {
    fn from(e: tarpc::client::RpcError) -> Failure {
        ClientError::Transport(e).into()
    }
}

/// The user's home folder, for files outside cairn's own (Claude Code's settings, services).
pub fn user_home() -> Result<std::path::PathBuf, Failure> {
    std::env::var_os("HOME").filter(|h| !h.is_empty()).map(std::path::PathBuf::from).ok_or_else(|| Failure::new(1, "HOME is not set"))
}

/// Connects with a protocol check, for commands that need the daemon.
pub async fn client() -> Result<CairnClient, Failure> {
    let paths = Paths::from_env()?;
    Ok(connect::open(&paths).await?.0)
}

/// How long a command waits for a daemon it started to answer.
const START_LIMIT: std::time::Duration = std::time::Duration::from_secs(15);

/// A connection to the daemon, starting it (full) as the hook does when none answers, unless
/// `CAIRN_AUTOSTART=0`: for `cairn mcp` and `cairn ui`, whose users expect them to just work.
pub async fn client_starting_daemon() -> Result<CairnClient, Failure> {
    let paths = Paths::from_env()?;
    if let Ok((c, _)) = connect::open(&paths).await {
        return Ok(c);
    }
    if std::env::var("CAIRN_AUTOSTART").is_ok_and(|v| v == "0") {
        return Err(Failure::new(1, "cairnd is not running (and CAIRN_AUTOSTART=0): start it with `cairn up`"));
    }
    let daemon = crate::launch::find_daemon().map_err(|e| Failure::new(1, e.to_string()))?;
    let _child = crate::launch::spawn_daemon(&daemon, false, Some(&paths.logs_dir.join("cairnd.stderr"))).map_err(|e| Failure::new(1, e.to_string()))?;
    let started = std::time::Instant::now();
    loop {
        match connect::open(&paths).await {
            Ok((c, _)) => return Ok(c),
            Err(e) if started.elapsed() > START_LIMIT => return Err(e.into()),
            Err(_) => tokio::time::sleep(std::time::Duration::from_millis(100)).await,
        }
    }
}

/// `--project` as given, or, when it is written as a path (`.`, `..`, `~/x`, anything with a
/// `/`), the project of that folder, as hook events name it.
pub fn project_arg(project: &str) -> String {
    resolve_project(project).0
}

/// [`project_arg`], and whether the path names a folder that is not there. A missing folder is
/// taken as written (made absolute), not as the repository above it: a mistyped `src/typo`
/// inside a checkout would otherwise quietly mean the whole checkout, and a deleted project's
/// folder still names its memories.
fn resolve_project(project: &str) -> (String, bool) {
    let looks_like_path = project == "." || project == ".." || project == "~" || project.contains('/');
    if !looks_like_path {
        return (project.to_string(), false);
    }
    let expanded = match project.strip_prefix('~').filter(|rest| rest.is_empty() || rest.starts_with('/')) {
        Some(rest) => user_home().map(|h| h.join(rest.trim_start_matches('/'))).unwrap_or_else(|_| project.into()),
        None => std::path::PathBuf::from(project),
    };
    let absolute = if expanded.is_absolute() { expanded } else { std::env::current_dir().map(|d| d.join(&expanded)).unwrap_or(expanded) };
    // A file names the folder it is in; `a/link/..` may be there by the kernel's reading (from
    // the link's target) or by the words' (`a`).
    for path in [absolute.clone(), lexical(&absolute)] {
        if path.is_dir() {
            return (cairn_proto::project::project_of(&path), false);
        }
        if let Some(folder) = path.parent().filter(|_| path.is_file()) {
            return (cairn_proto::project::project_of(folder), false);
        }
    }
    (lexical(&absolute).display().to_string(), true)
}

/// `a/./b/../c` as `a/c`, without the filesystem (the folder is not there to ask).
fn lexical(path: &std::path::Path) -> std::path::PathBuf {
    use std::path::Component;
    let mut out = std::path::PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The request scope for project flags, with the current directory for the default. A
/// `--project` path that names no folder is used as written, with a note on stderr saying so.
pub fn scope(args: &ProjectArgs) -> Scope {
    let project = args.project.as_deref().map(|p| {
        let (project, missing) = resolve_project(p);
        if missing {
            errln!("cairn: note: there is no folder {p}; the project is taken as written: {project}");
        }
        project
    });
    Scope { cwd: std::env::current_dir().ok().map(|d| d.display().to_string()), project, global: args.global }
}

/// A context with the human commands' patience.
pub fn ctx() -> tarpc::context::Context {
    connect::ctx(connect::HUMAN_TIMEOUT)
}

pub fn print_json(value: &impl serde::Serialize) {
    outln!("{}", serde_json::to_string_pretty(value).expect("answers serialise"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_folder_is_its_own_project_not_the_checkout_above_it() {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        let (found, missing) = resolve_project(&root.join("src").display().to_string());
        assert_eq!((found.as_str(), missing), (root.to_str().unwrap(), false), "a folder in a checkout is the checkout");
        let typo = root.join("srx/./deep/../x");
        let (found, missing) = resolve_project(&typo.display().to_string());
        assert_eq!((found, missing), (root.join("srx/x").display().to_string(), true));
        assert_eq!(resolve_project("shop"), ("shop".to_string(), false), "a plain name is a name");
        std::fs::write(root.join("src/main.rs"), "fn main() {}").unwrap();
        assert_eq!(resolve_project(&root.join("src/main.rs").display().to_string()), (root.display().to_string(), false), "a file names its folder");
        assert_eq!(resolve_project(&root.join("srx/../src").display().to_string()), (root.display().to_string(), false));
    }
}
