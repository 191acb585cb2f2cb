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
fn is_assignment(word: &str) -> bool {
    !word.starts_with('-') && word.split_once('=').is_some_and(|(k, _)| !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
}

fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The command's first line split as the shell would (on whitespace when its quotes do not
/// balance, as in a command cut short), without leading environment assignments and `sudo`.
pub fn words(command: &str) -> Vec<String> {
    let line = command.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    let split = shlex::split(line).unwrap_or_else(|| line.split_whitespace().map(str::to_string).collect());
    split.into_iter().skip_while(|w| is_assignment(w)).filter(|w| w != "sudo").collect()
}

/// A word that can name what a program does: letters first, no path.
fn word_like(w: &str) -> bool {
    w.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) && !w.contains('/') && w.chars().all(|c| c.is_ascii_alphanumeric() || "._:-+@".contains(c))
}

/// The shape of one simple command (its words): the program's name and its first argument that
/// is not a flag (a flag before it without `=` takes the word after it as its value: `git -C
/// repo push`, `kubectl --context prod get`); a script's name (`manage.py`) brings the word after
/// it. `None` when there is no such word (`ls`, `pytest -x`) or it is a path.
fn shape_of(words: &[String]) -> Option<String> {
    let program = basename(words.first()?);
    let mut rest = words[1..].iter();
    let mut head = None;
    while let Some(w) = rest.next() {
        if w.starts_with('-') {
            if !w.contains('=') && w.len() > 1 {
                rest.next();
            }
            continue;
        }
        head = Some(w.as_str());
        break;
    }
    let head = head.filter(|h| word_like(h))?;
    let mut shape = format!("{program} {head}");
    if head.contains('.') {
        if let Some(next) = rest.find(|w| !w.starts_with('-')).filter(|w| word_like(w)) {
            shape.push(' ');
            shape.push_str(next);
        }
    }
    Some(shape.to_lowercase())
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
    fn flags_before_the_subcommand_take_their_values() {
        assert_eq!(s("git -C services/api push origin main"), Some("git push".into()));
        assert_eq!(s("kubectl --context prod-admin rollout restart deploy/api"), Some("kubectl rollout".into()));
        assert_eq!(s("terraform -chdir=infra apply"), Some("terraform apply".into()));
    }

    #[test]
    fn staging_wrappers_and_assignments_are_passed_over() {
        assert_eq!(s("cd apps/web && npm install zod"), Some("npm install".into()));
        assert_eq!(s("sudo npm install -g pnpm"), Some("npm install".into()));
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
        // Quotes that do not balance (a command cut short) are split on whitespace.
        assert_eq!(s("git commit -m 'half a message"), Some("git commit".into()));
    }
}
