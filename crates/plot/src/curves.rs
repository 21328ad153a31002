//! The pure part of plotting: sampling a quantizer over an x range, choosing axis ranges,
//! and cutting a sampled curve into runs that may be joined by line segments.

use std::ops::Range;

use super::jumps::{Jump, find_jumps, true_derivative};
use qscope_quant::{Ctx, Levels, Quantizer, Report};

/// How many points a curve is sampled at (a little more than the device pixels of a wide plot).
pub const SAMPLES: usize = 2001;

/// A run is cut where one sample step rises this many times faster than the panel's diagonal
/// (y span / x span) — on screen such a segment is close to vertical…
pub const STEEP: f32 = 20.0;

/// …unless the steps on both sides go the same way by at least 1/ISOLATED as much (a smooth but
/// steep curve changes by similar amounts from one step to the next; a jump stands alone, and
/// random draws flip back and forth).
pub const ISOLATED: f32 = 3.0;

/// How many random draws a stochastic quantizer's curve averages (the mean's noise is
/// 1/16 of one draw's spread).
pub const DRAWS: usize = 256;

/// The percentiles of the random draws a stochastic curve's band spans.
pub const BAND_PERCENTILES: (f64, f64) = (0.10, 0.90);

/// One quantizer evaluated over an x range: what a forward and a backward panel draw.
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    /// The legend text (the canonical spec).
    pub label: String,
    pub x: Vec<f32>,
    /// `y = q(x)` (for a stochastic quantizer, the mean of [`Spread::draws`] draws).
    pub y: Vec<f32>,
    /// `∂(Σy)/∂x` as the library's autodiff gives it (stochastic: the mean over the draws).
    pub dydx: Vec<f32>,
    /// The output levels when there are few enough to mark on the y axis.
    pub levels: Option<Vec<f32>>,
    /// The discontinuities of `y`, located to the float, in x order (empty when `q` could not
    /// be evaluated point by point, or is random).
    pub jumps: Vec<Jump>,
    /// The derivative of the forward function itself (0 almost everywhere on a staircase,
    /// NaN where undefined); empty when unknown (random or not point by point).
    pub true_dydx: Vec<f32>,
    /// For a stochastic quantizer: the spread of the draws around the mean.
    pub spread: Option<Spread>,
    /// A hidden curve is not drawn, but keeps its colour and dash pattern (its index).
    pub hidden: bool,
}

/// The spread of a stochastic quantizer's random outputs at every x.
#[derive(Clone, Debug, PartialEq)]
pub struct Spread {
    /// How many draws the mean and the percentiles come from.
    pub draws: usize,
    /// The [`BAND_PERCENTILES`] of the draws (nearest rank), low and high.
    pub lo: Vec<f32>,
    pub hi: Vec<f32>,
}

impl Curve {
    /// Samples a point-by-point evaluator `q` (values and gradients of a batch of points, each
    /// on its own: a deterministic quantizer, or a data-dependent one whose scale is frozen) at
    /// `n` evenly spaced points of `[lo, hi]`, and locates its jumps exactly (see
    /// [`find_jumps`]).
    pub fn sample(
        label: impl Into<String>,
        lo: f32,
        hi: f32,
        n: usize,
        mut q: impl FnMut(&[f32]) -> (Vec<f32>, Vec<f32>),
    ) -> Curve {
        let x = linspace(lo, hi, n);
        let (y, dydx) = q(&x);
        let mut c = Curve::from_samples(label, x, y, dydx);
        c.refine(&mut |p| q(p).0);
        c
    }

    /// Samples a random evaluator `draws` times over the same points: the curve is the mean,
    /// the band spans the [`BAND_PERCENTILES`] of the draws. Each call of `q` is one draw of
    /// the whole sweep (a data-dependent quantizer may take its statistics from it).
    pub fn sample_draws(
        label: impl Into<String>,
        lo: f32,
        hi: f32,
        n: usize,
        draws: usize,
        mut q: impl FnMut(&[f32]) -> (Vec<f32>, Vec<f32>),
    ) -> Curve {
        let x = linspace(lo, hi, n);
        let draws = draws.max(1);
        let mut all = Vec::with_capacity(draws * n);
        let (mut sum_y, mut sum_g) = (vec![0.0f64; n], vec![0.0f64; n]);
        for _ in 0..draws {
            let (y, g) = q(&x);
            for i in 0..n {
                sum_y[i] += y[i] as f64;
                sum_g[i] += g[i] as f64;
            }
            all.extend_from_slice(&y[..n]);
        }
        let mean = |s: Vec<f64>| s.into_iter().map(|v| (v / draws as f64) as f32).collect();
        let rank = |p: f64| ((p * draws as f64).ceil() as usize).clamp(1, draws) - 1;
        let (r_lo, r_hi) = (rank(BAND_PERCENTILES.0), rank(BAND_PERCENTILES.1));
        let (mut lo_v, mut hi_v) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let mut column = vec![0.0f32; draws];
        for i in 0..n {
            for (d, c) in column.iter_mut().enumerate() {
                *c = all[d * n + i];
            }
            lo_v.push(*column.select_nth_unstable_by(r_lo, f32::total_cmp).1);
            hi_v.push(*column.select_nth_unstable_by(r_hi, f32::total_cmp).1);
        }
        let mut c = Curve::from_samples(label, x, mean(sum_y), mean(sum_g));
        c.spread = Some(Spread { draws, lo: lo_v, hi: hi_v });
        c
    }

    /// Evaluates `q` over `n` evenly spaced points of `[lo, hi]` as **one tensor**, as
    /// `qscope eval` does (a data-dependent quantizer takes its statistics from the sweep).
    /// A stochastic quantizer gives the mean and spread of [`DRAWS`] draws. When `q` turns out
    /// to compute point by point (its value at a sample is the same evaluated alone), its jumps
    /// are located exactly; a data-dependent `q` gets no jumps (freeze its scale and use
    /// [`Curve::sample`] for them).
    pub fn evaluate(q: &Quantizer, lo: f32, hi: f32, n: usize, ctx: &mut Ctx) -> (Curve, Report) {
        if q.is_stochastic(ctx.training) {
            let mut first = None;
            let c = Curve::sample_draws(q.to_string(), lo, hi, n, DRAWS, |x| {
                let (y, g, r) = q.eval(x, ctx);
                first.get_or_insert(r);
                (y, g)
            });
            let report = first.unwrap_or_default();
            let levels = q.levels(&report).list(64);
            return (Curve { levels, ..c }, report);
        }
        let x = linspace(lo, hi, n);
        let (y, dydx, report) = q.eval(&x, ctx);
        let mut c = Curve::from_samples(q.to_string(), x, y, dydx);
        c.levels = q.levels(&report).list(64);
        let mut point = |p: &[f32]| q.eval(p, ctx).0;
        if is_pointwise(&c.x, &c.y, &mut point) {
            c.refine(&mut point);
        }
        (c, report)
    }

    /// A curve from its samples alone (no jumps, no true derivative, no levels).
    pub fn from_samples(label: impl Into<String>, x: Vec<f32>, y: Vec<f32>, dydx: Vec<f32>) -> Curve {
        Curve {
            label: label.into(),
            x,
            y,
            dydx,
            levels: None,
            jumps: Vec::new(),
            true_dydx: Vec::new(),
            spread: None,
            hidden: false,
        }
    }

    /// The same curve with these output levels marked on the y axis.
    pub fn with_levels(self, levels: Option<Vec<f32>>) -> Curve {
        Curve { levels, ..self }
    }

    /// Locates the jumps and computes the true derivative with a point-by-point forward `q`.
    fn refine(&mut self, q: &mut dyn FnMut(&[f32]) -> Vec<f32>) {
        self.jumps = find_jumps(&self.x, &self.y, q);
        self.true_dydx = true_derivative(&self.x, &self.y, &self.jumps);
    }

    /// The jump between samples `i` and `i + 1`, if there is one.
    pub fn jump_after(&self, i: usize) -> Option<&Jump> {
        let k = self.jumps.partition_point(|j| j.interval < i);
        self.jumps.get(k).filter(|j| j.interval == i)
    }
}

/// Whether `q` gives every one of (up to) 64 spread-out samples the value it had in the sweep
/// when evaluated alone: false for a quantizer whose scale or threshold comes from the tensor.
pub fn is_pointwise(x: &[f32], y: &[f32], q: &mut dyn FnMut(&[f32]) -> Vec<f32>) -> bool {
    let n = x.len().min(y.len());
    let stride = n.div_ceil(64).max(1);
    (0..n).step_by(stride).all(|i| {
        let v = q(&x[i..i + 1])[0];
        v == y[i] || (v.is_nan() && y[i].is_nan())
    })
}

/// `n` evenly spaced points from `lo` to `hi`, both included (exact ends; no accumulated error).
pub fn linspace(lo: f32, hi: f32, n: usize) -> Vec<f32> {
    match n {
        0 => vec![],
        1 => vec![lo],
        _ => {
            let last = (n - 1) as f64;
            let (lo64, hi64) = (lo as f64, hi as f64);
            (0..n).map(|i| if i == n - 1 { hi } else { (lo64 + (hi64 - lo64) * (i as f64 / last)) as f32 }).collect()
        }
    }
}

/// The smallest and largest finite value of all `series` (None when there is none).
pub fn finite_bounds<'a>(series: impl IntoIterator<Item = &'a [f32]>) -> Option<(f32, f32)> {
    let mut b: Option<(f32, f32)> = None;
    for s in series {
        for &v in s.iter().filter(|v| v.is_finite()) {
            b = Some(match b {
                None => (v, v),
                Some((lo, hi)) => (lo.min(v), hi.max(v)),
            });
        }
    }
    b
}

/// An axis range around `bounds` with `pad` (a fraction of the span) on each side, widened to
/// include every value of `include`; a single value gets a unit-wide range around it.
pub fn padded_range(bounds: Option<(f32, f32)>, include: &[f32], pad: f32) -> (f32, f32) {
    let (mut lo, mut hi) = bounds.unwrap_or((0.0, 0.0));
    if bounds.is_none() && include.is_empty() {
        return (-1.0, 1.0);
    }
    for &v in include {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    let span = hi - lo;
    if span.is_nan() || span <= 1e-12 * lo.abs().max(hi.abs()).max(1e-30) {
        return (lo - 0.5, hi + 0.5);
    }
    (lo - pad * span, hi + pad * span)
}

/// Splits a sampled curve into index ranges to draw as connected polylines. A range ends
/// before a non-finite value and at a jump: a step between neighbouring samples that is steep
/// relative to the panel (`y_span / x_span`, see [`STEEP`]) and not continued by the steps beside
/// it (see [`ISOLATED`]). A range of one index is an isolated point (draw it as a dot).
pub fn runs(x: &[f32], y: &[f32], x_span: f32, y_span: f32) -> Vec<Range<usize>> {
    let n = x.len().min(y.len());
    let finite = |i: usize| x[i].is_finite() && y[i].is_finite();
    // Δy of step i (between samples i and i+1); 0 outside or across a non-finite sample.
    let step = |i: usize| -> f32 { if i + 1 < n && finite(i) && finite(i + 1) { y[i + 1] - y[i] } else { 0.0 } };
    let scale = if x_span > 0.0 && y_span > 0.0 { y_span / x_span } else { 0.0 };
    let is_jump = |i: usize| -> bool {
        let d = step(i);
        let h = (x[i + 1] - x[i]).abs();
        let steep = d.abs() > STEEP * h * scale;
        // A neighbouring step continues this one when it goes the same way by a similar
        // amount (a smooth steep curve); random draws flip back and forth, a jump stands alone.
        let continues = |e: f32| e * d > 0.0 && ISOLATED * e.abs() >= d.abs();
        let before = if i > 0 { step(i - 1) } else { 0.0 };
        let after = step(i + 1);
        steep && !(continues(before) && continues(after))
    };
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for i in 0..n {
        if !finite(i) {
            if let Some(s) = start.take() {
                out.push(s..i);
            }
            continue;
        }
        if start.is_none() {
            start = Some(i);
        }
        let last = i + 1 == n || !finite(i + 1);
        if last || is_jump(i) {
            out.push(start.take().unwrap_or(i)..i + 1);
        }
    }
    out
}

/// A short human description of a quantizer's levels, e.g. `15 levels, −0.875 … 0.875`.
pub fn describe_levels(levels: &Levels) -> String {
    match levels {
        Levels::Continuous => "continuous (no levels)".to_string(),
        Levels::Grid { step } => format!("unbounded grid, step {}", fmt_number(*step as f64)),
        _ => {
            let n = levels.count().unwrap_or(0);
            let noun = if n == 1 { "level" } else { "levels" };
            match levels.bounds() {
                Some((lo, hi)) if n > 1 => format!("{n} {noun}, {} … {}", fmt_number(lo as f64), fmt_number(hi as f64)),
                Some((lo, _)) => format!("{n} {noun}, {}", fmt_number(lo as f64)),
                None => format!("{n} {noun}"),
            }
        }
    }
}

/// A number for a label: at most 4 significant decimals, no trailing zeros, a true minus sign.
pub fn fmt_number(v: f64) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "∞".into() } else { "−∞".into() };
    }
    let a = v.abs();
    let s = if a != 0.0 && !(1e-4..1e6).contains(&a) {
        format!("{v:.2e}")
    } else {
        let s = format!("{v:.4}");
        let s = s.trim_end_matches('0').trim_end_matches('.').to_string();
        if s == "-0" { "0".to_string() } else { s }
    };
    s.replace('-', "−")
}

/// A figure in decibels (an SQNR) with one decimal, without the unit: `23.4`, `−3.1`, `∞` where
/// the output is exact. Every table and panel that shows one writes it this way.
pub fn fmt_db(v: f64) -> String {
    fmt_number((v * 10.0).round() / 10.0)
}
