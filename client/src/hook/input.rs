//! Reading and trimming the hook payload: only the first JSON value on stdin is read (Claude Code
//! has been seen to leave stdin open), and large fields are cut to a few KB before sending.

use std::io::Read;

use serde_json::Value;

/// Longest string kept in a payload, in bytes.
pub const MAX_STRING_BYTES: usize = 4096;
/// Most items kept in one array.
pub const MAX_ARRAY_ITEMS: usize = 64;
/// Deepest nesting kept.
pub const MAX_DEPTH: usize = 12;
/// Most bytes of a whole payload sent to the daemon.
pub const MAX_TOTAL_BYTES: usize = 64 * 1024;
/// String limit of the second, harder pass when a payload is still too large.
const TIGHT_STRING_BYTES: usize = 512;
/// Fields kept when even the hard pass leaves a payload too large.
const ENVELOPE: &[&str] = &["hook_event_name", "session_id", "cwd", "tool_name", "tool_use_id", "source", "reason", "prompt"];

/// The first JSON value on `reader`, without waiting for the end of input once it is complete.
/// `Ok(None)` on empty input.
pub fn read_first_value(reader: impl Read) -> Result<Option<Value>, serde_json::Error> {
    serde_json::Deserializer::from_reader(reader).into_iter::<Value>().next().transpose()
}

/// Cuts `s` to about `max` bytes, at whitespace, keeping its start and its end: a command says
/// what it does first, and an error or a log says what went wrong last (a traceback's exception,
/// a build's `error:` line). A cut never leaves part of a word (a token cut in half would no
/// longer look like the secret it is, and escape redaction).
fn clip_string(s: &mut String, max: usize) {
    if s.len() <= max {
        return;
    }
    let mut head = max * 3 / 4;
    while !s.is_char_boundary(head) {
        head -= 1;
    }
    head = s[..head].rfind(char::is_whitespace).unwrap_or(0);
    let mut tail = s.len() - (max - max * 3 / 4);
    while !s.is_char_boundary(tail) {
        tail += 1;
    }
    tail = s[tail..].find(char::is_whitespace).map_or(s.len(), |i| tail + i);
    let dropped = tail - head;
    let end = s[tail..].to_string();
    s.truncate(head);
    s.push_str(&format!("...[{dropped} bytes cut by cairn]..."));
    s.push_str(&end);
}

fn size(value: &Value) -> usize {
    serde_json::to_vec(value).map_or(usize::MAX, |v| v.len())
}

/// Cuts long strings, long arrays and deep nesting, in place, then makes sure the whole payload
/// stays under [`MAX_TOTAL_BYTES`]: without the tool's response (a result is advised on by its
/// input, which must stay as whole as before the call), then a harder cut, then only the
/// envelope (event, session, cwd, tool name, prompt).
pub fn truncate(value: &mut Value) {
    truncate_at(value, 0, MAX_STRING_BYTES);
    if size(value) <= MAX_TOTAL_BYTES {
        return;
    }
    if let Value::Object(map) = value {
        map.remove("tool_response");
        if size(value) <= MAX_TOTAL_BYTES {
            return;
        }
    }
    truncate_at(value, 0, TIGHT_STRING_BYTES);
    if size(value) <= MAX_TOTAL_BYTES {
        return;
    }
    if let Value::Object(map) = value {
        map.retain(|k, _| ENVELOPE.contains(&k.as_str()));
    }
}

fn truncate_at(value: &mut Value, depth: usize, max_string: usize) {
    match value {
        Value::String(s) => clip_string(s, max_string),
        Value::Array(items) => {
            if depth >= MAX_DEPTH {
                *value = Value::String(format!("[{} items cut by cairn]", items.len()));
                return;
            }
            if items.len() > MAX_ARRAY_ITEMS {
                let dropped = items.len() - MAX_ARRAY_ITEMS;
                items.truncate(MAX_ARRAY_ITEMS);
                items.push(Value::String(format!("[{dropped} more items cut by cairn]")));
            }
            items.iter_mut().for_each(|v| truncate_at(v, depth + 1, max_string));
        }
        Value::Object(map) => {
            if depth >= MAX_DEPTH {
                *value = Value::String("[object cut by cairn]".to_string());
                return;
            }
            map.values_mut().for_each(|v| truncate_at(v, depth + 1, max_string));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::io::{self, Cursor};

    /// A reader that hands out `data` and then fails, as a test that nothing past the value is read.
    struct ThenFail(Cursor<Vec<u8>>);
    impl Read for ThenFail {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            match self.0.read(buf)? {
                0 => Err(io::Error::other("read past the first value")),
                n => Ok(n),
            }
        }
    }

    #[test]
    fn stops_after_the_first_object() {
        let r = ThenFail(Cursor::new(br#"{"hook_event_name":"Stop"}"#.to_vec()));
        assert_eq!(read_first_value(r).unwrap().unwrap()["hook_event_name"], "Stop");
        let r = Cursor::new(b"{\"a\":1}\n{\"b\":2}garbage".to_vec());
        assert_eq!(read_first_value(r).unwrap().unwrap(), json!({"a": 1}));
    }

    #[test]
    fn empty_bad_and_truncated_input() {
        assert!(read_first_value(Cursor::new(Vec::new())).unwrap().is_none());
        assert!(read_first_value(Cursor::new(b"   ".to_vec())).unwrap().is_none());
        assert!(read_first_value(Cursor::new(b"{\"a\": ".to_vec())).is_err());
        assert!(read_first_value(Cursor::new(b"not json".to_vec())).is_err());
    }

    #[test]
    fn long_fields_are_cut_on_char_boundaries() {
        let mut v = json!({"tool_response": {"content": "é".repeat(5000)}, "list": (0..100).collect::<Vec<_>>()});
        truncate(&mut v);
        let content = v["tool_response"]["content"].as_str().unwrap();
        assert!(content.len() < MAX_STRING_BYTES + 64);
        assert!(content.contains("bytes cut by cairn]"));
        assert_eq!(v["list"].as_array().unwrap().len(), MAX_ARRAY_ITEMS + 1);
        // Its start and its end are kept: what went wrong is often said last.
        let mut v = json!({"error": format!("Traceback (most recent call last):\n{}ModuleNotFoundError: No module named 'requests'", "  File \"a.py\", line 1, in f\n".repeat(300))});
        truncate(&mut v);
        let error = v["error"].as_str().unwrap();
        assert!(error.starts_with("Traceback") && error.ends_with("No module named 'requests'") && error.len() < MAX_STRING_BYTES + 64, "{error}");
    }

    #[test]
    fn cuts_never_split_a_word() {
        let secret = "ghp_".to_string() + &"a".repeat(36);
        let mut v = json!({"command": format!("{} {secret} tail", "x ".repeat(2040))});
        truncate(&mut v);
        let command = v["command"].as_str().unwrap();
        assert!(!command.contains("ghp_") || command.contains(&secret), "a token is kept whole or not at all");
        let mut v = json!({"command": format!("{} {secret} {}", "x ".repeat(1000), "y ".repeat(1000))});
        truncate(&mut v);
        let command = v["command"].as_str().unwrap();
        assert!(!command.contains("ghp_") || command.contains(&secret), "a token is kept whole or not at all: {command}");
        let mut v = json!({"blob": "z".repeat(10_000)});
        truncate(&mut v);
        assert_eq!(v["blob"].as_str().unwrap(), "...[10000 bytes cut by cairn]...");
    }

    #[test]
    fn whole_payloads_stay_bounded() {
        let wide: serde_json::Map<String, Value> = (0..2000).map(|i| (format!("k{i}"), json!("v ".repeat(1000)))).collect();
        let mut v = json!({"hook_event_name": "PostToolUse", "session_id": "s", "tool_response": wide.clone(), "tool_input": wide});
        truncate(&mut v);
        assert!(size(&v) <= MAX_TOTAL_BYTES, "{}", size(&v));
        assert_eq!(v["hook_event_name"], "PostToolUse");
        assert_eq!(v["session_id"], "s");
    }

    #[test]
    fn deep_nesting_is_cut() {
        let mut v = json!(1);
        for _ in 0..50 {
            v = json!({ "x": v });
        }
        truncate(&mut v);
        assert!(v.to_string().contains("[object cut by cairn]"));
    }

    /// Any JSON value, nested a few levels, with strings long and short (some with spaces).
    fn any_value() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|n| json!(n)),
            "[a-z ]{0,40}".prop_map(Value::String),
            (1usize..20_000, "[a-z]{1,8}").prop_map(|(n, w)| Value::String(format!("{w} ").repeat(n / (w.len() + 1) + 1))),
            "\\PC{0,30}".prop_map(Value::String),
        ];
        leaf.prop_recursive(5, 160, 40, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..70).prop_map(Value::Array),
                proptest::collection::btree_map("[a-z_]{1,12}", inner, 0..20).prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    fn cases(default: u32) -> u32 {
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(cases(256)))]

        /// Whatever bytes come on stdin, reading never panics, and what it reads is only the
        /// first value.
        #[test]
        fn any_input_is_read_without_panic(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..2000)) {
            let _ = read_first_value(Cursor::new(bytes));
        }
    }

    proptest::proptest! {
        // Each case builds and cuts a payload of up to megabytes: fewer cases in the suite.
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(cases(48)))]

        /// A payload object of any shape, followed by anything, is cut to the bound and keeps
        /// its event name.
        #[test]
        fn any_payload_is_bounded_and_keeps_its_event(
            fields in proptest::collection::btree_map("[a-z_]{1,12}", any_value(), 0..12),
            event in proptest::sample::select(vec!["PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart"]),
            trailing in "\\PC{0,50}",
        ) {
            let mut map: serde_json::Map<String, Value> = fields.into_iter().collect();
            map.insert("hook_event_name".into(), json!(event));
            let text = format!("{}{trailing}", Value::Object(map));
            let mut v = read_first_value(Cursor::new(text.into_bytes())).unwrap().unwrap();
            truncate(&mut v);
            proptest::prop_assert!(size(&v) <= MAX_TOTAL_BYTES, "{} bytes", size(&v));
            proptest::prop_assert_eq!(v["hook_event_name"].as_str(), Some(event));
        }
    }
}
