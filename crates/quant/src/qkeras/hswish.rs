//! `quantized_hswish`: QKeras' quantized_bits of the hard swish
//! `h(x) = x·min(relu(x + shift), upper)/upper`, fused into one pass where the inner
//! quantizer has a fixed scale (a copy's memory traffic instead of three passes and a
//! temporary).

use super::super::lane::Lane;
use super::super::schema::{Alpha, Kind, Opaque, quantizer};
use super::super::simd::{self, Op};
use super::super::{Ctx, Kernel, Levels, Report};
use super::bits::{BITS, BitsOp, INTEGER, QNOISE, QuantizedBits};
use crate::Layout;
use crate::{Facts, Fixed, Frozen};

quantizer! {
    /// QKeras' quantized hard-swish: `quantized_bits` of the hard swish, with shift =
    /// relu_shift and upper = relu_upper_bound; the STE of quantized_bits passes `h'(x)`
    /// unchanged.
    pub struct QuantizedHswish: QKeras "quantized_hswish" {
        summary: "quantized hard-swish: quantized_bits of x·relu6(x+3)/6",
        forward: "q(x) = quantized_bits(x·min(relu(x+shift), upper)/upper)",
        backward: "∂q/∂x = h'(x): 0 (x ≤ −shift), (2x+shift)/upper, 1 (x > upper−shift)",
        figure: {
            args: "bits=4, integer=2",
            x: (-4.0, 4.0),
            why: "4 bits with 2 integer bits: the hard swish in steps of 0.5, clipped at 3.5",
        },
        /// Total bits, sign included.
        bits: i32 = 8, BITS;
        /// Bits left of the binary point (sign excluded).
        integer: i32 = 0, INTEGER;
        /// Drop the most negative code so the range is symmetric.
        symmetric: bool = false, Kind::Bool;
        /// Scale: None (1), a number, 'auto' or 'auto_po2'.
        alpha: Alpha = Alpha::None, Kind::Alpha;
        /// Stochastic rounding in training.
        use_stochastic_rounding: bool = false, Kind::Bool;
        /// Axes of per-channel statistics (a 1-D tensor is one channel).
        scale_axis: Opaque = Opaque::default(), Kind::Axis;
        /// Blend of quantized and float output, 0 (float) to 1 (quantized).
        qnoise_factor: f64 = 1.0, QNOISE;
        /// Variable name (no effect).
        var_name: Opaque = Opaque::default(), Kind::Text;
        /// Keep parameters in tf.Variables (no effect).
        use_variables: bool = false, Kind::Bool;
        /// Shift added before the ReLU.
        relu_shift: f64 = 3.0, Kind::Float { min: 1e-6, max: 1e6, log: true };
        /// Upper bound of the ReLU.
        relu_upper_bound: f64 = 6.0, Kind::Float { min: 1e-6, max: 1e6, log: true };
    }
}

impl QuantizedHswish {
    pub fn inner(&self) -> QuantizedBits {
        QuantizedBits {
            bits: self.bits,
            integer: self.integer,
            symmetric: self.symmetric,
            alpha: self.alpha,
            use_stochastic_rounding: self.use_stochastic_rounding,
            qnoise_factor: self.qnoise_factor,
            ..QuantizedBits::default()
        }
    }
}

/// `inner` applied to `h(x) = x·min(relu(x + shift), upper)/upper`, with the gradient
/// `h'(x)` times inner's: the kernel of quantized_hswish, and of its frozen form (whose
/// `inner` has a fixed `post_training_scale`). A fixed, deterministic `inner` runs fused
/// ([`HswishOp`], one pass); 'auto' scales and stochastic rounding take [`hswish_passes`].
pub fn hswish(
    shift: f32,
    upper: f32,
    inner: &QuantizedBits,
    x: &[f32],
    y: &mut [f32],
    dydx: Option<&mut [f32]>,
    ctx: &mut Ctx,
) -> Report {
    if inner.alpha.is_auto() || inner.is_stochastic(ctx.training) {
        return hswish_passes(shift, upper, inner, x, y, dydx, ctx);
    }
    let bits = inner.op();
    let scale = Some(bits.a);
    let gi = bits.grad() / upper;
    match bits.plain() {
        Some(bits) => simd::run(&HswishOp { shift, upper, gi, bits }, x, y, dydx),
        None => simd::run(&HswishOp { shift, upper, gi, bits }, x, y, dydx),
    }
    Report { scale, ..Report::default() }
}

/// The three-pass form: `h` into a temporary, `inner` over it, then the chain rule.
fn hswish_passes(
    shift: f32,
    upper: f32,
    inner: &QuantizedBits,
    x: &[f32],
    y: &mut [f32],
    mut dydx: Option<&mut [f32]>,
    ctx: &mut Ctx,
) -> Report {
    // QKeras' `tf.where`: min(relu(x + shift), upper).
    let relu = |v: f32| if v + shift <= upper { (v + shift).max(0.0) } else { upper };
    let h: Vec<f32> = x.iter().map(|&v| v * relu(v) / upper).collect();
    let report = inner.apply(&h, y, dydx.as_deref_mut(), ctx);
    if let Some(d) = dydx {
        for (di, &v) in d.iter_mut().zip(x) {
            let gi = *di / upper;
            let active = v + shift <= upper && v + shift > 0.0;
            *di = gi * relu(v) + if active { gi * v } else { 0.0 };
        }
    }
    report
}

/// [`hswish_passes`] in one pass for a fixed-scale, deterministic quantized_bits: the same
/// float32 operations in the same order, element by element (`PLAIN`: see [`BitsOp`]).
struct HswishOp<const PLAIN: bool> {
    shift: f32,
    upper: f32,
    /// inner's constant gradient over `upper` (the passes divide it per element).
    gi: f32,
    bits: BitsOp<PLAIN>,
}

impl<const PLAIN: bool> Op for HswishOp<PLAIN> {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        let (upper, zero) = (V::splat(self.upper), V::splat(0.0));
        let s = x + V::splat(self.shift);
        // `s ≤ upper ? max(s, 0) : upper` (s is never −0: shift > 0): pmin keeps `upper` unless
        // its argument is below it, so a NaN takes `upper` too — without the comparison, which
        // only the gradient needs.
        let below = s.le(upper);
        let relu = upper.pmin(s.pmax(zero));
        let (y, _) = self.bits.eval(x * relu / upper);
        let gi = V::splat(self.gi);
        (y, gi * relu + V::select(below & s.gt(zero), gi * x, zero))
    }
}

impl Kernel for QuantizedHswish {
    fn validate(&self) -> Result<(), (&'static str, String)> {
        self.inner().validate()
    }

    fn is_stochastic(&self, training: bool) -> bool {
        self.inner().is_stochastic(training)
    }

    fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, ctx: &mut Ctx) -> Report {
        hswish(self.relu_shift as f32, self.relu_upper_bound as f32, &self.inner(), x, y, dydx, ctx)
    }

    fn levels(&self, report: &Report) -> Levels {
        self.inner().levels(report)
    }
}

impl Facts for QuantizedHswish {
    fn scale_axis(&self) -> Option<i64> {
        self.scale_axis.int()
    }

    fn layout(&self) -> Layout {
        if self.alpha.is_auto() { Layout::Channels } else { Layout::Elementwise }
    }

    /// 'auto'/'auto_po2' freezes its inner quantized_bits at the report's scale as
    /// post_training_scale, which quantized_hswish itself lacks ([`Fixed::Hswish`]).
    fn freeze(&self, report: &Report) -> Option<Frozen> {
        self.alpha.is_auto().then(|| {
            let post_training_scale = Some(report.scale.unwrap_or(f32::NAN) as f64);
            Frozen::Fixed(Fixed::Hswish {
                inner: QuantizedBits { post_training_scale, ..self.inner() },
                relu_shift: self.relu_shift as f32,
                relu_upper_bound: self.relu_upper_bound as f32,
            })
        })
    }

    fn inert(&self) -> Vec<&'static str> {
        vec!["use_variables"]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every 1021st float32 bit pattern (both signs, specials and subnormals among them) and
    /// every multiple of 2^−16 in [−8, 8], over the kinks at −shift and upper − shift.
    fn inputs() -> Vec<f32> {
        let sparse = (0..=u32::MAX / 1021).map(|k| f32::from_bits(k * 1021));
        let dense = (-(1 << 19)..=1 << 19).map(|k| k as f32 / 65536.0);
        let specials = [0.0, -0.0, -3.0, 3.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY];
        sparse.chain(dense).chain(specials).collect()
    }

    /// The fused pass's `min(relu(s), upper)` by pmin is the select it replaces, on every float32
    /// bit pattern s (every [`crate::every_float_step`]th; all with `QSCOPE_EXHAUSTIVE=1`).
    #[test]
    fn the_capped_relu_by_pmin_is_the_select_on_every_float() {
        for upper in [6.0f32, 2.5, 1e-6, 1e6] {
            for bits in (0..=u32::MAX).step_by(crate::every_float_step()) {
                let s = f32::from_bits(bits);
                let select = if s <= upper { s.pmax(0.0) } else { upper };
                assert_eq!(upper.pmin(s.pmax(0.0)).to_bits(), select.to_bits(), "upper {upper}, s {s:e}");
            }
        }
    }

    /// The fused pass gives the bits of the three passes, forward and gradient.
    #[test]
    fn the_fused_pass_equals_the_three_passes() {
        let x = inputs();
        let base = QuantizedHswish::default();
        let variants = [
            base.clone(),
            QuantizedHswish { bits: 4, integer: 2, symmetric: true, ..base.clone() },
            QuantizedHswish { alpha: Alpha::Value(0.75), qnoise_factor: 0.5, ..base.clone() },
            QuantizedHswish { bits: 1, relu_shift: 1.5, relu_upper_bound: 2.5, ..base.clone() },
        ];
        for (i, q) in variants.into_iter().enumerate() {
            let (shift, upper, inner) = (q.relu_shift as f32, q.relu_upper_bound as f32, q.inner());
            let [fused, passes] = [hswish, hswish_passes].map(|f| {
                let (mut y, mut d) = (vec![0.0; x.len()], vec![0.0; x.len()]);
                f(shift, upper, &inner, &x, &mut y, Some(&mut d), &mut Ctx::training(1));
                [y, d].map(|v| v.into_iter().map(f32::to_bits).collect::<Vec<_>>())
            });
            assert!(fused == passes, "variant {i}");
        }
    }
}
