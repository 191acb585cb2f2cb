//! Deciding what to say, in this order and never the other way round (Spark's fix 2):
//! 1. the gate: an optional floor on retrieval relevance (`min_similarity`, off by default)
//!    and, without embeddings, enough shared words; a trigger's candidate bypasses it, since its
//!    pattern matched;
//! 2. the decision ([`super::fuse`], [`super::decision`]): the learned model's probability
//!    against its bar (`min_fusion_score`). A moment closer to one of the lesson's near misses
//!    than to the lesson and its examples is not advised, nor is a lesson about production at a
//!    command or request aimed at a local or test target ([`super::scope`]). A rule of the
//!    user's, the pack's or cairn's own (not a learned one) is an instruction rather than
//!    evidence: what it puts forward speaks whatever the model says, unless the moment is one
//!    of the lesson's near misses (as close as `learning.same_moment` to one: the rule's match
//!    says more than the model's closeness); a critical rule speaks even then (it may be the
//!    user's own order to stop such commands), except the pack's at a local target. The user's own feedback is an instruction too: on a moment as close as
//!    `learning.same_moment` to a situation they said a lesson applies to (and closer to it
//!    than to any they said it does not), the lesson speaks like a rule's; one they said it does
//!    not apply to is a near miss. The model decides what retrieval alone, or a learned rule,
//!    puts forward;
//! 3. cooldown, MMR and category caps ([`super::diversity`]), the best item's company, and the
//!    item limit.
//!
//! Pure and cheap, so that the advice benchmark can fit and measure over gathered candidates.

use super::candidate::Candidate;
use super::diversity;
use super::explain::Verdict;
use super::fuse::{fuse, Scored};
use super::policy::{Gates, Policy};
use super::salience::Salience;
use crate::config::rules::Priority;

/// What the advisor made of one event: what it would say (in order) and what it would not, with
/// the verdict for each.
#[derive(Debug, Default)]
pub struct Considered {
    pub said: Vec<Scored>,
    pub not_said: Vec<(Scored, Verdict)>,
}

/// The relevance gate. Triggered candidates pass: their rule matched the action itself; so do
/// those the user's feedback on a moment like this one puts forward.
pub fn gate(c: &Candidate, gates: &Gates) -> Result<(), String> {
    if c.trigger.is_some() || c.by_feedback(gates.same_moment) {
        return Ok(());
    }
    let Some(h) = &c.hit else { return Err("not retrieved".into()) };
    if h.relevance < gates.min_similarity {
        return Err(format!("relevance {:.2} < min_similarity {:.2}", h.relevance, gates.min_similarity));
    }
    let needed = gates.min_matched_terms.min(h.query_terms);
    if h.cosine.is_none() && h.example.is_none() && h.matched.len() < needed {
        return Err(format!("no embeddings, and {} of the {needed} query words needed matched", h.matched.len()));
    }
    Ok(())
}

/// A rule of the user's, the pack's or cairn's own (not a learned one) put it forward.
pub fn by_rule(c: &Candidate) -> bool {
    c.trigger.as_ref().is_some_and(|t| !t.learned)
}

/// The user's feedback says the lesson applies to a moment like this one: a situation they
/// linked to it is at least `same_moment` close, closer than any they said it is not for.
pub fn by_feedback(c: &Candidate, same_moment: f64) -> bool {
    c.by_feedback(same_moment)
}

/// What speaks as an instruction: a rule (not a learned one) or the user's feedback.
pub fn instructed(c: &Candidate, same_moment: f64) -> bool {
    by_rule(c) || by_feedback(c, same_moment)
}

/// A critical rule of the user's, the pack's or cairn's own put it forward.
pub fn by_critical_rule(s: &Scored) -> bool {
    by_rule(&s.candidate) && s.candidate.trigger.as_ref().is_some_and(|t| t.priority == Priority::Critical)
}

/// Why the moment reads as one of the lesson's near misses, if it does.
fn near_miss(s: &Scored, same_moment: f64) -> Option<String> {
    if let Some(rule) = &s.candidate.safe_form {
        return Some(format!("the safe form of rule {rule}'s case (its `unless` matched)"));
    }
    if let Some(why) = &s.candidate.elsewhere {
        return Some(why.clone());
    }
    // A recovery's lesson at a moment like the failed call it was captured from, where the action
    // already makes the call that worked (`VERSION=2.0.0 make release` beside "`make release`
    // fails ...; `VERSION=1.2.3 make release` works"): the failed call's situation says to
    // speak, and this call needs no reminder. Elsewhere the decision weighs what complies.
    if let Some(done) = &s.candidate.complies
        && !by_rule(&s.candidate)
        && by_feedback(&s.candidate, same_moment)
        && crate::learning::gate::capture_template(&s.candidate.text.to_lowercase())
    {
        return Some(format!("the action already does what it asks ('{done}')"));
    }
    let h = s.candidate.hit.as_ref()?;
    // The user said the lesson is not for a moment like this one (with or without embeddings).
    if let Some(no) = &h.learned.not
        && no.closeness >= same_moment
        && h.learned.applies.as_ref().is_none_or(|yes| yes.closeness < no.closeness)
    {
        return Some(format!("learned: it was not for a moment like '{}' ({:.2}; link {:.2})", no.text, no.closeness, no.strength));
    }
    let (n, text) = h.counter.as_ref()?;
    // A rule's pattern matched the action itself, which says more than closeness by meaning:
    // the model rates an f-string query as close to the parameterised one the lesson is not
    // for. Against a rule, only a moment as close as `same_moment` to a near miss is one, and
    // only a near miss the rule fires on too (one it does not differs in what it catches).
    if by_rule(&s.candidate) && (*n < same_moment || s.candidate.rule_tells_apart) {
        return None;
    }
    let meaning = super::decision::meaning(&s.candidate)?;
    // A situation the user linked the lesson to counts on the lesson's side: `npm install dayjs`
    // after `used` on `npm install left-pad` (0.90 by the command's shape) is no near miss of a
    // `npm install -g pnpm` they said it is not for (0.54).
    let meaning = h.learned.applies.as_ref().map_or(meaning, |yes| meaning.max(yes.closeness));
    (*n > meaning).then(|| format!("closer to '{text}' ({n:.2}), a moment it is not for, than to the lesson, its examples or a moment it applies to ({meaning:.2})"))
}

/// Gates and decides. Returns what passed, critical rules first, then by probability; and what
/// did not, with why.
pub fn rank(candidates: Vec<Candidate>, salience: &Salience, prompt: bool, gates: &Gates) -> (Vec<Scored>, Vec<(Scored, Verdict)>) {
    let mut kept = Vec::new();
    let mut dropped = Vec::new();
    for c in candidates {
        let gated = gate(&c, gates);
        let scored = fuse(c, salience, prompt, gates);
        let (critical, ruled) = (by_critical_rule(&scored), instructed(&scored.candidate, gates.same_moment));
        match gated {
            Err(reason) => dropped.push((scored, Verdict::Gated(reason))),
            // The pack's own rules advise: at a moment aimed elsewhere than its lesson holds
            // (`DROP TABLE` in a local dev database), even a critical one is weighed as the others
            // are below (and not said). A critical rule on a lesson of the user's is their order,
            // unless the lesson's own rule says the action is the safe form of its case (`git
            // clean -n` beside a catch-all rule that picked the lesson by its category).
            Ok(()) if critical && scored.candidate.safe_form.is_none() && !(scored.candidate.seed.is_some() && scored.candidate.elsewhere.is_some()) => kept.push(scored),
            Ok(()) => match near_miss(&scored, gates.same_moment) {
                Some(reason) => dropped.push((scored, Verdict::NearMiss(reason))),
                None if ruled => kept.push(scored),
                // A seed's words are everyday words (git, push, install, npm): without the
                // model's reading of the moment and the seed's example moments, only its rules
                // say its case is at hand.
                None if scored.candidate.seed.is_some() && super::decision::meaning(&scored.candidate).is_none() => {
                    dropped.push((scored, Verdict::Undecided("a seed lesson by keywords alone: without the model only its rules speak".into())));
                }
                None if scored.score < scored.bar => {
                    let reason = format!("p {:.2} < min_fusion_score {:.2}", scored.score, scored.bar);
                    dropped.push((scored, Verdict::Undecided(reason)));
                }
                None => kept.push(scored),
            },
        }
    }
    // Rules first (critical ones before the rest), then the user's feedback, then by probability.
    let order = |s: &Scored| (by_critical_rule(s), instructed(&s.candidate, gates.same_moment));
    kept.sort_by(|a, b| order(b).cmp(&order(a)).then(b.score.total_cmp(&a.score)).then_with(|| a.candidate.id.cmp(&b.candidate.id)));
    (kept, dropped)
}

/// Decides what to say: gate, decide, skip what `cooled` says was said recently, MMR, category
/// caps, and the item limit. `prompt`: the user typed the moment.
pub fn choose(candidates: Vec<Candidate>, salience: &Salience, prompt: bool, policy: &Policy, cooled: impl Fn(&str) -> bool) -> Considered {
    let (decided, mut not_said) = rank(candidates, salience, prompt, &policy.gates);
    let mut fresh = Vec::new();
    for s in decided {
        // A candidate that passed the decision would have been said: its shadow, never said,
        // taking no one's place.
        if s.candidate.pending {
            not_said.push((s, Verdict::Shadow));
        } else if cooled(&s.candidate.id) {
            not_said.push((s, Verdict::Cooldown));
        } else {
            fresh.push(s);
        }
    }
    // What rules put forward goes first through MMR, so that the caps and the limit that follow
    // keep it (critical rules before the rest, as `rank` ordered them).
    let same = policy.gates.same_moment;
    let (diverse, redundant) = diversity::mmr(fresh, policy.mmr_lambda, policy.mmr_duplicate, |s| instructed(&s.candidate, same));
    not_said.extend(redundant);
    let (capped, over_cap) = diversity::cap_categories(diverse, &policy.category_caps, policy.default_category_cap);
    not_said.extend(over_cap);
    // The best item's company: only items near it in probability (what a rule put forward is
    // not held to it).
    let top = capped.iter().filter(|s| !instructed(&s.candidate, same)).map(|s| s.score).fold(f64::NEG_INFINITY, f64::max);
    let mut said = Vec::with_capacity(capped.len());
    for s in capped {
        if !instructed(&s.candidate, same) && s.score < policy.min_relative_score * top {
            let reason = format!("p {:.2} < {:.2} x the best item's {top:.2}", s.score, policy.min_relative_score);
            not_said.push((s, Verdict::Outshone(reason)));
        } else {
            said.push(s);
        }
    }
    if said.len() > policy.limit {
        not_said.extend(said.split_off(policy.limit).into_iter().map(|s| (s, Verdict::OverLimit)));
    }
    Considered { said, not_said }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::advisor::candidate::{Source, Triggered};
    use crate::advisor::decision::{self, Standing};
    use crate::config::rules::Priority;
    use crate::config::Tuneables;
    use crate::retrieval::hybrid::Fusion;
    use crate::retrieval::Hit;

    fn cand(id: &str, lexical: f64, cosine: Option<f64>, matched: usize, effectiveness: f64) -> Candidate {
        let mut hit = Hit::by_words(id.into(), lexical * 5.0, lexical, (0..matched).map(|i| format!("w{i}")).collect(), 4);
        hit.cosine = cosine;
        Fusion { weight_similarity: 0.7, similarity_floor: 0.15, similarity_ceiling: 0.9, words_exponent: 1.0 }.apply(&mut hit);
        Candidate {
            id: id.into(),
            text: format!("memory {id}"),
            category: "general".into(),
            project: "p".into(),
            hit: Some(hit),
            trigger: None,
            effectiveness,
            node_weight: 1.0,
            recency: 0.0,
            vector: None,
            found: true,
            seed: None,
            standing: Standing::default(),
            activation: None,
            pending: false,
            captured: None,
            complies: None,
            takes_out: Vec::new(),
            safe_form: None,
            elsewhere: None,
            rule_tells_apart: false,
        }
    }

    fn trig(id: &str, priority: Priority) -> Candidate {
        let mut c = cand(id, 0.0, Some(0.0), 0, 0.5);
        c.trigger = Some(Triggered { rule: "force_push".into(), priority, confidence: 1.0, learned: false, matched: "git push --force".into(), via_category: Some("git".into()), interrupt: false });
        c.hit = None;
        c.found = false;
        c
    }

    fn gates() -> Gates {
        Gates { min_fusion_score: 0.5, model: decision::known_model(), ..Gates::from_settings(&Tuneables::default()) }
    }

    const LOUD: Salience = Salience { score: 1.0, reason: "pushes" };

    fn ids(v: &[Scored]) -> Vec<&str> {
        v.iter().map(|s| s.candidate.id.as_str()).collect()
    }

    #[test]
    fn the_users_used_speaks_like_an_instruction_until_they_keep_calling_it_stale() {
        let mut c = cand("a", 0.1, Some(0.2), 1, 0.5);
        let taught = crate::retrieval::situations::LearnedMoment { situation: "sit_1".into(), text: "npm install left-pad".into(), closeness: 0.97, strength: 0.51, by_meaning: true, by_command: false, by_anchors: false, anchors: 0, shared: 0 };
        c.hit.as_mut().unwrap().learned.applies = Some(taught);
        assert!(by_feedback(&c, 0.85));
        c.node_weight = 0.9;
        assert!(by_feedback(&c, 0.85), "one `not-useful` does not undo the user's `used`");
        c.node_weight = 0.5;
        assert!(!by_feedback(&c, 0.85), "five do: the model decides, the odds scaled down");
        // The user's own example moment is their word too, unless a near miss is closer; a
        // seed's examples are the pack's guesses, which the model weighs.
        let mut e = cand("e", 0.1, Some(0.2), 1, 0.5);
        e.hit.as_mut().unwrap().example = Some((0.93, "edit src/checkout.ts: ldClient.variation('new-checkout', user, false)".into()));
        assert!(by_feedback(&e, 0.85));
        e.hit.as_mut().unwrap().counter = Some((0.95, "edit src/checkout.ts: flags.get('new-checkout')".into()));
        assert!(!by_feedback(&e, 0.85));
        e.hit.as_mut().unwrap().counter = None;
        e.seed = Some((0.5, "seed".into()));
        assert!(!by_feedback(&e, 0.85));
        e.seed = None;
        e.hit.as_mut().unwrap().example = Some((0.8, "further off".into()));
        assert!(!by_feedback(&e, 0.85));
    }

    #[test]
    fn a_moment_the_lesson_applies_to_is_no_near_miss_of_a_farther_one() {
        // `npm install dayjs`: 0.90 from `npm install left-pad` (the user's `used`), 0.54 from
        // `npm install -g pnpm` (their `not-relevant`), 0.44 from the lesson.
        let near = |c: &Candidate| rank(vec![c.clone()], &LOUD, false, &gates()).1.iter().any(|(_, v)| matches!(v, Verdict::NearMiss(_)));
        let mut c = cand("a", 0.1, Some(0.44), 1, 0.5);
        c.hit.as_mut().unwrap().counter = Some((0.54, "Install pnpm globally npm install -g pnpm (learned)".into()));
        assert!(near(&c), "without the taught moment, the farther one decides");
        let taught = crate::retrieval::situations::LearnedMoment { situation: "sit_1".into(), text: "npm install left-pad".into(), closeness: 0.90, strength: 0.51, by_meaning: false, by_command: true, by_anchors: false, anchors: 0, shared: 0 };
        c.hit.as_mut().unwrap().learned.applies = Some(taught);
        assert!(!near(&c));
        let (kept, _) = rank(vec![c.clone()], &LOUD, false, &gates());
        assert_eq!(ids(&kept), vec!["a"], "the user's `used` speaks");
        // A recovery's lesson: not where the action already makes the call that worked.
        c.text = "In this project, `make release` fails (error: VERSION is required); `VERSION=1.2.3 make release` works.".into();
        c.complies = Some("version= make release".into());
        let (kept, dropped) = rank(vec![c], &LOUD, false, &gates());
        assert!(kept.is_empty() && matches!(&dropped[0].1, Verdict::NearMiss(why) if why.contains("already does what it asks")), "{dropped:?}");
    }

    #[test]
    fn the_decision_is_the_model_s_probability_against_its_bar() {
        // logit = -6 + 10 x 0.5 + 2 x 0 + 2 x 1 = 1: said; at cosine 0.3 it is -1: not said.
        let (kept, dropped) = rank(vec![cand("close", 0.0, Some(0.5), 0, 0.5), cand("far", 0.0, Some(0.3), 0, 0.5)], &LOUD, false, &gates());
        assert_eq!(ids(&kept), vec!["close"]);
        assert!((kept[0].score - decision::sigmoid(1.0)).abs() < 1e-9);
        assert!(matches!(&dropped[0].1, Verdict::Undecided(r) if r.contains("min_fusion_score")), "{dropped:?}");
        // Raising the bar says less.
        let mut strict = gates();
        strict.min_fusion_score = 0.9;
        assert!(rank(vec![cand("close", 0.0, Some(0.5), 0, 0.5)], &LOUD, false, &strict).0.is_empty());
    }

    #[test]
    fn a_critical_rule_speaks_whatever_the_model_says() {
        let (kept, _) = rank(vec![trig("t", Priority::Critical), cand("close", 0.0, Some(0.6), 0, 0.5)], &LOUD, false, &gates());
        assert_eq!(ids(&kept), vec!["t", "close"], "a critical rule first, even below the bar");
        assert!(kept[0].score < 0.5);
        assert_eq!(kept[0].source, Source::Trigger);
        assert!(kept[0].why.starts_with("trigger force_push (critical) on `git push --force`"), "{}", kept[0].why);
        assert_eq!(kept[0].short_why, "trigger force_push (critical)");
        assert_eq!(kept[0].signals["trigger_conf"], 1.0);
        // A rule of lower priority speaks too, unless the moment is one of its lesson's near
        // misses, as close as `same_moment` to it (merely closer to it than to the lesson is
        // the model's reading against the rule's match: the rule wins); a learned rule is
        // weighed like retrieval.
        let high = trig("h", Priority::High);
        let mut missed = trig("m", Priority::High);
        missed.hit = Some(Hit::by_words("m".into(), 0.0, 0.0, vec![], 3));
        missed.hit.as_mut().unwrap().cosine = Some(0.3);
        missed.hit.as_mut().unwrap().counter = Some((0.9, "the safe variant".into()));
        let mut closer = missed.clone();
        closer.id = "n".into();
        closer.hit.as_mut().unwrap().counter = Some((0.6, "the safe variant, by meaning".into()));
        let mut critical_missed = missed.clone();
        critical_missed.id = "c".into();
        critical_missed.trigger.as_mut().unwrap().priority = Priority::Critical;
        let mut learned = trig("l", Priority::Critical);
        learned.trigger.as_mut().unwrap().learned = true;
        let (kept, dropped) = rank(vec![high, missed, closer, critical_missed, learned], &LOUD, false, &gates());
        assert_eq!(ids(&kept), vec!["c", "n", "h"]);
        assert!(dropped.iter().any(|(s, v)| s.candidate.id == "m" && matches!(v, Verdict::NearMiss(_))));
        assert!(dropped.iter().any(|(s, v)| s.candidate.id == "l" && matches!(v, Verdict::Undecided(_))));
    }

    #[test]
    fn a_look_around_needs_stronger_evidence() {
        let quiet = Salience { score: 0.15, reason: "looks around" };
        assert_eq!(rank(vec![cand("a", 0.0, Some(0.5), 0, 0.5)], &LOUD, false, &gates()).0.len(), 1);
        let (kept, dropped) = rank(vec![cand("a", 0.0, Some(0.5), 0, 0.5)], &quiet, false, &gates());
        assert!(kept.is_empty() && matches!(dropped[0].1, Verdict::Undecided(_)));
        assert!(dropped[0].0.why.contains("looks around"), "{}", dropped[0].0.why);
    }

    #[test]
    fn outcomes_move_the_decision_and_untested_lessons_are_neutral() {
        let (kept, _) = rank(vec![cand("weak", 0.0, Some(0.5), 0, 0.2), cand("strong", 0.0, Some(0.5), 0, 0.9)], &LOUD, false, &gates());
        assert_eq!(ids(&kept), vec!["strong", "weak"]);
        assert!(kept[0].signals["add.outcome"] > 0.0 && kept[1].signals["add.outcome"] < 0.0);
        // A fixed term's input is shown beside its contribution, as a fitted one's.
        assert!((kept[0].signals["in.outcome"] - 0.8).abs() < 1e-9, "{:?}", kept[0].signals);
        let (kept, _) = rank(vec![cand("a", 0.0, Some(0.5), 0, 0.5)], &LOUD, false, &gates());
        assert!(!kept[0].signals.contains_key("add.outcome"));
    }

    #[test]
    fn without_embeddings_words_must_match_and_the_words_only_model_decides() {
        assert!(rank(vec![cand("k", 0.9, None, 1, 0.5)], &LOUD, false, &gates()).0.is_empty(), "too few words matched");
        let mut one = cand("one", 0.9, None, 1, 0.5);
        one.hit.as_mut().unwrap().query_terms = 1;
        let (kept, _) = rank(vec![one], &LOUD, false, &gates());
        // -5 + 6 x 0.9 + 2 = 2.4
        assert!((kept[0].decision.logit - 2.4).abs() < 1e-9, "{}", kept[0].decision.logit);
        // With embeddings, meaning alone can decide: a paraphrase shares no word.
        assert_eq!(rank(vec![cand("p", 0.0, Some(0.7), 0, 0.5)], &LOUD, false, &gates()).0.len(), 1);
        // A seed's everyday words alone say nothing; its rule still speaks without the model.
        let mut seed = cand("seed", 0.9, None, 1, 0.5);
        (seed.hit.as_mut().unwrap().query_terms, seed.seed) = (1, Some((1.0, "fresh".into())));
        let (kept, dropped) = rank(vec![seed], &LOUD, false, &gates());
        assert!(kept.is_empty() && matches!(&dropped[0].1, Verdict::Undecided(r) if r.contains("keywords alone")), "{dropped:?}");
        let mut ruled = trig("ruled", Priority::High);
        ruled.seed = Some((1.0, "fresh".into()));
        assert_eq!(ids(&rank(vec![ruled], &LOUD, false, &gates()).0), vec!["ruled"]);
    }

    #[test]
    fn the_safe_form_of_a_rule_s_case_is_not_advised_by_meaning_either() {
        let mut c = cand("k8s", 0.9, Some(0.9), 3, 0.5);
        assert_eq!(rank(vec![c.clone()], &LOUD, false, &gates()).0.len(), 1);
        c.safe_form = Some("seed-k8s-context".into());
        let (kept, dropped) = rank(vec![c], &LOUD, false, &gates());
        assert!(kept.is_empty() && matches!(&dropped[0].1, Verdict::NearMiss(r) if r.contains("safe form of rule seed-k8s-context")), "{dropped:?}");
        // Nor by another critical rule that picked the lesson by its category.
        let mut picked = trig("discard", Priority::Critical);
        assert_eq!(ids(&rank(vec![picked.clone()], &LOUD, false, &gates()).0), vec!["discard"]);
        picked.safe_form = Some("seed-git-discard-work".into());
        let (kept, dropped) = rank(vec![picked], &LOUD, false, &gates());
        assert!(kept.is_empty() && matches!(&dropped[0].1, Verdict::NearMiss(r) if r.contains("safe form of rule seed-git-discard-work")), "{dropped:?}");
    }

    #[test]
    fn a_lesson_about_production_is_not_said_at_a_local_target_by_meaning_or_by_the_pack_s_rule() {
        let why = "the action aims at a local or test target ('localhost'), the lesson at production".to_string();
        let mut c = cand("migrations", 0.9, Some(0.9), 3, 0.5);
        c.elsewhere = Some(why.clone());
        let (kept, dropped) = rank(vec![c], &LOUD, false, &gates());
        assert!(kept.is_empty() && matches!(&dropped[0].1, Verdict::NearMiss(r) if r.contains("'localhost'")), "{dropped:?}");
        // The pack's critical rule yields to where the moment aims; a critical rule on the user's
        // own lesson is their order.
        let mut pack = trig("seed-drop-table", Priority::Critical);
        pack.seed = Some((1.0, "fresh".into()));
        pack.elsewhere = Some(why.clone());
        assert!(rank(vec![pack.clone()], &LOUD, false, &gates()).0.is_empty());
        pack.seed = None;
        assert_eq!(ids(&rank(vec![pack], &LOUD, false, &gates()).0), vec!["seed-drop-table"]);
    }

    #[test]
    fn a_moment_closer_to_a_near_miss_is_not_advised() {
        let mut c = cand("push", 0.0, Some(0.5), 0, 0.5);
        c.hit.as_mut().unwrap().counter = Some((0.62, "push my own feature branch".into()));
        let (kept, dropped) = rank(vec![c.clone()], &LOUD, false, &gates());
        assert!(kept.is_empty());
        assert!(matches!(&dropped[0].1, Verdict::NearMiss(r) if r.contains("push my own feature branch")), "{dropped:?}");
        // An example closer still outweighs the near miss.
        c.hit.as_mut().unwrap().example = Some((0.7, "force-push main".into()));
        assert_eq!(rank(vec![c], &LOUD, false, &gates()).0.len(), 1);
    }

    #[test]
    fn seeds_yield_to_the_user_s_own_lessons() {
        let mut seed = cand("s", 0.0, Some(0.5), 0, 0.5);
        seed.seed = Some((0.75, "25 of your own".into()));
        let (kept, _) = rank(vec![seed, cand("own", 0.0, Some(0.5), 0, 0.5)], &LOUD, false, &gates());
        assert_eq!(ids(&kept), vec!["own", "s"]);
        assert!((kept[1].decision.logit - (kept[0].decision.logit + 0.75f64.ln())).abs() < 1e-9);
        assert_eq!(kept[1].signals["seed_weight"], 0.75);
        assert!(kept[1].why.contains("seed weight 0.75 (25 of your own)"), "{}", kept[1].why);
    }

    #[test]
    fn why_names_every_term_and_the_evidence() {
        let mut c = cand("a", 0.5, Some(0.6), 2, 0.7);
        c.standing = Standing { best: true, margin: 0.1 };
        let (kept, _) = rank(vec![c], &Salience { score: 0.9, reason: "changes something shared" }, false, &gates());
        let why = &kept[0].why;
        for part in ["p 0.", "(bar 0.50)", "meaning 0.60 +6.00", "words 0.50 ('w0', 'w1') +1.00", "salience 0.90 (changes something shared) +1.80", "effectiveness 0.70", "base -6.00", "relevance", "from p"] {
            assert!(why.contains(part), "{why} lacks {part}");
        }
        assert!(kept[0].short_why.starts_with("p 0.") && kept[0].short_why.contains("meaning 0.60"), "{}", kept[0].short_why);
        for s in ["probability", "logit", "relevance", "similarity", "lexical", "bm25", "salience", "effectiveness", "recency", "trigger_conf", "in.meaning", "in.best", "add.meaning"] {
            assert!(kept[0].signals.contains_key(s), "signals lack {s}");
        }
    }

    #[test]
    fn what_a_rule_puts_forward_keeps_its_place_under_the_limit() {
        let mut p = Policy::from_settings(&Tuneables::default(), 2);
        p.gates = gates();
        let mut rule = trig("rule", Priority::Critical);
        rule.vector = Some(vec![0.0, 0.0, 1.0]);
        let (mut a, mut b) = (cand("a", 0.0, Some(0.9), 0, 0.5), cand("b", 0.0, Some(0.85), 0, 0.5));
        (a.vector, b.vector) = (Some(vec![1.0, 0.0, 0.0]), Some(vec![0.0, 1.0, 0.0]));
        b.category = "other".into();
        let out = choose(vec![a, b, rule], &LOUD, false, &p, |_| false);
        assert_eq!(ids(&out.said), vec!["rule", "a"], "the critical rule first, the best of the rest beside it");
        assert!(out.not_said.iter().any(|(s, v)| s.candidate.id == "b" && *v == Verdict::OverLimit));
    }

    #[test]
    fn the_best_item_s_company_and_the_limit() {
        let policy = |limit| Policy { min_relative_score: 0.9, ..Policy::from_settings(&Tuneables::default(), limit) };
        let mut p = policy(2);
        p.gates = gates();
        let (mut a, mut b) = (cand("a", 0.0, Some(0.8), 0, 0.5), cand("b", 0.0, Some(0.52), 0, 0.5));
        (a.vector, b.vector) = (Some(vec![1.0, 0.0]), Some(vec![0.0, 1.0]));
        let out = choose(vec![a, b], &LOUD, false, &p, |_| false);
        assert_eq!(ids(&out.said), vec!["a"]);
        assert!(out.not_said.iter().any(|(s, v)| s.candidate.id == "b" && matches!(v, Verdict::Outshone(_))), "{:?}", out.not_said.iter().map(|(s, v)| (&s.candidate.id, v)).collect::<Vec<_>>());
    }
}
