//! Whether an action already does what a lesson asks: the decision's `complies` input. Pure; no
//! I/O.
//!
//! Closeness in meaning cannot tell `cargo test -- --test-threads=1` from `cargo test` beside
//! "run the billing tests with --test-threads=1": both are about the lesson. What tells them apart
//! is the lesson's remedy written into the action. A remedy is a run of code-like words in a
//! clause of the lesson that prescribes (not one that warns: "never", "don't", "instead of"):
//! two or more words with no function word between them (`make dev`, `cargo update -p`), or one
//! word that is plainly code (`--test-threads=1`, `requirements.txt`). The action's own text (the
//! command, an edit's new text, the prompt; never Claude Code's description of it, which restates
//! the goal) must hold the whole run, in order. The model weighs the answer with the rest; it
//! does not decide alone.
//!
//! The counterpart is the decision's `takes_out` input: an edit that takes out words the lesson
//! names (`concurrencyPolicy: Forbid` turned to `Allow` beside "guard jobs with Forbid", a
//! `verifyJwt` call dropped beside "verify tokens on the server") changes what the lesson is
//! about. Whether that breaks the lesson or obeys it, the fitted weight says.

use crate::base::text;

/// Function words of prose: they end a run of code-like words.
const BREAKS: &[&str] = &[
    "a", "an", "the", "and", "or", "of", "to", "in", "on", "at", "for", "with", "from", "by", "as", "into", "so", "that", "this", "these", "those", "it",
    "its", "is", "are", "be", "been", "was", "were", "before", "after", "when", "once", "then", "than", "only", "every", "each", "all", "any", "our", "we",
    "you", "your", "their", "there", "which", "who", "what", "how", "can", "must", "should", "need", "needs", "up", "out", "over", "under", "about",
    "one", "first", "else", "also", "too", "same", "own", "if", "but", "because", "while", "until", "works", "fails",
];

/// Characters that make a single word code (a flag, a file, a path, an assignment).
fn is_code(word: &str) -> bool {
    word.chars().count() > 3 && word.contains(['-', '=', '.', '/', '_', '*', ':', '@'])
}

/// The words of `text`, lowercased, with code characters kept inside them (`--test-threads=1`
/// is `test-threads=1`, `requirements.txt` one word) and punctuation at their ends dropped.
/// An environment variable set for a command (`VERSION=1.2.3`) is the variable's name and `=`:
/// a lesson learned from `VERSION=1.2.3 make release` is done by `VERSION=2.0.0 make release`.
fn words(text: &str) -> Vec<String> {
    let keep = |c: char| c.is_alphanumeric() || "_.-/=*:@'".contains(c);
    let variable = |w: &str| w.split_once('=').filter(|(k, _)| k.starts_with(|c: char| c.is_ascii_uppercase()) && k.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')).map(|(k, _)| format!("{}=", k.to_lowercase()));
    text.split(|c: char| !keep(c))
        .map(|w| variable(w).unwrap_or_else(|| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '*').to_lowercase()))
        .filter(|w| !w.is_empty())
        .collect()
}

/// `text` with each parenthesis made part of the clause around it: its brackets, and the commas
/// and semicolons inside it, become spaces.
fn with_parentheses_joined(text: &str) -> String {
    let mut depth = 0usize;
    text.chars()
        .map(|c| match c {
            '(' => {
                depth += 1;
                ' '
            }
            ')' if depth > 0 => {
                depth -= 1;
                ' '
            }
            ',' | ';' if depth > 0 => ' ',
            c => c,
        })
        .collect()
}

/// The lesson's remedies: runs of code-like words in the clauses that prescribe. A run that a
/// warning clause also holds names what the lesson is about, not what to do: in "ledger_entries
/// is append-only; never UPDATE or DELETE rows of ledger_entries", `ledger_entries` is the table
/// at risk, and an action on it is no sign that it complies. A parenthesis belongs to the clause
/// before it: in "Do not install packages with sudo (`sudo npm install -g`, `sudo pip
/// install`)" the commands in it are what the warning names, not a remedy.
fn remedies(lesson: &str) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = Vec::new();
    let lesson = with_parentheses_joined(lesson);
    // What fails is warned of as much as what not to do ("`make release` fails (...);
    // `VERSION=1.2.3 make release` works": a recovery's remedy is the call that worked).
    let fails = |c: &str| [" fails", " keeps failing", " failed"].iter().any(|f| c.contains(f));
    let (warnings, prescriptions): (Vec<&str>, Vec<&str>) = text::clauses(&lesson).partition(|c| text::warns(c) || fails(c));
    let warned: Vec<Vec<String>> = warnings.into_iter().map(words).collect();
    let in_a_warning = |run: &[String]| warned.iter().any(|w| w.windows(run.len()).any(|w| w == run));
    for clause in prescriptions {
        let mut run: Vec<String> = Vec::new();
        // Runs joined by "and" or "or" wait for the word after them: a copula makes them the
        // clause's subject ("console.log is stripped in production builds", "prisma migrate dev
        // and prisma db push are for your local database only"), what the lesson is about.
        let mut pending: Vec<Vec<String>> = Vec::new();
        // The word before the run: after an article, plain words are a thing named ("run the
        // database migrations on a copy first"), not a command to run; code is code anywhere.
        let mut before: Option<String> = None;
        for w in words(clause).into_iter().map(Some).chain([None]) {
            match w {
                Some(w) if !BREAKS.contains(&w.as_str()) => run.push(w),
                w => {
                    let named = before.as_deref().is_some_and(|b| ARTICLES.contains(&b)) && !run.iter().any(|w| is_code(w));
                    if (run.len() >= 2 || run.first().is_some_and(|w| is_code(w))) && !named && !in_a_warning(&run) {
                        pending.push(std::mem::take(&mut run));
                    }
                    run.clear();
                    before = w.clone();
                    match w.as_deref() {
                        Some("and" | "or") => {}
                        Some(w) if COPULAS.contains(&w) => pending.clear(),
                        _ => out.append(&mut pending),
                    }
                }
            }
        }
    }
    out
}

/// Words after which plain words name a thing.
const ARTICLES: &[&str] = &["a", "an", "the", "this", "these", "those", "that", "our", "your", "their", "its", "every", "each", "any", "all"];

/// Verbs that make the words before them a clause's subject.
const COPULAS: &[&str] = &["is", "are", "was", "were"];

/// What an action puts in place (the command, an edit's new text, the prompt), as words, and
/// what an edit takes out, as index terms: read once for every lesson weighed at the moment.
pub struct Deed {
    words: Vec<String>,
    /// Each term taken out once, with the word it came from.
    taken: Vec<(String, String)>,
}

impl Deed {
    /// `text` is what the action puts in place, `taken` the words an edit takes out.
    pub fn of(text: &str, taken: &[String]) -> Deed {
        let mut seen = std::collections::HashSet::new();
        let taken = taken.iter().flat_map(|w| text::terms_with_words(w)).filter(|(t, _)| seen.insert(t.clone())).collect();
        Deed { words: words(text), taken }
    }

    /// The remedy of `lesson` this action already holds, in the lesson's words, or `None`.
    pub fn remedy_of(&self, lesson: &str) -> Option<String> {
        if self.words.is_empty() {
            return None;
        }
        remedies(lesson).into_iter().find(|r| self.words.windows(r.len()).any(|w| w == r.as_slice())).map(|r| r.join(" "))
    }

    /// The words the action takes out that `lesson` names (compared as index terms, so that
    /// `verifyJwt` meets "verify"), in the order taken.
    pub fn taken_from(&self, lesson: &str) -> Vec<String> {
        if self.taken.is_empty() {
            return Vec::new();
        }
        // Most lessons weighed share no word with what was taken out: a look for each term's
        // first letters in the lesson's text spares stemming them (a stem keeps its word's first
        // letters but for a few irregular words: 'dying' -> 'die').
        let lower = lesson.to_lowercase();
        let head = |t: &str| t.char_indices().nth(3).map_or(t.len(), |(i, _)| i);
        if !self.taken.iter().any(|(t, _)| lower.contains(&t[..head(t)])) {
            return Vec::new();
        }
        let named: std::collections::HashSet<String> = text::terms(lesson).into_iter().collect();
        self.taken.iter().filter(|(t, _)| named.contains(t)).map(|(_, w)| w.clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn already_done(lesson: &str, deed: &str) -> Option<String> {
        Deed::of(deed, &[]).remedy_of(lesson)
    }

    fn taken(lesson: &str, removed: &[&str]) -> Vec<String> {
        let removed: Vec<String> = removed.iter().map(|w| w.to_string()).collect();
        Deed::of("", &removed).taken_from(lesson)
    }

    #[test]
    fn an_edit_that_takes_out_what_the_lesson_names() {
        let cron = "Scheduled jobs must guard against overlapping runs: concurrencyPolicy: Forbid on CronJobs.";
        assert_eq!(taken(cron, &["Forbid"]), vec!["forbid"]);
        let auth = "Verify tokens on the server with the signing key.";
        // Compared as terms: the parts of an identifier, stemmed; each term counted once.
        assert_eq!(taken(auth, &["verifyJwt", "JWT_PUBLIC_KEY", "verifying"]), vec!["verify", "key"]);
        assert!(taken(auth, &["timeout", "retries"]).is_empty(), "nothing the lesson names");
        assert!(taken(auth, &[]).is_empty(), "nothing taken out");
        assert!(taken("", &["verify"]).is_empty());
    }

    #[test]
    fn an_action_that_holds_the_remedy_complies() {
        let serial = "In the ledger service, run tests with --test-threads=1; the suites share one schema.";
        assert_eq!(already_done(serial, "cargo test -p ledger -- --test-threads=1").as_deref(), Some("test-threads=1"));
        assert_eq!(already_done(serial, "cargo test -p ledger"), None);
        let stack = "Bring the stack up with make up-local; it seeds the queues that plain docker compose skips.";
        assert_eq!(already_done(stack, "make up-local").as_deref(), Some("make up-local"));
        assert_eq!(already_done(stack, "docker compose up -d"), None, "what the lesson warns about is no remedy");
        let one_at_a_time = "Bump gems one at a time with bundle update --conservative so the lockfile diff stays small.";
        assert_eq!(already_done(one_at_a_time, "bundle update --conservative rack").as_deref(), Some("bundle update conservative"));
        assert_eq!(already_done(one_at_a_time, "bundle update"), None, "a part of the remedy is not the remedy");
        // A recovery that set a variable is done by a call that sets it, to whatever value.
        let release = "In this project, `make release` fails (error: VERSION is required); `VERSION=1.2.3 make release` works.";
        assert_eq!(already_done(release, "VERSION=2.0.0 make release").as_deref(), Some("version= make release"));
        assert_eq!(already_done(release, "make release"), None);
    }

    #[test]
    fn a_warning_clause_names_no_remedy() {
        // Nor the parenthesis that follows it, listing what it warns about.
        let sudo = "Do not install packages with sudo (`sudo npm install -g`, `sudo pip install`): it writes root-owned files into places your user manages.";
        assert_eq!(already_done(sudo, "sudo pip install -r requirements.txt"), None);
        let serial = "Run the ledger suite one test at a time (with `--test-threads=1`): the tests share one schema.";
        assert_eq!(already_done(serial, "cargo test -p ledger -- --test-threads=1").as_deref(), Some("test-threads=1"), "a remedy in a parenthesis of a prescription is one");
        let lesson = "Never run terraform destroy in envs/core; only sandbox-* stacks are throwaway.";
        assert_eq!(already_done(lesson, "terraform destroy -auto-approve"), None);
        assert_eq!(already_done("Don't call git push --force on main.", "git push --force origin main"), None);
        assert_eq!(already_done("Pin images by digest instead of latest tags.", "image: api:latest tags"), None);
        // What a warning names is the thing at risk, even where another clause names it plainly.
        let ledger = "ledger_entries is append-only: a correction is a reversing entry; never UPDATE or DELETE rows of ledger_entries.";
        assert_eq!(already_done(ledger, "DELETE FROM ledger_entries WHERE amount_cents = 0"), None);
        let locked = "Release binaries are built with cargo build --release --locked; without --locked the lockfile is ignored.";
        assert_eq!(already_done(locked, "cargo build --release --locked").as_deref(), Some("cargo build release locked"), "the whole run is no warning's");
    }

    #[test]
    fn a_code_name_and_its_value_stay_one_run() {
        let cron = "Scheduled jobs must guard against overlapping runs: concurrencyPolicy: Forbid on CronJobs.";
        assert_eq!(already_done(cron, "spec:\n  concurrencyPolicy: Forbid\n  schedule: '0 1 * * *'").as_deref(), Some("concurrencypolicy forbid"));
        assert_eq!(already_done(cron, "spec:\n  concurrencyPolicy: Allow"), None);
    }

    #[test]
    fn the_subject_of_a_statement_is_no_remedy() {
        let stripped = "console.log is stripped in production builds; log with logger.info.";
        assert_eq!(already_done(stripped, "console.log('order', order)"), None);
        assert_eq!(already_done(stripped, "logger.info({ order })").as_deref(), Some("logger.info"));
        let local = "prisma migrate dev and prisma db push are for your local database only.";
        assert_eq!(already_done(local, "npx dotenv -e .env.staging -- npx prisma db push"), None);
        assert_eq!(already_done(local, "npx prisma migrate dev"), None);
        // A thing named after an article is what the action is about; code after one is code.
        let copy = "Run the database migrations on a copy of production first.";
        assert_eq!(already_done(copy, "run the database migrations on production"), None);
        assert_eq!(already_done("Build the images with the docker-bake.hcl; it pins the platforms.", "docker buildx bake -f docker-bake.hcl").as_deref(), Some("docker-bake.hcl"));
        // Runs joined by "and" with no copula after them stay remedies.
        let seed = "Start the stack with make dev and make seed.";
        assert_eq!(already_done(seed, "make seed").as_deref(), Some("make seed"));
    }

    /// Texts of a few words that make remedies and warnings, so that matches happen.
    fn lessonish() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        const WORDS: &[&str] = &["run", "make", "dev", "the", "with", "never", "don't", "--jobs=1", "cargo", "test", "app.yml", ";", ",", ".", "not", "build"];
        prop::collection::vec(prop::sample::select(WORDS), 0..14).prop_map(|w| w.join(" "))
    }

    /// A remedy found is a run of words in both the action and the lesson.
    fn found_in_both(lesson: &str, deed: &str) -> Result<(), proptest::test_runner::TestCaseError> {
        if let Some(r) = already_done(lesson, deed) {
            let run: Vec<String> = r.split(' ').map(str::to_string).collect();
            proptest::prop_assert!(words(deed).windows(run.len()).any(|w| w == run.as_slice()), "{r:?} not in the deed");
            proptest::prop_assert!(words(lesson).windows(run.len()).any(|w| w == run.as_slice()), "{r:?} not in the lesson");
        }
        Ok(())
    }

    /// Words with the endings a stemmer takes off, so that terms meet across forms.
    fn inflected() -> impl proptest::strategy::Strategy<Value = Vec<String>> {
        use proptest::prelude::*;
        const WORDS: &[&str] = &["verify", "verifying", "verifies", "verifyJwt", "token", "Tokens", "key", "KEYS", "forbid", "Forbidden", "lock", "locking", "skies", "dying", "die", "retries", "retry", "a", "the", "x"];
        prop::collection::vec(prop::sample::select(WORDS).prop_map(str::to_string), 0..8)
    }

    proptest::proptest! {
        #[test]
        fn the_quick_look_never_hides_a_shared_term(lesson in inflected(), removed in inflected()) {
            // What the quick look lets through is what comparing every term finds.
            let lesson = lesson.join(" ");
            let named: std::collections::HashSet<String> = text::terms(&lesson).into_iter().collect();
            let deed = Deed::of("", &removed);
            let every: Vec<String> = deed.taken.iter().filter(|(t, _)| named.contains(t)).map(|(_, w)| w.clone()).collect();
            let found = deed.taken_from(&lesson);
            // Irregular stems ('dying' -> 'die') may be missed; nothing else may.
            if !removed.iter().chain(lesson.split(' ').map(str::to_string).collect::<Vec<_>>().iter()).any(|w| w == "dying" || w == "skies") {
                proptest::prop_assert_eq!(found, every);
            }
        }

        #[test]
        fn texts_of_remedy_words_give_remedies_in_both(lesson in lessonish(), deed in lessonish()) {
            found_in_both(&lesson, &deed)?;
        }

        #[test]
        fn any_text_is_read_and_a_remedy_found_is_in_both(lesson in "\\PC{0,200}", deed in "\\PC{0,200}") {
            found_in_both(&lesson, &deed)?;
        }
    }

    #[test]
    fn the_words_must_be_a_run_in_order() {
        let lesson = "Format with black --line-length 100 before committing.";
        assert_eq!(already_done(lesson, "black --line-length 100 src/").as_deref(), Some("black line-length 100"));
        assert_eq!(already_done(lesson, "black src/ && echo --line-length 100"), None);
        assert_eq!(already_done(lesson, ""), None);
        // Prose alone names no remedy: single plain words never count.
        assert_eq!(already_done("Always review carefully.", "review"), None);
    }
}
