//! Larq (`larq/larq`, `larq/quantizers.py`). All Larq quantizers are deterministic and
//! define their gradient with `@tf.custom_gradient`. Larq's `sign` maps 0 to +1.

use super::lane::{self, Lane, sgn_plus, sgn0};
use super::levels::MAX_SET;
use super::round::{max_abs, mean_abs, sum_abs};
use super::schema::{Kind, choice, quantizer};
use super::simd::{self, Op};
use super::{Ctx, Kernel, Levels, Report};
use super::{Facts, Fixed, Frozen, Quantizer, elementwise_facts};
use crate::Layout;

const CLIP: Kind = Kind::OptFloat { min: 0.0, max: 1e30 };

/// Larq's `_clipped_gradient`: 1 where `|x| ≤ clip_value` (inclusive; NaN → 0), or 1
/// everywhere when clip_value is None.
#[inline(always)]
fn clipped<V: Lane>(v: V, clip_value: Option<f32>) -> V {
    match clip_value {
        None => V::splat(1.0),
        Some(c) => V::select(v.abs().le(V::splat(c)), V::splat(1.0), V::splat(0.0)),
    }
}

/// `scale·sign(x)` forward, `scale·clipped` backward: SteSign, MagnitudeAwareSign.
pub(crate) struct ScaledSign {
    pub(crate) scale: f32,
    pub(crate) clip: Option<f32>,
}

impl Op for ScaledSign {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        let a = V::splat(self.scale);
        (a * sgn_plus(x), a * clipped(x, self.clip))
    }
}

fn clip_f32(c: Option<f64>) -> Option<f32> {
    c.map(|c| c as f32)
}

quantizer! {
    /// Sign with the BNN straight-through estimator (Hubara et al. 2016); clip_value None passes
    /// the gradient everywhere.
    pub struct SteSign: Larq "SteSign" ["ste_sign"] {
        summary: "sign (0 ↦ +1) with the clipped STE 1[|x| ≤ clip_value]",
        forward: "q(x) = sign(x),  sign(0) = +1",
        backward: "∂q/∂x = 1[|x| ≤ clip_value]",
        figure: {
            args: "",
            x: (-2.0, 2.0),
            why: "Larq's default, as Larq's documentation draws it: the sign and the gradient cut at |x| > 1",
        },
        /// Gradient is cut where |x| exceeds it; None never cuts.
        clip_value: Option<f64> = Some(1.0), CLIP;
    }
}

impl Kernel for SteSign {
    fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, _: &mut Ctx) -> Report {
        simd::run(&ScaledSign { scale: 1.0, clip: clip_f32(self.clip_value) }, x, y, dydx);
        Report::default()
    }

    fn levels(&self, _: &Report) -> Levels {
        Levels::set(vec![-1.0, 1.0])
    }
}

quantizer! {
    /// Sign with the ApproxSign gradient of Bi-Real Net (Liu et al. 2018): a triangle, 0 at
    /// |x| = 1.
    pub struct ApproxSign: Larq "ApproxSign" ["approx_sign"] {
        summary: "sign (0 ↦ +1) with the piecewise-linear Bi-Real gradient 2 − 2|x|",
        forward: "q(x) = sign(x),  sign(0) = +1",
        backward: "∂q/∂x = 2 − 2|x| on |x| ≤ 1, else 0",
        figure: {
            args: "",
            x: (-2.0, 2.0),
            why: "Larq's default, as Larq's documentation draws it: the sign and the triangular Bi-Real gradient",
        },
    }
}

impl Op for ApproxSign {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        let a = x.abs();
        let one = V::splat(1.0);
        (sgn_plus(x), V::select(a.le(one), (one - a) * V::splat(2.0), V::splat(0.0)))
    }
}

impl Kernel for ApproxSign {
    simd::op_apply!();

    fn levels(&self, _: &Report) -> Levels {
        Levels::set(vec![-1.0, 1.0])
    }
}

quantizer! {
    /// Sign with the SwishSign gradient of BNN+ (Darabi et al. 2018): peak β at 0, slightly
    /// negative for |βx| ≳ 2.4, never clipped.
    pub struct SwishSign: Larq "SwishSign" ["swish_sign"] {
        summary: "sign (0 ↦ +1) with the smooth SwishSign gradient (BNN+)",
        forward: "q(x) = sign(x),  sign(0) = +1",
        backward: "∂q/∂x = β(2 − βx·tanh(βx/2)) / (1 + cosh βx)",
        figure: {
            args: "",
            x: (-2.0, 2.0),
            why: "Larq's default, as Larq's documentation draws it: the sign and the smooth SwishSign gradient",
        },
        /// Sharpness β of the swish.
        beta: f64 = 5.0, Kind::Float { min: 1e-3, max: 1e3, log: true };
    }
}

impl Op for SwishSign {
    /// Larq: `dy·β·(2 − βx·tanh(βx/2)) / (1 + cosh(βx))`, with TensorFlow's tanh and
    /// `cosh = (eˣ + e⁻ˣ)/2`.
    /// Both exponentials come from [`lane::exp_in_range`] where every lane has `|βx| ≤ 87`.
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        let (b, half, one, two) = (V::splat(self.beta as f32), V::splat(0.5), V::splat(1.0), V::splat(2.0));
        let bx = b * x;
        let (e, e_neg) = if V::any(!bx.abs().le(V::splat(87.0))) {
            (lane::exp(bx), lane::exp(-bx))
        } else {
            (lane::exp_in_range(bx), lane::exp_in_range(-bx))
        };
        let cosh = (e + e_neg) * half;
        (sgn_plus(x), b * (two - bx * lane::tanh(bx * half)) / (one + cosh))
    }
}

impl Kernel for SwishSign {
    simd::op_apply!();

    fn levels(&self, _: &Report) -> Levels {
        Levels::set(vec![-1.0, 1.0])
    }
}

quantizer! {
    /// Heaviside step with the clipped straight-through estimator (0 ↦ 0); clip_value None
    /// passes the gradient everywhere.
    pub struct SteHeaviside: Larq "SteHeaviside" ["ste_heaviside"] {
        summary: "step {0, 1} (0 ↦ 0) with the clipped STE",
        forward: "q(x) = 1[x > 0]",
        backward: "∂q/∂x = 1[|x| ≤ clip_value]",
        figure: {
            args: "",
            x: (-2.0, 2.0),
            why: "Larq's default, as Larq's documentation draws it: the {0, 1} step and the gradient cut at |x| > 1",
        },
        /// Gradient is cut where |x| exceeds it; None never cuts.
        clip_value: Option<f64> = Some(1.0), CLIP;
    }
}

impl Op for SteHeaviside {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        // sign(relu(x)): 1 for x > 0, 0 for x ≤ 0, NaN stays NaN.
        let zero = V::splat(0.0);
        let step = V::select(x.gt(zero), V::splat(1.0), V::select(x.le(zero), zero, x));
        (step, clipped(x, clip_f32(self.clip_value)))
    }
}

impl Kernel for SteHeaviside {
    simd::op_apply!();

    fn levels(&self, _: &Report) -> Levels {
        Levels::set(vec![0.0, 1.0])
    }
}

quantizer! {
    /// Magnitude-aware sign of Bi-Real Net: the mean is taken per output channel (over the whole
    /// 1-D tensor) and held constant for the gradient.
    pub struct MagnitudeAwareSign: Larq "MagnitudeAwareSign" ["magnitude_aware_sign"] {
        summary: "mean|x|·sign(x), per channel (Bi-Real weights)",
        forward: "q(x) = mean|x|·sign(x),  sign(0) = +1",
        backward: "∂q/∂x = mean|x|·1[|x| ≤ clip_value]",
        figure: {
            args: "",
            x: (-2.0, 2.0),
            why: "Larq's default, its scale mean|x| taken from the sample tensor N(0, 0.5²)",
        },
        /// Gradient is cut where |x| exceeds it; None never cuts.
        clip_value: Option<f64> = Some(1.0), CLIP;
    }
}

impl Kernel for MagnitudeAwareSign {
    fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, _: &mut Ctx) -> Report {
        let a = mean_abs(x);
        simd::run(&ScaledSign { scale: a, clip: clip_f32(self.clip_value) }, x, y, dydx);
        Report { scale: Some(a), ..Report::default() }
    }

    fn levels(&self, report: &Report) -> Levels {
        let a = report.scale.unwrap_or(1.0);
        Levels::set(vec![-a, a])
    }
}

quantizer! {
    /// Ternarization with the clipped straight-through estimator: `Δ = threshold_value`, or
    /// `Δ = 0.7·Σ|x|/size(x)` over the whole tensor with ternary_weight_networks (no gradient
    /// through Δ).
    pub struct SteTern: Larq "SteTern" ["ste_tern"] {
        summary: "ternary {−1, 0, 1} at ±Δ (fixed or TWN 0.7·mean|x|) with the clipped STE",
        forward: "q(x) = sign(sign(x+Δ) + sign(x−Δ))",
        backward: "∂q/∂x = 1[|x| ≤ clip_value]",
        figure: {
            args: "threshold_value=0.5",
            x: (-2.0, 2.0),
            why: "threshold 0.5 rather than the default 0.05, so the band that maps to 0 is wide enough to see",
        },
        /// Δ when ternary_weight_networks is False.
        threshold_value: f64 = 0.05, Kind::Float { min: 0.0, max: 1e6, log: false };
        /// Δ = 0.7·mean|x| (Li & Liu 2016).
        ternary_weight_networks: bool = false, Kind::Bool;
        /// Gradient is cut where |x| exceeds it; None never cuts.
        clip_value: Option<f64> = Some(1.0), CLIP;
    }
}

/// `sign(sign(x + Δ) + sign(x − Δ))` with the clipped STE. `PLAIN` fixes at compile time what
/// [`Tern::plain`] checks — a finite Δ > 0 and a clip value — so no runtime test leaves LLVM
/// computing both forms per element and selecting one.
struct Tern<const PLAIN: bool = false> {
    t: f32,
    clip: Option<f32>,
}

impl Tern {
    /// This op as `Tern<true>` where Δ and the clip allow.
    fn plain(&self) -> Option<Tern<true>> {
        (self.t.is_finite() && self.t > 0.0 && self.clip.is_some()).then_some(Tern { t: self.t, clip: self.clip })
    }
}

impl<const PLAIN: bool> Tern<PLAIN> {
    /// Larq's nested signs, as written (the test oracle, and the kernel for a Δ that is not
    /// finite). The outer sign of a sum in {−2, −1, +0, 1, 2} or NaN is its clip to [−1, 1]:
    /// −0 never occurs (x + Δ and x − Δ are never both −0), and clip passes NaN.
    #[inline(always)]
    fn nested<V: Lane>(&self, x: V) -> V {
        let (t, one) = (V::splat(self.t), V::splat(1.0));
        lane::clip(sgn0(x + t) + sgn0(x - t), -one, one)
    }

    /// The same for a finite Δ ≥ 0, by two comparisons: with gradual underflow `x ± Δ` rounds to
    /// zero only when it is zero, so the signs of `x + Δ` and `x − Δ` are those of the exact
    /// differences. The sum is positive where `x − Δ ≥ 0` and `x + Δ > 0`, negative where
    /// `x + Δ ≤ 0` and `x − Δ < 0`, else +0 (`x − x`, one operation: x is finite there, or NaN). For Δ > 0 the second
    /// condition of each follows from the first; for Δ = ±0 the comparisons are strict.
    #[inline(always)]
    fn compared<V: Lane>(&self, x: V) -> V {
        let (one, zero) = (V::splat(1.0), V::splat(0.0));
        let (pos, neg) = if PLAIN || self.t > 0.0 {
            (x.ge(V::splat(self.t)), x.le(V::splat(-self.t)))
        } else {
            (x.gt(zero), x.lt(zero))
        };
        // x − x on purpose: +0 for a finite x, NaN for NaN.
        #[allow(clippy::eq_op)]
        let zero_or_nan = x - x;
        V::select(pos, one, V::select(neg, -one, zero_or_nan))
    }
}

impl<const PLAIN: bool> Op for Tern<PLAIN> {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        let y = if PLAIN || self.t.is_finite() && self.t >= 0.0 { self.compared(x) } else { self.nested(x) };
        let clip = if PLAIN { Some(self.clip.unwrap_or(f32::NAN)) } else { self.clip };
        (y, clipped(x, clip))
    }
}

impl Kernel for SteTern {
    fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, _: &mut Ctx) -> Report {
        let t =
            if self.ternary_weight_networks { 0.7 * sum_abs(x) / x.len() as f32 } else { self.threshold_value as f32 };
        let op: Tern = Tern { t, clip: clip_f32(self.clip_value) };
        match op.plain() {
            Some(plain) => simd::run(&plain, x, y, dydx),
            None => simd::run(&op, x, y, dydx),
        }
        Report { threshold: Some(t), ..Report::default() }
    }

    fn levels(&self, _: &Report) -> Levels {
        Levels::set(vec![-1.0, 0.0, 1.0])
    }
}

/// DoReFa activations: `round(n·clip(x, 0, 1))/n`, gradient 1 on [0, 1].
struct DoReFaActivations {
    n: f32,
}

impl Op for DoReFaActivations {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        let (zero, one, n) = (V::splat(0.0), V::splat(1.0), V::splat(self.n));
        ((lane::clip(x, zero, one) * n).nearest() / n, lane::inside(x, zero, one))
    }
}

/// DoReFa weights once `max|tanh|` is known: `2·round(n·(tanh x/2d + ½))/n − 1`, gradient
/// `(1 − tanh²x)/d` (`divide_no_nan`: 0 when d = 0).
pub(crate) struct DoReFaWeights {
    pub(crate) n: f32,
    pub(crate) two_d: f32,
}

impl Op for DoReFaWeights {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        let (one, two, n) = (V::splat(1.0), V::splat(2.0), V::splat(self.n));
        let t = lane::tanh(x);
        let (normed, g) = if self.two_d == 0.0 {
            (V::splat(0.0), V::splat(0.0))
        } else {
            let d2 = V::splat(self.two_d);
            (t / d2, two / d2 * (one - t * t))
        };
        (two * ((normed + V::splat(0.5)) * n).nearest() / n - one, g)
    }
}

choice! {
    /// What DoReFa quantizes.
    DoReFaMode { Activations = "activations", Weights = "weights" }
}

quantizer! {
    /// DoReFa-Net k-bit quantizer (Zhou et al. 2016), `n = 2^k_bit − 1`: mode='activations' on
    /// the left of each formula, mode='weights' on the right, where `max|tanh|` is taken over
    /// the tensor and held constant for the gradient.
    pub struct DoReFa: Larq "DoReFa" ["dorefa_quantizer", "DoReFaQuantizer"] {
        summary: "DoReFa k-bit: clip to [0,1] (activations) or tanh-normalise (weights)",
        forward: "q(x) = round(n·clip(x,0,1))/n  |  2·round(n·(tanh x/2max|tanh| + ½))/n − 1",
        backward: "∂q/∂x = 1[0 ≤ x ≤ 1]  |  (1 − tanh²x)/max|tanh|",
        figure: {
            args: "",
            x: (-0.5, 1.5),
            why: "Larq's default, 2-bit activations: 4 levels on [0, 1] and the gradient cut outside it",
        },
        /// Bits k of the output.
        k_bit: i32 = 2, Kind::Int { min: 1, max: 24 };
        /// 'activations' or 'weights'.
        mode: DoReFaMode = DoReFaMode::Activations, Kind::Choice(DoReFaMode::CHOICES);
    }
}

impl DoReFa {
    /// The number of steps n = 2^k_bit − 1 (n + 1 levels).
    pub fn step_count(&self) -> i64 {
        (1i64 << self.k_bit) - 1
    }
}

impl Kernel for DoReFa {
    fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, _: &mut Ctx) -> Report {
        let n = self.step_count() as f32;
        match self.mode {
            DoReFaMode::Activations => {
                simd::run(&DoReFaActivations { n }, x, y, dydx);
                Report::default()
            }
            DoReFaMode::Weights => {
                let d = max_abs(&x.iter().map(|&v| lane::tanh(v)).collect::<Vec<_>>());
                simd::run(&DoReFaWeights { n, two_d: 2.0 * d }, x, y, dydx);
                Report { scale: Some(d), ..Report::default() }
            }
        }
    }

    fn levels(&self, _: &Report) -> Levels {
        let n = self.step_count();
        match self.mode {
            DoReFaMode::Activations => Levels::codes(0, n, 1.0 / n as f32),
            DoReFaMode::Weights if n >= MAX_SET => Levels::Continuous,
            DoReFaMode::Weights => Levels::set((0..=n).map(|k| 2.0 * (k as f32 / n as f32) - 1.0).collect()),
        }
    }
}

quantizer! {
    /// Larq's `NoOp`: the identity, forward and backward. `precision` only tags the
    /// variable for Larq's optimizers and summaries (Larq requires it). Larq registers
    /// `NoOpQuantizer` as its backward-compatible alias.
    pub struct NoOp: Larq "NoOp" ["NoOpQuantizer"] {
        summary: "identity (a precision tag for Larq's optimizers)",
        forward: "q(x) = x",
        backward: "∂q/∂x = 1",
        figure: { args: "", x: (-2.0, 2.0), why: "the identity: a precision tag only" },
        /// Precision tag (no effect on values).
        precision: Option<i32> = None, Kind::OptInt { min: 1, max: 64 };
    }
}

impl Op for NoOp {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        (x, V::splat(1.0))
    }
}

impl Kernel for NoOp {
    simd::op_apply!();

    fn levels(&self, _: &Report) -> Levels {
        Levels::Continuous
    }
}

elementwise_facts! { SteSign, ApproxSign, SwishSign, SteHeaviside, NoOp ["precision"] }

impl Facts for MagnitudeAwareSign {
    fn layout(&self) -> Layout {
        Layout::Channels
    }

    /// The mean |x| is always the tensor's; Larq has no parameter for it ([`Fixed::MagnitudeSign`]).
    fn freeze(&self, report: &Report) -> Option<Frozen> {
        let scale = report.scale.unwrap_or(f32::NAN);
        Some(Frozen::Fixed(Fixed::MagnitudeSign { scale, clip_value: clip_f32(self.clip_value) }))
    }

    fn inert(&self) -> Vec<&'static str> {
        Vec::new()
    }
}

impl Facts for SteTern {
    fn layout(&self) -> Layout {
        if self.ternary_weight_networks { Layout::Flat } else { Layout::Elementwise }
    }

    /// With ternary_weight_networks, freezes to the reported Δ as threshold_value.
    fn freeze(&self, report: &Report) -> Option<Frozen> {
        self.ternary_weight_networks.then(|| {
            let threshold_value = report.threshold.unwrap_or(f32::NAN) as f64;
            Frozen::Library(Quantizer::SteTern(SteTern {
                ternary_weight_networks: false,
                threshold_value,
                ..self.clone()
            }))
        })
    }

    fn inert(&self) -> Vec<&'static str> {
        Vec::new()
    }
}

impl Facts for DoReFa {
    fn layout(&self) -> Layout {
        if self.mode == DoReFaMode::Weights { Layout::Flat } else { Layout::Elementwise }
    }

    /// Weights mode normalises by the tensor's max|tanh x| ([`Fixed::DoReFaWeights`]).
    fn freeze(&self, report: &Report) -> Option<Frozen> {
        (self.mode == DoReFaMode::Weights).then(|| {
            Frozen::Fixed(Fixed::DoReFaWeights { k_bit: self.k_bit, max_tanh: report.scale.unwrap_or(f32::NAN) })
        })
    }

    fn inert(&self) -> Vec<&'static str> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The clipped sum is Larq's `sign(sign(x + Δ) + sign(x − Δ))` to the bit, over every
    /// 1021st float32 bit pattern and the signed zeros, for thresholds ±0, positive and
    /// infinite.
    #[test]
    fn the_clipped_sum_is_the_sign_of_the_sum() {
        let x: Vec<f32> = (0..=u32::MAX / 1021).map(|k| f32::from_bits(k * 1021)).chain([0.0, -0.0]).collect();
        for t in [0.0, -0.0, 0.05, 1.0, 3e38, f32::INFINITY, f32::NAN, -0.5, f32::NEG_INFINITY] {
            for &v in &x {
                let tern: Tern = Tern { t, clip: None };
                let old = sgn0(sgn0(v + t) + sgn0(v - t));
                assert_eq!(tern.nested(v).to_bits(), old.to_bits(), "x = {v:e}, Δ = {t}");
                assert_eq!(tern.eval(v).0.to_bits(), old.to_bits(), "x = {v:e}, Δ = {t}");
            }
        }
    }

    /// The comparisons give the nested signs' bits for finite thresholds — subnormal, tiny,
    /// the defaults, huge and the largest float — at every 1021st bit pattern, at the
    /// thresholds themselves and at their neighbours.
    #[test]
    fn the_comparisons_are_the_nested_signs_for_a_finite_threshold() {
        let thresholds = [0.0, -0.0, 1e-45, 1e-40, 1e-38, 0.05, 0.7, 1.0, 3e38, f32::MAX];
        for t in thresholds {
            let tern: Tern = Tern { t, clip: None };
            let near = [t, -t]
                .into_iter()
                .flat_map(|b| (-3i32..=3).map(move |d| f32::from_bits(b.to_bits().wrapping_add_signed(d))));
            let sparse = (0..=u32::MAX / 1021).map(|k| f32::from_bits(k * 1021));
            for v in sparse.chain(near).chain([0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN]) {
                assert_eq!(tern.compared(v).to_bits(), tern.nested(v).to_bits(), "x = {v:e}, Δ = {t:e}");
            }
        }
    }

    /// `Tern::<true>` gives the general op's bits, value and gradient, on every float32 bit
    /// pattern (every [`crate::every_float_step`]th; all with `QSCOPE_EXHAUSTIVE=1`) for
    /// finite positive thresholds and clip values; it is offered for none of the others.
    #[test]
    fn the_plain_tern_op_equals_the_general_one_on_every_float() {
        for (t, clip) in [(0.05, Some(1.0)), (1e-40, Some(0.0)), (0.7, Some(f32::INFINITY)), (f32::MAX, Some(1e-3))] {
            let general: Tern = Tern { t, clip };
            let plain = general.plain().expect("a finite positive threshold and a clip");
            for bits in (0..=u32::MAX).step_by(crate::every_float_step()) {
                let x = f32::from_bits(bits);
                let (want, got) = (general.eval(x), plain.eval(x));
                assert_eq!(
                    [got.0.to_bits(), got.1.to_bits()],
                    [want.0.to_bits(), want.1.to_bits()],
                    "Δ {t:e}, x {x:e}"
                );
            }
        }
        let others =
            [(0.0, Some(1.0)), (f32::INFINITY, Some(1.0)), (f32::NAN, Some(1.0)), (-0.5, Some(1.0)), (0.05, None)];
        assert!(others.iter().all(|&(t, clip)| Tern::<false> { t, clip }.plain().is_none()));
    }
}
