//! A shell command's words and its shape: the program and what it is asked to do (`npm
//! install`, `terraform apply`, `git push`), without what it does it to. Two commands of one shape
//! are the same action on other arguments (`npm install lodash` after `npm install left-pad`),
//! which the embedding model does not see: package and file names outweigh the action in their
//! meaning. Pure.

/// Programs that only run the command after them (`sudo npm install` is `npm install`).
const WRAPPERS: &[&str] = &["sudo", "env", "time", "nohup", "exec", "command", "nice"];

/// Programs that set the stage for the command after them (`cd api && npm install`).
const STAGING: &[&str] = &["cd", "pushd", "popd", "export", "source", ".", "set", "unset"];

/// Tokens that end one command and start the next.
const SEPARATORS: &[&str] = &["&&", "||", ";", "|", "&"];

/// A leading `NAME=value`: an environment assignment, not the program.
pub fn is_assignment(word: &str) -> bool {
    !word.starts_with('-') && word.split_once('=').is_some_and(|(k, _)| !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
}

/// A path's last part: a program's name (`./node_modules/.bin/jest` is `jest`).
pub fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The program a command line runs, by name: its first word that is neither an environment
/// assignment nor `sudo` (`DEPLOY_ENV=staging sudo ./tools/deploy.sh` runs `deploy.sh`); empty
/// for none. Words are split on whitespace: a quick look, not the shell's reading.
pub fn program_of(command: &str) -> &str {
    command.split_whitespace().find(|w| !is_assignment(w) && *w != "sudo").map_or("", basename)
}

/// Longest shape kept: a longer one is not a command's name and what it does.
const MAX_SHAPE_CHARS: usize = 120;

/// The command's first line split as the shell would (on whitespace when its quotes do not
/// balance, as in a command cut short).
fn words(command: &str) -> Vec<String> {
    let line = command.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    shlex::split(line).unwrap_or_else(|| line.split_whitespace().map(str::to_string).collect())
}

/// A word that can name what a program does: letters first, no path.
fn word_like(w: &str) -> bool {
    w.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) && !w.contains('/') && w.chars().all(|c| c.is_ascii_alphanumeric() || "._:-+@".contains(c))
}

/// The shape of one simple command (its words): the program's name and its first argument that
/// is not a flag; a script's name (`manage.py`) brings the word after it. A flag before that
/// argument may be a switch (`--no-pager`) or take the next word as its value (`-C repo`,
/// `--context prod`, `-m black`): which, only the program knows, so the words before it are
/// kept as they are (`git -c repo push`) and only the same ones match. `None` when there is no
/// such word (`ls`, `pytest -x`), it is a path, or the program is not a name (`sudo -u www`).
fn shape_of(words: &[String]) -> Option<String> {
    let program = basename(words.first()?);
    if !word_like(program) {
        return None;
    }
    let mut rest = words[1..].iter();
    let mut shape = vec![program];
    let mut swallowed = false;
    let head = loop {
        let w = rest.next()?;
        if w.starts_with('-') {
            swallowed = !w.contains('=') && w.len() > 1;
            shape.push(w);
        } else if std::mem::take(&mut swallowed) {
            shape.push(w);
        } else {
            break w.as_str();
        }
    };
    if !word_like(head) {
        return None;
    }
    shape.push(head);
    if head.contains('.') && let Some(next) = rest.find(|w| !w.starts_with('-')).filter(|w| word_like(w)) {
        shape.push(next);
    }
    let shape = shape.join(" ").to_lowercase();
    (shape.chars().count() <= MAX_SHAPE_CHARS).then_some(shape)
}

/// The shape of a command line: that of its first simple command past any that only set the
/// stage (`cd`, `export`), wrappers (`env`, `time`) left out.
pub fn shape(command: &str) -> Option<String> {
    let words = words(command);
    let mut start = 0;
    while start < words.len() {
        let end = words[start..].iter().position(|w| SEPARATORS.contains(&w.as_str()) || w.ends_with(';')).map_or(words.len(), |p| start + p);
        let mut simple: Vec<String> = words[start..end].iter().skip_while(|w| is_assignment(w) || WRAPPERS.contains(&w.as_str())).cloned().collect();
        if let Some(last) = words.get(end).filter(|w| w.ends_with(';') && w.len() > 1) {
            simple.push(last.trim_end_matches(';').to_string());
        }
        match simple.first() {
            Some(p) if !STAGING.contains(&basename(p)) => return shape_of(&simple),
            _ => start = end + 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(command: &str) -> Option<String> {
        shape(command)
    }

    #[test]
    fn a_program_is_read_past_assignments_and_sudo() {
        assert_eq!(program_of("DEPLOY_ENV=staging sudo ./tools/deploy.sh --dry-run"), "deploy.sh");
        assert_eq!(program_of("npm test"), "npm");
        assert_eq!(program_of("--flag=x npm"), "--flag=x");
        assert_eq!(program_of("   "), "");
        assert!(is_assignment("RUST_LOG=debug") && !is_assignment("--out=x") && !is_assignment("=x"));
    }

    #[test]
    fn the_same_action_on_other_arguments_has_one_shape() {
        assert_eq!(s("npm install left-pad"), Some("npm install".into()));
        assert_eq!(s("npm install lodash"), s("npm install left-pad"));
        assert_eq!(s("npm install -D typescript"), Some("npm install".into()));
        assert_eq!(s("terraform apply -auto-approve"), s("terraform apply plan.tfplan"));
        assert_eq!(s("terraform apply -target=module.vpc"), Some("terraform apply".into()));
        assert_eq!(s("git push --force origin main"), s("git push -u origin fix/order-total"));
    }

    #[test]
    fn another_subcommand_or_program_is_another_shape() {
        assert_ne!(s("npm run build"), s("npm install left-pad"));
        assert_ne!(s("terraform fmt -recursive"), s("terraform apply"));
        assert_ne!(s("yarn add zod"), s("npm install zod"));
        assert_eq!(s("npm run test:int -- --grep orders"), Some("npm run".into()));
    }

    #[test]
    fn words_before_the_subcommand_are_kept_as_they_are() {
        assert_eq!(s("git -C services/api push origin main"), Some("git -c services/api push".into()));
        assert_eq!(s("kubectl --context prod-admin rollout restart deploy/api"), Some("kubectl --context prod-admin rollout".into()));
        assert_eq!(s("terraform -chdir=infra apply"), Some("terraform -chdir=infra apply".into()));
        // A switch or a flag's value: either way, only the same words match.
        assert_ne!(s("python -m black src"), s("python -m mypy src"));
        assert_ne!(s("git --no-pager diff main"), s("git --no-pager show main"));
        assert_ne!(s("git -C a push"), s("git -C b push"));
    }

    #[test]
    fn staging_wrappers_and_assignments_are_passed_over() {
        assert_eq!(s("cd apps/web && npm install zod"), Some("npm install".into()));
        assert_eq!(s("sudo npm install -g pnpm"), Some("npm install".into()));
        // A wrapper's own options leave no program's name.
        assert_eq!(s("sudo -u www-data php artisan migrate"), None);
        assert_eq!(s("sudo -E npm run build"), None);
        assert_eq!(s("NODE_ENV=test env time npx jest src"), Some("npx jest".into()));
        assert_eq!(s("export A=1; cargo test -p billing"), Some("cargo test".into()));
        assert_eq!(s("/usr/local/bin/Python3 manage.py migrate --plan"), Some("python3 manage.py migrate".into()));
    }

    #[test]
    fn no_shape_without_a_word_for_the_action() {
        assert_eq!(s(""), None);
        assert_eq!(s("ls"), None);
        assert_eq!(s("pytest -x"), None);
        assert_eq!(s("python tests/test_refund.py"), None);
        assert_eq!(s("cd somewhere"), None);
        assert_eq!(s("'/opt/my tools' build"), None);
        assert_eq!(s(&format!("make {}", "x".repeat(200))), None);
        // Quotes that do not balance (a command cut short) are split on whitespace.
        assert_eq!(s("git commit -m 'half a message"), Some("git commit".into()));
    }
}
