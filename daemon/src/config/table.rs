//! The settings table: every setting of `tuneables.json` once, with its key, its default, the
//! range it must lie in, what it does, and the name it had before. Defaults, validation, where
//! each value came from, renamed keys and the commented file `cairn config init` writes are all
//! read from here ([`super::tuneables`]); no other default exists.
//!
//! Blocks are named for what they hold: `model` (the embedding model), `retrieval` (how keyword
//! and meaning evidence become one relevance), `ranking` (how advice is decided), `triggers`,
//! `advice` (how much one answer says), `sessions`, `store`. Spark's `semantic` block held the
//! first three; its keys are still read, and reported as renamed.

/// Largest config file cairn reads (1 MiB), settings or trigger rules: a settings file is a few
/// KiB, and a file past this is a mistake (or `/dev/zero` behind a symlink), reported as such.
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// A group of settings: a JSON object in the file.
pub struct Block {
    /// Dotted path of the object (a block inside another is named `outer.inner`).
    pub path: &'static str,
    pub doc: &'static str,
}

/// What a setting holds, with its default.
#[derive(Debug, Clone, Copy)]
pub enum Default {
    Bool(bool),
    Number(f64),
    /// A whole number, zero or more.
    Count(u64),
    /// A string; for paths, empty means "cairn's own".
    Text(&'static str),
    /// One of the listed words.
    Choice(&'static str, &'static [&'static str]),
    /// A map of names to counts, each default entry with what it means.
    Counts(&'static [(&'static str, u64, &'static str)]),
}

/// The range a setting's value must lie in; `rule` (when set) replaces the generated message.
#[derive(Debug, Clone, Copy)]
pub enum Check {
    Any,
    /// A number within [min, max].
    Between(f64, f64),
    /// A number strictly above.
    Above(f64),
    /// A count within [min, max].
    Within(u64, u64),
    AtLeast(u64),
    AtMost(u64),
}

pub struct Setting {
    /// Dotted key: block path and name.
    pub key: &'static str,
    /// The key it had before (read, and reported as renamed); empty when it never moved.
    pub was: &'static str,
    pub default: Default,
    pub check: Check,
    /// The message for a value out of range, when the generated one says too little.
    pub rule: Option<&'static str>,
    pub doc: &'static str,
}

impl Setting {
    /// The setting's name within its block.
    pub fn name(&self) -> &'static str {
        self.key.rsplit('.').next().unwrap_or(self.key)
    }

    /// The path of its block.
    pub fn block(&self) -> &'static str {
        self.key.rsplit_once('.').map_or("", |(b, _)| b)
    }
}

const UNIT: Check = Check::Between(0.0, 1.0);

macro_rules! setting {
    ($key:literal, $was:literal, $default:expr, $check:expr, $doc:literal) => {
        Setting { key: $key, was: $was, default: $default, check: $check, rule: None, doc: $doc }
    };
    ($key:literal, $was:literal, $default:expr, $check:expr, rule $rule:literal, $doc:literal) => {
        Setting { key: $key, was: $was, default: $default, check: $check, rule: Some($rule), doc: $doc }
    };
}

/// Every block, outermost first, in the order the file lists them.
pub const BLOCKS: &[Block] = &[
    Block { path: "model", doc: "The embedding model: whether meaning takes part, which files, and how it runs." },
    Block { path: "retrieval", doc: "How keyword and meaning evidence become one relevance for `search` (advice weighs raw closeness in its own learned decision)." },
    Block { path: "ranking", doc: "How advice is decided: the learned decision's bar, the weights it cannot learn, diversity and caps." },
    Block { path: "triggers", doc: "Trigger rules from trigger_rules.yaml (Spark's `triggers` block)." },
    Block { path: "advice", doc: "How much one answer may say." },
    Block { path: "sessions", doc: "The session log: what happened in each agent session." },
    Block { path: "store", doc: "The store." },
    Block { path: "learning", doc: "The learning loop: how feedback on moments (situations) and the memory graph's strengths change what is said." },
    Block { path: "capture", doc: "Lessons cairn captures itself from corrections and recoveries: the quality gate and how a candidate earns its voice." },
];

/// Blocks that no longer exist, whose keys moved (each key's `was` says where it went).
pub const OLD_BLOCKS: &[&str] = &["semantic"];

/// Settings whose meaning changed, with the default they had before: a file that still gives
/// that value most likely got it from `cairn config init` of an earlier release, and is told so
/// (the value is kept: it was written, so it is the user's until they remove it).
pub const CHANGED_MEANING: &[(&str, f64, &str)] = &[
    ("ranking.min_fusion_score", 0.8, "it was the bar on a hand-set score; it is now the learned decision's probability bar"),
    ("ranking.min_similarity", 0.5, "it was the relevance gate before the decision; it is now an optional floor, off by default"),
    ("retrieval.weight_similarity", 0.7, "search's calibration was retuned with a paraphrase set"),
    ("retrieval.similarity_floor", 0.15, "search's calibration was retuned with a paraphrase set"),
    ("retrieval.similarity_ceiling", 0.9, "search's calibration was retuned with a paraphrase set"),
];

/// Every setting, in the order of the file.
pub const SETTINGS: &[Setting] = &[
    setting!("model.enabled", "semantic.enabled", Default::Bool(true), Check::Any, "Use embeddings in retrieval when the model is available (`cairn setup` fetches it)."),
    setting!("model.embedding_model", "semantic.embedding_model", Default::Text(""), Check::Any, "Path of an ONNX sentence-transformer of your own; empty for the built-in model (restart to apply)."),
    setting!("model.embedding_tokenizer", "semantic.embedding_tokenizer", Default::Text(""), Check::Any, "Path of the tokenizer.json for embedding_model (restart to apply)."),
    setting!("model.onnx_runtime", "semantic.onnx_runtime", Default::Text(""), Check::Any, "Path of the ONNX Runtime library; empty for ORT_DYLIB_PATH, else cairn's own copy (restart to apply)."),
    setting!("model.max_tokens", "semantic.max_tokens", Default::Count(256), Check::Within(1, 512), rule "must be between 1 and 512 (sentence-transformer models read at most 512 tokens)", "Longest window of tokens embedded at once; longer texts are embedded in windows (restart to apply)."),
    setting!("model.threads", "semantic.threads", Default::Count(2), Check::Within(1, 64), "Threads one embedding may use (restart to apply)."),
    setting!("model.query_cache_size", "semantic.query_cache_size", Default::Count(1024), Check::Within(1, 100_000), "Query embeddings kept in memory (restart to apply)."),
    setting!("model.hook_wait_ms", "", Default::Count(25), Check::Within(0, 150), rule "must be between 0 and 150 (the hook's whole answer has 200 ms)", "Longest a hook waits for the model while another answer embeds (parallel tool calls come together); past it the hook goes by keywords. 0 never waits."),
    // Search's calibration, tuned on LoCoMo's tuning conversations together with the paraphrase
    // set's tune part (BENCHMARKS.md): the best LoCoMo recall among fusions that find paraphrases
    // at least as well as plain cosine.
    setting!("retrieval.weight_similarity", "semantic.weight_similarity", Default::Number(0.45), UNIT, "How much embedding similarity counts in relevance beside keywords (0: not at all; 1: a perfect paraphrase alone is fully relevant)."),
    setting!("retrieval.similarity_floor", "semantic.similarity_floor", Default::Number(0.0), Check::Between(-1.0, 1.0), "Cosine similarity at or below which the semantic part of relevance is 0."),
    setting!("retrieval.similarity_ceiling", "semantic.similarity_ceiling", Default::Number(1.0), Check::Between(-1.0, 1.0), "Cosine similarity at or above which the semantic part of relevance is 1."),
    setting!("retrieval.words_exponent", "", Default::Number(2.0), Check::Between(1.0, 4.0), "The keyword part of relevance is the share of the query a memory covers raised to this power: above 1, a match on one incidental word weighs little beside meaning."),
    setting!("retrieval.search_min_similarity", "", Default::Number(0.15), Check::Between(-1.0, 1.0), "`cairn search` shows a memory that shares no word with the query only when its cosine similarity reaches this (below it, closeness in meaning is noise)."),
    setting!("ranking.min_similarity", "semantic.min_similarity", Default::Number(0.0), UNIT, "An optional floor on retrieval relevance (keywords and embeddings fused on advice's own calibration) before the decision; 0: none (the decision weighs closeness itself). A trigger match bypasses it."),
    setting!("ranking.min_matched_terms", "semantic.min_matched_terms", Default::Count(2), Check::Any, "Distinct query words a keyword match must share (fewer for shorter queries), when there are no embeddings."),
    // The shipped decision model's operating point, chosen on the tune part of the advice set
    // (decision.json says how; a test keeps the two equal).
    setting!("ranking.min_fusion_score", "semantic.min_fusion_score", Default::Number(0.66), UNIT, "The decision's bar: the probability (from the learned decision model) a lesson must reach to be said; higher says less."),
    setting!("ranking.weight_outcome", "semantic.weight_outcome", Default::Number(0.3), UNIT, "How much a memory's proven effectiveness moves the decision (a share of probability; the learning loop fills effectiveness)."),
    setting!("ranking.weight_recency", "semantic.weight_recency", Default::Number(0.1), UNIT, "How much a recently touched memory is lifted in the decision (a share of probability)."),
    setting!("ranking.recency_half_life_days", "semantic.recency_half_life_days", Default::Number(30.0), Check::Above(0.0), "Days for a memory's recency to halve."),
    setting!("ranking.mmr_lambda", "semantic.mmr_lambda", Default::Number(0.5), UNIT, "MMR balance between score (1) and diversity (0)."),
    setting!("ranking.mmr_duplicate_similarity", "semantic.mmr_duplicate_similarity", Default::Number(0.9), UNIT, "An item at least this similar (cosine) to one already chosen is dropped as a duplicate."),
    setting!("ranking.min_relative_score", "semantic.min_relative_score", Default::Number(0.8), UNIT, "An item whose probability is under this share of the best item's is not said beside it (0: no such bar)."),
    setting!("ranking.category_caps", "semantic.category_caps", Default::Counts(&[("default", 2, "The cap for categories not named here.")]), Check::Any, "Most items per memory category in one answer; `default` for the rest (0 keeps a category out)."),
    setting!("triggers.enabled", "", Default::Bool(true), Check::Any, "Whether trigger rules apply (the built-in ones and trigger_rules.yaml's)."),
    setting!("triggers.builtin_rules", "", Default::Bool(true), Check::Any, "Whether cairn's built-in rules (destructive commands, secrets in the input, printed or committed, a database client on production, force-push, deployment, SQL built from values) apply; a rule of yours with the same name replaces one."),
    setting!("triggers.learned_confidence", "", Default::Number(0.7), UNIT, "Confidence in a learned rule (yours and cairn's have 1)."),
    setting!("triggers.min_category_relevance", "", Default::Number(0.15), UNIT, "A `category:NAME` surface picks the category's most relevant memory only when it is at least this relevant to the event."),
    setting!("triggers.interrupts", "", Default::Choice("off", &["off", "ask", "deny"]), Check::Any, "What a critical rule with `interrupt: true` does to a matching tool call: \"off\" (only advise), \"ask\" (Claude Code asks you first) or \"deny\". Never on a read-only action."),
    setting!("advice.max_items_tool", "", Default::Count(2), Check::Within(1, 2), rule "must be 1 or 2: a tool call gets at most 2 lessons", "Most lessons for one tool call."),
    setting!("advice.max_items_prompt", "", Default::Count(8), Check::Within(1, 8), "Most lessons for one prompt."),
    setting!("advice.max_items_session_start", "", Default::Count(3), Check::Within(1, 8), "Most lessons at the start of a session."),
    setting!("advice.char_budget_tool", "", Default::Count(600), Check::AtMost(9000), rule "must stay under Claude Code's 10,000-character cap (at most 9000)", "Characters of advice for one tool call (at most 9000)."),
    setting!("advice.char_budget_prompt", "", Default::Count(2400), Check::AtMost(9000), rule "must stay under Claude Code's 10,000-character cap (at most 9000)", "Characters of advice for one prompt (at most 9000)."),
    setting!("advice.char_budget_session_start", "", Default::Count(1800), Check::AtMost(2000), rule "must be at most 2000: the session-start brief stays short", "Characters of the session-start brief (at most 2000)."),
    setting!("advice.brief_prediction", "", Default::Number(0.2), UNIT, "How much the prediction of what a project needs next weighs in its startup brief, beside effectiveness (0.5) and recency (0.3); 0 leaves prediction out."),
    setting!("advice.cooldown_s", "", Default::Count(900), Check::Any, "Seconds before a lesson may be repeated within one session."),
    setting!("sessions.retention_days", "", Default::Count(30), Check::AtLeast(1), "Days an event is kept."),
    setting!("sessions.max_events", "", Default::Count(100_000), Check::AtLeast(1), "Most events kept; past it, each new event retires the oldest."),
    setting!("store.cache_mb", "", Default::Count(64), Check::AtLeast(1), "Page cache of the store in MB (takes effect at restart)."),
    // The learning loop: feedback on moments (situations), the graph's strengths, the three tiers
    // of change of the link-strength design.
    setting!("learning.enabled", "", Default::Bool(true), Check::Any, "Whether what was learned (situations, links, node weights) takes part in advice; feedback is kept either way."),
    setting!("learning.step_deliberate", "", Default::Number(0.01), Check::Between(0.0, 0.5), "How far one feedback verb moves an edge's strength (a situation's link first moves to the judgement's side of 0.5)."),
    setting!("learning.step_automatic", "", Default::Number(0.00001), Check::Between(0.0, 0.01), "How far lessons said together in a session that went well (one followed, none contradicted) move their `co_used` edges, per session."),
    setting!("learning.node_step", "", Default::Number(0.1), Check::Between(0.0, 0.95), "How far one `not-useful` lowers a lesson's node weight (1 at first, never under 0.05)."),
    setting!("learning.situation_floor", "", Default::Number(0.5), Check::Between(-1.0, 1.0), "How close a moment must be to a learned situation (cosine, or shared words without embeddings) for it to count at all."),
    setting!("learning.same_moment", "", Default::Number(0.85), Check::Between(-1.0, 1.0), "How close a moment must be to a situation for its judgement to decide alone: one that applies speaks like a rule, one that does not keeps the lesson silent."),
    setting!("learning.same_command", "", Default::Number(0.9), Check::Between(0.0, 1.0), "How close a moment counts to a situation you said a lesson applies to when it runs the same command on other arguments (the same program and subcommand: `npm install lodash` after `npm install left-pad`), as far as it has the situation's words the lesson names; at `learning.same_moment` or above the lesson speaks there. 0: commands are compared by meaning only."),
    setting!("learning.same_anchors", "", Default::Number(0.7), Check::Between(0.0, 1.0), "How close a moment counts to a situation you said a lesson applies to when it is the same kind of action (an edit, a prompt, a call of the same tool) with every word of the situation that the lesson names, and no word of the lesson the situation lacks (`process.env` read in another file, after a lesson on reading config once); at `learning.same_moment` or above the lesson speaks there. 0: off."),
    setting!("learning.same_situation", "", Default::Number(0.95), Check::Between(-1.0, 1.0), "How close a new moment must be to a situation of its project to count as the same one (strengthened, not added)."),
    setting!("learning.max_situations_per_project", "", Default::Count(2000), Check::AtLeast(1), "Most situations kept per project; past it, the one unused longest goes."),
    setting!("learning.max_situations_per_lesson", "", Default::Count(50), Check::AtLeast(1), "Most situations linked to one lesson; past it, the one unused longest goes."),
    setting!("learning.situation_half_life_days", "", Default::Number(90.0), Check::Above(0.0), "Days for a situation's say to halve while no judgement renews it (it fades)."),
    setting!("learning.max_adjustments", "", Default::Count(100_000), Check::AtLeast(100), "Most lines kept in the graph's adjustment log; past it, the oldest go."),
    setting!("learning.outcomes", "", Default::Bool(true), Check::Any, "Whether what happened after a lesson was said (followed, ignored, contradicted) is attributed and moves its worth and links; the verdicts are shown in `cairn log`."),
    setting!("learning.step_outcome", "", Default::Number(0.005), Check::Between(0.0, 0.5), "How far a followed or contradicted lesson moves the link of the moment it was said at (a link you judged the other way is moved toward 0.5, never past it)."),
    setting!("learning.outcome_window_calls", "", Default::Count(8), Check::AtLeast(1), "How many acting tool calls after a lesson was said are read for what became of it."),
    setting!("learning.outcome_window_minutes", "", Default::Number(15.0), Check::Above(0.0), "How many minutes after a lesson was said are read for what became of it."),
    setting!("learning.weight_activation", "", Default::Number(3.0), Check::Between(0.0, 10.0), "Logit a lesson gains per unit of activation spread to it along the graph's edges from a lesson of the moment (shown as `learned: linked from ...` in `why`)."),
    setting!("learning.weight_learned", "", Default::Number(0.0), Check::Between(0.0, 10.0), "Logit a lesson gains from the closest situation you said it applies to, per unit of closeness above `learning.situation_floor` (as a share of the way to 1), besides that closeness standing in for an example moment's."),
    setting!("learning.spread_decay", "", Default::Number(0.5), Check::Between(0.0, 1.0), "What each hop of spreading activation keeps, times the edge's weight (its strength above 0.5, doubled)."),
    setting!("learning.spread_floor", "", Default::Number(0.1), Check::Between(0.0, 1.0), "Activation under this stops spreading and counts for nothing."),
    setting!("learning.spread_hops", "", Default::Count(2), Check::Within(1, 2), rule "must be 1 or 2", "How many edges activation crosses from a lesson of the moment: 1 or 2."),
    // Capture: candidates from the session log, the quality gate, promotion.
    setting!("capture.enabled", "", Default::Bool(true), Check::Any, "Whether corrections, standing instructions and recoveries in your sessions become candidate lessons (read after each answer; no model call)."),
    setting!("capture.promote_after", "", Default::Count(2), Check::AtLeast(1), "How many of a candidate's shadow moments (where it would have been said) must be confirmed before it speaks on its own."),
    setting!("capture.window_calls", "", Default::Count(5), Check::AtLeast(1), "How many tool results after a failed call are read for the changed call that worked (a recovery)."),
    setting!("capture.window_minutes", "", Default::Number(10.0), Check::Above(0.0), "How many minutes after a failed call a recovery may come."),
    setting!("capture.repeated_failure_sessions", "", Default::Count(2), Check::AtLeast(2), "In how many sessions the same failure must be seen, never recovered from, to become a candidate."),
    setting!("capture.quality_bar", "", Default::Number(0.55), Check::Between(0.0, 1.0), "The quality gate's score for `quality` (a candidate that may promote itself)."),
    setting!("capture.keep_bar", "", Default::Number(0.40), Check::Between(0.0, 1.0), "The quality gate's score under which a candidate is too vague to keep."),
    setting!("capture.duplicate_cosine", "", Default::Number(0.75), Check::Between(0.0, 1.0), "Cosine at which a candidate is an existing lesson again whatever the learned duplicate model says (that lesson is strengthened instead); under another embedding model than the one that model was fitted with, 0.10 under it when a third of the words are shared."),
];

/// The setting whose key, or former key, is `key`.
pub fn find(key: &str) -> Option<&'static Setting> {
    SETTINGS.iter().find(|s| s.key == key || (!s.was.is_empty() && s.was == key))
}

/// The default of one entry of a map of counts (`ranking.category_caps`, `default`).
pub fn count_default(key: &str, entry: &str) -> Option<u64> {
    match find(key)?.default {
        Default::Counts(entries) => entries.iter().find(|(name, _, _)| *name == entry).map(|(_, n, _)| *n),
        _ => None,
    }
}

/// Whether `path` names a block (current or former).
pub fn is_block(path: &str) -> bool {
    BLOCKS.iter().any(|b| b.path == path) || OLD_BLOCKS.contains(&path)
}

pub fn block_doc(path: &str) -> &'static str {
    BLOCKS.iter().find(|b| b.path == path).map_or("", |b| b.doc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_whole_and_consistent() {
        let mut keys = std::collections::HashSet::new();
        for s in SETTINGS {
            assert!(keys.insert(s.key), "{} twice", s.key);
            assert!(!s.doc.is_empty(), "{} has no doc", s.key);
            assert!(BLOCKS.iter().any(|b| b.path == s.block()), "{} is in no block", s.key);
            if !s.was.is_empty() {
                assert!(OLD_BLOCKS.iter().any(|b| s.was.starts_with(&format!("{b}."))), "{} was {}, in no former block", s.key, s.was);
                assert_eq!(s.was.rsplit('.').next(), Some(s.name()), "a moved key keeps its name");
            }
        }
        for b in BLOCKS {
            assert!(!b.doc.is_empty(), "block {} has no doc", b.path);
            assert!(SETTINGS.iter().any(|s| s.key.starts_with(&format!("{}.", b.path))), "block {} is empty", b.path);
        }
        // Settings read at start only say so.
        for key in ["model.embedding_model", "model.embedding_tokenizer", "model.onnx_runtime", "model.max_tokens", "model.threads", "model.query_cache_size"] {
            assert!(find(key).unwrap().doc.contains("(restart to apply)"), "{key}");
        }
    }

    #[test]
    fn old_keys_find_their_new_home() {
        assert_eq!(find("semantic.min_fusion_score").map(|s| s.key), Some("ranking.min_fusion_score"));
        assert_eq!(find("semantic.max_tokens").map(|s| s.key), Some("model.max_tokens"));
        assert_eq!(find("semantic.weight_similarity").map(|s| s.key), Some("retrieval.weight_similarity"));
        assert!(find("semantic.embedding_provider").is_none());
        assert!(is_block("semantic") && is_block("triggers") && !is_block("preset") && !is_block("triggers.priority_bonus"));
        assert_eq!(count_default("ranking.category_caps", "default"), Some(2));
        assert_eq!(count_default("ranking.category_caps", "git"), None);
    }
}
