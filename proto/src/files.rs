//! Reading a small file safely: only a regular file is read, never more than a limit, and
//! opening never blocks. A FIFO, a device, a socket or a folder where a file is expected is an
//! error, not a hang (a FIFO blocks `open` and `read` for ever) or an endless read
//! (`/dev/zero`). And replacing one at once, so no reader sees half of it.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{0}")]
    Io(#[from] io::Error),
    /// Something other than a regular file (a FIFO, a device, a socket, a folder).
    #[error("not a regular file (it is a {0})")]
    NotAFile(&'static str),
    #[error("too large ({size} bytes; the limit is {limit})")]
    TooLarge { size: u64, limit: u64 },
    #[error("not UTF-8 text")]
    NotText,
}

impl ReadError {
    /// Whether the file is simply not there (often not an error for optional files).
    pub fn is_missing(&self) -> bool {
        matches!(self, ReadError::Io(e) if e.kind() == io::ErrorKind::NotFound)
    }
}

/// What a file type is called in errors.
fn kind(t: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_dir() {
        "folder"
    } else if t.is_fifo() {
        "FIFO"
    } else if t.is_char_device() {
        "character device"
    } else if t.is_block_device() {
        "block device"
    } else if t.is_socket() {
        "socket"
    } else {
        "special file"
    }
}

/// The bytes of `path` (symlinks followed), if it is a regular file of at most `limit` bytes.
pub fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    // Look before opening (opening some devices does something), then check what was opened:
    // the file may have been swapped in between.
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(ReadError::NotAFile(kind(meta.file_type())));
    }
    let file = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY).open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(ReadError::NotAFile(kind(meta.file_type())));
    }
    if meta.len() > limit {
        return Err(ReadError::TooLarge { size: meta.len(), limit });
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // The file may grow while read: never take more than the limit.
    (&file).take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge { size: bytes.len() as u64, limit });
    }
    Ok(bytes)
}

/// The text of `path`, on the same terms as [`read_bounded`].
pub fn read_text(path: &Path, limit: u64) -> Result<String, ReadError> {
    String::from_utf8(read_bounded(path, limit)?).map_err(|_| ReadError::NotText)
}

/// Opens `path` for reading as a stream, if it is a regular file (no size limit: for files read
/// a line at a time, like an import).
pub fn open_regular(path: &Path) -> Result<File, ReadError> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(ReadError::NotAFile(kind(meta.file_type())));
    }
    let file = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY).open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(ReadError::NotAFile(kind(meta.file_type())));
    }
    Ok(file)
}

/// Replaces `path` with `bytes` at once: written to a temporary file beside it (readable by its
/// owner only), synced, then renamed over it, so a reader sees the old file or the new, never
/// half of one.
pub fn replace(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let mut f = std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(&tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replaced_file_is_whole_private_and_leaves_no_temporary() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        std::fs::write(&path, "old").unwrap();
        replace(&path, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn regular_files_within_the_limit_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.json");
        std::fs::write(&p, "{}").unwrap();
        assert_eq!(read_text(&p, 10).unwrap(), "{}");
        assert!(matches!(read_text(&p, 1), Err(ReadError::TooLarge { size: 2, limit: 1 })));
        assert!(read_text(&dir.path().join("none"), 10).unwrap_err().is_missing());
        // A symlink to a regular file is followed.
        let l = dir.path().join("link.json");
        std::os::unix::fs::symlink(&p, &l).unwrap();
        assert_eq!(read_text(&l, 10).unwrap(), "{}");
    }

    #[test]
    fn fifos_devices_and_folders_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo reads a valid C string.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert!(matches!(read_text(&fifo, 10), Err(ReadError::NotAFile("FIFO"))));
        assert!(matches!(open_regular(&fifo), Err(ReadError::NotAFile("FIFO"))));
        let zero = dir.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        assert!(matches!(read_text(&zero, 10), Err(ReadError::NotAFile("character device"))));
        assert!(matches!(read_text(dir.path(), 10), Err(ReadError::NotAFile("folder"))));
    }

    #[test]
    fn invalid_utf8_is_not_text() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("bin");
        std::fs::write(&p, [0xff, 0xfe]).unwrap();
        assert!(matches!(read_text(&p, 10), Err(ReadError::NotText)));
    }
}
