//! The clock as cairn records it: RFC 3339 timestamps in UTC with exactly three digits of
//! milliseconds, which sort as text. Every time stored or shown comes from here.

use time::format_description::well_known::Rfc3339;
use time::format_description::BorrowedFormatItem;
use time::macros::format_description;
use time::{OffsetDateTime, UtcOffset};

/// Always three digits of milliseconds: RFC 3339's own formatting drops trailing zeros
/// (`12Z`, `12.26Z`), and `12Z` sorts after `12.597Z` as text though it is earlier.
const STORED: &[BorrowedFormatItem<'static>] = format_description!("[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z");

/// Now, as stored.
pub fn now() -> String {
    timestamp(OffsetDateTime::now_utc())
}

/// `t` as stored: RFC 3339, UTC, milliseconds.
pub fn timestamp(t: OffsetDateTime) -> String {
    let t = t.to_offset(UtcOffset::UTC);
    t.format(STORED).unwrap_or_else(|_| t.unix_timestamp().to_string())
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
        // Three digits always, so that text order is time order within a second too.
        let whole = time::macros::datetime!(2026-11-24 10:11:12 UTC);
        let tenths = time::macros::datetime!(2026-11-24 10:11:12.26 UTC);
        let later = time::macros::datetime!(2026-11-24 10:11:12.597 UTC);
        assert_eq!((timestamp(whole).as_str(), timestamp(tenths).as_str()), ("2026-11-24T10:11:12.000Z", "2026-11-24T10:11:12.260Z"));
        assert!(timestamp(whole) < timestamp(tenths) && timestamp(tenths) < timestamp(later));
        assert_eq!(parse_timestamp(&timestamp(whole)), Some(whole));
        // Another offset is stored as the same instant in UTC.
        let east = time::macros::datetime!(2026-11-24 12:11:12.5 +02:00);
        assert_eq!(timestamp(east), "2026-11-24T10:11:12.500Z");
    }
}
