//! The clock as cairn records it: RFC 3339 timestamps in UTC with millisecond precision, which
//! sort as text. Every time stored or shown comes from here.

use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// Now, as stored.
pub fn now() -> String {
    timestamp(OffsetDateTime::now_utc())
}

/// `t` as stored: RFC 3339, UTC, milliseconds.
pub fn timestamp(t: OffsetDateTime) -> String {
    let t = t.replace_nanosecond(t.millisecond() as u32 * 1_000_000).unwrap_or(t);
    t.format(&Rfc3339).unwrap_or_else(|_| t.unix_timestamp().to_string())
}

pub fn parse_timestamp(s: &str) -> Option<OffsetDateTime> {
    OffsetDateTime::parse(s, &Rfc3339).ok()
}

/// Milliseconds since the Unix epoch, now.
pub fn now_unix_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_millis() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_have_millisecond_precision_and_round_trip() {
        let t = now();
        assert!(t.ends_with('Z'), "{t}");
        let parsed = parse_timestamp(&t).expect("parses");
        assert_eq!(timestamp(parsed), t);
        let exact = time::macros::datetime!(2026-11-24 10:11:12.123456789 UTC);
        assert_eq!(timestamp(exact), "2026-11-24T10:11:12.123Z");
    }
}
