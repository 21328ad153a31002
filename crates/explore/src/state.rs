//! The whole explorer state as readable `key=value` pairs in the URL hash, so a link opens
//! the same figure:
//!
//! ```text
//! #q=qkeras.quantized_bits(bits=4,symmetric=True)&q=!larq.ApproxSign&x=-2,2&mode=infer&seed=3
//!  &sample=laplace,0.2&hide=alpha,symmetric&sel=1
//! ```
//!
//! The keys are [`KEYS`] and the sample tensor's ([`sample::settings`](crate::sample::settings)).
//!
//! Printing writes the canonical spec of each quantizer with the spaces after commas dropped,
//! and only the keys that differ from their defaults (`q` and `x` always). Percent-encoding is
//! kept to what a URL fragment needs (space, `"`, `#`, `%`, `&`, `<`, `>`, `` ` ``, `{`, `|`,
//! `}`, `\`, `^`, controls and non-ASCII), so a spec stays readable; `+` is a plus, not a space.
//!
//! [`State::parse`] never fails as a whole: each bad part takes its default and adds a message
//! naming the problem (a bad spec gives its parser's message, with "did you mean"); past
//! [`MAX_PROBLEMS`] messages, one more counts the rest.

use std::sync::OnceLock;

use crate::blocks;
use crate::keys::Key;
use crate::sample::SampleSpec;
pub use crate::sample::settings::Sample;
use crate::sample::settings::{SETTINGS as SAMPLE_SETTINGS, setting as sample_setting};
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

/// The sample tensor's size.
pub const SAMPLE_N: usize = 1000;

/// The largest sample spread accepted.
pub const MAX_SPREAD: f32 = 1e3;

/// The most problems a hash reports one by one; the rest are counted in one more message (a
/// 100 KB link of bad parts gives a readable banner).
pub const MAX_PROBLEMS: usize = 20;

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

    fn from_name(s: &str) -> Option<Mode> {
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
        let mut st = State::default();
        let mut problems = Vec::new();
        let mut slots = Vec::new();
        let mut dropped = 0usize;
        let mut selected: Option<(String, usize)> = None;
        let mut block: Option<(String, usize)> = None;
        let text = hash.strip_prefix('#').unwrap_or(hash);
        for part in text.split('&').filter(|p| !p.trim().is_empty()) {
            let (raw_key, raw_value) = match part.split_once('=') {
                Some((k, v)) => (k, Some(v)),
                None => (part, None),
            };
            let key = decode(raw_key).trim().to_ascii_lowercase();
            let Some(value) = raw_value.map(decode) else {
                problems.push(match known_key(&key) {
                    true => format!("'{}' has no value; expected {key}=…", shorten(&key)),
                    false => unknown_key(&key),
                });
                continue;
            };
            if let Some(row) = sample_setting(&key) {
                if let Err(e) = (row.read)(&mut st.sample, &value) {
                    problems.push(format!("{key}={}: {e}", shorten(&value)));
                }
                continue;
            }
            match key.as_str() {
                "q" => {
                    let (hidden, spec) = match value.trim_start().strip_prefix('!') {
                        Some(rest) => (true, rest),
                        None => (false, value.as_str()),
                    };
                    match parse(spec) {
                        Ok(_) if slots.len() >= MAX_QUANTIZERS => dropped += 1,
                        Ok(quantizer) => slots.push(Slot { quantizer, hidden }),
                        Err(e) => problems.push(format!("q={}: {}", shorten(spec), e.message)),
                    }
                }
                "x" => match parse_x(&value) {
                    Ok(x) => st.x = x,
                    Err(e) => problems.push(format!("x={}: {e}", shorten(&value))),
                },
                "mode" => match Mode::from_name(&value) {
                    Some(m) => st.mode = m,
                    None => problems.push(format!("mode={}: expected train or infer", shorten(&value))),
                },
                "infer" => match crate::keys::switch(&value) {
                    Ok(infer) => st.mode = if infer { Mode::Infer } else { Mode::Train },
                    Err(e) => problems.push(format!("infer={}: {e}", shorten(&value))),
                },
                "seed" => match value.trim().parse::<u64>() {
                    Ok(s) => st.seed = s,
                    Err(_) => problems.push(format!(
                        "seed={}: expected a whole number from 0 to {}",
                        shorten(&value),
                        u64::MAX
                    )),
                },
                "hide" => {
                    for name in value.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                        match check_hide(name) {
                            Ok(()) if !st.hide.iter().any(|h| h == name) => st.hide.push(name.to_string()),
                            Ok(()) => {}
                            Err(e) => problems.push(format!("hide={}: {e}", shorten(name))),
                        }
                    }
                }
                "pin" => match number(&value) {
                    Some(p) if p.is_finite() && p.abs() <= X_LIMIT => st.pin = Some(p),
                    _ => problems
                        .push(format!("pin={}: expected a finite x from -{X_LIMIT} to {X_LIMIT}", shorten(&value))),
                },
                "block" => match value.trim().parse::<usize>() {
                    _ if value.trim().eq_ignore_ascii_case("sweep") => {}
                    Ok(k) => block = Some((value.clone(), k)),
                    Err(_) => problems.push(format!(
                        "block={}: expected sweep or the number of a sample block (1, 2, …)",
                        shorten(&value)
                    )),
                },
                "sel" => match value.trim().parse::<usize>() {
                    Ok(i) => selected = Some((value.clone(), i)),
                    Err(_) => {
                        problems.push(format!("sel={}: expected the index of a quantizer (0, 1, …)", shorten(&value)))
                    }
                },
                _ => problems.push(unknown_key(&key)),
            }
        }
        if dropped > 0 {
            problems.push(format!(
                "{} quantizers given: at most {MAX_QUANTIZERS} are compared; the last {dropped} were left out",
                MAX_QUANTIZERS + dropped
            ));
        }
        if !slots.is_empty() {
            st.slots = slots;
        }
        if let Some((text, k)) = block {
            match st.block_count() {
                0 => problems.push(format!("block={}: no block format is compared", shorten(&text))),
                n if k == 0 || k > n => {
                    problems.push(format!("block={}: the sample has blocks 1 to {n}", shorten(&text)))
                }
                _ => st.block = Some(k),
            }
        }
        if let Some((text, i)) = selected {
            if i < st.slots.len() {
                st.selected = i;
            } else {
                problems.push(format!(
                    "sel={}: there {} only {} quantizer{} (0 to {})",
                    shorten(&text),
                    if st.slots.len() == 1 { "is" } else { "are" },
                    st.slots.len(),
                    if st.slots.len() == 1 { "" } else { "s" },
                    st.slots.len() - 1
                ));
            }
        }
        cap_problems(&mut problems);
        (st, problems)
    }

    /// The hash that [`State::parse`] reads back as this state: `#q=…&x=lo,hi` and the keys
    /// that differ from their defaults.
    pub fn to_hash(&self) -> String {
        let mut parts: Vec<String> = self
            .slots
            .iter()
            .map(|s| format!("q={}{}", if s.hidden { "!" } else { "" }, encode(&compact(&s.quantizer.to_string()))))
            .collect();
        parts.push(format!("x={},{}", self.x.0, self.x.1));
        if self.mode != Mode::Train {
            parts.push(format!("mode={}", self.mode.name()));
        }
        if self.seed != 0 {
            parts.push(format!("seed={}", self.seed));
        }
        for row in SAMPLE_SETTINGS.iter().filter(|row| !row.is_default(&self.sample)) {
            parts.push(format!("{}={}", row.key, encode(&(row.show)(&self.sample))));
        }
        if !self.hide.is_empty() {
            parts.push(format!("hide={}", encode(&self.hide.join(","))));
        }
        if self.selected != 0 {
            parts.push(format!("sel={}", self.selected));
        }
        if let Some(p) = self.pin {
            parts.push(format!("pin={p}"));
        }
        if let Some(k) = self.drawn_block() {
            parts.push(format!("block={k}"));
        }
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

/// Whether `key` is one the hash knows.
/// The explorer's own keys (the sample tensor's are its settings table's).
pub const KEYS: &[Key] = &[
    Key {
        key: "q",
        takes: "a spec, in any form the parser accepts; repeated, up to 6, in order; `q=!spec` is compared but hidden",
        default: "qkeras.quantized_bits(4,0,1)",
        doc: "the compared quantizers",
    },
    Key { key: "x", takes: "`lo,hi`: two finite numbers, lo < hi", default: "-2,2", doc: "the x range" },
    Key {
        key: "mode",
        takes: "train or infer (`infer=1`, as older links wrote it, too)",
        default: "train",
        doc: "the libraries' training or inference behaviour",
    },
    Key {
        key: "seed",
        takes: "a whole number from 0 to 2^64 − 1",
        default: "0",
        doc: "the seed of random draws and of the sample tensor",
    },
    Key {
        key: "hide",
        takes: "parameter names, and the sections picker, spec, code; comma-separated",
        default: "",
        doc: "controls a lesson hides",
    },
    Key { key: "sel", takes: "an index from 0", default: "0", doc: "the selected quantizer" },
    Key {
        key: "pin",
        takes: "a finite x within ±1e6",
        default: "",
        doc: "the pinned x of the crosshair, the readout and the Explain panel",
    },
    Key {
        key: "block",
        takes: "a block number from 1, or sweep",
        default: "sweep",
        doc: "the sample block every block format's curve is drawn at (its own k-th block)",
    },
];

fn known_key(key: &str) -> bool {
    key == "infer" || KEYS.iter().any(|k| k.key == key) || sample_setting(key).is_some()
}

fn unknown_key(key: &str) -> String {
    let mut keys: Vec<&str> = KEYS.iter().map(|k| k.key).collect();
    keys.extend(SAMPLE_SETTINGS.iter().map(|row| row.key));
    let hint = match did_you_mean(key, keys.iter().copied()) {
        Some(k) if key.len() > 1 => format!("; did you mean '{k}'?"),
        _ => String::new(),
    };
    format!("unknown key '{}'{hint} (keys: {})", shorten(key), keys.join(", "))
}

/// Keeps the first [`MAX_PROBLEMS`] problems and counts the others in one more.
pub fn cap_problems(problems: &mut Vec<String>) {
    if problems.len() > MAX_PROBLEMS {
        let more = problems.len() - MAX_PROBLEMS;
        problems.truncate(MAX_PROBLEMS);
        problems.push(format!("{more} more problem{} not listed", if more == 1 { " is" } else { "s are" }));
    }
}

/// At most 60 characters of user text in a message.
pub(crate) fn shorten(s: &str) -> String {
    const MAX: usize = 60;
    if s.chars().count() <= MAX { s.to_string() } else { format!("{}…", s.chars().take(MAX).collect::<String>()) }
}

/// A number as written in a link; accepts the true minus sign `−` a copied label may carry.
pub(crate) fn number(s: &str) -> Option<f32> {
    s.trim().replace('−', "-").parse::<f32>().ok()
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
    Err(format!("no parameter or section is called '{}'{hint}", shorten(name)))
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

/// Whether a byte may stay as it is in a hash value: what a URL fragment allows, minus the
/// separators `&` and `#`, the escape `%`, and `"`, `<`, `>`, `` ` `` that browsers encode.
fn keeps(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~!$'()*+,;=:@/?[]".contains(&b)
}

/// Percent-encodes what a hash value must not hold (see the module doc) as `%XX` per UTF-8 byte.
pub fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if keeps(b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Decodes `%XX` sequences (a `%` not followed by two hex digits stays as it is); invalid
/// UTF-8 becomes U+FFFD. `+` stays a plus.
pub fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(h), Some(l)) = (bytes.get(i + 1).and_then(|&b| hex(b)), bytes.get(i + 2).and_then(|&b| hex(b)))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
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
