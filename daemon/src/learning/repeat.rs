//! Instructions the user's own memory files say twice (`cairn import --claude-memory`): a
//! CLAUDE.md that says "use pnpm" under "Setup" and again, in other words, under "Rules" makes
//! one lesson, the first. Pure: the caller embeds.

use super::gate;
use crate::base::text;

/// How close in meaning (the texts alone) a line of the user's memory files must be to an
/// earlier one to be it said again. The duplicate model suits a candidate cairn captured, which
/// the user reviews; two of the user's own instructions taken for one lose what they wrote, and
/// parallel rules are common in those files: the model read "Run `pnpm test` before committing"
/// as "Run `pnpm lint` before committing" again (0.81, over its stricter bar), where their texts
/// lie 0.81 apart and restatements 0.84-0.91 (BENCHMARKS.md, "An instruction said twice in
/// CLAUDE.md").
pub const SAID_AGAIN_COSINE: f64 = 0.85;

/// One line of an import, for [`said_again`]: its project, its text and the embedding of its
/// text alone.
pub struct Line<'a> {
    pub project: &'a str,
    pub text: &'a str,
    pub vector: Option<&'a [f32]>,
}

/// For each line, in order, the earlier line of its project it says again, if it does: the same
/// instruction twice in a CLAUDE.md (once in "Setup", once in "Rules"), or in two files of one
/// project. With embeddings, the closest earlier line at least [`SAID_AGAIN_COSINE`] close that
/// does not prefer the opposite ([`gate::opposite`]); without them, only the same words.
/// A line said again is compared with the ones kept, not with other repeats, so the first of a
/// group always stays the lesson.
pub fn said_again(lines: &[Line<'_>]) -> Vec<Option<usize>> {
    let mut out: Vec<Option<usize>> = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        // The opposite preference, or the same rule turned round ("Never use tabs ..." after
        // "Use tabs ..."), is no repeat however close.
        let earlier = (0..i).filter(|&j| out[j].is_none() && lines[j].project == line.project && !gate::opposite(lines[j].text, line.text) && text::warns(lines[j].text) == text::warns(line.text));
        let again = match line.vector {
            Some(v) => earlier
                .filter_map(|j| lines[j].vector.map(|w| (j, f64::from(crate::retrieval::similarity::cosine(v, w)))))
                .filter(|(_, c)| *c >= SAID_AGAIN_COSINE)
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(j, _)| j),
            None => earlier.into_iter().find(|&j| text::terms(lines[j].text) == text::terms(line.text)),
        };
        out.push(again);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_instruction_said_again_is_the_first_one_of_its_project() {
        // Unit vectors at an angle: cosine 1 with itself, cos 10° = 0.98, cos 40° = 0.77.
        let at = |deg: f32| [deg.to_radians().cos(), deg.to_radians().sin()];
        let rows = [
            ("/p", "Use pnpm for everything here, not npm.", at(0.0)),
            ("/p", "Run pnpm lint before committing.", at(40.0)),
            ("/p", "Always use pnpm in this repository; npm and yarn are not allowed.", at(10.0)),
            ("/q", "Use pnpm for everything here, not npm.", at(0.0)),
            ("/p", "Always use pnpm in this repository; npm and yarn are not allowed!", at(10.0)),
            ("/p", "Use npm for everything here, not pnpm.", at(2.0)),
            ("/p", "Run pnpm test before committing.", at(80.0)),
            ("/p", "Use tabs for indentation in Go files.", at(120.0)),
            ("/p", "Never use tabs for indentation in Go files.", at(121.0)),
        ];
        let lines: Vec<Line<'_>> = rows.iter().map(|(p, t, v)| Line { project: p, text: t, vector: Some(v) }).collect();
        // The third says the first again; another project's copy is its own; a repeat of a
        // repeat is the first's; the opposite preference is no repeat however close; a
        // neighbouring rule under the bar is its own; the rule turned round is its own.
        assert_eq!(said_again(&lines), vec![None, None, Some(0), None, Some(0), None, None, None, None]);
        // Without embeddings: only the same words count.
        let words: Vec<Line<'_>> = rows.iter().map(|(p, t, _)| Line { project: p, text: t, vector: None }).collect();
        assert_eq!(said_again(&words), vec![None, None, None, None, Some(2), None, None, None, None]);
    }
}
