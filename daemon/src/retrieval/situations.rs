//! Situations, indexed for the hook: the moments where a lesson was judged to apply or not, each
//! with its embedding (when the model made one) and its words, and the lessons it links to with
//! the strength of each link. A moment close to a situation is evidence for the lessons linked
//! to it that apply (strength above neutral) and against those that do not, in its own project
//! only. A situation no judgement has renewed fades: its closeness counts for half after each
//! half-life. Held in memory beside the keyword index, loaded from the store at start; each
//! project's situations are bounded in number, so a linear scan stays well under a millisecond.
//! Pure; no I/O.

use cairn_proto::EdgeKind;
// foldhash: these maps are keyed by ids and read on every hook event; SipHash was a quarter of
// the daemon's time there.
use foldhash::{HashMap, HashSet};

use crate::base::text;

/// One situation as the index holds it; its embedding and time are its row of its project's
/// [`Block`].
#[derive(Debug, Clone, PartialEq)]
struct Entry {
    project: String,
    text: String,
    terms: HashSet<String>,
    row: usize,
}

/// A project's situations, one row each, their embeddings side by side in one block: the hook
/// scans a project's situations on every event, and rows in one piece of memory are read at
/// the memory's speed (2,000 situations scattered on the heap took a few milliseconds, cold).
#[derive(Debug, Clone, Default, PartialEq)]
struct Block {
    ids: Vec<String>,
    /// The rows' embeddings, `dim` floats each (zeros for a row without one).
    data: Vec<f32>,
    /// The model that made each row's embedding (an index into `Situations::models`), if any.
    model: Vec<Option<usize>>,
    /// When a judgement last touched each row (Unix seconds).
    last_seen: Vec<f64>,
    /// Each row's command shape ([`super::command::shape`]) as [`shape_key`], 0 for none: read
    /// beside the embeddings, without a lookup per row.
    shape: Vec<u64>,
    /// Each row's project and kind of action ([`crate::base::event::action_kind`]) as one
    /// number ([`place`]), 0 for no kind.
    place: Vec<u64>,
    /// The embeddings' length: the first one's; one of another length is kept as none.
    dim: usize,
}

impl Block {
    fn vector(&self, row: usize) -> Option<(usize, &[f32])> {
        self.model[row].map(|m| (m, &self.data[row * self.dim..(row + 1) * self.dim]))
    }
}

/// What kind of action a situation was ([`crate::base::event::action_kind`], empty for none)
/// and the shape of the command it ran ([`super::command::shape`]), if any.
#[derive(Debug, Clone, Copy, Default)]
pub struct Act<'a> {
    pub kind: &'a str,
    pub command: Option<&'a str>,
}

/// A learned moment that speaks for or against a lesson at this moment.
#[derive(Debug, Clone, PartialEq)]
pub struct LearnedMoment {
    pub situation: String,
    pub text: String,
    /// How close the current moment is to it: cosine of the embeddings, or without them the
    /// share of words the two have in common (Jaccard).
    pub closeness: f64,
    /// The link's strength (above 0.5: applies; below: does not).
    pub strength: f64,
    /// The closeness is a cosine under the model in use (else shared words, which are not
    /// compared with cosines).
    pub by_meaning: bool,
    /// The closeness is the moment's running the situation's command on other arguments
    /// (`learning.same_command`), which is more than its meaning or words say.
    pub by_command: bool,
    /// The closeness is the moment's being the same kind of action with every anchor of the
    /// situation and no word of the lesson the situation lacks (`learning.same_anchors`).
    pub by_anchors: bool,
    /// The situation's words that the lesson also has (its anchors: why the lesson applied
    /// there), and how many of them the current moment has. The closeness above is already
    /// scaled by `shared / anchors` (see [`Situations::evidence`]).
    pub anchors: usize,
    pub shared: usize,
}

/// The closest learned moment for a lesson and the closest against it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Learned {
    pub applies: Option<LearnedMoment>,
    pub not: Option<LearnedMoment>,
    /// How many moments like this one (at least the floor close) the lesson was linked to as
    /// applying: "applied to 3 moments like this".
    pub like: usize,
}

/// The current moment, as situations are compared with it: its embedding (with the model's
/// fingerprint: a situation embedded by another model is compared by words) and its words.
pub struct Moment<'a> {
    pub project: &'a str,
    pub vector: Option<(&'a str, &'a [f32])>,
    pub terms: HashSet<String>,
    /// The shape of the command the moment runs ([`shape_key`]), and the closeness a situation
    /// that ran one of the same shape has on the side where the lesson applies
    /// (`learning.same_command`).
    pub command: Option<(u64, f64)>,
    /// The moment's project and kind of action ([`crate::base::event::action_kind`]) as one
    /// number ([`place`]), and the closeness a situation of that kind in that project has on the
    /// side where the lesson applies when the moment has every one of its anchors and no word of
    /// the lesson it lacks (`learning.same_anchors`; 0: kinds are not compared).
    pub place: Option<(u64, f64)>,
    /// What the action itself puts in place (the command, an edit's new text, the prompt),
    /// without Claude Code's description of it, and its words, made when first asked for: a
    /// word of the lesson that only the description adds ("Install the left-pad package") does
    /// not make the moment another case.
    deed: Option<&'a str>,
    deed_terms: std::cell::OnceCell<HashSet<String>>,
    /// Now (Unix seconds), and the half-life of an unused situation's say, in seconds (0: none).
    pub now: f64,
    pub half_life: f64,
    /// The project's situations at least the floor close, computed once for the moment
    /// ([`Situations::prepare`]): every lesson's evidence reads them instead of comparing again.
    near: Option<HashMap<&'a str, Compared>>,
}

/// A situation compared with a moment: its closeness by meaning (or words), whether that was by
/// meaning, and whether it ran the moment's command (its shape).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Compared {
    closeness: f64,
    by_meaning: bool,
    /// `same_command`, faded as the closeness is, when the situation ran a command of the
    /// moment's shape; else 0.
    command: f64,
    /// `same_anchors`, faded as the closeness is, when the situation is an action of the
    /// moment's kind; else 0. It counts only for a lesson whose anchors the moment all has
    /// ([`Situations::evidence`]).
    anchored: f64,
}

impl Compared {
    /// The closeness on the side where the lesson applies (the command counts), and whether it
    /// is the command's.
    fn applies(&self) -> (f64, bool) {
        if self.command > 0.0 && self.command > self.closeness { (self.command, true) } else { (self.closeness, false) }
    }
}

/// How a situation came to be close: by meaning (else words), by the command, by its anchors.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Via {
    meaning: bool,
    command: bool,
    anchors: bool,
}

/// Which side a situation link leans to: `Some(true)` applies, `Some(false)` does not, `None`
/// neither.
pub fn leans(strength: f64) -> Option<bool> {
    if strength > NEUTRAL {
        Some(true)
    } else if strength < NEUTRAL {
        Some(false)
    } else {
        None
    }
}

impl<'a> Moment<'a> {
    /// A moment with no fading (for finding the same situation again).
    pub fn new(project: &'a str, words: &str, vector: Option<(&'a str, &'a [f32])>) -> Moment<'a> {
        Moment { project, vector, terms: text::terms(words).into_iter().collect(), command: None, place: None, deed: None, deed_terms: std::cell::OnceCell::new(), now: 0.0, half_life: 0.0, near: None }
    }

    /// The same, running a command of `shape`: a situation that ran one of that shape is
    /// `closeness` close on the side where its lesson applies (0: commands are not compared).
    pub fn running(mut self, shape: Option<&str>, closeness: f64) -> Moment<'a> {
        self.command = shape.filter(|_| closeness > 0.0).map(|s| (shape_key(s), closeness));
        self
    }

    /// The same, an action of `kind` ([`crate::base::event::action_kind`]): a situation of that
    /// kind whose anchors the moment all has is `closeness` close on the side where its lesson
    /// applies, unless the moment has a word of the lesson the situation lacks (0: kinds are not
    /// compared).
    pub fn acting(mut self, kind: &str, closeness: f64) -> Moment<'a> {
        self.place = (closeness > 0.0 && !kind.is_empty()).then(|| (place(self.project, kind), closeness));
        self
    }

    /// The same, whose action itself is `deed` (by default, all of its words are).
    pub fn doing(mut self, deed: &'a str) -> Moment<'a> {
        self.deed = Some(deed);
        self.deed_terms = std::cell::OnceCell::new();
        self
    }

    /// Whether the action itself (not its description) has the index term `term`.
    fn does(&self, term: &str) -> bool {
        match self.deed {
            Some(deed) => self.deed_terms.get_or_init(|| text::terms(deed).into_iter().collect()).contains(term),
            None => self.terms.contains(term),
        }
    }

    /// What a situation last judged at `last_seen` (Unix seconds) still counts for now: half
    /// after each half-life.
    fn fade(&self, last_seen: f64) -> f64 {
        if self.half_life > 0.0 && self.now > last_seen { 0.5f64.powf((self.now - last_seen) / self.half_life) } else { 1.0 }
    }

    /// How many situations `prepare` kept (0 before it ran).
    pub fn near_count(&self) -> usize {
        self.near.as_ref().map_or(0, |n| n.len())
    }

    /// The same, at `now` with situations fading by `half_life` (both in seconds).
    pub fn fading(mut self, now: f64, half_life: f64) -> Moment<'a> {
        (self.now, self.half_life) = (now, half_life);
        self
    }
}

/// The dot product in eight lanes, which the compiler turns into vector instructions (a plain
/// iterator sum keeps one strict order and does not); the vectors are unit length.
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca.remainder().iter().zip(cb.remainder()).map(|(x, y)| x * y).sum();
    for (x, y) in ca.zip(cb) {
        for i in 0..8 {
            lanes[i] += x[i] * y[i];
        }
    }
    lanes.iter().sum::<f32>() + tail
}

/// A command shape as a number (never 0, which stands for none); one process's rows and
/// moments are compared, nothing is stored.
fn shape_key(shape: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    shape.hash(&mut h);
    h.finish().max(1)
}

/// Where a situation is, as one number: its project and its kind of action (never 0, which
/// stands for not known).
fn place(project: &str, kind: &str) -> u64 {
    shape_key(&format!("{project}\u{0}{kind}"))
}

fn jaccard(a: &HashSet<String>, b: &HashSet<String>) -> f64 {
    let shared = a.intersection(b).count();
    let union = a.len() + b.len() - shared;
    if union == 0 { 0.0 } else { shared as f64 / union as f64 }
}

/// A link at this strength says neither that the lesson applies nor that it does not.
pub const NEUTRAL: f64 = 0.5;

/// Every situation, its links, and each lesson's situations.
#[derive(Debug, Default, Clone)]
pub struct Situations {
    by_id: HashMap<String, Entry>,
    by_project: HashMap<String, Block>,
    /// The fingerprints of the models that made the embeddings.
    models: Vec<String>,
    /// Lesson -> (situation, strength, [`place`] of the situation, 0 before it is known): the
    /// place lets the hook pass over a link to another project's or kind's situation without
    /// reading it (at 100k situations each read is a miss of the processor's cache).
    links: HashMap<String, Vec<(String, f64, u64)>>,
    /// Situation -> (lesson, strength): the same links from the other end, so that a query
    /// touches only its project's situations and their links, never every link.
    out: HashMap<String, Vec<(String, f64)>>,
    /// Lesson -> (lesson, kind, strength): the edges between lessons (`co_used`, `manual`, ...),
    /// which activation spreads along.
    between: HashMap<String, Vec<(String, EdgeKind, f64)>>,
}

impl Situations {
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// Adds or replaces a situation (its links stay).
    pub fn upsert(&mut self, id: &str, project: &str, words: &str, act: Act<'_>, vector: Option<(String, Vec<f32>)>, last_seen: f64) {
        let Act { kind, command: shape } = act;
        if self.by_id.get(id).is_some_and(|old| old.project != project) {
            self.take_row(id);
        }
        let model = vector.as_ref().map(|(fp, _)| match self.models.iter().position(|m| m == fp) {
            Some(i) => i,
            None => {
                self.models.push(fp.clone());
                self.models.len() - 1
            }
        });
        let block = self.by_project.entry(project.to_string()).or_default();
        if block.dim == 0 && let Some((_, v)) = &vector {
            // The first embedding sets the rows' length (rows before it had none).
            block.dim = v.len();
            block.data = vec![0.0; block.ids.len() * block.dim];
        }
        let fits = vector.as_ref().is_some_and(|(_, v)| v.len() == block.dim && block.dim > 0);
        let row = match self.by_id.get(id).filter(|e| e.project == project) {
            Some(e) => e.row,
            None => {
                block.ids.push(id.to_string());
                block.data.resize(block.data.len() + block.dim, 0.0);
                block.model.push(None);
                block.last_seen.push(0.0);
                block.shape.push(0);
                block.place.push(0);
                block.ids.len() - 1
            }
        };
        let dim = block.dim;
        match vector.filter(|_| fits) {
            Some((_, v)) => {
                block.data[row * dim..(row + 1) * dim].copy_from_slice(&v);
                block.model[row] = model;
            }
            None => {
                block.data[row * dim..(row + 1) * dim].fill(0.0);
                block.model[row] = None;
            }
        }
        block.last_seen[row] = last_seen;
        block.shape[row] = shape.map_or(0, shape_key);
        let at = if kind.is_empty() { 0 } else { place(project, kind) };
        block.place[row] = at;
        let entry = Entry { project: project.to_string(), text: words.to_string(), terms: text::terms(words).into_iter().collect(), row };
        self.by_id.insert(id.to_string(), entry);
        // Its links may have come first (or it moved): they learn where it is now.
        for (lesson, _) in self.out.get(id).into_iter().flatten() {
            for link in self.links.get_mut(lesson).into_iter().flatten().filter(|(s, _, _)| s == id) {
                link.2 = at;
            }
        }
    }

    /// Takes a situation's row out of its project's block (the last row moves into its place).
    fn take_row(&mut self, id: &str) {
        let Some(e) = self.by_id.get(id) else { return };
        let (project, row) = (e.project.clone(), e.row);
        let Some(block) = self.by_project.get_mut(&project) else { return };
        let last = block.ids.len() - 1;
        let dim = block.dim;
        if row != last {
            block.data.copy_within(last * dim..(last + 1) * dim, row * dim);
            block.ids.swap(row, last);
            block.model.swap(row, last);
            block.last_seen.swap(row, last);
            block.shape.swap(row, last);
            block.place.swap(row, last);
            if let Some(moved) = self.by_id.get_mut(&block.ids[row]) {
                moved.row = row;
            }
        }
        block.ids.pop();
        block.model.pop();
        block.last_seen.pop();
        block.shape.pop();
        block.place.pop();
        block.data.truncate(last * dim);
        if block.ids.is_empty() {
            self.by_project.remove(&project);
        }
    }

    /// Where situation `id` is ([`place`]), 0 if it is not known.
    fn place_of(&self, id: &str) -> u64 {
        self.by_id.get(id).and_then(|e| self.by_project.get(&e.project).map(|b| b.place[e.row])).unwrap_or(0)
    }

    /// Takes a situation out, with its links.
    pub fn remove(&mut self, id: &str) -> bool {
        if !self.by_id.contains_key(id) {
            return false;
        }
        self.take_row(id);
        self.by_id.remove(id);
        for (lesson, _) in self.out.remove(id).unwrap_or_default() {
            if let Some(links) = self.links.get_mut(&lesson) {
                links.retain(|(s, _, _)| s != id);
                if links.is_empty() {
                    self.links.remove(&lesson);
                }
            }
        }
        true
    }

    /// Sets the link from `situation` to `lesson` (`None` removes it).
    pub fn link(&mut self, situation: &str, lesson: &str, strength: Option<f64>) {
        let at = self.place_of(situation);
        let links = self.links.entry(lesson.to_string()).or_default();
        links.retain(|(s, _, _)| s != situation);
        if let Some(w) = strength {
            links.push((situation.to_string(), w, at));
        }
        if links.is_empty() {
            self.links.remove(lesson);
        }
        let out = self.out.entry(situation.to_string()).or_default();
        out.retain(|(l, _)| l != lesson);
        if let Some(w) = strength {
            out.push((lesson.to_string(), w));
        }
        if out.is_empty() {
            self.out.remove(situation);
        }
    }

    /// Sets the edge of `kind` from lesson `source` to lesson `target` (`None` removes it).
    pub fn set_between(&mut self, source: &str, target: &str, kind: EdgeKind, strength: Option<f64>) {
        let edges = self.between.entry(source.to_string()).or_default();
        edges.retain(|(t, k, _)| !(t == target && *k == kind));
        if let Some(w) = strength {
            edges.push((target.to_string(), kind, w));
        }
        if edges.is_empty() {
            self.between.remove(source);
        }
    }

    /// The lessons `lesson` links to, each once with its strongest edge's strength.
    pub fn between_of(&self, lesson: &str) -> Vec<(String, f64)> {
        let mut out: Vec<(String, f64)> = Vec::new();
        for (t, _, w) in self.between.get(lesson).into_iter().flatten() {
            match out.iter_mut().find(|(x, _)| x == t) {
                Some(e) => e.1 = e.1.max(*w),
                None => out.push((t.clone(), *w)),
            }
        }
        out
    }

    /// Whether any lesson links to another (activation has somewhere to spread).
    pub fn has_between(&self) -> bool {
        !self.between.is_empty()
    }

    /// Forgets every link to `lesson` (it was forgotten).
    pub fn unlink_lesson(&mut self, lesson: &str) {
        self.between.remove(lesson);
        self.between.retain(|_, edges| {
            edges.retain(|(t, _, _)| t != lesson);
            !edges.is_empty()
        });
        for (situation, _, _) in self.links.remove(lesson).unwrap_or_default() {
            if let Some(out) = self.out.get_mut(&situation) {
                out.retain(|(l, _)| l != lesson);
                if out.is_empty() {
                    self.out.remove(&situation);
                }
            }
        }
    }

    /// A situation (its entry) compared with the moment.
    fn compared(&self, entry: &Entry, moment: &Moment<'_>) -> Compared {
        let Some(block) = self.by_project.get(&entry.project) else { return Compared { closeness: f64::NEG_INFINITY, by_meaning: false, command: 0.0, anchored: 0.0 } };
        let model = moment.vector.and_then(|(fp, q)| self.models.iter().position(|m| m == fp).map(|m| (m, q)));
        self.compared_row(block, entry.row, model, moment)
    }

    /// A situation `prepare` did not keep (less than the floor close by meaning, words or
    /// command), compared by its kind of action alone: `None` unless it is of the moment's
    /// kind, in its project, with `same_anchors` on. No cosine: it could not reach the floor.
    fn by_kind(&self, situation: &str, moment: &Moment<'_>) -> Option<Compared> {
        let (at, closeness) = moment.place?;
        let e = self.by_id.get(situation)?;
        let block = self.by_project.get(&e.project)?;
        if block.place[e.row] != at {
            return None;
        }
        let fade = moment.fade(block.last_seen[e.row]);
        Some(Compared { closeness: f64::NEG_INFINITY, by_meaning: false, command: 0.0, anchored: closeness * fade })
    }

    /// The same for row `row` of `block`, the moment's model already looked up.
    fn compared_row(&self, block: &Block, row: usize, model: Option<(usize, &[f32])>, moment: &Moment<'_>) -> Compared {
        let (c, by_meaning) = match (model, block.vector(row)) {
            (Some((m, q)), Some((made_by, v))) if m == made_by && q.len() == v.len() => (dot(q, v) as f64, true),
            _ => match self.by_id.get(&block.ids[row]) {
                Some(e) => (jaccard(&e.terms, &moment.terms), false),
                None => (f64::NEG_INFINITY, false),
            },
        };
        let command = match moment.command {
            Some((shape, closeness)) if block.shape[row] == shape => closeness,
            _ => 0.0,
        };
        let anchored = match moment.place {
            Some((at, closeness)) if block.place[row] == at => closeness,
            _ => 0.0,
        };
        let fade = moment.fade(block.last_seen[row]);
        Compared { closeness: c * fade, by_meaning, command: command * fade, anchored: anchored * fade }
    }

    /// The moment with its project's situations at least `floor` close (by meaning or words, or
    /// by the command they ran) compared once: what the hook does before asking for every
    /// candidate's evidence.
    pub fn prepare<'a>(&'a self, mut moment: Moment<'a>, floor: f64) -> Moment<'a> {
        let mut near = HashMap::default();
        if let Some(block) = self.by_project.get(moment.project) {
            let model = moment.vector.and_then(|(fp, q)| self.models.iter().position(|m| m == fp).map(|m| (m, q)));
            for row in 0..block.ids.len() {
                let c = self.compared_row(block, row, model, &moment);
                if c.closeness.is_finite() && (c.closeness >= floor || c.command >= floor) {
                    near.insert(block.ids[row].as_str(), c);
                }
            }
        }
        moment.near = Some(near);
        moment
    }

    /// The situation of `moment`'s project closest to it, if any is at least `threshold` close:
    /// where a near-identical moment is counted again instead of added. Only meaning or words
    /// count here: the same command on other arguments is another situation.
    pub fn same(&self, moment: &Moment<'_>, threshold: f64) -> Option<(String, f64)> {
        self.by_project
            .get(moment.project)?
            .ids
            .iter()
            .filter_map(|id| self.by_id.get(id).map(|e| (id, self.compared(e, moment).closeness)))
            .filter(|(_, c)| c.is_finite() && *c >= threshold)
            .max_by(|a, b| a.1.total_cmp(&b.1).then_with(|| b.0.cmp(a.0)))
            .map(|(id, c)| (id.clone(), c))
    }

    /// What the situations of `moment`'s project say about `lesson`: the closest that applies and
    /// the closest that does not, each at least `floor` close. `lesson_has(term)` tells whether
    /// the lesson's own words hold an index term.
    ///
    /// A situation where the lesson applies lends its closeness only as far as the moment shares
    /// the situation's anchors: the words it has in common with the lesson, which are why the
    /// lesson applied there (`analytics.prod_weekly` beside "never write to prod tables from
    /// ad-hoc queries"). A moment as close in meaning without them (`scratch.daily`) is the same
    /// kind of action on something the lesson does not govern; its closeness is scaled by the
    /// share of anchors it has. A situation sharing no word with its lesson has no anchors and
    /// counts in full; a situation where the lesson does not apply counts in full either way (a
    /// wrong silence costs less than a wrong word).
    ///
    /// On the side where the lesson applies, a situation that ran the moment's command (its
    /// shape: `npm install` for `npm install lodash` after `npm install left-pad`) is as close
    /// as `same_command` (fading as any closeness does) when its meaning is less close; the
    /// anchors then scale it as above. On the other side the command
    /// does not count: one `not-relevant` on a plain `git push` must not silence a lesson on
    /// every push, forced ones included.
    ///
    /// Also on that side only: a moment of the situation's kind of action that has every one of
    /// its anchors is the same case however far apart the rest of their words or meaning are
    /// (`process.env.CART_DELAY` read in a job after `process.env.PAYMENTS_KEY` in a service,
    /// beside "read configuration through the typed config, never process.env"): as close as
    /// `same_anchors` when its meaning is less. And a moment that has a word of the lesson the
    /// situation lacks (`softDelete` after a plain `DELETE`, beside "never hard-DELETE, use
    /// repo.softDelete") differs from it in what the lesson speaks of, most often the remedy:
    /// that situation says nothing for it, however close.
    pub fn evidence(&self, lesson: &str, moment: &Moment<'_>, floor: f64, lesson_has: &dyn Fn(&str) -> bool, lesson_warns: &dyn Fn(&str) -> bool) -> Learned {
        // The best on each side, by reference: only the two winners are copied out (this runs
        // for every candidate of every hook event, over all of a lesson's links).
        type Best<'s> = Option<(f64, &'s str, f64, Via, (usize, usize))>;
        let (mut applies, mut not): (Best<'_>, Best<'_>) = (None, None);
        let mut like = 0;
        for (sid, strength, at) in self.links.get(lesson).into_iter().flatten() {
            let side = leans(*strength);
            if side.is_none() {
                continue;
            }
            let applies_side = side == Some(true);
            // A prepared moment knows its close situations, all of its project: a link to any
            // other is passed over without reading the situation (a lesson may have many links
            // in other projects), unless, where the lesson applies, the moment may be near it by
            // its anchors.
            let compared = match &moment.near {
                Some(near) => match near.get(sid.as_str()) {
                    Some(found) => *found,
                    None if applies_side && (*at == 0 || moment.place.is_some_and(|(here, _)| here == *at)) => match self.by_kind(sid, moment) {
                        Some(c) => c,
                        None => continue,
                    },
                    None => continue,
                },
                None => match self.by_id.get(sid).filter(|e| e.project == moment.project) {
                    Some(e) => self.compared(e, moment),
                    None => continue,
                },
            };
            let (c, via, anchored) = if applies_side {
                let (c, by_command) = compared.applies();
                if !(c >= floor || compared.anchored >= floor) {
                    continue;
                }
                let (all, shared) = self.anchors(sid, moment, lesson_has);
                // A moment with a word of the lesson that the situation lacks differs from it in
                // what the lesson speaks of (the remedy, most often): not its case, however close.
                if self.adds_to(sid, moment, lesson_has, lesson_warns) {
                    continue;
                }
                let via = Via { meaning: compared.by_meaning && !by_command, command: by_command, anchors: false };
                let (c, via) = if all > 0 && shared == all && compared.anchored > c {
                    (compared.anchored, Via { meaning: false, command: false, anchors: true })
                } else {
                    (c, via)
                };
                let c = if all > 0 { c * shared as f64 / all as f64 } else { c };
                (c, via, (all, shared))
            } else {
                (compared.closeness, Via { meaning: compared.by_meaning, command: false, anchors: false }, (0, 0))
            };
            if !c.is_finite() || c < floor {
                continue;
            }
            like += usize::from(applies_side);
            let slot = if applies_side { &mut applies } else { &mut not };
            if slot.is_none_or(|(bc, bs, _, _, _)| c > bc || (c == bc && sid.as_str() < bs)) {
                *slot = Some((c, sid.as_str(), *strength, via, anchored));
            }
        }
        let moment_of = |best: Best<'_>| {
            best.and_then(|(closeness, sid, strength, via, (anchors, shared))| {
                self.by_id.get(sid).map(|e| LearnedMoment {
                    situation: sid.to_string(),
                    text: e.text.clone(),
                    closeness,
                    strength,
                    by_meaning: via.meaning,
                    by_command: via.command,
                    by_anchors: via.anchors,
                    anchors,
                    shared,
                })
            })
        };
        Learned { applies: moment_of(applies), not: moment_of(not), like }
    }

    /// Whether `moment`'s action has a word of the lesson (by `lesson_has`) that the situation lacks: it
    /// differs from the situation in what the lesson speaks of (`softDelete` beside "never
    /// hard-DELETE, use repo.softDelete" after a plain `DELETE`), so its anchors alone do not
    /// make it the same case. A word of the lesson's warnings (by `lesson_warns`: a `DELETE`
    /// after an `UPDATE`, beside "never UPDATE or DELETE its rows") is more of the mistake, not a
    /// difference.
    fn adds_to(&self, situation: &str, moment: &Moment<'_>, lesson_has: &dyn Fn(&str) -> bool, lesson_warns: &dyn Fn(&str) -> bool) -> bool {
        let Some(e) = self.by_id.get(situation) else { return true };
        moment.terms.iter().any(|t| !e.terms.contains(t.as_str()) && lesson_has(t) && !lesson_warns(t) && moment.does(t))
    }

    /// The situation's anchors (its words that the lesson has, by `lesson_has`) and how many of
    /// them `moment` has.
    fn anchors(&self, situation: &str, moment: &Moment<'_>, lesson_has: &dyn Fn(&str) -> bool) -> (usize, usize) {
        let Some(e) = self.by_id.get(situation) else { return (0, 0) };
        e.terms.iter().filter(|t| lesson_has(t)).fold((0, 0), |(all, shared), t| (all + 1, shared + usize::from(moment.terms.contains(t.as_str()))))
    }

    /// The lessons that the situations of `moment`'s project closest to it say apply, each with
    /// its closest such situation's closeness (the command's counting), best first, at most `k`,
    /// at least `floor` close.
    pub fn lessons_near(&self, moment: &Moment<'_>, k: usize, floor: f64) -> Vec<(String, f64)> {
        // The close situations: those `prepare` kept, else every one of the project compared.
        let close: Vec<(&str, f64)> = match &moment.near {
            Some(near) => near.iter().map(|(id, c)| (*id, c.applies().0)).collect(),
            None => self
                .by_project
                .get(moment.project)
                .into_iter()
                .flat_map(|b| b.ids.iter())
                .filter_map(|id| self.by_id.get(id).map(|e| (id.as_str(), self.compared(e, moment).applies().0)))
                .collect(),
        };
        let mut best: HashMap<&str, f64> = HashMap::default();
        for (id, c) in close.into_iter().filter(|(_, c)| c.is_finite() && *c >= floor) {
            for (lesson, _) in self.out.get(id).into_iter().flatten().filter(|(_, w)| *w > NEUTRAL) {
                let b = best.entry(lesson.as_str()).or_insert(c);
                *b = b.max(c);
            }
        }
        let mut out: Vec<(&str, f64)> = best.into_iter().collect();
        let order = |a: &(&str, f64), b: &(&str, f64)| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0));
        // The best `k` only are sorted (and copied).
        if out.len() > k && k > 0 {
            out.select_nth_unstable_by(k - 1, order);
            out.truncate(k);
        }
        out.sort_by(order);
        out.truncate(k);
        out.into_iter().map(|(l, c)| (l.to_string(), c)).collect()
    }

    /// Situations of a project, for bounding their number.
    pub fn in_project(&self, project: &str) -> usize {
        self.by_project.get(project).map_or(0, |b| b.ids.len())
    }

    /// A lesson's links (situation, strength).
    pub fn links_of(&self, lesson: &str) -> &[(String, f64, u64)] {
        self.links.get(lesson).map_or(&[], Vec::as_slice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moment<'a>(project: &'a str, words: &str, v: Option<&'a [f32]>) -> Moment<'a> {
        Moment::new(project, words, v.map(|v| ("m", v)))
    }

    fn v(x: &[f32]) -> Option<(String, Vec<f32>)> {
        Some(("m".to_string(), x.to_vec()))
    }

    #[test]
    fn rows_stay_right_as_situations_come_move_and_go() {
        let mut s = Situations::default();
        s.upsert("a", "/p", "alpha words", Act::default(), None, 0.0);
        s.upsert("b", "/p", "beta words", Act::default(), v(&[1.0, 0.0]), 0.0);
        s.upsert("c", "/p", "gamma words", Act::default(), v(&[0.0, 1.0]), 0.0);
        let near = |s: &Situations, q: &[f32]| {
            let m = s.prepare(moment("/p", "nothing shared", Some(q)), 0.5);
            let mut ids: Vec<String> = m.near.unwrap().keys().map(|k| k.to_string()).collect();
            ids.sort();
            ids
        };
        assert_eq!(near(&s, &[1.0, 0.0]), vec!["b"]);
        // The last row moves into a removed one's place and keeps its own vector.
        assert!(s.remove("a"));
        assert_eq!((near(&s, &[1.0, 0.0]), near(&s, &[0.0, 1.0])), (vec!["b".to_string()], vec!["c".to_string()]));
        // A situation that changes project leaves its old block.
        s.upsert("b", "/q", "beta words", Act::default(), v(&[1.0, 0.0]), 0.0);
        assert_eq!((near(&s, &[1.0, 0.0]), s.in_project("/p"), s.in_project("/q")), (Vec::<String>::new(), 1, 1));
        // Updated in place: a new vector, and a vector of another length counts as none.
        s.upsert("c", "/p", "gamma words", Act::default(), v(&[1.0, 0.0]), 0.0);
        assert_eq!(near(&s, &[1.0, 0.0]), vec!["c"]);
        s.upsert("c", "/p", "gamma words", Act::default(), v(&[1.0, 0.0, 0.0]), 0.0);
        assert!(near(&s, &[1.0, 0.0]).is_empty());
        assert!(s.remove("c") && s.remove("b") && s.is_empty() && !s.remove("b"));
    }

    #[test]
    fn a_situation_lends_its_closeness_as_far_as_the_moment_shares_its_anchors() {
        let mut s = Situations::default();
        let (taught, same) = ([1.0f32, 0.0], [1.0f32, 0.0]);
        s.upsert("prod", "/p", "bq query --destination_table analytics.prod_weekly", Act::default(), v(&taught), 0.0);
        s.link("prod", "lesson", Some(0.6));
        s.upsert("dont", "/p", "bq query --destination_table analytics.prod_monthly --dry_run", Act::default(), v(&[0.0, 1.0]), 0.0);
        s.link("dont", "lesson", Some(0.4));
        // The lesson: "never write to analytics.prod_* tables from ad-hoc queries".
        let lesson_terms: Vec<String> = text::terms("never write to analytics.prod_* tables from ad-hoc queries");
        let has = |t: &str| lesson_terms.iter().any(|l| l == t);
        let anchors = text::terms("bq query --destination_table analytics.prod_weekly").into_iter().filter(|t| has(t)).count();
        assert!(anchors >= 2, "the premise: the situation shares words with its lesson");
        let said = |words: &str, lesson_has: &dyn Fn(&str) -> bool| s.evidence("lesson", &moment("/p", words, Some(&same)), 0.0, lesson_has, &|_| false).applies.unwrap();
        // The same kind of write into prod: every anchor, the closeness in full.
        let to_prod = said("bq query --destination_table analytics.prod_daily", &has);
        assert_eq!((to_prod.anchors, to_prod.shared), (anchors, anchors));
        assert!((to_prod.closeness - 1.0).abs() < 1e-6, "{to_prod:?}");
        // As close in meaning, into a scratch table: only the share of anchors it has.
        let scratch = said("bq query --destination_table scratch.daily", &has);
        assert!(scratch.shared < anchors && (scratch.closeness - scratch.shared as f64 / anchors as f64).abs() < 1e-6, "{scratch:?}");
        // A lesson that shares no word with its situation: no anchors, the closeness in full.
        let unrelated = said("bq query --destination_table scratch.daily", &|_| false);
        assert_eq!((unrelated.anchors, unrelated.closeness), (0, 1.0));
        // Under the floor once scaled, it says nothing; the side against is never scaled.
        assert!(s.evidence("lesson", &moment("/p", "make scratch.daily", Some(&same)), 0.5, &has, &|_| false).applies.is_none());
        let against = s.evidence("lesson", &moment("/p", "make scratch.daily", Some(&[0.0, 1.0])), 0.5, &has, &|_| false).not.unwrap();
        assert!((against.closeness - 1.0).abs() < 1e-6, "{against:?}");
    }

    #[test]
    fn the_same_command_on_other_arguments_counts_where_the_lesson_applies_only() {
        let mut s = Situations::default();
        // Far apart in meaning: the package names outweigh the action.
        s.upsert("yes", "/p", "Install left-pad npm install left-pad", Act { kind: "", command: Some("npm install") }, v(&[1.0, 0.0]), 0.0);
        s.link("yes", "pnpm", Some(0.51));
        s.upsert("no", "/p", "Push the branch git push origin feature", Act { kind: "", command: Some("git push") }, v(&[1.0, 0.0]), 0.0);
        s.link("no", "force", Some(0.49));
        let lesson_terms = text::terms("use pnpm add, never npm or yarn");
        let has = |t: &str| lesson_terms.iter().any(|l| l == t);
        let at = |words: &str, shape: &str| moment("/p", words, Some(&[0.0, 1.0])).running(Some(shape), 0.9);
        // The same command on another package: as close as `same_command`, by the command.
        let lodash = s.evidence("pnpm", &at("Install lodash npm install lodash", "npm install"), 0.5, &has, &|_| false).applies.unwrap();
        assert!((lodash.closeness - 0.9).abs() < 1e-9 && lodash.by_command && !lodash.by_meaning, "{lodash:?}");
        // Prepared once, the same answer; and the lesson is near the moment for gathering.
        let prepared = s.prepare(at("Install lodash npm install lodash", "npm install"), 0.5);
        assert_eq!(s.evidence("pnpm", &prepared, 0.5, &has, &|_| false).applies.unwrap(), lodash);
        assert_eq!(s.lessons_near(&prepared, 5, 0.5), vec![("pnpm".to_string(), 0.9)]);
        // Another command of the same program, or commands not compared: nothing.
        assert!(s.evidence("pnpm", &at("Build it npm run build", "npm run"), 0.5, &has, &|_| false).applies.is_none());
        assert!(s.evidence("pnpm", &moment("/p", "npm install lodash", Some(&[0.0, 1.0])).running(Some("npm install"), 0.0), 0.5, &has, &|_| false).applies.is_none());
        // Anchors still count: the situation's words the lesson has (npm), which the moment lacks.
        assert!(s.evidence("pnpm", &at("Install lodash with the other tool", "npm install"), 0.5, &has, &|_| false).applies.is_none());
        // The side against: the command does not count, and it is never the same situation.
        assert!(s.evidence("force", &at("Force it git push --force origin main", "git push"), 0.5, &|_| false, &|_| false).not.is_none());
        assert!(s.same(&at("Install lodash npm install lodash", "npm install"), 0.5).is_none());
    }

    #[test]
    fn evidence_stays_in_its_project_and_takes_each_side() {
        let mut s = Situations::default();
        s.upsert("sit_a", "/p", "format customer name into sql string", Act::default(), v(&[1.0, 0.0]), 0.0);
        s.upsert("sit_b", "/p", "read the sql docs", Act::default(), v(&[0.0, 1.0]), 0.0);
        s.upsert("sit_c", "/q", "format customer name into sql string", Act::default(), v(&[1.0, 0.0]), 0.0);
        s.link("sit_a", "lesson", Some(0.51));
        s.link("sit_b", "lesson", Some(0.49));
        s.link("sit_c", "other", Some(0.9));
        let v = [0.8f32, 0.6];
        let e = s.evidence("lesson", &moment("/p", "x", Some(&v)), 0.0, &|_| false, &|_| false);
        assert_eq!(e.applies.as_ref().map(|m| m.situation.as_str()), Some("sit_a"));
        assert!((e.applies.unwrap().closeness - 0.8).abs() < 1e-6);
        assert!((e.not.unwrap().closeness - 0.6).abs() < 1e-6);
        assert_eq!(e.like, 1, "one moment like this the lesson applies to");
        s.upsert("sit_d", "/p", "format vendor name into sql string", Act::default(), self::v(&[0.9, 0.436]), 0.0);
        s.link("sit_d", "lesson", Some(0.51));
        assert_eq!(s.evidence("lesson", &moment("/p", "x", Some(&v)), 0.5, &|_| false, &|_| false).like, 2);
        assert!(s.remove("sit_d"));
        // Another project's situations say nothing here.
        assert_eq!(s.evidence("other", &moment("/p", "x", Some(&v)), 0.0, &|_| false, &|_| false), Learned::default());
        assert_eq!(s.lessons_near(&moment("/p", "x", Some(&v)), 5, 0.5), vec![("lesson".to_string(), 0.800000011920929)]);
        assert!(s.lessons_near(&moment("/q", "x", Some(&[0.0, 1.0])), 5, 0.5).is_empty(), "under the floor");
        // A neutral link says nothing; a removed situation neither.
        s.link("sit_b", "lesson", Some(NEUTRAL));
        assert!(s.evidence("lesson", &moment("/p", "x", Some(&v)), 0.0, &|_| false, &|_| false).not.is_none());
        s.unlink_lesson("other");
        assert!(s.links_of("other").is_empty());
        assert!(s.remove("sit_a") && !s.remove("sit_a"));
        assert!(s.links_of("lesson").iter().all(|(sid, _, _)| sid != "sit_a"));
        assert!(s.evidence("lesson", &moment("/p", "x", Some(&v)), 0.0, &|_| false, &|_| false).applies.is_none());
        assert_eq!(s.in_project("/p"), 1);
    }

    #[test]
    fn a_prepared_moment_answers_as_one_compared_each_time() {
        let mut s = Situations::default();
        s.upsert("sit_a", "/p", "a", Act::default(), v(&[1.0, 0.0]), 0.0);
        s.upsert("sit_b", "/p", "b", Act::default(), v(&[0.6, 0.8]), 0.0);
        s.upsert("sit_c", "/p", "c", Act::default(), v(&[0.0, 1.0]), 0.0);
        s.link("sit_a", "x", Some(0.6));
        s.link("sit_b", "x", Some(0.4));
        s.link("sit_c", "y", Some(0.6));
        let q = [0.8f32, 0.6];
        let plain = moment("/p", "q", Some(&q));
        let prepared = s.prepare(moment("/p", "q", Some(&q)), 0.5);
        for lesson in ["x", "y"] {
            assert_eq!(s.evidence(lesson, &plain, 0.5, &|_| false, &|_| false), s.evidence(lesson, &prepared, 0.5, &|_| false, &|_| false), "{lesson}");
        }
        assert_eq!(s.lessons_near(&plain, 5, 0.5), s.lessons_near(&prepared, 5, 0.5));
        assert_eq!(s.lessons_near(&prepared, 5, 0.5).len(), 2);
        assert!((dot(&[1.0; 13], &[2.0; 13]) - 26.0).abs() < 1e-6, "lanes and the tail");
    }

    #[test]
    fn without_embeddings_words_decide() {
        let mut s = Situations::default();
        s.upsert("sit_a", "/p", "npm install lodash", Act::default(), None, 0.0);
        s.link("sit_a", "pnpm", Some(0.6));
        let m = moment("/p", "npm install lodash", Some(&[1.0, 0.0]));
        assert_eq!(s.same(&m, 0.99).map(|(id, _)| id), Some("sit_a".to_string()), "no vector on the situation: words");
        let near = moment("/p", "npm install express", None);
        let e = s.evidence("pnpm", &near, 0.0, &|_| false, &|_| false).applies.unwrap();
        assert!((e.closeness - 0.5).abs() < 1e-9 && !e.by_meaning, "2 shared of 4 words: {}", e.closeness);
        assert!(s.same(&near, 0.9).is_none());
        // A vector another model made is not compared with this one's.
        s.upsert("sit_b", "/p", "yarn add lodash", Act::default(), Some(("other-model".into(), vec![1.0, 0.0])), 0.0);
        s.link("sit_b", "yarn", Some(0.6));
        let c = s.evidence("yarn", &moment("/p", "npm install lodash", Some(&[1.0, 0.0])), 0.0, &|_| false, &|_| false).applies.unwrap().closeness;
        assert!((c - 0.2).abs() < 1e-9, "1 shared of 5 words, not cosine 1: {c}");
    }

    #[test]
    fn an_unused_situation_fades() {
        let mut s = Situations::default();
        let day = 86_400.0;
        s.upsert("sit_a", "/p", "npm install lodash", Act::default(), v(&[1.0, 0.0]), 10.0 * day);
        s.link("sit_a", "pnpm", Some(0.6));
        let at = |now: f64, floor: f64| s.evidence("pnpm", &moment("/p", "x", Some(&[1.0, 0.0])).fading(now, 90.0 * day), floor, &|_| false, &|_| false).applies.map(|m| m.closeness);
        assert_eq!(at(10.0 * day, 0.0), Some(1.0), "just judged");
        assert!((at(100.0 * day, 0.0).unwrap() - 0.5).abs() < 1e-9, "one half-life unused");
        assert_eq!(at(280.0 * day, 0.2), None, "faded under the floor");
    }

    #[test]
    fn upsert_moves_a_situation_between_projects_once() {
        let mut s = Situations::default();
        s.upsert("sit_a", "/p", "a b", Act::default(), None, 0.0);
        s.upsert("sit_a", "/p", "a b c", Act::default(), None, 0.0);
        assert_eq!(s.in_project("/p"), 1);
        s.upsert("sit_a", "/q", "a b c", Act::default(), None, 0.0);
        assert_eq!((s.in_project("/p"), s.in_project("/q")), (0, 1));
    }

    #[test]
    fn more_of_what_the_lesson_warns_about_is_no_difference() {
        let mut s = Situations::default();
        s.upsert("upd", "/p", "UPDATE ledger_entries SET amount_cents = 0", Act { kind: "edit", command: None }, v(&[1.0, 0.0]), 0.0);
        s.link("upd", "ledger", Some(0.51));
        let lesson = "ledger_entries is append-only: post a reversing entry with ledger::reverse(); never UPDATE or DELETE its rows";
        let (lesson_terms, warned): (Vec<String>, Vec<String>) = (text::terms(lesson), text::warned_terms(lesson));
        let has = |t: &str| lesson_terms.iter().any(|l| l == t);
        let warns = |t: &str| warned.iter().any(|l| l == t);
        let near = |words: &'static str| moment("/p", words, Some(&[1.0, 0.0])).doing(words);
        // A DELETE where the situation had an UPDATE: both are what the lesson warns about.
        let delete = "UPDATE ledger_entries SET note = '' WHERE id = 3; DELETE FROM ledger_entries WHERE amount_cents = 0";
        assert!(s.evidence("ledger", &near(delete), 0.5, &has, &warns).applies.is_some());
        assert!(s.evidence("ledger", &near(delete), 0.5, &has, &|_| false).applies.is_none(), "read as a difference without the warnings");
        // The remedy (a word of the lesson's prescription the situation lacks) still differs.
        assert!(s.evidence("ledger", &near("UPDATE ledger_entries SET amount_cents = 0; ledger::reverse(entry)"), 0.5, &has, &warns).applies.is_none());
    }

    #[test]
    fn the_same_kind_of_action_with_every_anchor_is_the_same_case() {
        let mut s = Situations::default();
        // Taught: a service read process.env (the lesson: read config through the typed object).
        s.upsert("svc", "/p", "src/services/payments.ts apiKey: process.env.PAYMENTS_API_KEY", Act { kind: "edit", command: None }, v(&[1.0, 0.0]), 0.0);
        s.link("svc", "config", Some(0.51));
        let lesson_terms = text::terms("Read configuration through the typed config object; never read process.env elsewhere");
        let has = |t: &str| lesson_terms.iter().any(|l| l == t);
        // Far in meaning (orthogonal vectors), another file, every anchor (process, env).
        let at = |words: &str, kind: &str| moment("/p", words, Some(&[0.0, 1.0])).acting(kind, 0.7);
        let job = s.evidence("config", &at("src/jobs/carts.ts delay = Number(process.env.CART_DELAY)", "edit"), 0.5, &has, &|_| false).applies.unwrap();
        assert!((job.closeness - 0.7).abs() < 1e-9 && job.by_anchors && !job.by_meaning && !job.by_command, "{job:?}");
        assert_eq!((job.anchors, job.shared), (2, 2));
        // Prepared (the situation is not near by meaning), the same answer.
        let prepared = s.prepare(at("src/jobs/carts.ts delay = Number(process.env.CART_DELAY)", "edit"), 0.5);
        assert_eq!(s.evidence("config", &prepared, 0.5, &has, &|_| false).applies.unwrap(), job);
        // Another kind of action (a prompt), a missing anchor, or the setting off: nothing.
        assert!(s.evidence("config", &at("why is process.env empty in the job", "prompt"), 0.5, &has, &|_| false).applies.is_none());
        assert!(s.evidence("config", &at("src/jobs/carts.ts delay = Number(env.CART_DELAY)", "edit"), 0.5, &has, &|_| false).applies.is_none());
        assert!(s.evidence("config", &at("src/jobs/carts.ts delay = Number(process.env.CART_DELAY)", "edit").acting("edit", 0.0), 0.5, &has, &|_| false).applies.is_none());
        // A link that came before its situation (an import's order), or a situation that moved
        // to another project: the link learns where it is.
        let mut late = Situations::default();
        late.link("svc", "config", Some(0.51));
        late.upsert("svc", "/q", "src/services/payments.ts apiKey: process.env.PAYMENTS_API_KEY", Act { kind: "edit", command: None }, v(&[1.0, 0.0]), 0.0);
        let in_p = |s: &Situations| s.evidence("config", &s.prepare(at("src/jobs/carts.ts delay = Number(process.env.CART_DELAY)", "edit"), 0.5), 0.5, &has, &|_| false).applies;
        assert!(in_p(&late).is_none(), "in /q, not /p");
        late.upsert("svc", "/p", "src/services/payments.ts apiKey: process.env.PAYMENTS_API_KEY", Act { kind: "edit", command: None }, v(&[1.0, 0.0]), 0.0);
        assert_eq!(in_p(&late), Some(job.clone()));
        // Closer by meaning than `same_anchors`: the meaning's closeness, as before.
        let near = s.evidence("config", &moment("/p", "src/jobs/carts.ts process.env.CART_DELAY", Some(&[1.0, 0.0])).acting("edit", 0.7), 0.5, &has, &|_| false).applies.unwrap();
        assert!((near.closeness - 1.0).abs() < 1e-6 && near.by_meaning && !near.by_anchors, "{near:?}");
    }

    #[test]
    fn a_moment_with_a_lesson_word_the_situation_lacks_is_not_its_case() {
        let mut s = Situations::default();
        s.upsert("hard", "/p", "src/services/orders.ts dataSource.query DELETE FROM orders", Act { kind: "edit", command: None }, v(&[1.0, 0.0]), 0.0);
        s.link("hard", "soft", Some(0.51));
        s.upsert("nope", "/p", "src/services/orders.ts softDelete orders", Act { kind: "edit", command: None }, v(&[1.0, 0.0]), 0.0);
        s.link("nope", "soft", Some(0.49));
        let lesson_terms = text::terms("Orders are soft-deleted with repo.softDelete; never hard-DELETE their rows");
        let has = |t: &str| lesson_terms.iter().any(|l| l == t);
        // As close in meaning as can be, but with the remedy's words (soft): not the taught case.
        let remedy = s.evidence("soft", &moment("/p", "src/services/orders.ts orderRepo.softDelete orders", Some(&[1.0, 0.0])).acting("edit", 0.7), 0.5, &has, &|_| false);
        assert!(remedy.applies.is_none(), "{remedy:?}");
        // The side against is read as before.
        assert_eq!(remedy.not.map(|m| m.situation), Some("nope".to_string()));
        // The same mistake again: the situation speaks.
        let again = s.evidence("soft", &moment("/p", "src/services/orders.ts DELETE FROM orders WHERE id", Some(&[1.0, 0.0])), 0.5, &has, &|_| false);
        assert_eq!(again.applies.map(|m| m.situation), Some("hard".to_string()));
        // A lesson word in the description only (not in what the action does) changes nothing.
        let described = moment("/p", "Hard-delete the soft rows src/services/orders.ts DELETE FROM orders", Some(&[1.0, 0.0])).doing("DELETE FROM orders");
        let said = s.evidence("soft", &described, 0.5, &has, &|_| false);
        assert_eq!(said.applies.map(|m| m.situation), Some("hard".to_string()));
    }
}
