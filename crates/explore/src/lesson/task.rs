//! The "try it" tasks' language: the `done=` condition that ticks a task, checked live against
//! the explorer's state or the trainer's latest epoch.
//!
//! ```text
//! condition := clause ( "and" clause )*
//! clause    := measure op number ["%"]          (90% is 0.9)
//! op        := "==" | "!=" | "<" | "<=" | ">" | ">="   (≠ ≤ ≥ accepted)
//! ```
//!
//! Numbers are decimal with an optional sign (`−` accepted) and exponent; whitespace is free.
//! A comparison is exact in f64 of the measured float32 value: `dydx(1.5) == 0` holds when the
//! gradient is exactly zero.
//!
//! | explorer measure | of the selected quantizer, as the figure draws it |
//! |---|---|
//! | `y(X)`, `dydx(X)` | the forward value and the gradient the STE sends back at x = X |
//! | `levels` | how many output levels (∞ when continuous or unbounded) |
//! | `sqnr`, `mse` | SQNR (dB) and mean squared error on the sample tensor |
//! | `curves` | how many quantizers are compared (hidden ones included) |
//!
//! | trainer measure | of the quantized net at its latest epoch unless named |
//! |---|---|
//! | `test_acc`, `train_acc` | accuracy, 0 to 1 |
//! | `test_loss`, `train_loss`, `epoch` | |
//! | `float_test_acc`, `twin_test_acc` | the float twin's, the STE twin's (no twin: never holds) |
//! | `weight_levels` | the most output levels among the hidden layers' weight quantizers (∞ float) |
//! | `latent_max` | the largest \|latent weight\| among the layers whose weights are quantized (0: none) |
//!
//! "Reach 90 % test accuracy with binary weights" is `test_acc >= 90% and weight_levels == 2`.

use std::fmt;

use crate::drawn;
use crate::page::View;
use crate::runs::Runs;
use crate::state::{State, X_LIMIT};
use crate::train::{Net, TrainParams, parse_quantizer};
use qscope_quant::spec::did_you_mean;
use qscope_quant::{Levels, Quantizer};

/// What a clause measures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Measure {
    Y(f32),
    Dydx(f32),
    Levels,
    Sqnr,
    Mse,
    Curves,
    TestAcc,
    TrainAcc,
    TestLoss,
    TrainLoss,
    Epoch,
    FloatTestAcc,
    TwinTestAcc,
    WeightLevels,
    LatentMax,
}

/// The measures without an argument, by name, with their view.
const NAMED: [(&str, Measure, View); 13] = [
    ("levels", Measure::Levels, View::Explorer),
    ("sqnr", Measure::Sqnr, View::Explorer),
    ("mse", Measure::Mse, View::Explorer),
    ("curves", Measure::Curves, View::Explorer),
    ("test_acc", Measure::TestAcc, View::Train),
    ("train_acc", Measure::TrainAcc, View::Train),
    ("test_loss", Measure::TestLoss, View::Train),
    ("train_loss", Measure::TrainLoss, View::Train),
    ("epoch", Measure::Epoch, View::Train),
    ("float_test_acc", Measure::FloatTestAcc, View::Train),
    ("twin_test_acc", Measure::TwinTestAcc, View::Train),
    ("weight_levels", Measure::WeightLevels, View::Train),
    ("latent_max", Measure::LatentMax, View::Train),
];

impl Measure {
    /// The measure's name (`y`, `dydx`, `levels`, `test_acc`…).
    pub fn name(&self) -> &'static str {
        match self {
            Measure::Y(_) => "y",
            Measure::Dydx(_) => "dydx",
            m => NAMED.iter().find(|(_, n, _)| n == m).map_or("?", |(name, _, _)| name),
        }
    }

    /// The view that has this measure.
    pub fn view(&self) -> View {
        match self {
            Measure::Y(_) | Measure::Dydx(_) => View::Explorer,
            m => NAMED.iter().find(|(_, n, _)| n == m).map_or(View::Explorer, |(_, _, v)| *v),
        }
    }
}

impl fmt::Display for Measure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Measure::Y(x) | Measure::Dydx(x) => write!(f, "{}({})", self.name(), number32(*x)),
            m => f.write_str(m.name()),
        }
    }
}

/// A comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparison {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Comparison {
    pub fn symbol(self) -> &'static str {
        match self {
            Comparison::Eq => "==",
            Comparison::Ne => "!=",
            Comparison::Lt => "<",
            Comparison::Le => "<=",
            Comparison::Gt => ">",
            Comparison::Ge => ">=",
        }
    }

    /// `a op b`; false when either is NaN (except `!=`).
    pub fn test(self, a: f64, b: f64) -> bool {
        match self {
            Comparison::Eq => a == b,
            Comparison::Ne => a != b,
            Comparison::Lt => a < b,
            Comparison::Le => a <= b,
            Comparison::Gt => a > b,
            Comparison::Ge => a >= b,
        }
    }
}

/// `measure op number[%]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clause {
    pub measure: Measure,
    pub op: Comparison,
    /// The number as written (90 in `90%`).
    pub number: f64,
    /// Written with `%`: the threshold is `number / 100`.
    pub percent: bool,
}

impl Clause {
    /// The number compared with.
    pub fn threshold(&self) -> f64 {
        if self.percent { self.number / 100.0 } else { self.number }
    }

    /// Whether a measured value meets the clause.
    pub fn test(&self, value: f64) -> bool {
        self.op.test(value, self.threshold())
    }
}

impl fmt::Display for Clause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pct = if self.percent { "%" } else { "" };
        write!(f, "{} {} {}{pct}", self.measure, self.op.symbol(), number(self.number))
    }
}

/// Clauses joined by `and`: holds when every clause does.
#[derive(Clone, Debug, PartialEq)]
pub struct Condition {
    pub clauses: Vec<Clause>,
}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, c) in self.clauses.iter().enumerate() {
            if i > 0 {
                f.write_str(" and ")?;
            }
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

impl std::str::FromStr for Condition {
    type Err = String;
    fn from_str(s: &str) -> Result<Condition, String> {
        Condition::parse(s)
    }
}

/// A number that prints back to the same f64: plain between 1e-5 and 1e15, else with an exponent.
fn number(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 || (1e-5..1e15).contains(&a) { format!("{v}") } else { format!("{v:e}") }
}

fn number32(v: f32) -> String {
    let a = v.abs();
    if a == 0.0 || (1e-5..1e15).contains(&a) { format!("{v}") } else { format!("{v:e}") }
}

/// The tokens of a condition, with their character positions (from 1) for messages.
#[derive(Clone, Debug, PartialEq)]
enum Token {
    Word(String),
    /// The value, and the text as written (in ASCII) for a float32 argument.
    Number(f64, String),
    Comparison(Comparison),
    Open,
    Close,
    Percent,
}

fn describe(t: &Token) -> String {
    match t {
        Token::Word(w) => format!("'{w}'"),
        Token::Number(_, text) => format!("the number {text}"),
        Token::Comparison(op) => format!("'{}'", op.symbol()),
        Token::Open => "'('".into(),
        Token::Close => "')'".into(),
        Token::Percent => "'%'".into(),
    }
}

fn tokens(text: &str) -> Result<Vec<(usize, Token)>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let (c, at) = (chars[i], i + 1);
        let next = chars.get(i + 1).copied();
        let two = |op| (op, 2);
        let op = match (c, next) {
            ('=', Some('=')) => Some(two(Comparison::Eq)),
            ('!', Some('=')) => Some(two(Comparison::Ne)),
            ('<', Some('=')) => Some(two(Comparison::Le)),
            ('>', Some('=')) => Some(two(Comparison::Ge)),
            ('<', _) => Some((Comparison::Lt, 1)),
            ('>', _) => Some((Comparison::Gt, 1)),
            ('≠', _) => Some((Comparison::Ne, 1)),
            ('≤', _) => Some((Comparison::Le, 1)),
            ('≥', _) => Some((Comparison::Ge, 1)),
            ('=', _) => return Err(format!("'=' at character {at}: compare with '=='")),
            _ => None,
        };
        if let Some((op, len)) = op {
            out.push((at, Token::Comparison(op)));
            i += len;
        } else if c.is_whitespace() {
            i += 1;
        } else if let Some(t) = punctuation(c) {
            out.push((at, t));
            i += 1;
        } else if c.is_ascii_alphabetic() || c == '_' {
            let end = (i..chars.len())
                .find(|&k| !(chars[k].is_ascii_alphanumeric() || chars[k] == '_'))
                .unwrap_or(chars.len());
            out.push((at, Token::Word(chars[i..end].iter().collect())));
            i = end;
        } else if c.is_ascii_digit() || matches!(c, '.' | '+' | '-' | '−') {
            let (value, text, end) = scan_number(&chars, i)?;
            out.push((at, Token::Number(value, text)));
            i = end;
        } else {
            return Err(format!("'{c}' at character {at} is not part of a condition"));
        }
    }
    Ok(out)
}

fn punctuation(c: char) -> Option<Token> {
    match c {
        '(' => Some(Token::Open),
        ')' => Some(Token::Close),
        '%' => Some(Token::Percent),
        _ => None,
    }
}

/// A decimal number from `chars[start..]`: sign, digits with an optional point, exponent.
fn scan_number(chars: &[char], start: usize) -> Result<(f64, String, usize), String> {
    let mut i = start;
    let mut text = String::new();
    if matches!(chars[i], '+' | '-' | '−') {
        text.push(if chars[i] == '+' { '+' } else { '-' });
        i += 1;
    }
    let digits = |i: &mut usize, text: &mut String| {
        let from = *i;
        while *i < chars.len() && chars[*i].is_ascii_digit() {
            text.push(chars[*i]);
            *i += 1;
        }
        *i - from
    };
    let mut count = digits(&mut i, &mut text);
    if i < chars.len() && chars[i] == '.' {
        text.push('.');
        i += 1;
        count += digits(&mut i, &mut text);
    }
    if count == 0 {
        return Err(format!("expected a number at character {}", start + 1));
    }
    if i < chars.len() && matches!(chars[i], 'e' | 'E') {
        text.push('e');
        i += 1;
        if i < chars.len() && matches!(chars[i], '+' | '-' | '−') {
            text.push(if chars[i] == '+' { '+' } else { '-' });
            i += 1;
        }
        if digits(&mut i, &mut text) == 0 {
            return Err(format!("the exponent of the number at character {} has no digits", start + 1));
        }
    }
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok((v, text, i)),
        _ => Err(format!("the number at character {} is too large", start + 1)),
    }
}

const OPS: &str = "==, !=, <, <=, >, >=";

fn measure_names() -> impl Iterator<Item = &'static str> {
    ["y", "dydx"].into_iter().chain(NAMED.iter().map(|(n, _, _)| *n))
}

impl Condition {
    /// Reads a condition; the error names what is wrong and where (character from 1).
    pub fn parse(text: &str) -> Result<Condition, String> {
        let toks = tokens(text)?;
        if toks.is_empty() {
            return Err("the condition is empty; expected e.g. dydx(1.5) == 0".into());
        }
        let mut clauses = Vec::new();
        let mut it = toks.into_iter().peekable();
        loop {
            clauses.push(clause(&mut it)?);
            match it.next() {
                None => break,
                Some((_, Token::Word(w))) if w == "and" => continue,
                Some((at, t)) => {
                    return Err(format!("expected 'and' or the end at character {at}, found {}", describe(&t)));
                }
            }
        }
        Ok(Condition { clauses })
    }

    /// Checks that every measure belongs to `view`.
    pub fn check_view(&self, view: View) -> Result<(), String> {
        match self.clauses.iter().find(|c| c.measure.view() != view) {
            None => Ok(()),
            Some(c) => Err(format!(
                "'{}' is {} measure; this step shows the {}",
                c.measure.name(),
                if c.measure.view() == View::Explorer { "an explorer" } else { "a trainer" },
                view_name(view)
            )),
        }
    }

    /// Whether the explorer's `state` meets the condition (see [`explorer_value`]).
    pub fn observe(&self, state: &State) -> Result<bool, String> {
        let mut probe = Probe::new(state);
        for c in &self.clauses {
            if !c.test(probe.value(c.measure)?) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Whether the trainer's latest epoch meets the condition (a measure it lacks — an
    /// explorer measure, or the twin's without a twin — does not).
    pub fn holds(&self, obs: &TrainObservation) -> bool {
        self.clauses.iter().all(|c| obs.value(c.measure).is_some_and(|v| c.test(v)))
    }
}

fn view_name(v: View) -> &'static str {
    match v {
        View::Explorer => "explorer",
        View::Train => "trainer",
    }
}

type Tokens = std::iter::Peekable<std::vec::IntoIter<(usize, Token)>>;

fn clause(it: &mut Tokens) -> Result<Clause, String> {
    let (at, name) = match it.next() {
        Some((at, Token::Word(w))) => (at, w),
        Some((at, t)) => return Err(format!("expected a measure at character {at}, found {}", describe(&t))),
        None => return Err("expected a measure after 'and'".into()),
    };
    let measure = match name.as_str() {
        "y" | "dydx" => {
            let x = argument(it, &name)?;
            if name == "y" { Measure::Y(x) } else { Measure::Dydx(x) }
        }
        _ => match NAMED.iter().find(|(n, _, _)| *n == name) {
            Some((_, m, _)) => {
                if let Some((_, Token::Open)) = it.peek() {
                    return Err(format!("'{name}' takes no argument"));
                }
                *m
            }
            None => {
                let hint =
                    did_you_mean(&name, measure_names()).map(|m| format!("; did you mean '{m}'?")).unwrap_or_default();
                let all: Vec<&str> = measure_names().collect();
                return Err(format!("unknown measure '{name}' at character {at}{hint} (measures: {})", all.join(", ")));
            }
        },
    };
    let op = match it.next() {
        Some((_, Token::Comparison(op))) => op,
        Some((at, t)) => {
            return Err(format!(
                "expected a comparison ({OPS}) after '{measure}' at character {at}, found {}",
                describe(&t)
            ));
        }
        None => return Err(format!("expected a comparison ({OPS}) after '{measure}'")),
    };
    let number = match it.next() {
        Some((_, Token::Number(v, _))) => v,
        Some((at, t)) => {
            return Err(format!("expected a number after '{}' at character {at}, found {}", op.symbol(), describe(&t)));
        }
        None => return Err(format!("expected a number after '{measure} {}'", op.symbol())),
    };
    let percent = matches!(it.peek(), Some((_, Token::Percent)));
    if percent {
        it.next();
    }
    Ok(Clause { measure, op, number, percent })
}

/// `( X )` after `y` / `dydx`: a finite x within ±X_LIMIT, as float32.
fn argument(it: &mut Tokens, name: &str) -> Result<f32, String> {
    let usage = format!("{name} needs the x where it is measured, e.g. {name}(1.5)");
    let (Some((_, Token::Open)), Some((at, Token::Number(_, text))), Some((_, Token::Close))) =
        (it.next(), it.next(), it.next())
    else {
        return Err(usage);
    };
    // Parsed as float32 directly (no double rounding), so it prints back to itself.
    match text.parse::<f32>() {
        Ok(x) if x.abs() <= X_LIMIT => Ok(x),
        _ => Err(format!("{name}: x = {text} at character {at} is beyond ±{X_LIMIT}")),
    }
}

/// The value of an explorer measure for `state` (∞ levels when continuous); an error for a
/// trainer measure.
pub fn explorer_value(measure: Measure, state: &State) -> Result<f64, String> {
    Probe::new(state).value(measure)
}

/// The selected quantizer of a state, with its sample tensor made once, when first needed.
struct Probe<'a> {
    state: &'a State,
    sample: Option<Vec<f32>>,
}

impl<'a> Probe<'a> {
    fn new(state: &'a State) -> Probe<'a> {
        Probe { state, sample: None }
    }

    fn sample(&mut self) -> &[f32] {
        let spec = self.state.sample_spec();
        self.sample.get_or_insert_with(|| spec.generate())
    }

    /// What `q`'s curve is frozen on, as the figure freezes it ([`drawn::basis`]).
    fn basis(&mut self, q: &Quantizer) -> Vec<f32> {
        let x = self.state.x;
        drawn::basis(q, x, self.sample()).into_owned()
    }

    fn value(&mut self, m: Measure) -> Result<f64, String> {
        let (training, seed) = (self.state.mode.training(), self.state.seed);
        let q: Quantizer = self.state.selected_slot().quantizer.clone();
        Ok(match m {
            Measure::Y(x) => f64::from(drawn::at(&q, training, seed, &self.basis(&q), x).0),
            Measure::Dydx(x) => f64::from(drawn::at(&q, training, seed, &self.basis(&q), x).1),
            Measure::Levels => count(&drawn::levels(&q, training, seed, &self.basis(&q))),
            Measure::Sqnr => drawn::run_on_sample(&q, training, seed, self.sample()).metrics.sqnr_db,
            Measure::Mse => drawn::run_on_sample(&q, training, seed, self.sample()).metrics.mse,
            Measure::Curves => self.state.slots.len() as f64,
            other => return Err(format!("'{}' is a trainer measure; the explorer has none", other.name())),
        })
    }
}

/// A level count as a number: ∞ when continuous or unbounded.
fn count(levels: &Levels) -> f64 {
    levels.count().map_or(f64::INFINITY, |n| n as f64)
}

/// What the trainer shows at its latest epoch.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TrainObservation {
    pub test_acc: f64,
    pub train_acc: f64,
    pub test_loss: f64,
    pub train_loss: f64,
    pub epoch: f64,
    pub float_test_acc: f64,
    /// None without an STE twin.
    pub twin_test_acc: Option<f64>,
    /// See [`weight_levels`].
    pub weight_levels: f64,
    /// The largest |latent weight| of the quantized net's layers whose weights are quantized
    /// (0 when none are).
    pub latent_max: f64,
}

impl TrainObservation {
    /// What the trainer shows of `runs` at their latest epoch (before the first: the nets'
    /// starting metrics; no runs: nothing but the weights' levels).
    pub fn of(runs: Option<&Runs>, weight_levels: f64) -> TrainObservation {
        let Some(r) = runs else { return TrainObservation { weight_levels, ..TrainObservation::default() } };
        let acc = |net| r.latest(net).and_then(|m| m.test_acc).unwrap_or(0.0);
        let q = r.latest(Net::Quantized);
        TrainObservation {
            test_acc: acc(Net::Quantized),
            train_acc: q.and_then(|m| m.train_acc).unwrap_or(0.0),
            test_loss: q.map_or(f64::NAN, |m| m.test_loss),
            train_loss: q.map_or(f64::NAN, |m| m.train_loss),
            epoch: r.q.epoch() as f64,
            float_test_acc: acc(Net::Float),
            twin_test_acc: r.t.as_ref().map(|_| acc(Net::Twin)),
            weight_levels,
            latent_max: latent_max(r.q.layers()),
        }
    }

    /// The value of a trainer measure (None for an explorer measure, or the twin's without one).
    pub fn value(&self, m: Measure) -> Option<f64> {
        Some(match m {
            Measure::TestAcc => self.test_acc,
            Measure::TrainAcc => self.train_acc,
            Measure::TestLoss => self.test_loss,
            Measure::TrainLoss => self.train_loss,
            Measure::Epoch => self.epoch,
            Measure::FloatTestAcc => self.float_test_acc,
            Measure::TwinTestAcc => self.twin_test_acc?,
            Measure::WeightLevels => self.weight_levels,
            Measure::LatentMax => self.latent_max,
            _ => None?,
        })
    }
}

/// The largest |latent weight| among `layers` whose weights are quantized (0 when none are): what
/// Larq's `weight_clip` bounds.
pub fn latent_max(layers: &[qscope_nn::Layer]) -> f64 {
    let quantized = layers.iter().filter(|l| l.weight_levels().is_some());
    f64::from(quantized.flat_map(|l| l.weights().iter().map(|w| w.abs())).fold(0.0f32, f32::max))
}

/// The most output levels among the quantized net's hidden layers' weight quantizers: ∞ when
/// one is float (or cannot be read), and with no hidden layer the output layer's (float unless
/// `qo=1`). A quantizer's levels are counted at the scale the explorer's default sample tensor
/// gives it (the count does not depend on the scale).
pub fn weight_levels(p: &TrainParams) -> f64 {
    let specs: Vec<&str> = if p.hidden.is_empty() {
        vec![if p.quantize_output { p.wq.as_str() } else { "" }]
    } else {
        (0..p.hidden.len()).map(|l| p.weight_spec(l)).collect()
    };
    let sample = State::default().sample_spec().generate();
    let levels = |spec: &str| match parse_quantizer(spec) {
        Ok(Some(q)) => count(&drawn::levels(&q, true, 0, &sample)),
        _ => f64::INFINITY,
    };
    specs.into_iter().map(levels).fold(0.0, f64::max)
}
