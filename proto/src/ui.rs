//! The dashboard's state file: where a running `cairn-ui` listens and the secret its URLs carry,
//! written by `cairn-ui` (0600, in the socket's private folder) and read by `cairn ui` to reuse a
//! server that is already up.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::paths::Paths;

/// Largest state file read back.
const MAX_BYTES: u64 = 4096;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UiState {
    pub pid: u32,
    pub port: u16,
    /// The per-start secret every request must carry.
    pub token: String,
    /// The daemon socket it serves (a state file of another home is not reused).
    pub socket: String,
}

impl UiState {
    /// The URL that opens the dashboard (the token signs the browser in).
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/?token={}", self.port, self.token)
    }
}

/// How long a sign-in code stays good.
pub const SIGNIN_SECONDS: u64 = 120;

/// The file that makes `code` a one-time sign-in (beside the socket, in its private folder).
pub fn signin_file(paths: &Paths, code: &str) -> PathBuf {
    paths.socket_dir().join(format!("ui-signin-{code}"))
}

/// Whether `code` has the shape of a sign-in code (so it never names another file).
pub fn is_signin_code(code: &str) -> bool {
    code.len() == 32 && code.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

/// Makes a one-time sign-in code for the browser `cairn ui` opens, so that the token never
/// appears on a command line (which other local users can read): the dashboard takes the code
/// once, within [`SIGNIN_SECONDS`], and answers with its cookie.
pub fn new_signin(paths: &Paths) -> std::io::Result<String> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    let code: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(signin_file(paths, &code))?;
    Ok(code)
}

/// Where the state file of `paths`'s home lives.
pub fn state_file(paths: &Paths) -> PathBuf {
    paths.socket_dir().join("ui.json")
}

/// Reads a state file (`None` when there is none or it cannot be read as one).
pub fn read(path: &Path) -> Option<UiState> {
    let text = crate::files::read_text(path, MAX_BYTES).ok()?;
    serde_json::from_str(&text).ok()
}

/// Writes a state file readable by its owner only, replacing any other at once.
pub fn write(path: &Path, state: &UiState) -> std::io::Result<()> {
    crate::files::replace(path, serde_json::to_string(state).map_err(std::io::Error::other)?.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_round_trips_privately() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ui.json");
        assert_eq!(read(&path), None);
        let s = UiState { pid: 7, port: 4321, token: "abc".into(), socket: "/s".into() };
        write(&path, &s).unwrap();
        assert_eq!(read(&path), Some(s.clone()));
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(s.url(), "http://127.0.0.1:4321/?token=abc");
        std::fs::write(&path, "not json").unwrap();
        assert_eq!(read(&path), None);
    }

    #[test]
    fn signin_codes_are_random_hex_files_of_their_own() {
        let dir = tempfile::tempdir().unwrap();
        let lookup = |k: &str| (k == "CAIRN_HOME").then(|| dir.path().as_os_str().to_owned());
        let paths = Paths::resolve(lookup, crate::paths::uid()).unwrap();
        let (a, b) = (new_signin(&paths).unwrap(), new_signin(&paths).unwrap());
        assert!(is_signin_code(&a) && a != b);
        assert!(signin_file(&paths, &a).is_file());
        assert!(!is_signin_code("../../etc/passwd") && !is_signin_code(&a[..31]) && !is_signin_code(&a.to_uppercase()));
    }
}
