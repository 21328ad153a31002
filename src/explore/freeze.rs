//! Freezing a data-dependent quantizer at the scale or threshold a tensor gave it.
//!
//! `quantized_bits(4,0,1,alpha='auto')` evaluated on a sweep `x = −2…2` picks its scale from
//! the sweep, not from the weights it would quantize; its curve is only meaningful "for a
//! scale". [`freeze`] returns an equivalent quantizer with the numbers of a [`Report`] (from the
//! sample tensor) fixed, so any x can be evaluated elementwise. Where a library parameter
//! expresses the frozen state, the result is that library configuration
//! ([`Frozen::Library`]); where none does exactly, it is a small explorer-side evaluator with
//! the library's forward and backward formulas and the fixed numbers ([`Fixed`]).

use crate::quant::larq::DoReFaMode;
use crate::quant::qkeras::QuantizedBits;
use crate::quant::round::{rhe, sgn_plus, sgn0, ste_blend, stochastic_round};
use crate::quant::{Alpha, Ctx, Levels, Quantizer, Report, elementwise, lane, spec};

/// A quantizer with its data-dependent numbers fixed.
#[derive(Clone, Debug, PartialEq)]
pub enum Frozen {
    /// A library configuration expressing the frozen state exactly (e.g. `alpha='auto'` →
    /// `post_training_scale`). A degenerate scale (0 or NaN, from an all-zero or NaN sample)
    /// is set directly: it evaluates exactly but does not print as a valid spec.
    Library(Quantizer),
    /// An explorer-side evaluator where no library parameter is exact.
    Fixed(Fixed),
    /// Still data-dependent: the report lacks a number the quantizer needs (the std behind
    /// stochastic_binary / stochastic_ternary / bernoulli draws with string alpha in training,
    /// binary's stochastic-rounding grid `2·min(max|x|, 1)` in training). What the report does
    /// fix (a scale) is fixed.
    Live(Quantizer),
}

/// Explorer-side frozen evaluators, each with the library's exact formulas (float32, same
/// operation order) and fixed numbers.
#[derive(Clone, Debug, PartialEq)]
pub enum Fixed {
    /// QKeras `ternary(alpha='auto'/'auto_po2')`: codes from the last fitting round,
    /// `k = sign(x)·1[|s₀·round(x/s₀)| ≥ t]` with `s₀ = 2t` the scale before the last
    /// least-squares refit (so |x| > t strictly, up to float rounding of x/s₀), output
    /// `x + stop_gradient(s·k − x)`, gradient 1. Fixed-alpha ternary thresholds inclusively
    /// (|x| ≥ t) and cannot express this. With stochastic rounding, in training
    /// `round` is QKeras' stochastic rounding to thirds (same distribution, other draws).
    AutoTernary { threshold: f32, scale: f32, stochastic: bool },
    /// Larq `MagnitudeAwareSign`: `a·sign(x)` (0 ↦ +a), gradient `a·1[|x| ≤ clip_value]`;
    /// Larq has no parameter for the mean `a`.
    MagnitudeSign { scale: f32, clip_value: Option<f32> },
    /// Larq `DoReFa(mode='weights')`: `2·round(n·(tanh x/2d + ½))/n − 1`, gradient
    /// `(1 − tanh²x)/d` (both 0-safe as `divide_no_nan`), `d = max|tanh|` of the sample.
    DoReFaWeights { k_bit: i32, max_tanh: f32 },
    /// QKeras `quantized_hswish(alpha='auto')`: `h(x) = x·min(relu(x + shift), upper)/upper`,
    /// then `inner` (quantized_bits with the frozen `post_training_scale`) on h; gradient
    /// `h'(x)` times inner's. quantized_hswish has no post_training_scale of its own.
    Hswish { inner: QuantizedBits, relu_shift: f32, relu_upper_bound: f32 },
}

/// The frozen form of `q` at the numbers in `report` (from [`Quantizer::apply`] on a sample).
///
/// Contract (tested for every data-dependent configuration): evaluating the result in the
/// mode the report came from, on the same tensor, gives `q`'s outputs and gradients bit for
/// bit, and the same random draws where draws remain. Exceptions: [`Frozen::Live`], and the
/// two fits that themselves draw (quantized_linear 'auto_po2' and ternary 'auto' with
/// stochastic rounding, in training), whose frozen forms draw from the same distribution.
/// Quantizers that are not data-dependent come back unchanged as [`Frozen::Library`].
pub fn freeze(q: &Quantizer, report: &Report) -> Frozen {
    let scale = report.scale.unwrap_or(f32::NAN);
    let alpha = Alpha::Value(scale as f64);
    match q {
        Quantizer::QuantizedBits(b) if b.alpha.is_auto() && b.post_training_scale.is_none() => {
            // QKeras: s = post_training_scale / m, and the report's scale is s·m (m a power of two).
            Frozen::Library(Quantizer::QuantizedBits(QuantizedBits {
                post_training_scale: Some(scale as f64),
                ..b.clone()
            }))
        }
        Quantizer::QuantizedLinear(l) if l.alpha.is_auto() => {
            // The report's scale is qs / data_type_scale; alpha·data_type_scale gives qs back.
            let mut l = l.clone();
            l.alpha = alpha;
            Frozen::Library(Quantizer::QuantizedLinear(l))
        }
        Quantizer::QuantizedHswish(h) if h.alpha.is_auto() => Frozen::Fixed(Fixed::Hswish {
            inner: QuantizedBits {
                bits: h.bits,
                integer: h.integer,
                symmetric: h.symmetric,
                alpha: h.alpha,
                use_stochastic_rounding: h.use_stochastic_rounding,
                qnoise_factor: h.qnoise_factor,
                post_training_scale: Some(scale as f64),
                ..QuantizedBits::default()
            },
            relu_shift: h.relu_shift as f32,
            relu_upper_bound: h.relu_upper_bound as f32,
        }),
        Quantizer::Binary(b) if b.alpha.is_auto() || b.use_stochastic_rounding => {
            let mut b = b.clone();
            if b.alpha.is_auto() {
                // A fixed alpha takes the same path (codes sign(x), output x + sg(α·k − x), grad 1).
                b.alpha = alpha;
            }
            if b.use_stochastic_rounding && report.stochastic {
                Frozen::Live(Quantizer::Binary(b))
            } else {
                Frozen::Library(Quantizer::Binary(b))
            }
        }
        Quantizer::StochasticBinary(b) if b.alpha.is_auto() => {
            if report.stochastic {
                Frozen::Live(q.clone())
            } else {
                // Inference: binary(alpha) with the fitted scale.
                Frozen::Library(Quantizer::Binary(crate::quant::qkeras::Binary { alpha, ..Default::default() }))
            }
        }
        Quantizer::Bernoulli(b) if b.alpha.is_auto() => Frozen::Live(q.clone()),
        Quantizer::Ternary(t) if t.alpha.is_auto() => Frozen::Fixed(Fixed::AutoTernary {
            threshold: report.threshold.unwrap_or(f32::NAN),
            scale,
            stochastic: t.use_stochastic_rounding,
        }),
        Quantizer::StochasticTernary(t) if t.alpha.is_auto() => {
            if report.stochastic {
                Frozen::Live(q.clone())
            } else {
                // Inference: ternary(alpha) with the fitted scale and threshold.
                Frozen::Fixed(Fixed::AutoTernary {
                    threshold: report.threshold.unwrap_or(f32::NAN),
                    scale,
                    stochastic: false,
                })
            }
        }
        Quantizer::MagnitudeAwareSign(m) => {
            Frozen::Fixed(Fixed::MagnitudeSign { scale, clip_value: m.clip_value.map(|c| c as f32) })
        }
        Quantizer::SteTern(t) if t.ternary_weight_networks => {
            let mut t = t.clone();
            t.ternary_weight_networks = false;
            t.threshold_value = report.threshold.unwrap_or(f32::NAN) as f64;
            Frozen::Library(Quantizer::SteTern(t))
        }
        Quantizer::DoReFa(d) if d.mode == DoReFaMode::Weights => {
            Frozen::Fixed(Fixed::DoReFaWeights { k_bit: d.k_bit, max_tanh: scale })
        }
        Quantizer::Lsq(l) if l.step.is_none() => {
            let mut l = l.clone();
            l.step = Some(scale as f64);
            Frozen::Library(Quantizer::Lsq(l))
        }
        _ => Frozen::Library(q.clone()),
    }
}

impl Frozen {
    /// Whether the frozen form no longer depends on the tensor it is evaluated on.
    pub fn is_frozen(&self) -> bool {
        !matches!(self, Frozen::Live(_))
    }

    /// Quantizes `x` elementwise (Library and Live: the kernel), writing values and, if asked,
    /// gradients; returns the numbers in use.
    pub fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, ctx: &mut Ctx) -> Report {
        match self {
            Frozen::Library(q) | Frozen::Live(q) => q.apply(x, y, dydx, ctx),
            Frozen::Fixed(f) => f.apply(x, y, dydx, ctx),
        }
    }

    /// Values and gradients of a whole slice.
    pub fn eval(&self, x: &[f32], ctx: &mut Ctx) -> (Vec<f32>, Vec<f32>) {
        let (mut y, mut g) = (vec![0.0; x.len()], vec![0.0; x.len()]);
        self.apply(x, &mut y, Some(&mut g), ctx);
        (y, g)
    }

    /// The values the output can take.
    pub fn levels(&self, report: &Report) -> Levels {
        match self {
            Frozen::Library(q) | Frozen::Live(q) => q.levels(report),
            Frozen::Fixed(f) => f.levels(),
        }
    }

    /// A one-line description: the spec of a library form, or what an explorer-side form fixes.
    pub fn describe(&self) -> String {
        match self {
            Frozen::Library(q) => spec::print(q),
            Frozen::Live(q) => format!("{} (still depends on the tensor)", spec::print(q)),
            Frozen::Fixed(f) => f.describe(),
        }
    }
}

impl Fixed {
    /// The fixed numbers, as a report.
    fn report(&self) -> Report {
        match self {
            Fixed::AutoTernary { threshold, scale, .. } => {
                Report { scale: Some(*scale), threshold: Some(*threshold), ..Report::default() }
            }
            Fixed::MagnitudeSign { scale, .. } => Report { scale: Some(*scale), ..Report::default() },
            Fixed::DoReFaWeights { max_tanh, .. } => Report { scale: Some(*max_tanh), ..Report::default() },
            Fixed::Hswish { inner, .. } => {
                Report { scale: inner.post_training_scale.map(|s| s as f32), ..Report::default() }
            }
        }
    }

    fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, ctx: &mut Ctx) -> Report {
        let mut report = self.report();
        match *self {
            Fixed::AutoTernary { threshold, scale, stochastic } => {
                let s0 = 2.0 * threshold;
                let draw = stochastic && ctx.training;
                report.stochastic = draw;
                let rng = &mut ctx.rng;
                elementwise(x, y, dydx, |v| {
                    let r = if draw { stochastic_round(v / s0, 1.0 / 3.0, rng) } else { rhe(v / s0) };
                    let k = if (s0 * r).abs() >= threshold { sgn0(v) } else { 0.0 };
                    (ste_blend(v, scale * k, 1.0), 1.0)
                });
            }
            Fixed::MagnitudeSign { scale, clip_value } => elementwise(x, y, dydx, |v| {
                let pass = clip_value.is_none_or(|c| v.abs() <= c);
                (scale * sgn_plus(v), scale * if pass { 1.0 } else { 0.0 })
            }),
            Fixed::DoReFaWeights { k_bit, max_tanh } => {
                let n = ((1u64 << k_bit) - 1) as f32;
                let two_d = 2.0 * max_tanh;
                elementwise(x, y, dydx, |v| {
                    let t = lane::tanh(v);
                    let (normed, g) = if two_d == 0.0 { (0.0, 0.0) } else { (t / two_d, 2.0 / two_d * (1.0 - t * t)) };
                    (2.0 * rhe((normed + 0.5) * n) / n - 1.0, g)
                });
            }
            Fixed::Hswish { ref inner, relu_shift: s, relu_upper_bound: ub } => {
                let h: Vec<f32> = x.iter().map(|&v| v * hswish_relu(v, s, ub) / ub).collect();
                let mut dydx = dydx;
                report = Quantizer::QuantizedBits(inner.clone()).apply(&h, y, dydx.as_deref_mut(), ctx);
                if let Some(d) = dydx {
                    for (di, &v) in d.iter_mut().zip(x) {
                        let gi = *di / ub;
                        let active = v + s <= ub && v + s > 0.0;
                        *di = gi * hswish_relu(v, s, ub) + if active { gi * v } else { 0.0 };
                    }
                }
            }
        }
        report
    }

    fn levels(&self) -> Levels {
        match *self {
            Fixed::AutoTernary { scale, .. } => Levels::set(vec![-scale, 0.0, scale]),
            Fixed::MagnitudeSign { scale, .. } => Levels::set(vec![-scale, scale]),
            Fixed::DoReFaWeights { k_bit, .. } => {
                let n = (1i64 << k_bit) - 1;
                Levels::set((0..=n).map(|k| 2.0 * (k as f32 / n as f32) - 1.0).collect())
            }
            Fixed::Hswish { ref inner, .. } => Quantizer::QuantizedBits(inner.clone()).levels(&self.report()),
        }
    }

    fn describe(&self) -> String {
        match self {
            Fixed::AutoTernary { threshold, scale, .. } => {
                format!("qkeras.ternary(alpha='auto') frozen: scale {scale}, codes where |x| > {threshold}")
            }
            Fixed::MagnitudeSign { scale, .. } => format!("larq.MagnitudeAwareSign frozen: mean|x| = {scale}"),
            Fixed::DoReFaWeights { k_bit, max_tanh } => {
                format!("larq.DoReFa(k_bit={k_bit}, mode='weights') frozen: max|tanh x| = {max_tanh}")
            }
            Fixed::Hswish { inner, .. } => format!(
                "qkeras.quantized_hswish(alpha='auto') frozen: quantized_bits post_training_scale = {}",
                inner.post_training_scale.unwrap_or(f64::NAN)
            ),
        }
    }
}

/// quantized_hswish's capped ReLU `min(relu(x + shift), upper)` (as QKeras' `tf.where`).
#[inline]
fn hswish_relu(v: f32, shift: f32, upper: f32) -> f32 {
    let sx = v + shift;
    if sx <= upper { sx.max(0.0) } else { upper }
}
