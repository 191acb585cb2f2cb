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

/// The first JSON value on `reader`, without waiting for the end of input once it is complete.
/// `Ok(None)` on empty input.
pub fn read_first_value(reader: impl Read) -> Result<Option<Value>, serde_json::Error> {
    serde_json::Deserializer::from_reader(reader).into_iter::<Value>().next().transpose()
}

fn clip_string(s: &mut String) {
    if s.len() <= MAX_STRING_BYTES {
        return;
    }
    let mut cut = MAX_STRING_BYTES;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    let dropped = s.len() - cut;
    s.truncate(cut);
    s.push_str(&format!("...[{dropped} more bytes cut by cairn]"));
}

/// Cuts long strings, long arrays and deep nesting, in place.
pub fn truncate(value: &mut Value) {
    truncate_at(value, 0);
}

fn truncate_at(value: &mut Value, depth: usize) {
    match value {
        Value::String(s) => clip_string(s),
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
            items.iter_mut().for_each(|v| truncate_at(v, depth + 1));
        }
        Value::Object(map) => {
            if depth >= MAX_DEPTH {
                *value = Value::String("[object cut by cairn]".to_string());
                return;
            }
            map.values_mut().for_each(|v| truncate_at(v, depth + 1));
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
        assert!(content.ends_with("cut by cairn]"));
        assert_eq!(v["list"].as_array().unwrap().len(), MAX_ARRAY_ITEMS + 1);
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
}
