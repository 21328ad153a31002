//! The pure part of plotting: sampling a quantizer over an x range, choosing axis ranges,
//! and cutting a sampled curve into runs that may be joined by line segments.

use std::ops::Range;

use crate::quant::{Ctx, Levels, Quantizer, Report};

/// How many points a curve is sampled at (a little more than the device pixels of a wide plot).
pub const SAMPLES: usize = 2001;

/// A run is cut where one sample step rises this many times faster than the panel's diagonal
/// (y span / x span) — on screen such a segment is close to vertical…
pub const STEEP: f32 = 20.0;

/// …unless the steps on both sides go the same way by at least 1/ISOLATED as much (a smooth but
/// steep curve changes by similar amounts from one step to the next; a jump stands alone, and
/// random draws flip back and forth).
pub const ISOLATED: f32 = 3.0;

/// One quantizer evaluated over an x range: what a forward and a backward panel draw.
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    /// The legend text (the canonical spec).
    pub label: String,
    pub x: Vec<f32>,
    /// `y = q(x)`.
    pub y: Vec<f32>,
    /// `∂(Σy)/∂x` as the library's autodiff gives it.
    pub dydx: Vec<f32>,
    /// The output levels when there are few enough to mark on the y axis.
    pub levels: Option<Vec<f32>>,
}

impl Curve {
    /// Evaluates `q` (one tensor: the whole sweep) at `n` evenly spaced points of `[lo, hi]`.
    pub fn evaluate(q: &Quantizer, lo: f32, hi: f32, n: usize, ctx: &mut Ctx) -> (Curve, Report) {
        let x = linspace(lo, hi, n);
        let (y, dydx, report) = q.eval(&x, ctx);
        let levels = q.levels(&report).list(64);
        let curve = Curve { label: q.to_string(), x, y, dydx, levels };
        (curve, report)
    }
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
