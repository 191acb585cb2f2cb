//! The action of a hook event in a few words, for retrieval: no tool metadata, JSON blobs or long
//! paths. Each intent has two forms: `words`, for keyword search (command names, flags and
//! identifiers matter there), and `meaning`, the natural-language form the model embeds (it reads
//! a description better than a command line, and a shorter text embeds faster). Pure; no I/O.

use serde_json::Value;

use crate::base::event::{action_kind, EventKind, HookEvent};
use crate::base::redact;
use crate::retrieval::command;

/// Longest intent kept, in characters.
const MAX_INTENT_CHARS: usize = 400;
/// Longest form given to the model, in characters (~25 tokens).
const MAX_MEANING_CHARS: usize = 160;
/// How much of a change (an edit's new text, a file's content) speaks for it.
const CHANGE_CHARS: usize = 160;
/// How much of what an action puts in place is kept as its deed.
const DEED_CHARS: usize = 4000;

/// What an event is about, in two forms.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Intent {
    /// For keyword search, and shown to people.
    pub words: String,
    /// For the embedding model.
    pub meaning: String,
    /// A shell command's shape (`npm install`), for situations that ran one like it.
    pub command: Option<String>,
    /// What the action puts in place, as it is (the command, an edit's new text, a file's
    /// content, the prompt), without Claude Code's description of it: to tell whether it
    /// already does what a lesson asks (`super::remedy`).
    pub deed: String,
    /// The words an edit takes out (in its old text, in none of its new), as they were written:
    /// to tell whether it removes what a lesson names (`super::remedy`).
    pub taken: Vec<String>,
    /// The kind of action ([`crate::base::event::action_kind`]): learned situations of another
    /// kind are not the same case however many words they share.
    pub kind: String,
}

impl Intent {
    fn same(text: String) -> Intent {
        let meaning = clip(&text, MAX_MEANING_CHARS).trim().to_string();
        Intent { words: text, meaning, ..Intent::default() }
    }

    fn of(words: String, meaning: String) -> Intent {
        let meaning = if meaning.trim().is_empty() { words.clone() } else { meaning };
        Intent { meaning: clip(&meaning, MAX_MEANING_CHARS).trim().to_string(), words, ..Intent::default() }
    }

    pub fn is_empty(&self) -> bool {
        self.words.trim().is_empty()
    }
}

fn field<'a>(input: &'a Value, key: &str) -> &'a str {
    input.get(key).and_then(Value::as_str).unwrap_or("")
}

fn clip(text: &str, max: usize) -> &str {
    match text.char_indices().nth(max) {
        Some((i, _)) => &text[..i],
        None => text,
    }
}

/// Whitespace (newlines included) collapsed to single spaces.
fn squash(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The last few components of a path: what the file is, without the machine's layout.
pub fn path_gist(path: &str) -> String {
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    let keep = parts.len().saturating_sub(3);
    parts[keep..].join("/")
}

fn url_gist(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    clip(rest, 80).to_string()
}

fn join(parts: &[&str]) -> String {
    let words: Vec<&str> = parts.iter().map(|p| p.trim()).filter(|p| !p.is_empty()).collect();
    clip(&squash(&words.join(" ")), MAX_INTENT_CHARS).trim().to_string()
}

/// A command line in a few words: environment assignments dropped, long paths cut to their
/// tail, long quoted arguments clipped, heredoc bodies and later lines left out.
pub fn command_gist(command: &str) -> String {
    let first_lines: Vec<&str> = command.lines().map(str::trim).filter(|l| !l.is_empty()).take(3).collect();
    let mut out: Vec<String> = Vec::new();
    let mut leading = true;
    for line in first_lines {
        for token in line.split_whitespace() {
            // `FOO=bar cmd`: the assignment says nothing about the action.
            if leading && command::is_assignment(token) {
                continue;
            }
            leading = false;
            let t = if token.contains('/') && token.len() > 30 && !token.contains("://") {
                path_gist(token.trim_matches(['"', '\'']))
            } else if token.chars().count() > 40 {
                format!("{}...", clip(token, 40))
            } else {
                token.to_string()
            };
            out.push(t);
        }
        if line.contains("<<") {
            break; // the rest is a heredoc's body
        }
    }
    clip(&out.join(" "), 200).trim().to_string()
}

fn change_gist(text: &str) -> String {
    clip(&squash(text), CHANGE_CHARS).trim().to_string()
}

/// Most words kept of what an edit takes out.
const MAX_REMOVED_WORDS: usize = 8;

/// Words an edit takes out: in the old text, in none of the new (repeats included; the caller
/// keeps each once). The new text alone hides what an edit is about when it is a removal (a
/// timeout dropped from a call, a signature check replaced by a bare decode).
fn removed_words(old: &str, new: &str) -> Vec<String> {
    let words = |t: &str| -> Vec<String> {
        t.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| w.chars().count() >= 3 && !w.chars().all(|c| c.is_ascii_digit())).map(str::to_string).collect()
    };
    let kept: std::collections::HashSet<String> = words(new).iter().map(|w| w.to_lowercase()).collect();
    words(old).into_iter().filter(|w| !kept.contains(&w.to_lowercase())).collect()
}

/// The text arguments of a tool input, for tools cairn has no special reading of.
fn text_arguments(input: &Value, per_value: usize) -> Vec<String> {
    match input {
        Value::Object(map) => map.values().filter_map(Value::as_str).map(|s| change_gist(clip(s, per_value))).collect(),
        _ => Vec::new(),
    }
}

/// How much of each string of an event is read for its intent, redacted before anything is cut
/// shorter: every form of the intent is a prefix of its fields' gists, at most [`DEED_CHARS`].
const READ_CHARS: usize = DEED_CHARS + 1_000;

/// The intent of a tool call or prompt, as retrieval and the decision read it: the action as it
/// is (a secret in it stays in memory, never written; what replaces it, `Variable.get(...)` for
/// a pasted token, is what tells a fix from the mistake).
pub fn intent(event: &HookEvent) -> Intent {
    Intent { kind: action_kind(event.kind.name(), event.tool_name.as_deref()), ..intent_of(event) }
}

/// The intent as the session log and situations keep it, with every secret redacted. The
/// redaction comes first: an intent is cut to length, and a cut through `postgres://admin:pw@db`
/// leaves a password the redaction, which needs the whole URL, no longer sees.
pub fn recorded(event: &HookEvent) -> Intent {
    fn clipped(v: &Value) -> Value {
        match v {
            Value::String(s) => Value::String(clip(s, READ_CHARS).to_string()),
            Value::Array(items) => Value::Array(items.iter().map(clipped).collect()),
            Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), clipped(v))).collect()),
            other => other.clone(),
        }
    }
    let mut tool_input = clipped(&event.tool_input);
    redact::redact_value(&mut tool_input);
    let prompt = event.prompt.as_deref().map(|p| redact::redact_text(clip(p, READ_CHARS)));
    intent(&HookEvent { tool_input, prompt, ..HookEvent::bare(event) })
}

/// A person's text as the log keeps it (`advise TEXT --session`): redacted, then cut as an
/// intent's meaning is.
pub fn recorded_text(text: &str) -> (String, String) {
    let text = redact::redact_text(clip(text, READ_CHARS));
    let meaning = clip(&text, MAX_MEANING_CHARS).to_string();
    (text, meaning)
}

fn intent_of(event: &HookEvent) -> Intent {
    match event.kind {
        EventKind::UserPromptSubmit => {
            let prompt = event.prompt.as_deref().unwrap_or("");
            return Intent { deed: clip(prompt, DEED_CHARS).to_string(), ..Intent::same(join(&[prompt])) };
        }
        EventKind::SessionStart => return Intent::same(format!("start of session ({})", event.source.as_deref().unwrap_or("startup"))),
        _ => {}
    }
    let input = &event.tool_input;
    let tool = event.tool_name.as_deref().unwrap_or("");
    match tool {
        "Bash" => {
            let description = squash(field(input, "description"));
            let gist = command_gist(field(input, "command"));
            // Claude Code describes each command in words: the model reads those best; the start
            // of the command keeps what it acts on (a trigger's category pick needs it: "Clean"
            // alone says nothing of a recursive delete).
            let meaning = if description.is_empty() { gist.clone() } else { format!("{description}: {}", clip(&gist, 60)) };
            let deed = clip(field(input, "command"), DEED_CHARS).to_string();
            Intent { command: command::shape(field(input, "command")), deed, ..Intent::of(join(&[&description, &gist]), meaning) }
        }
        "Edit" | "MultiEdit" | "Write" | "NotebookEdit" => {
            let path = [field(input, "file_path"), field(input, "notebook_path")].concat();
            let mut change = [field(input, "new_string"), field(input, "content"), field(input, "new_source")].concat();
            let mut removed = removed_words(field(input, "old_string"), field(input, "new_string"));
            if let Some(edits) = input.get("edits").and_then(Value::as_array) {
                for e in edits {
                    change.push(' ');
                    change.push_str(field(e, "new_string"));
                    removed.extend(removed_words(field(e, "old_string"), field(e, "new_string")));
                }
            }
            let mut seen = std::collections::HashSet::new();
            removed.retain(|w| seen.insert(w.to_lowercase()));
            removed.truncate(MAX_REMOVED_WORDS);
            let verb = match tool {
                "Write" => "write",
                "NotebookEdit" => "edit notebook",
                _ => "edit",
            };
            let removes = if removed.is_empty() { String::new() } else { format!("(removes {})", removed.join(" ")) };
            let text = join(&[verb, &format!("{}:", path_gist(&path)), &removes, &change_gist(&change)]);
            Intent { deed: clip(&change, DEED_CHARS).to_string(), taken: removed, ..Intent::same(text) }
        }
        "Read" => Intent::same(join(&["read", &path_gist(field(input, "file_path"))])),
        "Grep" => Intent::same(join(&["search code for", field(input, "pattern"), "in", &path_gist(field(input, "path")), field(input, "glob")])),
        "Glob" => Intent::same(join(&["find files", field(input, "pattern"), "in", &path_gist(field(input, "path"))])),
        "WebFetch" => Intent::same(join(&["fetch", &url_gist(field(input, "url")), &change_gist(field(input, "prompt"))])),
        "WebSearch" => Intent::same(join(&["web search:", field(input, "query")])),
        "Task" => {
            let description = squash(field(input, "description"));
            let prompt = change_gist(field(input, "prompt"));
            Intent::of(join(&[&description, &prompt]), join(&[&description, clip(&prompt, 100)]))
        }
        "TodoWrite" => {
            let todos: Vec<&str> = input.get("todos").and_then(Value::as_array).into_iter().flatten().filter_map(|t| t.get("content").and_then(Value::as_str)).collect();
            Intent::same(join(&["plan:", &change_gist(&todos.join("; "))]))
        }
        "SlashCommand" => Intent::same(join(&["run", field(input, "command")])),
        _ => {
            // MCP tools (mcp__server__tool) and anything new: the tool's words and its text arguments.
            let name = tool.trim_start_matches("mcp__").replace("__", " ").replace('_', " ");
            let mut parts = vec![name];
            parts.extend(text_arguments(input, 120));
            Intent::same(join(&parts.iter().map(String::as_str).collect::<Vec<_>>()))
        }
    }
}

/// The raw tool input as text, for trigger rules: every string in it (the command, the file
/// path, the content, the URL, ...), one per line, bounded.
pub fn raw_input(event: &HookEvent, max_chars: usize) -> String {
    fn collect(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) => out.push(s.clone()),
            Value::Array(items) => items.iter().for_each(|i| collect(i, out)),
            Value::Object(map) => map.values().for_each(|i| collect(i, out)),
            _ => {}
        }
    }
    let mut parts = Vec::new();
    if let Some(p) = &event.prompt {
        parts.push(p.clone());
    }
    // A command is read as it acts: text it only searches, prints or records is no action
    // (`grep -rn 'DROP TABLE' migrations/`).
    let mut input = event.tool_input.clone();
    if event.tool_name.as_deref() == Some("Bash")
        && let Some(Value::String(command)) = input.get_mut("command")
    {
        *command = super::salience::acting(command);
    }
    // An edit is read as what it leaves: the text it replaces is gone after it. A pattern found
    // only there (a string-built query turned into a bound one, a key literal turned into an
    // environment lookup) is what the edit takes out, not what it does.
    drop_replaced(&mut input);
    collect(&input, &mut parts);
    clip(&parts.join("\n"), max_chars).to_string()
}

/// Takes the replaced text (`old_string`) out of an edit's input, and out of each edit of a
/// multi-edit.
fn drop_replaced(input: &mut Value) {
    let Value::Object(map) = input else { return };
    map.remove("old_string");
    if let Some(Value::Array(edits)) = map.get_mut("edits") {
        for edit in edits {
            if let Value::Object(e) = edit {
                e.remove("old_string");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ev(tool: &str, input: Value) -> HookEvent {
        HookEvent::from_payload(&json!({"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input}))
    }

    fn fixture(name: &str) -> HookEvent {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures/claude-code-hooks").join(name);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        HookEvent::from_payload(&serde_json::from_str(&text).unwrap())
    }

    #[test]
    fn bash_reads_description_and_command() {
        let i = intent(&ev("Bash", json!({"command": "pwd", "description": "Print working directory"})));
        assert_eq!(i.words, "Print working directory pwd");
        assert_eq!(i.meaning, "Print working directory: pwd");
        let i = intent(&ev("Bash", json!({"command": "git push --force origin main"})));
        assert_eq!((i.words.as_str(), i.meaning.as_str()), ("git push --force origin main", "git push --force origin main"));
    }

    #[test]
    fn commands_lose_noise_but_keep_their_action() {
        let g = command_gist("RUST_LOG=debug DATABASE_URL=postgres://x cargo test --workspace -- --test-threads=1");
        assert_eq!(g, "cargo test --workspace -- --test-threads=1");
        let g = command_gist("rm -rf /home/dev/work/shop-api/target/debug/build/very-long-name-1234");
        assert_eq!(g, "rm -rf debug/build/very-long-name-1234");
        let g = command_gist("cat > notes.md <<'EOF'\nsecret plans\nmore\nEOF");
        assert_eq!(g, "cat > notes.md <<'EOF'", "a heredoc's body is not the action");
        let long = format!("echo '{}'", "x".repeat(200));
        assert!(command_gist(&long).chars().count() < 60);
    }

    #[test]
    fn edits_say_which_file_and_what_changes() {
        let i = intent(&ev("Edit", json!({"file_path": "/home/u/work/app/src/auth/token.rs", "old_string": "a", "new_string": "fn validate()\n{}"})));
        assert_eq!(i.words, "edit src/auth/token.rs: fn validate() {}");
        let i = intent(&ev("MultiEdit", json!({"file_path": "/a/b/c.py", "edits": [{"old_string": "x", "new_string": "retry(3)"}, {"old_string": "y", "new_string": "timeout=5"}]})));
        assert_eq!(i.words, "edit a/b/c.py: retry(3) timeout=5");
        let i = intent(&ev("Write", json!({"file_path": "/r/.env", "content": "API_KEY=abc"})));
        assert_eq!(i.words, "write r/.env: API_KEY=abc", "retrieval reads the action as it is");
        assert_eq!(recorded(&ev("Write", json!({"file_path": "/r/.env", "content": "API_KEY=abc"}))).words, "write r/.env: API_KEY=[REDACTED]", "the log keeps it redacted");
        let i = intent(&ev("NotebookEdit", json!({"notebook_path": "/n/eda.ipynb", "new_source": "df.describe()"})));
        assert_eq!(i.words, "edit notebook n/eda.ipynb: df.describe()");
    }

    #[test]
    fn an_edit_says_what_it_takes_out() {
        // A removal is invisible in the new text alone.
        let i = intent(&ev("Edit", json!({"file_path": "/w/src/clients/shipping.ts",
            "old_string": "const res = await http.get(url, { params, timeout: 5000 });",
            "new_string": "const res = await http.get(url, { params });"})));
        assert_eq!(i.words, "edit src/clients/shipping.ts: (removes timeout) const res = await http.get(url, { params });");
        assert!(i.meaning.contains("removes timeout"), "{}", i.meaning);
        assert_eq!(i.taken, vec!["timeout"], "kept as written, for the decision's takes_out");
        // Across the edits of a MultiEdit, each word once, case aside; short words and numbers
        // say nothing.
        let i = intent(&ev("MultiEdit", json!({"file_path": "/a/b/c.py", "edits": [
            {"old_string": "verify_jwt(token, KEY)", "new_string": "decode(token)"},
            {"old_string": "Verify_JWT(x) or 42", "new_string": "x"}]})));
        assert_eq!(i.words, "edit a/b/c.py: (removes verify_jwt KEY) decode(token) x");
        assert_eq!(i.taken, vec!["verify_jwt", "KEY"]);
        // Nothing taken out, nothing said.
        let i = intent(&ev("Edit", json!({"file_path": "/a/x.rs", "old_string": "retry(3)", "new_string": "retry(3).await"})));
        assert_eq!(i.words, "edit a/x.rs: retry(3).await");
        assert!(i.taken.is_empty());
    }

    #[test]
    fn reads_searches_and_web() {
        assert_eq!(intent(&ev("Read", json!({"file_path": "/a/b/c/d/e.md"}))).words, "read c/d/e.md");
        assert_eq!(intent(&ev("Grep", json!({"pattern": "TODO", "path": "/x/src", "glob": "*.rs"}))).words, "search code for TODO in x/src *.rs");
        assert_eq!(intent(&ev("Glob", json!({"pattern": "**/*.tf"}))).words, "find files **/*.tf in");
        assert_eq!(intent(&ev("WebFetch", json!({"url": "https://docs.rs/sled?x=1", "prompt": "flush"}))).words, "fetch docs.rs/sled flush");
        assert_eq!(intent(&ev("WebSearch", json!({"query": "tokio select cancel safety"}))).words, "web search: tokio select cancel safety");
    }

    #[test]
    fn tasks_todos_and_mcp_tools() {
        let i = intent(&ev("Task", json!({"description": "Audit auth", "prompt": "Look at every route and check the session handling", "subagent_type": "general-purpose"})));
        assert_eq!(i.words, "Audit auth Look at every route and check the session handling");
        assert!(intent(&ev("TodoWrite", json!({"todos": [{"content": "Add index", "status": "pending"}]}))).words.contains("Add index"));
        let i = intent(&ev("mcp__github__create_issue", json!({"title": "Crash on start", "n": 3})));
        assert_eq!(i.words, "github create issue Crash on start");
    }

    #[test]
    fn prompts_are_their_own_intent() {
        let e = HookEvent::from_payload(&json!({"hook_event_name": "UserPromptSubmit", "prompt": "  fix the\nlogin bug "}));
        assert_eq!(intent(&e).words, "fix the login bug");
    }

    #[test]
    fn long_inputs_are_clipped() {
        let cmd = "x ".repeat(5000);
        let i = intent(&ev("Bash", json!({"command": cmd, "description": "d ".repeat(500)})));
        assert!(i.words.chars().count() <= MAX_INTENT_CHARS);
        assert!(i.meaning.chars().count() <= MAX_MEANING_CHARS);
    }

    #[test]
    fn real_payloads_give_readable_intents() {
        // Captured from real Claude Code runs (../shared/fixtures/claude-code-hooks).
        let cases = [
            ("PreToolUse.Bash.json", "pwd"),
            ("PreToolUse.Edit.json", "edit"),
            ("PreToolUse.Write.json", "write"),
            ("PreToolUse.Read.json", "read"),
            ("PreToolUse.Grep.json", "search code for"),
            ("PreToolUse.Glob.json", "find files"),
            ("PreToolUse.WebFetch.json", "fetch"),
            ("PreToolUse.WebSearch.json", "web search"),
            ("PreToolUse.Task.json", ""),
            ("PreToolUse.NotebookEdit.json", "edit notebook"),
            ("PreToolUse.TodoWrite.json", "plan:"),
            ("UserPromptSubmit.json", ""),
        ];
        for (file, expected) in cases {
            let i = intent(&fixture(file));
            assert!(!i.is_empty(), "{file}: empty intent");
            assert!(i.words.contains(expected), "{file}: {:?} lacks {expected:?}", i.words);
            assert!(!i.words.contains('{') && !i.words.contains("\"tool_input\""), "{file}: JSON in the intent: {}", i.words);
            assert!(!i.words.contains("/Users/") && !i.words.contains("/home/"), "{file}: a long path in the intent: {}", i.words);
        }
    }

    #[test]
    fn raw_input_holds_every_string() {
        let e = ev("Write", json!({"file_path": "/r/.env", "content": "API_KEY=abc", "nested": {"list": ["x", 1]}}));
        let raw = raw_input(&e, 10_000);
        for part in ["/r/.env", "API_KEY=abc", "x"] {
            assert!(raw.contains(part), "{raw}");
        }
        assert_eq!(raw_input(&e, 3).chars().count(), 3);
    }

    #[test]
    fn trigger_rules_see_what_an_edit_leaves_not_what_it_replaces() {
        let e = ev("Edit", json!({"file_path": "a.py", "old_string": "WHERE x = '%s'", "new_string": "WHERE x = %s"}));
        let raw = raw_input(&e, 10_000);
        assert!(raw.contains("WHERE x = %s") && !raw.contains("'%s'"), "{raw}");
        let m = ev("MultiEdit", json!({"file_path": "a.py", "edits": [{"old_string": "API_KEY = 'sk_FAKE'", "new_string": "API_KEY = os.environ['API_KEY']"}]}));
        let raw = raw_input(&m, 10_000);
        assert!(raw.contains("os.environ") && !raw.contains("sk_FAKE"), "{raw}");
        // A command that mentions old_string is a command.
        let b = ev("Bash", json!({"command": "grep -rn old_string src/"}));
        assert!(raw_input(&b, 10_000).contains("old_string"));
    }

    #[test]
    fn secrets_are_redacted_before_an_intent_is_cut() {
        // Wherever the cut falls, no part of the password survives in any form of the intent.
        for n in 0..120 {
            let filler = "word ".repeat(n);
            let command = format!("echo {filler}&& psql postgres://admin:hunter2secret@db.prod:5432/app -c 'select 1'");
            let i = recorded(&ev("Bash", json!({"command": command, "description": format!("Check {filler} the database")})));
            for form in [&i.words, &i.meaning, &i.deed] {
                assert!(!form.contains("hunter") && !form.contains("2secret"), "{n}: {form}");
            }
        }
        let p = HookEvent::from_payload(&json!({"hook_event_name": "UserPromptSubmit", "prompt": format!("{} use postgres://admin:hunter2secret@db/app", "x ".repeat(198))}));
        let i = recorded(&p);
        assert!(!i.words.contains("hunter") && !i.deed.contains("hunter"), "{}", i.words);
        let w = recorded(&ev("Write", json!({"file_path": "a/.env", "content": "DATABASE_URL=postgres://u:hunter2secret@db/app\nAPI_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz"})));
        assert!(!w.words.contains("hunter") && !w.deed.contains("abcdefghijklmnop"), "{}", w.words);
    }
}
