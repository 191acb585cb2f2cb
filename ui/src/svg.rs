//! Plots drawn on the server as SVG (no script, no external library): bars per day, stacked or
//! not, lines with gaps, horizontal bars for counts, and a lesson's neighbourhood as a small
//! radial graph. Colours come from the stylesheet by class; every mark has a `<title>` and
//! every figure a label, and the numbers are in a table beside each plot.

use std::fmt::Write;

const W: f64 = 480.0;
const H: f64 = 210.0;
const LEFT: f64 = 48.0;
const RIGHT: f64 = 12.0;
const TOP: f64 = 12.0;
const BOTTOM: f64 = 30.0;

/// Text made safe inside SVG or HTML.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// One named series of values (one per x), drawn in the stylesheet's class.
pub struct Series {
    pub name: String,
    pub class: &'static str,
    pub values: Vec<Option<f64>>,
}

fn legend(series: &[Series]) -> String {
    let mut s = String::from("<figcaption class=\"legend\">");
    for x in series {
        let _ = write!(s, "<span class=\"key\"><svg width=\"12\" height=\"12\" aria-hidden=\"true\"><rect width=\"12\" height=\"12\" class=\"{}\"/></svg> {}</span>", x.class, esc(&x.name));
    }
    s.push_str("</figcaption>");
    s
}

/// A round top for the axis: 1, 2 or 5 times a power of ten at or above `v`.
fn nice(v: f64) -> f64 {
    if v <= 0.0 || !v.is_finite() {
        return 1.0;
    }
    let p = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * p).find(|c| *c >= v).unwrap_or(10.0 * p)
}

fn frame(label: &str, xs: &[String], top: f64, fmt: &dyn Fn(f64) -> String, body: &str) -> String {
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let mut s = format!("<svg class=\"chart\" viewBox=\"0 0 {W} {H}\" role=\"img\" aria-label=\"{}\" preserveAspectRatio=\"xMinYMin meet\">", esc(label));
    for (frac, anchor) in [(0.0, 0.0), (0.5, 0.5), (1.0, 1.0)] {
        let y = TOP + ph * (1.0 - frac);
        let _ = write!(s, "<line class=\"grid\" x1=\"{LEFT}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\"/>", W - RIGHT);
        let _ = write!(s, "<text class=\"axis\" x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>", LEFT - 6.0, y + 4.0, esc(&fmt(top * anchor)));
    }
    if !xs.is_empty() {
        let n = xs.len();
        let picks: Vec<usize> = if n <= 2 { (0..n).collect() } else { vec![0, n / 2, n - 1] };
        for i in picks {
            // The first and last labels run inward from the plot's edges, so they never meet.
            let (x, anchor) = if i == 0 && n > 1 {
                (LEFT, "start")
            } else if i == n - 1 && n > 1 {
                (W - RIGHT, "end")
            } else {
                (LEFT + pw * (i as f64 + 0.5) / n as f64, "middle")
            };
            let _ = write!(s, "<text class=\"axis\" x=\"{x:.1}\" y=\"{}\" text-anchor=\"{anchor}\">{}</text>", H - 10.0, esc(&xs[i]));
        }
    }
    s.push_str(body);
    s.push_str("</svg>");
    s
}

/// Bars per x (a day), one bar per series side by side, or stacked.
pub fn bars(label: &str, xs: &[String], series: &[Series], stacked: bool) -> String {
    let n = xs.len().max(1);
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let total = |i: usize| series.iter().map(|s| s.values.get(i).copied().flatten().unwrap_or(0.0)).sum::<f64>();
    let max = if stacked { (0..n).map(total).fold(0.0, f64::max) } else { series.iter().flat_map(|s| s.values.iter().flatten().copied()).fold(0.0, f64::max) };
    let top = nice(max);
    let slot = pw / n as f64;
    let width = (slot * 0.8).max(0.5);
    let mut body = String::new();
    for i in 0..n {
        let mut base = 0.0;
        for (k, s) in series.iter().enumerate() {
            let v = s.values.get(i).copied().flatten().unwrap_or(0.0);
            if v <= 0.0 {
                continue;
            }
            let (x, w) = if stacked { (LEFT + slot * i as f64 + (slot - width) / 2.0, width) } else {
                let w = width / series.len() as f64;
                (LEFT + slot * i as f64 + (slot - width) / 2.0 + w * k as f64, w)
            };
            let h = ph * v / top;
            let y = TOP + ph - h - if stacked { ph * base / top } else { 0.0 };
            let _ = write!(body, "<rect class=\"{}\" x=\"{x:.2}\" y=\"{y:.2}\" width=\"{w:.2}\" height=\"{h:.2}\"><title>{}: {} {}</title></rect>", s.class, esc(xs.get(i).map_or("", |x| x)), v, esc(&s.name));
            if stacked {
                base += v;
            }
        }
    }
    format!("<figure>{}{}</figure>", frame(label, xs, top, &|v| format!("{v:.0}"), &body), legend(series))
}

/// Lines over x, broken where a value is missing; `top` fixes the axis (a rate: 1).
pub fn lines(label: &str, xs: &[String], series: &[Series], top: Option<f64>, fmt: &dyn Fn(f64) -> String) -> String {
    let n = xs.len().max(1);
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let finite = series.iter().flat_map(|s| s.values.iter().flatten().copied()).filter(|v| v.is_finite());
    let top = top.unwrap_or_else(|| nice(finite.fold(0.0, f64::max)));
    let mut body = String::new();
    for s in series {
        let mut run: Vec<(f64, f64)> = Vec::new();
        let flush = |run: &mut Vec<(f64, f64)>, body: &mut String| {
            if run.len() > 1 {
                let pts: Vec<String> = run.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
                let _ = write!(body, "<polyline class=\"line {}\" points=\"{}\"/>", s.class, pts.join(" "));
            }
            run.clear();
        };
        for i in 0..n {
            match s.values.get(i).copied().flatten().filter(|v| v.is_finite()) {
                Some(v) => {
                    let x = LEFT + pw * (i as f64 + 0.5) / n as f64;
                    let y = TOP + ph * (1.0 - (v / top).clamp(0.0, 1.0));
                    run.push((x, y));
                    let _ = write!(body, "<circle class=\"dot {}\" cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"2.5\"><title>{}: {} {}</title></circle>", s.class, esc(xs.get(i).map_or("", |x| x)), esc(&fmt(v)), esc(&s.name));
                }
                None => flush(&mut run, &mut body),
            }
        }
        flush(&mut run, &mut body);
    }
    format!("<figure>{}{}</figure>", frame(label, xs, top, fmt, &body), legend(series))
}

/// Horizontal bars: one row per name, its count written beside it.
pub fn hbars(label: &str, rows: &[(String, u64)]) -> String {
    if rows.is_empty() {
        return "<p class=\"empty\">Nothing to count yet.</p>".into();
    }
    let row_h = 22.0;
    let h = row_h * rows.len() as f64 + 4.0;
    let (name_w, bar_w) = (150.0, 280.0);
    let max = rows.iter().map(|r| r.1).max().unwrap_or(1).max(1) as f64;
    let mut s = format!("<svg class=\"hbars\" viewBox=\"0 0 {W} {h}\" role=\"img\" aria-label=\"{}\">", esc(label));
    for (i, (name, count)) in rows.iter().enumerate() {
        let y = i as f64 * row_h + 2.0;
        let w = (bar_w * *count as f64 / max).max(1.0);
        let shown: String = if name.chars().count() > 22 { format!("…{}", name.chars().rev().take(21).collect::<Vec<_>>().into_iter().rev().collect::<String>()) } else { name.clone() };
        let _ = write!(s, "<text class=\"label\" x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}<title>{}</title></text>", name_w - 8.0, y + 15.0, esc(&shown), esc(name));
        let _ = write!(s, "<rect class=\"bar\" x=\"{name_w}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{}\"><title>{}: {count}</title></rect>", row_h - 6.0, esc(name));
        let _ = write!(s, "<text class=\"label\" x=\"{:.1}\" y=\"{:.1}\">{count}</text>", name_w + w + 6.0, y + 15.0);
    }
    s.push_str("</svg>");
    s
}

/// A neighbour of a lesson in the graph.
pub struct Node {
    pub label: String,
    pub kind: String,
    pub strength: f64,
    /// `true`: the edge points at the lesson.
    pub incoming: bool,
    pub href: Option<String>,
}

/// The lesson in the middle and its neighbours around it, each edge as thick as it is strong.
pub fn graph(label: &str, center: &str, nodes: &[Node]) -> String {
    let (gw, cx, cy, r) = (720.0, 360.0, 170.0, 130.0);
    let h = 340.0;
    let mut s = format!("<svg class=\"graph\" viewBox=\"0 0 {gw} {h}\" role=\"img\" aria-label=\"{}\">", esc(label));
    let n = nodes.len().max(1) as f64;
    for (i, node) in nodes.iter().enumerate() {
        let a = std::f64::consts::TAU * i as f64 / n - std::f64::consts::FRAC_PI_2;
        let (x, y) = (cx + r * 1.9 * a.cos(), cy + r * a.sin());
        let width = 1.0 + 6.0 * node.strength.clamp(0.0, 1.0);
        let class = if node.strength >= 0.5 { "edge strong" } else { "edge weak" };
        let _ = write!(s, "<line class=\"{class}\" x1=\"{cx:.1}\" y1=\"{cy:.1}\" x2=\"{x:.1}\" y2=\"{y:.1}\" stroke-width=\"{width:.1}\"><title>{} {} {:.2}</title></line>", esc(&node.kind), if node.incoming { "into this lesson," } else { "from this lesson," }, node.strength);
        let short: String = node.label.chars().take(34).collect();
        let text = format!("<circle class=\"node {}\" cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"7\"/><text class=\"label\" x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}{}<title>{}</title></text>", esc(&node.kind), y - 11.0, esc(&short), if node.label.chars().count() > 34 { "…" } else { "" }, esc(&node.label));
        match &node.href {
            Some(href) => {
                let _ = write!(s, "<a href=\"{}\">{text}</a>", esc(href));
            }
            None => s.push_str(&text),
        }
    }
    let short: String = center.chars().take(40).collect();
    let _ = write!(s, "<circle class=\"node center\" cx=\"{cx}\" cy=\"{cy}\" r=\"11\"/><text class=\"label center\" x=\"{cx}\" y=\"{}\" text-anchor=\"middle\">{}</text>", cy + 28.0, esc(&short));
    s.push_str("</svg>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_follow_the_numbers_and_text_is_escaped() {
        assert_eq!(nice(0.0), 1.0);
        assert_eq!(nice(7.0), 10.0);
        assert_eq!(nice(130.0), 200.0);
        let xs = vec!["d1".to_string(), "d2".to_string()];
        let b = bars("said <per> day", &xs, &[Series { name: "said".into(), class: "s-said", values: vec![Some(3.0), Some(0.0)] }], true);
        assert_eq!(b.matches("<rect class=\"s-said\"").count(), 1, "a zero draws no bar");
        assert!(b.contains("said &lt;per&gt; day") && b.contains("d1: 3 said"));
        let l = lines("rates", &xs, &[Series { name: "hit".into(), class: "s-hit", values: vec![Some(0.5), None] }], Some(1.0), &|v| format!("{v}"));
        assert_eq!(l.matches("<circle").count(), 1);
        assert!(!l.contains("<polyline"), "one point draws no line");
        let h = hbars("p", &[("<a>".into(), 3)]);
        assert!(h.contains("&lt;a&gt;") && !h.contains("<a>"));
        let g = graph("g", "lesson", &[Node { label: "s".into(), kind: "applies".into(), strength: 0.8, incoming: true, href: Some("/lesson/x".into()) }]);
        assert!(g.contains("href=\"/lesson/x\"") && g.contains("edge strong"));
    }
}
