//! Tuneables: the daemon's settings from `config/tuneables.json`, in Spark's nested shape.
//!
//! Missing keys take defaults; unknown keys are kept in the user's file and reported, never
//! fatal; a file that fails to parse or validate leaves the previous good settings in force and
//! its error (with line and column) is shown by `status`.

use std::collections::BTreeSet;
use std::path::Path;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
#[derive(Default)]
pub struct Tuneables {
    pub semantic: Semantic,
    pub triggers: Triggers,
    pub advice: AdviceLimits,
    pub sessions: Sessions,
    pub store: StoreSettings,
}

/// Retrieval gates and fusion weights (Spark's `semantic` block).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Semantic {
    /// Whether embeddings take part in retrieval when the model is available.
    pub enabled: bool,
    /// Gate on retrieval relevance (keywords and embeddings fused) before fusion.
    pub min_similarity: f64,
    /// Decision threshold on the fused score.
    pub min_fusion_score: f64,
    /// Weight of outcome effectiveness in the fusion.
    pub weight_outcome: f64,
    /// Distinct query terms a keyword match must share (fewer for shorter queries); applies
    /// only where there are no embeddings to judge by.
    pub min_matched_terms: usize,
    /// How much embedding similarity counts in relevance, beside keyword relevance (see `hybrid`).
    pub weight_similarity: f64,
    /// Cosine similarity at or below which the semantic part of relevance is 0.
    pub similarity_floor: f64,
    /// Cosine similarity at or above which the semantic part of relevance is 1.
    pub similarity_ceiling: f64,
    /// An ONNX sentence-transformer model of the user's own (empty: cairn's built-in model).
    pub embedding_model: String,
    /// The tokenizer.json that goes with `embedding_model`.
    pub embedding_tokenizer: String,
    /// The ONNX Runtime library to load (empty: ORT_DYLIB_PATH, else cairn's own copy).
    pub onnx_runtime: String,
    /// Longest window of tokens the model reads at once; longer texts are embedded in windows.
    pub max_tokens: usize,
    /// Threads one embedding may use.
    pub threads: usize,
    /// Query embeddings kept in memory, most recently used first.
    pub query_cache_size: usize,
    /// How much a recently touched memory is lifted (Spark's `weight_recency`).
    pub weight_recency: f64,
    /// Days for a memory's recency to halve.
    pub recency_half_life_days: f64,
    /// How much a low-salience action (a look around) discounts retrieved advice.
    pub weight_salience: f64,
    /// MMR's balance between score (1) and diversity (0).
    pub mmr_lambda: f64,
    /// An item at least this similar to one already chosen is dropped as saying nothing new.
    pub mmr_duplicate_similarity: f64,
    /// An item scoring under this share of the best item's score is not said beside it.
    pub min_relative_score: f64,
    /// Most items per memory category in one answer (Spark's `category_caps`); `default` for
    /// categories not named.
    pub category_caps: std::collections::BTreeMap<String, usize>,
}

/// Trigger rules (Spark's `triggers` block).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Triggers {
    /// Whether trigger rules (the built-in ones and trigger_rules.yaml's) are applied.
    pub enabled: bool,
    /// Whether cairn's built-in rules (destructive commands, secrets, force-push, deployment)
    /// apply beside the file's.
    pub builtin_rules: bool,
    /// A triggered memory's base score, before its priority bonus.
    pub base_score: f64,
    /// Confidence in a learned rule (the user's and cairn's rules have 1).
    pub learned_confidence: f64,
    /// Added to a triggered memory's score by the rule's priority.
    pub priority_bonus: PriorityBonus,
    /// A `category:NAME` surface resolves to the category's most relevant memory only when it is
    /// at least this relevant to the event (a rule naming memory ids has no such bar).
    pub min_category_relevance: f64,
    /// What a critical rule with `interrupt: true` does to the tool call it matches: `off` (the
    /// default: it only advises), `ask` (Claude Code asks the user first) or `deny`.
    pub interrupts: InterruptMode,
}

/// What an interrupting rule does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InterruptMode {
    #[default]
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PriorityBonus {
    pub critical: f64,
    pub high: f64,
    pub normal: f64,
    pub background: f64,
}

impl Default for PriorityBonus {
    fn default() -> Self {
        PriorityBonus { critical: 0.2, high: 0.1, normal: 0.0, background: -0.1 }
    }
}

impl Default for Triggers {
    fn default() -> Self {
        Triggers { enabled: true, builtin_rules: true, base_score: 0.9, learned_confidence: 0.7, priority_bonus: PriorityBonus::default(), min_category_relevance: 0.15, interrupts: InterruptMode::Off }
    }
}

/// How much advice one answer may carry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AdviceLimits {
    pub max_items_tool: usize,
    pub max_items_prompt: usize,
    pub max_items_session_start: usize,
    pub char_budget_tool: usize,
    pub char_budget_prompt: usize,
    /// Characters of the session-start brief (kept under 2,000).
    pub char_budget_session_start: usize,
    /// Seconds before a memory may be repeated within one session.
    pub cooldown_s: u64,
}

/// Retention of the session log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Sessions {
    pub retention_days: u64,
    pub max_events: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct StoreSettings {
    /// sled's page cache; sled's own default is 1 GB, far more than cairn needs.
    pub cache_mb: u64,
}

impl Default for Semantic {
    fn default() -> Self {
        Semantic {
            enabled: true,
            // Conservative, as tuned on the tune half of the advice set (BENCHMARKS.md): better no
            // advice than bad advice. At 0.8 a new lesson speaks on a routine action (a test run,
            // an ordinary edit) only when it fits almost exactly; a trigger, a push, a deploy or
            // a lesson with good outcomes clears it more easily.
            min_similarity: 0.5,
            min_fusion_score: 0.8,
            weight_outcome: 0.3,
            min_matched_terms: 2,
            // Tuned on LoCoMo's tuning conversations (see BENCHMARKS.md).
            weight_similarity: 0.7,
            similarity_floor: 0.15,
            similarity_ceiling: 0.9,
            embedding_model: String::new(),
            embedding_tokenizer: String::new(),
            onnx_runtime: String::new(),
            max_tokens: 256,
            threads: 2,
            query_cache_size: 1024,
            weight_recency: 0.1,
            recency_half_life_days: 30.0,
            weight_salience: 0.5,
            mmr_lambda: 0.5,
            mmr_duplicate_similarity: 0.9,
            min_relative_score: 0.8,
            category_caps: [("default".to_string(), 2)].into(),
        }
    }
}

impl Default for AdviceLimits {
    fn default() -> Self {
        AdviceLimits {
            max_items_tool: 2,
            max_items_prompt: 8,
            max_items_session_start: 3,
            char_budget_tool: 600,
            char_budget_prompt: 2400,
            char_budget_session_start: 1800,
            cooldown_s: 900,
        }
    }
}

impl Default for Sessions {
    fn default() -> Self {
        Sessions { retention_days: 30, max_events: 100_000 }
    }
}

impl Default for StoreSettings {
    fn default() -> Self {
        StoreSettings { cache_mb: 64 }
    }
}


#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ConfigError {
    #[error("{file}: line {line} column {column}: {message}")]
    Parse { file: String, line: usize, column: usize, message: String },
    #[error("{file}: {key} = {value}: {rule}")]
    Invalid { file: String, key: &'static str, value: String, rule: &'static str },
    #[error("{file}: cannot read: {message}")]
    Read { file: String, message: String },
}

/// Settings read from a file, with the keys cairn did not recognise.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    pub tuneables: Tuneables,
    pub unknown_keys: Vec<String>,
    /// The file's own content (comments stripped), to tell which values it set.
    pub file_value: serde_json::Value,
}

impl Tuneables {
    /// Parses and validates the text of a tuneables file named `file` (for messages).
    /// `//` and `/* */` comments are allowed (they keep line numbers intact).
    pub fn parse(text: &str, file: &str) -> Result<Loaded, ConfigError> {
        let mut stripped = String::with_capacity(text.len());
        std::io::Read::read_to_string(&mut json_comments::StripComments::new(text.as_bytes()), &mut stripped)
            .map_err(|e| ConfigError::Read { file: file.to_string(), message: e.to_string() })?;
        let text = stripped.as_str();
        let mut unknown = BTreeSet::new();
        let de = &mut serde_json::Deserializer::from_str(text);
        let tuneables: Tuneables = serde_ignored::deserialize(de, |path| {
            unknown.insert(path.to_string());
        })
        .map_err(|e| ConfigError::Parse { file: file.to_string(), line: e.line(), column: e.column(), message: strip_position(&e.to_string()) })?;
        tuneables.validate(file)?;
        let file_value = serde_json::from_str(text).unwrap_or(serde_json::Value::Null);
        Ok(Loaded { tuneables, unknown_keys: unknown.into_iter().collect(), file_value })
    }

    /// Reads `path`; a missing file means defaults.
    pub fn load(path: &Path) -> Result<Loaded, ConfigError> {
        let file = path.display().to_string();
        match std::fs::read_to_string(path) {
            Ok(text) => Self::parse(&text, &file),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Ok(Loaded { tuneables: Tuneables::default(), unknown_keys: Vec::new(), file_value: serde_json::Value::Null })
            }
            Err(e) => Err(ConfigError::Read { file, message: e.to_string() }),
        }
    }

    fn validate(&self, file: &str) -> Result<(), ConfigError> {
        let unit = |key: &'static str, v: f64| {
            if (0.0..=1.0).contains(&v) {
                Ok(())
            } else {
                Err(ConfigError::Invalid { file: file.to_string(), key, value: v.to_string(), rule: "must be between 0 and 1" })
            }
        };
        let at_least_one = |key: &'static str, v: u64| {
            if v >= 1 {
                Ok(())
            } else {
                Err(ConfigError::Invalid { file: file.to_string(), key, value: v.to_string(), rule: "must be at least 1" })
            }
        };
        unit("semantic.min_similarity", self.semantic.min_similarity)?;
        unit("semantic.min_fusion_score", self.semantic.min_fusion_score)?;
        unit("semantic.weight_outcome", self.semantic.weight_outcome)?;
        unit("semantic.weight_similarity", self.semantic.weight_similarity)?;
        unit("semantic.weight_recency", self.semantic.weight_recency)?;
        unit("semantic.weight_salience", self.semantic.weight_salience)?;
        unit("semantic.mmr_lambda", self.semantic.mmr_lambda)?;
        unit("semantic.mmr_duplicate_similarity", self.semantic.mmr_duplicate_similarity)?;
        unit("semantic.min_relative_score", self.semantic.min_relative_score)?;
        unit("triggers.learned_confidence", self.triggers.learned_confidence)?;
        unit("triggers.min_category_relevance", self.triggers.min_category_relevance)?;
        // Written so that NaN fails too.
        #[allow(clippy::neg_cmp_op_on_partial_ord)]
        if !(self.semantic.recency_half_life_days > 0.0) {
            return Err(ConfigError::Invalid { file: file.to_string(), key: "semantic.recency_half_life_days", value: self.semantic.recency_half_life_days.to_string(), rule: "must be more than 0" });
        }
        if !(0.0..=2.0).contains(&self.triggers.base_score) {
            return Err(ConfigError::Invalid { file: file.to_string(), key: "triggers.base_score", value: self.triggers.base_score.to_string(), rule: "must be between 0 and 2" });
        }
        let b = &self.triggers.priority_bonus;
        for (key, v) in [("triggers.priority_bonus.critical", b.critical), ("triggers.priority_bonus.high", b.high), ("triggers.priority_bonus.normal", b.normal), ("triggers.priority_bonus.background", b.background)] {
            if !(-1.0..=1.0).contains(&v) {
                return Err(ConfigError::Invalid { file: file.to_string(), key, value: v.to_string(), rule: "must be between -1 and 1" });
            }
        }
        let s = &self.semantic;
        if !(-1.0..=1.0).contains(&s.similarity_floor) || !(-1.0..=1.0).contains(&s.similarity_ceiling) || s.similarity_floor >= s.similarity_ceiling {
            return Err(ConfigError::Invalid {
                file: file.to_string(),
                key: "semantic.similarity_floor/similarity_ceiling",
                value: format!("{} / {}", s.similarity_floor, s.similarity_ceiling),
                rule: "must lie between -1 and 1, the floor below the ceiling",
            });
        }
        if s.embedding_model.trim().is_empty() != s.embedding_tokenizer.trim().is_empty() {
            return Err(ConfigError::Invalid {
                file: file.to_string(),
                key: "semantic.embedding_model/embedding_tokenizer",
                value: format!("{:?} / {:?}", s.embedding_model, s.embedding_tokenizer),
                rule: "a model of your own needs its tokenizer: set both, or neither",
            });
        }
        let within = |key: &'static str, v: usize, max: usize, rule: &'static str| {
            if (1..=max).contains(&v) {
                Ok(())
            } else {
                Err(ConfigError::Invalid { file: file.to_string(), key, value: v.to_string(), rule })
            }
        };
        within("advice.max_items_tool", self.advice.max_items_tool, 2, "must be 1 or 2: a tool call gets at most 2 lessons")?;
        within("advice.max_items_prompt", self.advice.max_items_prompt, 8, "must be between 1 and 8")?;
        within("advice.max_items_session_start", self.advice.max_items_session_start, 8, "must be between 1 and 8")?;
        at_least_one("sessions.retention_days", self.sessions.retention_days)?;
        at_least_one("sessions.max_events", self.sessions.max_events)?;
        at_least_one("store.cache_mb", self.store.cache_mb)?;
        within("semantic.max_tokens", self.semantic.max_tokens, 512, "must be between 1 and 512 (sentence-transformer models read at most 512 tokens)")?;
        within("semantic.query_cache_size", self.semantic.query_cache_size, 100_000, "must be between 1 and 100000")?;
        within("semantic.threads", self.semantic.threads, 64, "must be between 1 and 64")?;
        if self.advice.char_budget_session_start > 2000 {
            return Err(ConfigError::Invalid {
                file: file.to_string(),
                key: "advice.char_budget_session_start",
                value: self.advice.char_budget_session_start.to_string(),
                rule: "must be at most 2000: the session-start brief stays short",
            });
        }
        if self.advice.char_budget_tool > 9000 || self.advice.char_budget_prompt > 9000 {
            return Err(ConfigError::Invalid {
                file: file.to_string(),
                key: "advice.char_budget_*",
                value: self.advice.char_budget_tool.max(self.advice.char_budget_prompt).to_string(),
                rule: "must stay under Claude Code's 10,000-character cap (at most 9000)",
            });
        }
        Ok(())
    }
}

/// One effective setting and where its value came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Setting {
    pub key: String,
    pub value: serde_json::Value,
    /// `tuneables.json` or `default`.
    pub source: &'static str,
}

fn leaves(prefix: &str, value: &serde_json::Value, out: &mut Vec<(String, serde_json::Value)>) {
    match value {
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                leaves(&key, v, out);
            }
        }
        other => out.push((prefix.to_string(), other.clone())),
    }
}

fn lookup<'a>(value: &'a serde_json::Value, dotted: &str) -> Option<&'a serde_json::Value> {
    dotted.split('.').try_fold(value, |v, part| v.get(part))
}

/// Every effective setting, in key order, with its source.
pub fn settings(tuneables: &Tuneables, file_value: &serde_json::Value) -> Vec<Setting> {
    let mut flat = Vec::new();
    leaves("", &serde_json::to_value(tuneables).expect("tuneables serialise"), &mut flat);
    flat.into_iter()
        .map(|(key, value)| {
            let source = if lookup(file_value, &key).is_some() { "tuneables.json" } else { "default" };
            Setting { key, value, source }
        })
        .collect()
}

/// What each setting does, for the commented default file.
fn describe(key: &str) -> &'static str {
    match key {
        "semantic" => "Retrieval gates and fusion weights (Spark's `semantic` block).",
        "semantic.enabled" => "Use embeddings in retrieval when the model is available (`cairn setup` fetches it).",
        "semantic.min_similarity" => "Gate on retrieval relevance (0 to 1, keywords and embeddings fused) before fusion; a trigger match bypasses it.",
        "semantic.min_fusion_score" => "Decision threshold on the fused score: below it, nothing is said.",
        "semantic.weight_outcome" => "How much a memory's proven effectiveness moves its score.",
        "semantic.min_matched_terms" => "Distinct query words a keyword match must share (fewer for shorter queries), when there are no embeddings.",
        "semantic.weight_similarity" => "How much embedding similarity counts in relevance beside keywords (0: not at all; 1: a perfect paraphrase alone is fully relevant).",
        "semantic.similarity_floor" => "Cosine similarity at or below which the semantic part of relevance is 0.",
        "semantic.similarity_ceiling" => "Cosine similarity at or above which the semantic part of relevance is 1.",
        "semantic.embedding_model" => "Path of an ONNX sentence-transformer of your own; empty for the built-in model (restart to apply).",
        "semantic.embedding_tokenizer" => "Path of the tokenizer.json for embedding_model (restart to apply).",
        "semantic.onnx_runtime" => "Path of the ONNX Runtime library; empty for ORT_DYLIB_PATH, else cairn's own copy (restart to apply).",
        "semantic.max_tokens" => "Longest window of tokens embedded at once; longer texts are embedded in windows (restart to apply).",
        "semantic.threads" => "Threads one embedding may use (restart to apply).",
        "semantic.query_cache_size" => "Query embeddings kept in memory (restart to apply).",
        "semantic.weight_recency" => "How much a recently touched memory is lifted.",
        "semantic.recency_half_life_days" => "Days for a memory's recency to halve.",
        "semantic.weight_salience" => "How much a low-salience action (a look around) discounts retrieved advice (0: not at all).",
        "semantic.mmr_lambda" => "MMR balance between score (1) and diversity (0).",
        "semantic.mmr_duplicate_similarity" => "An item at least this similar (cosine) to one already chosen is dropped as a duplicate.",
        "semantic.min_relative_score" => "An item scoring under this share of the best item's score is not said beside it (0: no such bar).",
        "semantic.category_caps" => "Most items per memory category in one answer; `default` for the rest (0 keeps a category out).",
        "semantic.category_caps.default" => "The cap for categories not named here.",
        "triggers" => "Trigger rules from trigger_rules.yaml (Spark's `triggers` block).",
        "triggers.enabled" => "Whether trigger rules apply (the built-in ones and trigger_rules.yaml's).",
        "triggers.builtin_rules" => "Whether cairn's built-in rules (destructive commands, secrets, force-push, deployment) apply; a rule of yours with the same name replaces one.",
        "triggers.base_score" => "A triggered memory's base score, before its priority bonus.",
        "triggers.learned_confidence" => "Confidence in a learned rule (yours and cairn's have 1).",
        "triggers.min_category_relevance" => "A `category:NAME` surface picks the category's most relevant memory only when it is at least this relevant to the event.",
        "triggers.interrupts" => "What a critical rule with `interrupt: true` does to a matching tool call: \"off\" (only advise), \"ask\" (Claude Code asks you first) or \"deny\". Never on a read-only action.",
        "triggers.priority_bonus" => "Added to a triggered memory's score by the rule's priority.",
        "triggers.priority_bonus.critical" => "Bonus for critical rules.",
        "triggers.priority_bonus.high" => "Bonus for high rules.",
        "triggers.priority_bonus.normal" => "Bonus for normal rules.",
        "triggers.priority_bonus.background" => "Bonus (usually negative) for background rules.",
        "advice" => "How much one answer may say.",
        "advice.max_items_tool" => "Most lessons for one tool call.",
        "advice.max_items_prompt" => "Most lessons for one prompt.",
        "advice.max_items_session_start" => "Most lessons at the start of a session.",
        "advice.char_budget_tool" => "Characters of advice for one tool call (at most 9000).",
        "advice.char_budget_prompt" => "Characters of advice for one prompt (at most 9000).",
        "advice.char_budget_session_start" => "Characters of the session-start brief (at most 2000).",
        "advice.cooldown_s" => "Seconds before a lesson may be repeated within one session.",
        "sessions" => "The session log: what happened in each agent session.",
        "sessions.retention_days" => "Days an event is kept.",
        "sessions.max_events" => "Most events kept; past it, each new event retires the oldest.",
        "store" => "The store.",
        "store.cache_mb" => "Page cache of the store in MB (takes effect at restart).",
        _ => "",
    }
}

fn render(value: &serde_json::Value, key: &str, indent: usize, out: &mut String) {
    let pad = "  ".repeat(indent);
    let serde_json::Value::Object(map) = value else { return };
    let count = map.len();
    for (i, (k, v)) in map.iter().enumerate() {
        let full = if key.is_empty() { k.clone() } else { format!("{key}.{k}") };
        let comment = describe(&full);
        if !comment.is_empty() {
            out.push_str(&format!("{pad}// {comment}\n"));
        }
        let comma = if i + 1 < count { "," } else { "" };
        if v.is_object() {
            out.push_str(&format!("{pad}\"{k}\": {{\n"));
            render(v, &full, indent + 1, out);
            out.push_str(&format!("{pad}}}{comma}\n"));
        } else {
            out.push_str(&format!("{pad}\"{k}\": {v}{comma}\n"));
        }
    }
}

/// The commented default `tuneables.json` that `cairn config init` writes.
pub fn template() -> String {
    let mut out = String::from(
        "// cairn tuneables. Every key is optional: a missing key keeps its default. cairn reloads\n\
         // this file on save and keeps the last good settings if a save does not parse.\n{\n",
    );
    render(&serde_json::to_value(Tuneables::default()).expect("tuneables serialise"), "", 1, &mut out);
    out.push_str("}\n");
    out
}

/// serde_json appends " at line L column C"; the error already carries them as fields.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_object_is_all_defaults() {
        let loaded = Tuneables::parse("{}", "t.json").unwrap();
        assert_eq!(loaded.tuneables, Tuneables::default());
        assert!(loaded.unknown_keys.is_empty());
    }

    #[test]
    fn partial_blocks_keep_other_defaults_and_report_unknown_keys() {
        let loaded = Tuneables::parse(r#"{"semantic": {"min_similarity": 0.7, "embedding_provider": "x"}, "preset": "aggressive"}"#, "t.json").unwrap();
        assert_eq!(loaded.tuneables.semantic.min_similarity, 0.7);
        assert_eq!(loaded.tuneables.semantic.weight_outcome, 0.3);
        assert_eq!(loaded.unknown_keys, vec!["preset".to_string(), "semantic.embedding_provider".to_string()]);
    }

    #[test]
    fn syntax_errors_carry_line_and_column() {
        let err = Tuneables::parse("{\n  \"semantic\": {\n    \"min_similarity\": ,\n  }\n}", "t.json").unwrap_err();
        match err {
            ConfigError::Parse { line, .. } => assert_eq!(line, 3),
            other => panic!("unexpected {other:?}"),
        }
        assert!(err.to_string().starts_with("t.json: line 3 column"), "{err}");
    }

    #[test]
    fn out_of_range_values_are_refused() {
        let err = Tuneables::parse(r#"{"semantic": {"min_similarity": 1.5}}"#, "t.json").unwrap_err();
        assert!(err.to_string().contains("semantic.min_similarity"), "{err}");
        assert!(Tuneables::parse(r#"{"advice": {"char_budget_prompt": 20000}}"#, "t.json").is_err());
        assert!(Tuneables::parse(r#"{"sessions": {"max_events": 0}}"#, "t.json").is_err());
        assert!(Tuneables::parse(r#"{"advice": {"max_items_tool": 3}}"#, "t.json").is_err());
        assert!(Tuneables::parse(r#"{"advice": {"max_items_prompt": 9}}"#, "t.json").is_err());
    }

    #[test]
    fn comments_are_allowed_and_keep_line_numbers() {
        let loaded = Tuneables::parse("// top\n{ /* inline */ \"semantic\": {\"min_similarity\": 0.8} // tail\n}", "t.json").unwrap();
        assert_eq!(loaded.tuneables.semantic.min_similarity, 0.8);
        let err = Tuneables::parse("// one\n// two\n{ \"advice\": }", "t.json").unwrap_err();
        assert!(err.to_string().contains("line 3"), "{err}");
    }

    #[test]
    fn template_parses_to_the_defaults_and_documents_every_key() {
        let text = template();
        let loaded = Tuneables::parse(&text, "t.json").unwrap();
        assert_eq!(loaded.tuneables, Tuneables::default());
        assert!(loaded.unknown_keys.is_empty());
        for s in settings(&Tuneables::default(), &serde_json::Value::Null) {
            assert!(!describe(&s.key).is_empty(), "{} has no description", s.key);
        }
    }

    #[test]
    fn settings_say_where_values_came_from() {
        let loaded = Tuneables::parse(r#"{"advice": {"cooldown_s": 60}}"#, "t.json").unwrap();
        let all = settings(&loaded.tuneables, &loaded.file_value);
        let cooldown = all.iter().find(|s| s.key == "advice.cooldown_s").unwrap();
        assert_eq!((cooldown.value.clone(), cooldown.source), (serde_json::json!(60), "tuneables.json"));
        let other = all.iter().find(|s| s.key == "semantic.min_similarity").unwrap();
        assert_eq!(other.source, "default");
    }

    #[test]
    fn wrong_types_are_parse_errors() {
        assert!(matches!(Tuneables::parse(r#"{"advice": {"max_items_tool": "two"}}"#, "t.json"), Err(ConfigError::Parse { .. })));
    }
}
