//! Renders chosen advice as the text Claude Code receives in `additionalContext`, within a
//! character budget. Pure; no I/O.

/// One piece of advice ready to render.
#[derive(Debug, Clone)]
pub struct Line<'a> {
    pub category: &'a str,
    pub text: &'a str,
    /// The reason in a few words, shown after the lesson (may be empty).
    pub why: &'a str,
}

const HEADER: &str = "cairn memory (lessons from earlier work; ignore any that do not apply):";
/// Below this many characters left, another item would be too clipped to help.
const MIN_ITEM_CHARS: usize = 40;

fn clip_chars(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max.saturating_sub(3)).collect();
    out.push_str("...");
    out
}

/// The context text, at most `budget` characters, and how many of `lines` it holds (a prefix);
/// `None` when nothing fits.
pub fn render(lines: &[Line<'_>], budget: usize) -> Option<(String, usize)> {
    let mut out = String::from(HEADER);
    let mut used = out.chars().count();
    let mut items = 0;
    for line in lines {
        let prefix = format!("\n- [{}] ", line.category);
        // The reason travels with the lesson; the lesson's text is what gets clipped.
        let suffix = if line.why.trim().is_empty() { String::new() } else { format!(" ({})", line.why.trim()) };
        let room = budget.saturating_sub(used + prefix.chars().count() + suffix.chars().count());
        if room < MIN_ITEM_CHARS {
            break;
        }
        let text = clip_chars(line.text.trim(), room);
        used += prefix.chars().count() + text.chars().count() + suffix.chars().count();
        out.push_str(&prefix);
        out.push_str(&text);
        out.push_str(&suffix);
        items += 1;
    }
    (items > 0).then_some((out, items))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_items_under_a_header() {
        let (out, n) = render(&[Line { category: "git", text: "Never force-push main.", why: "trigger force_push (critical)" }], 500).unwrap();
        assert_eq!(out, format!("{HEADER}\n- [git] Never force-push main. (trigger force_push (critical))"));
        assert_eq!(n, 1);
    }

    #[test]
    fn respects_the_budget() {
        let long = "word ".repeat(400);
        let lines = vec![Line { category: "a", text: &long, why: "relevance 0.70" }, Line { category: "b", text: &long, why: "" }];
        for budget in [160, 300, 600, 2000] {
            let (out, n) = render(&lines, budget).unwrap();
            assert!(out.chars().count() <= budget, "{} > {budget}", out.chars().count());
            assert_eq!(n, out.matches("\n- [").count(), "the count is what was rendered");
            assert!(out.contains("(relevance 0.70)"), "the reason is never clipped away");
        }
        // A first item that fills the budget leaves the second out, and says so.
        assert_eq!(render(&lines, 300).unwrap().1, 1);
    }

    #[test]
    fn nothing_when_nothing_fits() {
        assert!(render(&[], 500).is_none());
        assert!(render(&[Line { category: "a", text: "text", why: "" }], 10).is_none());
    }
}
