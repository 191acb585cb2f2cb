//! Outcome attribution: what a lesson said in a session changed, judged from what happened next.
//! Pure; the outcome worker ([`crate::app`]) reads the session log, applies the verdicts and
//! keeps them.
//!
//! The rule, in full (README "What happened after a lesson was said" says the same):
//! - Advice reaches the model after the call it was given for has run (PreToolUse context is
//!   shown beside that call's result; PostToolUse context is the result's), so it can only steer
//!   the calls after it; advice at a prompt steers the turn that follows. A tool call that
//!   succeeded is never, by itself, evidence that a lesson helped.
//! - What the lesson warns about is, for a lesson a trigger rule put forward, that rule matching
//!   the call's input; otherwise the words of the lesson's negated clauses ("not npm", "never
//!   force-push to main", "X instead of Y": the Y side) found in what the call does (a command,
//!   or an edit's new text). What it asks for is the words of its other clauses.
//! - The evidence window: the next `calls` acting tool calls of the session (look-arounds do not
//!   count), within `minutes` of the advice, and never past the user's next prompt.
//! - **ignored**: a later call of the same kind (for advice at a prompt, any acting call) does
//!   what the lesson warns about. Settled at once.
//! - **followed**: before that, a later call of the same kind does not do what it warns about,
//!   and either brings a word the lesson asks for that the advised call did not have, or redoes
//!   the advised call (same program or file) when that one did what the lesson warns about.
//!   After advice at a tool call, a call that brings a word counts only when it is about what
//!   the advised call was about (the same file; a word in common besides the program).
//!   Provisional until the user's next prompt, the session's end or the window's time runs out.
//! - **contradicted**: the user's next prompt, after a followed lesson, corrects or rejects
//!   what was done ("no, ...", "undo that", "that's wrong", ...). `not-useful` says the same of
//!   a lesson without a moment.
//! - **unknown**: nothing above within the window. Most cases; recorded, never counted.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::base::clock::parse_timestamp;
use crate::base::text;
use crate::store::sessions::SessionEvent;

/// What became of a lesson said at a moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Followed,
    Ignored,
    Contradicted,
    Unknown,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Followed => "followed",
            Verdict::Ignored => "ignored",
            Verdict::Contradicted => "contradicted",
            Verdict::Unknown => "unknown",
        }
    }
}

/// A verdict with its evidence; `settled` once nothing later can change it.
#[derive(Debug, Clone, PartialEq)]
pub struct Attribution {
    pub verdict: Verdict,
    pub settled: bool,
    pub evidence: String,
}

/// How far after the advice evidence is looked for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    /// Acting tool calls after the advice.
    pub calls: usize,
    /// Minutes after the advice.
    pub minutes: f64,
}

/// The lesson as attribution sees it: its words, and the trigger rule that put it forward when
/// one did (`rule(event)` tells whether the rule matches that event's input).
pub struct Lesson<'a> {
    pub text: &'a str,
    pub rule: Option<&'a dyn Fn(&SessionEvent) -> bool>,
}

/// Words that say nothing of a direction on their own.
const GENERIC: &[&str] = &[
    "alway", "never", "avoid", "instead", "rather", "prefer", "ensur", "first", "run", "make", "use", "sure", "everi", "anyth",
    "someth", "work", "chang", "code", "file", "thing", "direct", "realli",
];

/// Cue words opening a clause's negated part.
pub const NEGATIONS: &[&str] = &["not", "never", "avoid", "without", "no", "stop", "nor"];

/// What a lesson warns about and what it asks for, as index terms.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Direction {
    pub avoid: Vec<String>,
    pub prefer: Vec<String>,
}

fn keep(term: &str) -> bool {
    !GENERIC.contains(&term)
}

impl Direction {
    /// Reads the direction from a lesson's text: in each clause, the words after a negation (or
    /// after "instead of" / "rather than") are what it warns about, the words before are what it
    /// asks for.
    pub fn of(lesson: &str) -> Direction {
        let lower = lesson.to_lowercase().replace("n't", " not").replace("n’t", " not").replace("instead of", " insteadof ").replace("rather than", " insteadof ").replace(". ", "\n");
        let mut d = Direction::default();
        for clause in lower.split(|c: char| ",;:!?()\n".contains(c)) {
            let words: Vec<&str> = clause.split(|c: char| !c.is_alphanumeric() && c != '_' && c != '-').filter(|w| !w.is_empty()).collect();
            // The first cue splits the clause; "insteadof" reverses nothing: before it is asked
            // for, after it warned about, as with a negation.
            let cue = words.iter().position(|w| NEGATIONS.contains(w) || *w == "insteadof");
            let (before, after) = match cue {
                Some(i) => (&words[..i], &words[i + 1..]),
                None => (&words[..], &[][..]),
            };
            for (part, into) in [(before, &mut d.prefer), (after, &mut d.avoid)] {
                for t in text::terms(&part.join(" ")) {
                    if keep(&t) && !into.contains(&t) {
                        into.push(t);
                    }
                }
            }
        }
        // A word on both sides tells neither ("use npm ci, not npm install": npm).
        let both: Vec<String> = d.avoid.iter().filter(|t| d.prefer.contains(t)).cloned().collect();
        d.avoid.retain(|t| !both.contains(t));
        d.prefer.retain(|t| !both.contains(t));
        d
    }

    /// Whether an action with these terms does what the lesson warns about: all of the warned
    /// words, or three of them when there are more. `None` when the lesson warns about nothing
    /// in words.
    pub fn warns(&self, terms: &[String]) -> Option<bool> {
        if self.avoid.is_empty() {
            return None;
        }
        let found = self.avoid.iter().filter(|a| terms.contains(a)).count();
        Some(found >= self.avoid.len().min(3))
    }

    /// The asked-for words in `after` that `before` did not have.
    pub fn brings(&self, before: &[String], after: &[String]) -> Vec<String> {
        self.prefer.iter().filter(|p| after.contains(p) && !before.contains(p)).cloned().collect()
    }
}

pub fn field<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// What a recorded event did, in words: a command, an edit's new text with its file, a prompt;
/// else its recorded intent.
pub fn acted(e: &SessionEvent) -> String {
    let input = e.payload.get("tool_input").unwrap_or(&Value::Null);
    match e.tool_name.as_deref() {
        Some("Bash") => field(input, "command").to_string(),
        Some("Edit" | "MultiEdit" | "Write" | "NotebookEdit") => {
            let mut parts = vec![field(input, "file_path"), field(input, "notebook_path"), field(input, "new_string"), field(input, "content"), field(input, "new_source")];
            if let Some(edits) = input.get("edits").and_then(Value::as_array) {
                parts.extend(edits.iter().map(|x| field(x, "new_string")));
            }
            parts.join("\n")
        }
        _ if e.event == "UserPromptSubmit" => field(&e.payload, "prompt").to_string(),
        _ => e.intent.clone().unwrap_or_default(),
    }
}

/// The kind of call, for "the next call of the same kind": edits are one kind.
pub fn kind(tool: Option<&str>) -> Option<&str> {
    match tool? {
        "Edit" | "MultiEdit" | "Write" | "NotebookEdit" => Some("edit"),
        t => Some(t),
    }
}

/// What the call acts on: a command's program, an edit's file.
fn target(e: &SessionEvent) -> String {
    let input = e.payload.get("tool_input").unwrap_or(&Value::Null);
    match kind(e.tool_name.as_deref()) {
        Some("Bash") => field(input, "command").split_whitespace().find(|t| !t.contains('=')).unwrap_or("").to_string(),
        Some("edit") => [field(input, "file_path"), field(input, "notebook_path")].concat(),
        _ => String::new(),
    }
}

/// Whether `x` redoes `e` (each with the terms of what it did): the same kind acting on the same
/// program or file, and for commands at least one more word in common besides the ones the
/// lesson warns about.
fn redoes(e: &SessionEvent, te: &[String], x: &SessionEvent, tx: &[String], dir: &Direction) -> bool {
    let on = target(e);
    if kind(e.tool_name.as_deref()) != kind(x.tool_name.as_deref()) || on.is_empty() || on != target(x) {
        return false;
    }
    if kind(e.tool_name.as_deref()) == Some("edit") {
        return true;
    }
    let program = text::terms(&on);
    te.iter().any(|t| tx.contains(t) && !program.contains(t) && !dir.avoid.contains(t))
}

/// Whether `x` is about what `e` was about (each with the terms of what it did): an edit of the
/// same file, or a command with a word in common besides `e`'s program (`lodash` in `npm install
/// lodash` and `pnpm add lodash`; not `npm` alone in `npm run build`).
fn same_subject(e: &SessionEvent, te: &[String], x: &SessionEvent, tx: &[String]) -> bool {
    if kind(e.tool_name.as_deref()) == Some("edit") {
        let on = target(e);
        return !on.is_empty() && on == target(x);
    }
    let program = text::terms(&target(e));
    te.iter().any(|t| tx.contains(t) && !program.contains(t))
}

pub fn is_result(e: &SessionEvent) -> bool {
    e.event == "PostToolUse" || e.event == "PostToolUseFailure"
}

pub fn failed(e: &SessionEvent) -> bool {
    e.event == "PostToolUseFailure" || super::outcome::of_tool_call(e, &[]).is_some_and(|o| o.starts_with("failed"))
}

/// Whether a prompt corrects or rejects what was just done.
pub fn is_correction(prompt: &str) -> bool {
    let lower = prompt.trim().to_lowercase().replace('’', "'");
    let head: String = lower.split_whitespace().take(8).collect::<Vec<_>>().join(" ");
    let first = head.split(|c: char| !c.is_alphanumeric() && c != '\'').next().unwrap_or("");
    const OPENERS: &[&str] = &["no", "nope", "nah", "stop", "undo", "revert", "wrong", "wait"];
    const PHRASES: &[&str] = &[
        "don't", "do not", "that's wrong", "that is wrong", "this is wrong", "that's not", "that is not", "not what i", "not like that", "why did you",
        "i said", "i told you", "you shouldn't", "you should not", "shouldn't have", "put it back", "roll back", "rollback", "change it back", "that broke",
        "you broke", "please don't", "never do that",
    ];
    // A phrase counts near the start, as a whole word: "that's wrong" opens a correction, a
    // request that mentions one later is still a request.
    OPENERS.contains(&first) || PHRASES.iter().any(|p| head.find(p).is_some_and(|i| i < 24 && (i == 0 || !head.as_bytes()[i - 1].is_ascii_alphanumeric())))
}

pub fn millis(at: &str) -> Option<i128> {
    parse_timestamp(at).map(|t| t.unix_timestamp_nanos() / 1_000_000)
}

fn gist(s: &str) -> String {
    let one: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() > 80 {
        format!("{}...", one.chars().take(80).collect::<String>())
    } else {
        one
    }
}

/// What became of `lesson`, said at `advised`, given the session's events after it (in log
/// order) and the time now.
pub fn attribute(advised: &SessionEvent, lesson: &Lesson<'_>, after: &[SessionEvent], window: Window, now_ms: i128) -> Attribution {
    let dir = Direction::of(lesson.text);
    let at_prompt = advised.tool_name.is_none();
    // Whether a call (with the terms of what it did) does what the lesson warns about.
    let warns = |x: &SessionEvent, terms: &[String]| -> Option<bool> {
        match lesson.rule {
            Some(rule) => Some(rule(x)),
            None => dir.warns(terms),
        }
    };
    let advised_terms = text::terms(&acted(advised));
    // The user's words are not an action: a prompt does nothing the lesson could warn about.
    let advised_warned = !at_prompt && warns(advised, &advised_terms) == Some(true);
    let start = millis(&advised.at).unwrap_or(now_ms);
    let closes = start + (window.minutes * 60_000.0) as i128;
    let mut followed: Option<String> = None;
    let mut calls = 0;
    // The session-start brief is heard before the user's first prompt: that turn is its window.
    let mut prompts_to_pass = usize::from(advised.event == "SessionStart");
    let settle = |followed: Option<String>, why: &str| match followed {
        Some(evidence) => Attribution { verdict: Verdict::Followed, settled: true, evidence },
        None => Attribution { verdict: Verdict::Unknown, settled: true, evidence: why.to_string() },
    };
    for x in after {
        if millis(&x.at).is_some_and(|t| t > closes) {
            return settle(followed, "nothing told within the window's time");
        }
        match x.event.as_str() {
            "UserPromptSubmit" if prompts_to_pass > 0 => {
                prompts_to_pass -= 1;
                continue;
            }
            "UserPromptSubmit" => {
                let prompt = acted(x);
                return match followed {
                    Some(done) if is_correction(&prompt) => Attribution {
                        verdict: Verdict::Contradicted,
                        settled: true,
                        evidence: format!("{done}; then the user said \"{}\"", gist(&prompt)),
                    },
                    f => settle(f, "the user's next prompt came first"),
                };
            }
            "SessionEnd" => return settle(followed, "the session ended first"),
            _ => {}
        }
        let tool = x.tool_name.as_deref().unwrap_or("");
        let own_result = advised.event == "PreToolUse" && advised.tool_use_id.is_some() && x.tool_use_id == advised.tool_use_id;
        if !is_result(x) || own_result || cairn_proto::tools::looks_around(tool) || followed.is_some() {
            continue;
        }
        calls += 1;
        if calls > window.calls {
            break;
        }
        if !at_prompt && kind(x.tool_name.as_deref()) != kind(advised.tool_name.as_deref()) {
            continue;
        }
        let done = acted(x);
        let terms = text::terms(&done);
        let did = gist(&done);
        let why = match lesson.rule {
            Some(_) => "the rule that put the lesson forward".to_string(),
            None => format!("words it warns about: {}", dir.avoid.join(" ")),
        };
        if warns(x, &terms) == Some(true) {
            return Attribution { verdict: Verdict::Ignored, settled: true, evidence: format!("a later {tool} call `{did}` still does what the lesson warns about ({why})") };
        }
        // After a tool call, only a call about the same thing tells: `npm run build` after
        // `npm install lodash` brings "build", which the lesson names, and follows nothing.
        let brings = if at_prompt || same_subject(advised, &advised_terms, x, &terms) { dir.brings(&advised_terms, &terms) } else { Vec::new() };
        let redo = advised_warned && redoes(advised, &advised_terms, x, &terms, &dir);
        if !brings.is_empty() || redo {
            let mut evidence = format!("a later {tool} call `{did}`");
            if redo {
                evidence.push_str(&format!(" redoes the advised one without what the lesson warns about ({why})"));
            }
            if !brings.is_empty() {
                evidence.push_str(&format!("{} brings what it asks for ({})", if redo { " and" } else { "" }, brings.join(" ")));
            }
            if !at_prompt && failed(advised) && !failed(x) {
                evidence.push_str(", and succeeded where the advised call failed");
            }
            followed = Some(evidence);
        }
    }
    if now_ms > closes {
        return settle(followed, "nothing told within the window");
    }
    match followed {
        Some(evidence) => Attribution { verdict: Verdict::Followed, settled: false, evidence },
        None if calls > window.calls => Attribution { verdict: Verdict::Unknown, settled: true, evidence: format!("nothing told within the next {} calls", window.calls) },
        None => Attribution { verdict: Verdict::Unknown, settled: false, evidence: "waiting for the next calls".into() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const W: Window = Window { calls: 8, minutes: 15.0 };
    const T0: i128 = 1_767_225_600_000; // 2026-01-01T00:00:00Z

    fn at(sec: u32) -> String {
        format!("2026-01-01T00:{:02}:{:02}.000Z", sec / 60, sec % 60)
    }

    fn bash(sec: u32, id: &str, command: &str, ok: bool) -> SessionEvent {
        SessionEvent {
            at: at(sec),
            session_id: "s".into(),
            event: if ok { "PostToolUse" } else { "PostToolUseFailure" }.into(),
            project: "p".into(),
            tool_name: Some("Bash".into()),
            tool_use_id: Some(id.into()),
            intent: Some(command.into()),
            meaning: None,
            payload: json!({"tool_input": {"command": command}}),
            advised: Vec::new(),
            decision: None,
            shadow: Vec::new(),
        }
    }

    fn edit(sec: u32, file: &str, new: &str) -> SessionEvent {
        SessionEvent { tool_name: Some("Edit".into()), event: "PostToolUse".into(), payload: json!({"tool_input": {"file_path": file, "old_string": "x", "new_string": new}}), ..bash(sec, "e", "", true) }
    }

    fn prompt(sec: u32, text: &str) -> SessionEvent {
        SessionEvent { event: "UserPromptSubmit".into(), tool_name: None, tool_use_id: None, payload: json!({"prompt": text}), intent: Some(text.into()), ..bash(sec, "", "", true) }
    }

    fn lesson(text: &str) -> Lesson<'_> {
        Lesson { text, rule: None }
    }

    #[test]
    fn directions_read_from_the_lesson() {
        let d = Direction::of("Use pnpm in this repository, not npm");
        assert_eq!((d.prefer.clone(), d.avoid.clone()), (vec!["pnpm".to_string(), "repositori".into()], vec!["npm".to_string()]));
        assert_eq!(Direction::of("Never force-push to main").avoid, vec!["forc", "push", "main"]);
        let d = Direction::of("Build SQL with bound parameters instead of string concatenation");
        assert_eq!((d.prefer.clone(), d.avoid.clone()), (vec!["build".to_string(), "sql".into(), "bound".into(), "paramet".into()], vec!["string".to_string(), "concaten".into()]));
        assert_eq!(Direction::of("Don't commit .env files").avoid, vec!["commit", "env"]);
        assert!(Direction::of("Always run the linter before committing").avoid.is_empty());
        // A word on both sides says nothing.
        let d = Direction::of("Use npm ci, not npm install");
        assert_eq!((d.prefer, d.avoid), (vec!["ci".to_string()], vec!["instal".to_string()]));
        assert_eq!(Direction::of("").warns(&[]), None);
    }

    #[test]
    fn a_later_call_the_lessons_way_is_followed_until_the_next_prompt() {
        let advised = bash(0, "t1", "npm install lodash", true);
        let l = lesson("Use pnpm in this repository, not npm");
        let after = vec![bash(5, "t2", "git status", true), bash(10, "t3", "pnpm add lodash", true)];
        let a = attribute(&advised, &l, &after, W, T0 + 11_000);
        assert_eq!((a.verdict, a.settled), (Verdict::Followed, false), "{a:?}");
        assert!(a.evidence.contains("pnpm add lodash") && a.evidence.contains("pnpm"), "{}", a.evidence);
        // A plain next prompt settles it; the window's time running out does too.
        let mut more = after.clone();
        more.push(prompt(20, "great, now add a test for the parser"));
        assert!(attribute(&advised, &l, &more, W, T0 + 21_000).settled);
        let a = attribute(&advised, &l, &after, W, T0 + 16 * 60_000);
        assert_eq!((a.verdict, a.settled), (Verdict::Followed, true));
    }

    #[test]
    fn a_later_call_about_something_else_follows_nothing() {
        // "build" is a word of the lesson, but `npm run build` is not about the install advised.
        let advised = bash(0, "t1", "npm install lodash", true);
        let l = lesson("Use the project's own package manager and commit its lockfile; mixing npm, yarn and pnpm in one repository leaves two lockfiles and builds that differ.");
        let a = attribute(&advised, &l, &[bash(5, "t2", "npm install left-pad", true), bash(9, "t3", "npm run build", true)], W, T0 + 10_000);
        assert_eq!(a.verdict, Verdict::Unknown, "{a:?}");
        // The same install the lesson's way is.
        let a = attribute(&advised, &l, &[bash(5, "t2", "pnpm add lodash", true)], W, T0 + 6_000);
        assert_eq!(a.verdict, Verdict::Followed, "{a:?}");
        // After a prompt, what the lesson asks for is told by any call.
        let asked = prompt(0, "add lodash");
        let a = attribute(&asked, &lesson("Use pnpm in this repository, not npm"), &[bash(5, "t2", "pnpm add lodash", true)], W, T0 + 6_000);
        assert_eq!(a.verdict, Verdict::Followed, "{a:?}");
    }

    #[test]
    fn doing_what_it_warns_about_again_is_ignored() {
        let advised = bash(0, "t1", "npm install lodash", true);
        let l = lesson("Use pnpm in this repository, not npm");
        let a = attribute(&advised, &l, &[bash(5, "t2", "npm install left-pad", true)], W, T0 + 6_000);
        assert_eq!((a.verdict, a.settled), (Verdict::Ignored, true), "{a:?}");
        assert!(a.evidence.contains("npm install left-pad"));
        // Only calls of the same kind count for advice on a tool call.
        let a = attribute(&advised, &l, &[edit(5, "README.md", "run npm install")], W, T0 + 6_000);
        assert_eq!(a.verdict, Verdict::Unknown);
    }

    #[test]
    fn a_correction_after_following_is_contradicted() {
        let advised = bash(0, "t1", "npm install lodash", true);
        let l = lesson("Use pnpm in this repository, not npm");
        let after = vec![bash(5, "t2", "pnpm add lodash", true), prompt(30, "No, this package uses npm, undo that")];
        let a = attribute(&advised, &l, &after, W, T0 + 31_000);
        assert_eq!((a.verdict, a.settled), (Verdict::Contradicted, true), "{a:?}");
        assert!(a.evidence.contains("No, this package uses npm"));
        // A correction with nothing done on the lesson's account contradicts nothing.
        let a = attribute(&advised, &l, &[prompt(30, "No, stop")], W, T0 + 31_000);
        assert_eq!((a.verdict, a.settled), (Verdict::Unknown, true));
    }

    #[test]
    fn nothing_telling_is_unknown_and_settles_with_the_window() {
        let advised = bash(0, "t1", "npm install lodash", true);
        let l = lesson("Use pnpm in this repository, not npm");
        let a = attribute(&advised, &l, &[bash(5, "t2", "ls -la", true)], W, T0 + 6_000);
        assert_eq!((a.verdict, a.settled), (Verdict::Unknown, false));
        let many: Vec<SessionEvent> = (1..=9).map(|i| bash(i, &format!("t{i}"), "cargo build", true)).collect();
        assert_eq!(attribute(&advised, &l, &many, W, T0 + 10_000), Attribution { verdict: Verdict::Unknown, settled: true, evidence: "nothing told within the next 8 calls".into() });
        // Calls after the window's time do not count.
        let late = vec![bash(16 * 60, "t9", "pnpm add lodash", true)];
        let a = attribute(&advised, &l, &late, W, T0 + 17 * 60_000);
        assert_eq!((a.verdict, a.settled), (Verdict::Unknown, true));
        // The session's end settles.
        let end = SessionEvent { event: "SessionEnd".into(), ..prompt(9, "") };
        assert!(attribute(&advised, &l, &[end], W, T0 + 10_000).settled);
    }

    #[test]
    fn a_tool_call_that_succeeded_is_not_a_followed_lesson() {
        // Spark's mistake: the next call succeeding says nothing of the lesson.
        let advised = bash(0, "t1", "cargo test", true);
        let l = lesson("Never force-push to main");
        let a = attribute(&advised, &l, &[bash(5, "t2", "cargo test", true), bash(6, "t3", "cargo build", true)], W, T0 + 7_000);
        assert_eq!(a.verdict, Verdict::Unknown);
        // Advice before a call (PreToolUse) reaches the model with that call's result: its own
        // result is not a later call.
        let pre = SessionEvent { event: "PreToolUse".into(), ..bash(0, "t1", "git push --force origin main", true) };
        let own = bash(1, "t1", "git push --force origin main", true);
        assert_eq!(attribute(&pre, &l, &[own], W, T0 + 2_000).verdict, Verdict::Unknown);
    }

    #[test]
    fn a_rule_decides_what_the_lesson_warns_about() {
        let rule = |e: &SessionEvent| acted(e).contains("--force") && !acted(e).contains("--force-with-lease");
        let l = Lesson { text: "Never force-push a shared branch", rule: Some(&rule) };
        let advised = bash(0, "t1", "git push --force origin main", false);
        let a = attribute(&advised, &l, &[bash(5, "t2", "git push --force-with-lease origin main", true)], W, T0 + 6_000);
        assert_eq!(a.verdict, Verdict::Followed, "{a:?}");
        assert!(a.evidence.contains("redoes") && a.evidence.contains("succeeded where the advised call failed"), "{}", a.evidence);
        let a = attribute(&advised, &l, &[bash(5, "t2", "git push --force origin HEAD:main", true)], W, T0 + 6_000);
        assert_eq!(a.verdict, Verdict::Ignored);
        // A different command of the same program is not a redo.
        let a = attribute(&advised, &l, &[bash(5, "t2", "git status", true)], W, T0 + 6_000);
        assert_eq!(a.verdict, Verdict::Unknown);
    }

    #[test]
    fn advice_at_a_prompt_is_judged_on_the_turn_that_follows() {
        let advised = prompt(0, "add lodash to the project");
        let l = lesson("Use pnpm in this repository, not npm");
        // The prompt itself mentions nothing warned; the agent's first acting call decides.
        let a = attribute(&advised, &l, &[bash(3, "t1", "pnpm add lodash", true)], W, T0 + 4_000);
        assert_eq!(a.verdict, Verdict::Followed);
        let a = attribute(&advised, &l, &[bash(3, "t1", "npm i lodash", true)], W, T0 + 4_000);
        assert_eq!(a.verdict, Verdict::Ignored);
        // The session-start brief's window is the first turn, past the user's first prompt.
        let start = SessionEvent { event: "SessionStart".into(), ..prompt(0, "") };
        let a = attribute(&start, &l, &[prompt(2, "add lodash"), bash(3, "t1", "npm i lodash", true)], W, T0 + 4_000);
        assert_eq!(a.verdict, Verdict::Ignored);
    }

    #[test]
    fn edits_are_judged_on_the_same_file() {
        let l = lesson("Build SQL with bound parameters instead of string concatenation");
        let advised = edit(0, "src/db.py", "q = \"SELECT * FROM users WHERE name = '\" + name + \"'\" # string concatenation");
        let a = attribute(&advised, &l, &[edit(4, "src/db.py", "cur.execute(\"SELECT * FROM users WHERE name = %s\", (name,)) # bound parameters")], W, T0 + 5_000);
        assert_eq!(a.verdict, Verdict::Followed, "{a:?}");
    }

    #[test]
    fn corrections_are_told_from_requests() {
        for p in ["No, use npm here", "no.", "Don't do that", "undo that change", "That's wrong, revert it", "why did you switch to pnpm?", "Wait, that broke the build", "I said use npm"] {
            assert!(is_correction(p), "{p}");
        }
        for p in ["now add a test", "great, thanks! next, the parser", "Nothing else for now, commit it", "Notice the failing test and fix it", "what does this function do?"] {
            assert!(!is_correction(p), "{p}");
        }
    }
}
