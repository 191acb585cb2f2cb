//! A project is a plain string: the git root of a directory (linked worktrees of one repository
//! share the main checkout's root), else the directory itself. Shared by the daemon (for hook
//! events) and the client (for `hooks install --project`).

use std::path::{Path, PathBuf};

/// Largest `.git` file or `commondir` read: each holds one path.
const MAX_GIT_FILE: u64 = 4096;

/// The project of `cwd`, from the filesystem.
pub fn project_of(cwd: &Path) -> String {
    let cwd = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    for dir in cwd.ancestors() {
        let dotgit = dir.join(".git");
        let Ok(meta) = std::fs::symlink_metadata(&dotgit) else { continue };
        if meta.is_dir() {
            return display(dir);
        }
        if meta.is_file() {
            return display(&root_of_gitfile(dir, &dotgit).unwrap_or_else(|| dir.to_path_buf()));
        }
    }
    display(&cwd)
}

/// The top of the checkout that holds `cwd`: the nearest folder with a `.git` (a linked
/// worktree is its own top), else `cwd`. Where Claude Code looks for a project's `.claude/`.
pub fn checkout_root(cwd: &Path) -> PathBuf {
    let cwd = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    cwd.ancestors().find(|dir| std::fs::symlink_metadata(dir.join(".git")).is_ok()).map_or_else(|| cwd.clone(), Path::to_path_buf)
}

/// A `.git` file points at the real git dir; a worktree's git dir has a `commondir` leading back
/// to the main repository's `.git`, whose parent is the shared root. Submodules have none.
/// Both files are a line; anything that is not a small regular file (a FIFO, `/dev/zero`) is
/// not read, and the folder is its own project.
fn root_of_gitfile(dir: &Path, dotgit: &Path) -> Option<PathBuf> {
    let text = crate::files::read_text(dotgit, MAX_GIT_FILE).ok()?;
    let gitdir = text.lines().find_map(|l| l.strip_prefix("gitdir:"))?.trim();
    let gitdir = dir.join(gitdir);
    let common = crate::files::read_text(&gitdir.join("commondir"), MAX_GIT_FILE).ok()?;
    let common = std::fs::canonicalize(gitdir.join(common.trim())).ok()?;
    if common.file_name()? == ".git" { common.parent().map(Path::to_path_buf) } else { Some(common) }
}

fn display(path: &Path) -> String {
    let s = path.to_string_lossy();
    if s.len() > 1 { s.trim_end_matches('/').to_string() } else { s.into_owned() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn git_root_worktree_and_plain_dirs() {
        let tmp = std::env::temp_dir().join(format!("cairn-project-test-{}", std::process::id()));
        fs::create_dir_all(&tmp).unwrap();
        let root = fs::canonicalize(&tmp).unwrap();
        let repo = root.join("repo");
        fs::create_dir_all(repo.join(".git/worktrees/wt")).unwrap();
        fs::create_dir_all(repo.join("src/deep")).unwrap();
        assert_eq!(project_of(&repo.join("src/deep")), repo.display().to_string());

        // A linked worktree elsewhere points back through commondir.
        let wt = root.join("wt");
        fs::create_dir_all(wt.join("sub")).unwrap();
        fs::write(wt.join(".git"), format!("gitdir: {}\n", repo.join(".git/worktrees/wt").display())).unwrap();
        fs::write(repo.join(".git/worktrees/wt/commondir"), "../..\n").unwrap();
        assert_eq!(project_of(&wt.join("sub")), repo.display().to_string());
        assert_eq!(checkout_root(&wt.join("sub")), wt, "a worktree is its own checkout");
        assert_eq!(checkout_root(&repo.join("src/deep")), repo);

        // A submodule's .git file has no commondir: the submodule is its own project.
        let sm = repo.join("vendor/lib");
        fs::create_dir_all(repo.join(".git/modules/lib")).unwrap();
        fs::create_dir_all(&sm).unwrap();
        fs::write(sm.join(".git"), "gitdir: ../../.git/modules/lib\n").unwrap();
        assert_eq!(project_of(&sm), sm.display().to_string());

        let plain = root.join("plain/x");
        fs::create_dir_all(&plain).unwrap();
        assert_eq!(project_of(&plain), plain.display().to_string());
        fs::remove_dir_all(&root).unwrap();
    }

    /// A `.git` file or `commondir` that is a FIFO, a device or huge is not read: the folder
    /// is its own project, at once.
    #[test]
    fn git_files_that_are_not_small_files_are_not_read() {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap();
        let fifo = |p: &Path| {
            let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
            // SAFETY: mkfifo reads a valid C string.
            assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        };
        // commondir a FIFO, then /dev/zero, then huge.
        let wt = root.join("wt");
        let gitdir = root.join("repo/.git/worktrees/wt");
        fs::create_dir_all(&gitdir).unwrap();
        fs::create_dir_all(&wt).unwrap();
        fs::write(wt.join(".git"), format!("gitdir: {}\n", gitdir.display())).unwrap();
        fifo(&gitdir.join("commondir"));
        assert_eq!(project_of(&wt), wt.display().to_string());
        fs::remove_file(gitdir.join("commondir")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", gitdir.join("commondir")).unwrap();
        assert_eq!(project_of(&wt), wt.display().to_string());
        fs::remove_file(gitdir.join("commondir")).unwrap();
        fs::write(gitdir.join("commondir"), "../..".repeat(2000)).unwrap();
        assert_eq!(project_of(&wt), wt.display().to_string());
        // The .git file itself a FIFO (symlink_metadata sees a FIFO, not a file): a folder of its own.
        let other = root.join("other");
        fs::create_dir_all(&other).unwrap();
        fifo(&other.join(".git"));
        assert_eq!(project_of(&other), other.display().to_string());
        // A .git symlink to /dev/zero.
        let third = root.join("third");
        fs::create_dir_all(&third).unwrap();
        std::os::unix::fs::symlink("/dev/zero", third.join(".git")).unwrap();
        assert_eq!(project_of(&third), third.display().to_string());
    }

    #[test]
    fn missing_directories_are_their_own_project() {
        assert_eq!(project_of(Path::new("/no/such/dir/")), "/no/such/dir");
    }

    /// What a `.git` entry or a `commondir` can be.
    #[derive(Debug, Clone)]
    enum Entry {
        Dir,
        Text(String),
        Fifo,
        Zero,
        Missing,
        Huge,
    }

    fn entry() -> impl proptest::strategy::Strategy<Value = Entry> {
        use proptest::prelude::*;
        prop_oneof![
            Just(Entry::Dir),
            "(gitdir: )?[a-z./]{0,20}\n?".prop_map(Entry::Text),
            "\\PC{0,40}".prop_map(Entry::Text),
            Just(Entry::Fifo),
            Just(Entry::Zero),
            Just(Entry::Missing),
            Just(Entry::Huge),
        ]
    }

    fn make(path: &Path, e: &Entry) {
        match e {
            Entry::Dir => fs::create_dir_all(path).unwrap(),
            Entry::Text(t) => fs::write(path, t).unwrap(),
            Entry::Fifo => {
                let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
                // SAFETY: mkfifo reads a valid C string.
                unsafe { libc::mkfifo(c.as_ptr(), 0o600) };
            }
            Entry::Zero => std::os::unix::fs::symlink("/dev/zero", path).unwrap(),
            Entry::Missing => {}
            Entry::Huge => fs::write(path, "x".repeat(1 << 20)).unwrap(),
        }
    }

    fn cases(default: u32) -> u32 {
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(cases(128)))]

        /// Any path text: a project, never a panic, never empty.
        #[test]
        fn any_path_is_a_project(path in "\\PC{0,60}") {
            let path = path.replace('\0', "");
            proptest::prop_assert!(!project_of(Path::new(&path)).is_empty() || path.is_empty());
        }

        /// A folder with `.git` entries and a worktree's `commondir` of any kind, at any depth:
        /// the project comes back at once (no FIFO is opened, no device read), and it is the
        /// folder, one of its parents, or the repository a well-formed worktree points to.
        #[test]
        fn any_git_layout_resolves_at_once(depth in 0usize..4, dotgit in entry(), commondir in entry(), pointer in proptest::prelude::any::<bool>()) {
            let tmp = tempfile::tempdir().unwrap();
            let root = fs::canonicalize(tmp.path()).unwrap();
            let gitdir = root.join("repo/.git/worktrees/w");
            fs::create_dir_all(&gitdir).unwrap();
            let mut cwd = root.join("top");
            fs::create_dir_all(&cwd).unwrap();
            let top = cwd.clone();
            if pointer {
                fs::write(top.join(".git"), format!("gitdir: {}\n", gitdir.display())).unwrap();
            } else {
                make(&top.join(".git"), &dotgit);
            }
            make(&gitdir.join("commondir"), &commondir);
            for d in 0..depth {
                cwd = cwd.join(format!("d{d}"));
            }
            fs::create_dir_all(&cwd).unwrap();
            let found = PathBuf::from(project_of(&cwd));
            proptest::prop_assert!(cwd.starts_with(&found) || found.starts_with(root.join("repo")), "{} for {}", found.display(), cwd.display());
        }
    }
}
