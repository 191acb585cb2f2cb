//! Tuneables: the daemon's settings from `config/tuneables.json`, typed, read through the
//! settings table ([`super::table`]).
//!
//! Missing keys take the table's defaults; unknown keys are kept in the user's file and
//! reported, never fatal; keys under their former names are read and reported as renamed; a
//! file that fails to parse or validate leaves the previous good settings in force and its error
//! (with line and column, or the key) is shown by `status`.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::table::{self, Check, Default as Given, Setting, SETTINGS};

/// Every setting, typed. Built only from the table's defaults overlaid with a file's values
/// (`Tuneables::default()` is the table's defaults).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tuneables {
    pub model: Model,
    pub retrieval: Retrieval,
    pub ranking: Ranking,
    pub triggers: Triggers,
    pub advice: AdviceLimits,
    pub sessions: Sessions,
    pub store: StoreSettings,
    pub learning: Learning,
    pub capture: CaptureSettings,
}

/// The embedding model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Model {
    pub enabled: bool,
    pub embedding_model: String,
    pub embedding_tokenizer: String,
    pub onnx_runtime: String,
    pub max_tokens: usize,
    pub threads: usize,
    pub query_cache_size: usize,
    pub hook_wait_ms: u64,
}

/// How keyword and meaning evidence fuse into one relevance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Retrieval {
    pub weight_similarity: f64,
    pub similarity_floor: f64,
    pub similarity_ceiling: f64,
    pub words_exponent: f64,
    pub search_min_similarity: f64,
}

/// How advice is decided.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ranking {
    pub min_similarity: f64,
    pub min_matched_terms: usize,
    pub min_fusion_score: f64,
    pub weight_outcome: f64,
    pub weight_recency: f64,
    pub recency_half_life_days: f64,
    pub mmr_lambda: f64,
    pub mmr_duplicate_similarity: f64,
    pub min_relative_score: f64,
    pub category_caps: BTreeMap<String, usize>,
}

/// Trigger rules.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Triggers {
    pub enabled: bool,
    pub builtin_rules: bool,
    pub learned_confidence: f64,
    pub min_category_relevance: f64,
    pub interrupts: InterruptMode,
}

/// What an interrupting rule does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InterruptMode {
    Off,
    Ask,
    Deny,
}

impl InterruptMode {
    pub fn as_str(self) -> &'static str {
        match self {
            InterruptMode::Off => "off",
            InterruptMode::Ask => "ask",
            InterruptMode::Deny => "deny",
        }
    }
}

/// How much advice one answer may carry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdviceLimits {
    pub max_items_tool: usize,
    pub max_items_prompt: usize,
    pub max_items_session_start: usize,
    pub char_budget_tool: usize,
    pub char_budget_prompt: usize,
    pub char_budget_session_start: usize,
    /// How much prediction weighs in the startup brief (0: not at all).
    pub brief_prediction: f64,
    pub cooldown_s: u64,
}

/// Retention of the session log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sessions {
    pub retention_days: u64,
    pub max_events: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoreSettings {
    pub cache_mb: u64,
}

/// Capture and the quality gate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaptureSettings {
    pub enabled: bool,
    pub promote_after: usize,
    pub window_calls: usize,
    pub window_minutes: f64,
    pub repeated_failure_sessions: usize,
    pub quality_bar: f64,
    pub keep_bar: f64,
    pub duplicate_cosine: f64,
}

/// The learning loop's settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Learning {
    pub enabled: bool,
    pub step_deliberate: f64,
    pub step_automatic: f64,
    pub node_step: f64,
    pub situation_floor: f64,
    pub same_moment: f64,
    pub same_command: f64,
    pub same_anchors: f64,
    pub same_situation: f64,
    pub max_situations_per_project: usize,
    pub max_situations_per_lesson: usize,
    pub situation_half_life_days: f64,
    pub max_adjustments: usize,
    pub outcomes: bool,
    pub step_outcome: f64,
    pub outcome_window_calls: usize,
    pub outcome_window_minutes: f64,
    pub weight_activation: f64,
    pub weight_learned: f64,
    pub spread_decay: f64,
    pub spread_floor: f64,
    pub spread_hops: usize,
}

impl Default for Tuneables {
    fn default() -> Tuneables {
        Tuneables::from_tree(defaults()).expect("the settings table's defaults fit the typed settings")
    }
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ConfigError {
    #[error("{file}: line {line} column {column}: {message}")]
    Parse { file: String, line: usize, column: usize, message: String },
    #[error("{file}: {key} = {value}: {rule}")]
    Invalid { file: String, key: String, value: String, rule: String },
    #[error("{file}: cannot read: {message}")]
    Read { file: String, message: String },
}

/// Settings read from a file, with what the file said that cairn did not take as it was.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    pub tuneables: Tuneables,
    pub unknown_keys: Vec<String>,
    /// Keys given under a former name: "semantic.min_similarity is now ranking.min_similarity".
    pub renamed_keys: Vec<String>,
    /// The values the file set, under their current keys, to tell which values it set.
    pub file_value: Value,
}

/// A setting's default as JSON.
fn default_value(s: &Setting) -> Value {
    match s.default {
        Given::Bool(b) => Value::Bool(b),
        Given::Number(n) => serde_json::json!(n),
        Given::Count(n) => Value::from(n),
        Given::Text(t) | Given::Choice(t, _) => Value::from(t),
        Given::Counts(entries) => Value::Object(entries.iter().map(|(k, n, _)| (k.to_string(), Value::from(*n))).collect()),
    }
}

/// Sets `value` at the dotted `key` of `tree`, making the objects on the way.
fn set_at(tree: &mut Map<String, Value>, key: &str, value: Value) {
    let mut parts: Vec<&str> = key.split('.').collect();
    let last = parts.pop().expect("a key has a name");
    let mut node = tree;
    for part in parts {
        let entry = node.entry(part.to_string()).or_insert_with(|| Value::Object(Map::new()));
        if !entry.is_object() {
            *entry = Value::Object(Map::new());
        }
        node = entry.as_object_mut().expect("made an object");
    }
    node.insert(last.to_string(), value);
}

fn get_at<'a>(value: &'a Value, dotted: &str) -> Option<&'a Value> {
    dotted.split('.').try_fold(value, |v, part| v.get(part))
}

/// The table's defaults as one JSON tree, in the file's order.
pub fn defaults() -> Value {
    let mut tree = Map::new();
    for s in SETTINGS {
        set_at(&mut tree, s.key, default_value(s));
    }
    Value::Object(tree)
}

/// Whether `value` has the kind of the setting; the rule to show when not.
fn kind_ok(s: &Setting, value: &Value) -> Result<(), String> {
    let ok = match s.default {
        Given::Bool(_) => value.is_boolean(),
        Given::Number(_) => value.is_number(),
        Given::Count(_) => value.as_u64().is_some(),
        Given::Text(_) => value.is_string(),
        Given::Choice(_, options) => value.as_str().is_some_and(|v| options.contains(&v)),
        Given::Counts(_) => value.as_object().is_some_and(|m| m.values().all(|v| v.as_u64().is_some())),
    };
    if ok {
        return Ok(());
    }
    Err(match s.default {
        Given::Bool(_) => "must be true or false".to_string(),
        Given::Number(_) => "must be a number".to_string(),
        Given::Count(_) => "must be a whole number, 0 or more".to_string(),
        Given::Text(_) => "must be a string".to_string(),
        Given::Choice(_, options) => format!("must be one of {}", options.iter().map(|o| format!("\"{o}\"")).collect::<Vec<_>>().join(", ")),
        Given::Counts(_) => "must be an object of whole numbers, e.g. {\"default\": 2}".to_string(),
    })
}

/// Whether `value` lies in the setting's range; the rule to show when not.
fn in_range(s: &Setting, value: &Value) -> Result<(), String> {
    let number = value.as_f64().unwrap_or(f64::NAN);
    let count = value.as_u64().unwrap_or(0);
    let (ok, generated) = match s.check {
        Check::Any => (true, String::new()),
        Check::Between(min, max) => ((min..=max).contains(&number), format!("must be between {min} and {max}")),
        Check::Above(min) => (number > min, format!("must be more than {min}")),
        Check::Within(min, max) => ((min..=max).contains(&count), format!("must be between {min} and {max}")),
        Check::AtLeast(min) => (count >= min, format!("must be at least {min}")),
        Check::AtMost(max) => (count <= max, format!("must be at most {max}")),
    };
    if ok { Ok(()) } else { Err(s.rule.map_or(generated, str::to_string)) }
}

/// A JSON value read strictly: a key given twice in one object is an error (at its line), as
/// it was when the file was read straight into the settings' structs.
struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Strict, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Strict;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Strict, E> {
                Ok(Strict(Value::Bool(v)))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Strict, E> {
                Ok(Strict(Value::from(v)))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Strict, E> {
                Ok(Strict(Value::from(v)))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Strict, E> {
                Ok(Strict(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Strict, E> {
                Ok(Strict(Value::from(v)))
            }
            fn visit_unit<E>(self) -> Result<Strict, E> {
                Ok(Strict(Value::Null))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Strict, A::Error> {
                let mut out = Vec::new();
                while let Some(Strict(v)) = seq.next_element()? {
                    out.push(v);
                }
                Ok(Strict(Value::Array(out)))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Strict, A::Error> {
                let mut out = Map::new();
                while let Some(key) = map.next_key::<String>()? {
                    if out.contains_key(&key) {
                        return Err(serde::de::Error::custom(format!("the key \"{key}\" is given twice in one object")));
                    }
                    let Strict(v) = map.next_value()?;
                    out.insert(key, v);
                }
                Ok(Strict(Value::Object(out)))
            }
        }
        d.deserialize_any(Visit)
    }
}

/// What a file says: each known value with whether it came under a former name, and the keys
/// cairn does not know.
struct Read {
    given: Vec<(&'static Setting, Value, bool)>,
    unknown: Vec<String>,
}

fn walk(object: &Map<String, Value>, prefix: &str, file: &str, read: &mut Read) -> Result<(), ConfigError> {
    for (name, value) in object {
        let path = if prefix.is_empty() { name.clone() } else { format!("{prefix}.{name}") };
        if let Some(s) = table::find(&path) {
            read.given.push((s, value.clone(), s.key != path));
        } else if table::is_block(&path) {
            let Value::Object(inner) = value else {
                return Err(ConfigError::Invalid { file: file.into(), key: path, value: value.to_string(), rule: "must be an object of settings".into() });
            };
            walk(inner, &path, file, read)?;
        } else {
            read.unknown.push(path);
        }
    }
    Ok(())
}

impl Tuneables {
    fn from_tree(tree: Value) -> Result<Tuneables, serde_json::Error> {
        serde_json::from_value(tree)
    }

    /// Parses and validates the text of a tuneables file named `file` (for messages).
    /// `//` and `/* */` comments are allowed (they keep line numbers intact).
    pub fn parse(text: &str, file: &str) -> Result<Loaded, ConfigError> {
        let mut stripped = String::with_capacity(text.len());
        // Only `//` and `/* */`: a `#` line (or a merge conflict's marker) is an error, not a
        // comment.
        std::io::Read::read_to_string(&mut json_comments::CommentSettings::c_style().strip_comments(text.as_bytes()), &mut stripped).map_err(|_| {
            let (line, column, message) = unclosed(text);
            ConfigError::Parse { file: file.to_string(), line, column, message: message.into() }
        })?;
        let Strict(parsed) = serde_json::from_str(&stripped).map_err(|e| {
            // A `#` line reads as a comment to some tools; here it is text outside the document.
            let hash = text.lines().nth(e.line().saturating_sub(1)).is_some_and(|l| l.trim_start().starts_with('#'));
            let hint = if hash { "; `#` lines are not comments here (use `//`), and may be a merge conflict's marker" } else { "" };
            ConfigError::Parse { file: file.to_string(), line: e.line(), column: e.column(), message: format!("{}{hint}", strip_position(&e.to_string())) }
        })?;
        let Value::Object(object) = parsed else {
            return Err(ConfigError::Parse { file: file.to_string(), line: 1, column: 1, message: "the file must hold one JSON object".into() });
        };
        let mut read = Read { given: Vec::new(), unknown: Vec::new() };
        walk(&object, "", file, &mut read)?;
        // A value under a former name counts unless the current name is given too.
        let current = |s: &Setting| read.given.iter().any(|(g, _, old)| g.key == s.key && !old);
        // How the file wrote each key, for messages: a former name says what it is now.
        let written = |s: &Setting, old: bool| if old { format!("{} (now {})", s.was, s.key) } else { s.key.to_string() };
        let mut tree = match defaults() {
            Value::Object(m) => m,
            _ => unreachable!("the defaults are an object"),
        };
        let mut file_tree = Map::new();
        let mut renamed = Vec::new();
        let mut given_as: BTreeMap<&str, String> = BTreeMap::new();
        for (s, value, old) in &read.given {
            if *old {
                if current(s) {
                    renamed.push(format!("{} is now {} (ignored: the new key is set too)", s.was, s.key));
                    continue;
                }
                renamed.push(format!("{} is now {}", s.was, s.key));
            }
            if let Err(rule) = kind_ok(s, value) {
                return Err(ConfigError::Invalid { file: file.into(), key: written(s, *old), value: value.to_string(), rule });
            }
            if let Some((_, before, why)) = table::CHANGED_MEANING.iter().find(|(k, before, _)| *k == s.key && value.as_f64() == Some(*before)) {
                let now = default_value(s);
                renamed.push(format!("{} = {before} is an earlier release's default and its meaning changed ({why}); kept as written: remove it for the new default ({now})", written(s, *old)));
            }
            given_as.insert(s.key, written(s, *old));
            set_at(&mut file_tree, s.key, value.clone());
            // A map of counts adds to the table's entries (its `default` stays unless given).
            let value = match (&s.default, value) {
                (Given::Counts(_), Value::Object(entries)) => {
                    let mut merged = default_value(s);
                    if let Value::Object(m) = &mut merged {
                        m.extend(entries.clone());
                    }
                    merged
                }
                _ => value.clone(),
            };
            set_at(&mut tree, s.key, value);
        }
        let tree = Value::Object(tree);
        for s in SETTINGS {
            let value = get_at(&tree, s.key).expect("every key has a value");
            if let Err(rule) = in_range(s, value) {
                let key = given_as.get(s.key).cloned().unwrap_or_else(|| s.key.to_string());
                return Err(ConfigError::Invalid { file: file.into(), key, value: value.to_string(), rule });
            }
        }
        let tuneables = Tuneables::from_tree(tree).map_err(|e| ConfigError::Invalid { file: file.into(), key: "tuneables".into(), value: String::new(), rule: e.to_string() })?;
        tuneables.cross_check(file)?;
        read.unknown.sort();
        Ok(Loaded { tuneables, unknown_keys: read.unknown, renamed_keys: renamed, file_value: Value::Object(file_tree) })
    }

    /// Reads `path` (a regular file of at most [`super::table::MAX_FILE_BYTES`]); a missing file means defaults.
    pub fn load(path: &Path) -> Result<Loaded, ConfigError> {
        let file = path.display().to_string();
        match cairn_proto::files::read_text(path, super::table::MAX_FILE_BYTES) {
            Ok(text) => Self::parse(&text, &file),
            Err(e) if e.is_missing() => {
                Ok(Loaded { tuneables: Tuneables::default(), unknown_keys: Vec::new(), renamed_keys: Vec::new(), file_value: Value::Null })
            }
            Err(e) => Err(ConfigError::Read { file, message: e.to_string() }),
        }
    }

    /// Rules between settings, which no single range can say.
    fn cross_check(&self, file: &str) -> Result<(), ConfigError> {
        let r = &self.retrieval;
        if r.similarity_floor >= r.similarity_ceiling {
            return Err(ConfigError::Invalid {
                file: file.to_string(),
                key: "retrieval.similarity_floor/similarity_ceiling".into(),
                value: format!("{} / {}", r.similarity_floor, r.similarity_ceiling),
                rule: "the floor must be below the ceiling".into(),
            });
        }
        let m = &self.model;
        if m.embedding_model.trim().is_empty() != m.embedding_tokenizer.trim().is_empty() {
            return Err(ConfigError::Invalid {
                file: file.to_string(),
                key: "model.embedding_model/embedding_tokenizer".into(),
                value: format!("{:?} / {:?}", m.embedding_model, m.embedding_tokenizer),
                rule: "a model of your own needs its tokenizer: set both, or neither".into(),
            });
        }
        Ok(())
    }
}

/// One effective setting and where its value came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EffectiveSetting {
    pub key: String,
    pub value: Value,
    /// `tuneables.json` or `default`.
    pub source: &'static str,
}

/// Every effective setting, in the table's order, with its source; a map of counts is listed
/// entry by entry.
pub fn settings(tuneables: &Tuneables, file_value: &Value) -> Vec<EffectiveSetting> {
    let tree = serde_json::to_value(tuneables).expect("tuneables serialise");
    let source = |key: &str| if get_at(file_value, key).is_some() { "tuneables.json" } else { "default" };
    let mut out = Vec::new();
    for s in SETTINGS {
        let value = get_at(&tree, s.key).cloned().unwrap_or(Value::Null);
        match (&s.default, value) {
            (Given::Counts(_), Value::Object(entries)) => {
                for (name, v) in entries {
                    let key = format!("{}.{name}", s.key);
                    out.push(EffectiveSetting { source: source(&key), key, value: v });
                }
            }
            (_, value) => out.push(EffectiveSetting { key: s.key.to_string(), value, source: source(s.key) }),
        }
    }
    out
}

/// The commented default `tuneables.json` that `cairn config init` writes.
pub fn template() -> String {
    let mut out = String::from(
        "// cairn tuneables. Every key is optional: a missing key keeps its default. cairn reloads\n\
         // this file on save and keeps the last good settings if a save does not parse.\n{\n",
    );
    render(&defaults(), "", 1, &mut out);
    out.push_str("}\n");
    out
}

fn render(value: &Value, path: &str, indent: usize, out: &mut String) {
    let pad = "  ".repeat(indent);
    let Value::Object(map) = value else { return };
    for (i, (k, v)) in map.iter().enumerate() {
        let full = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
        let setting = table::find(&full).filter(|s| s.key == full);
        let doc = match (setting, path) {
            (Some(s), _) => s.doc,
            // An entry of a map of counts: its default's meaning.
            (None, parent) => match table::find(parent).map(|s| s.default) {
                Some(Given::Counts(entries)) => entries.iter().find(|(name, _, _)| *name == k.as_str()).map_or("", |(_, _, doc)| *doc),
                _ => table::block_doc(&full),
            },
        };
        if !doc.is_empty() {
            out.push_str(&format!("{pad}// {doc}\n"));
        }
        let comma = if i + 1 < map.len() { "," } else { "" };
        if v.is_object() {
            out.push_str(&format!("{pad}\"{k}\": {{\n"));
            render(v, &full, indent + 1, out);
            out.push_str(&format!("{pad}}}{comma}\n"));
        } else {
            out.push_str(&format!("{pad}\"{k}\": {v}{comma}\n"));
        }
    }
}

/// serde_json appends " at line L column C"; the error already carries them as fields.
/// Where the comment stripper gave up, and why: a string or a `/*` comment opened and never
/// closed, or a `/` that starts neither kind of comment. Line and column are 1-based.
fn unclosed(text: &str) -> (usize, usize, &'static str) {
    #[derive(PartialEq)]
    enum In {
        Code,
        Str,
        Line,
        Block,
    }
    let (mut state, mut opened) = (In::Code, (1, 1));
    let (mut line, mut column) = (1, 0);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        column += 1;
        let here = (line, column);
        match (&state, c) {
            (_, '\n') => {
                line += 1;
                column = 0;
                if state == In::Line {
                    state = In::Code;
                }
            }
            (In::Code, '"') => (state, opened) = (In::Str, here),
            (In::Code, '/') => match chars.peek() {
                Some('/') => state = In::Line,
                Some('*') => {
                    chars.next();
                    column += 1;
                    (state, opened) = (In::Block, here);
                }
                _ => return (here.0, here.1, "a `/` that starts no comment (`//` or `/*`)"),
            },
            (In::Str, '\\') => {
                chars.next();
                column += 1;
            }
            (In::Str, '"') => state = In::Code,
            (In::Block, '*') if chars.peek() == Some(&'/') => {
                chars.next();
                column += 1;
                state = In::Code;
            }
            _ => {}
        }
    }
    match state {
        In::Str => (opened.0, opened.1, "a string opened here is never closed"),
        In::Block => (opened.0, opened.1, "a /* comment opened here is never closed"),
        _ => (line, 1, "the file cannot be read as JSON with comments"),
    }
}

fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaves(prefix: &str, value: &Value, out: &mut Vec<String>) {
        match value {
            Value::Object(map) if table::find(prefix).is_none() => {
                for (k, v) in map {
                    leaves(&if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") }, v, out);
                }
            }
            _ => out.push(prefix.to_string()),
        }
    }

    #[test]
    fn the_typed_settings_are_exactly_the_table() {
        let mut typed = Vec::new();
        leaves("", &serde_json::to_value(Tuneables::default()).unwrap(), &mut typed);
        let table: Vec<String> = SETTINGS.iter().map(|s| s.key.to_string()).collect();
        assert_eq!(typed, table, "every typed field has one row in the table, in its order");
        assert_eq!(serde_json::to_value(Tuneables::default()).unwrap(), defaults());
    }

    /// A file is one JSON document: anything after it (a merge conflict's markers, a second
    /// object, a `#` line) is an error at its line, and nothing of the file is taken.
    #[test]
    fn text_after_the_document_is_an_error_at_its_line() {
        let conflict = "{\n  \"advice\": {\"max_items_tool\": 1}\n}\n<<<<<<< HEAD\n{\"advice\": {\"max_items_tool\": 2}}\n>>>>>>> theirs\n";
        for (text, line) in [(conflict, 4), ("{}\n{}\n", 2), ("{}\n# a note\n", 2), ("{} x", 1), ("{}\n/* open\n", 2)] {
            match Tuneables::parse(text, "t.json") {
                Err(ConfigError::Parse { line: l, .. }) => assert_eq!(l, line, "{text:?}"),
                other => panic!("{text:?} gave {other:?}"),
            }
        }
        // What the comment stripper refuses is said for what it is, where it starts.
        for (text, line, column, says) in [
            ("{\n  \"a\": \"open\n}\n", 2, 8, "string opened here"),
            ("{\n /* x\n}\n", 2, 2, "comment opened here"),
            ("{ / }\n", 1, 3, "starts no comment"),
        ] {
            match Tuneables::parse(text, "t.json") {
                Err(ConfigError::Parse { line: l, column: c, message, .. }) => assert!(l == line && c == column && message.contains(says), "{text:?}: {l}:{c} {message}"),
                other => panic!("{text:?} gave {other:?}"),
            }
        }
        match Tuneables::parse("{}\n# note\n", "t.json") {
            Err(ConfigError::Parse { message, .. }) => assert!(message.contains("`#` lines are not comments"), "{message}"),
            other => panic!("{other:?}"),
        }
        // Comments of the two kinds the template uses stay fine.
        assert!(Tuneables::parse("// settings\n{ /* none */ }\n// end\n", "t.json").is_ok());
    }

    #[test]
    fn empty_object_is_all_defaults() {
        let loaded = Tuneables::parse("{}", "t.json").unwrap();
        assert_eq!(loaded.tuneables, Tuneables::default());
        assert!(loaded.unknown_keys.is_empty() && loaded.renamed_keys.is_empty());
    }

    #[test]
    fn partial_blocks_keep_other_defaults_and_report_unknown_keys() {
        let loaded = Tuneables::parse(r#"{"ranking": {"min_similarity": 0.7, "embedding_provider": "x"}, "preset": "aggressive"}"#, "t.json").unwrap();
        assert_eq!(loaded.tuneables.ranking.min_similarity, 0.7);
        assert_eq!(loaded.tuneables.ranking.weight_outcome, 0.3);
        assert_eq!(loaded.unknown_keys, vec!["preset".to_string(), "ranking.embedding_provider".to_string()]);
    }

    #[test]
    fn former_names_are_read_and_reported_as_renamed() {
        let loaded = Tuneables::parse(r#"{"semantic": {"min_similarity": 0.7, "max_tokens": 128, "category_caps": {"git": 1}, "embedding_provider": "x"}}"#, "t.json").unwrap();
        assert_eq!(loaded.tuneables.ranking.min_similarity, 0.7);
        assert_eq!(loaded.tuneables.model.max_tokens, 128);
        assert_eq!(loaded.tuneables.ranking.category_caps, [("default".to_string(), 2), ("git".to_string(), 1)].into(), "a cap given adds to the table's");
        assert_eq!(
            loaded.renamed_keys,
            vec!["semantic.min_similarity is now ranking.min_similarity", "semantic.max_tokens is now model.max_tokens", "semantic.category_caps is now ranking.category_caps"]
        );
        assert_eq!(loaded.unknown_keys, vec!["semantic.embedding_provider".to_string()]);
        // Provenance speaks of the current keys.
        let all = settings(&loaded.tuneables, &loaded.file_value);
        assert_eq!(all.iter().find(|s| s.key == "ranking.min_similarity").unwrap().source, "tuneables.json");
        assert_eq!(all.iter().find(|s| s.key == "ranking.category_caps.git").unwrap().source, "tuneables.json");
        // Under both names, the current one wins, and the old one is said to be ignored.
        let both = Tuneables::parse(r#"{"semantic": {"min_fusion_score": 0.6}, "ranking": {"min_fusion_score": 0.9}}"#, "t.json").unwrap();
        assert_eq!(both.tuneables.ranking.min_fusion_score, 0.9);
        assert_eq!(both.renamed_keys, vec!["semantic.min_fusion_score is now ranking.min_fusion_score (ignored: the new key is set too)"]);
        let reversed = Tuneables::parse(r#"{"ranking": {"min_fusion_score": 0.9}, "semantic": {"min_fusion_score": 0.6}}"#, "t.json").unwrap();
        assert_eq!(reversed.tuneables.ranking.min_fusion_score, 0.9, "whatever the order");
        // A bad value under a former name is refused under the name it was given, with its new one.
        let err = Tuneables::parse(r#"{"semantic": {"min_similarity": 1.5}}"#, "t.json").unwrap_err();
        assert_eq!(err.to_string(), "t.json: semantic.min_similarity (now ranking.min_similarity) = 1.5: must be between 0 and 1");
        let err = Tuneables::parse(r#"{"semantic": {"min_similarity": "x"}}"#, "t.json").unwrap_err();
        assert!(err.to_string().contains("semantic.min_similarity (now ranking.min_similarity) = \"x\": must be a number"), "{err}");
        // An ignored one is not read at all.
        let ignored = Tuneables::parse(r#"{"semantic": {"min_similarity": "x"}, "ranking": {"min_similarity": 0.7}}"#, "t.json").unwrap();
        assert_eq!(ignored.tuneables.ranking.min_similarity, 0.7);
    }

    #[test]
    fn an_earlier_release_s_defaults_whose_meaning_changed_are_reported() {
        let loaded = Tuneables::parse(r#"{"ranking": {"min_fusion_score": 0.8, "min_similarity": 0.3}, "semantic": {"similarity_floor": 0.15}}"#, "t.json").unwrap();
        assert_eq!(loaded.tuneables.ranking.min_fusion_score, 0.8, "kept as written");
        let notes = loaded.renamed_keys.join("\n");
        assert!(notes.contains("ranking.min_fusion_score = 0.8 is an earlier release's default") && notes.contains("probability bar"), "{notes}");
        assert!(notes.contains("semantic.similarity_floor (now retrieval.similarity_floor) = 0.15"), "{notes}");
        assert!(!notes.contains("min_similarity"), "a value of the user's own is not remarked on: {notes}");
    }

    #[test]
    fn a_key_given_twice_is_refused_at_its_line() {
        let err = Tuneables::parse("{\n  \"ranking\": {\"min_similarity\": 0.7},\n  \"ranking\": {\"weight_outcome\": 0.2}\n}", "t.json").unwrap_err();
        assert!(matches!(err, ConfigError::Parse { line: 3, .. }), "{err:?}");
        assert!(err.to_string().contains("\"ranking\" is given twice"), "{err}");
        assert!(Tuneables::parse(r#"{"advice": {"cooldown_s": 1, "cooldown_s": 2}}"#, "t.json").is_err());
    }

    #[test]
    fn a_map_of_counts_keeps_the_table_s_default_entry() {
        let loaded = Tuneables::parse(r#"{"ranking": {"category_caps": {"git": 1}}}"#, "t.json").unwrap();
        assert_eq!(loaded.tuneables.ranking.category_caps, [("default".to_string(), 2), ("git".to_string(), 1)].into());
        let all = settings(&loaded.tuneables, &loaded.file_value);
        let source = |k: &str| all.iter().find(|s| s.key == k).map(|s| s.source);
        assert_eq!((source("ranking.category_caps.default"), source("ranking.category_caps.git")), (Some("default"), Some("tuneables.json")));
        let own = Tuneables::parse(r#"{"ranking": {"category_caps": {"default": 1}}}"#, "t.json").unwrap();
        assert_eq!(own.tuneables.ranking.category_caps, [("default".to_string(), 1)].into());
    }

    #[test]
    fn syntax_errors_carry_line_and_column() {
        let err = Tuneables::parse("{\n  \"ranking\": {\n    \"min_similarity\": ,\n  }\n}", "t.json").unwrap_err();
        match err {
            ConfigError::Parse { line, .. } => assert_eq!(line, 3),
            ref other => panic!("unexpected {other:?}"),
        }
        assert!(err.to_string().starts_with("t.json: line 3 column"), "{err}");
        assert!(matches!(Tuneables::parse("[1]", "t.json"), Err(ConfigError::Parse { .. })));
    }

    #[test]
    fn out_of_range_values_are_refused() {
        let err = Tuneables::parse(r#"{"ranking": {"min_similarity": 1.5}}"#, "t.json").unwrap_err();
        assert_eq!(err.to_string(), "t.json: ranking.min_similarity = 1.5: must be between 0 and 1");
        for bad in [
            r#"{"advice": {"char_budget_prompt": 20000}}"#,
            r#"{"advice": {"char_budget_session_start": 2001}}"#,
            r#"{"sessions": {"max_events": 0}}"#,
            r#"{"advice": {"max_items_tool": 3}}"#,
            r#"{"advice": {"max_items_prompt": 9}}"#,
            r#"{"ranking": {"recency_half_life_days": 0}}"#,
            r#"{"triggers": {"learned_confidence": 1.5}}"#,
            r#"{"model": {"max_tokens": 513}}"#,
            r#"{"retrieval": {"similarity_floor": 0.9, "similarity_ceiling": 0.5}}"#,
            r#"{"model": {"embedding_model": "/m.onnx"}}"#,
        ] {
            assert!(Tuneables::parse(bad, "t.json").is_err(), "{bad} was taken");
        }
        let err = Tuneables::parse(r#"{"advice": {"max_items_tool": 3}}"#, "t.json").unwrap_err();
        assert!(err.to_string().contains("a tool call gets at most 2 lessons"), "{err}");
    }

    #[test]
    fn wrong_kinds_name_the_key() {
        let err = Tuneables::parse(r#"{"advice": {"max_items_tool": "two"}}"#, "t.json").unwrap_err();
        assert_eq!(err.to_string(), "t.json: advice.max_items_tool = \"two\": must be a whole number, 0 or more");
        let err = Tuneables::parse(r#"{"triggers": {"interrupts": "sometimes"}}"#, "t.json").unwrap_err();
        assert!(err.to_string().contains("must be one of \"off\", \"ask\", \"deny\""), "{err}");
        assert!(Tuneables::parse(r#"{"advice": 3}"#, "t.json").unwrap_err().to_string().contains("advice = 3: must be an object"));
        assert!(Tuneables::parse(r#"{"ranking": {"category_caps": {"git": -1}}}"#, "t.json").is_err());
    }

    #[test]
    fn comments_are_allowed_and_keep_line_numbers() {
        let loaded = Tuneables::parse("// top\n{ /* inline */ \"ranking\": {\"min_similarity\": 0.8} // tail\n}", "t.json").unwrap();
        assert_eq!(loaded.tuneables.ranking.min_similarity, 0.8);
        let err = Tuneables::parse("// one\n// two\n{ \"advice\": }", "t.json").unwrap_err();
        assert!(err.to_string().contains("line 3"), "{err}");
    }

    #[test]
    fn template_parses_to_the_defaults_and_documents_every_key() {
        let text = template();
        let loaded = Tuneables::parse(&text, "t.json").unwrap();
        assert_eq!(loaded.tuneables, Tuneables::default());
        assert!(loaded.unknown_keys.is_empty() && loaded.renamed_keys.is_empty());
        for s in SETTINGS {
            assert!(text.contains(&format!("// {}\n", s.doc)), "{} is not documented", s.key);
        }
        for b in table::BLOCKS {
            assert!(text.contains(&format!("// {}\n", b.doc)), "block {} is not documented", b.path);
        }
        assert!(text.contains("// The cap for categories not named here.\n"));
    }

    #[test]
    fn settings_say_where_values_came_from() {
        let loaded = Tuneables::parse(r#"{"advice": {"cooldown_s": 60}}"#, "t.json").unwrap();
        let all = settings(&loaded.tuneables, &loaded.file_value);
        let cooldown = all.iter().find(|s| s.key == "advice.cooldown_s").unwrap();
        assert_eq!((cooldown.value.clone(), cooldown.source), (serde_json::json!(60), "tuneables.json"));
        let other = all.iter().find(|s| s.key == "ranking.min_similarity").unwrap();
        assert_eq!(other.source, "default");
        assert_eq!(all.iter().find(|s| s.key == "ranking.category_caps.default").unwrap().value, serde_json::json!(2));
    }

    /// A value of any JSON kind a user might write by mistake or on purpose.
    fn any_setting_value() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (-1000i64..1000).prop_map(|n| serde_json::json!(n)),
            (-2.0f64..2.0).prop_map(|x| serde_json::json!(x)),
            any::<u32>().prop_map(|n| serde_json::json!(n)),
            "[a-z0-9 ]{0,12}".prop_map(Value::String),
            proptest::collection::vec((0u32..5).prop_map(|n| serde_json::json!(n)), 0..3).prop_map(Value::Array),
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::base::fuzz_cases(256)))]

        /// Any text at all: an answer (settings or an error), never a panic.
        #[test]
        fn any_text_is_settings_or_an_error(text in "\\PC{0,300}") {
            let _ = Tuneables::parse(&text, "t.json");
        }

        /// A file of real keys with values of any kind: either every value is taken and reads
        /// back the same when written out again, or the error names the file and a place.
        #[test]
        fn real_keys_with_any_values(picks in proptest::collection::vec((0..SETTINGS.len(), any_setting_value()), 0..8)) {
            let mut tree = Map::new();
            for (i, value) in picks {
                let mut node = &mut tree;
                let parts: Vec<&str> = SETTINGS[i].key.split('.').collect();
                for part in &parts[..parts.len() - 1] {
                    let entry = node.entry(part.to_string()).or_insert_with(|| Value::Object(Map::new()));
                    if !entry.is_object() {
                        *entry = Value::Object(Map::new());
                    }
                    node = entry.as_object_mut().unwrap();
                }
                node.insert(parts[parts.len() - 1].to_string(), value);
            }
            let text = serde_json::to_string_pretty(&Value::Object(tree)).unwrap();
            match Tuneables::parse(&text, "t.json") {
                Ok(loaded) => {
                    let again = Tuneables::parse(&serde_json::to_string(&loaded.tuneables).unwrap(), "t.json").unwrap();
                    proptest::prop_assert_eq!(again.tuneables, loaded.tuneables);
                }
                Err(e) => proptest::prop_assert!(e.to_string().starts_with("t.json: "), "{}", e),
            }
        }
    }
}
