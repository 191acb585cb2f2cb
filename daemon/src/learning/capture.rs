//! Capture without a model: the lessons a session teaches by itself, read from the session log.
//! Pure; the capture worker ([`crate::app`]) runs it after the hook has answered, passes each
//! text through the quality gate (`super::gate`) and keeps what passes as a candidate.
//!
//! - **From prompts**: a correction or a standing instruction ("no, use pnpm here, not npm",
//!   "don't touch the generated files", "always run the linter before committing", "from now
//!   on ...", "remember that ..."), clause by clause, in normalised words. Questions, plain
//!   one-off requests and chatter give nothing: a clause needs a marker of a rule that lasts
//!   (always, never, don't, from now on, remember, we use, "X, not Y", "instead of").
//! - **From recoveries**: a call fails, and soon after (within a few calls and minutes, in the
//!   same session) a changed call of the same kind succeeds: another program for the same
//!   arguments (`npm test` -> `pnpm test`), a flag or argument added or changed, the same file
//!   at another path. Retrying the same call, look-arounds (`ls`, `grep`, `cat`, ...) and
//!   edits whose text was not found are not recoveries.
//! - **From repeated failures**: a failure's signature (the kind of call, its program and
//!   subcommand, the error's gist without numbers) seen in two or more sessions with no
//!   recovery in any; the worker counts sessions per signature.
//!
//! Error text is redacted by the caller and cut here to its gist.

use cairn_proto::{Memory, Promotion};
use serde_json::Value;

use super::attribution::{acted, failed, field, is_correction, is_result, kind, millis};
use super::gate::LOOKS;
use crate::retrieval::command::{basename, is_assignment};
use crate::store::sessions::SessionEvent;

/// Longest lesson text capture makes.
const MAX_TEXT: usize = 300;
/// Most lessons one prompt gives.
const MAX_PER_PROMPT: usize = 3;

/// Openers said before the instruction itself ("no, ...", "ok so ...", "please ...").
const FILLERS: &[&str] = &[
    "no", "nope", "nah", "ok", "okay", "so", "also", "and", "but", "actually", "hey", "btw", "oh", "wait", "hmm", "please", "pls", "again", "sorry",
    "i said", "i told you", "like i said", "as i said", "as i told you", "one more thing", "and also", "just", "plus", "ugh", "argh", "thats wrong",
    "that's wrong", "that is wrong", "wrong", "you did it again", "again", "should've said earlier", "should have said earlier", "i should have said",
    "ok that works", "that works", "great", "cool", "oops", "careful", "seriously", "honestly", "listen", "dude", "come on", "jeez", "geez",
];

/// Prefixes that mark a standing instruction and are left out of the lesson's words.
const STANDING: &[&str] = &[
    "from now on", "going forward", "in future", "in the future", "for future reference", "for the future", "remember that", "remember to", "rmember to", "remeber to", "remember,", "remember:",
    "note that", "note:", "keep in mind that", "keep in mind", "fyi", "for the record", "just so you know", "heads up", "for next time", "next time",
    "in general", "as a rule", "generally", "rmember that", "remeber that", "rmember", "remeber", "remember",
];

/// Of those, the ones that say the instruction lasts: what they mark is an "always" rule.
const LASTING: &[&str] = &["from now on", "going forward", "in future", "in the future", "for the future", "next time", "for next time", "remember to", "rmember to", "remeber to"];

/// Verbs an instruction opens on: after a [`LASTING`] marker the lesson says "Always ..." (the
/// marker is left out of its words, and what it meant is kept).
const IMPERATIVES: &[&str] = &[
    "use", "run", "put", "keep", "call", "write", "add", "import", "pin", "set", "go", "check", "ask", "stage", "edit", "register", "configure", "install",
    "update", "bump", "commit", "test", "format", "lint", "rebase", "squash", "document", "mention", "tag", "regenerate", "include", "name", "prefix",
    "wrap", "open", "create", "push", "ping", "review", "read", "start", "build", "deploy", "restart", "rerun", "re-run", "make", "prefer", "target",
    "follow", "branch", "merge", "sign", "log", "link", "label", "squash-merge", "place", "leave", "delete", "remove", "clean", "type",
];

/// Words that halt what the agent is doing when said alone before a pause ("stop, don't run the
/// migration"): an interruption, which holds for now.
const HALTS: &[&str] = &["stop", "hold on", "hang on", "halt", "whoa", "woah"];

/// Tags that ask for agreement after an instruction ("never force-push main, ok?"): the
/// instruction is no question for them.
const TAGS: &[&str] = &["ok", "okay", "k", "right", "yeah", "yes", "got it", "alright", "all right", "understood", "clear", "capiche", "capisce", "yea", "kk"];

/// `clause` without a tag that asks for agreement at its end.
fn without_tag(clause: &str) -> &str {
    let trimmed = clause.trim_end();
    let Some(body) = trimmed.strip_suffix('?') else { return clause };
    let lower = body.to_ascii_lowercase();
    TAGS.iter()
        .find_map(|t| {
            let before = lower.strip_suffix(t)?;
            // A word of its own, after a comma or a space: "..., ok?", "... ok?", not "look?".
            (before.ends_with([',', ' ']) && before.trim_end_matches([',', ' ']).split_whitespace().count() >= 2).then(|| body[..before.len()].trim_end_matches([',', ' ', '-']))
        })
        .unwrap_or(clause)
}

/// Endings that make a clause a standing instruction ("..., keep that in mind").
const STANDING_ENDINGS: &[&str] = &["keep that in mind", "keep in mind", "remember that", "for future reference", "from now on", "going forward", "fyi", "for next time"];

/// Words that tie an instruction to this moment only ("not yet", "this time").
const ONE_OFF: &[&str] = &[
    " yet", "this time", "for now", "right now", "just this once", "that approach", "that one", "i want to", "for this pr", "for this one", "this once", "today",
    "on this pr", "this pr only", "on this branch", "when you're done", "when youre done", "when you are done", "tomorrow", "this afternoon", "this morning", "tonight", "is fine for that", "is fine for this", "are fine for that", "are fine for this",
];

/// Openers of a rule that lasts, kept in the lesson's words.
const RULE_OPENERS: &[&str] = &[
    "always", "never", "don't", "do not", "dont", "avoid", "stop", "only ever", "make sure to always", "make sure you always", "we use", "we don't",
    "we do not", "we never", "we always", "we prefer", "this project uses", "this repo uses", "this project", "this repo", "in this repo",
    "in this project", "in this codebase", "here we", "prefer", "no more", "must", "be sure to always", "you must", "you should always",
    "you should never", "whenever", "every time", "each time", "any time", "anytime", "you don't need", "you dont need", "you do not need",
];

/// Words that make an instruction a contrast ("X, not Y", "X instead of Y"): a correction.
const CONTRASTS: &[&str] = &[", not ", " not ", " instead of ", " instead", " rather than ", " over ", " is read-only", " are read-only", " only "];

/// Words that say something fails, in the part after a directive.
const FAILS: &[&str] = &[" chokes", " breaks", " fails", " doesn't work", " does not work", " won't work", " is broken", " skips ", " crashes", " hangs"];

/// Phrases that open chatter, never a lesson.
const CHATTER: &[&str] = &[
    "don't worry", "dont worry", "do not worry", "don't bother", "dont bother", "do not bother", "never mind", "nevermind", "no worries", "no problem", "no rush", "don't mind",
    "no need", "not now", "stop here", "stop there", "stop for now", "always happy", "dont know", "don't know", "do not know", "don't think", "dont think",
    "don't see", "dont see", "never seen", "whenever you're done", "whenever youre done", "whenever you get a chance", "whenever you can",
    "whenever you have time", "whenever you're ready", "whenever youre ready", "whenever you finish", "whenever you're finished", "whenever youre finished",
    "when you're done", "when youre done", "once you're done", "once youre done", "once you finish", "haha", "hahaha", "lol", "lmao", "heh", "hah",
];

/// Openers of a question asked without a question mark.
const QUESTION_OPENERS: &[&str] = &[
    "what", "why", "how", "where", "which", "who", "should", "can", "could", "would", "is", "are", "do you", "does", "did", "will", "shall", "have you",
    "has", "any idea", "is there", "are there",
];

/// Openers of a question said as a statement, when a question word follows ("im not sure why
/// ...", "wondering if ..."): the user wants to understand, not to set a rule. "not sure why, but
/// always ..." is a rule with an aside.
const WONDERING: &[&str] = &[
    "not sure", "im not sure", "i'm not sure", "i am not sure", "wondering", "i wonder", "i was wondering", "im wondering", "i'm wondering", "curious",
    "im curious", "i'm curious", "dont really get", "don't really get", "dont get", "don't get", "dont understand", "don't understand",
    "do not understand", "dont really understand", "don't really understand", "id like to understand", "i'd like to understand",
];

/// Reason words that attach a following sentence to the instruction before it.
const BECAUSE: &[&str] = &["because", "since", "otherwise", "as ", "so that", "so ", "or else", "it ", "they ", "that ", "this "];

/// Words after "no" that do not make it a prohibition ("no idea", "no the tests are in ...").
const NOT_PROHIBITED: &[&str] = &[
    "i", "you", "we", "it", "its", "it's", "that", "that's", "thats", "this", "the", "a", "an", "not", "wait", "idea", "worries", "rush", "problem",
    "need", "thanks", "way", "just", "luck", "clue", "one", "change", "changes", "difference", "longer", "matter", "doubt", "big", "sorry", "ok",
    "okay", "yes", "i'm", "im", "don't", "dont", "more", "there", "what", "why", "how", "actually", "still", "then", "so", "problems", "issue",
];

/// Whether a lowercased clause opens with a prohibition ("no lombok in new code", "no
/// hardcoded english in Text() widgets") rather than with "no" answering or correcting.
fn prohibition(s: &str) -> bool {
    let Some(rest) = s.strip_prefix("no ") else { return false };
    let next = rest.split(|c: char| c.is_whitespace() || c == ',').next().unwrap_or("");
    // "no tests live in tests/unit, not test/" corrects a fact: its verb or contrast says so.
    let fact = [" is ", " are ", " live ", " lives ", " runs ", " run ", " goes ", " go ", " not ", " isn't ", " aren't "].iter().any(|v| format!(" {rest} ").contains(v));
    next.chars().all(|c| c.is_alphanumeric() || c == '-' || c == '_')
        && !next.is_empty()
        && !NOT_PROHIBITED.contains(&next)
        && !super::gate::DIRECTIVES.contains(&next)
        && !fact
}

fn starts_with_word(s: &str, w: &str) -> bool {
    s.starts_with(w) && s[w.len()..].chars().next().is_none_or(|c| !c.is_alphanumeric() && c != '\'')
}

/// Takes the fillers off the front of a lowercased clause; `true` if one of them opened a
/// correction.
fn strip_fillers(mut s: &str) -> (&str, bool) {
    let mut corrected = false;
    loop {
        let before = s;
        for f in FILLERS {
            // "no lombok in new code" is the rule itself, not an opener.
            if *f == "no" && prohibition(s) {
                continue;
            }
            if starts_with_word(s, f) {
                corrected |= matches!(*f, "no" | "nope" | "nah" | "i said" | "i told you" | "like i said" | "as i said" | "as i told you" | "thats wrong" | "that's wrong" | "that is wrong" | "wrong" | "you did it again" | "ugh");
                s = s[f.len()..].trim_start_matches(|c: char| c == ',' || c == ':' || c == '-' || c == '!' || c == '.' || c == '—' || c.is_whitespace());
            }
        }
        if s == before {
            return (s, corrected);
        }
    }
}

/// The prompt in clauses: sentences, lines, and the parts joined by ", and" / "; ".
fn clauses(prompt: &str) -> Vec<String> {
    let mut out = Vec::new();
    let text = prompt.replace(['’', '‘'], "'").replace(['“', '”'], "\"");
    // Pasted lines anywhere (a CI log under "here is the output:") are the tool's words.
    for line in text.lines().filter(|l| !pasted_line(l)) {
        let line = line.trim().trim_start_matches(['-', '*', '•', '>']).trim();
        let mut start = 0;
        let b = line.as_bytes();
        for i in 0..b.len() {
            // A sentence ends at ". ", "! ", "? " or ";" (a dot inside a path or "e.g." does not).
            let end = matches!(b[i], b'!' | b'?' | b';') || (b[i] == b'.' && b.get(i + 1).is_some_and(|c| *c == b' ') && i >= 2 && b[i - 1] != b'.' && !line[..i].ends_with("e.g") && !line[..i].ends_with("i.e"));
            if end && line.is_char_boundary(i + 1) {
                out.push(line[start..=i].to_string());
                start = i + 1;
            }
        }
        out.push(line[start..].to_string());
    }
    let mut parts = Vec::new();
    for c in out {
        let lower = c.to_lowercase();
        // ", and from now on ..." / ", and never ...": a second instruction joined to a request.
        let mut rest = c.as_str();
        let mut lower_rest = lower.as_str();
        while let Some(i) = [", and ", " and then ", ", but ", " but ", " - ", " — ", ": "]
            .iter()
            .filter_map(|sep| lower_rest.find(sep).map(|i| (i, sep.len())))
            .chain(and_then_rule(lower_rest).map(|i| (i, " and ".len())))
            .min()
        {
            let (i, n) = i;
            if !rest.is_char_boundary(i) || !rest.is_char_boundary(i + n) {
                break;
            }
            let left = lower_rest[..i].trim();
            // "remember: ..." keeps its marker with what it marks.
            if STANDING.iter().any(|p| p.trim_end_matches([',', ':']) == left) {
                break;
            }
            parts.push(rest[..i].to_string());
            rest = &rest[i + n..];
            lower_rest = &lower_rest[i + n..];
        }
        parts.push(rest.to_string());
    }
    parts.into_iter().map(|p| p.trim().to_string()).filter(|p| !p.is_empty()).collect()
}

/// Where " and " joins a request to a standing instruction or a rule ("fix the lint and going
/// forward keep ..."), so the two are apart.
fn and_then_rule(lower: &str) -> Option<usize> {
    lower.match_indices(" and ").map(|(i, _)| i).find(|&i| {
        let next = &lower[i + " and ".len()..];
        // "the nightly job is slow and always fails on arm64" says what a thing does: its
        // subject is before " and ", and nothing is asked.
        let does = next.split_whitespace().nth(1).is_some_and(|w| w.len() > 3 && w.ends_with('s'));
        STANDING.iter().any(|p| starts_with_word(next, p.trim_end_matches(',')))
            || (["always", "never", "whenever", "every time"].iter().any(|p| starts_with_word(next, p)) && !does)
    })
}

fn is_question(lower: &str) -> bool {
    let wonders = || {
        WONDERING.iter().any(|w| {
            starts_with_word(lower, w) && {
                let next = lower[w.len()..].split_whitespace().next().unwrap_or("");
                ["why", "if", "whether", "how", "what", "where", "when", "which", "who"].contains(&next)
            }
        })
    };
    lower.trim_end().ends_with('?') || QUESTION_OPENERS.iter().any(|q| starts_with_word(lower, q)) || wonders()
}

/// The lesson a clause of `prompt` (lowercased: what the other clauses say, such as a bug
/// report's "chrome seems fine") states, in normalised words, or `None`.
fn instruction(clause: &str, corrected_before: bool, prompt: &str) -> Option<String> {
    let clause = without_tag(clause);
    let lower = clause.to_lowercase();
    if is_question(&lower) {
        return None;
    }
    let (body, corrected) = strip_fillers(lower.trim());
    let corrected = corrected || corrected_before;
    if CHATTER.iter().any(|c| starts_with_word(body, c)) {
        return None;
    }
    // What the user found out about this moment ("the bug is in parse_date, not format_date",
    // "it was the cache, not the db") or has never met ("weird, never seen that before") is no
    // rule, whatever its contrast or its "never".
    let padded_body = format!(" {body} ");
    if DIAGNOSES.iter().any(|d| starts_with_word(body, d)) || [" never seen", " never heard", " never noticed", " never had that", " never knew", " never happened", " never expected"].iter().any(|n| padded_body.contains(n)) {
        return None;
    }
    let mut rest = body;
    // "stop, don't run the migration" halts the agent where it is: it holds for now unless a
    // standing word says it lasts ("stop. never run migrations by hand").
    let halted = HALTS.iter().find(|h| starts_with_word(rest, h) && (rest.len() == h.len() || rest[h.len()..].trim_start().starts_with([',', '.', '!', '-', '—', ';'])));
    if let Some(h) = halted {
        rest = strip_fillers(rest[h.len()..].trim_start_matches(|c: char| matches!(c, ',' | '.' | '!' | '-' | '—' | ';') || c.is_whitespace())).0;
    }
    let mut standing = false;
    let mut lasting = false;
    // A marker written with its colon needs it: "note: ..." marks a rule, "note the steps"
    // asks to write something down.
    while let Some(p) = STANDING.iter().find(|p| starts_with_word(rest, p.trim_end_matches(',')) || rest.starts_with(*p)) {
        standing = true;
        lasting |= LASTING.contains(p);
        rest = rest[p.len()..].trim_start_matches(|c: char| c == ',' || c == ':' || c == '-' || c.is_whitespace());
        rest = strip_fillers(rest).0;
    }
    if is_question(rest) {
        return None;
    }
    // An ending like "..., keep that in mind" marks it too.
    if let Some(e) = STANDING_ENDINGS.iter().find(|e| rest.trim_end_matches(['.', '!', ' ']).ends_with(*e)) {
        standing = true;
        lasting |= LASTING.contains(e);
        rest = rest.trim_end_matches(['.', '!', ' ']);
        rest = rest[..rest.len() - e.len()].trim_end_matches([',', ' ', '-', ';']);
    }
    if halted.is_some() && !standing && ![" always ", " never ", " ever "].iter().any(|w| format!(" {rest} ").contains(w)) {
        return None;
    }
    // "not yet" ties the instruction to now; a "yet" in the reason after it ("..., the
    // symlinks aren't ignored yet") does not.
    let head = rest.split([',', ';']).next().unwrap_or(rest);
    if ONE_OFF.iter().any(|o| if *o == " yet" { format!(" {head} ").contains(o) } else { format!(" {rest} ").contains(o) }) || super::gate::now_only(rest) || super::gate::time_bound(rest) {
        return None;
    }
    let padded = format!(" {rest} ");
    let names = rest.split_whitespace().any(|w| w.contains(['/', '_', '`']) || w.chars().any(|c| c.is_ascii_digit()) && w.chars().any(|c| c.is_alphanumeric()));
    // A prohibition said plainly counts when it is asked for politely, names something, or
    // corrects ("ugh no lombok in new code please").
    let polite = [" please", " pls", " plz"].iter().any(|p| padded.contains(&format!("{p} ")) || padded.contains(&format!("{p},")));
    // "every time I open X it logs ..." opens like a rule but reports what happens.
    let happens = ["whenever", "every time", "each time", "any time", "anytime"].iter().any(|o| starts_with_word(rest, o)) && super::gate::reports_a_bug_in(rest, Some(prompt));
    // "stop using var" sets a rule; "stop the dev server" asks for something now.
    // ("stop hand editing build.zig.zon", "stop force pushing main": what is done, in a word or
    // two; "stop the running container" names a thing).
    let stop_doing = || {
        let next: Vec<&str> = rest["stop".len()..].split_whitespace().take(2).collect();
        next.first().is_some_and(|w| !["the", "this", "that", "these", "those", "my", "your", "our", "it", "all", "them"].contains(w)) && next.iter().any(|w| w.ends_with("ing"))
    };
    let opens_rule = |o: &&str| starts_with_word(rest, o) && (*o != "stop" || stop_doing());
    let ruled = (RULE_OPENERS.iter().any(opens_rule) && !happens) || (prohibition(rest) && (polite || names || corrected));
    // "use tsx, ts-node chokes on our esm config": what fails, said after the directive, is the
    // other side of a contrast.
    let fails_after = rest.split_once(',').is_some_and(|(_, after)| FAILS.iter().any(|f| format!(" {after} ").contains(f)));
    let contrast = CONTRASTS.iter().any(|c| padded.contains(c)) || fails_after;
    // A correction teaches with a directive ("no, use pnpm"), a plain request does not.
    let directive = ["use ", "run ", "put ", "keep ", "call ", "write ", "add ", "import ", "pin ", "set ", "go through ", "check ", "ask ", "stage ", "edit ", "register ", "configure ", "install "]
        .iter()
        .any(|v| rest.starts_with(v));
    // "that's not quite right" is a complaint, not a lesson: a correction without a directive
    // must name something ("pnpm, not npm"), not open on a pronoun.
    let pronoun = ["that", "that's", "this", "it", "it's", "you", "i", "i'm", "we're", "thats", "its", "we'll", "we need", "we should", "we can"].iter().any(|p| starts_with_word(rest, p));
    // "make the banner always visible" asks for the product to behave so; it is no rule for the agent.
    let product = starts_with_word(rest, "make") && !rest.starts_with("make sure");
    // A rule word inside the clause ("dates are always RFC3339", "dont fetch them").
    let rule_inside = !pronoun
        && !product
        && [" always ", " never ", " dont ", " don't ", " do not ", " must ", " off limits", " off-limits", " not allowed", " forbidden"].iter().any(|m| padded.contains(m))
        && !super::gate::reports_a_bug_in(rest, Some(prompt));
    // A fact of the project that names something ("frontend code is in apps/web").
    let fact = [" is ", " are ", " live ", " lives ", " runs ", " goes ", " go "].iter().any(|m| padded.contains(m));
    let we = starts_with_word(rest, "we") && !pronoun;
    // What something named must have ("anything under include/api/ needs API_EXPORT on it",
    // "every playbook run gets a `--limit`"), and where named things live or come from
    // ("versions live in gradle/libs.versions.toml", "hosts.yml is generated by `make
    // inventory`", "X here, not Y"): rules of the project said as facts.
    // What the user needs now ("stop the dev server, i need port 4000") is no such rule.
    let personal = ["i", "we", "i'll", "we'll"].iter().any(|p| [" need ", " have to ", " must "].iter().any(|m| padded.contains(&format!(" {p}{m}"))));
    let obliged = names && !starts_with_word(rest, "i") && !personal && [" needs ", " need ", " has to ", " have to ", " must ", " gets "].iter().any(|m| padded.contains(m));
    let layout = names && [" live in ", " lives in ", " is generated", " are generated", " on purpose"].iter().any(|m| padded.contains(m));
    let here_not = [" here, not ", " here not "].iter().any(|m| padded.contains(m)) && !pronoun;
    if !(standing || ruled || rule_inside || we || obliged || layout || here_not || (directive && (contrast || corrected)) || (contrast && corrected && !pronoun && !product) || (fact && names && (contrast || corrected || padded.contains(" no ")))) {
        // "its pnpm not npm": the choice is what follows "it's".
        let rest = ["its ", "it's ", "it is "].iter().find_map(|p| rest.strip_prefix(p)).unwrap_or(rest);
        return choice_as_rule(rest, clause, &lower);
    }
    // "yarn, never npm", "no, tabs not spaces": a rule said as a bare choice is written as one
    // ("Use yarn, never npm."), not left a fragment of three words.
    if !standing && let Some(rule) = choice_as_rule(rest, clause, &lower) {
        return Some(rule);
    }
    if rest.split_whitespace().count() < 3 {
        return None;
    }
    // Back to the clause's own casing: the lowercased clause and the original have the same
    // words; take the original from where `rest` starts.
    let offset = rest.as_ptr() as usize - lower.as_ptr() as usize;
    let end = offset + rest.len();
    let mut text = if clause.len() == lower.len() && clause.is_char_boundary(offset) && clause.is_char_boundary(end) { clause[offset..end].to_string() } else { rest.to_string() };
    for (from, to) in [("don't ", "do not "), ("Don't ", "Do not "), ("dont ", "do not "), ("Dont ", "Do not "), ("DON'T ", "DO NOT ")] {
        if text.starts_with(from) {
            text = format!("{to}{}", &text[from.len()..]);
        }
    }
    // "from now on, use conventional commits": the marker said it lasts; the lesson says so.
    if lasting && text.split_whitespace().next().is_some_and(|w| IMPERATIVES.contains(&w.to_lowercase().trim_end_matches([',', ':']))) {
        // Its first letter lower case, unless the word is all capitals ("Run" but not "CI").
        let first_word = text.split_whitespace().next().unwrap_or("");
        if first_word.chars().skip(1).any(|c| c.is_lowercase()) {
            let mut chars = text.chars();
            text = chars.next().into_iter().flat_map(char::to_lowercase).chain(chars).collect();
        }
        text = format!("always {text}");
    }
    let text = text.trim().trim_end_matches(|c: char| c == ',' || c == ';' || c == ':' || c == '!' || c == '.' || c.is_whitespace());
    let text = ["please", "thanks", "thank you", "thx", "ok", "k"].iter().fold(text.to_string(), |t, w| {
        let l = t.to_lowercase();
        if l.ends_with(&format!(" {w}")) || l.ends_with(&format!(", {w}")) { t[..t.len() - w.len()].trim_end_matches([',', ' ']).to_string() } else { t }
    });
    finished(&text)
}

/// A lesson's words as capture writes them: the first letter upper case, single spaces, at most
/// [`MAX_TEXT`] characters, and a full stop; `None` for no text.
fn finished(text: &str) -> Option<String> {
    let mut chars = text.chars();
    let first = chars.next()?;
    // Control characters (a terminal's escapes in a pasted line) are no part of a lesson.
    let mut out: String = first.to_uppercase().chain(chars).filter(|c| c.is_whitespace() || !c.is_control()).collect::<String>().split_whitespace().collect::<Vec<_>>().join(" ");
    if out.chars().count() > MAX_TEXT {
        out = out.chars().take(MAX_TEXT).collect::<String>().trim_end().to_string();
    }
    out.push('.');
    Some(out)
}

/// "Use A, not B." (or ", never B.") for a clause `rest` (a slice of `lower`, the lowercased
/// `clause`) that is a choice in a few words ([`contrast_in_a_few_words`]), in the clause's own
/// casing; `None` otherwise.
fn choice_as_rule(rest: &str, clause: &str, lower: &str) -> Option<String> {
    let (a_end, b_start, b_end, never) = contrast_in_a_few_words(rest)?;
    let offset = rest.as_ptr() as usize - lower.as_ptr() as usize;
    let own = |from: usize, to: usize| clause.get(offset + from..offset + to).filter(|_| clause.len() == lower.len()).unwrap_or(&rest[from..to]).to_string();
    finished(&format!("use {}, {} {}", own(0, a_end).trim_end_matches(','), if never { "never" } else { "not" }, own(b_start, b_end)))
}

/// Joins the sentence that gives a finished lesson's reason to it ("Use X: because Y."), when the
/// whole stays within [`MAX_TEXT`].
fn with_reason(lesson: &mut String, reason: &str) {
    let joined = format!("{}: {reason}.", lesson.strip_suffix('.').unwrap_or(lesson));
    if joined.chars().count() <= MAX_TEXT + 1 {
        *lesson = joined;
    }
}

/// Openers of what was found about the moment at hand: a diagnosis, not a rule.
const DIAGNOSES: &[&str] = &[
    "the bug is", "the bug was", "the problem is", "the problem was", "the issue is", "the issue was", "the culprit is", "the culprit was", "the cause is",
    "the cause was", "the error is", "the error was", "it was", "that was", "this was", "it's the", "its the", "it is the", "turns out",
];

/// Questions that complain about what the agent keeps doing ("why do you keep using npm"), not
/// ask for an answer.
const COMPLAINTS: &[&str] = &[
    "why do you keep", "why are you still", "why do you always", "why did you use", "why are you using", "why is it using", "why you keep", "how come you keep",
    "how come you're still", "how come you are still", "why the heck do you keep", "why the hell do you keep", "why do you still",
];

/// A clause split into its complaint and what follows it, when it opens with a [`COMPLAINTS`]
/// question and goes on after a comma; the clause alone otherwise.
fn complaint_then_rule(clause: &str) -> Vec<String> {
    let lower = clause.to_ascii_lowercase();
    let (body, _) = strip_fillers(lower.trim_start());
    let opens = COMPLAINTS.iter().any(|c| starts_with_word(body, c));
    // What follows must open a rule ("this repo is pnpm", "we use pnpm", "never ..."); "we
    // already know they pass" is the complaint going on.
    let rule_follows = |at: usize| RULE_OPENERS.iter().any(|o| starts_with_word(lower[at + 2..].trim_start(), o));
    match lower.find(", ").filter(|&at| opens && rule_follows(at)) {
        // ASCII lowercasing keeps every byte where it was.
        Some(at) if clause[at + 2..].split_whitespace().count() >= 3 => {
            vec![format!("{}?", clause[..at].trim_end_matches('?')), clause[at + 2..].trim_end_matches('?').to_string()]
        }
        _ => vec![clause.to_string()],
    }
}

/// Words a choice of the moment ends on, not a tool's or a library's name: a colour, a day, a
/// side, an environment, a kind of build or release ("deploy it. staging, not prod" is where to
/// deploy this time).
const OF_THE_MOMENT: &[&str] = &[
    "red", "blue", "green", "yellow", "orange", "purple", "pink", "white", "grey", "gray", "monday", "tuesday", "wednesday", "thursday", "friday",
    "saturday", "sunday", "left", "up", "down", "top", "bottom", "above", "below", "earlier", "later", "tomorrow", "tonight", "first", "second", "third", "last",
    "staging", "stage", "prod", "production", "dev", "development", "local", "remote", "qa", "uat", "preview", "sandbox", "patch", "minor", "major",
    "light", "dark", "mode", "debug", "release", "build", "beta", "alpha", "stable", "nightly", "canary", "old", "new", "latest", "one", "version",
];

/// A version ("v2", "1.4.0") or a region ("us-east-1"): a choice of the moment too.
fn versionlike(w: &str) -> bool {
    let v = w.strip_prefix('v').unwrap_or(w);
    (!v.is_empty() && v.chars().all(|c| c.is_ascii_digit() || c == '.')) || (w.matches('-').count() == 2 && w.ends_with(|c: char| c.is_ascii_digit()))
}

/// A whole clause that is a choice in a few words ("ruff format, not black", "pnpm not npm!"):
/// each side one to three words that name a thing, no article or pronoun (which point at the
/// moment: "the blue one, not the red"), no verb before the first side. Said to a coding agent,
/// the user corrects a tool or a library it chose; the lesson says "Use X, not Y" ("Use X, never
/// Y" for "X, never Y", which the last item returned says). Narrower than
/// the gate's reading of a CLAUDE.md line (`gate::terse_choice`), which also takes "X only" and
/// "No X": said in a prompt, those are as often about the moment.
fn contrast_in_a_few_words(lower: &str) -> Option<(usize, usize, usize, bool)> {
    let body = lower.trim().trim_end_matches(['.', '!', ' ']);
    // "pnpm not npm pls": a please after it is no part of the choice.
    let body = [" pls", " please", " plz", " thanks", " thx"].iter().fold(body, |b, p| b.strip_suffix(p).unwrap_or(b)).trim_end_matches([',', ' ']);
    let never = !body.contains(" not ") && !body.contains(" instead of ") && body.contains(" never ");
    let (a, b) = body
        .split_once(", not ")
        .or_else(|| body.split_once(" not "))
        .or_else(|| body.split_once(" instead of "))
        .or_else(|| body.split_once(", never "))
        .or_else(|| body.split_once(" never "))?;
    let side = |s: &str| {
        let ws: Vec<&str> = s.split_whitespace().map(|w| w.trim_matches(['`', '"'])).collect();
        (1..=3).contains(&ws.len())
            && ws.iter().all(|w| {
                !w.is_empty()
                    && !w.contains('\'')
                    && !["the", "a", "an", "this", "that", "these", "those", "it", "one", "ones", "like", "me", "you", "what", "yet", "now", "here", "there", "really", "quite", "so", "too", "sure", "just", "please", "pls", "at", "all", "again", "is", "are", "do", "does", "did", "working", "done", "even", "exactly", "we", "i", "us", "our", "my", "your", "always", "never", "no", "not", "dont", "don't", "only"].contains(w)
                    && !w.chars().all(|c| c.is_ascii_digit())
            })
            // Its last word names something ("not quite right" names nothing), and not a choice of
            // the moment's own: a colour, a day, a side ("red not blue", "monday not tuesday").
            && ws.last().is_some_and(|w| !super::gate::named_words(w).is_empty() && !OF_THE_MOMENT.contains(w) && !super::gate::MONTHS.contains(w) && !versionlike(w))
    };
    // No verb before the first side: "fix it, not now" asks for something.
    let verb_first = a.split_whitespace().next().is_some_and(|w| super::gate::DIRECTIVES.contains(&w));
    // "page not found", "module not installed", "server not responding": a state, not a second
    // choice.
    let state = b.split_whitespace().count() == 1 && {
        let w = b.trim();
        (w.len() > 4 && (w.ends_with("ed") || w.ends_with("ing"))) || ["found", "set", "ok", "okay", "right", "correct", "fine", "good", "bad", "ready", "valid", "available", "possible", "there", "exist", "exists", "here", "yours", "mine"].contains(&w)
    };
    // Where the first side ends and the second starts and ends, in `lower`.
    let at = body.as_ptr() as usize - lower.as_ptr() as usize;
    (side(a) && side(b) && !verb_first && !state).then(|| (at + a.len(), at + body.len() - b.len(), at + body.len(), never))
}

/// The lessons a user's prompt states (at most [`MAX_PER_PROMPT`]); empty for questions,
/// requests and chatter. A sentence that gives the reason for an instruction ("because ...",
/// "otherwise ...") stays with it.
pub fn from_prompt(prompt: &str) -> Vec<String> {
    // A prompt that opens with pasted output (a compiler's error and its gutter, a stack trace)
    // states no lesson in it, whatever its lines say ("`buf` does not live long enough"): only
    // the user's own lines are read. (Elsewhere a line naming `src/api.rs:40` is the user's.)
    let prompt = super::heard::bounded(prompt, super::heard::MAX_PROMPT_CHARS);
    let prompt = users_words(&prompt);
    let parts = clauses(prompt);
    // "ugh, you did it again." opens a correction as "no, ..." does.
    let corrected = is_correction(prompt) || parts.first().is_some_and(|c| strip_fillers(c.to_lowercase().trim()).1);
    let lower_prompt = prompt.to_lowercase();
    if parts.first().is_some_and(|c| opens_for_now(&c.to_lowercase())) {
        return Vec::new();
    }
    let mut out: Vec<String> = Vec::new();
    let mut last_was_lesson = false;
    // A correction reaches past its opening complaint ("ugh you did it again. rubocop -a, NOT
    // -A"): to the first clause that states something.
    let mut complaint = true;
    // It reaches past one such clause, not a conversation of them.
    let mut complaints = 0;
    // "STOP. do not deploy the api": a halt said as a sentence of its own halts the next one.
    let mut halted = false;
    // "why do you keep using npm, this repo is pnpm": a complaint asked as a question, then
    // what holds, after its comma.
    let parts: Vec<String> = parts.iter().flat_map(|c| complaint_then_rule(c)).collect();
    for c in parts.iter() {
        if HALTS.contains(&c.trim_end_matches(['.', '!', ',', ';', ' ']).to_lowercase().as_str()) {
            // A complaint's opening as much as any other clause that states nothing.
            halted = true;
            complaints += 1;
            last_was_lesson = false;
            continue;
        }
        let joined = if std::mem::take(&mut halted) { format!("stop, {c}") } else { c.clone() };
        // "always... no wait, scratch that. just rerun it": what came before is taken back;
        // what follows in the clause is heard on its own.
        let mut c = joined.as_str();
        // ASCII lowercasing keeps every byte where it was, so the index is the clause's too.
        if let Some(end) = super::gate::retracted_at(&c.to_ascii_lowercase()) {
            out.clear();
            last_was_lesson = false;
            complaint = false;
            c = c.get(end..).unwrap_or("").trim_start_matches([',', '.', ';', ':', '!', ' ', '-']);
            if c.is_empty() {
                continue;
            }
        }
        // "nah dont run php-cs-fixer on this. tollbooth uses pint ...": what points at the
        // moment opens the correction, as a complaint does; the rule comes after it.
        match instruction(c, corrected && complaint, &lower_prompt).filter(|l| !super::gate::points_at_the_moment(l)) {
            Some(lesson) => {
                out.push(lesson);
                last_was_lesson = true;
                complaint = false;
            }
            None => {
                let lower = c.to_lowercase();
                // What the wrong way does ("plain `cmake -B build` wont find the deps") is part
                // of the complaint too.
                complaints += 1;
                complaint &= out.is_empty() && (c.split_whitespace().count() <= 6 || says_it_fails(&lower)) && !is_question(&lower) && complaints <= 1;
                if let Some(prev) = out.last_mut().filter(|_| last_was_lesson && !is_question(&lower) && BECAUSE.iter().any(|b| lower.starts_with(b))) {
                    with_reason(prev, c.trim().trim_end_matches(['.', '!']));
                }
                last_was_lesson = false;
            }
        }
    }
    out.dedup();
    let out = without_restatements(out);
    out.into_iter().take(MAX_PER_PROMPT).collect()
}

/// A prompt's lessons without those that say one of its others again ("no, use pnpm here, not
/// npm. always use pnpm in this repo"): a lesson whose named words are all in another lesson of
/// the prompt that names more is the same rule, and one candidate says it. Lessons that each
/// name something the other does not stay apart.
fn without_restatements(lessons: Vec<String>) -> Vec<String> {
    let named: Vec<_> = lessons.iter().map(|l| super::gate::named_words(l)).collect();
    let restates = |i: usize| {
        (0..lessons.len()).any(|j| {
            j != i && !named[i].is_empty() && named[i].is_subset(&named[j]) && (named[j].len() > named[i].len() || (named[j].len() == named[i].len() && j < i))
        })
    };
    lessons.iter().enumerate().filter(|(i, _)| !restates(*i)).map(|(_, l)| l.clone()).collect()
}

/// The lesson a prompt states in its sentence `best` (the one the prompt model rates highest,
/// [`super::heard`]), when the patterns above found none: the sentence without its openers ("btw",
/// "no,", "from now on"), in its own casing, with the next sentence when that gives the reason
/// ("because ...", "otherwise ..."). `None` for fewer than three words.
pub fn lesson_of(sentences: &[String], best: usize) -> Option<String> {
    let sentence = sentences.get(best)?.trim();
    let lower = sentence.to_ascii_lowercase();
    let (mut rest, _) = strip_fillers(&lower);
    for p in STANDING {
        if starts_with_word(rest, p.trim_end_matches([',', ':'])) {
            rest = rest[p.trim_end_matches([',', ':']).len()..].trim_start_matches(|c: char| c == ',' || c == ':' || c == '-' || c.is_whitespace());
            break;
        }
    }
    // ASCII lowercasing keeps every byte where it was: the same span of the sentence as written.
    let offset = rest.as_ptr() as usize - lower.as_ptr() as usize;
    let text = sentence.get(offset..offset + rest.len()).unwrap_or(rest);
    let text = text.trim().trim_end_matches(|c: char| c == ',' || c == ';' || c == ':' || c == '!' || c == '.' || c.is_whitespace());
    if text.split_whitespace().count() < 3 {
        return None;
    }
    // What the wrong way does, then what to do instead ("plain `cmake -B build` wont find the
    // deps. configure with `-DCMAKE_PREFIX_PATH=...`"): the directive is the lesson, what fails
    // its reason.
    let next = sentences.get(best + 1).map(|n| n.trim().trim_end_matches(['.', '!', ';']));
    let directs = |n: &str| {
        n.split_whitespace().next().map(str::to_lowercase).is_some_and(|w| (super::gate::DIRECTIVES.contains(&w.as_str()) || matches!(w.as_str(), "configure" | "compile")) && !matches!(w.as_str(), "do" | "only"))
    };
    if let Some(next) = next.filter(|n| says_it_fails(rest) && !directs(rest) && directs(n) && !is_question(&n.to_lowercase())) {
        let mut out = finished(next)?;
        with_reason(&mut out, text);
        return Some(out);
    }
    let mut out = finished(text)?;
    if let Some(reason) = sentences.get(best + 1).filter(|n| BECAUSE.iter().any(|b| n.to_lowercase().starts_with(b))) {
        with_reason(&mut out, reason.trim().trim_end_matches(['.', '!', ';']));
    }
    Some(out)
}

/// Whether a lowercased clause says what fails ("plain `cmake -B build` wont find the deps").
fn says_it_fails(lower: &str) -> bool {
    [" wont ", " won't ", " doesn't ", " doesnt ", " does not ", " can't ", " cant ", " cannot ", " fails", " breaks", " isn't ", " isnt "].iter().any(|f| format!(" {lower} ").contains(f))
}

/// Machine output pasted into a prompt: an error's or a log's opening, a file:line place, a line of
/// a compiler's gutter (`  |`, `88 |`, `│`) under which it quotes the code, or a build or test
/// tool's line (a monorepo task's `web:build:` prefix, Gradle's `> Task :app:...`, Ninja's
/// `[37/112]`, `FAILED:`, Kotlin's `e: file:///...`, pytest's `FAILED tests/x.py::t`, Jest's
/// `FAIL src/x.test.ts` and `Tests: 1 failed`, and a monorepo runner's lines with a project's
/// prefix: `web: > nx run web:test`, `api:  FAIL ...`).
static PASTED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"(?i)^\s*(\*\*|error(\[\w+\])?:|\[error\]|warning:|warn:|info:|debug:|notice:|\$\s+\S|fatal:|traceback|exception:|panic|thread '|npm err|caused by:|at\s+[\w.$<>]+\(|[\w\\.]+(exception|error)\b)|[\w./-]+\.[a-z]{1,6}:\d+|\berror(\[\w+\])?:\s|sqlstate\[|[\w./-]*\(\d+,\d+\):\s*(error|warning)\b|^\s*--\s[A-Z][A-Z ]+\s-{3,}|^\s*goroutine \d+ \[|exception in thread|^\s*(✘\s*)?\[(error|vite|plugin:?[\w:-]*)\]|^\s*(\d+\s+)?[|│┃╷╵]|^\s*[\w@./-]+:[\w@./-]+:(\s|$)|^\s*>\s*task\s+:|^\s*\[\d+/\d+\]\s|^\s*(failed|failure|elifecycle|ninja|make(\[\d+\])?):|^\s*build\s+(failed|successful)\b|^\s*e:\s+(file:|/)|^\s*(failed|passed|error)\s+[\w./-]+::|^\s*(pass|fail)\s+[\w./-]+\.(test|spec)\.|^\s*tests?:\s+\d+|^\s*[\w@./-]+:\s+(>\s|(?-i:FAIL|PASS)\s|tests?:|test suites:)").expect("a valid pattern")
});

/// Whether a line is pasted output: a tool's line from its start (a line of the user's that
/// names `src/api.rs:40` further on is theirs).
fn pasted_line(line: &str) -> bool {
    PASTED.find(line).is_some_and(|m| line[..m.start()].trim().is_empty())
}

/// What the user wrote of a prompt. A prompt that opens with pasted output (a build's log, a
/// compiler's error and its gutter) has the user's words after it, if any: only the lines after
/// its last pasted line, since what lies between pasted lines is the paste too (a build tool's
/// summary: `Tasks: 2 successful, 3 total`, `BUILD FAILED in 37s`). Any other prompt is the
/// user's whole.
pub fn users_words(prompt: &str) -> &str {
    let mut lines = prompt.lines().filter(|l| !l.trim().is_empty());
    let (first, second) = (lines.next().unwrap_or(""), lines.next().unwrap_or(""));
    // The command the output came from, or the tool's banner, heads a paste as often as not
    // (`yarn nx run-many -t test` then its output, `-- west build: building application`): a
    // first line that is no sentence, with a pasted line under it, is the paste's.
    let headed = pasted_line(second) && !first.trim_end().ends_with(['.', '!', '?']) && !first.contains(". ");
    if !(pasted_line(first) || headed) {
        return prompt;
    }
    let mut after = prompt.len();
    let mut at = 0;
    for line in prompt.split_inclusive('\n') {
        at += line.len();
        if PASTED.is_match(line.trim_end_matches(['\n', '\r'])) {
            after = at;
        }
    }
    prompt.get(after..).unwrap_or("")
}

/// Whether `sentence` of `prompt` lies in pasted output: the prompt opens with a paste
/// ([`users_words`]) and the sentence is not among the user's words after it. The prompt model
/// reads the whole prompt, paste and all; what it rates highest there is the tool's, not a rule.
pub fn in_paste(prompt: &str, sentence: &str) -> bool {
    let words = users_words(prompt);
    words.len() < prompt.len() && !words.contains(sentence.trim())
}


/// Openers of thanks and praise, which state no lesson however they read.
const THANKS: &[&str] = &["thanks", "thank you", "thx", "ty", "nice", "perfect", "awesome", "lgtm", "looks good", "works now", "that did it", "finally"];

/// Openers of a recap of what was done, which states no lesson however it reads.
const RECAPS: &[&str] = &["this session is being continued", "recap", "to recap", "summary", "quick summary", "so far"];

/// Why the sentence `best` of a prompt, which the prompt model rates as a lesson, is not one
/// after all: a question, chatter or thanks, words that hold it to now ("just this once", "on
/// this branch"), a recap, a rule taken back at or after it, pasted output (it,
/// or a sentence beside it), a bug report, a request for now (a directive with no rule or reason:
/// "fix the typo in ...") or a request scoped to now. These are the patterns' and the gate's own
/// reasons for giving nothing.
pub fn not_a_lesson(sentences: &[String], best: usize) -> Option<&'static str> {
    let sentence = sentences.get(best)?;
    let lower = sentence.to_ascii_lowercase();
    let (rest, _) = strip_fillers(lower.trim());
    let first = sentences.first().map(|s| s.to_ascii_lowercase()).unwrap_or_default();
    let beside = &sentences[best.saturating_sub(1)..(best + 2).min(sentences.len())];
    if is_question(rest) {
        Some("a question")
    } else if CHATTER.iter().chain(THANKS).any(|c| starts_with_word(rest, c)) {
        Some("chatter")
    } else if super::gate::now_only(rest) || opens_for_now(&first) {
        Some("for now only")
    } else if RECAPS.iter().any(|r| starts_with_word(strip_fillers(first.trim()).0, r) || starts_with_word(rest, r)) {
        Some("a recap")
    } else if sentences[best..].iter().any(|s| super::gate::retracted_at(&s.to_ascii_lowercase()).is_some()) {
        Some("taken back")
    } else if beside.iter().any(|s| PASTED.is_match(s)) {
        Some("pasted output")
    } else if super::gate::request_for_now(rest) {
        Some("a request for now")
    } else if super::gate::reports_a_bug_in(rest, Some(&sentences.join(" ").to_ascii_lowercase())) {
        Some("a bug report")
    } else if super::gate::time_bound(rest) {
        Some("for now only")
    } else if DIAGNOSES.iter().any(|d| starts_with_word(rest, d)) {
        Some("what was found about this moment")
    } else {
        None
    }
}

/// Whether a prompt's first sentence opens by holding what follows to now ("for today set the
/// sampling to 2s ... dont commit it"): then no sentence of it states a lesson that lasts.
fn opens_for_now(first: &str) -> bool {
    let (rest, _) = strip_fillers(first.trim());
    super::gate::NOW_ONLY.iter().any(|o| starts_with_word(rest, o.trim()))
}

/// Why a prompt gave nothing, in words (for `cairn review judge`).
pub fn why_nothing(prompt: &str) -> &'static str {
    let lower = prompt.trim().to_lowercase();
    if lower.is_empty() {
        "an empty prompt"
    } else if is_question(&lower) {
        "a question"
    } else if CHATTER.iter().any(|c| starts_with_word(strip_fillers(&lower).0, c)) || lower.split_whitespace().count() < 3 {
        "chatter"
    } else {
        "a request: no correction or standing instruction (always, never, don't, from now on, remember, \"X, not Y\")"
    }
}


/// The words of a command, without environment assignments and `sudo`.
fn command_words(command: &str) -> Vec<&str> {
    command.split_whitespace().skip_while(|w| is_assignment(w)).filter(|w| *w != "sudo").collect()
}

/// Whether a command only looks around.
fn looks_around(e: &SessionEvent) -> bool {
    e.tool_name.as_deref() == Some("Bash") && super::gate::looks_around(&acted(e))
}

/// Words with which an error line names a cause, not only that something failed.
const CAUSES: &[&str] = &[
    "cannot find", "can't find", "could not find", "not found", "no such", "undefined", "missing", "denied", "refused", "unknown", "invalid", "unsupported",
    "unable to", "requires", "required", "conflict", "timed out", "out of memory", "does not exist", "doesn't exist", "mismatch", "expected", "not installed",
    "deadline exceeded", "no module named", "unresolved", "cannot import", "panic:", "rejected", "forbidden", "not allowed", "permission",
];

/// Lines of a tool's progress, a traceback's frames or a gutter: they say what ran, not what
/// went wrong.
fn progress_line(line: &str) -> bool {
    const PROGRESS: &[&str] = &[
        "Compiling ", "Checking ", "Downloading ", "Downloaded ", "Fresh ", "Updating ", "Installing ", "Resolving ", "Fetching ", "Building ", "Running ",
        "Finished ", "Blocking ", "Locking ", "Adding ", "Collecting ", "Using cached", "Traceback (most recent call last)", "File \"", "at ", "^", "|",
        "--> ",
    ];
    PROGRESS.iter().any(|p| line.starts_with(p))
}

/// A line that says an error happened and what it is: `error[E0432]: ...`, `fatal: ...`, `npm
/// ERR! ...`, or an exception's name (`ModuleNotFoundError: No module named 'requests'`).
fn error_line(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    let exception = line.split([':', ' ']).next().is_some_and(|name| name.len() > 5 && (name.ends_with("Error") || name.ends_with("Exception")) && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_'));
    lower.starts_with("error") || lower.starts_with("fatal") || lower.starts_with("npm err!") || exception
}

/// The gist of an error: its first line that says something (not "Exit code N", a tool's
/// progress, a traceback's frames), or its first error line when one comes later (cargo's
/// `error[E0432]` after its "Compiling ..." lines; a traceback's exception, its last such line);
/// when that line names no cause ("error: linking with `cc` failed: exit status: 1"), the first
/// line after it that does ("cannot find -lssl"); each cut. A mark the hook left where it cut a
/// long text (`...[9006 more bytes cut by cairn]`) is a break, as in a prompt (`heard::without_cut_marks`).
pub fn error_gist(error: &str) -> String {
    let cut = |line: &str, max: usize| {
        let one: String = line.split_whitespace().collect::<Vec<_>>().join(" ");
        if one.chars().count() > max { format!("{}...", one.chars().take(max).collect::<String>()) } else { one }
    };
    let error = super::heard::without_cut_marks(error);
    let said: Vec<&str> = error.lines().map(str::trim).filter(|l| !l.is_empty() && !l.to_lowercase().starts_with("exit code") && !l.starts_with("Error: Exit code") && !progress_line(l)).collect();
    let Some(&opening) = said.first() else { return String::new() };
    // A traceback names its cause last.
    // Git says why a commit did nothing after the files it lists ("On branch main ... no
    // changes added to commit").
    let concludes = |l: &&str| ["nothing to commit", "no changes added to commit", "nothing added to commit"].iter().any(|c| l.to_ascii_lowercase().starts_with(c));
    let first_at = if let Some(i) = said.iter().position(concludes) {
        i
    } else if error.contains("Traceback (most recent call last)") {
        said.iter().rposition(|l| error_line(l)).unwrap_or(0)
    } else if error_line(opening) {
        0
    } else {
        said.iter().position(|l| error_line(l)).unwrap_or(0)
    };
    // Rust's panic puts where on one line and what on the next.
    let panicked = said[first_at].contains("panicked at") && said[first_at].ends_with(':');
    let joined = match said.get(first_at + 1).filter(|_| panicked) {
        Some(what) => format!("{} {what}", said[first_at]),
        None => said[first_at].to_string(),
    };
    let first = joined.as_str();
    let names_a_cause = |l: &str| {
        let lower = l.to_lowercase();
        CAUSES.iter().any(|c| lower.contains(c))
    };
    match said[first_at + 1..].iter().find(|l| names_a_cause(l)).filter(|_| !names_a_cause(first)) {
        Some(cause) => format!("{}; {}", cut(first, 60), cut(cause, 80)),
        None => cut(first, 100),
    }
}

/// The error a failed call reports: a failure's `error`, or a response's stderr.
fn error_of(e: &SessionEvent) -> String {
    if let Some(error) = e.payload.get("error").and_then(Value::as_str) {
        return error_gist(error);
    }
    let response = e.payload.get("tool_response").unwrap_or(&Value::Null);
    let text = [field(response, "stderr"), field(response, "error"), field(response, "stdout")].into_iter().find(|s| !s.trim().is_empty()).unwrap_or("");
    error_gist(text)
}

/// The file a file tool acted on.
fn file_of(e: &SessionEvent) -> Option<&str> {
    let input = e.payload.get("tool_input")?;
    [field(input, "file_path"), field(input, "notebook_path"), field(input, "path")].into_iter().find(|p| !p.is_empty())
}

/// A failed call's signature: its kind, its program and subcommand, and the error's gist with
/// numbers, paths and quotes taken out, so the same failure in two sessions has one signature.
pub fn signature(e: &SessionEvent) -> Option<String> {
    if !is_result(e) || !failed(e) {
        return None;
    }
    let what = match e.tool_name.as_deref()? {
        "Bash" => {
            let command = acted(e);
            let words = command_words(&command);
            let program = words.first()?;
            if LOOKS.contains(&basename(program)) {
                return None;
            }
            words.iter().take(2).copied().collect::<Vec<_>>().join(" ")
        }
        tool => format!("{tool} {}", basename(file_of(e)?)),
    };
    let gist = error_of(e);
    if gist.is_empty() {
        return None;
    }
    let shape: String = gist
        .split_whitespace()
        .filter(|w| !w.contains('/') && !w.starts_with(['\'', '"', '`']))
        .map(|w| w.chars().filter(|c| !c.is_ascii_digit()).collect::<String>())
        .collect::<Vec<_>>()
        .join(" ");
    Some(format!("{what} :: {}", shape.to_lowercase()))
}

/// A failed call and the changed call of the same kind that worked after it.
#[derive(Debug, Clone, PartialEq)]
pub struct Recovery {
    /// Indexes into the session's events.
    pub failed: usize,
    pub worked: usize,
    /// The candidate lesson.
    pub text: String,
}

/// How the call changed, when it is a recovery worth a lesson: `Some(lesson)` for another
/// program with the same arguments, a flag or argument added or changed, or the same file at
/// another path.
fn changed(failed_call: &SessionEvent, worked: &SessionEvent, gist: &str) -> Option<String> {
    let why = if gist.is_empty() { String::new() } else { format!(" ({gist})") };
    match kind(failed_call.tool_name.as_deref())? {
        "Bash" => {
            let (a, b) = (acted(failed_call), acted(worked));
            let (wa, wb) = (command_words(&a), command_words(&b));
            // The whole calls, environment included: `X=1 make deploy` after `make deploy` is a
            // recovery (a variable it needs), not the same call again.
            let (ea, eb): (Vec<&str>, Vec<&str>) = (a.split_whitespace().collect(), b.split_whitespace().collect());
            if wa.is_empty() || wb.is_empty() || ea == eb || LOOKS.contains(&basename(wa[0])) || LOOKS.contains(&basename(wb[0])) {
                return None;
            }
            // The lesson names the calls as they ran: a variable or `sudo -u postgres` may be
            // the fix.
            let (full_a, full_b) = (ea.join(" "), eb.join(" "));
            // A step before the failed call (`sudo apt-get install -y libpq-dev && stack build`,
            // `go mod tidy && go test ./...`) or the failed call with more to it (`tsc` -> `tsc
            // -p tsconfig.build.json`) is related however long the step.
            let step_before = eb.len() > ea.len() + 1 && eb[eb.len() - ea.len()..] == ea[..] && matches!(eb[eb.len() - ea.len() - 1], "&&" | ";");
            let grown = eb.len() > ea.len() && eb[..ea.len()] == ea[..];
            let (wa, wb) = if wa == wb { (ea, eb) } else { (wa, wb) };
            // A mistyped program fixed (`gti` -> `git`, "command not found") is a typo; another
            // program (`python` -> `python3`, `npm` -> `pnpm`) is a fact of the machine or the
            // project.
            if gist.contains("not found") && super::gate::mistyped(wa[0], wb[0]) {
                return None;
            }
            let same_program = wa[0] == wb[0] || command_words(&a)[0] == command_words(&b)[0];
            let shared = wa.iter().filter(|w| wb.contains(w)).count();
            let related = if same_program {
                // The same program: most of its words kept, something added or changed.
                shared * 2 >= wa.len().max(wb.len()) && shared >= 1
            } else {
                // Another program for the same arguments (`npm test` -> `pnpm test`).
                wa[1..] == wb[1..] || (wa.len() > 1 && shared * 2 >= wa.len().max(wb.len()))
            };
            if !(related || step_before || grown) {
                return None;
            }
            let cut = |s: &str| if s.chars().count() > 80 { format!("{}...", s.chars().take(80).collect::<String>()) } else { s.to_string() };
            Some(format!("In this project, `{}` fails{why}; `{}` works.", cut(&full_a), cut(&full_b)))
        }
        "edit" | "Read" => {
            let (pa, pb) = (file_of(failed_call)?, file_of(worked)?);
            if pa == pb || basename(pa) != basename(pb) || failed_call.tool_name != worked.tool_name {
                return None;
            }
            Some(format!("In this project, `{pa}` does not exist{why}; the file is `{pb}`."))
        }
        _ => None,
    }
}

/// Recoveries in a session's events (log order): each failed call, then the first later result
/// of the same kind within `calls` results and `minutes`, when it succeeded and changed the call
/// in a way that teaches something. A failed call is used once.
pub fn recoveries(events: &[SessionEvent], calls: usize, minutes: f64) -> Vec<Recovery> {
    let mut out = Vec::new();
    for (i, e) in events.iter().enumerate() {
        if !is_result(e) || !failed(e) {
            continue;
        }
        let Some(t0) = millis(&e.at) else { continue };
        let gist = error_of(e);
        for (j, x) in events.iter().enumerate().skip(i + 1).filter(|(_, x)| is_result(x)).take(calls) {
            if millis(&x.at).is_none_or(|t| (t - t0) as f64 > minutes * 60_000.0) {
                break;
            }
            // A call in another project (the session moved) fixes nothing of this one's.
            if kind(x.tool_name.as_deref()) != kind(e.tool_name.as_deref()) || x.project != e.project {
                continue;
            }
            // A look around in between (`ls`, `cat`) neither recovers nor decides.
            if failed(x) || looks_around(x) {
                continue;
            }
            if let Some(text) = changed(e, x, &gist) {
                out.push(Recovery { failed: i, worked: j, text });
            }
            // The first success of the same kind decides.
            break;
        }
    }
    out
}

/// A moment in words, for a candidate's evidence: what the call did and how it went.
pub fn describe(e: &SessionEvent) -> String {
    let what = acted(e);
    let what: String = what.split_whitespace().collect::<Vec<_>>().join(" ").chars().take(160).collect();
    match (e.tool_name.as_deref(), e.event.as_str()) {
        (_, "UserPromptSubmit") => format!("prompt: {what}"),
        (Some(tool), _) if failed(e) => format!("{tool} `{what}` failed: {}", error_of(e)),
        (Some(tool), _) => format!("{tool} `{what}` worked"),
        (None, event) => format!("{event}: {what}"),
    }
}

/// Whether a text says what a rejected text said, in other inflections, numbers or filler
/// ("Always run the linter before you commit." after "Always run the linter before
/// committing." was rejected; a recovery whose test counts changed): the same index terms (stems,
/// without stop words and bare numbers), and a warning in both or in neither ("never run the
/// linter ..." is the rule turned round, not the one rejected).
pub fn says_the_same(rejected: &str, text: &str) -> bool {
    // "Always" is what capture adds for "from now on": the same rule said to last.
    let set = |t: &str| crate::base::text::terms(t).into_iter().filter(|w| w != "alway" && w != "always").collect::<std::collections::BTreeSet<String>>();
    let (a, b) = (set(rejected), set(text));
    !a.is_empty() && a == b && crate::base::text::warns(rejected) == crate::base::text::warns(text)
}

/// Promotes a candidate the gate called `quality` once `promote_after` of its shadow moments
/// are confirmed; `true` when it did.
pub fn promote_if_due(m: &mut Memory, promote_after: usize, now: &str) -> bool {
    let Some(c) = m.capture.as_mut() else { return false };
    if c.promoted.is_none() && c.verdict == super::gate::Verdict::Quality.as_str() && c.confirmed() >= promote_after {
        c.promoted = Some(Promotion { at: now.to_string(), by: "auto".into() });
        return true;
    }
    false
}

/// Feedback on a candidate at a moment: `used` confirms its shadow moment there, `not-relevant`
/// marks it wrong. Returns whether a shadow moment was there.
pub fn judge_shadow(m: &mut Memory, moment: &SessionEvent, right: bool, promote_after: usize, now: &str) -> bool {
    let Some(c) = m.capture.as_mut() else { return false };
    let same = |s: &&mut cairn_proto::Shadow| s.session == moment.session_id && (s.at == moment.at || (s.tool_use_id.is_some() && s.tool_use_id == moment.tool_use_id));
    let Some(s) = c.shadow.iter_mut().find(same) else { return false };
    s.confirmed = Some(right);
    s.by = Some(if right { "your feedback: used" } else { "your feedback: not relevant" }.into());
    promote_if_due(m, promote_after, now);
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn one(prompt: &str) -> Option<String> {
        let v = from_prompt(prompt);
        assert!(v.len() <= 1, "{prompt}: {v:?}");
        v.into_iter().next()
    }

    #[test]
    fn corrections_and_standing_instructions_become_lessons() {
        assert_eq!(one("no, use pnpm here, not npm").as_deref(), Some("Use pnpm here, not npm."));
        assert_eq!(one("don't touch the generated files in src/gen").as_deref(), Some("Do not touch the generated files in src/gen."));
        assert_eq!(one("always run the linter before committing").as_deref(), Some("Always run the linter before committing."));
        // A marker that says the instruction lasts is kept as "always"; one that says what is so
        // is left out.
        assert_eq!(one("From now on, put new migrations under db/migrations.").as_deref(), Some("Always put new migrations under db/migrations."));
        assert_eq!(one("From now on, use conventional commits.").as_deref(), Some("Always use conventional commits."));
        assert_eq!(one("remember to update the changelog").as_deref(), Some("Always update the changelog."));
        assert_eq!(one("going forward, CI config lives in .ci/, not .github/").as_deref(), Some("CI config lives in .ci/, not .github/."));
        assert_eq!(one("from now on never mock the database").as_deref(), Some("Never mock the database."));
        assert_eq!(one("remember that the staging db is read-only").as_deref(), Some("The staging db is read-only."));
        assert_eq!(
            one("fix the failing test, and from now on never mock the database in integration tests").as_deref(),
            Some("Never mock the database in integration tests.")
        );
        assert_eq!(
            one("Never force-push to main. The deploy bot tags from it, because releases are cut there.").as_deref(),
            Some("Never force-push to main.")
        );
        assert_eq!(one("never force-push to main, because the deploy bot tags from it").as_deref(), Some("Never force-push to main, because the deploy bot tags from it."));
        assert_eq!(one("Never edit vendor/. Otherwise the next sync wipes it").as_deref(), Some("Never edit vendor/: Otherwise the next sync wipes it."));
    }

    #[test]
    fn a_choice_in_a_few_words_and_a_complaint_then_a_fact_are_corrections() {
        assert_eq!(one("ruff format, not black").as_deref(), Some("Use ruff format, not black."));
        assert_eq!(one("pnpm not npm!").as_deref(), Some("Use pnpm, not npm."));
        assert_eq!(one("bun not npm. always").as_deref(), Some("Use bun, not npm."));
        assert_eq!(one("`uv`, not `pip`").as_deref(), Some("Use `uv`, not `pip`."));
        assert_eq!(one("why do you keep using npm, this repo is pnpm").as_deref(), Some("This repo is pnpm."));
        assert_eq!(one("how come you keep using npm, this repo uses pnpm").as_deref(), Some("This repo uses pnpm."));
        // What points at the moment, a number, a verb, or a question is no such choice.
        assert_eq!(one("its pnpm not npm").as_deref(), Some("Use pnpm, not npm."));
        assert_eq!(one("pnpm not npm pls").as_deref(), Some("Use pnpm, not npm."));
        assert_eq!(one("pnpm instead of npm").as_deref(), Some("Use pnpm, not npm."));
        // A rule said as a bare choice is written as a rule, not left a fragment.
        assert_eq!(one("yarn, never npm").as_deref(), Some("Use yarn, never npm."));
        assert_eq!(one("no, tabs not spaces").as_deref(), Some("Use tabs, not spaces."));
        assert_eq!(one("always rebase, never merge").as_deref(), Some("Always rebase, never merge."));
        assert_eq!(one("we use vitest not jest").as_deref(), Some("We use vitest not jest."));
        // What was found about this moment, or never met before, is no rule.
        for p in ["the bug is in parse_date, not format_date", "it was the cache, not the db", "weird, never seen that before"] {
            assert_eq!(one(p), None, "{p}");
        }
        // A change to the product asked for with a contrast is for now.
        assert_eq!(one("no, make the tide chart use the brand blue instead of teal"), None);
        // A state after "not" is no second choice.
        assert_eq!(one("wrong, fix the typo on the 404 page: Pgae not found"), None);
        for p in ["no, page not found", "ugh, module not installed", "no, server not responding"] {
            assert!(!one(p).is_some_and(|l| l.starts_with("Use ")), "{p}");
        }
        // A complaint that goes on is no rule.
        assert_eq!(one("why are you still running the tests, we already know they pass"), None);
        assert_eq!(one("seriously, never use npm in this repo").as_deref(), Some("Never use npm in this repo."));
        for p in ["ok deploy it. staging, not prod", "bump the version. patch not minor", "v2 not v1", "us-east-1 not eu-west-1", "light mode not dark", "debug build, not release", "the blue one, not the red", "red not blue", "monday, not tuesday", "no, not like that", "the second one, not the first", "3 not 4", "not yet", "why do you keep using npm?", "that's not it", "fix it, not now"] {
            assert_eq!(one(p), None, "{p}");
        }
    }

    #[test]
    fn a_rule_said_twice_in_one_prompt_is_one_lesson() {
        assert_eq!(from_prompt("no, use pnpm here, not npm. always use pnpm in this repo"), vec!["Use pnpm here, not npm.".to_string()]);
        // Each names something the other does not: two rules.
        assert_eq!(from_prompt("always use pnpm for installs. never run pnpm dlx for the codegen").len(), 2);
        assert_eq!(from_prompt("never force-push main. always squash-merge PRs").len(), 2);
    }

    #[test]
    fn what_points_at_the_moment_opens_a_correction_and_is_no_lesson() {
        assert_eq!(from_prompt("wait, don't push that"), Vec::<String>::new());
        // "stop" before a pause halts the agent now, and so does "stop" with a thing to stop;
        // "stop" with what to stop doing is a rule.
        assert_eq!(from_prompt("stop, don't run the migration"), Vec::<String>::new());
        assert_eq!(from_prompt("STOP. do not deploy the api"), Vec::<String>::new());
        assert_eq!(from_prompt("hold on - don't merge the branch yet"), Vec::<String>::new());
        assert_eq!(one("stop, never run migrations by hand in this repo").as_deref(), Some("Never run migrations by hand in this repo."));
        assert_eq!(one("stop using var in new javascript files").as_deref(), Some("Stop using var in new javascript files."));
        assert_eq!(from_prompt("stop the dev server, i need port 4000"), Vec::<String>::new());
        assert_eq!(from_prompt("stop the watcher"), Vec::<String>::new());
        assert_eq!(from_prompt("stop the running container"), Vec::<String>::new());
        assert_eq!(one("please stop force pushing main").as_deref(), Some("Stop force pushing main."));
        // The rule after it is left to the prompt model (the daemon reads it there: e2e and the
        // capture bench's batches 3 and 8), never the clause that points.
        let v = from_prompt("nah dont run php-cs-fixer on this. tollbooth uses pint with the pint.json in the root, so its `sail pint --dirty`");
        assert!(!v.iter().any(|l| l.contains("on this")), "{v:?}");
    }

    #[test]
    fn a_tag_asking_for_agreement_leaves_the_instruction_an_instruction() {
        assert_eq!(one("never force-push main, ok?").as_deref(), Some("Never force-push main."));
        assert_eq!(one("always run the migrations through make, right?").as_deref(), Some("Always run the migrations through make."));
        assert_eq!(one("from now on use pnpm for installs got it?").as_deref(), Some("Always use pnpm for installs."));
        // A question is still a question.
        assert_eq!(from_prompt("should we always run the migrations through make?"), Vec::<String>::new());
        assert_eq!(from_prompt("is that ok?"), Vec::<String>::new());
        assert_eq!(without_tag("did you look?"), "did you look?");
    }

    #[test]
    fn a_long_prompt_is_read_at_both_ends_and_in_whole_sentences() {
        // The rule after a long paste is heard; the paste's lines are not lessons.
        let paste: String = (0..100).map(|i| format!("The build output showed line {i} compiled fine. ")).collect();
        let v = from_prompt(&format!("{paste}From now on, always run make lint before committing, because CI rejects unlinted code."));
        assert_eq!(v, vec!["Always run make lint before committing, because CI rejects unlinted code.".to_string()], "{v:?}");
        // A rule said over and over past the bound is one lesson, never one cut mid-word.
        let v = from_prompt(&"no, use bun here, not node. ".repeat(400));
        assert_eq!(v, vec!["Use bun here, not node.".to_string()], "{v:?}");
        assert!(crate::learning::heard::bounded(&"ab. ".repeat(2000), 4000).chars().count() <= 4001);
    }

    #[test]
    fn rules_said_in_passing_after_a_complaint_or_a_request_are_heard() {
        // "whenever" and "every time" open a rule that lasts.
        assert_eq!(one("whenever you add an env var, add it to .env.example too").as_deref(), Some("Whenever you add an env var, add it to .env.example too."));
        // A "yet" in the reason does not make the rule a one-off; in the rule it does.
        assert_eq!(
            one("Don't use `git add -A` in this repo, the bazel-* symlinks aren't in .gitignore yet").as_deref(),
            Some("Do not use `git add -A` in this repo, the bazel-* symlinks aren't in .gitignore yet.")
        );
        assert_eq!(one("don't merge it yet, the review isn't done"), None);
        // The correction reaches past a short complaint.
        assert_eq!(one("ugh you did it again. rubocop -a, NOT -A").as_deref(), Some("Use rubocop -a, not -A."));
        // A rule joined to a request by " and ".
        assert_eq!(one("fix the lint and going forward keep sql keywords uppercase in db/queries").as_deref(), Some("Always keep sql keywords uppercase in db/queries."));
        // A directive, then what fails without it.
        assert_eq!(one("use tsx to run the scripts in scripts/, ts-node chokes on our esm config").as_deref(), Some("Use tsx to run the scripts in scripts/, ts-node chokes on our esm config."));
        // A long request before a statement is not a complaint the correction reaches past.
        assert_eq!(from_prompt("no. please rewrite the importer so it streams the rows. the parser is in src/parse"), Vec::<String>::new());
    }

    #[test]
    fn prohibitions_boundaries_and_what_the_wrong_way_does_are_heard_retractions_and_reports_are_not() {
        // "no X in Y" is a prohibition when asked politely, when it names something or corrects.
        assert_eq!(one("ugh no mocks of the db layer in tests/integration please").as_deref(), Some("No mocks of the db layer in tests/integration."));
        assert_eq!(one("no inline styles in the svelte components pls, tailwind classes only").as_deref(), Some("No inline styles in the svelte components pls, tailwind classes only."));
        assert_eq!(one("no idea what went wrong there, please look again"), None);
        // A boundary said as a fact.
        assert!(one("`terraform apply` and `terraform destroy` are off limits for you, i run those myself").is_some());
        // What the wrong way does is part of the complaint the correction reaches past.
        assert_eq!(
            one("nah, plain `go test ./...` wont see the build tags. configure with `make test-env` first, it exports GOFLAGS").as_deref(),
            Some("Configure with `make test-env` first, it exports GOFLAGS.")
        );
        // Taken back, dated, or a bug report: nothing, or only what follows the retraction.
        assert_eq!(from_prompt("always rebase onto develop... actually no, forget that. just push it"), Vec::<String>::new());
        assert_eq!(one("never use sudo with pip. wait, scratch that, use pipx for tools instead").as_deref(), Some("Use pipx for tools instead."));
        // "forget i said that" after a "hm" takes back what came before.
        assert_eq!(from_prompt("ok from now on run `mix dialyzer` before every commit... hm actually no, its 4 minutes cold. forget i said that"), Vec::<String>::new());
        assert!(from_prompt("don't forget it: never commit the .env.local file").contains(&"Never commit the .env.local file.".to_string()));
        assert_eq!(from_prompt("pin the sdk to 4.2 until the vendor fixes it next month"), Vec::<String>::new());
        assert_eq!(from_prompt("the worker never finishes when the queue has more than 10k jobs, can you have a look"), Vec::<String>::new());
        // A phrase like a retraction inside a sentence takes nothing back; a fact corrected with
        // "no" stays a fact; what a thing does after " and " is not a rule.
        assert!(from_prompt("Always run `cargo fmt` before committing. Clippy warns about too_many_arguments in src/cli.rs, ignore that.").contains(&"Always run `cargo fmt` before committing.".to_string()));
        assert!(from_prompt("always retry the upload with backoff, there is no wait between retries now").iter().any(|l| l.starts_with("Always retry")));
        assert_eq!(one("no tests live in tests/unit, not test/").as_deref(), Some("Tests live in tests/unit, not test/."));
        assert_eq!(from_prompt("the nightly job is slow and always fails on arm64"), Vec::<String>::new());
        // The correction reaches past one opening clause, not several.
        assert_eq!(from_prompt("stop. let me look first. ok run `make build` with -j1"), Vec::<String>::new());
        // "whenever you get a chance" asks for something at some point; it sets no rule.
        assert_eq!(from_prompt("whenever you get a chance can you bump the go toolchain in go.mod"), Vec::<String>::new());
        assert!(one("whenever you add a route, add it to docs/api.md too").is_some());
    }

    #[test]
    fn questions_requests_and_chatter_give_nothing() {
        for p in [
            "should we always use pnpm?",
            "why does the build fail",
            "add a test for parse_date",
            "fix the failing build",
            "thanks!",
            "looks good",
            "ok continue",
            "no rush, but can you add logging to the importer",
            "don't worry about the warnings for now",
            "that's not quite right",
            "hmm, no",
            "never mind",
            "can you always use pnpm from now on?",
            "",
        ] {
            assert_eq!(from_prompt(p), Vec::<String>::new(), "{p}");
        }
        assert_eq!(why_nothing("should we always use pnpm?"), "a question");
        assert!(why_nothing("add a test for parse_date").starts_with("a request"));
    }

    #[test]
    fn rules_said_as_facts_of_named_things_are_heard() {
        // What something named must have, where named things live or come from.
        for p in [
            "rebase done. btw every handler in src/api/ needs the `#[instrument]` attribute, the tracing dashboards key on it",
            "anything that talks to `RedisPool` has to go through cache::with_retry, the cluster fails over weekly",
            "deps live in requirements/base.in and pip-compile writes the .txt, so add the package there",
            "openapi.json is generated from the route annotations by `make spec`. editing it by hand gets overwritten",
            "pytest here, not unittest. the fixtures are in conftest.py",
            "you dont need docker for the unit tests, `cargo test --lib` runs them against sqlite",
            "shared widgets live in packages/widgets; an app never imports from another app's src/",
            "every time i ask for a migration, write the down step too",
        ] {
            assert!(!from_prompt(p).is_empty(), "{p}");
        }
    }

    #[test]
    fn reports_scoped_requests_and_product_asks_are_not_rules() {
        for p in [
            "the sidebar never renders on safari, the console says nothing",
            "every time i open the admin page it logs the same hydration warning",
            "on this PR only skip the e2e job, the staging env is down",
            "nope, the linux runner only is fine for that suite",
            "make the save button always enabled, not just after an edit",
            "i need the `export_csv` endpoint done by tomorrow",
        ] {
            assert_eq!(from_prompt(p), Vec::<String>::new(), "{p}");
        }
    }

    #[test]
    fn some_rules_no_pattern_hears() {
        // What the prompt model hears and these patterns do not (the end-to-end test
        // `a_rule_no_pattern_hears_is_captured_by_the_prompt_model` sends the same prompt).
        assert!(from_prompt(PATTERNLESS_RULE).is_empty());
    }

    /// A rule said as a fact with its reason, in words no pattern of this module hears.
    pub const PATTERNLESS_RULE: &str = "prod migrations go through the release pipeline, running them by hand skips the lock";

    #[test]
    fn what_the_patterns_know_is_no_lesson_stays_none_whatever_the_model_says() {
        let s = |t: &[&str]| t.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        for (sentences, best, why) in [
            (s(&["do we always need a migration for an enum change?"]), 0, "a question"),
            (s(&["whenever youre done with that, bump compileSdk to 35"]), 0, "chatter"),
            (s(&["ok from now on run the linter before every commit.", "hm actually no, forget i said that"]), 0, "taken back"),
            (s(&["/src/Sources/Core/Sync.swift:211:23: error: sending 'self.pending' risks data races"]), 0, "pasted output"),
            (s(&["** (DBConnection.ConnectionError) tcp connect (localhost:5432): connection refused"]), 0, "pasted output"),
            (s(&["Illuminate\\Database\\QueryException", "Column not found: 1054 Unknown column 'closed_at'"]), 1, "pasted output"),
            (s(&["whenever you finish the migration, open a draft PR against develop"]), 0, "chatter"),
            (s(&["ok recap so we're on the same page: you added the column and the tests pass"]), 0, "a recap"),
            (s(&["This session is being continued from a previous conversation.", "Summary:", "Added the json flag to the cli"]), 2, "a recap"),
            (s(&["fix the typo in the vendored parser notes"]), 0, "a request for now"),
            (s(&["nice, swagger finally shows the berth endpoints grouped properly."]), 0, "chatter"),
            (s(&["just this once skip the testcontainers tests, docker desktop is updating"]), 0, "for now only"),
            (s(&["on this branch drop the legacy-cart targets from the ci query"]), 0, "for now only"),
            (s(&["/src/Api/Endpoints/Berth.cs(57,31): error CS8604: Possible null reference argument"]), 0, "pasted output"),
            (s(&["-- TYPE MISMATCH ---------------------------- src/Page/Cart.elm", "The 2nd argument to `map` is not what I expect"]), 1, "pasted output"),
            (s(&["goroutine 17 [running]:", "main.handler(0xc000010000) /src/main.go:42 +0x1d"]), 1, "pasted output"),
        ] {
            assert_eq!(not_a_lesson(&sentences, best), Some(why), "{sentences:?}");
        }
        assert_eq!(not_a_lesson(&s(&[PATTERNLESS_RULE]), 0), None);
        assert_eq!(not_a_lesson(&s(&["there is no staging db yet, integration tests run against docker compose"]), 0), None);
        // A rule about errors is not an error.
        assert_eq!(not_a_lesson(&s(&["error messages in the api go through `AppError`, never a bare string"]), 0), None);
        assert_eq!(not_a_lesson(&s(&["the api docs come out of redoc from openapi.yaml, editing the html does nothing"]), 0), None);
        assert_eq!(not_a_lesson(&s(&["a"]), 4), None);
        assert_eq!(not_a_lesson(&s(&["it was the cache, not the db"]), 0), Some("what was found about this moment"));
    }

    #[test]
    fn a_bug_report_is_read_from_the_whole_prompt() {
        let s = |t: &[&str]| t.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        // What a thing always or never does, where the rest of the prompt troubleshoots it.
        for (sentences, best) in [
            (s(&["the save button never responds on the reports page.", "firefox is fine, edge too"]), 0),
            (s(&["the tiles always render upside down after a zoom.", "100% repro on the demo map"]), 0),
            (s(&["the sync job always writes the totals twice on the first of the month.", "i think the cursor is off by one"]), 0),
            (s(&["the fish always swim into the same wall after a reload.", "every time, right after the save.", "a fresh start is fine"]), 1),
            (s(&["the banner never hides once the cookie is set.", "the staging build is fine though"]), 1),
            (s(&["grafana shows the panel empty every time it refreshes.", "any idea why?"]), 0),
        ] {
            assert_eq!(not_a_lesson(&sentences, best), Some("a bug report"), "{sentences:?}");
        }
        // The same sentences alone, or a rule beside a bug report, stay what they are.
        assert_eq!(not_a_lesson(&s(&["the sync job always writes the totals in cents"]), 0), None);
        assert_eq!(not_a_lesson(&s(&["the tiles render upside down after a zoom, 100% repro.", "always run `make tiles` after touching the projection"]), 1), None);
        assert_eq!(not_a_lesson(&s(&["the staging build is fine without the flag, prod needs `--release`"]), 0), None);
        assert!(from_prompt("the save button never responds on the reports page. firefox is fine, edge too").is_empty());
        assert!(!from_prompt("the export never finishes on big files, i think the stream is buffered. always use `--stream` for exports over 1gb").is_empty());
        assert_eq!(not_a_lesson(&s(&["the nightly export skips some rows.", "im trying to understand why the cursor stops early"]), 1), Some("a bug report"));
    }

    #[test]
    fn pasted_output_dismissals_and_prompts_held_to_now_give_nothing() {
        let s = |t: &[&str]| t.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        // A compiler's error with its gutter: no line of it is the user's.
        let pasted = "error[E0499]: `conn` is borrowed more than once\n  --> src/db.rs:40:9\n   |\n40 |     let a = &mut conn;\n   |             --------- first borrow\n41 |     let b = &mut conn;\n   |             ^^^^^^^^^ second borrow occurs here";
        assert_eq!(from_prompt(pasted), Vec::<String>::new());
        assert_eq!(not_a_lesson(&s(&["│ Error: Error acquiring the state lock", "│ Operation: plan"]), 1), Some("pasted output"));
        assert_eq!(not_a_lesson(&s(&["   |             ^^^^ value used after move"]), 0), Some("pasted output"));
        // The user's own line after a paste is still read, and a line naming a file:line in a
        // prompt that opens in the user's words is theirs.
        assert!(!from_prompt("never unwrap the request body in src/api.rs:40, return a 400 instead").is_empty());
        assert!(!from_prompt(&format!("{pasted}\nnever hold two mutable borrows of the pool connection, take one with `pool.acquire()` per query")).is_empty());
        // A build tool's log, its summary lines between and after the matched ones included.
        for log in [
            "web:build: Failed to compile.\nweb:build: ./src/app/page.tsx:37:24\nweb:build: Type error: Property 'x' does not exist\n\n Tasks:    2 successful, 3 total\nFailed:    web#build",
            "> Task :app:compileDebugKotlin FAILED\ne: file:///home/dev/app/src/Main.kt:48:21 Unresolved reference: foo\n\nFAILURE: Build failed with an exception.\n* What went wrong:\nExecution failed for task ':app:compileDebugKotlin'.\nBUILD FAILED in 37s",
            "[37/112] Building CXX object CMakeFiles/x.dir/src/a.cpp.o\nFAILED: CMakeFiles/x.dir/src/a.cpp.o\nsrc/a.cpp:114:23: error: no matching function for call to 'clamp'\n1 error generated.\nninja: build stopped: subcommand failed.",
            "FAILED tests/test_refund.py::test_partial - AssertionError: never reached\n===== 1 failed, 87 passed in 3.2s =====",
        ] {
            assert_eq!(from_prompt(log), Vec::<String>::new(), "{log}");
        }
        assert_eq!(users_words("> Task :app:lint\nBUILD SUCCESSFUL in 9s\n").trim(), "");
        assert_eq!(users_words("FAILED tests/t.py::test_a - boom\n== 1 failed ==\nPASSED tests/t.py::test_b\nwhy?"), "why?");
        assert_eq!(users_words("web:build: error\nfrom now on run the typecheck before the build"), "from now on run the typecheck before the build");
        assert_eq!(users_words("no paste here: a:b: c"), "no paste here: a:b: c");
        // A paste headed by the command that made it, or by the tool's banner, is the paste's;
        // a sentence above a paste is the user's.
        let nx = "yarn nx run-many -t test --projects=api,web\n\nweb: > nx run web:test\napi:  FAIL  apps/api/src/a.spec.ts\napi: Tests:       1 failed, 211 passed\n\nalways run the api tests alone first";
        assert_eq!(users_words(nx), "\nalways run the api tests alone first");
        assert!(in_paste(nx, "yarn nx run-many -t test --projects=api,web") && !in_paste(nx, "always run the api tests alone first"));
        assert_eq!(users_words("-- west build: building application\n[1/14] Generating include/app_version.h\nninja: build stopped: subcommand failed.").trim(), "");
        let said = "The build fails on arm.\n[1/14] Generating include/app_version.h";
        assert_eq!(users_words(said), said);
        assert!(!in_paste(said, "The build fails on arm."));
        assert_eq!(users_words("tip: fail fast when the config is missing"), "tip: fail fast when the config is missing");
        // "dont bother with it" dismisses; it is no rule.
        assert_eq!(from_prompt("new rule, every module gets a docstring... actually no, half of them are generated. dont bother with it"), Vec::<String>::new());
        // A prompt that opens by holding itself to now.
        assert_eq!(from_prompt("for today point the importer at the staging bucket. dont commit it, ill revert it later"), Vec::<String>::new());
        assert_eq!(not_a_lesson(&s(&["for today point the importer at the staging bucket.", "dont commit the config change"]), 1), Some("for now only"));
        assert_eq!(not_a_lesson(&s(&["in this pr skip the lint fixes in vendor/, that folder goes away soon"]), 0), Some("for now only"));
        // A time of day, tomorrow, or "while I'm at it" hold a prompt to now too.
        for (t, best) in [
            (&["while im profiling the report this afternoon turn on echo on the engine.", "dont commit that, ill ask you to revert it when im done"][..], 1),
            (&["for the training session tomorrow morning seed the demo practice with 30 fake patients and turn off the sms channel"][..], 0),
        ] {
            assert_eq!(not_a_lesson(&s(t), best), Some("for now only"), "{t:?}");
        }
        assert!(from_prompt("tonight dont run the migrations on staging, the backup is still running").is_empty());
        // Questions said as statements, and laughter, state no rule.
        for t in [
            "im not sure why dispensing is a POST on /batches/{id}/dispense and not a POST on /dispensations",
            "dont really get why the settings partition is 32k when we store 200 bytes",
            "wondering if we actually need horizon or if the database queue driver would do",
            "haha the farm just sent a photo of the first boxes, they look really good",
        ] {
            assert!(not_a_lesson(&s(&[t]), 0).is_some(), "{t}");
        }
        // "note:" marks a rule; "note the steps" asks to write something down.
        assert!(from_prompt("Note the steps to reproduce the bug").is_empty());
        assert!(!from_prompt("note: the staging db is read-only, never write to it").is_empty());
        assert_eq!(not_a_lesson(&s(&["not sure why, but always run `make gen` after editing the schema"]), 0), None);
        assert!(!from_prompt("not sure why, but always run `make gen` after editing the schema").is_empty());
        // A lasting rule beside them stays one.
        assert!(!from_prompt("always run `make gen` after editing the schema, the generated files are committed").is_empty());
    }

    #[test]
    fn the_sentence_the_model_picks_is_the_lesson_in_its_own_words() {
        let s = |t: &[&str]| t.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let sentences = s(&["add the late fee column.", "btw deps live in requirements/base.in.", "because pip-compile reads only that file."]);
        assert_eq!(lesson_of(&sentences, 1).as_deref(), Some("Deps live in requirements/base.in: because pip-compile reads only that file."));
        assert_eq!(lesson_of(&s(&["from now on, the `api/` handlers get #[instrument]!"]), 0).as_deref(), Some("The `api/` handlers get #[instrument]."));
        assert_eq!(lesson_of(&s(&["ok thanks"]), 0), None, "too short to be a lesson");
        // What the wrong way does, then what to do: the directive, with what fails as its reason.
        let wrong_way = s(&["plain `cmake -B build` wont find the deps.", "configure with `cmake -B build -DCMAKE_PREFIX_PATH=/opt/deps`"]);
        assert_eq!(lesson_of(&wrong_way, 0).as_deref(), Some("Configure with `cmake -B build -DCMAKE_PREFIX_PATH=/opt/deps`: plain `cmake -B build` wont find the deps."));
        assert_eq!(lesson_of(&s(&["the deploy script fails on arm.", "any idea why?"]), 0).as_deref(), Some("The deploy script fails on arm."));
        assert_eq!(lesson_of(&s(&["a b c"]), 3), None);
        // Any text, in any script, without a panic.
        assert_eq!(lesson_of(&s(&["ça doit être ÉCRIT ainsi, toujours"]), 0).as_deref(), Some("Ça doit être ÉCRIT ainsi, toujours."));
    }

    #[test]
    fn a_prompt_can_state_several_lessons() {
        let v = from_prompt("Always use pnpm. Never commit .env files.\n- don't edit src/gen by hand");
        assert_eq!(v, vec!["Always use pnpm.", "Never commit .env files.", "Do not edit src/gen by hand."]);
    }

    fn at(sec: u32) -> String {
        format!("2026-01-01T00:{:02}:{:02}.000Z", sec / 60, sec % 60)
    }

    fn bash(sec: u32, command: &str, error: Option<&str>) -> SessionEvent {
        let (event, payload) = match error {
            Some(e) => ("PostToolUseFailure", json!({"tool_input": {"command": command}, "error": e})),
            None => ("PostToolUse", json!({"tool_input": {"command": command}, "tool_response": {"stdout": "ok"}})),
        };
        SessionEvent {
            at: at(sec),
            session_id: "s".into(),
            event: event.into(),
            project: "p".into(),
            tool_name: Some("Bash".into()),
            tool_use_id: Some(format!("t{sec}")),
            intent: None,
            meaning: None,
            payload,
            advised: Vec::new(),
            decision: None,
            shadow: Vec::new(),
        }
    }

    fn read(sec: u32, path: &str, error: Option<&str>) -> SessionEvent {
        let mut e = bash(sec, "", error);
        e.tool_name = Some("Read".into());
        e.payload = match error {
            Some(err) => json!({"tool_input": {"file_path": path}, "error": err}),
            None => json!({"tool_input": {"file_path": path}, "tool_response": {"file": {"content": "x"}}}),
        };
        e
    }

    #[test]
    fn a_changed_call_that_works_after_a_failure_is_a_recovery() {
        let s = vec![bash(1, "npm test", Some("Exit code 1\nnpm ERR! This project uses pnpm")), bash(5, "pnpm test", None)];
        let r = recoveries(&s, 5, 10.0);
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].text, "In this project, `npm test` fails (npm ERR! This project uses pnpm); `pnpm test` works.");
        // A flag added.
        let s = vec![bash(1, "cargo test", Some("error: could not find `Cargo.toml`")), bash(2, "ls", None), bash(3, "cargo test --manifest-path rust/Cargo.toml", None)];
        assert_eq!(recoveries(&s, 5, 10.0).len(), 1);
        // A variable the call needs.
        let s = vec![bash(1, "sh tools/deploy.sh", Some("DEPLOY_ENV is not set")), bash(2, "DEPLOY_ENV=staging sh tools/deploy.sh", None)];
        assert_eq!(recoveries(&s, 5, 10.0)[0].text, "In this project, `sh tools/deploy.sh` fails (DEPLOY_ENV is not set); `DEPLOY_ENV=staging sh tools/deploy.sh` works.");
        // The same file at another path.
        let s = vec![read(1, "/repo/src/config.ts", Some("File does not exist.")), read(2, "/repo/packages/app/src/config.ts", None)];
        let r = recoveries(&s, 5, 10.0);
        assert_eq!(r[0].text, "In this project, `/repo/src/config.ts` does not exist (File does not exist.); the file is `/repo/packages/app/src/config.ts`.");
    }

    #[test]
    fn retries_look_arounds_unrelated_calls_and_late_successes_are_not_recoveries() {
        let flaky = vec![bash(1, "cargo test", Some("test timed out")), bash(2, "cargo test", None)];
        assert!(recoveries(&flaky, 5, 10.0).is_empty(), "the same call again teaches nothing");
        let look = vec![bash(1, "ls build", Some("No such file or directory")), bash(2, "ls dist", None)];
        assert!(recoveries(&look, 5, 10.0).is_empty());
        let typo = vec![bash(1, "gti log -3", Some("Exit code 127\n/bin/bash: line 1: gti: command not found")), bash(2, "git log -3", None)];
        assert!(recoveries(&typo, 5, 10.0).is_empty(), "a mistyped program fixed");
        // Another tool that is not there is a fact of the project, however few letters apart.
        let missing = vec![bash(1, "npm test", Some("Exit code 127\n/bin/bash: line 1: npm: command not found")), bash(2, "pnpm test", None)];
        assert_eq!(recoveries(&missing, 5, 10.0).len(), 1, "npm -> pnpm is not a typo");
        let other = vec![bash(1, "npm test", Some("failed")), bash(2, "git status", None)];
        assert!(recoveries(&other, 5, 10.0).is_empty(), "an unrelated command");
        let late = vec![bash(1, "npm test", Some("failed")), bash(60 * 20, "pnpm test", None)];
        assert!(recoveries(&late, 5, 30.0).len() == 1 && recoveries(&late, 5, 10.0).is_empty());
        let far = vec![bash(1, "npm test", Some("failed")), bash(2, "git add -A", None), bash(3, "git diff", None), bash(4, "pnpm test", None)];
        assert!(recoveries(&far, 2, 10.0).is_empty(), "past the window's calls");
        // A step before the call, however long, and a call that grew a switch with its value.
        for (failed, worked) in [("stack build", "sudo apt-get install -y libpq-dev && stack build"), ("tsc", "tsc -p tsconfig.build.json")] {
            let s = vec![bash(1, failed, Some("error: missing")), bash(2, worked, None)];
            assert_eq!(recoveries(&s, 5, 10.0).len(), 1, "{worked}");
        }
        // The calls as they ran: a variable or `sudo -u` is the fix.
        let s = vec![bash(1, "psql -U postgres", Some("Peer authentication failed")), bash(2, "sudo -u postgres psql", None)];
        assert_eq!(recoveries(&s, 5, 10.0)[0].text, "In this project, `psql -U postgres` fails (Peer authentication failed); `sudo -u postgres psql` works.");
        let s = vec![bash(1, "python manage.py runserver", Some("ImproperlyConfigured: set DJANGO_SETTINGS_MODULE")), bash(2, "DJANGO_SETTINGS_MODULE=config.dev python manage.py runserver 0:8001", None)];
        assert!(recoveries(&s, 5, 10.0)[0].text.contains("`DJANGO_SETTINGS_MODULE=config.dev python manage.py runserver 0:8001` works"));
        // A session that moved to another project: that project's call fixes nothing here.
        let mut elsewhere = bash(2, "pnpm lint", None);
        elsewhere.project = "q".into();
        let moved = vec![bash(1, "yarn lint", Some("error Command \"lint\" not found.")), elsewhere];
        assert!(recoveries(&moved, 5, 10.0).is_empty(), "a call in another project");
    }

    #[test]
    fn a_rejected_text_said_again_in_other_words_is_the_same() {
        assert!(says_the_same("Always run the linter before committing.", "Always run the linter before you commit."));
        assert!(says_the_same(
            "In this project, `cargo test` fails (test result: FAILED. 41 passed; 1 failed); `cargo test -- --test-threads=1` works.",
            "In this project, `cargo test` fails (test result: FAILED. 40 passed; 2 failed); `cargo test -- --test-threads=1` works."
        ));
        assert!(says_the_same("Use pnpm here, not npm.", "Always use pnpm here, not npm."));
        // The rule turned round, or another rule, is not the one rejected.
        assert!(!says_the_same("Always run the linter before committing.", "Never run the linter before committing."));
        assert!(!says_the_same("Always run the linter before committing.", "Always run the tests before committing."));
        assert!(!says_the_same("", ""));
    }

    #[test]
    fn a_quality_candidate_promotes_itself_once_its_shadow_is_confirmed_enough() {
        let mut m = crate::exchange::new_memory("c".into(), "p".into(), "Use pnpm here, not npm.".into(), "dependencies".into(), "captured".into(), vec![], String::new());
        let shadow = |at: &str, tool: &str| cairn_proto::Shadow { at: at.into(), session: "s".into(), event: "PostToolUse".into(), tool_use_id: Some(tool.into()), probability: 0.7, confirmed: None, by: None };
        m.capture = Some(cairn_proto::Capture { from: "prompt".into(), verdict: "quality".into(), shadow: vec![shadow(&at(1), "t1"), shadow(&at(2), "t2")], ..Default::default() });
        let first = bash(1, "npm i", None);
        assert!(judge_shadow(&mut m, &first, true, 2, "now"));
        assert!(m.is_candidate(), "one confirmed moment is not enough");
        let mut other = bash(9, "npm i", None);
        other.tool_use_id = Some("t9".into());
        assert!(!judge_shadow(&mut m, &other, true, 2, "now"), "no shadow moment there");
        let mut second = bash(7, "npm ci", None);
        second.tool_use_id = Some("t2".into());
        assert!(judge_shadow(&mut m, &second, true, 2, "now"), "found by its tool call");
        assert!(!m.is_candidate());
        assert_eq!(m.capture.as_ref().unwrap().promoted.as_ref().unwrap().by, "auto");
        // A candidate that needs work is promoted by the user only.
        let mut n = m.clone();
        n.capture.as_mut().unwrap().promoted = None;
        n.capture.as_mut().unwrap().verdict = "needs_work".into();
        assert!(!promote_if_due(&mut n, 2, "now") && n.is_candidate());
    }

    #[test]
    fn a_failure_s_signature_leaves_out_numbers_and_paths() {
        let a = bash(1, "make deploy ENV=prod", Some("Exit code 2\nerror: token expired at 12:31 for /home/a/x"));
        let b = bash(1, "make deploy", Some("error: token expired at 09:02 for /home/b/y"));
        assert_eq!(signature(&a), signature(&b));
        assert!(signature(&a).unwrap().starts_with("make deploy ::"));
        assert_eq!(signature(&bash(1, "ls nope", Some("No such file"))), None, "a look-around");
        assert_eq!(signature(&bash(1, "make deploy", None)), None, "it worked");
        assert_eq!(error_gist("Exit code 128\nfatal: 'origin' does not appear to be a git repository\n"), "fatal: 'origin' does not appear to be a git repository");
        // A first line that says only that it failed takes the cause from a line after it.
        assert_eq!(
            error_gist("error: linking with `cc` failed: exit status: 1\n  |\n  = note: \"cc\" \"-m64\" ...\n  = note: /usr/bin/ld: cannot find -lssl\n"),
            "error: linking with `cc` failed: exit status: 1; = note: /usr/bin/ld: cannot find -lssl"
        );
        assert_eq!(error_gist("npm ERR! code ENOENT\nnpm ERR! missing script: test"), "npm ERR! code ENOENT; npm ERR! missing script: test");
        assert_eq!(error_gist("bash: carg: command not found\nsomething else missing"), "bash: carg: command not found", "the first line names its cause");
        // A traceback names its cause last; a build's progress and a test's name are not it.
        let traceback = "Traceback (most recent call last):\n  File \"app.py\", line 1, in <module>\n    import requests\nModuleNotFoundError: No module named 'requests'";
        assert_eq!(error_gist(traceback), "ModuleNotFoundError: No module named 'requests'");
        let cargo = format!("{}error[E0432]: unresolved import `foo`\n --> src/main.rs:1:5", "   Compiling crate0 v0.1.0 (/home/u/.cargo/registry/src/crate0)\n".repeat(400));
        assert_eq!(error_gist(&cargo), "error[E0432]: unresolved import `foo`");
        assert_eq!(error_gist("--- FAIL: TestFetch (0.30s)\n    fetch_test.go:22: context deadline exceeded\nFAIL"), "--- FAIL: TestFetch (0.30s); fetch_test.go:22: context deadline exceeded");
        // Git's real output, and a panic's message on the line after its place.
        assert_eq!(error_gist("On branch main\nChanges not staged for commit:\n  (use \"git add <file>...\" to update what will be committed)\n\tmodified:   src/parser.rs\n\nno changes added to commit (use \"git add\" and/or \"git commit -a\")"), "no changes added to commit (use \"git add\" and/or \"git commit -a\")");
        assert!(error_gist("thread 'main' panicked at src/seed.rs:12:5:\ncalled `Result::unwrap()` on an `Err` value: missing DATABASE_URL").starts_with("thread 'main' panicked at src/seed.rs:12:5: called `Result::unwrap()`"));
        // Where the hook cut a long text, its mark is left out.
        let long = format!("TypeError: Cannot read properties of undefined (reading 'map') at {}...[9006 more bytes cut by cairn]", "x".repeat(30));
        assert!(!error_gist(&long).contains("cut by cairn"), "{}", error_gist(&long));
    }

    /// Words the reading of a prompt turns on, for the property test to mix with anything.
    fn prompt_part() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        prop_oneof![
            proptest::sample::select(vec!["stop", "STOP.", "stop,", "hold on -", "from now on", "remember to", "going forward,", "never", "always", "no,", ", ok?", " right?", "got it?", "i need", "the", "`x`", "é", "—", "?", ".", ",", " "]).prop_map(str::to_string),
            "\\PC{0,12}",
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::base::fuzz_cases(256)))]

        /// Any prompt, however it mixes the words capture turns on with anything else: lessons
        /// in finished form (a capital or other first letter, a full stop, within the bound),
        /// never a panic.
        #[test]
        fn any_prompt_gives_finished_lessons_or_none(parts in proptest::collection::vec(prompt_part(), 0..12)) {
            let prompt = parts.join(" ");
            for lesson in from_prompt(&prompt) {
                proptest::prop_assert!(lesson.ends_with('.') && lesson.chars().count() <= MAX_TEXT + 1, "{prompt:?} -> {lesson:?}");
            }
        }
    }
}
