//! The whole explorer state as readable `key=value` pairs in the URL hash, so a link opens
//! the same figure:
//!
//! ```text
//! #q=qkeras.quantized_bits(bits=4,symmetric=True)&q=!larq.ApproxSign&x=-2,2&mode=infer&seed=3
//!  &sample=laplace,0.2&hide=alpha,symmetric&sel=1
//! ```
//!
//! The keys are [`SETTINGS`] and the sample tensor's
//! ([`sample::settings`](crate::sample::settings)).
//!
//! Printing writes the canonical spec of each quantizer with the spaces after commas dropped,
//! and only the keys that differ from their defaults (`q` and `x` always), encoded as
//! [`hash`](crate::hash) says.
//!
//! [`State::parse`] never fails as a whole: each bad part takes its default and adds a message
//! naming the problem (a bad spec gives its parser's message, with "did you mean"); past
//! [`MAX_PROBLEMS`](crate::hash::MAX_PROBLEMS) messages, one more counts the rest.

use std::sync::OnceLock;

use crate::blocks;
use crate::hash::{cap_problems, number, parts, quote, switch};
use crate::sample::settings::{self as sample_settings, Sample};
use crate::sample::{SAMPLE_N, SampleSpec};
use crate::settings::{Range, Setting, Write, keys, one, read_hash};
use qscope_quant::spec::did_you_mean;
use qscope_quant::{ENTRIES, Quantizer, parse};

/// The most quantizers compared at once (one per Okabe–Ito colour).
pub const MAX_QUANTIZERS: usize = 6;

/// The quantizer of an empty or hopeless hash.
pub const DEFAULT_SPEC: &str = "qkeras.quantized_bits(4,0,1)";

/// The x range of an empty hash.
pub const DEFAULT_X: (f32, f32) = (-2.0, 2.0);

/// No x range end beyond this magnitude (the sweep is float32).
pub const X_LIMIT: f32 = 1e6;

/// The narrowest x range, relative to its magnitude (at least 1e-4 wide around 0): a sweep of
/// 2001 float32 samples needs room between them.
pub const MIN_RELATIVE_SPAN: f32 = 1e-4;

/// Sections of the page a lesson link may hide with `hide=`, besides parameter controls.
pub const SECTIONS: [&str; 3] = ["picker", "spec", "code"];

/// One compared quantizer.
#[derive(Clone, Debug, PartialEq)]
pub struct Slot {
    pub quantizer: Quantizer,
    /// Listed and kept, but not drawn.
    pub hidden: bool,
}

impl Slot {
    pub fn new(quantizer: Quantizer) -> Slot {
        Slot { quantizer, hidden: false }
    }
}

/// Training (the libraries' default for quantization-aware training) or inference behaviour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    #[default]
    Train,
    Infer,
}

impl Mode {
    /// The word in the hash.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Train => "train",
            Mode::Infer => "infer",
        }
    }

    pub fn training(self) -> bool {
        self == Mode::Train
    }

    /// Training when `training`, else inference.
    pub fn from_training(training: bool) -> Mode {
        if training { Mode::Train } else { Mode::Infer }
    }

    /// `train` or `infer` (or `training`, `inference`), in any case.
    pub fn from_name(s: &str) -> Option<Mode> {
        match s.trim().to_ascii_lowercase().as_str() {
            "train" | "training" => Some(Mode::Train),
            "infer" | "inference" => Some(Mode::Infer),
            _ => None,
        }
    }
}

/// Everything a link restores.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    /// 1 to [`MAX_QUANTIZERS`] quantizers, in legend order.
    pub slots: Vec<Slot>,
    /// The x range: finite, `lo < hi` (see [`check_x`]).
    pub x: (f32, f32),
    pub mode: Mode,
    pub seed: u64,
    pub sample: Sample,
    /// Names of parameter controls and sections to hide, in the order given.
    pub hide: Vec<String>,
    /// Index into `slots`.
    pub selected: usize,
    /// The pinned x (crosshair, readout, Explain panel), when one is pinned.
    pub pin: Option<f32>,
    /// The sample's block (from 1) block formats are drawn at; `None`: the sweep's own block.
    pub block: Option<usize>,
    /// The name of the file whose tensor is the sample (the link carries the name, never the
    /// data); with [`State::tensor`], or neither.
    pub file: Option<String>,
    /// The name of that tensor in the file (`-` for a `.npy`).
    pub tensor: Option<String>,
    /// The tensor's channel axis, when not the last (the libraries' convention).
    pub axis: Option<usize>,
    /// The channel a per-channel quantizer is drawn for, when not the first
    /// ([`crate::tensor::drawn_channel`] keeps it within the tensor's channels).
    pub channel: Option<usize>,
}

impl Default for State {
    fn default() -> Self {
        State {
            slots: vec![Slot::new(default_quantizer())],
            x: DEFAULT_X,
            mode: Mode::Train,
            seed: 0,
            sample: Sample::default(),
            hide: Vec::new(),
            selected: 0,
            pin: None,
            block: None,
            file: None,
            tensor: None,
            axis: None,
            channel: None,
        }
    }
}

/// The quantizer of [`DEFAULT_SPEC`].
pub fn default_quantizer() -> Quantizer {
    match parse(DEFAULT_SPEC) {
        Ok(q) => q,
        // The catalogue always has entries; its first one is a sound fallback.
        Err(_) => (ENTRIES[0].default)(),
    }
}

impl State {
    /// Reads a hash (with or without the leading `#`). Bad parts take their defaults; the
    /// messages name each problem, in the order met.
    pub fn parse(hash: &str) -> (State, Vec<String>) {
        let mut st = State { slots: Vec::new(), ..State::default() };
        let mut problems = Vec::new();
        let known = |key: &str| setting(key).is_some() || sample_settings::setting(key).is_some();
        let apply = |st: &mut State, key: &str, value: &str, problems: &mut Vec<String>| match setting(key) {
            Some(row) => row.apply(st, value, problems),
            None => {
                sample_settings::setting(key).into_iter().for_each(|row| row.apply(&mut st.sample, value, problems))
            }
        };
        let names: Vec<&str> = keys(&SETTINGS).chain(keys(&sample_settings::SETTINGS)).collect();
        read_hash(parts(hash), &mut st, known, apply, &names, &mut problems);
        st.finish(&mut problems);
        cap_problems(&mut problems);
        (st, problems)
    }

    /// What a row cannot check alone: at most [`MAX_QUANTIZERS`] slots (at least the default
    /// one), a selection and a block that exist.
    fn finish(&mut self, problems: &mut Vec<String>) {
        let dropped = self.slots.len().saturating_sub(MAX_QUANTIZERS);
        if dropped > 0 {
            self.slots.truncate(MAX_QUANTIZERS);
            problems.push(format!(
                "{} quantizers given: at most {MAX_QUANTIZERS} are compared; the last {dropped} were left out",
                MAX_QUANTIZERS + dropped
            ));
        }
        if self.slots.is_empty() {
            self.slots = State::default().slots;
        }
        if let Some(k) = self.block {
            match self.block_count() {
                0 => problems.push(format!("block={k}: no block format is compared")),
                n if k == 0 || k > n => problems.push(format!("block={k}: the sample has blocks 1 to {n}")),
                _ => {}
            }
            self.block = self.drawn_block();
        }
        match (&self.file, &self.tensor) {
            (Some(f), None) => {
                problems.push(format!(
                    "file={}: no tensor= says which of its tensors; the synthetic sample is shown",
                    quote(f)
                ));
                self.file = None;
            }
            (None, Some(t)) => {
                problems.push(format!("tensor={}: no file= says where it is; the synthetic sample is shown", quote(t)));
                self.tensor = None;
            }
            _ => {}
        }
        if self.selected >= self.slots.len() {
            let n = self.slots.len();
            let (is, s) = if n == 1 { ("is", "") } else { ("are", "s") };
            problems.push(format!("sel={}: there {is} only {n} quantizer{s} (0 to {})", self.selected, n - 1));
            self.selected = 0;
        }
    }

    /// The hash that [`State::parse`] reads back as this state: `#q=…&x=lo,hi` and the keys
    /// that differ from their defaults, the sample's after the seed.
    pub fn to_hash(&self) -> String {
        let default = State::default();
        let (before, after) = SETTINGS.split_at(SAMPLE_AFTER);
        let mut parts: Vec<String> = before.iter().flat_map(|row| row.parts(self, &default)).collect();
        parts.extend(sample_settings::SETTINGS.iter().flat_map(|row| row.parts(&self.sample, &default.sample)));
        parts.extend(after.iter().flat_map(|row| row.parts(self, &default)));
        format!("#{}", parts.join("&"))
    }

    /// The selected slot (the first when `selected` is out of range).
    pub fn selected_slot(&self) -> &Slot {
        &self.slots[self.selected_index()]
    }

    /// `selected`, clamped to the slots.
    pub fn selected_index(&self) -> usize {
        self.selected.min(self.slots.len().saturating_sub(1))
    }

    /// The most blocks a compared block format cuts the sample into (0 with no block format).
    pub fn block_count(&self) -> usize {
        self.slots.iter().map(|s| blocks::count(&s.quantizer, SAMPLE_N)).max().unwrap_or(0)
    }

    /// The sample block block formats are drawn at, when one is chosen and some compared
    /// format has it (`None`: the sweep's own block).
    pub fn drawn_block(&self) -> Option<usize> {
        self.block.filter(|&k| k >= 1 && k <= self.block_count())
    }

    /// The sample tensor's full specification.
    pub fn sample_spec(&self) -> SampleSpec {
        self.sample.spec(self.seed)
    }

    /// Whether a control or section named `name` is hidden by the link.
    pub fn hides(&self, name: &str) -> bool {
        self.hide.iter().any(|h| h == name)
    }

    /// Appends a quantizer and selects it; `Err` when [`MAX_QUANTIZERS`] are compared already.
    pub fn add(&mut self, q: Quantizer) -> Result<(), String> {
        if self.slots.len() >= MAX_QUANTIZERS {
            return Err(format!("at most {MAX_QUANTIZERS} quantizers are compared; remove one first"));
        }
        self.slots.push(Slot::new(q));
        self.selected = self.slots.len() - 1;
        Ok(())
    }

    /// Removes slot `i` (never the last one left); the selection stays on the same quantizer,
    /// or moves to the one before a removed selection.
    pub fn remove(&mut self, i: usize) {
        if self.slots.len() <= 1 || i >= self.slots.len() {
            return;
        }
        self.slots.remove(i);
        if self.selected > i || self.selected >= self.slots.len() {
            self.selected = self.selected.saturating_sub(1);
        }
    }

    /// Selects slot `i` (ignored when out of range).
    pub fn select(&mut self, i: usize) {
        if i < self.slots.len() {
            self.selected = i;
        }
    }

    /// Shows a hidden slot or hides a shown one.
    pub fn toggle_hidden(&mut self, i: usize) {
        if let Some(s) = self.slots.get_mut(i) {
            s.hidden = !s.hidden;
        }
    }

    /// Replaces the selected quantizer.
    pub fn set_selected(&mut self, q: Quantizer) {
        let i = self.selected_index();
        self.slots[i].quantizer = q;
    }

    /// Sets the x range when it is valid (see [`check_x`]).
    pub fn set_x(&mut self, x: (f32, f32)) -> Result<(), String> {
        self.x = check_x(x)?;
        Ok(())
    }
}

pub static Q: Setting<State> = Setting {
    key: Some("q"),
    flag: None,
    arg: "SPEC",
    range: Range::Words(|| {
        format!(
            "a spec, in any form the parser accepts; repeated, up to {MAX_QUANTIZERS}, in order; `q=!spec` is \
             compared but hidden"
        )
    }),
    label: "quantizer",
    doc: "the compared quantizers",
    write: Write::Always,
    read: |st, v| {
        let (hidden, spec) = match v.trim_start().strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, v),
        };
        parse(spec).map(|quantizer| st.slots.push(Slot { quantizer, hidden })).map_err(|e| e.message)
    },
    show: |st| {
        let spec = |s: &Slot| format!("{}{}", if s.hidden { "!" } else { "" }, compact(&s.quantizer.to_string()));
        st.slots.iter().map(spec).collect()
    },
};

pub static X: Setting<State> = Setting {
    key: Some("x"),
    flag: Some("--x"),
    arg: "LO,HI",
    range: Range::Words(|| format!("`lo,hi`: two finite numbers within ±{X_LIMIT:e}, lo < hi")),
    label: "x range",
    doc: "the x range",
    write: Write::Always,
    read: |st, v| parse_x(v).map(|x| st.x = x),
    show: |st| one(format!("{},{}", st.x.0, st.x.1)),
};

pub static MODE: Setting<State> = Setting {
    key: Some("mode"),
    flag: None,
    arg: "MODE",
    range: Range::Words(|| "train or infer (`infer=1`, as older links wrote it, too)".into()),
    label: "mode",
    doc: "the libraries' training or inference behaviour",
    write: Write::Changed,
    read: |st, v| Mode::from_name(v).map(|m| st.mode = m).ok_or_else(|| "expected train or infer".into()),
    show: |st| one(st.mode.name()),
};

/// `infer=1`, as older links wrote `mode=infer`; the CLI's `--infer`.
pub static INFER: Setting<State> = Setting {
    key: Some("infer"),
    flag: Some("--infer"),
    arg: "",
    range: Range::Switch,
    label: "inference",
    doc: "inference behaviour (Keras learning phase 0); training is the default",
    write: Write::Never,
    read: |st, v| switch(v).map(|infer| st.mode = Mode::from_training(!infer)),
    show: |st| crate::settings::on_off(!st.mode.training()),
};

pub static SEED: Setting<State> = Setting {
    key: Some("seed"),
    flag: Some("--seed"),
    arg: "N",
    range: Range::Words(|| "a whole number from 0 to 2^64 − 1".into()),
    label: "seed",
    doc: "the seed of random draws (stochastic quantizers) and of the sample tensor",
    write: Write::Changed,
    read: |st, v| {
        let seed = v.trim().parse::<u64>().map_err(|_| format!("expected a whole number from 0 to {}", u64::MAX));
        seed.map(|s| st.seed = s)
    },
    show: |st| one(st.seed),
};

pub static HIDE: Setting<State> = Setting {
    key: Some("hide"),
    flag: None,
    arg: "NAMES",
    range: Range::Items(|| format!("parameter names, and the sections {}; comma-separated", SECTIONS.join(", "))),
    label: "hidden controls",
    doc: "controls a lesson hides",
    write: Write::Changed,
    read: |st, name| {
        check_hide(name)?;
        if !st.hides(name) {
            st.hide.push(name.to_string());
        }
        Ok(())
    },
    show: |st| if st.hide.is_empty() { Vec::new() } else { one(st.hide.join(",")) },
};

pub static SEL: Setting<State> = Setting {
    key: Some("sel"),
    flag: None,
    arg: "I",
    range: Range::Words(|| "an index from 0".into()),
    label: "selected",
    doc: "the selected quantizer",
    write: Write::Changed,
    read: |st, v| {
        let i = v.trim().parse::<usize>().map_err(|_| "expected the index of a quantizer (0, 1, …)".to_string());
        i.map(|i| st.selected = i)
    },
    show: |st| one(st.selected),
};

pub static PIN: Setting<State> = Setting {
    key: Some("pin"),
    flag: None,
    arg: "X",
    range: Range::Words(|| format!("a finite x within ±{X_LIMIT:e}")),
    label: "pinned x",
    doc: "the pinned x of the crosshair, the readout and the Explain panel",
    write: Write::Changed,
    read: |st, v| match number(v) {
        Some(p) if p.is_finite() && p.abs() <= X_LIMIT => {
            st.pin = Some(p);
            Ok(())
        }
        _ => Err(format!("expected a finite x from -{X_LIMIT} to {X_LIMIT}")),
    },
    show: |st| st.pin.map(one).unwrap_or_default(),
};

pub static BLOCK: Setting<State> = Setting {
    key: Some("block"),
    flag: None,
    arg: "K",
    range: Range::Words(|| "a block number from 1, or sweep".into()),
    label: "block",
    doc: "the sample block every block format's curve is drawn at (its own k-th block)",
    write: Write::Changed,
    read: |st, v| {
        let block = match v.trim().parse::<usize>() {
            _ if v.trim().eq_ignore_ascii_case("sweep") => None,
            Ok(k) => Some(k),
            Err(_) => return Err("expected sweep or the number of a sample block (1, 2, …)".into()),
        };
        st.block = block;
        Ok(())
    },
    show: |st| one(st.drawn_block().map_or("sweep".to_string(), |k| k.to_string())),
};

/// A name from a link: any text but empty, at most [`MAX_NAME`] characters.
fn name(what: &str, v: &str) -> Result<String, String> {
    match v.chars().count() {
        0 => Err(format!("expected a {what}'s name")),
        n if n > MAX_NAME => Err(format!("a {what}'s name of {n} characters; at most {MAX_NAME}")),
        _ => Ok(v.to_string()),
    }
}

/// The longest file or tensor name a link carries.
pub const MAX_NAME: usize = 400;

pub static FILE: Setting<State> = Setting {
    key: Some("file"),
    flag: None,
    arg: "NAME",
    range: Range::Words(|| format!("a file's name, at most {MAX_NAME} characters")),
    label: "tensor file",
    doc: "the file (safetensors, .npy, .npz) whose tensor is the sample; a link carries its name, never its data, \
          and asks for the file again",
    write: Write::Changed,
    read: |st, v| name("file", v).map(|n| st.file = Some(n)),
    show: |st| st.file.iter().cloned().collect(),
};

pub static TENSOR: Setting<State> = Setting {
    key: Some("tensor"),
    flag: None,
    arg: "NAME",
    range: Range::Words(|| format!("a tensor's name in that file, at most {MAX_NAME} characters")),
    label: "tensor",
    doc: "the tensor of that file that is the sample (`-` for a .npy file's array)",
    write: Write::Changed,
    read: |st, v| name("tensor", v).map(|n| st.tensor = Some(n)),
    show: |st| st.tensor.iter().cloned().collect(),
};

pub static AXIS: Setting<State> = Setting {
    key: Some("axis"),
    flag: Some("--axis"),
    arg: "A",
    range: Range::Words(|| "an axis of the tensor from 0; the last by default".into()),
    label: "channel axis",
    doc: "the tensor's axis that is the channel: per-channel scales are per index of it, groups and blocks run \
          along it (the libraries take the last, as a weight is laid out; another is a transpose first)",
    write: Write::Changed,
    read: |st, v| {
        let a = v.trim().parse::<usize>().map_err(|_| "expected an axis number (0, 1, …)".to_string());
        a.map(|a| st.axis = Some(a))
    },
    show: |st| st.axis.map(one).unwrap_or_default(),
};

pub static CHANNEL: Setting<State> = Setting {
    key: Some("channel"),
    flag: None,
    arg: "C",
    range: Range::Words(|| "a channel of the tensor from 0; the first by default, the last if beyond".into()),
    label: "drawn channel",
    doc: "the channel (an index of the channel axis) whose scale a per-channel quantizer's curve, levels and \
          Explain steps are drawn for",
    write: Write::Changed,
    read: |st, v| {
        let c = v.trim().parse::<usize>().map_err(|_| "expected a channel number (0, 1, …)".to_string());
        c.map(|c| st.channel = Some(c))
    },
    show: |st| st.channel.map(one).unwrap_or_default(),
};

/// The explorer's own settings, in the hash's order (the sample tensor's are its settings
/// table's, written after the first [`SAMPLE_AFTER`]).
pub static SETTINGS: [&Setting<State>; 13] =
    [&Q, &X, &MODE, &INFER, &SEED, &HIDE, &SEL, &PIN, &BLOCK, &FILE, &TENSOR, &AXIS, &CHANNEL];

/// How many of [`SETTINGS`] a hash writes before the sample's.
const SAMPLE_AFTER: usize = 5;

/// The explorer's row with hash key `key`.
pub fn setting(key: &str) -> Option<&'static Setting<State>> {
    crate::settings::by_key(&SETTINGS, key)
}

/// Checks an x range: two finite numbers `lo < hi` within ±[`X_LIMIT`], at least
/// [`MIN_RELATIVE_SPAN`] of their magnitude apart.
pub fn check_x((lo, hi): (f32, f32)) -> Result<(f32, f32), String> {
    if !(lo.is_finite() && hi.is_finite()) {
        return Err("expected two finite numbers lo,hi".into());
    }
    if lo >= hi {
        return Err(format!("expected lo < hi, got {lo} ≥ {hi}"));
    }
    if lo.abs() > X_LIMIT || hi.abs() > X_LIMIT {
        return Err(format!("expected numbers from -{X_LIMIT} to {X_LIMIT}"));
    }
    if hi - lo < MIN_RELATIVE_SPAN * lo.abs().max(hi.abs()).max(1.0) {
        return Err(format!("the range {lo} to {hi} is too narrow to sample"));
    }
    Ok((lo, hi))
}

fn parse_x(s: &str) -> Result<(f32, f32), String> {
    let parts: Vec<&str> = s.split(',').collect();
    match parts.as_slice() {
        [a, b] => match (number(a), number(b)) {
            (Some(lo), Some(hi)) => check_x((lo, hi)),
            _ => Err("expected two finite numbers lo,hi with lo < hi".into()),
        },
        _ => Err("expected two finite numbers lo,hi with lo < hi".into()),
    }
}

/// Every parameter name of the catalogue, once, in order (gathered and sorted at the first
/// call: every `hide=` name is looked up in it).
pub fn parameter_names() -> &'static [&'static str] {
    static NAMES: OnceLock<Vec<&'static str>> = OnceLock::new();
    NAMES.get_or_init(|| {
        let mut names: Vec<&'static str> = ENTRIES.iter().flat_map(|e| e.params.iter().map(|p| p.name)).collect();
        names.sort_unstable();
        names.dedup();
        names
    })
}

fn check_hide(name: &str) -> Result<(), String> {
    let names = parameter_names();
    if names.contains(&name) || SECTIONS.contains(&name) {
        return Ok(());
    }
    let all = names.iter().copied().chain(SECTIONS);
    let hint = did_you_mean(name, all).map(|d| format!("; did you mean '{d}'?")).unwrap_or_default();
    Err(format!("no parameter or section is called '{}'{hint}", quote(name)))
}

/// A spec without the spaces outside quotes (`bits=4, symmetric=True` → `bits=4,symmetric=True`),
/// which parses the same and needs no `%20` in a link. Inside quotes a backslash escapes the
/// next character, as in the spec parser (`'it\'s'`).
pub fn compact(spec: &str) -> String {
    let mut out = String::with_capacity(spec.len());
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in spec.chars() {
        match quote {
            Some(_) if escaped => escaped = false,
            Some(_) if c == '\\' => escaped = true,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c.is_whitespace() => continue,
            None => {}
        }
        out.push(c);
    }
    out
}

/// Zooms the range `x` by `factor` (below 1 zooms in) around `at`, kept within the limits of
/// [`check_x`] (an impossible zoom returns `x` unchanged).
pub fn zoom((lo, hi): (f32, f32), at: f32, factor: f32) -> (f32, f32) {
    if !(factor.is_finite() && factor > 0.0 && at.is_finite()) {
        return (lo, hi);
    }
    let at = at.clamp(lo, hi) as f64;
    let f = factor as f64;
    let (a, b) = (at - (at - lo as f64) * f, at + (hi as f64 - at) * f);
    let (a, b) = (a.max(-(X_LIMIT as f64)), b.min(X_LIMIT as f64));
    check_x((a as f32, b as f32)).unwrap_or((lo, hi))
}

/// Shifts the range `x` by `dx`, stopping at ±[`X_LIMIT`].
pub fn pan((lo, hi): (f32, f32), dx: f32) -> (f32, f32) {
    if !dx.is_finite() {
        return (lo, hi);
    }
    let (lo64, hi64, limit) = (lo as f64, hi as f64, X_LIMIT as f64);
    let d = (dx as f64).clamp(-limit - lo64, limit - hi64);
    check_x(((lo64 + d) as f32, (hi64 + d) as f32)).unwrap_or((lo, hi))
}
