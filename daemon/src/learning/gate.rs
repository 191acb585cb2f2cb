//! The quality gate: whether a candidate lesson is worth keeping. Pure.
//!
//! Five dimensions in [0, 1], each with its reason:
//! - **actionability**: it tells the agent what to do or not do (a directive, a rule, a
//!   recovery's "X fails; Y works"), or at least states a fact of the project;
//! - **specificity**: it names things (a command, a path, a flag, an identifier, a tool) rather
//!   than "the code" or "tests";
//! - **reasoning**: it says why (because, otherwise, so that, the error it avoids);
//! - **novelty**: it is not an existing lesson again, by meaning (cosine) and by words;
//! - **outcome link**: it comes from something that happened (a failure recovered from, a
//!   correction of a call) rather than from nowhere.
//!
//! Verdicts: **primitive** (never stored: usage statistics, timings, text that restates a
//! command, fragments, tautologies, or too vague to act on), **duplicate** (an existing lesson
//! again: the capture strengthens that lesson instead), **needs work** (kept as a candidate
//! that only the user can promote) and **quality** (kept as a candidate that promotes itself
//! once its shadow record confirms it). "Keep" is quality or needs work.

use serde::{Deserialize, Serialize};

use std::collections::HashSet;

use super::attribution::{Direction, NEGATIONS};
use super::duplicate::{overlap, DuplicateModel};
use crate::base::text;
use crate::retrieval::command::{is_assignment, program_of};

/// What the gate is given about the candidate.
#[derive(Debug, Clone)]
pub struct Input<'a> {
    pub text: &'a str,
    /// `prompt`, `recovery`, `failure`, `claude-md`, ...
    pub source: &'a str,
    /// The closest existing lessons: id, text, and the cosine with the candidate when the model
    /// is loaded.
    pub nearest: Vec<(&'a str, &'a str, Option<f64>)>,
    /// How capture heard the lesson in a user's prompt, if it did: the user said it as a rule,
    /// whatever its verb.
    pub heard: HeardBy,
}

/// How a lesson was heard in a user's prompt.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum HeardBy {
    /// Not from a prompt, or not heard there (a text judged on its own).
    #[default]
    Not,
    /// By capture's patterns: a correction ("X, not Y"), a prohibition ("no lombok in new
    /// code"), a standing instruction ("going forward ..."), what the wrong way does.
    Patterns,
    /// By the prompt model (`super::heard`), with the probability it gave the prompt.
    Model(f64),
}

/// The gate's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Quality,
    NeedsWork,
    Primitive,
    Duplicate,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Quality => "quality",
            Verdict::NeedsWork => "needs_work",
            Verdict::Primitive => "primitive",
            Verdict::Duplicate => "duplicate",
        }
    }

    /// Whether capture keeps it as a candidate.
    pub fn keeps(self) -> bool {
        matches!(self, Verdict::Quality | Verdict::NeedsWork)
    }
}

/// The gate's bars (tuneables `capture.*`).
#[derive(Debug, Clone, Copy)]
pub struct Bars {
    /// Overall score for `quality`.
    pub quality: f64,
    /// Overall score under which a candidate is too vague to keep at all.
    pub keep: f64,
    /// Cosine at which a candidate is an existing lesson again.
    pub duplicate_cosine: f64,
    /// Share of the shorter text's words found in the other at which it is one again by words.
    pub duplicate_words: f64,
    /// The learned reading of "the same lesson again" (`super::duplicate`), when it fits the
    /// loaded embedding model; without it, fixed bars on cosine and shared words decide.
    pub duplicates: Option<&'static DuplicateModel>,
}

impl Default for Bars {
    fn default() -> Self {
        Bars { quality: 0.55, keep: 0.40, duplicate_cosine: 0.75, duplicate_words: 0.8, duplicates: None }
    }
}

/// The gate's judgement.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgement {
    pub verdict: Verdict,
    pub score: f64,
    pub actionability: f64,
    pub specificity: f64,
    pub reasoning: f64,
    pub novelty: f64,
    pub outcome_linked: f64,
    /// One per dimension, then the verdict's.
    pub reasons: Vec<String>,
    pub duplicate_of: Option<String>,
}

/// Weights of the dimensions in the score (they sum to 1).
const WEIGHTS: [f64; 5] = [0.30, 0.25, 0.10, 0.20, 0.15];

/// The overall score of five dimensions (actionability, specificity, reasoning, novelty,
/// outcome link).
pub fn score(dimensions: [f64; 5]) -> f64 {
    dimensions.iter().zip(WEIGHTS).map(|(d, w)| d * w).sum()
}

/// Words that name nothing in particular.
const GENERIC: &[&str] = &[
    "code", "thing", "things", "stuff", "work", "works", "working", "pass", "passes", "test", "tests", "careful", "carefully", "good", "bad", "better",
    "best", "right", "wrong", "sure", "make", "properly", "correctly", "always", "never", "should", "must", "use", "do", "don't", "not", "check",
    "issue", "issues", "problem", "problems", "fix", "bug", "bugs", "change", "changes", "file", "files", "project", "repo", "here", "everything",
    "anything", "nice", "clean", "quality", "important", "well", "fine", "ok", "okay", "way", "before", "after", "again", "also", "just", "really",
    "please", "keep", "write", "run", "it", "this", "that", "the", "a", "an", "to", "and", "or", "of", "in", "on", "for", "with", "be", "is", "are",
    "was", "were", "you", "we", "i", "they", "them", "all", "any", "some", "more", "less", "very", "too", "stuff", "things", "something", "care",
    "mistakes", "mistake", "errors", "error", "time", "times", "when", "then", "than", "if", "so", "by", "at", "as", "from", "into", "up", "out",
    "sense", "makes", "make", "made", "doing", "done", "look", "looks", "see", "new", "old", "now", "one", "ones", "correct", "broken", "break",
    "functions", "function", "output", "input", "stuff.", "etc", "thing.", "possible", "needed", "need", "needs", "like", "each", "every",
    "readable", "readability", "compiles", "compile", "compiled", "green", "maintainable", "simple", "consistent", "robust", "tidy", "neat", "elegant",
    "documented", "working", "fixed", "sure", "careful", "ensure", "remember", "last", "week", "yesterday", "today", "thanks",
];

/// Verbs that open a directive.
pub const DIRECTIVES: &[&str] = &[
    "always", "never", "don't", "do", "avoid", "use", "run", "prefer", "keep", "put", "add", "pin", "set", "call", "check", "ship", "build", "pass",
    "read", "write", "ask", "wrap", "import", "export", "install", "commit", "push", "rebase", "merge", "test", "mock", "bump", "tag", "deploy",
    "restart", "start", "stop", "make", "ensure", "only", "leave", "go", "prefix", "name", "store", "log", "validate", "escape", "quote", "lock",
    "update", "regenerate", "generate", "create", "delete", "remove", "move", "rename", "open", "close", "point", "target", "include", "exclude",
    "drop", "migrate", "squash", "sign", "format", "lint", "review", "document", "return", "raise", "throw", "catch", "handle", "retry", "wait",
    "source", "export", "cd", "switch", "reuse", "follow", "target", "send", "request", "fix", "change", "replace", "implement", "refactor", "rewrite",
    "extract", "convert", "upgrade", "downgrade", "enqueue", "reference", "register", "declare", "schedule", "publish", "inject",
    "annotate", "encrypt", "prune", "expose", "parse", "reach", "match", "load", "eager-load", "mark", "guard", "route",
];

/// Words that ask for something, padded by spaces.
const MODALS: &[&str] = &[" should ", " must ", " prefer ", " avoid ", " need to ", " needs to ", " has to ", " have to ", " may only ", " may not "];

/// Words that give a reason.
const REASONS: &[&str] = &["because", "since", "otherwise", "so that", "or else", "which", "as it", "as they", "else", "due to", "to avoid", "to keep", "or it", "or the", "so the", "so it", "breaks", "fails", "caused", "causes"];

/// Whether a lowercased text marks a rule that lasts: it says always/never/don't, contrasts ("X,
/// not Y"), or speaks of every case (when, whenever, before, each, any, only, here, in this
/// project). A bare imperative is a request for now.
fn marks_a_rule(lower: &str) -> bool {
    let padded = format!(" {lower} ");
    [
        " always ", " never ", " don't ", " dont ", " do not ", " must ", " instead of ", " instead", " rather than ", ", not ", " not ", " no ", " only ",
        " when ", " whenever ", " before ", " after ", " each ", " every ", " any ", " all ", " here", " in this project", " in this repo", " we use ",
        " avoid ", " prefer ", " should ", " until ", " unless ", " without ", " from now on", " by default",
    ]
    .iter()
    .any(|m| padded.contains(m))
}

/// Whether one of a lowercased text's clauses opens with a directive ("After changing X, update
/// Y" is a directive too).
fn directs(lower: &str) -> bool {
    lower.split([';', ',', ':', '.']).any(|c| words(c).first().is_some_and(|w| DIRECTIVES.contains(&w.as_str()) && w != "do" && w != "make"))
}

/// Whether a lowercased text says what a thing always or never does ("node 7 never rejoins
/// after a brownout", "the picker always comes up empty"): "always" or "never" after a subject
/// that is not the agent, the team or the user, with nothing before it that asks ("you", "we",
/// "should", "must", "please").
fn describes(lower: &str) -> bool {
    lower.split([',', '.', ';', ':']).any(|clause| {
        let ws: Vec<&str> = clause.split_whitespace().collect();
        ws.iter().enumerate().any(|(i, w)| i > 0 && matches!(*w, "always" | "never") && !ws[..i].iter().any(|b| matches!(*b, "you" | "we" | "i" | "please" | "should" | "must" | "has" | "have")))
    })
}

/// Whether a lowercased text introduces a thing, as CLAUDE.md files open ("rackhouse is the
/// Terraform repo for a home cluster", "this is a Next.js app with ..."): its first sentence is a
/// name of at most three words, then "is a", "is an" or "is the". What a thing is made of or
/// where it comes from ("src/gen is generated from the protos") is a fact to act on, not an
/// introduction.
fn introduces(lower: &str) -> bool {
    let first = lower.split(['.', ';', ':']).next().unwrap_or("");
    let made = ["generated", "vendored", "deprecated", "read-only", "output", "copy", "mirror", "source of truth", "owned"];
    [" is a ", " is an ", " is the "].iter().any(|m| first.find(m).is_some_and(|at| first[..at].split_whitespace().count() <= 3)) && !made.iter().any(|w| lower.contains(w))
}

/// Verbs a CLAUDE.md line may open with besides [`DIRECTIVES`]: in a file read at the start of
/// every session, a line that opens with a verb is an instruction ("Give every task a name",
/// "Fetch data in server components"). Not used for prompts, where the same words are requests.
const INSTRUCTION_VERBS: &[&str] = &[
    "give", "fetch", "pass", "define", "split", "group", "sort", "cache", "memoize", "sanitize", "encode", "hash", "attach", "wrap", "label",
    "list", "limit", "measure", "profile", "benchmark", "comment", "describe", "explain", "type", "configure", "compile", "bundle", "vendor",
    "isolate", "seed", "stub", "fake", "freeze", "inline", "namespace", "version", "license", "initialise", "initialize", "favour", "favor",
    "stick", "treat", "consider", "think", "model", "represent", "derive", "emit", "expose", "hide", "scope", "select", "query", "paginate",
    "shut", "drain", "flush", "clear", "reset", "seal", "bind", "register", "serve", "render", "mount", "pick", "choose", "prefer",
];

/// Words of a CLAUDE.md line that name things besides its verb, the generic words and those
/// `besides`: what an instruction is about ("commit messages", "imperative mood").
fn named_besides_verb(ws: &[String], besides: &[&str]) -> usize {
    ws.iter().skip(1).filter(|w| w.len() >= 3 && w.chars().all(|c| c.is_alphanumeric() || c == '-') && !GENERIC.contains(&w.as_str()) && !besides.contains(&w.as_str())).count()
}

/// A CLAUDE.md line that names a choice in a few words, as those files are often written:
/// "Vitest, not Jest.", "Expo Router only.", "No lodash", "Polars over pandas", "Zod for runtime
/// validation." Both sides name something; a lone noun phrase ("Architecture notes") is not one.
fn terse_choice(text: &str) -> bool {
    let lower = text.trim().trim_end_matches(['.', '!']).to_lowercase();
    let ws = words(&lower);
    if !(2..=8).contains(&ws.len()) {
        return false;
    }
    // Two choices in one line: "ESM only, no CommonJS build."
    if !lower.contains(", not ") && (lower.contains(", ") || lower.contains("; ")) {
        return lower.split([',', ';']).all(|part| one_choice(part.trim()));
    }
    ws.len() <= 6 && one_choice(&lower)
}

/// One choice of [`terse_choice`], lowercased.
fn one_choice(lower: &str) -> bool {
    let names = |part: &str| !named_words(part).is_empty();
    if let Some((a, b)) = lower.split_once(", not ").or_else(|| lower.split_once(" not ")).or_else(|| lower.split_once(" over ")).or_else(|| lower.split_once(" instead of ")) {
        // "Try not to introduce bugs" is a wish, not a choice between two things.
        return names(a) && names(b) && !b.starts_with("to ");
    }
    if let Some(rest) = lower.strip_suffix(" only").or_else(|| lower.strip_prefix("only ")).or_else(|| lower.strip_prefix("no ")) {
        return names(rest);
    }
    // "Zod for runtime validation": a name, then what it is for. The first word names a tool or
    // library, not a generic thing ("Tests for everything").
    if let Some((a, b)) = lower.split_once(" for ") {
        // Not a pointer elsewhere ("See CONTRIBUTING.md for details").
        let opens_with_verb = words(a).first().is_some_and(|w| DIRECTIVES.contains(&w.as_str()) || INSTRUCTION_VERBS.contains(&w.as_str()) || w == "see");
        return words(a).len() <= 2 && names(a) && names(b) && !opens_with_verb;
    }
    false
}

/// A CLAUDE.md line that names a step and when to take it, without a verb, as those files are
/// often written: "mix format before every commit.", "`pnpm lint` before pushing." A few words
/// that do not open with a verb, an article or a pronoun, then "before" or "after" and a moment
/// of the work.
fn step_and_when(lower: &str) -> bool {
    let Some((head, when)) = lower.split_once(" before ").or_else(|| lower.split_once(" after ")) else { return false };
    let head = words(head);
    // `go` is a program as often as a verb there ("go test ./... after every change").
    let opens = head.first().is_some_and(|w| {
        (DIRECTIVES.contains(&w.as_str()) && w != "go") || INSTRUCTION_VERBS.contains(&w.as_str()) || ["the", "a", "an", "this", "that", "it", "we", "you", "i", "they", "always", "never", "don't", "do", "no"].contains(&w.as_str())
    });
    let moment = [
        "every ", "each ", "any ", "you ", "committing", "pushing", "merging", "opening", "releasing", "deploying", "tagging", "a commit", "a push", "a release", "a pr",
        "pulling", "switching", "changing", "checking out", "installing", "upgrading", "rebasing", "editing", "adding", "updating", "bumping", "touching",
    ];
    (1..=4).contains(&head.len()) && !opens && moment.iter().any(|m| when.trim_start().starts_with(m))
}

/// A CLAUDE.md line about how the assistant talks, not what it does: its replies' tone,
/// language, length or form ("Be concise.", "Don't apologise - just tell me what went wrong.",
/// "Use bullet points when explaining a change."). cairn speaks at tool calls and prompts; such a
/// line has no moment there. One about a thing the work leaves (a commit message, a comment, a
/// pull request) is about the work.
fn about_the_reply(lower: &str) -> bool {
    let padded = format!(" {} ", lower.trim_end_matches(['.', '!']));
    let reply = [
        " respond", " response", " reply", " replies", " answer", " apologi", " tell me", " explaining", " explanation",
        " summarise", " summarize", " summary", " bullet point", " emoji", " tone ", " verbose", " concise", " brief ", " briefly", " chatty",
        " in english", " in german", " in french", " in spanish", " to me ", " with me ", " preamble", " flattery", " compliment", " be direct",
        " talk ", " say so ", " sycophan", " filler", " clarifying question",
    ];
    let work = [" commit", " comment", " pull request", " pr ", " prs ", " changelog", " docs", " documentation", " readme", " docstring", " log ", " logs ", " error message", " test", " code", " file", " message"];
    reply.iter().any(|r| padded.contains(r)) && !work.iter().any(|w| padded.contains(w))
}

/// Phrases that ask for quality in general, naming no practice to check ("Follow best practices",
/// "Always consider the edge cases", "Code should be self-explanatory where possible").
const PLATITUDES: &[&str] = &[
    "best practice", "edge case", "where possible", "when possible", "if possible", "as needed", "when needed", "when necessary", "where appropriate",
    "when appropriate", "as appropriate", "at all times", "self-explanatory", "self-documenting", "clean code", "good code", "high quality",
    "high-quality", "industry standard", "common sense", "step by step", "everything works", "it works", "code quality", "the right way",
    "production-ready", "production ready", "good practice", "sensible", "reasonable", "reasonably", "think carefully", "thoroughly",
    "quality code", "better than you found", "idiomatic", "good name", "good names", "functions small", "small functions", "with respect",
    "in mind", "easy to", "over-engineer", "overengineer", "simple beats", "appropriate", "clean architecture", "where it makes sense",
    "when it makes sense", "if it makes sense",
];

/// Words that ask for a manner of doing ("gracefully", "consistently", "organised"): with no
/// criterion beside them, the line says how well, not what.
const MANNER: &[&str] = &[
    "gracefully", "consistently", "cleanly", "carefully", "neatly", "nicely", "sensibly", "organised", "organized", "meaningful", "efficiently",
    "efficient", "optimal", "optimally", "robustly", "safely", "responsibly", "elegantly", "professionally", "wisely",
    // A judgement the reader must make: what is unnecessary, appropriate or snappy enough is
    // what the line would have to say.
    "unnecessary", "unneeded", "needless", "needlessly", "excessive", "excessively", "overly", "appropriate", "appropriately", "proper",
    "snappy", "responsive", "performant", "actually", "principles", "senior",
    // Qualities asked for by name, with nothing that says how to get them.
    "reproducible", "modular", "reusable", "maintainable", "readable", "scalable", "composable", "overcomplicate", "overcomplicated",
    "overcomplicating", "over-complicate",
];

/// A CLAUDE.md line that is a platitude: a [`PLATITUDES`] phrase, and besides its words at most
/// one word that names anything ("Prefer composition over inheritance where possible" names
/// two and is a rule).
fn platitude(lower: &str) -> bool {
    // Whole words only: "make clean" names a target, "cleanup" is no "clean".
    let spaced: String = lower.chars().map(|c| if c.is_alphanumeric() || matches!(c, '-' | '\'') { c } else { ' ' }).collect();
    let mut rest = format!(" {} ", spaced.split_whitespace().collect::<Vec<_>>().join(" "));
    let mut found = false;
    for p in PLATITUDES {
        let phrase = format!(" {p} ");
        let plural = format!(" {p}s ");
        for form in [phrase, plural] {
            if rest.contains(&form) {
                found = true;
                rest = rest.replace(&form, "  ");
            }
        }
    }
    // Words that name nothing beside a platitude ("Write clean, idiomatic Kotlin").
    let filler = ["industry", "consider", "follow", "always", "strive", "aim", "try", "ensure", "should", "must", "write", "keep", "make", "possible", "practices", "handle", "leave", "say", "you're", "think", "about", "clean", "cases", "treat", "favour", "favor", "prefer", "modern", "conventions", "convention"];
    if found && words(&rest).iter().filter(|w| w.len() >= 3 && !GENERIC.contains(&w.as_str()) && !filler.contains(&w.as_str())).count() <= 1 {
        return true;
    }
    // A manner and nothing that says what it takes: no thing in code, no number, no "by",
    // "with", "instead of" or reason, and little else named ("Name dbt models consistently",
    // "Handle Celery failures gracefully"; not "Shut workers down gracefully by draining the
    // queue first", nor "Give every table a proper primary key", where the words name what).
    let ws = words(lower);
    let criterion = [" by ", " with ", " using ", " via ", " instead of ", " not ", ", never ", " before ", " after ", " when ", " unless ", " so ", ":", ";", "("].iter().any(|c| lower.contains(c))
        || gives_reason(lower)
        || lower.chars().any(|c| c.is_ascii_digit())
        || lower.split_whitespace().any(is_code);
    let besides: Vec<&str> = MANNER.iter().copied().chain(["avoid", "try"]).collect();
    ws.iter().any(|w| MANNER.contains(&w.as_str())) && !criterion && named_besides_verb(&ws, &besides) <= 2
}

/// Whether a text only restates its command's purpose ("Run `go test ./...` to run the tests",
/// "Run `swift build` to build the package", "`bin/rails test` runs the test suite"): every
/// word of the purpose but the generic ones is a word of the command.
fn restates_command(lower: &str) -> bool {
    let (command, purpose) = if let Some(rest) = lower.strip_prefix("run `").or_else(|| lower.strip_prefix("use `")) {
        let Some(split) = rest.split_once("` to ") else { return false };
        split
    } else if let Some(split) = opens_with_command(lower) {
        // "`bin/rails test` runs the test suite": the purpose is the rest, its verb included.
        split
    } else {
        return false;
    };
    let stem = |w: &str| w.trim_end_matches('s').to_string();
    let named: std::collections::HashSet<String> = command.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(stem).collect();
    let generic = ["the", "a", "an", "all", "whole", "entire", "project", "package", "app", "application", "repo", "repository", "code", "codebase", "it", "them", "everything", "suite", "run", "runs", "our", "this", "its"];
    let said: Vec<String> = purpose.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty() && !generic.contains(w)).map(stem).collect();
    !said.is_empty() && said.iter().all(|w| named.contains(w))
}

/// A text that opens with a command in backticks: the command, and the words after it.
fn opens_with_command(lower: &str) -> Option<(&str, &str)> {
    lower.strip_prefix('`')?.split_once("` ")
}

/// Whether a lowercased text only says what a command does or is ("`molecule test` creates the
/// instance, converges the role ...", "`./mvnw quarkus:dev` starts Quarkus in dev mode"): it opens
/// with the command, names no other code, and neither marks a rule, asks for anything, gives a
/// reason nor warns ("... goes straight over the live dashboard").
fn describes_command(lower: &str) -> bool {
    let Some((_, after)) = opens_with_command(lower) else { return false };
    let padded = format!(" {lower} ");
    let asks = MODALS.iter().chain(&[" need ", " needs "]).any(|m| padded.contains(m));
    let warns = ["live", "prod", "production", "shared", "whole", "over", "deletes", "overwrites", "wipes", "drops", "resets", "last time", "once"].iter().any(|w| padded.contains(&format!(" {w} ")));
    !after.contains('`') && after.split_whitespace().next().is_some_and(|w| w.chars().all(char::is_alphabetic)) && !marks_a_rule(lower) && !asks && !gives_reason(lower) && !warns
}

/// A request for now: a lowercased sentence that opens with a directive ("fix the typo in ...",
/// "add a csv export ...") and neither marks a rule that lasts nor gives a reason.
pub fn request_for_now(lower: &str) -> bool {
    words(lower).first().is_some_and(|w| DIRECTIVES.contains(&w.as_str())) && !marks_a_rule(lower) && !gives_reason(lower)
}

/// Whether a lowercased text gives a reason: one of [`REASONS`] opening a word.
fn gives_reason(lower: &str) -> bool {
    let padded = format!(" {lower}");
    REASONS.iter().any(|r| padded.contains(&format!(" {r}")))
}

/// The words of a text that name something: neither generic nor a rule's own words ("pnpm",
/// "npm" in "Always use pnpm here, not npm").
pub fn named_words(text: &str) -> std::collections::HashSet<String> {
    words(text).into_iter().filter(|w| w.len() >= 2 && !GENERIC.contains(&w.as_str()) && !matches!(w.as_str(), "only" | "no" | "over" | "instead")).collect()
}

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '(' | ')' | '!' | '?' | '"'))
        .map(|w| w.trim_matches(|c: char| matches!(c, '.' | ':' | '\'' | '`')).to_lowercase())
        .filter(|w| !w.is_empty())
        .collect()
}

/// A word that names a thing in code: a path, a flag, an identifier, a version, a quoted span.
fn is_code(raw: &str) -> bool {
    let w = raw.trim_matches(|c: char| matches!(c, '.' | ',' | ':' | ';' | '(' | ')' | '\'' | '"'));
    let has_alpha = w.chars().any(|c| c.is_alphabetic());
    w.len() >= 2
        && (raw.contains('`')
            || (w.contains('/') && has_alpha)
            || w.starts_with("--")
            || (w.starts_with('-') && w.len() == 2 && has_alpha)
            || (w.contains('_') && has_alpha)
            || (w.contains('.') && has_alpha && !w.ends_with('.') && w.chars().filter(|c| *c == '.').count() <= 3)
            || (w.contains('=') && has_alpha)
            || w.contains("::")
            || (w.chars().any(|c| c.is_ascii_digit()) && has_alpha)
            || (w.chars().skip(1).any(|c| c.is_uppercase()) && w.chars().next().is_some_and(|c| c.is_lowercase()))
            || (w.len() >= 2 && w.chars().all(|c| c.is_ascii_uppercase() || c == '_') && w.chars().filter(|c| c.is_ascii_uppercase()).count() >= 2))
}


/// Statistics and timings: a count of calls, runs or results; a duration.
static NUMBERS: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"(?i)\b\d+(\.\d+)?\s*(times|calls|invocations|%|percent|failed|passed|errors|warnings|issues|tests|ms|s|secs?|seconds|mins?|minutes|h|hours)\b|\b\d+h\d+m(\d+s)?\b|\b\d+m\d+(\.\d+)?s\b|\b(took|after|in)\s+\d+(\.\d+)?\s*(ms|m|s|secs?|seconds|mins?|minutes)\b|success rate|on average")
        .expect("a valid pattern")
});

/// Switches that pick which tests or targets run, in any program.
const SELECTS: &[&str] = &["-k", "-t", "-m", "-run", "--filter", "--grep", "-g", "--test", "--only", "--spec", "--match"];
/// Switches only test runners have: a call with one of them runs tests, whatever its program's
/// name (`rebar3 ct --suite ...`).
const TEST_SWITCHES: &[&str] = &["--suite", "--case", "--testFile", "--testPathPattern", "--testNamePattern", "--tests", "-Dtest"];

/// A session's tally, whatever else the text says: "52 tool calls", "6 Bash commands exited".
static TALLY: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| regex::Regex::new(r"\b\d+\s+tool\s+(calls|uses|invocations)\b|\b\d+\s+\w+\s+(calls|commands)\s+(exited|failed|succeeded|returned)\b|^session summary|\bbuild successful in\b|\b\d+\s+actionable tasks?\b|\b\d+/\d+\s+(\w+\s+)?(passed|succeeded|failed|ok|done)\b|^build summary\b|\b[a-z]+ x\d+\b.*\b[a-z]+ x\d+\b").expect("a valid pattern"));

/// Programs that only look around: a recovery between two of their calls teaches nothing, and
/// neither does their failure (capture reads the same list).
pub const LOOKS: &[&str] = &["ls", "cat", "head", "tail", "grep", "rg", "find", "fd", "pwd", "which", "echo", "less", "more", "tree", "stat", "file", "wc", "type", "whoami", "env", "printenv", "du", "df"];

/// Whether a call only looks around: a [`LOOKS`] program, or git asked what is there (`git
/// status`, `git log`, `git diff`, `git show`). After a failed build, `git status` working fixes
/// nothing.
pub fn looks_around(call: &str) -> bool {
    let program = program_of(call);
    let sub = call.split_whitespace().skip_while(|w| crate::retrieval::command::is_assignment(w) || *w == "sudo").nth(1).unwrap_or("");
    LOOKS.contains(&program) || (program == "git" && matches!(sub, "status" | "log" | "diff" | "show" | "branch" | "remote" | "rev-parse"))
}

/// The two calls of a recovery's text ("`X` fails ...; `Y` works").
fn recovery_calls(text: &str) -> Option<(String, String)> {
    let spans: Vec<&str> = text.split('`').collect();
    if spans.len() < 5 || !text.contains(" works") {
        return None;
    }
    // The first span is the failed call; the last code span before " works" is the one that worked.
    let works = text.rfind(" works")?;
    let before: Vec<&str> = text[..works].split('`').collect();
    let worked = before.get(before.len().checked_sub(2)?)?.to_string();
    Some((spans[1].to_string(), worked))
}

/// Whether the call that worked is another command or target of the same tool rather than the
/// failed one fixed (`terragrunt apply` -> `terragrunt output`, `sbt flywayMigrate` -> `sbt
/// compile`, `flutter build ios` -> `flutter build apk`): the two differ in one plain word, past
/// a shared start, that is no switch's value, where neither word holds the other or shares a
/// part with the failed call (`pnpm drizzle-kit migrate` -> `pnpm db:migrate` is a wrapper for
/// the same step), and the rest of the call that worked was in the failed one. Paths and
/// packages (`build.sh` -> `tools/build.sh`, `@pdf-tools/render` -> `pdf-lib`) are fixes.
fn another_command(failed: &str, worked: &str) -> bool {
    let (a, b): (Vec<&str>, Vec<&str>) = (failed.split_whitespace().collect(), worked.split_whitespace().collect());
    let k = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    if k == 0 || k >= a.len() || k >= b.len() || b[k - 1].starts_with('-') {
        return false;
    }
    let plain = |w: &str| w.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) && w.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, ':' | '_' | '-'));
    let (x, y) = (a[k], b[k]);
    if !plain(x) || !plain(y) || x.contains(y) || y.contains(x) {
        return false;
    }
    let parts = |w: &str| w.split([':', '_', '-']).filter(|p| !p.is_empty()).map(str::to_lowercase).collect::<Vec<_>>();
    let failed_parts: Vec<String> = a.iter().flat_map(|w| parts(w)).collect();
    !parts(y).iter().any(|p| failed_parts.contains(p)) && b[k + 1..].iter().all(|w| a[k + 1..].contains(w))
}

/// The two paths of a path recovery's text ("`A` does not exist ...; the file is `B`").
fn path_recovery(text: &str) -> Option<(String, String)> {
    let (_, after) = text.split_once('`')?;
    let (missing, rest) = after.split_once('`')?;
    if !rest.trim_start().starts_with("does not exist") {
        return None;
    }
    let (_, tail) = rest.split_once("the file is `")?;
    let (found, _) = tail.split_once('`')?;
    Some((missing.to_string(), found.to_string()))
}

/// The error in a failure's or a recovery's text: what its first parentheses after the
/// failed call hold (a call's own parentheses, `git commit -m "wip (tests)"`, are not it).
fn error_in(text: &str) -> Option<&str> {
    let from = text.match_indices('`').nth(1).map_or(0, |(i, _)| i + 1);
    let (_, after) = text[from..].split_once(" (")?;
    let mut depth = 1;
    for (i, c) in after.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&after[..i]);
                }
            }
            _ => {}
        }
    }
    Some(after)
}

/// Words an error uses to say that something failed, and how often or how long, without
/// saying why.
const ONLY_FAILED: &[&str] = &[
    "test", "tests", "failure", "failures", "failed", "fail", "fails", "failing", "error", "errors", "build", "passed", "pass", "ok", "in", "of", "and",
    "m", "s", "ms", "sec", "secs", "min", "mins", "exit", "code", "status", "with", "did", "not", "complete", "successfully", "linted", "lint", "chart",
    "charts", "chart(s)", "suite", "suites", "check", "checks", "job", "jobs", "step", "steps", "task", "tasks", "total", "run", "ran", "warning",
    "warnings", "skipped", "ignored", "result", "fatal", "command", "process", "returned", "non", "zero", "nonzero", "exited", "the", "a",
    "example", "examples", "spec", "specs", "some", "succeeded", "deselected", "did", "errored", "across", "file", "files", "cases", "case",
    "finished", "second", "seconds", "executed", "unexpected", "async", "sync", "out", "elifecycle", "info",
];

/// Whether a text has the shape capture gives a failure or a recovery ("In this project,
/// `X` fails (...)"), the only texts whose parentheses hold an error.
pub fn capture_template(lower: &str) -> bool {
    lower.starts_with("in ") && lower.contains(", `") && (lower.contains("` fails (") || lower.contains("` keeps failing ("))
}

/// Whether a failure's error is only a count, a timing or "build failed": `3 tests, 1
/// failure`, `BUILD FAILED in 2m 13s`, `1 chart(s) linted, 1 chart(s) failed`.
fn says_only_it_failed(text: &str) -> bool {
    let Some(error) = error_in(text) else { return false };
    let words: Vec<String> = error
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | ':' | '=' | '-' | '.' | '(' | ')'))
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase())
        .filter(|w| !w.is_empty())
        .collect();
    !words.is_empty() && words.iter().all(|w| ONLY_FAILED.contains(&w.as_str()) || w.chars().all(|c| c.is_ascii_digit()) || w.trim_end_matches(['m', 's', 'h']).chars().all(|c| c.is_ascii_digit()))
}

/// How test runners report a failure in the code itself: failing tests, failed assertions. (A
/// compile error may be the call's: `Cannot find module '@acme/tokens'` until the package it
/// needs is built first.)
static CODE_FAILED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"\bFAIL(ED)?\b|\[ FAIL [1-9]|\b[1-9]\d* failed[,;)]|\b[1-9]\d* tests? failed\b|\bFailed\s*:\s*[1-9]|\bFailures?:\s*[1-9]|AssertionError|\bassert(ion)? ").expect("a valid pattern")
});

/// Whether a failure's error says the code failed (tests, assertions) rather than the call (a
/// missing tool, flag, variable or service).
fn code_failed(error: &str) -> bool {
    CODE_FAILED.is_match(error)
}

/// Who uses a product, as requirements name them.
const PRODUCT_USERS: &[&str] = &["users", "customers", "owners", "admins", "visitors", "shoppers", "members", "people", "clients", "buyers", "sellers", "staff"];

/// Whether a text states what the product must let its users do or show them ("Kennel owners
/// must be able to cancel a booking", "The desktop app must let users import OFX statements",
/// "Overdue loans should show a red badge", "Make the app's dark mode follow the OS setting"),
/// naming nothing in code: a requirement of the product, not how the work is done.
fn product_requirement(text: &str, lower: &str) -> bool {
    // Code as a requirement never names it: backticks, paths, identifiers, calls. A product's
    // acronyms (OFX, PDF) are no code.
    if text.contains('`') || text.split_whitespace().any(|w| ['/', '_', '(', '=', ':'].iter().any(|c| w.trim_end_matches([':', '.', ',']).contains(*c))) {
        return false;
    }
    let padded = format!(" {lower} ");
    let able = [" must be able to ", " should be able to ", " can be able to "].iter().any(|m| padded.contains(m));
    let lets = [" must let ", " should let ", " must allow ", " should allow "].iter().any(|m| {
        padded.match_indices(m).any(|(i, _)| padded[i + m.len()..].split_whitespace().next().is_some_and(|w| PRODUCT_USERS.contains(&w)))
    });
    let shows = [" should show ", " should display ", " must show ", " must display "].iter().any(|m| padded.contains(m));
    let make_the_app = ["make the app", "make the site", "make the page", "make the ui", "make the dashboard"].iter().any(|m| lower.starts_with(m));
    able || lets || shows || make_the_app
}

/// What a text prefers and what it turns away, as the words only one side has: "`npm test`
/// fails (...); `pnpm test` works" prefers {pnpm} to {npm}; "run npm test here, not pnpm
/// test" prefers {run, npm, here} to {pnpm}; "A instead of B" prefers A to B.
fn preference(text: &str) -> Option<(HashSet<String>, HashSet<String>)> {
    let lower = text.to_lowercase();
    let (preferred, rejected) = if let Some((failed, worked)) = recovery_calls(text) {
        (worked.to_lowercase(), failed.to_lowercase())
    } else if let Some((a, b)) = lower.split_once(", not ").or_else(|| lower.split_once(" instead of ")) {
        // The clause before (its last sentence) and the words after, up to the next clause.
        let a = a.rsplit(['.', ';', ':']).next().unwrap_or(a);
        let b = b.split(['.', ';', ',', ':']).next().unwrap_or(b);
        (a.to_string(), b.to_string())
    } else {
        return None;
    };
    let (p, r): (HashSet<String>, HashSet<String>) = (words(&preferred).into_iter().collect(), words(&rejected).into_iter().collect());
    let (only_p, only_r): (HashSet<String>, HashSet<String>) = (p.difference(&r).cloned().collect(), r.difference(&p).cloned().collect());
    (!only_p.is_empty() && !only_r.is_empty()).then_some((only_p, only_r))
}

/// Whether two texts prefer opposite things: what one turns away the other prefers, and the
/// other way round ("run npm test here, not pnpm test" against "`npm test` fails; `pnpm test`
/// works"). Such a text is the user taking a lesson back, never the lesson said again.
pub fn opposite(a: &str, b: &str) -> bool {
    match (preference(a), preference(b)) {
        (Some((pa, ra)), Some((pb, rb))) => !ra.is_disjoint(&pb) && !pa.is_disjoint(&rb),
        _ => false,
    }
}

/// Whether one text asks for what the other warns about ("Always run the linter before
/// committing" against "never run the linter before committing, it is too slow"; "Don't edit
/// files under src/generated/" against "it's fine to edit files under src/generated/"): the
/// user turning a lesson round, never the lesson said again. Two or more of the warned words,
/// and at least half of them, must be asked for by the other; a text with two negations ("don't
/// commit without running the linter") reads as neither.
pub fn reverses(a: &str, b: &str) -> bool {
    let negations = |t: &str| t.to_lowercase().replace("n't", " not").split(|c: char| !c.is_alphanumeric()).filter(|w| NEGATIONS.contains(w)).count();
    // Only a text that says "do it" in so many words turns a "never" round: a statement, a
    // report of a failure or a rule with its reason also has words outside its negation.
    let licenses = |t: &str| {
        let padded = format!(" {} ", t.to_lowercase().replace('\u{2019}', "'"));
        LICENCES.iter().any(|m| padded.contains(m))
    };
    let crossed = |asked: &[String], warned: &[String]| {
        let n = warned.iter().filter(|t| asked.contains(t)).count();
        n >= 2 && n * 2 >= warned.len()
    };
    let turned = |yes: &str, no: &str| licenses(yes) && negations(yes) == 0 && negations(no) == 1 && crossed(&Direction::of(yes).prefer, &Direction::of(no).avoid);
    turned(a, b) || turned(b, a)
}

/// Words that say "do it": with them, a text asks for what it names.
const LICENCES: &[&str] = &[" always ", " fine to ", " ok to ", " okay to ", " feel free to ", " go ahead and ", " you can ", " you may ", " allowed to ", " from now on "];

/// Whether `a` says what works where `b` says a call never got fixed (capture's two failure
/// templates, either way round): the fix of a failure is a lesson of its own, never the
/// failure said again.
pub fn fixes(a: &str, b: &str) -> bool {
    let said_fixed = |t: &str| recovery_calls(t).is_some();
    let never_fixed = |t: &str| t.contains("` keeps failing") && t.contains("never fixed");
    said_fixed(a) && never_fixed(b) || said_fixed(b) && never_fixed(a)
}

/// Whether a few words point at the moment ("Do not push that.", "You dont need -A on that.",
/// "Never commit it."): what "that" is lives in the conversation, not in the lesson.
pub fn points_at_the_moment(text: &str) -> bool {
    let ws = words(text);
    ws.len() <= 6 && ws.last().is_some_and(|w| matches!(w.as_str(), "that" | "this" | "it" | "those" | "these" | "them")) && !text.contains('`')
}

/// Words that hold what a sentence asks to now, whatever its verb ("there is no staging db
/// yet" is still a fact that lasts, "on this branch keep the old client" is not), and the
/// idioms of a request for when there is time ("whenever you get a sec, bump ...").
pub const NOW_ONLY: &[&str] = &[
    " this time", " for now", " right now", " just this once", " this once", " for this pr", " on this pr", " in this pr", " this pr only", " on this branch",
    " for today", " just for this ", " this afternoon", " this morning", " this evening", " tonight", " tomorrow", " when im done", " when i'm done", " when you're done", " when youre done",
    " when i am done", " while im ", " while i'm ", " while i am ", " whenever you get a ", " when you get a chance", " when you get a sec", " when you have a sec",
    " when you get a moment", " when you have a moment",
];

/// Whether a lowercased text has one of [`NOW_ONLY`]'s phrases as words of their own ("in this
/// pr", not the start of "in this project").
pub fn now_only(lower: &str) -> bool {
    let padded = format!(" {lower} ");
    NOW_ONLY.iter().any(|w| padded.match_indices(w).any(|(i, _)| w.ends_with(' ') || padded[i + w.len()..].chars().next().is_none_or(|c| !c.is_alphanumeric())))
}

/// Phrases that take back what was just said ("always rebase... no wait, scratch that").
const RETRACTIONS: &[&str] = &[
    "scratch that", "scrap that", "forget it", "forget that", "never mind", "nevermind", "nvm", "no wait", "actually no", "forget i said that", "forget what i said",
    "ignore what i said",
];

/// Words that may open a retraction before its phrase ("hmm, no wait", "oh never mind").
const RETRACTION_OPENERS: &[&str] = &["no", "wait", "actually", "hmm", "hm", "oh", "ok", "okay", "nah", "ugh", "um", "uh", "so", "and", "but", "sorry", "erm"];

/// Where a lowercased text takes back what came before it: the end of its last retraction. A
/// retraction is a phrase of its own: it opens its clause (at the start, after punctuation or
/// after "no", "wait", "actually" ...) and ends it (punctuation or the end follows), so "if you
/// forget that, ...", "no wait between retries" and "don't forget it" take nothing back.
pub fn retracted_at(lower: &str) -> Option<usize> {
    RETRACTIONS
        .iter()
        .flat_map(|r| lower.match_indices(r).map(move |(i, _)| (i, i + r.len())))
        .filter(|&(i, end)| {
            let before = lower[..i].trim_end();
            let opens = before.is_empty()
                || before.ends_with(['.', ',', ';', ':', '!', '?', '-', '—', '…', '('])
                || before.rsplit(|c: char| !c.is_alphanumeric()).next().is_some_and(|w| RETRACTION_OPENERS.contains(&w));
            let ends = lower[end..].trim_start().chars().next().is_none_or(|c| !c.is_alphanumeric());
            opens && ends
        })
        .map(|(_, end)| end)
        .max()
}

/// Words naming a near moment: "until" one of them bounds an instruction in time.
const NEAR_TIMES: &[&str] = &[
    "next", "tomorrow", "tonight", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "sprint", "eod", "eow", "week",
    "weekend", "month", "quarter", "later", "lunch", "release",
];

/// Months by name ("may" and "mar" count only beside a day: alone they are other words).
pub const MONTHS: &[&str] = &["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"];

/// A day of the month ("14th", "3rd").
fn date(w: &str) -> bool {
    ["st", "nd", "rd", "th"].iter().any(|s| w.strip_suffix(s).is_some_and(|d| !d.is_empty() && d.len() <= 2 && d.chars().all(|c| c.is_ascii_digit())))
}

/// A calendar date that something starts or ends at ("starts 2026-12-05", "until 2027-01").
static DATED: std::sync::LazyLock<regex::Regex> =
    std::sync::LazyLock::new(|| regex::Regex::new(r"\b(starts|begins|ends|until|till)\s+(on\s+)?(19|20)\d\d-[01]\d").expect("a valid pattern"));

/// A version number ("0.11", "3.2", "v16").
static VERSION: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| regex::Regex::new(r"\s(v?\d+\.\d+(\.\d+)?|v\d+)\s").expect("a valid pattern"));

/// A calendar date, year first.
static ISO_DATE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| regex::Regex::new(r"\b(19|20)\d\d-[01]\d(-[0-3]\d)?\b").expect("a valid pattern"));

/// Whether an instruction holds only until a near moment ("until next sprint", "until the
/// mobile release on Friday", "until the 14th"); "until the tests pass", "until the next plan is
/// reviewed" and "until the 3rd attempt" are conditions, not dates.
pub fn time_bound(lower: &str) -> bool {
    // A calendar date the instruction starts or ends at ("code freeze starts 2026-12-05").
    if DATED.is_match(lower) {
        return true;
    }
    // A near moment in a "while" or "during" clause ("while the owner is on leave next week").
    let near = |clause: &str| {
        let words: Vec<&str> = clause.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).take(9).collect();
        words.windows(2).any(|w| matches!(w[0], "next" | "this") && NEAR_TIMES.contains(&w[1]) && w[1] != "next" && w[1] != "later" && w[1] != "release")
    };
    if [" while ", " during "].iter().any(|o| lower.match_indices(o).any(|(i, _)| near(lower[i + o.len()..].split([',', ';', ':', '.', '!', '?']).next().unwrap_or("")))) {
        return true;
    }
    lower.match_indices("until ").any(|(i, _)| {
        if i > 0 && lower.as_bytes()[i - 1].is_ascii_alphanumeric() {
            return false;
        }
        // The clause after "until", up to its punctuation, a word at a time.
        // A calendar date ("until the 0.9 release on 2026-12-15"), read before a version's dot
        // ends the clause.
        let clause = lower[i + "until ".len()..].split([',', ';', ':', '!', '?', '(']).next().unwrap_or("");
        if ISO_DATE.is_match(clause) {
            return true;
        }
        // A release that ships, a version that comes out: an event of the calendar ("until the
        // 3.2 release ships", "until Neovim 0.11 is released"), not a condition of the work.
        let padded = format!(" {} ", clause.split(". ").next().unwrap_or("").trim_end_matches('.'));
        if [" ships ", " shipped ", " is released ", " are released ", " is out ", " are out ", " goes out ", " lands ", " has landed "].iter().any(|w| padded.contains(w)) || VERSION.is_match(&padded) {
            return true;
        }
        // A dot ends the clause before a space or at the end, not inside "0.16".
        let clause = clause.split(". ").next().unwrap_or("").trim_end_matches('.');
        let words: Vec<&str> = clause.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).take(9).collect();
        (0..words.len()).any(|j| {
            let (w, next, last) = (words[j], words.get(j + 1).copied(), j + 1 == words.len());
            match w {
                // "next" and "this" name a moment only before a unit of time or a day.
                "next" | "this" => next.is_some_and(|n| NEAR_TIMES.contains(&n) && n != "next" && n != "later"),
                // "later" on its own ("until later"), not "later stages".
                "later" => last,
                // "the release" alone is an event the rule may wait for ("until the release
                // branch is cut"); "next release" is a date.
                _ if NEAR_TIMES.contains(&w) => w != "release",
                // A day of the month at the clause's end or beside a month ("the 14th", "3rd of May").
                _ if date(w) && !MONTHS.contains(&w) => last || next.is_some_and(|n| n == "of" || MONTHS.contains(&n)) || (j > 0 && MONTHS.contains(&words[j - 1])),
                _ => MONTHS.contains(&w) && w != "may" && w != "mar",
            }
        })
    })
}

/// Verbs of something going wrong.
const GOES_WRONG: &[&str] = &["crash", "crashes", "fail", "fails", "break", "breaks", "hang", "hangs", "freeze", "freezes", "errors", "dies", "segfaults", "throws", "explodes", "stalls"];

/// What a thing is expected to do, so that "never" before it reports a failure.
const NEVER_HAPPENS: &[&str] = &[
    "loads", "renders", "shows", "works", "finishes", "starts", "appears", "returns", "connects", "completes", "updates", "fires", "triggers",
    "responds", "displays", "opens", "saves", "syncs", "resolves", "ends", "exits", "stops", "arrives", "succeeds", "passes", "builds", "compiles",
];

/// Words of someone troubleshooting, anywhere in a prompt: where the thing works ("pixels are
/// fine", "chrome seems fine"), how reliably it fails ("100% repro"), a guess at the cause ("i
/// think the timezone math is off"), a plea to look ("any idea why").
const TROUBLE: &[&str] = &[
    "is fine", "are fine", "seems fine", "seem fine", "looks fine", "look fine", "works fine", "work fine", "repro", "any idea", "i think the", "dig in",
    "dig into", "trying to understand", "trying to figure out",
];

/// Whether "always" or "never" reports a bug rather than sets a rule: "the app always crashes
/// when I rotate it", "always the same error", what a thing does followed by a call for help. A
/// condition or a way out ("... unless", "skip them with ...") makes it a fact to act on, and
/// "always"/"never" opening a clause ("Never fail silently", "in `jobs/`, never fail ...") is a
/// directive.
pub fn reports_a_bug(lower: &str) -> bool {
    ["known issue", "known bug"].iter().any(|p| lower.trim_start().starts_with(p)) || reports_a_bug_in(lower, None)
}

/// The same for a sentence `lower` of the prompt `prompt` (both lowercased; `None`: a text
/// alone, as the gate reads a candidate), whose other sentences may show it is a bug report: a call for help, or someone troubleshooting
/// ([`TROUBLE`]). Then whatever a thing "always" or "never" does is what goes wrong ("the
/// boids always clump into one corner ... a fresh play mode is fine"), so is what happens
/// "every time" inside a sentence ("argocd shows it OutOfSync every time it syncs ... any idea
/// why?"), and a sentence that itself says where it works or how it reproduces ("the dev client
/// is fine", "every time, 100% repro") reports rather than rules.
pub fn reports_a_bug_in(lower: &str, prompt: Option<&str>) -> bool {
    let way_out = [
        "unless", "if", "without", "because", "so", "otherwise", "use", "run", "instead", "don't", "dont", "skip", "exclude", "add", "set", "pass",
        "export", "must", "should", "need", "needs",
    ];
    let help = ["can you", "could you", "look into", "take a look", "have a look", "figure out", "investigate"].iter().any(|h| padded_contains(prompt.unwrap_or(lower), h));
    let trouble = prompt.is_some_and(|p| TROUBLE.iter().any(|t| padded_contains(p, t)));
    let mut words: Vec<(&str, bool)> = Vec::new(); // (word, opens its clause)
    for clause in lower.split(['.', ',', ';', ':', '!', '?', '—']) {
        for (k, w) in clause.split(|c: char| !c.is_alphanumeric() && c != '\'').filter(|w| !w.is_empty()).enumerate() {
            words.push((w, k == 0));
        }
    }
    if words.iter().any(|(w, _)| way_out.contains(w)) {
        return false;
    }
    // "every time I run the importer it prints ...": what happens to me, not a rule ("every
    // time I ask for a migration, write the down step too" is one).
    let to_me = ["every time i ", "each time i ", "whenever i "].iter().filter_map(|p| lower.find(p).map(|i| &lower[i + p.len()..])).any(|after| {
        [" it ", " i get ", " i see ", " there is ", " there's ", " theres "].iter().any(|r| format!(" {after} ").contains(r))
    });
    if to_me || (trouble && TROUBLE.iter().any(|t| padded_contains(lower, t))) {
        return true;
    }
    (0..words.len()).any(|i| {
        let (w, opens) = words[i];
        let next = words.get(i + 1).map(|p| p.0);
        // "the map screen never loads tiles": a thing that never does what it should ("an app
        // never imports from another app" is a convention: its verb is no failure to happen).
        let never_does = w == "never" && next.is_some_and(|n| NEVER_HAPPENS.contains(&n));
        let does = next.is_some_and(|n| GOES_WRONG.contains(&n) || (help && n.len() > 3 && n.ends_with('s')) || (trouble && n.len() > 3));
        // "every time" inside a sentence, or standing alone before a comma ("every time, right
        // after the checkpoint"): how often it goes wrong.
        let alone = words.get(i + 2).is_none_or(|(_, opens)| *opens);
        let again = matches!(w, "every" | "each") && next == Some("time") && trouble && (!opens || alone);
        (!opens && matches!(w, "always" | "never") && (never_does || does || (next, words.get(i + 2).map(|p| p.0)) == (Some("the"), Some("same")))) || again
    })
}

/// Whether `phrase` is in `lower` as whole words.
fn padded_contains(lower: &str, phrase: &str) -> bool {
    lower.match_indices(phrase).any(|(i, _)| {
        (i == 0 || !lower.as_bytes()[i - 1].is_ascii_alphanumeric()) && lower.as_bytes().get(i + phrase.len()).is_none_or(|c| !c.is_ascii_alphanumeric())
    })
}

/// Errors of a port or lock another process holds for the moment, or of a commit with nothing
/// staged: the fix (another port, a wait, `git add` first) is the moment's, not the project's.
fn transient(lower: &str) -> bool {
    ["address already in use", "eaddrinuse", "port is already allocated", "port is already in use", "nothing to commit", "no changes added to commit", "nothing added to commit"]
        .iter()
        .any(|t| lower.contains(t))
}

/// Switches that only ask for more output, or run again what a cache kept (`--verbose`,
/// `-count=1`): added alone after a failure, the same run again.
const RUN_AGAIN: &[&str] = &[
    "-v", "-vv", "-vvv", "--verbose", "--debug", "--trace", "--info", "--stacktrace", "--full-trace", "--tb", "--color", "--no-color", "--loglevel",
    "--log-level", "--nocapture", "--no-capture", "--show-output", "-count", "--rerun", "--retry", "--retries", "--reruns", "--output-on-failure",
];

/// What a call that worked added to the failed one that forces past a check: a force or a
/// recursive delete, a hook skipped (`--no-verify`, `HUSKY=0`), a reset that drops work, root,
/// a certificate not checked. A lesson that says "`X` fails; `X --force` works" would be said at
/// the next such failure, where the check is doing its job. The word added, or `None`.
pub fn overrides_a_safeguard<'a>(failed: &[&str], worked: &[&'a str]) -> Option<&'a str> {
    let program = |c: &[&str]| c.iter().find(|w| !crate::retrieval::command::is_assignment(w) && **w != "sudo").map(|w| crate::retrieval::command::basename(w).to_string()).unwrap_or_default();
    let (program, verb) = (program(worked), worked.iter().skip_while(|w| crate::retrieval::command::is_assignment(w) || **w == "sudo").nth(1).copied().unwrap_or(""));
    // Programs whose `-f` forces whatever follows it; elsewhere a `-f` before a file's name names
    // the file to read (`mvn -f backend/pom.xml`, `conda env create -f envs/dev.yml`).
    let forcing = matches!(program.as_str(), "rm" | "cp" | "mv" | "ln" | "git" | "npm" | "yarn" | "pnpm");
    worked.iter().enumerate().filter(|(_, w)| !failed.contains(w)).map(|(i, w)| (i, *w)).find(|&(i, w)| {
        let flag = w.split('=').next().unwrap_or(w);
        let lower = w.to_ascii_lowercase();
        // A cluster of one to three short switches (`-f`, `-rf`, `-fd`), not a compiler's
        // `-fPIC` or `-fopenmp`.
        let short = |letters: &str| flag.starts_with('-') && !flag.starts_with("--") && (2..=4).contains(&flag.len()) && flag[1..].chars().all(|c| c.is_ascii_lowercase()) && letters.chars().any(|l| flag[1..].contains(l));
        let names_a_file = worked.get(i + 1).is_some_and(|next| !next.starts_with('-') && next.contains(['/', '.']));
        matches!(flag, "--force" | "--force-with-lease" | "--no-verify" | "--hard" | "--no-preserve-root" | "--insecure" | "--no-check-certificate" | "--break-system-packages" | "--allow-root" | "--unsafe-perm" | "--accept-data-loss" | "--skip-verify" | "--no-gpg-sign" | "--delete" | "--trusted-host" | "--insecure-skip-tls-verify" | "--skip-tls-verify" | "--no-verify-ssl")
            // Root for the failed call itself, not for a step before it (`sudo apt-get install
            // libpq-dev && stack build` installs what the build needs).
            || (w == "sudo" && worked.iter().filter(|x| **x != "sudo").eq(failed.iter()))
            || (short("f") && (forcing || !names_a_file) && !matches!(program.as_str(), "tar" | "docker" | "podman" | "make" | "kubectl" | "helm" | "tail" | "compose" | "docker-compose" | "ansible-playbook" | "terraform" | "psql" | "mysql" | "python" | "python3" | "pytest" | "awk" | "sed" | "grep" | "cut" | "sort" | "ps" | "xargs" | "head" | "pip" | "pip3" | "mvn" | "conda" | "dotnet"))
            || (program == "rm" && (short("rR") || flag == "--recursive"))
            || (program == "git" && ((verb == "commit" && flag == "-n") || (verb == "branch" && flag == "-D")))
            || (program == "curl" && flag == "-k")
            || (program == "chmod" && w.ends_with("777"))
            // Host keys and certificates not checked (`ssh -o StrictHostKeyChecking=no`, `git -c
            // http.sslVerify=false`).
            || lower.contains("stricthostkeychecking=no") || lower.contains("sslverify=false")
            || (crate::retrieval::command::is_assignment(w) && {
                let (k, v) = w.split_once('=').unwrap_or((w, ""));
                matches!(k, "HUSKY" | "HUSKY_SKIP_HOOKS" | "SKIP" | "GIT_SSL_NO_VERIFY" | "PYTHONHTTPSVERIFY" | "NODE_TLS_REJECT_UNAUTHORIZED") && !v.is_empty() && (k == "SKIP" || matches!(v, "0" | "1" | "true" | "false"))
            })
    }).map(|(_, w)| w)
}

/// Claude Code's own tools, which a recovery between says nothing of the project.
const AGENT_TOOLS: &[&str] = &["Edit", "MultiEdit", "Write", "Read", "NotebookEdit", "Grep", "Glob", "Bash", "WebFetch", "Task"];

/// Whether `b` is `a` mistyped or mistyped back (`gti`/`git`, `terrafrom`/`terraform`): as
/// long, at most two letters apart. Another program of another length is a fact of the machine
/// or the project (`python` -> `python3`, `npm` -> `pnpm`), not a typo.
pub fn mistyped(a: &str, b: &str) -> bool {
    let (la, lb) = (a.chars().count(), b.chars().count());
    // A last letter dropped or a letter doubled (`carg` -> `cargo`, `ccargo`); not a version
    // added (`pip` -> `pip3`, `python` -> `python3`: another program the project has), another
    // tool (`npm` -> `pnpm`) nor a name grown (`node` -> `nodejs`).
    let one_letter = la.abs_diff(lb) == 1 && la.min(lb) >= 3 && distance(a, b) == 1 && {
        let (short, long): (Vec<char>, Vec<char>) = if la < lb { (a.chars().collect(), b.chars().collect()) } else { (b.chars().collect(), a.chars().collect()) };
        let i = long.iter().zip(&short).take_while(|(x, y)| x == y).count();
        long[i].is_alphabetic() && (i == short.len() || (i > 0 && long[i - 1] == long[i]) || long.get(i + 1) == Some(&long[i]))
    };
    a != b && (la == lb && distance(a, b) <= 2 || one_letter)
}

/// Characters that differ between two strings (Levenshtein distance, for short ones).
pub fn distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut prev = row[0];
        row[0] = i;
        for j in 1..=b.len() {
            let cur = row[j];
            row[j] = (row[j] + 1).min(row[j - 1] + 1).min(prev + usize::from(a[i - 1] != b[j - 1]));
            prev = cur;
        }
    }
    row[b.len()]
}

/// What makes a text primitive, if anything.
fn primitive(text: &str, ws: &[String], specific: usize, code: usize, actionability: f64, source: &str) -> Option<String> {
    let lower = text.to_lowercase();
    let rule = actionability >= 1.0;
    let claude_md = source == "claude-md";
    // Three words hold a whole rule when one names a thing in code and one says what holds for
    // it ("Never hand-edit uv.lock.", "bin/rails, not rails."); "Run cargo build." and "Keep
    // things simple." do not. In a CLAUDE.md file, where lines are written short, a choice named
    // in a few words ("Vitest, not Jest.") and a three-word instruction that names what it is
    // about ("Pin dependency versions.") are whole too.
    let whole_rule = ws.len() == 3 && code > 0 && rule && ws.iter().any(|w| ["never", "always", "not", "don't", "dont", "stop", "avoid", "only"].contains(&w.as_str()));
    let short_line = claude_md && actionability >= 0.7 && (terse_choice(text) || (ws.len() == 3 && named_besides_verb(ws, &[]) >= 1));
    if ws.len() < 4 && !whole_rule && !short_line {
        return Some("a fragment: fewer than four words".into());
    }
    // "This file provides guidance to Claude Code (claude.ai/code) when working with code in this
    // repository." (what `/init` writes first): the file about itself.
    if claude_md && ["this file ", "this document ", "this claude.md "].iter().any(|o| lower.starts_with(o)) && [" provides ", " contains ", " describes ", " gives ", " is for ", " explains "].iter().any(|v| lower.contains(v)) {
        return Some("the file describing itself, not an instruction".into());
    }
    if claude_md && about_the_reply(&lower) {
        return Some("about the reply, not an action: cairn has no moment to say it".into());
    }
    if claude_md && platitude(&lower) {
        return Some("a platitude: it names no practice to check".into());
    }
    // "TODO: document the ARM build", "[ ] move CI to Actions": work the maintainers owe (or
    // did), not an instruction; "TODO comments must name a ticket" is one.
    let opening = lower.trim_start();
    if claude_md && (["todo", "fixme", "xxx", "tbd", "wip"].iter().any(|m| opening.strip_prefix(m).is_some_and(|r| r.starts_with([':', '(']))) || ["[ ]", "[x]"].iter().any(|m| opening.starts_with(m))) {
        return Some("a note of work to do or done, not an instruction".into());
    }
    // "You are an expert Go developer", "Think like a senior engineer": who the assistant
    // should be, said in one sentence, not a practice to check ("You're a guest in this repo:
    // never change vendor/" goes on to one; "You are allowed to ..." is no persona).
    let one_sentence = !opening.trim_end_matches(['.', '!']).contains(['.', ':', ';']);
    let persona = ["you are a ", "you are an ", "you're a ", "you're an ", "think like a ", "think like an ", "act like a ", "act like an ", "act as a ", "act as an ", "behave like a ", "pretend to be ", "imagine you are a ", "imagine you're a "];
    if claude_md && one_sentence && persona.iter().any(|p| opening.starts_with(p)) {
        return Some("a persona for the assistant, not a practice to check".into());
    }
    if text.trim_end().ends_with('?') {
        return Some("a question, not a lesson".into());
    }
    if text.trim_start().starts_with('#') && text.trim_start().trim_start_matches('#').starts_with(' ') {
        return Some("a heading, not a lesson".into());
    }
    // Cut off mid-clause ("and the go code under gen/go is"): no end mark, and the last word
    // needs one after it.
    let ends_open = ["is", "are", "was", "the", "a", "an", "and", "or", "but", "of", "to", "under", "in", "with", "for", "from", "by", "at", "on", "that", "which", "so", "because", "if", "when"];
    if !text.trim_end().ends_with(['.', '!', ')', '`', '"', '\'']) && ws.last().is_some_and(|w| ends_open.contains(&w.as_str())) {
        return Some("a fragment: it stops mid-clause".into());
    }
    if points_at_the_moment(text) {
        return Some("it points at something of the moment, a request for now".into());
    }
    // One call said twice, failing and then not ("`X` failed, then `X` succeeded"): a retry.
    let calls: Vec<&str> = text.split('`').skip(1).step_by(2).collect();
    if calls.len() >= 2 && calls.iter().all(|c| c.trim() == calls[0].trim()) && (lower.contains("fail") || lower.contains("error")) && ["succeeded", "worked", "passed", "went through"].iter().any(|w| lower.contains(w)) {
        return Some("the same call again: a retry, not a lesson".into());
    }
    if let Some((failed, worked)) = recovery_calls(text) {
        if failed.trim() == worked.trim() {
            return Some("the same call again: a retry, not a lesson".into());
        }
        let worked_words: Vec<&str> = worked.split_whitespace().collect();
        if let Some(w) = overrides_a_safeguard(&failed.split_whitespace().collect::<Vec<_>>(), &worked_words) {
            return Some(format!("the call that worked forces past a safeguard (`{w}`): said at the next such failure, it would teach the agent to do the same"));
        }
        if looks_around(&failed) || looks_around(&worked) {
            return Some("a look around that found nothing, then something".into());
        }
        if program_of(&failed) == program_of(&worked) && distance(&failed, &worked) <= 2 {
            return Some("a typo fixed, not a lesson".into());
        }
        // A mistyped program (`terrafrom fmt` -> `terraform fmt`, "command not found"): capture
        // never proposes one, but a text given to the gate may say it.
        let rest = |c: &str| c.split_whitespace().skip_while(|w| is_assignment(w)).skip(1).collect::<Vec<_>>().join(" ");
        if lower.contains("not found") && mistyped(program_of(&failed), program_of(&worked)) && rest(&failed) == rest(&worked) {
            return Some("a typo fixed, not a lesson".into());
        }
        if another_command(&failed, &worked) {
            return Some("another command of the same tool ran after the failure, not a fix".into());
        }
        // The agent's own tools (`Edit` failing, `Write` working) say nothing of the project.
        if [&failed, &worked].iter().all(|c| AGENT_TOOLS.contains(&program_of(c))) {
            return Some("the agent's own tools, not the project's".into());
        }
        // Only a name completed ("pod api-7d9f" -> "pod api-7d9f8c6b5-x2kqp").
        let (a, b): (Vec<&str>, Vec<&str>) = (failed.split_whitespace().collect(), worked.split_whitespace().collect());
        // Only more output asked for, or the tests' cache turned off: the same run again.
        // A test runner's `-s` (output shown) or `-x` (stop at the first failure) too, and a
        // variable that only turns on a log or a backtrace (`RUST_BACKTRACE=1`, `VERBOSE=1`).
        let pytest = a.iter().any(|w| program_of(w) == "pytest" || *w == "pytest");
        let again: Vec<&&str> = b.iter().filter(|w| !a.contains(w) && **w != "--").collect();
        let louder = |w: &str| {
            let name = w.split('=').next().unwrap_or(w);
            RUN_AGAIN.contains(&name)
                || (pytest && matches!(w, "-s" | "-x" | "--lf" | "--last-failed" | "--exitfirst"))
                || (crate::retrieval::command::is_assignment(w) && matches!(name, "VERBOSE" | "V" | "RUST_BACKTRACE" | "RUST_LOG" | "DEBUG" | "NODE_DEBUG" | "TF_LOG" | "LOG_LEVEL"))
        };
        if !again.is_empty() && again.iter().all(|w| louder(w)) {
            return Some("the same run again with more output or without its cache: a retry, not a fix".into());
        }
        // A wait before the same call (`sleep 2 && curl ...`): the moment's timing.
        if worked.trim().strip_prefix("sleep ").and_then(|r| r.split_once(" && ").or_else(|| r.split_once("; "))).is_some_and(|(_, c)| c.trim() == failed.trim()) {
            return Some("a wait, then the same call: the timing of a moment, not a fix".into());
        }
        if a.len() == b.len() && a.len() > 1 && a[..a.len() - 1] == b[..b.len() - 1] && b[b.len() - 1].starts_with(a[a.len() - 1]) {
            return Some("a name completed, not a lesson".into());
        }
        // A run that failed with nothing but a count, then a narrower one (`sbt test` "failed
        // 2" -> `sbt "testOnly *SessionSpec"`, `//...` -> `//app/...`, a test file or a `-k`
        // added): no cause is named, and running less is not a fix. A call that only adds a
        // switch to the failed one (`cargo test` -> `cargo test -- --test-threads=1`) may be.
        // A switch's value (`--features postgres`, `-tags integration`) is the switch's; what
        // follows a bare `--` is an argument of the program's.
        let value = |i: usize| i > 0 && b[i - 1].starts_with('-') && b[i - 1] != "--" && !b[i - 1].contains('=') && !b[i].starts_with('-');
        let added: Vec<(usize, &str)> = b.iter().enumerate().filter(|(i, w)| !a.contains(w) && !value(*i)).map(|(i, w)| (i, *w)).collect();
        let selects = |w: &str| {
            let flag = w.split('=').next().unwrap_or(w);
            (!w.starts_with('-') && !w.chars().all(|c| c.is_ascii_digit())) || SELECTS.contains(&flag) || TEST_SWITCHES.contains(&flag)
        };
        if capture_template(&lower) && says_only_it_failed(text) && (!a.iter().all(|w| b.contains(w)) || added.iter().any(|(_, w)| selects(w))) {
            return Some("the error says only that it failed (a count, a timing), and the call that worked ran less: no cause to learn".into());
        }
        // A test run narrowed by what is appended to it (`mix test` -> `mix test
        // test/bookings_test.exs:88`, `dune runtest` -> `dune runtest test/lexer`): running fewer
        // tests fixes none, whatever the error named. Not a variable set, a step before, or
        // another task in place of the first (`./gradlew test` -> `./gradlew :app:testDebugUnitTest`).
        let runs_tests = a.iter().any(|w| w.to_lowercase().contains("test") || w.to_lowercase().contains("spec"));
        let appended = b.len() > a.len() && b[..a.len()] == a[..];
        let steps_or_variables = b.iter().any(|w| matches!(*w, "&&" | "||" | ";") || (is_assignment(w) && !w.starts_with('-')));
        // A switch only a test runner has says so when the program's name does not (`rebar3 ct`).
        let test_switch = added.iter().any(|(_, w)| TEST_SWITCHES.contains(&w.split('=').next().unwrap_or(w)));
        if (runs_tests || test_switch) && appended && !steps_or_variables && added.iter().any(|(_, w)| selects(w)) {
            return Some("the call that worked ran fewer tests: no fix to learn".into());
        }
        // Tests that failed (`--- FAIL: TestReconcile`, `Failed : 2`), then a call that is not
        // the failed one with something added: another target, package or test file ran (`go
        // test ./...` -> `go test ./internal/activities/...`, `./gradlew :server:test` ->
        // `./gradlew :client:test`). The failure is in the code, and nothing says it was fixed. A variable set or
        // a step before (`TZ=UTC npm test`, `make db-up && go test ./...`) may be the fix.
        if capture_template(&lower) && error_in(text).is_some_and(code_failed) && !a.iter().all(|w| b.contains(w)) && !steps_or_variables {
            return Some("the code failed (tests or a compile error), then another run: nothing fixed it".into());
        }
        if transient(&lower) {
            return Some("a port or lock held for the moment, or nothing staged: the state of a moment, not a lesson".into());
        }
    } else if let Some((missing, found)) = path_recovery(text) {
        // A file name typed wrong in the right folder (`src/utils/strng.c` ->
        // `src/utils/string.c`) or cut short (`lib/billing/inv` -> `lib/billing/invoice.ex`):
        // the slip of a moment. Another folder (`app/` -> `apps/`) is the project's layout.
        fn split(p: &str) -> (&str, &str) {
            p.rsplit_once('/').unwrap_or(("", p))
        }
        let ((dm, fm), (df, ff)) = (split(&missing), split(&found));
        if dm == df && distance(fm, ff) <= 2 {
            return Some("a typo fixed, not a lesson".into());
        }
        if found.starts_with(&missing) {
            return Some("a name completed, not a lesson".into());
        }
    } else if lower.contains(" fails") || lower.contains(" failed") || lower.contains(" keeps failing") {
        let call = text.split('`').nth(1).unwrap_or("");
        let program = program_of(call);
        if LOOKS.contains(&program) {
            return Some("a look around that found nothing".into());
        }
        if capture_template(&lower) && says_only_it_failed(text) {
            return Some("the error says only that it failed (a count, a timing): no cause to learn".into());
        }
        // "`npx nx e2e web` failed again: seen in 3 sessions": no error, no cause.
        if lower.contains("seen in ") && error_in(text).is_none() && !lower.contains(" because ") {
            return Some("a failure that names no cause".into());
        }
    }
    if TALLY.is_match(&lower) {
        return Some("statistics of a session, not a lesson".into());
    }
    // What the user said of a command in a prompt is theirs to say ("`terragrunt run-all apply`
    // walks the whole dependency graph"), not a description to drop.
    if restates_command(&lower) || (source != "prompt" && describes_command(&lower)) {
        return Some("it restates what its command does".into());
    }
    if NUMBERS.is_match(&lower) && !rule {
        return Some("statistics or a timing, not a lesson".into());
    }
    let restates = ["ran ", "executed ", "called ", "invoked ", "opened ", "edited ", "created ", "read ", "used ", "the agent ", "claude ", "i ran", "we ran", "the user ran"];
    if restates.iter().any(|r| lower.starts_with(r)) && !rule && !REASONS.iter().any(|r| lower.contains(r)) {
        return Some("it restates what was done".into());
    }
    if retracted_at(&lower).is_some() {
        return Some("taken back as it was said".into());
    }
    if time_bound(&lower) {
        return Some("bound to a near date, not a lesson that lasts".into());
    }
    if now_only(&lower) {
        return Some("held to now (this branch, this time, when there is a moment), not a lesson that lasts".into());
    }
    if product_requirement(text, &lower) {
        return Some("a product requirement (what users can do or see), not a lesson for the work".into());
    }
    if reports_a_bug(&lower) {
        return Some("reports what goes wrong, says nothing to do".into());
    }
    if ["don't know", "dont know", "do not know", "no idea", "not sure why", "no clue"].iter().any(|p| lower.starts_with(p) || lower.contains(&format!("i {p}"))) {
        return Some("a puzzle, not a lesson".into());
    }
    // "Always be careful when changing the build": care, with little named and nothing
    // explained.
    let vague = ["be careful", "double-check", "double check", "pay attention", "take care", "be mindful", "think twice", "be cautious"].iter().any(|v| lower.contains(v));
    let care = ["pay", "attention", "careful", "mindful", "cautious", "twice", "think", "take", "care", "double-check", "double", "changing", "touching", "editing", "modifying", "your", "our"];
    let named = ws.iter().filter(|w| w.len() >= 3 && w.chars().all(|c| c.is_alphanumeric() || c == '-') && !GENERIC.contains(&w.as_str()) && !care.contains(&w.as_str())).count();
    if vague && named <= 1 && !text.split_whitespace().any(is_code) && !gives_reason(&lower) {
        return Some("too vague: it asks for care, not for something to do".into());
    }
    let one_off = ["this time", "for now", "for this pr", "right now", "just this once", "revert that", "undo that", "that approach", "never mind", "nevermind", "same approach as", "the same way as"];
    // "Don't commit that yet", "Don't merge yet; CI is red": what waits on the moment ends its
    // first clause on "yet" ("the symlinks aren't ignored yet" after a comma is a reason).
    let waits = lower.split([',', ';', ':']).next().unwrap_or("").trim_end_matches(['.', '!', ' ']).ends_with(" yet");
    if one_off.iter().any(|o| lower.contains(o)) || waits {
        return Some("about this moment only, not a lesson that lasts".into());
    }
    if specific == 0 {
        return Some("a tautology: it names nothing in particular".into());
    }
    None
}

/// Judges a candidate.
pub fn judge(input: &Input<'_>, bars: &Bars) -> Judgement {
    let text = input.text.trim();
    let ws = words(text);
    let lower = text.to_lowercase();
    // A step written down with when to take it names a command, code or not ("go test ./...
    // after every change").
    let code = text.split_whitespace().filter(|w| is_code(w)).count() + usize::from(input.source == "claude-md" && step_and_when(&lower));
    let domain = ws.iter().filter(|w| w.len() >= 3 && w.chars().all(|c| c.is_alphanumeric() || c == '-') && !GENERIC.contains(&w.as_str())).count();
    let specific = code + domain;
    // What the first call did: failed, hung, timed out, crashed or was turned away.
    let went_wrong = [" fails", " hangs", " times out", " crashes", " is rejected", " is denied"].iter().any(|v| lower.contains(v));
    let recovery = went_wrong && lower.contains(" works") || lower.contains("does not exist") && lower.contains("the file is");
    // The first word after a leading "In this project," / "Here," says whether it is a directive.
    // "In this project, ...", "In kennelbook, ...", "Here, ...": the place, then the words.
    let head = match lower.split_once(", ") {
        Some((place, rest)) if (place.starts_with("in ") && place.split_whitespace().count() <= 3) || place == "here" => rest,
        _ => lower.as_str(),
    };
    let first = words(head).into_iter().next().unwrap_or_default();
    let padded = format!(" {lower} ");
    let rule_marker = marks_a_rule(&lower);
    let imperative = DIRECTIVES.contains(&first.as_str()) || directs(&lower);
    let modal = MODALS.iter().any(|m| padded.contains(m));
    let fact = [" is ", " are ", " lives ", " live ", " runs ", " uses ", " use ", " requires ", " expects ", " needs ", " sits ", " goes ", " go ", " belongs ", " belong ", " follow ", " follows ", " fails ", " strips "].iter().any(|m| padded.contains(m))
        // "the integration tests need `docker compose up -d pg`": what things need, named.
        || (padded.contains(" need ") && code > 0);
    let (actionability, act_reason) = if recovery {
        (1.0, "says what fails and what works")
    } else if (imperative || modal) && (rule_marker || gives_reason(&lower) || lower.contains("; ")) {
        (1.0, "a rule: what to do or not, and when")
    } else if matches!(input.source, "failure" | "recovery") && lower.contains(" because ") && code > 0 {
        // "... fails (gist) because EF Core maps decimal to decimal(18,2); columns need
        // HasPrecision": the cause of a failure, with the things it names, is what to act on.
        (0.7, "a failure with its cause named")
    } else if input.source == "claude-md" && terse_choice(text) {
        (0.7, "a choice the user wrote down: what to use, or what not to")
    } else if input.source == "claude-md" && step_and_when(&lower) {
        (0.7, "a step the user wrote down, and when to take it")
    } else if introduces(&lower) && !rule_marker && !modal && !gives_reason(&lower) {
        (0.2, "introduces a thing, says nothing to do")
    } else if fact && (rule_marker || code > 0) {
        (0.7, "a fact of the project the agent can act on")
    } else if input.source == "claude-md" && code > 0 && ws.len() >= 6 {
        // The user wrote it into CLAUDE.md for the agent: a sentence that names things in code
        // is a convention of the project, whatever its verb ("every change gets a bullet in
        // NEWS.md").
        (0.7, "a convention the user wrote down, naming things in code")
    } else if input.heard == HeardBy::Patterns && !describes(&lower) {
        // Capture heard a correction or a standing instruction, not a bare request: "pytest
        // here, not unittest" says what to do without a verb. What a thing always or never does
        // ("node 7 never rejoins after a brownout") is a report as often as a rule: it is
        // judged as any text.
        (0.7, "a rule the user stated: a correction or standing instruction")
    } else if (imperative || INSTRUCTION_VERBS.contains(&first.as_str())) && input.source == "claude-md" && (code > 0 || text.chars().any(|c| c.is_ascii_digit()) || named_besides_verb(&words(head), &[]) >= 2) {
        // What the user wrote into CLAUDE.md is for every session by where it is: "Keep
        // functions under 50 lines" or "Write commit messages in the imperative mood" there is a
        // rule that lasts, not a request for now. One that names too little, no thing in code,
        // no number and fewer than two other things ("Write clean, maintainable code"), is still
        // too vague to act on.
        (0.7, "an instruction the user wrote down for every session")
    } else if imperative {
        (0.3, "a request for now, not a rule that lasts")
    } else if matches!(input.heard, HeardBy::Model(_)) {
        (0.7, "a rule the user stated, as the prompt model reads their words")
    } else if fact {
        (0.5, "a statement with nothing to act on named")
    } else {
        (0.2, "says nothing to do")
    };
    let specificity = (0.35 * code as f64 + 0.2 * domain as f64).min(1.0);
    let spec_reason = match (code, domain) {
        (0, 0) => "names nothing in particular".to_string(),
        (c, d) => format!("names {c} thing(s) in code and {d} other specific word(s)"),
    };
    let gist = recovery && text.contains(" (");
    let (reasoning, why_reason) = if gives_reason(&lower) || text.contains(" — ") || text.contains(": ") && !recovery {
        (1.0, "says why")
    } else if gist {
        (0.6, "names the error it avoids")
    } else {
        (0.0, "says no why")
    };
    // Novelty: the closest existing lesson by meaning and by words.
    let mut duplicate_of = None;
    let mut closest = 0.0f64;
    let mut closest_reason = "no existing lesson is close".to_string();
    // The learned reading, for the closest lesson by meaning.
    // Two texts in capture's failure template ("In this project, `X` fails (...); `Y` works.")
    // are close in meaning by their template alone; the model, fitted on candidates against
    // lessons in words, does not compare them (the fixed bars still do).
    let templated = capture_template(&lower);
    // Nor a rule in the user's words against a recovery's template (the model was fitted against
    // lessons in words only): "use pnpm here, not npm" says more than `npm test` -> `pnpm test`.
    let comparable: Vec<(&str, &str, Option<f64>)> = input.nearest.iter().map(|&(id, other, c)| (id, other, c.filter(|_| !capture_template(&other.to_lowercase())))).collect();
    let learned = bars.duplicates.and_then(|m| m.read(text, input.source, &comparable).map(|r| (m.repeats(&r, input.heard != HeardBy::Not), r)));
    for (i, (id, other, cosine)) in input.nearest.iter().enumerate() {
        let words_shared = overlap(text, other);
        // The opposite of a lesson is never that lesson again, however close in words.
        if opposite(text, other) || reverses(text, other) || fixes(text, other) {
            continue;
        }
        let c = cosine.unwrap_or(0.0);
        // Both texts need words enough: a lesson of one word ("Do not push that.") is in every
        // instruction that names pushing.
        let by_words = words_shared >= bars.duplicate_words && text::terms(text).len() >= 3 && text::terms(other).len() >= 3;
        // A rule in the user's words ("use pnpm here, not npm") is no repeat of a recovery that
        // names the same tools (`npm test` -> `pnpm test`) by its words: it says more. Only a
        // meaning as close as the bar makes it one.
        let says_more = !templated && capture_template(&other.to_lowercase());
        let dup = c >= bars.duplicate_cosine
            || !says_more && by_words
            || !says_more && match &learned {
                Some((repeats, r)) => *repeats && r.closest == i,
                // A rewording shares few words by design: near the bar, a third of them is
                // enough (not further off: two recoveries share their template's words, "In
                // this project, `sh ...` fails ...; `sh ...` works", and would pass for one
                // another).
                None => c >= bars.duplicate_cosine - 0.10 && words_shared >= 0.3,
            };
        let similarity = c.max(words_shared * 0.9);
        if similarity > closest {
            closest = similarity;
            closest_reason = match cosine {
                Some(c) => format!("closest lesson {id}: cosine {c:.2}, {:.0}% of words shared", words_shared * 100.0),
                None => format!("closest lesson {id}: {:.0}% of words shared", words_shared * 100.0),
            };
        }
        if dup && duplicate_of.is_none() {
            duplicate_of = Some(id.to_string());
        }
    }
    let novelty = (1.0 - closest).clamp(0.0, 1.0);
    if let Some((_, r)) = &learned {
        closest_reason.push_str(&format!("; the same lesson again with probability {:.2} (lead over the next {:.2})", r.probability, r.inputs.margin));
    }
    let (outcome_linked, link_reason) = match input.source {
        "recovery" => (1.0, "a failure recovered from"),
        "failure" => (0.8, "a failure seen in several sessions"),
        "prompt" => (0.6, "the user's correction or instruction"),
        "claude-md" | "user" => (0.4, "written by the user"),
        _ => (0.0, "from no outcome"),
    };
    let score = score([actionability, specificity, reasoning, novelty, outcome_linked]);
    let mut reasons = vec![
        format!("actionability {actionability:.2}: {act_reason}"),
        format!("specificity {specificity:.2}: {spec_reason}"),
        format!("reasoning {reasoning:.2}: {why_reason}"),
        format!("novelty {novelty:.2}: {closest_reason}"),
        format!("outcome link {outcome_linked:.2}: {link_reason}"),
    ];
    let verdict = if let Some(why) = primitive(text, &ws, specific, code, actionability, input.source) {
        reasons.push(format!("primitive: {why}"));
        Verdict::Primitive
    } else if let Some(id) = &duplicate_of {
        reasons.push(format!("duplicate of {id}: that lesson is strengthened instead"));
        Verdict::Duplicate
    } else if actionability >= 0.6 && specificity >= 0.35 && score >= bars.quality {
        reasons.push(format!("quality: score {score:.2} >= {:.2}", bars.quality));
        Verdict::Quality
    } else if actionability >= 0.6 && score >= bars.keep {
        reasons.push(format!("needs work: score {score:.2}, {}", if specificity < 0.35 { "names too little" } else { "under the quality bar" }));
        Verdict::NeedsWork
    } else if actionability < 0.6 {
        reasons.push("primitive: it says nothing to do".into());
        Verdict::Primitive
    } else {
        reasons.push(format!("primitive: too vague to act on (score {score:.2} < {:.2})", bars.keep));
        Verdict::Primitive
    };
    Judgement { verdict, score, actionability, specificity, reasoning, novelty, outcome_linked, reasons, duplicate_of }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: &str, source: &str) -> Verdict {
        judge(&Input { text, source, nearest: Vec::new(), heard: HeardBy::Not }, &Bars::default()).verdict
    }

    #[test]
    fn lessons_that_say_what_to_do_about_named_things_are_quality() {
        assert_eq!(v("Use pnpm here, not npm.", "prompt"), Verdict::Quality);
        assert_eq!(v("In this project, `npm test` fails (npm ERR! This project uses pnpm); `pnpm test` works.", "recovery"), Verdict::Quality);
        assert_eq!(v("Do not touch the generated files in src/gen.", "prompt"), Verdict::Quality);
        assert_eq!(v("Never mock the database in integration tests, because the mocks hid a broken migration.", "prompt"), Verdict::Quality);
        // Another program of the same name, or another tool, is not a typo.
        assert_eq!(v("In this project, `node scripts/seed.js` fails (command not found); `nodejs scripts/seed.js` works.", "recovery"), Verdict::Quality);
        assert_eq!(v("In this project, `npm test` fails (npm: command not found); `pnpm test` works.", "recovery"), Verdict::Quality);
        // Conventions as CLAUDE.md states them: an obligation, where things go, what they follow.
        assert_eq!(v("The parser must build with -DPARSER_NO_EXCEPTIONS=ON for the firmware; return errors as values.", "claude-md"), Verdict::Quality);
        assert_eq!(v("Database views go in db/views as one .sql file per view.", "claude-md"), Verdict::Quality);
        assert_eq!(v("Module names follow acme.<team>.<service>; the build rejects others.", "claude-md"), Verdict::Quality);
    }

    #[test]
    fn primitives_are_never_kept() {
        for t in ["Bash was used 14 times in this session.", "cargo build took 41s.", "Ran git status.", "the config", "Tests should pass.", "Make sure the code works.", "Be careful with changes.", "Should we always run cargo test with --release?", "In this project, `kubeclt get pods -n shop` fails (command not found); `kubectl get pods -n shop` works.", "In this project, `Read` fails (File does not exist.); `Glob` works."] {
            let j = judge(&Input { text: t, source: "prompt", nearest: Vec::new(), heard: HeardBy::Not }, &Bars::default());
            assert_eq!(j.verdict, Verdict::Primitive, "{t}: {:?}", j.reasons);
            assert!(!j.verdict.keeps());
        }
    }

    #[test]
    fn a_fix_that_forces_past_a_safeguard_is_never_a_lesson() {
        for (failed, worked) in [
            ("git push origin main", "git push --force origin main"),
            ("git push origin main", "git push -f origin main"),
            ("git commit -m wip", "git commit --no-verify -m wip"),
            ("git commit -m wip", "git commit -n -m wip"),
            ("git commit -m wip", "HUSKY=0 git commit -m wip"),
            ("rm build", "rm -rf build"),
            ("rm build", "rm -r build"),
            ("npm install -g pnpm", "sudo npm install -g pnpm"),
            ("pip install requests", "pip install --break-system-packages requests"),
            ("curl https://internal.example/api", "curl -k https://internal.example/api"),
            ("git branch -d old", "git branch -D old"),
        ] {
            let text = format!("In this project, `{failed}` fails (rejected); `{worked}` works.");
            assert!(primitive_reason(&text, "recovery").contains("forces past a safeguard"), "{text}");
        }
        // A flag that is a fix, not a force: kept.
        assert_kept("In this project, `git commit -m wip` fails (DCO check: missing Signed-off-by); `git commit -s -m wip` works.", "recovery");
        assert_kept("In this project, `docker compose up` fails (no configuration file provided); `docker compose -f deploy/compose.yml up` works.", "recovery");
        assert_kept("In this project, `npm test` fails (npm ERR! This project uses pnpm); `pnpm test` works.", "recovery");
        assert_kept("In this project, `stack build` fails (Missing (or bad) C library: pq); `sudo apt-get install -y libpq-dev && stack build` works.", "recovery");
        // A compiler's -f options and a -f that names a file to read are no force.
        assert_kept("In this project, `gcc -shared -o libgeo.so geo.c` fails (relocation R_X86_64_32 can not be used; recompile with -fPIC); `gcc -shared -fPIC -o libgeo.so geo.c` works.", "recovery");
        assert_kept("In this project, `mvn test` fails (there is no POM in this directory); `mvn -f backend/pom.xml test` works.", "recovery");
        assert_kept("In this project, `conda env create` fails (EnvironmentFileNotFound: environment.yml); `conda env create -f envs/dev.yml` works.", "recovery");
        for (failed, worked) in [("ssh deploy@h", "ssh -o StrictHostKeyChecking=no deploy@h"), ("git clone https://git.example/x.git", "git -c http.sslVerify=false clone https://git.example/x.git"), ("pip install -r requirements.txt", "pip install --trusted-host pypi.org -r requirements.txt")] {
            let text = format!("In this project, `{failed}` fails (certificate verify failed); `{worked}` works.");
            assert!(primitive_reason(&text, "recovery").contains("forces past a safeguard"), "{text}");
        }
    }

    #[test]
    fn the_same_run_again_louder_or_after_a_wait_is_no_fix() {
        for text in [
            "In this project, `npm test` fails (Error: Timeout of 2000ms exceeded); `npm test -- --verbose` works.",
            "In this project, `go test ./...` fails (context deadline exceeded); `go test -count=1 ./...` works.",
            "In this project, `curl localhost:3000/health` fails (Connection refused); `sleep 2 && curl localhost:3000/health` works.",
            "In this project, `git commit -m fix` fails (no changes added to commit); `git add -A && git commit -m fix` works.",
            "In this project, `rm out.log` fails (rm: cannot remove 'out.log': No such file or directory); `rm -f out.log` works.",
            "In this project, `pytest tests/test_api.py` fails (AssertionError); `pytest -s tests/test_api.py` works.",
            "In this project, `cargo run --bin seed` fails (thread 'main' panicked); `RUST_BACKTRACE=1 cargo run --bin seed` works.",
            "In this project, `make` fails (openssl/ssl.h: No such file or directory); `make VERBOSE=1` works.",
            "In this project, `ctest` fails (1 test failed out of 12); `ctest --output-on-failure` works.",
        ] {
            assert!(!v(text, "recovery").keeps(), "{text}");
        }
    }

    #[test]
    fn a_step_and_when_is_kept_and_a_quality_asked_for_by_name_is_not() {
        for t in ["mix format before every commit.", "cargo fmt before every commit.", "`pnpm lint` before pushing.", "go test ./... after every change.", "uv sync after pulling.", "npm ci after switching branches."] {
            assert_kept(t, "claude-md");
        }
        for t in ["Experiments should be reproducible.", "Don't overcomplicate things.", "Write modular, reusable code.", "Favour composition and clean architecture."] {
            assert!(!v(t, "claude-md").keeps(), "{t}");
        }
        // With what it takes, a quality is a rule.
        assert_kept("Builds must be reproducible: pin every dependency in uv.lock.", "claude-md");
        assert_kept("Keep handlers testable by injecting the clock.", "claude-md");
    }

    #[test]
    fn tallies_looks_around_and_conventions_where_they_make_sense_are_not_kept() {
        for (t, source) in [
            ("Tool use this session: Bash x38, Edit x12, Read x4; 5 non-zero exits.", "failure"),
            ("In this project, `./gradlew check` fails (FAILURE: Build failed with an exception.); `git status` works.", "recovery"),
            ("Follow Rails conventions where it makes sense.", "claude-md"),
            ("Prefer idiomatic, modern C++ and keep performance in mind.", "claude-md"),
        ] {
            assert!(!v(t, source).keeps(), "{t}");
        }
        assert_kept("Prefer composition over inheritance for the renderers; the plugin API needs it.", "claude-md");
    }

    #[test]
    fn the_file_about_itself_and_how_to_ask_are_not_instructions() {
        assert_eq!(primitive_reason("This file provides guidance to Claude Code (claude.ai/code) when working with code in this repository.", "claude-md"), "primitive: the file describing itself, not an instruction");
        assert!(!v("Ask clarifying questions when requirements are ambiguous.", "claude-md").keeps());
    }

    #[test]
    fn what_waits_on_the_moment_is_not_kept() {
        for t in ["Don't commit that yet.", "Don't commit yet; review the diff first.", "Do not merge the release branch yet, QA is still testing."] {
            assert_eq!(primitive_reason(t, "prompt"), "primitive: about this moment only, not a lesson that lasts", "{t}");
        }
        // A "yet" in the reason after the rule is no wait.
        assert!(v("Do not use `git add -A` in this repo, the bazel-* symlinks aren't in .gitignore yet.", "prompt").keeps());
    }

    #[test]
    fn a_command_restated_or_a_thing_introduced_is_not_kept() {
        for (t, source) in [("Run `go test ./...` to run the tests.", "claude-md"), ("Run `swift build` to build the package.", "claude-md"), ("Run `dotnet test` to run the whole test suite.", "prompt")] {
            assert_eq!(primitive_reason(t, source), "primitive: it restates what its command does", "{t}");
        }
        for t in ["rackhouse is the Terraform and Ansible repo for a home Proxmox cluster, a NAS and an OPNsense router.", "Lanternfall is a 2D exploration game built in Unity 2022.3 LTS with URP."] {
            let j = judge(&Input { text: t, source: "claude-md", nearest: Vec::new(), heard: HeardBy::Not }, &Bars::default());
            assert!(!j.verdict.keeps(), "{t}: {:?}", j.reasons);
        }
        // A purpose the command does not name, a fact of what a thing is made of, and a rule
        // after an introduction are lessons.
        assert_kept("Run `make dev` to start the stack with its TLS certificates.", "claude-md");
        assert_kept("src/gen is the output of buf generate; regenerate it instead of editing it.", "claude-md");
        assert_kept("storefront is the Next.js app; never import from apps/admin in it.", "claude-md");
        // An instruction in CLAUDE.md is for every session by where it is, reason given or not;
        // one that names nothing is not one.
        assert_kept("Keep functions under 50 lines.", "claude-md");
        assert_eq!(primitive_reason("Write clean, maintainable code and follow best practices.", "claude-md"), "primitive: a platitude: it names no practice to check");
    }

    #[test]
    fn the_learned_reading_takes_a_rewording_for_the_lesson_it_leads_and_not_one_among_neighbours() {
        let model = Box::leak(Box::new(super::super::duplicate::DuplicateModel::from_coefficients(&[-7.0, 11.0, 1.5, 1.0, 0.0, 0.4, 0.0], 0.5, 0.7, "f".into(), serde_json::Value::Null)));
        let bars = Bars { duplicates: Some(model), ..Bars::default() };
        let text = "Keep credentials out of anything you commit; the scanner rejects the push.";
        let leads = [("m1", "Never put secrets in source files.", Some(0.62)), ("m2", "Pin base images.", Some(0.30))];
        let j = judge(&Input { text, source: "prompt", nearest: leads.to_vec(), heard: HeardBy::Not }, &bars);
        assert_eq!((j.verdict, j.duplicate_of.as_deref()), (Verdict::Duplicate, Some("m1")), "{:?}", j.reasons);
        assert!(j.reasons[3].contains("the same lesson again with probability"), "{:?}", j.reasons);
        let among = [("m1", "Never put secrets in source files.", Some(0.62)), ("m2", "Rotate a key that was pushed.", Some(0.60))];
        let j = judge(&Input { text, source: "prompt", nearest: among.to_vec(), heard: HeardBy::Not }, &bars);
        assert!(j.verdict.keeps(), "{:?}", j.reasons);
        // Two recoveries share capture's template, not their lesson.
        let recovery = "In this project, `sh tools/deploy.sh` fails (DEPLOY_ENV is not set); `DEPLOY_ENV=staging sh tools/deploy.sh` works.";
        let other = [("m1", "In this project, `sh build.sh` fails (cannot open build.sh); `sh tools/build.sh` works.", Some(0.60))];
        let j = judge(&Input { text: recovery, source: "recovery", nearest: other.to_vec(), heard: HeardBy::Not }, &bars);
        assert!(j.verdict.keeps(), "{:?}", j.reasons);
        // A rule in the user's words that names the tools of a recovery says more than it.
        let recovery = "In this project, `npm test` fails (npm ERR! code EUSAGE); `pnpm test` works.";
        let broader = judge(&Input { text: "Use pnpm here, not npm.", source: "prompt", nearest: vec![("m1", recovery, Some(0.66))], heard: HeardBy::Patterns }, &bars);
        assert!(broader.verdict.keeps(), "{:?}", broader.reasons);
        // Without the learned reading, the fixed bars decide: 0.62 is under them.
        let j = judge(&Input { text, source: "prompt", nearest: leads.to_vec(), heard: HeardBy::Not }, &Bars::default());
        assert!(j.verdict.keeps(), "{:?}", j.reasons);
    }

    #[test]
    fn the_fix_of_a_failure_is_not_the_failure_again() {
        let failing = "In this project, `./scripts/sync-assets.sh --bucket media` keeps failing (sync failed: AccessDenied on bucket media-prod): seen in more than one session, never fixed in one. Find the cause before running it again.";
        let fixed = "In this project, `./scripts/sync-assets.sh --bucket media` fails (sync failed: AccessDenied on bucket media-prod); `./scripts/sync-assets.sh --bucket media --profile media-writer` works.";
        assert!(fixes(fixed, failing) && fixes(failing, fixed) && !fixes(fixed, fixed));
        let j = judge(&Input { text: fixed, source: "recovery", nearest: vec![("m1", failing, Some(0.95))], heard: HeardBy::Not }, &Bars::default());
        assert!(j.verdict.keeps(), "{:?}", j.reasons);
    }

    #[test]
    fn a_lesson_turned_round_is_not_that_lesson_again() {
        assert!(reverses("Always run the linter before committing.", "From now on never run the linter before committing, it is too slow."));
        assert!(reverses("Don't edit files under src/generated/.", "It's fine to edit files under src/generated/ directly."));
        // The same lesson, said another way, is not turned round.
        for (a, b) in [
            ("Use pnpm, not npm.", "Always use pnpm in this repo."),
            ("Run the linter before committing.", "Don't commit without running the linter."),
            ("Never UPDATE ledger rows; insert a correcting entry.", "Insert correcting entries instead of updating ledger rows."),
            ("Never force-push main.", "Don't force-push main or release branches."),
            ("Never deploy to production on a Friday.", "Nothing goes to production on a Friday afternoon; if it breaks, there's no one around."),
            ("Never make S3 buckets public.", "In shop-api, `aws s3api put-bucket-acl --bucket exports --acl public-read` fails (AccessDenied); `aws s3 presign s3://exports/x` works."),
        ] {
            assert!(!reverses(a, b) && !reverses(b, a), "{a} / {b}");
        }
        // So the gate keeps the turned-round text as a lesson of its own, not a duplicate.
        let text = "Never run the linter before committing, it is too slow.";
        let j = judge(&Input { text, source: "prompt", nearest: vec![("m1", "Always run the linter before committing.", Some(0.93))], heard: HeardBy::Patterns }, &Bars::default());
        assert_ne!(j.verdict, Verdict::Duplicate, "{:?}", j.reasons);
    }

    #[test]
    fn three_words_are_a_rule_when_one_names_code_and_one_says_what_holds() {
        let verdict = |t: &str| judge(&Input { text: t, source: "prompt", nearest: vec![], heard: HeardBy::Patterns }, &Bars::default());
        for t in ["Never hand-edit uv.lock.", "Always run `make gen`."] {
            let j = verdict(t);
            assert!(!j.reasons.iter().any(|r| r.contains("fragment")), "{t}: {:?}", j.reasons);
        }
        for t in ["Run cargo build.", "Keep things simple.", "Don't do that.", "Run ./gradlew build.", "Never uv.lock."] {
            let j = verdict(t);
            assert_eq!(j.verdict, Verdict::Primitive, "{t}: {:?}", j.reasons);
        }
    }

    #[test]
    fn slips_of_a_moment_and_failures_without_a_cause_are_primitive() {
        let why = |t: &str| primitive_reason(t, "recovery");
        assert!(why("In this project, `src/utils/strng.c` does not exist (No such file or directory); the file is `src/utils/string.c`.").contains("typo"));
        assert!(why("In this project, `lib/billing/inv` does not exist (ENOENT); the file is `lib/billing/invoice.ex`.").contains("completed"));
        assert!(why("In this project, `ls build/out` keeps failing (No such file or directory): seen in more than one session, never fixed in one. Find the cause before running it again.").contains("look around"));
        for t in [
            "In this project, `mix test` keeps failing (3 tests, 1 failure): seen in more than one session, never fixed in one. Find the cause before running it again.",
            "In this project, `./gradlew build` keeps failing (BUILD FAILED in 2m 13s): seen in more than one session, never fixed in one. Find the cause before running it again.",
            "In this project, `helm lint charts/gateway` keeps failing (1 chart(s) linted, 1 chart(s) failed): seen in more than one session, never fixed in one. Find the cause before running it again.",
        ] {
            assert!(why(t).contains("only that it failed"), "{t}");
        }
        assert!(why("In this project, `uvicorn app.main:app --reload` fails (ERROR: [Errno 98] Address already in use); `uvicorn app.main:app --reload --port 8001` works.").contains("moment"));
        // A path moved, an error with its cause, and a count that a changed call fixed are lessons.
        for t in [
            "In this project, `/repo/src/config.ts` does not exist (File does not exist.); the file is `/repo/packages/app/src/config.ts`.",
            "In this project, `cargo deny check licenses` keeps failing (error[rejected]: license AGPL-3.0-only of crate pdf-weave is not allowed): seen in more than one session, never fixed in one. Find the cause before running it again.",
            "In this project, `cargo test` fails (3 tests, 1 failure); `cargo test -- --test-threads=1` works.",
            "In this project, `psql -c 'select 1'` fails (connection refused); `make db-up && psql -c 'select 1'` works.",
        ] {
            assert_kept(t, "recovery");
        }
    }

    /// Asserts the gate keeps `text` from `source`.
    fn assert_kept(text: &str, source: &str) {
        let j = judge(&Input { text, source, nearest: Vec::new(), heard: HeardBy::Not }, &Bars::default());
        assert!(j.verdict.keeps(), "{text}: {:?}", j.reasons);
    }

    /// Asserts the gate finds `text` from `source` primitive; its reason.
    fn primitive_reason(text: &str, source: &str) -> String {
        let j = judge(&Input { text, source, nearest: Vec::new(), heard: HeardBy::Not }, &Bars::default());
        assert_eq!(j.verdict, Verdict::Primitive, "{text}: {:?}", j.reasons);
        j.reasons.last().cloned().unwrap_or_default()
    }

    #[test]
    fn taken_back_dated_bug_reports_puzzles_and_vague_care_are_primitive() {
        let why = primitive_reason;
        assert!(why("Squash every branch before merging. Hmm, no wait, scratch that; merge commits are fine.", "prompt").contains("taken back"));
        assert!(why("Keep the v1 `/orders` handler alive until the Android app ships next Thursday.", "prompt").contains("near date"));
        assert!(why("Serve the legacy `/v1/export` endpoint until the migration window on the 21st.", "prompt").contains("near date"));
        assert!(why("Leave the feature flag `new_checkout` on until the end of March for the pilot.", "prompt").contains("near date"));
        assert!(why("The importer always hangs when the CSV has a BOM at the start of `data/in.csv`.", "prompt").contains("goes wrong"));
        assert!(why("No idea why but `make lint` passes locally and fails on the runner.", "prompt").contains("puzzle"));
        assert!(why("Always pay attention when touching the build.", "prompt").contains("vague"));
        assert!(why("In this project, `npm test` fails (Tests: 2 failed, 40 passed); `npm test -- src/cart.test.ts` works.", "recovery").contains("ran less"));
        assert!(why("In this project, `vitest run` keeps failing (4 tests failed across 3 files): seen in more than one session, never fixed in one. Find the cause before running it again.", "failure").contains("only that it failed"));
        // A convention written into CLAUDE.md that names things is kept whatever its verb.
        assert_kept("Each public function in `lib/api/` gets a doc comment with an `# Examples` block.", "claude-md");
        // A condition, a way out, a directive opened by "never", a date-free "until", a
        // negated "forget it" and care with a reason stay lessons.
        for t in [
            "The e2e suite always fails unless `redis-server` is running on 6380.",
            "Never fail silently in the `jobs/` workers; log the error and re-raise it.",
            "Do not merge `release/*` branches until the changelog check passes.",
            "Don't forget it: `make proto` must run after editing any file in `api/proto/`.",
            "Always double-check `kubectl config current-context` before applying; laptops default to prod.",
            // Phrases and words that only look like a retraction, a date, a bug report or a
            // count-only failure (from a review of the rules).
            "Generated files in `gen/` trip the linter; eslint is configured to ignore that folder.",
            "Don't skip the `make proto` step; if you forget that, the build breaks with missing symbols.",
            "Migrations must never break old readers; add columns as nullable.",
            "Tracing always writes to stderr; set `RUST_LOG=debug` to see spans.",
            "In `jobs/`, never fail silently: log the error and re-raise it.",
            "Never run `terraform apply` until the next plan is reviewed.",
            "Retry the webhook delivery until the 3rd attempt, then page on-call.",
            "`tox` fails (build failed) unless you export PYTHONPATH=src first.",
            "In this project, `cargo test` fails (test result: FAILED. 10 passed; 1 failed); `cargo test --features postgres` works.",
            "In this project, `app/web/next.config.js` does not exist (ENOENT); the file is `apps/web/next.config.js`.",
            "In this project, `git commit -m \"wip (tests)\"` fails (pre-commit: eslint found errors in src/cart.ts); `pnpm lint --fix && git commit -m \"wip (tests)\"` works.",
        ] {
            assert_kept(t, "prompt");
        }
    }

    #[test]
    fn recoveries_that_are_not_fixes_are_primitive_and_fixes_are_kept() {
        let why = primitive_reason;
        assert!(why("In this project, `./mvnw test` fails (PostingTest.balances: expected 0 but was 5); `./mvnw test -Dtest=LedgerPostingTest#postsBalancedEntry` works.", "recovery").contains("fewer tests"));
        assert!(why("In this project, `rebar3 ct --sname ct` fails (route_SUITE: exact match returned undefined); `rebar3 ct --sname ct --suite test/router_SUITE --case route_exact_match` works.", "recovery").contains("fewer tests"));
        // A first call that hung is recovered from as one that failed.
        assert_kept("In this project, `npx nx affected -t test` hangs (Waiting for the Nx Daemon to start); `NX_DAEMON=false npx nx affected -t test` works.", "recovery");
        for t in ["In this project, `terragrunt apply` fails (Error 409: Already exists); `terragrunt output` works.", "In this project, `fvm flutter build ios --release` fails (No profiles for 'app.perch.mobile' were found); `fvm flutter build apk --release` works.", "In this project, `docker compose exec php bin/console doctrine:migrations:migrate -n` fails (relation \"booking_slot\" already exists); `docker compose exec php bin/console cache:clear` works."] {
            assert!(why(t, "recovery").contains("another command"), "{t}");
        }
        for t in ["In this project, `mix test` fails (318 tests, 2 failures; Bookings.create/2 raised KeyError); `mix test test/ferry/bookings_test.exs:88` works.", "In this project, `dune runtest` fails (Files run.t and run.t.corrected differ.); `dune runtest test/lexer` works.", "In this project, `pnpm vitest run` fails (plots.test.ts > renders axis: expected 3 ticks); `pnpm vitest run src/lib/plots.test.ts` works."] {
            assert!(why(t, "recovery").contains("fewer tests"), "{t}");
        }
        assert_kept("In this project, `cargo test` fails (error: could not connect to the offline query data); `SQLX_OFFLINE=true cargo test` works.", "recovery");
        assert_kept("In this project, `cargo test` fails (feature `postgres` is required for the store tests); `cargo test --features postgres` works.", "recovery");
        assert_kept("In this project, `./gradlew test` fails (No connected devices!); `./gradlew :app:testDebugUnitTest` works.", "recovery");
        // A wrapper for the same step, another path, another package, a switch's value: fixes.
        assert_kept("In this project, `pnpm drizzle-kit migrate` fails (DATABASE_URL is not set); `pnpm db:migrate` works.", "recovery");
        assert_kept("In this project, `sh build.sh` fails (No such file or directory); `sh tools/build.sh` works.", "recovery");
        assert_kept("In storefront, `pnpm add @pdf-tools/render --filter web` fails (AGPL-3.0-only is not allowed); `pnpm add pdf-lib --filter web` works.", "recovery");
        assert_kept("In analytics, `psql -h pg-primary -U notebook shop` fails (no pg_hba.conf entry); `psql -h pg-replica -U notebook shop` works.", "recovery");
        assert!(why("In this project, `cabal test all` fails (1 out of 214 tests failed (0.84s)); `cabal test gloss-core:test:spec --test-options='-m Parser'` works.", "recovery").contains("ran less"));
    }

    #[test]
    fn tallies_headings_dates_and_failures_without_a_cause_are_primitive() {
        let why = primitive_reason;
        assert!(why("Until the v2 launch on 2026-12-15, leave the legacy /v1/shipments handler in place.", "prompt").contains("near date"));
        assert!(why("and the go code under gen/go is", "prompt").contains("mid-clause"));
        assert!(why("In this project, `bin/rails db:migrate` failed, then `bin/rails db:migrate` succeeded.", "failure").contains("the same call again"));
        assert!(why("`bin/rails test` runs the test suite.", "claude-md").contains("restates"));
        assert!(why("# Heron.jl - notes for Claude", "claude-md").contains("heading"));
        assert!(why("Session summary: 52 tool calls (Bash 31, Edit 12, Read 7); 6 Bash commands exited non-zero.", "failure").contains("statistics"));
        assert!(why("Until the 0.9 release on 2026-12-15, keep the legacy /v1/sensors endpoint in millrace.", "claude-md").contains("near date"));
        assert!(why("Known issue: the HUD ammo counter flickers on 144 Hz monitors.", "claude-md").contains("goes wrong"));
        assert!(why("Until the Bevy 0.16 upgrade lands in January 2027, keep spawning entities with the old bundles.", "claude-md").contains("near date"));
        assert!(why("`./gradlew :server:test` BUILD SUCCESSFUL in 1m 47s; 38 actionable tasks: 12 executed, 26 up-to-date.", "failure").contains("statistics"));
        assert!(why("`molecule test` creates the instance, converges the role, checks idempotence and destroys the instance.", "claude-md").contains("restates"));
        assert!(why("In this project, `./mvnw verify` fails ([INFO] BUILD FAILURE).", "failure").contains("only that it failed"));
        // What a command is for, with what to do or why, is a lesson.
        assert_kept("`make dev` starts the stack with local TLS certs; use it instead of `docker compose up`, which skips them.", "claude-md");
        assert_kept("`rsconnect::deployApp()` from your session goes straight over the live dashboard the managers use.", "claude-md");
        assert!(why("In this project, `npx nx e2e harbor-web-e2e` failed again: seen in 3 sessions, never fixed in one.", "failure").contains("no cause"));
        // A directive after its place and a fact of what things need: lessons.
        assert_kept("In kennelbook, enqueue Celery tasks with transaction.on_commit() and pass primary keys; a task sent inside the atomic block can run before the commit.", "prompt");
        assert_kept("In millrace, `lein test` covers only unit tests; the integration tests need `docker compose up -d pg` first.", "prompt");
        assert!(why("The Heron.jl integration suite took 6m12s on the runner, 4m40s of it precompilation.", "failure").contains("timing"));
        assert!(why("In this project, `pnpm build` fails (ELIFECYCLE  Command failed with exit code 1.).", "failure").contains("only that it failed"));
        // A failure with its cause named is kept; so is a date that is not a deadline.
        assert_kept("In this project, the FX conversion tests fail (expected 1.08734, got 1.09) because EF Core maps decimal to decimal(18,2) by default; rate and amount columns need HasPrecision in LedgerContext.OnModelCreating.", "failure");
        assert_kept("Name migration files by date, `2026-01-05_add_index.sql`, so that they sort in the order they run.", "claude-md");
    }

    #[test]
    fn a_rule_the_prompt_model_heard_is_acted_on_whatever_its_verb() {
        let text = "Prod migrations go through the release pipeline, running them by hand skips the lock.";
        let plain = judge(&Input { text, source: "prompt", nearest: Vec::new(), heard: HeardBy::Not }, &Bars::default());
        assert_eq!(plain.verdict, Verdict::Primitive, "{:?}", plain.reasons);
        let heard = judge(&Input { text, source: "prompt", nearest: Vec::new(), heard: HeardBy::Model(0.87) }, &Bars::default());
        assert!(heard.verdict.keeps(), "{:?}", heard.reasons);
        assert!(heard.reasons[0].contains("as the prompt model reads their words"), "{:?}", heard.reasons);
        // Heard or not, requests for now, statistics, fragments and bug reports stay primitive.
        for text in ["Fix the typo in the vendored parser notes.", "The tests took 42 seconds on average.", "Fix it.", "The login page never loads after the deploy."] {
            let j = judge(&Input { text, source: "prompt", nearest: Vec::new(), heard: HeardBy::Model(0.9) }, &Bars::default());
            assert_eq!(j.verdict, Verdict::Primitive, "{text}: {:?}", j.reasons);
        }
    }

    #[test]
    fn a_correction_the_patterns_heard_is_kept_without_a_verb() {
        // What capture's patterns hear is a correction or standing instruction, not a bare
        // request: kept, though it has no directive ("pytest here, not unittest").
        for text in ["Pytest here, not unittest.", "No lombok in new code.", "You don't need docker for the unit tests.", "Rubocop -a, not -A.", "Use tsx, ts-node chokes on our esm config.", "We build with cmake presets here.", "New queue names have to be added to config/sidekiq.yml."] {
            let plain = judge(&Input { text, source: "prompt", nearest: Vec::new(), heard: HeardBy::Not }, &Bars::default());
            assert_eq!(plain.verdict, Verdict::Primitive, "{text}: {:?}", plain.reasons);
            let j = judge(&Input { text, source: "prompt", nearest: Vec::new(), heard: HeardBy::Patterns }, &Bars::default());
            assert!(j.verdict.keeps(), "{text}: {:?}", j.reasons);
        }
        // Fragments, statistics and what a thing always or never does stay primitive however
        // they were heard.
        for text in ["Fix it.", "The tests took 42 seconds on average.", "Node 7 never rejoins after a brownout.", "The vent always swings fully open for a second on boot."] {
            let j = judge(&Input { text, source: "prompt", nearest: Vec::new(), heard: HeardBy::Patterns }, &Bars::default());
            assert_eq!(j.verdict, Verdict::Primitive, "{text}: {:?}", j.reasons);
        }
    }

    #[test]
    fn a_claude_md_line_is_an_instruction_by_where_it_is_unless_it_names_no_practice() {
        // Plain imperatives that name what they are about, without code or a number; short
        // lines that name a choice.
        for t in ["Write commit messages in the imperative mood.", "Add docstrings to public functions.", "Use TypeScript strict mode.", "Pin dependency versions.", "Give every cron job a timeout and an owner.", "Vitest, not Jest.", "Expo Router only.", "No lodash", "Zod for runtime validation.", "ESM only, no CommonJS build."] {
            assert_kept(t, "claude-md");
        }
        // The same words in a prompt are a request for now, or too short to be a lesson.
        for t in ["Write commit messages in the imperative mood.", "Vitest, not Jest.", "Pin dependency versions."] {
            primitive_reason(t, "prompt");
        }
        // About the reply, a platitude, a manner with nothing that says what it takes, a lone
        // noun phrase, a pointer elsewhere, a wish.
        assert!(primitive_reason("Don't apologise, just tell me what broke.", "claude-md").contains("about the reply"));
        assert!(primitive_reason("Answer in German.", "claude-md").contains("fragment") || primitive_reason("Answer in German.", "claude-md").contains("reply"));
        assert!(primitive_reason("Keep your explanations brief and use bullet points.", "claude-md").contains("about the reply"));
        for t in ["Follow best practices at all times.", "Always think about edge cases.", "Keep security in mind.", "Make the code easy to maintain.", "Write clean, idiomatic Rust."] {
            assert!(primitive_reason(t, "claude-md").contains("platitude"), "{t}");
        }
        for t in ["Name the Terraform modules consistently.", "Handle webhook failures gracefully."] {
            assert!(primitive_reason(t, "claude-md").contains("platitude"), "{t}");
        }
        // A judgement left to the reader (what is unnecessary, appropriate, snappy enough).
        for t in ["Avoid needless abstraction layers.", "Pick the proper HTTP status for each error.", "Keep the dashboard performant.", "Apply the twelve-factor principles.", "Treat the cache with respect."] {
            assert!(primitive_reason(t, "claude-md").contains("platitude"), "{t}");
        }
        assert_kept("Avoid unnecessary re-renders by wrapping list rows in React.memo.", "claude-md");
        // Judgement words beside what the line names are a rule (read off a QA pass).
        for t in ["Proper nouns in UI strings are never translated.", "Give every table a proper primary key.", "Ask a senior engineer to review any change to the billing service.", "Use responsive images (srcset and sizes) for all product photos.", "Tests must actually hit Postgres, never an in-memory fake.", "Only mock what actually crosses a process boundary."] {
            assert_kept(t, "claude-md");
        }
        // A note of work to do or done, a persona.
        assert!(primitive_reason("TODO: move the seed scripts under db/seeds/.", "claude-md").contains("work to do"));
        assert!(primitive_reason("FIXME(2025-03) the e2e suite needs Docker on CI", "claude-md").contains("work to do"));
        assert!(primitive_reason("[x] move CI to GitHub Actions", "claude-md").contains("work to do"));
        assert!(primitive_reason("You are an expert Go developer who writes idiomatic code.", "claude-md").contains("persona"));
        primitive_reason("Act as a senior Rails engineer reviewing every diff.", "claude-md");
        for t in ["Todos live in docs/TODO.md, one line per task.", "TODO comments must include a ticket number like PROJ-123.", "FIXME markers are not allowed on main.", "You are allowed to run `pnpm test` without asking.", "You're a guest in this repo: never change files under vendor/.", "Imagine you are on a slow network: keep Docker images under 200 MB."] {
            assert_kept(t, "claude-md");
        }
        assert_kept("Shut the workers down gracefully by draining the queue first.", "claude-md");
        assert_kept("Comment every public function in the billing module.", "claude-md");
        // A platitude's words are whole words: `make clean` names a target.
        assert_kept("Run make clean before tagging a release.", "claude-md");
        for t in ["Architecture notes", "See CONTRIBUTING.md for details.", "Try not to introduce bugs."] {
            primitive_reason(t, "claude-md");
        }
    }

    #[test]
    fn a_directive_without_a_rule_or_a_reason_is_a_request_for_now() {
        for t in ["fix the typo in the vendored parser notes", "add a csv export for plaza transactions over a date range.", "rename `Order` to `Purchase` everywhere"] {
            assert!(request_for_now(t), "{t}");
        }
        for t in ["always run the linter before committing", "use pnpm here, not npm", "run migrations through the release pipeline because by hand skips the lock", "prod migrations go through the release pipeline", "the staging db gets wiped nightly"] {
            assert!(!request_for_now(t), "{t}");
        }
    }

    #[test]
    fn every_dimension_has_its_reason() {
        let j = judge(&Input { text: "Use pnpm here, not npm.", source: "prompt", nearest: Vec::new(), heard: HeardBy::Not }, &Bars::default());
        assert_eq!(j.reasons.len(), 6);
        for (r, name) in j.reasons.iter().zip(["actionability", "specificity", "reasoning", "novelty", "outcome link", "quality"]) {
            assert!(r.starts_with(name), "{r}");
        }
    }

    #[test]
    fn an_existing_lesson_again_is_a_duplicate_by_meaning_or_words() {
        let lesson = "Never force-push main or a release branch: the deploy bot tags from them.";
        let by_meaning = judge(&Input { text: "Do not rewrite history on main with push -f.", source: "prompt", nearest: vec![("m1", lesson, Some(0.91))], heard: HeardBy::Not }, &Bars::default());
        assert_eq!((by_meaning.verdict, by_meaning.duplicate_of.as_deref()), (Verdict::Duplicate, Some("m1")));
        let by_words = judge(&Input { text: "Never force-push main or a release branch.", source: "prompt", nearest: vec![("m1", lesson, None)], heard: HeardBy::Not }, &Bars::default());
        assert_eq!(by_words.verdict, Verdict::Duplicate);

        assert!(mistyped("carg", "cargo") && mistyped("ccargo", "cargo") && mistyped("terrafrom", "terraform"));
        assert!(!mistyped("pip", "pip3") && !mistyped("python", "python3") && !mistyped("node", "nodejs") && !mistyped("npm", "pnpm"));
        assert_eq!(v("In this project, `carg build --release` fails (bash: carg: command not found); `cargo build --release` works.", "recovery"), Verdict::Primitive);
        assert_eq!(v("Do not push that.", "prompt"), Verdict::Primitive);
        // Read off batch 21: a tally of steps, a request for when there is time, what is held to
        // a branch, a rule taken back with "nvm".
        for (t, source) in [
            ("Build Summary: 5/5 steps succeeded; 41/41 tests passed (2.9s)", "failure"),
            ("Whenever you get a moment, bump terragrunt in the CI image to 0.67.", "prompt"),
            ("On this branch keep the old TideApi client around until the new one is in prod.", "prompt"),
        ] {
            primitive_reason(t, source);
        }
        assert!(retracted_at("run `sbt scalafmtall` before every commit... actually nvm, the pre-commit hook already does that").is_some());
        assert_kept("Whenever you add an env var, add it to .env.example too.", "prompt");
        assert!(now_only("keep it in this pr") && !now_only("in this project, use pnpm") && !now_only("deploy the tomorrowland service"));
        assert_eq!(v("Never commit it.", "prompt"), Verdict::Primitive);
        // The opposite of a lesson is not that lesson again.
        let recovery = "In this project, `npm test` fails (npm ERR! code ENOENT); `pnpm test` works.";
        let back = judge(&Input { text: "Run npm test here, not pnpm test.", source: "prompt", nearest: vec![("m3", recovery, Some(0.86))], heard: HeardBy::Patterns }, &Bars::default());
        assert_ne!(back.verdict, Verdict::Duplicate, "{:?}", back.reasons);
        assert!(opposite("Run `npm test` here, not `pnpm test`.", recovery) && opposite("use yarn instead of pnpm", "Use pnpm here, not yarn."));
        assert!(!opposite("Use pnpm here, not npm.", recovery), "the same preference");
        let again = judge(&Input { text: "Use pnpm here, not npm.", source: "prompt", nearest: vec![("m3", recovery, Some(0.9))], heard: HeardBy::Patterns }, &Bars::default());
        assert_eq!(again.verdict, Verdict::Duplicate);
        // A lesson of a word or two is in many instructions without being any of them.
        let short = judge(&Input { text: "Never push to main directly; open a pull request, otherwise the release bot breaks.", source: "prompt", nearest: vec![("m2", "Do not push that.", None)], heard: HeardBy::Not }, &Bars::default());
        assert_ne!(short.verdict, Verdict::Duplicate, "{:?}", short.reasons);
        let other = judge(&Input { text: "Use pnpm here, not npm.", source: "prompt", nearest: vec![("m1", lesson, Some(0.2))], heard: HeardBy::Not }, &Bars::default());
        assert_eq!(other.verdict, Verdict::Quality);
        assert!(other.novelty > 0.7);
        // Near the bar (0.10 under it), a third of the words shared makes it the lesson again;
        // fewer words at that closeness, or as many further off, leave it a lesson of its own.
        let near = |text: &str, c: f64| judge(&Input { text, source: "prompt", nearest: vec![("m1", lesson, Some(c))], heard: HeardBy::Not }, &Bars::default()).verdict;
        assert_eq!(near("Do not force-push main; the release tags come from it.", 0.68), Verdict::Duplicate);
        assert_eq!(near("Rewriting main breaks the release tags; coordinate first.", 0.67), Verdict::Duplicate);
        assert_ne!(near("Rewriting main breaks the release tags; coordinate first.", 0.62), Verdict::Duplicate);
        assert_ne!(near("Rewriting shared history breaks everyone's clones; coordinate first.", 0.68), Verdict::Duplicate);
    }

    #[test]
    fn a_failure_in_the_code_then_another_run_is_no_recovery() {
        for t in [
            "In this project, `go test ./...` fails (--- FAIL: TestReconcile (0.03s)); `go test ./internal/activities/...` works.",
            "In this project, `./gradlew :server:test` fails (ApplicationTest > testHealthEndpoint() FAILED); `./gradlew :client:test` works.",
            "In this project, `make test` fails (Failed : 2, Errors : 0 in tests/picker_spec.lua); `nvim --headless -c \"PlenaryBustedFile tests/config_spec.lua\"` works.",
        ] {
            primitive_reason(t, "recovery");
        }
        // A variable, a switch or a step before the same call may be the fix; an error of the
        // call (a missing tool or service) is not the code's.
        for t in [
            "In this project, `npm test` fails (FAIL src/dates.test.ts: expected 09:00, got 08:00); `TZ=UTC npm test` works.",
            "In this project, `cargo test` fails (test result: FAILED. 3 failed; connection refused); `cargo test -- --test-threads=1` works.",
            "In this project, `go test ./...` fails (--- FAIL: TestStore: dial tcp 127.0.0.1:5432: connection refused); `make db-up && go test ./...` works.",
            "In this project, `npm test` fails (npm ERR! This project uses pnpm); `pnpm test` works.",
            "In this project, `pnpm --filter @acme/ui build` fails (error TS2307: Cannot find module '@acme/tokens'); `pnpm turbo run build --filter=@acme/ui...` works.",
            "In this project, `bin/phpunit` fails (connection to server at \"db\", port 5432 failed: FATAL: database \"app_test\" does not exist); `composer test` works.",
        ] {
            assert_kept(t, "recovery");
        }
    }

    #[test]
    fn a_release_that_ships_or_a_near_week_bounds_an_instruction() {
        for t in [
            "keep the legacy /api/v1/berths endpoint until the 3.2 release ships.",
            "keep the neovim 0.9 ci job until neovim 0.11 is released.",
            "don't merge anything into main while the owner is on leave next week.",
            "code freeze for the 3.2 release starts 2026-12-05; only fixes merge after that.",
        ] {
            assert!(time_bound(t), "{t}");
        }
        for t in ["retry the deploy until the tests pass.", "while the migration runs, keep reading both columns.", "keep the old route until the new one has tests.", "pin node 20.11 in .nvmrc."] {
            assert!(!time_bound(t), "{t}");
        }
    }

    #[test]
    fn what_users_can_do_or_see_is_a_product_requirement() {
        for t in [
            "Kennel owners must be able to cancel a booking up to 24 hours before check-in.",
            "The desktop app must let users import OFX and QFX statements from any bank.",
            "Overdue loans should show a red badge with a tooltip giving the due date.",
            "Make the app's dark mode follow the OS setting.",
        ] {
            primitive_reason(t, "claude-md");
        }
        // Naming things in code, it is how the work is done.
        assert!(!product_requirement("The API must let clients send an `Idempotency-Key` header.", "the api must let clients send an `idempotency-key` header."));
    }

    #[test]
    fn more_verbs_and_modals_say_what_to_do() {
        for t in [
            "In orchard, eager-load relationships with selectinload(...) when using async sessions; a lazy load later raises MissingGreenlet.",
            "kestrel.nvim still supports Neovim 0.9, where vim.uv does not exist; reach libuv through `local uv = vim.uv or vim.loop`.",
            "In quillnest, Prisma (~/db.server) may only be imported from .server.ts modules; a component importing it breaks the Vite build.",
        ] {
            assert_kept(t, "prompt");
        }
    }
}
