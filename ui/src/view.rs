//! What every page shares: the layout (title, navigation) and how numbers, times, projects and
//! links are written.

/// The pages in the navigation: path and label.
const PAGES: [(&str, &str); 5] = [("/", "Overview"), ("/advice", "Advice log"), ("/lessons", "Lessons"), ("/review", "Review"), ("/learning", "Learning")];

pub struct NavLink {
    pub href: &'static str,
    pub label: &'static str,
    pub current: bool,
}

/// The frame of a page: its title and which page of the navigation it is.
pub struct Layout {
    pub title: String,
    pub nav: Vec<NavLink>,
}

impl Layout {
    pub fn new(title: &str, current: &str) -> Layout {
        Layout { title: title.to_string(), nav: PAGES.iter().map(|(href, label)| NavLink { href, label, current: *href == current }).collect() }
    }
}

/// An option of a select list.
pub struct Opt {
    pub value: String,
    pub label: String,
    pub selected: bool,
}

/// A share as a percentage, or a dash when there is nothing to divide.
pub fn pct(v: Option<f64>) -> String {
    v.map_or("–".to_string(), |v| format!("{:.0}%", v * 100.0))
}

/// Milliseconds as the bucket bound they are ("≤ 2 ms", "> 1000 ms").
pub fn ms_bound(v: Option<f64>) -> String {
    match v {
        None => "–".to_string(),
        Some(v) if v.is_infinite() => format!("> {} ms", cairn_proto::HOOK_MS_BOUNDS[cairn_proto::HOOK_MS_BOUNDS.len() - 1]),
        Some(v) => format!("≤ {v} ms"),
    }
}

/// A stored time (`2026-11-25T21:38:36.123Z`) as `2026-11-25 21:38:36`.
pub fn time(at: &str) -> String {
    at.get(..19).map_or(at.to_string(), |s| s.replace('T', " "))
}

/// A project as people read it: `global`, or the last two parts of its path.
pub fn project(p: &str) -> String {
    let parts: Vec<&str> = p.trim_end_matches('/').rsplit('/').take(2).collect();
    if parts.len() < 2 || !p.starts_with('/') {
        return p.to_string();
    }
    format!("…/{}/{}", parts[1], parts[0])
}

/// A query string from pairs, the empty ones left out (`?a=1&b=2`, or nothing).
pub fn query(pairs: &[(&str, Option<&str>)]) -> String {
    let kept: Vec<(&str, &str)> = pairs.iter().filter_map(|(k, v)| v.filter(|v| !v.is_empty()).map(|v| (*k, v))).collect();
    if kept.is_empty() {
        return String::new();
    }
    format!("?{}", serde_urlencoded::to_string(kept).unwrap_or_default())
}

/// A path segment with anything unsafe in it encoded (ids are plain, but a page never trusts it).
pub fn segment(s: &str) -> String {
    let encoded = serde_urlencoded::to_string([("", s)]).unwrap_or_default();
    encoded.trim_start_matches('=').replace('+', "%20")
}

/// An empty form field as `None`.
pub fn given(v: &Option<String>) -> Option<String> {
    v.as_ref().map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(pct(Some(0.456)), "46%");
        assert_eq!(pct(None), "–");
        assert_eq!(ms_bound(Some(2.0)), "≤ 2 ms");
        assert_eq!(ms_bound(Some(f64::INFINITY)), "> 1000 ms");
        assert_eq!(time("2026-11-25T21:38:36.123Z"), "2026-11-25 21:38:36");
        assert_eq!(project("/home/me/src/app"), "…/src/app");
        assert_eq!(project("global"), "global");
        assert_eq!(query(&[("a", Some("x y")), ("b", None), ("c", Some(""))]), "?a=x+y");
        assert_eq!(query(&[]), "");
        assert_eq!(segment("m/1 x"), "m%2F1%20x");
        assert_eq!(given(&Some("  ".into())), None);
        let l = Layout::new("t", "/advice");
        assert!(l.nav.iter().any(|n| n.current && n.href == "/advice"));
    }
}
