//! Where cairn keeps its files, from the environment alone (the hook never reads a config file).
//!
//! With `CAIRN_HOME` everything lives under it; without it config, data and the socket follow the
//! XDG base directories, and the socket falls back to a private per-user folder under the temp
//! dir that is refused unless it is a real directory owned by the user with no group/other access.

use std::ffi::OsString;
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Longest socket path the kernel accepts (`sun_path` is 108 bytes with its NUL).
const MAX_SOCKET_PATH: usize = 107;

#[derive(Debug, thiserror::Error)]
pub enum PathError {
    #[error("cannot tell where cairn's files live: neither CAIRN_HOME nor HOME is set")]
    NoHome,
    #[error("socket folder {0} is a symlink; remove it or set CAIRN_HOME")]
    SymlinkedDir(PathBuf),
    #[error("socket folder {path} belongs to uid {owner}, not to you (uid {me}); remove it or set CAIRN_HOME")]
    ForeignDir { path: PathBuf, owner: u32, me: u32 },
    #[error("socket folder {path} is open to group or others (mode {mode:o}); run `chmod 700 {path}`")]
    OpenDir { path: PathBuf, mode: u32 },
    #[error("{0} exists but is not a directory")]
    NotADir(PathBuf),
    #[error("socket path {0} is longer than the {MAX_SOCKET_PATH} bytes a Unix socket allows; set CAIRN_HOME to a shorter path")]
    SocketPathTooLong(PathBuf),
    #[error("cannot create {path}: {source}")]
    Create { path: PathBuf, source: io::Error },
    #[error("cannot inspect {path}: {source}")]
    Inspect { path: PathBuf, source: io::Error },
}

/// How the socket folder was chosen, which decides how much it must be checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SocketDirKind {
    /// `$CAIRN_HOME`: the user chose it.
    Home,
    /// `$XDG_RUNTIME_DIR/cairn`: private by the XDG spec, still checked.
    Runtime,
    /// A per-user folder under the shared temp dir: must be checked before every use.
    Temp,
}

/// Every path cairn uses, resolved once.
#[derive(Debug, Clone)]
pub struct Paths {
    /// `CAIRN_HOME`, or the data base folder when it is unset; shown by `status`.
    pub home: PathBuf,
    pub data_dir: PathBuf,
    pub config_dir: PathBuf,
    pub logs_dir: PathBuf,
    pub models_dir: PathBuf,
    pub socket: PathBuf,
    pub socket_dir_kind: SocketDirKind,
    pub pidfile: PathBuf,
}

impl Paths {
    /// Resolves from the process environment.
    pub fn from_env() -> Result<Paths, PathError> {
        Self::resolve(|k| std::env::var_os(k).filter(|v| !v.is_empty()), uid())
    }

    /// Resolves from any environment lookup; pure apart from `lookup`, for tests.
    pub fn resolve(lookup: impl Fn(&str) -> Option<OsString>, uid: u32) -> Result<Paths, PathError> {
        let model_override = lookup("CAIRN_MODEL_DIR").map(PathBuf::from);
        let paths = if let Some(home) = lookup("CAIRN_HOME").map(PathBuf::from) {
            Paths {
                data_dir: home.join("data"),
                config_dir: home.join("config"),
                logs_dir: home.join("logs"),
                models_dir: model_override.unwrap_or_else(|| home.join("models")),
                socket: home.join("cairn.sock"),
                socket_dir_kind: SocketDirKind::Home,
                pidfile: home.join("cairnd.pid"),
                home,
            }
        } else {
            let user_home = lookup("HOME").map(PathBuf::from);
            let config_base = match lookup("XDG_CONFIG_HOME") {
                Some(p) => PathBuf::from(p),
                None => user_home.clone().ok_or(PathError::NoHome)?.join(".config"),
            };
            let data_base = match lookup("XDG_DATA_HOME") {
                Some(p) => PathBuf::from(p),
                None => user_home.ok_or(PathError::NoHome)?.join(".local/share"),
            }
            .join("cairn");
            let (socket_dir, kind) = match lookup("XDG_RUNTIME_DIR") {
                Some(rt) => (PathBuf::from(rt).join("cairn"), SocketDirKind::Runtime),
                None => {
                    let tmp = lookup("TMPDIR").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/tmp"));
                    (tmp.join(format!("cairn-{uid}")), SocketDirKind::Temp)
                }
            };
            Paths {
                data_dir: data_base.join("data"),
                config_dir: config_base.join("cairn"),
                logs_dir: data_base.join("logs"),
                models_dir: model_override.unwrap_or_else(|| data_base.join("models")),
                socket: socket_dir.join("cairn.sock"),
                socket_dir_kind: kind,
                pidfile: data_base.join("cairnd.pid"),
                home: data_base,
            }
        };
        if paths.socket.as_os_str().len() > MAX_SOCKET_PATH {
            return Err(PathError::SocketPathTooLong(paths.socket));
        }
        Ok(paths)
    }

    pub fn socket_dir(&self) -> &Path {
        self.socket.parent().unwrap_or(Path::new("/"))
    }

    /// The hook's small log of deadline misses, read back by `status`.
    pub fn hook_miss_log(&self) -> PathBuf {
        self.logs_dir.join("hook-misses.log")
    }

    pub fn tuneables_file(&self) -> PathBuf {
        self.config_dir.join("tuneables.json")
    }

    pub fn trigger_rules_file(&self) -> PathBuf {
        self.config_dir.join("trigger_rules.yaml")
    }

    /// Checks the socket folder before connecting: a shared-temp folder must be private.
    /// A missing folder is fine (no daemon yet); the connect attempt reports that.
    pub fn check_socket_dir(&self) -> Result<(), PathError> {
        if self.socket_dir_kind == SocketDirKind::Home {
            return Ok(());
        }
        match check_private_dir(self.socket_dir(), uid()) {
            Err(PathError::Inspect { source, .. }) if source.kind() == io::ErrorKind::NotFound => Ok(()),
            other => other,
        }
    }

    /// Creates the socket folder as a private directory (daemon side) and checks it.
    pub fn prepare_socket_dir(&self) -> Result<(), PathError> {
        let dir = self.socket_dir();
        create_private_dir(dir)?;
        if self.socket_dir_kind == SocketDirKind::Home {
            Ok(())
        } else {
            check_private_dir(dir, uid())
        }
    }
}

/// Creates `dir` (and parents) with mode 0700 where it does not exist yet.
pub fn create_private_dir(dir: &Path) -> Result<(), PathError> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|source| PathError::Create { path: dir.to_path_buf(), source })
}

/// Refuses a folder that is a symlink, someone else's, or open to group or others.
pub fn check_private_dir(dir: &Path, me: u32) -> Result<(), PathError> {
    let meta = std::fs::symlink_metadata(dir)
        .map_err(|source| PathError::Inspect { path: dir.to_path_buf(), source })?;
    if meta.file_type().is_symlink() {
        return Err(PathError::SymlinkedDir(dir.to_path_buf()));
    }
    if !meta.is_dir() {
        return Err(PathError::NotADir(dir.to_path_buf()));
    }
    if meta.uid() != me {
        return Err(PathError::ForeignDir { path: dir.to_path_buf(), owner: meta.uid(), me });
    }
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(PathError::OpenDir { path: dir.to_path_buf(), mode });
    }
    Ok(())
}

/// The real user id of this process.
pub fn uid() -> u32 {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let map: HashMap<String, OsString> = pairs.iter().map(|(k, v)| (k.to_string(), OsString::from(v))).collect();
        move |k| map.get(k).cloned()
    }

    #[test]
    fn cairn_home_holds_everything() {
        let p = Paths::resolve(env(&[("CAIRN_HOME", "/h"), ("XDG_RUNTIME_DIR", "/run/u")]), 7).unwrap();
        assert_eq!(p.socket, PathBuf::from("/h/cairn.sock"));
        assert_eq!(p.pidfile, PathBuf::from("/h/cairnd.pid"));
        assert_eq!(p.data_dir, PathBuf::from("/h/data"));
        assert_eq!(p.tuneables_file(), PathBuf::from("/h/config/tuneables.json"));
        assert_eq!(p.models_dir, PathBuf::from("/h/models"));
        assert_eq!(p.socket_dir_kind, SocketDirKind::Home);
    }

    #[test]
    fn model_dir_override_wins() {
        let p = Paths::resolve(env(&[("CAIRN_HOME", "/h"), ("CAIRN_MODEL_DIR", "/m")]), 7).unwrap();
        assert_eq!(p.models_dir, PathBuf::from("/m"));
    }

    #[test]
    fn xdg_layout_without_home() {
        let p = Paths::resolve(
            env(&[("HOME", "/u"), ("XDG_RUNTIME_DIR", "/run/user/7"), ("XDG_CONFIG_HOME", "/c")]),
            7,
        )
        .unwrap();
        assert_eq!(p.socket, PathBuf::from("/run/user/7/cairn/cairn.sock"));
        assert_eq!(p.config_dir, PathBuf::from("/c/cairn"));
        assert_eq!(p.data_dir, PathBuf::from("/u/.local/share/cairn/data"));
        assert_eq!(p.home, PathBuf::from("/u/.local/share/cairn"));
    }

    #[test]
    fn temp_fallback_is_per_user() {
        let p = Paths::resolve(env(&[("HOME", "/u"), ("TMPDIR", "/tmp")]), 1234).unwrap();
        assert_eq!(p.socket, PathBuf::from("/tmp/cairn-1234/cairn.sock"));
        assert_eq!(p.socket_dir_kind, SocketDirKind::Temp);
    }

    #[test]
    fn no_home_is_an_error() {
        assert!(matches!(Paths::resolve(env(&[]), 1), Err(PathError::NoHome)));
    }

    #[test]
    fn overlong_socket_path_is_refused() {
        let long = format!("/{}", "x".repeat(120));
        assert!(matches!(
            Paths::resolve(env(&[("CAIRN_HOME", &long)]), 1),
            Err(PathError::SocketPathTooLong(_))
        ));
    }

    #[test]
    fn private_dir_checks() {
        let tmp = tempfile_dir();
        let dir = tmp.join("private");
        create_private_dir(&dir).unwrap();
        check_private_dir(&dir, uid()).unwrap();

        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(matches!(check_private_dir(&dir, uid()), Err(PathError::OpenDir { .. })));
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();

        assert!(matches!(check_private_dir(&dir, uid() + 1), Err(PathError::ForeignDir { .. })));

        let link = tmp.join("link");
        std::os::unix::fs::symlink(&dir, &link).unwrap();
        assert!(matches!(check_private_dir(&link, uid()), Err(PathError::SymlinkedDir(_))));
        std::fs::remove_dir_all(&tmp).unwrap();
    }

    fn tempfile_dir() -> PathBuf {
        let dir = std::env::temp_dir().join(format!("cairn-proto-test-{}-{:?}", std::process::id(), std::thread::current().id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}
