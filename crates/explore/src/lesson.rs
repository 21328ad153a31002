//! Classroom lessons: a lesson is a Markdown file of steps, each a short text and a state of
//! the explorer or the trainer written with the URL hash's own `key=value` settings, so every
//! step is also a plain link.
//!
//! ````markdown
//! # Why rounding stops learning
//!
//! One optional paragraph before the first step: the lesson's summary.
//!
//! ## Round has no gradient
//!
//! Two to five sentences with **bold**, *italic*, `code`, inline formulas $\frac{\partial q}{\partial x} = 0$
//! and display formulas on their own line: $$q(x) = \Delta \cdot \operatorname{round}(x / \Delta)$$
//!
//! ```qscope
//! q=qkeras.quantized_bits(4,0,1)
//! x=-2,2
//! pin=0.3
//! highlight=backward
//! task=Make the gradient at x = 1.5 vanish.
//! done=dydx(1.5) == 0
//! ```
//! ````
//!
//! **Structure.** `# Title` exactly once, first (blank lines and a BOM before it are fine);
//! each `## Step title` starts a step; 1 to [`MAX_STEPS`] steps. A step's text is at most
//! [`MAX_TEXT`] characters; a file at most [`MAX_BYTES`]; a qscope block at most [`MAX_ENTRIES`] lines
//! of settings. Every `$` and `$$` formula closes in
//! its paragraph (`\$` is a dollar sign) and every fenced block closes.
//!
//! **The qscope block.** At most one per step, fenced with ```` ``` ```` or `~~~` and the info
//! string `qscope`: one `key=value` per line; blank lines and `#` lines are comments. A step
//! without one shows the previous step's state (step 1: the explorer's defaults); `task`,
//! `done`, `predict`, `why` and `highlight` are never inherited. Keys:
//!
//! | key | meaning |
//! |---|---|
//! | `view` | `explorer` (default) or `train` |
//! | the explorer's hash keys | `q` (may repeat), `x`, `mode`, `seed`, `sample`, `hide`, `sel`, `pin` — checked by [`State::parse`] |
//! | the trainer's hash keys | `dataset`, `hidden`, `wq`, `aq`, `lr`, `pace`… — checked by [`TrainParams::parse`]; `pace` defaults to 20 in a lesson |
//! | `highlight` | one element: explorer `forward`, `backward`, `selected`, `quality`, `explain`, `code`, `sample`, `picker`, `spec`, `compare`, `curve:N` (from 1), `control:NAME` (a catalogue parameter); trainer `boundary`, `curves`, `network`, `weights`, `flips`, `pace`, `batch`, `controls`, `control:NAME` (a trainer key) |
//! | `task` | the "try it" instruction, one line of plain text |
//! | `done` | the condition that ticks it ([`task`] has the language); `task` and `done` go together |
//! | `predict` | a question asked before the class looks: `QUESTION \| CHOICE \| *ANSWER \| …`, 2 to 4 choices, the right one marked `*` ([`predict`]) |
//! | `why` | why the answer is right, shown once a choice is picked; `predict` and `why` go together |
//!
//! **Lesson-wide defaults.** One qscope block after the `# Title`, before the first step, holds
//! settings every step starts from: a step's block reads as if the defaults' lines of its view
//! came first (the step's own line wins; its own `q` lines replace the defaults' `q`), and the
//! first step starts from them even without a block. The long `hide=…` line is written once.
//! Only view keys go there; `view`, `highlight`, `task`, `done`, `predict` and `why` belong to steps.
//!
//! Every problem the view's parser reports is an error, as is a key given twice (except `q`).
//! [`Lesson::parse`] never panics: it returns the lesson or every error found (the first
//! [`MAX_ERRORS`], then how many more), each naming the
//! step (number and title) and the line, e.g.
//! `step 3 "The clipped STE", line 27: q=qkeras.quantized_bit(4): unknown quantizer …`.
//!
//! A lesson opens from a file, from a built-in name ([`BUILTIN`]) or from a link carrying the
//! whole text ([`link`]): [`load`] takes either `lesson=` value.

mod format;
mod lines;
pub mod link;
pub mod lint;
pub mod predict;
pub mod render;
pub mod task;

use std::fmt;

use self::predict::Prediction;
use self::task::Condition;
use super::hash::encode;
use super::page::View;
use super::state::{State, parameter_names};
use super::train::TrainParams;
use super::train::settings::{LayerKey, hash_keys};
use qscope_quant::spec::did_you_mean;
use qscope_quant::text::shorten;

pub use super::page::MAX_STEPS;
pub use format::MAX_ENTRIES;
pub use link::MAX_BYTES;

/// The longest step text (its Markdown, qscope block left out), in characters.
pub const MAX_TEXT: usize = 2000;

/// The most errors a lesson reports one by one; the rest are counted in one more.
pub const MAX_ERRORS: usize = 100;

/// The longest task instruction, in characters.
pub const MAX_TASK: usize = 300;

/// The pace of a lesson's trainer steps that set none (epochs per second; `max` outside lessons).
pub const LESSON_PACE: &str = "20";

/// The built-in lessons (`lessons/NAME.md`): `(name, text)`; `lesson=NAME` opens one.
pub const BUILTIN: &[(&str, &str)] = &[
    ("ste", include_str!("../../../lessons/ste.md")),
    ("quantized_bits", include_str!("../../../lessons/quantized_bits.md")),
    ("binary", include_str!("../../../lessons/binary.md")),
    ("soft", include_str!("../../../lessons/soft.md")),
    ("bias", include_str!("../../../lessons/bias.md")),
    ("stochastic", include_str!("../../../lessons/stochastic.md")),
];

/// Explorer elements a step may highlight (besides `curve:N` and `control:NAME`).
pub const EXPLORER_PARTS: [&str; 10] =
    ["forward", "backward", "selected", "quality", "explain", "code", "sample", "picker", "spec", "compare"];

/// Trainer elements a step may highlight (besides `control:NAME`).
pub const TRAIN_PARTS: [&str; 8] = ["boundary", "curves", "network", "weights", "flips", "pace", "batch", "controls"];

/// A step's own keys, besides its view's.
pub const LESSON_KEYS: [&str; 6] = ["view", "highlight", "task", "done", "predict", "why"];

/// The explorer's hash keys.
pub const EXPLORER_KEYS: [&str; 8] = ["q", "x", "mode", "seed", "sample", "hide", "sel", "pin"];

/// A lesson: its title, summary and steps.
#[derive(Clone, Debug, PartialEq)]
pub struct Lesson {
    pub title: String,
    /// The paragraph(s) before the first step (Markdown; may be empty).
    pub summary: String,
    pub steps: Vec<Step>,
}

/// One step of a lesson.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub title: String,
    /// The step's Markdown text, its qscope block removed.
    pub text: String,
    /// The 1-based line of its `##` heading.
    pub line: usize,
    pub settings: Settings,
}

/// What a step shows: a view's settings, and the lesson's own keys.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub view: View,
    /// The view's `key=value` pairs in order, as written (`view` left out; a trainer step
    /// without `pace` has `pace=20` added).
    pub pairs: Vec<(String, String)>,
    pub highlight: Option<Highlight>,
    pub task: Option<Task>,
    /// A question the class answers before it looks ([`predict`]).
    pub predict: Option<Prediction>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings { view: View::Explorer, pairs: Vec::new(), highlight: None, task: None, predict: None }
    }
}

/// A "try it" task: the instruction and the condition that ticks it.
#[derive(Clone, Debug, PartialEq)]
pub struct Task {
    pub text: String,
    pub done: Condition,
}

/// The one element a step outlines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Highlight {
    /// A panel or section: one of [`EXPLORER_PARTS`] or [`TRAIN_PARTS`].
    Part(String),
    /// The N-th compared quantizer (from 1).
    Curve(usize),
    /// A control: a catalogue parameter (explorer) or a trainer key.
    Control(String),
}

impl fmt::Display for Highlight {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Highlight::Part(p) => f.write_str(p),
            Highlight::Curve(n) => write!(f, "curve:{n}"),
            Highlight::Control(c) => write!(f, "control:{c}"),
        }
    }
}

/// A problem in a lesson, with where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LessonError {
    /// The step's number (from 1) and title, when the problem is in a step.
    pub step: Option<(usize, String)>,
    /// The 1-based line in the file (None: the whole file or link).
    pub line: Option<usize>,
    pub message: String,
}

impl LessonError {
    fn at(line: usize, message: impl Into<String>) -> LessonError {
        LessonError { step: None, line: Some(line), message: message.into() }
    }

    fn whole(message: impl Into<String>) -> LessonError {
        LessonError { step: None, line: None, message: message.into() }
    }
}

impl fmt::Display for LessonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some((n, title)) = &self.step {
            write!(f, "step {n} \"{title}\", ")?;
        }
        if let Some(line) = self.line {
            write!(f, "line {line}: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for LessonError {}

impl Lesson {
    /// Reads a lesson file: the lesson, or every error found (the first [`MAX_ERRORS`], then how
    /// many more; never a panic).
    pub fn parse(text: &str) -> Result<Lesson, Vec<LessonError>> {
        if text.len() > MAX_BYTES {
            return Err(vec![LessonError::whole(format!(
                "the lesson has {} bytes; at most {} MB",
                text.len(),
                MAX_BYTES >> 20
            ))]);
        }
        let (raw, mut errors) = format::split(text);
        let defaults = raw.defaults.as_ref().map(|d| defaults(d, &mut errors));
        let mut steps = Vec::with_capacity(raw.steps.len());
        let mut previous = Settings::default();
        for (k, rs) in raw.steps.iter().enumerate() {
            let mut at = |line: usize, message: String| {
                errors.push(LessonError { step: Some((k + 1, rs.title.clone())), line: Some(line), message });
            };
            // The first step starts from the lesson's defaults even without a block of its own.
            let empty = (k == 0 && defaults.is_some()).then(|| format::Block { line: rs.line, ..Default::default() });
            let settings = match (rs.block.as_ref().or(empty.as_ref()), &defaults) {
                (Some(block), Some(d)) => settings(&with_defaults(block, d), &mut at),
                (Some(block), None) => settings(block, &mut at),
                (None, _) => Settings { highlight: None, task: None, predict: None, ..previous.clone() },
            };
            previous = settings.clone();
            steps.push(Step { title: rs.title.clone(), text: rs.markdown(), line: rs.line, settings });
        }
        if errors.len() > MAX_ERRORS {
            let more = errors.len() - MAX_ERRORS;
            errors.truncate(MAX_ERRORS);
            errors.push(LessonError::whole(format!(
                "{more} more error{} not listed",
                if more == 1 { " is" } else { "s are" }
            )));
        }
        if errors.is_empty() { Ok(Lesson { title: raw.title, summary: raw.summary, steps }) } else { Err(errors) }
    }

    /// Every error of a lesson file (none: it opens).
    pub fn check(text: &str) -> Vec<LessonError> {
        Lesson::parse(text).err().unwrap_or_default()
    }
}

impl Settings {
    /// The view's hash as written: `#q=…&x=…`, or `#view=train&…` (values percent-encoded
    /// where a hash needs it).
    pub fn view_hash(&self) -> String {
        let mut parts: Vec<String> = self.pairs.iter().map(|(k, v)| format!("{}={}", encode(k), encode(v))).collect();
        if self.view == View::Train {
            parts.insert(0, "view=train".into());
        }
        format!("#{}", parts.join("&"))
    }
}

impl Step {
    /// The step as a plain link's hash, canonical: the view's own printing of its settings.
    pub fn hash(&self) -> String {
        match self.settings.view {
            View::Explorer => self.explorer().unwrap_or_default().to_hash(),
            View::Train => self.trainer().unwrap_or_default().to_hash(),
        }
    }

    /// The explorer state of an explorer step.
    pub fn explorer(&self) -> Option<State> {
        (self.settings.view == View::Explorer).then(|| State::parse(&self.settings.view_hash()).0)
    }

    /// The trainer settings of a trainer step.
    pub fn trainer(&self) -> Option<TrainParams> {
        (self.settings.view == View::Train).then(|| TrainParams::parse(&self.settings.view_hash()).0)
    }
}

/// The lesson-wide defaults' entries that every step may take: each is a key of the explorer or
/// the trainer with a value its view reads (a step's own keys — `view`, `highlight`, `task`,
/// `done` — belong in steps). Each problem is an error at its line; the entry is left out.
fn defaults(block: &format::Block, errors: &mut Vec<LessonError>) -> Vec<(usize, String, String)> {
    let mut kept: Vec<(usize, String, String)> = Vec::new();
    for (line, key, value) in &block.entries {
        let mut error =
            |message: String| errors.push(LessonError::at(*line, format!("the lesson's defaults: {message}")));
        if let Some((first, _, _)) = kept.iter().find(|(_, k, _)| k == key).filter(|_| key != "q") {
            error(format!("{key} is given twice (first on line {first})"));
            continue;
        }
        if LESSON_KEYS.contains(&key.as_str()) {
            error(format!("{key} belongs to a step: write it in the step's own qscope block"));
            continue;
        }
        let explorer = EXPLORER_KEYS.contains(&key.as_str());
        let trainer = is_trainer_key(key);
        let pair = format!("{}={}", encode(key), encode(value));
        let problems = if explorer {
            State::parse(&format!("#{pair}")).1
        } else if trainer {
            TrainParams::parse(&format!("#view=train&{pair}")).1
        } else {
            let all = EXPLORER_KEYS.iter().copied().chain(hash_keys()).chain(LESSON_KEYS);
            let hint = did_you_mean(key, all).map(|k| format!("; did you mean '{k}'?")).unwrap_or_default();
            vec![format!(
                "unknown key '{}'{hint} (explorer keys: {}; trainer keys: {})",
                shorten(key, 60),
                EXPLORER_KEYS.join(", "),
                hash_keys().join(", ")
            )]
        };
        match problems.into_iter().next() {
            Some(problem) => error(problem),
            None => kept.push((*line, key.clone(), value.clone())),
        }
    }
    kept
}

/// A trainer hash key, or a layer's own quantizer (`wq2`, `aq10`).
fn is_trainer_key(key: &str) -> bool {
    hash_keys().contains(&key) || LayerKey::parse(key).is_some()
}

/// A step's block with the lesson's defaults before its own entries: those of its view (its
/// `view=`, else the explorer) that it does not set itself (its own `q` lines replace every
/// default `q`).
fn with_defaults(block: &format::Block, defaults: &[(usize, String, String)]) -> format::Block {
    let own = |key: &str| block.entries.iter().any(|(_, k, _)| k == key);
    let train = block.entries.iter().any(|(_, k, v)| k == "view" && v == "train");
    let fits = |key: &str| match train {
        false => EXPLORER_KEYS.contains(&key),
        true => is_trainer_key(key),
    };
    let inherited = defaults.iter().filter(|(_, k, _)| fits(k) && !own(k)).cloned();
    format::Block { entries: inherited.chain(block.entries.iter().cloned()).collect(), ..block.clone() }
}

/// A step's settings from its block; each problem goes to `at(line, message)`.
fn settings(block: &format::Block, at: &mut impl FnMut(usize, String)) -> Settings {
    let mut s = Settings::default();
    let (mut highlight, mut task, mut done, mut predict, mut why) = (None, None, None, None, None);
    let mut seen: Vec<(&str, usize)> = Vec::new();
    for (line, key, value) in &block.entries {
        if let Some((_, first)) = seen.iter().find(|(k, _)| k == key).filter(|_| key != "q") {
            at(*line, format!("{key} is given twice (first on line {first})"));
            continue;
        }
        seen.push((key, *line));
        match key.as_str() {
            "view" => match value.as_str() {
                "explorer" => s.view = View::Explorer,
                "train" => s.view = View::Train,
                _ => at(*line, format!("view={}: expected explorer or train", shorten(value, 60))),
            },
            "highlight" => highlight = Some((*line, value)),
            "task" => task = Some((*line, value)),
            "done" => done = Some((*line, value)),
            "predict" => predict = Some((*line, value)),
            "why" => why = Some((*line, value)),
            // The match above names every key of LESSON_KEYS.
            _ => s.pairs.push((key.clone(), value.clone())),
        }
    }
    let lines: Vec<usize> =
        block.entries.iter().filter(|(_, k, _)| !LESSON_KEYS.contains(&k.as_str())).map(|e| e.0).collect();
    check_pairs(&s, &lines, block.line, at);
    if let Some((line, value)) = highlight {
        match parse_highlight(value, &s) {
            Ok(h) => s.highlight = Some(h),
            Err(e) => at(line, format!("highlight={}: {e}", shorten(value, 60))),
        }
    }
    s.task = lesson_task(task, done, s.view, at);
    s.predict = Prediction::parse(predict, why, at);
    if s.view == View::Train && !s.pairs.iter().any(|(k, _)| k == "pace") {
        s.pairs.push(("pace".into(), LESSON_PACE.into()));
    }
    s
}

/// The view's parser on the step's pairs: each problem it reports is an error on the line of
/// the pair it comes from (found by parsing that pair alone, or by its key), else on the
/// block's line.
fn check_pairs(s: &Settings, lines: &[usize], block_line: usize, at: &mut impl FnMut(usize, String)) {
    let problems = |hash: &str| match s.view {
        View::Explorer => State::parse(hash).1,
        View::Train => TrainParams::parse(hash).1,
    };
    let alone: Vec<Vec<String>> = s
        .pairs
        .iter()
        .map(|(k, v)| problems(&Settings { pairs: vec![(k.clone(), v.clone())], ..s.clone() }.view_hash()))
        .collect();
    let mut used = vec![false; s.pairs.len()];
    for problem in problems(&s.view_hash()) {
        let own = (0..s.pairs.len()).find(|&i| !used[i] && alone[i].contains(&problem));
        let pair = own.or_else(|| s.pairs.iter().rposition(|(k, _)| problem.starts_with(&format!("{k}="))));
        if let Some(i) = own {
            used[i] = true;
        }
        let line = pair.and_then(|i| lines.get(i).copied()).unwrap_or(block_line);
        let key = pair.map(|i| s.pairs[i].0.as_str());
        let hint = other_view_hint(s.view, key, &problem);
        at(line, format!("{}{hint}", with_lesson_keys(problem, key, s.view)));
    }
}

/// An unknown key's message with the lesson's own keys beside the view's: a did-you-mean among
/// them too (`hilight` → `highlight`), and both lists.
fn with_lesson_keys(problem: String, key: Option<&str>, view: View) -> String {
    let Some(key) = key.filter(|_| problem.starts_with("unknown key '") || problem.ends_with(": unknown key")) else {
        return problem;
    };
    let (mut head, view_keys) = match problem.rfind(" (keys: ") {
        Some(open) => {
            (problem[..open].to_string(), problem[open + " (keys: ".len()..].trim_end_matches(')').to_string())
        }
        None => (problem.clone(), hash_keys().join(", ")),
    };
    if !head.contains("did you mean") {
        let all = LESSON_KEYS.iter().copied().chain(view_keys.split(", "));
        if let Some(k) = did_you_mean(key, all) {
            head.push_str(&format!("; did you mean '{k}'?"));
        }
    }
    let name = if view == View::Train { "trainer" } else { "explorer" };
    format!("{head} (lesson keys: {}; {name} keys: {view_keys})", LESSON_KEYS.join(", "))
}

/// A hint when a key of the other view is used: the usual slip in a lesson.
fn other_view_hint(view: View, key: Option<&str>, problem: &str) -> String {
    let unknown = |k: &str| problem.contains(&format!("unknown key '{k}'")) || problem.starts_with(&format!("{k}="));
    match view {
        View::Explorer => hash_keys()
            .into_iter()
            .find(|k| !EXPLORER_KEYS.contains(k) && unknown(k))
            .map(|k| format!(" ('{k}' is a trainer key: add view=train to this step)")),
        View::Train => key
            .filter(|k| EXPLORER_KEYS.contains(k) && !hash_keys().contains(k) && problem.contains("unknown key"))
            .map(|k| format!(" ('{k}' is an explorer key; this step has view=train)")),
    }
    .unwrap_or_default()
}

fn parse_highlight(value: &str, s: &Settings) -> Result<Highlight, String> {
    let parts: &[&str] = if s.view == View::Explorer { &EXPLORER_PARTS } else { &TRAIN_PARTS };
    if parts.contains(&value) {
        return Ok(Highlight::Part(value.to_string()));
    }
    if let (View::Explorer, Some(n)) = (s.view, value.strip_prefix("curve:")) {
        let count = State::parse(&s.view_hash()).0.slots.len();
        return match n.trim().parse::<usize>() {
            Ok(n) if (1..=count).contains(&n) => Ok(Highlight::Curve(n)),
            _ => Err(format!("this step compares {count} quantizer{}: curve:1 to curve:{count}", plural(count))),
        };
    }
    if let Some(name) = value.strip_prefix("control:") {
        let name = name.trim();
        let known = match s.view {
            View::Explorer => parameter_names().contains(&name),
            View::Train => is_trainer_key(name),
        };
        if known {
            return Ok(Highlight::Control(name.to_string()));
        }
        let names: Vec<&str> = if s.view == View::Explorer { parameter_names().to_vec() } else { hash_keys() };
        let hint =
            did_you_mean(name, names.iter().copied()).map(|m| format!("; did you mean '{m}'?")).unwrap_or_default();
        let what = if s.view == View::Explorer { "parameter of the catalogue" } else { "trainer setting" };
        return Err(format!("no {what} is called '{}'{hint}", shorten(name, 60)));
    }
    let special = if s.view == View::Explorer { ", curve:N, control:NAME" } else { ", control:NAME" };
    let hint = did_you_mean(value, parts.iter().copied()).map(|m| format!("did you mean '{m}'? ")).unwrap_or_default();
    Err(format!("{hint}expected one of {}{special}", parts.join(", ")))
}

/// `wq2`, `aq10`: a hidden layer's quantizer.
fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn lesson_task(
    task: Option<(usize, &String)>,
    done: Option<(usize, &String)>,
    view: View,
    at: &mut impl FnMut(usize, String),
) -> Option<Task> {
    match (task, done) {
        (None, None) => None,
        (Some((line, _)), None) => {
            at(line, "task= needs its condition: add done=… (e.g. done=dydx(1.5) == 0)".into());
            None
        }
        (None, Some((line, _))) => {
            at(line, "done= needs its instruction: add task=… (one line for the class)".into());
            None
        }
        (Some((tline, text)), Some((dline, cond))) => {
            let mut ok = true;
            if text.is_empty() || text.chars().count() > MAX_TASK {
                at(tline, format!("task=: expected one line of 1 to {MAX_TASK} characters"));
                ok = false;
            }
            let parsed = Condition::parse(cond).and_then(|c| c.check_view(view).map(|()| c));
            match parsed {
                Ok(done) if ok => Some(Task { text: text.clone(), done }),
                Ok(_) => None,
                Err(e) => {
                    at(dline, format!("done={}: {e}", shorten(cond, 60)));
                    None
                }
            }
        }
    }
}

/// A built-in lesson's text by name.
pub fn builtin(name: &str) -> Option<&'static str> {
    BUILTIN.iter().find(|(n, _)| *n == name).map(|(_, text)| *text)
}

/// The text of a `lesson=` value: a built-in lesson's name or a packed lesson (`~…`).
pub fn source(value: &str) -> Result<String, String> {
    let value = value.trim();
    if link::is_packed(value) {
        return link::decode(value);
    }
    if let Some(text) = builtin(value) {
        return Ok(text.to_string());
    }
    let names: Vec<&str> = BUILTIN.iter().map(|(n, _)| *n).collect();
    let hint = did_you_mean(value, names.iter().copied()).map(|m| format!("; did you mean '{m}'?")).unwrap_or_default();
    Err(format!("no built-in lesson is called '{}'{hint} (built-in: {})", shorten(value, 60), names.join(", ")))
}

/// The lesson of a `lesson=` value (see [`source`]); a damaged link or an unknown name is one
/// error without a line.
pub fn load(value: &str) -> Result<Lesson, Vec<LessonError>> {
    let text = source(value).map_err(|e| vec![LessonError::whole(e)])?;
    Lesson::parse(&text)
}
