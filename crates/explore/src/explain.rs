//! The computation at one input, step by step: scale, x/Δ, the rounding and its tie rule, the
//! clip, the straight-through trick and the gradient that flows back, and why.
//!
//! Intermediate numbers are computed with the kernels' own float32 operations; the final `y`
//! and `dy/dx` are the kernel's (of the [frozen](qscope_quant::Quantizer::freeze) quantizer, for a
//! data-dependent one), so the explanation never disagrees with the curves.
//!
//! Each catalogue type writes its own steps (`Explain`, one impl per type in the family
//! files beside this one: `qkeras.rs`, `functions.rs`, `larq.rs`, `beyond.rs`).

mod beyond;
mod bnb;
mod functions;
mod larq;
mod ml_dtypes;
mod qkeras;
mod torchao;
mod torchao_int;

use qscope_quant::round::{clip, rhe};
use qscope_quant::spec::fmt_f32;
use qscope_quant::{Ctx, Quantizer, Report, each_quantizer};

/// A quantizer's computation at one input, step by step.
trait Explain {
    /// Writes the steps from the input to q(x) and returns why dy/dx is what it is; None
    /// where this configuration has no step-by-step account (the explanation then shows the
    /// formulas, y and dy/dx).
    fn steps(&self, at: &At, t: &mut Trace) -> Option<String>;
}

/// One line of an explanation: what is computed and its value.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub what: String,
    pub value: String,
}

/// The computation of `q` at one x.
#[derive(Clone, Debug, PartialEq)]
pub struct Explanation {
    /// `forward: …` and `backward: …`, the quantizer's formulas.
    pub formula: Vec<String>,
    /// From the input to `y = …` and `dy/dx = …` (always the last two steps).
    pub steps: Vec<Step>,
    /// The output at x, as the kernel computes it.
    pub y: f32,
    /// The gradient at x, as the kernel computes it.
    pub dydx: f32,
    /// Whether the training behaviour was evaluated (else inference).
    pub training: bool,
}

/// Explains `q` at `x`, with the data-dependent numbers of `report` (from the sample tensor;
/// `Report::default()` for other quantizers). The mode is the report's: training when the
/// report says random draws were made, inference for a stochastic quantizer whose report says
/// none were, training otherwise. Random draws use seed 0.
pub fn explain(q: &Quantizer, report: &Report, x: f32) -> Explanation {
    let training = (report.stochastic || !q.is_stochastic(true)) && q.unsupported(true).is_none();
    let mut ctx = if training { Ctx::training(0) } else { Ctx::inference(0) };
    let frozen = q.freeze(report);
    let (y, g) = frozen.eval(&[x], &mut ctx);
    let (y, g) = (y[0], g[0]);
    let mut t = Trace { steps: vec![Step { what: "input x".into(), value: n(x) }] };
    let ctx = At { x, y, g, training, report };
    let why = each_quantizer!(q, k => k.steps(&ctx, &mut t));
    if why.is_none() {
        t.steps.truncate(1);
    }
    if !frozen.is_frozen() {
        t.add(
            "still data-dependent (the report lacks a statistic)",
            "evaluated on x alone, so its scale is x's, not the sample's",
        );
    }
    if q.is_stochastic(training) {
        t.add("random draw", "one draw of the random stream (seed 0); another seed may give another level");
    }
    t.add("y = q(x)", n(y));
    let why = why.unwrap_or_else(|| format!("the gradient {} gives here", q.info().qualified()));
    t.add(format!("dy/dx: {why}"), n(g));
    let info = q.info();
    Explanation {
        formula: vec![format!("forward: {}", info.forward), format!("backward: {}", info.backward)],
        steps: t.steps,
        y,
        dydx: g,
        training,
    }
}

impl Explanation {
    /// The explanation of a per-channel quantizer drawn for channel `index` along `axis`: every
    /// statistic the steps take "from the sample" is that channel's, and says so.
    pub fn for_channel(mut self, index: usize, axis: usize) -> Explanation {
        let whose = format!("channel {index} (axis {axis}) of the sample");
        for step in &mut self.steps {
            step.what = step.what.replace("the sample", &whose);
        }
        self
    }
}

/// What the family explainers see: the input, the kernel's answer and the report.
struct At<'a> {
    x: f32,
    y: f32,
    g: f32,
    training: bool,
    report: &'a Report,
}

impl At<'_> {
    /// Whether rounding is deterministic here: no stochastic rounding, or not training.
    fn deterministic(&self, use_stochastic_rounding: bool) -> bool {
        !(use_stochastic_rounding && self.training)
    }
}

/// The steps being written.
struct Trace {
    steps: Vec<Step>,
}

impl Trace {
    fn add(&mut self, what: impl Into<String>, value: impl Into<String>) {
        self.steps.push(Step { what: what.into(), value: value.into() });
    }

    /// Rounds half to even, naming a tie: `2.4 → 2`, `2.5 → 2 (a tie: …)`.
    fn round(&mut self, v: f32) -> f32 {
        let r = rhe(v);
        let tie = (v - v.floor()) == 0.5;
        let value = if tie {
            format!("{} → {} (a tie goes to the even neighbour)", n(v), n(r))
        } else {
            format!("{} → {}", n(v), n(r))
        };
        self.add("round half to even (tf.round)", value);
        r
    }

    /// Clips `v` to `[lo, hi]` (NaN passes, as `tf.clip_by_value`), saying whether it saturated.
    fn clip(&mut self, what: &str, v: f32, lo: f32, hi: f32) -> f32 {
        let c = clip(v, lo, hi);
        let value = if v.is_nan() {
            "nan (NaN passes through the clip)".to_string()
        } else if c == v {
            format!("{} (inside [{}, {}])", n(v), n(lo), n(hi))
        } else {
            format!("{} → {} (saturates)", n(v), n(c))
        };
        self.add(what, value);
        c
    }

    /// QKeras' straight-through combination, noting float32 rounding of the expression.
    fn qkeras_ste(&mut self, xq: f32, y: f32) {
        let mut value = "forward value q(x), backward gradient of x".to_string();
        if y != xq && !y.is_nan() {
            value = format!("{value}; in float32 x + (q(x) − x) = {}", n(y));
        }
        self.add("straight-through: y = x + stop_gradient(q(x) − x)", value);
    }
}

/// A float as its shortest exact text.
fn n(v: f32) -> String {
    fmt_f32(v)
}

/// The reason for a clipped straight-through gradient (1 inside, 0 outside).
fn clipped_reason(g: f32, range: &str) -> String {
    if g != 0.0 {
        format!("the clipped STE passes the gradient inside {range}")
    } else {
        format!("the clipped STE cuts the gradient outside {range}")
    }
}
