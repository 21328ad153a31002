//! Bounded activations: `quantized_relu`, `quantized_tanh`, `quantized_sigmoid`.

use super::super::lane::{self, Lane};
use super::super::random::Stream;
use super::super::round::{clip, pow2i, rhe, stochastic_round};
use super::super::schema::{Kind, Opaque, quantizer};
use super::super::simd::{self, Op};
use super::super::{Ctx, Kernel, Levels, Report, elementwise};
use super::{integer_fits, one_minus, sigmoid_q};
use crate::elementwise_facts;
use crate::levels::MAX_SET;

pub(super) const BITS: Kind = Kind::Int { min: 1, max: 32 };
pub(super) const INTEGER: Kind = Kind::Int { min: 0, max: 32 };
const QNOISE: Kind = Kind::Float { min: 0.0, max: 1.0, log: false };

/// `_round_through(v, stochastic)` with QKeras' default precision ½ (half-step codes in
/// training with stochastic rounding).
#[inline(always)]
fn round_through(v: f32, stochastic: bool, rng: &mut Stream) -> f32 {
    if stochastic { stochastic_round(v, 0.5, rng.uniform()) } else { rhe(v) }
}

quantizer! {
    /// Quantized ReLU. A negative slope spends one bit on a negative part
    /// `Δ·clip(round(ns·x/Δ), −ns·m, 0)`; with use_sigmoid the codes come from the hard sigmoid
    /// of x. The top code `2^integer − Δ` is also where the gradient stops: the STE goes
    /// through `relu(x)` capped there.
    pub struct QuantizedRelu: QKeras "quantized_relu" {
        summary: "quantized ReLU on [0, 2^integer); STE cut above the top code",
        forward: "q(x) = Δ·clip(round(x/Δ), 0, m−1),  Δ = 2^integer / 2^bits",
        backward: "∂q/∂x = 1 on 0 < x ≤ 2^integer − Δ, else 0 (negative_slope for x ≤ 0)",
        figure: {
            args: "bits=3, integer=1",
            x: (-1.0, 2.5),
            why: "3 bits over [0, 2): 8 codes of 0.25 up to 1.75, where the clip stops the gradient",
        },
        /// Total bits.
        bits: i32 = 8, BITS;
        /// Bits left of the binary point.
        integer: i32 = 0, INTEGER;
        /// Quantize the hard sigmoid of x instead of x.
        use_sigmoid: bool = false, Kind::Bool;
        /// Slope for negative inputs (costs one bit).
        negative_slope: f64 = 0.0, Kind::Float { min: 0.0, max: 1.0, log: false };
        /// Stochastic rounding (to half steps) in training.
        use_stochastic_rounding: bool = false, Kind::Bool;
        /// Upper bound when is_quantized_clip is False.
        relu_upper_bound: Option<f64> = None, Kind::OptFloat { min: 0.0, max: 1e30 };
        /// Clip at the top code (True) or at relu_upper_bound (False).
        is_quantized_clip: bool = true, Kind::Bool;
        /// Blend of quantized and float output, 0 (float) to 1 (quantized).
        qnoise_factor: f64 = 1.0, QNOISE;
        /// Variable name (no effect).
        var_name: Opaque = Opaque::default(), Kind::Text;
        /// Straight-through estimator; False gives gradient (1 − qnoise_factor)·relu'.
        use_ste: bool = true, Kind::Bool;
        /// Keep parameters in tf.Variables (no effect).
        use_variables: bool = false, Kind::Bool;
        /// Inference-only shortcut of QKeras (no STE handling).
        enable_fast_inference: bool = false, Kind::Bool;
    }
}

impl QuantizedRelu {
    fn nb(&self) -> i32 {
        self.bits - (self.negative_slope != 0.0) as i32
    }

    /// `x_u`, the float value the STE passes through (leaky ReLU capped at the top code or
    /// relu_upper_bound), and its gradient. `plain` (a constant where it is inlined) says the
    /// flags are [`ReluOp::plain`]'s, so their other arms fold away.
    #[inline(always)]
    fn xu<V: Lane>(&self, v: V, top: f32, plain: bool) -> (V, V) {
        let ns = V::splat(if plain { 0.0 } else { self.negative_slope as f32 });
        let pos = v.gt(V::splat(0.0));
        // K.relu(x, negative_slope): plain relu (0 for −inf) when the slope is 0.
        let neg = if plain || self.negative_slope == 0.0 { V::splat(0.0) } else { ns * v };
        let (relu, drelu) = (V::select(pos, v, neg), V::select(pos, V::splat(1.0), ns));
        let bound = if plain || self.is_quantized_clip { Some(top) } else { self.relu_upper_bound.map(|u| u as f32) };
        match bound {
            // tf.where(x <= bound, relu, bound): NaN takes the bound.
            Some(b) => {
                let below = v.le(V::splat(b));
                (V::select(below, relu, V::splat(b)), V::select(below, drelu, V::splat(0.0)))
            }
            None => (relu, drelu),
        }
    }

    /// The quantized value `xq`, with `round` the rounding of the scaled value (`plain`: as in
    /// [`QuantizedRelu::xu`]).
    #[inline(always)]
    fn xq<V: Lane>(&self, v: V, m: f32, mi: f32, plain: bool, mut round: impl FnMut(V) -> V) -> V {
        let ns = self.negative_slope as f32;
        let slope = !plain && self.negative_slope > 0.0;
        let neg_factor = V::splat((1.0 / (self.negative_slope * m as f64)) as f32);
        let (vm, vmi, one, zero) = (V::splat(m), V::splat(mi), V::splat(1.0), V::splat(0.0));
        let (top, two, mins) = (V::splat(1.0 - 1.0 / m), V::splat(2.0), V::splat(mi * ns));
        // m and m_i are powers of two (m ≥ m_i): ÷ either is × its exact reciprocal, and
        // x·m/m_i is x·(m/m_i) (x·m is exact; where it overflows both clip to the top).
        let inv_m = V::splat(1.0 / m);
        let mut xq;
        if !plain && self.use_sigmoid {
            let (s, _) = sigmoid_q(v * V::splat(1.0 / mi));
            let p = s * vm;
            xq = vmi * lane::clip(two * (round(p) * inv_m) - one, zero, top);
            if slope {
                let r = round(p * V::splat(ns));
                xq = xq + mins * lane::clip(two * (r * neg_factor) - one, -one, zero);
            }
        } else {
            let p = v * V::splat(m / mi);
            xq = vmi * lane::clip(round(p) * inv_m, zero, top);
            if slope {
                let r = round(p * V::splat(ns));
                xq = xq + mins * lane::clip(r * neg_factor, -one, zero);
            }
        }
        if let Some(u) = self.relu_upper_bound
            && !plain
            && u != 0.0
            && !self.is_quantized_clip
        {
            // tf.where(xq <= u, xq, u): NaN takes u.
            let u = V::splat(u as f32);
            xq = V::select(xq.le(u), xq, u);
        }
        xq
    }
}

/// quantized_relu with round-half-even codes. `PLAIN` fixes the flags at their defaults at
/// compile time — no negative slope or sigmoid, the quantized clip, the STE, qnoise_factor 1, a
/// bounded `x_u` ([`ReluOp::plain`]) — where runtime flags would leave LLVM computing every arm
/// per element and selecting one.
pub struct ReluOp<'a, const PLAIN: bool = false> {
    relu: &'a QuantizedRelu,
    /// The top code `2^integer − Δ`, where the STE's capped relu stops.
    pub top: f32,
    /// `2^bits` (one bit less with a negative slope).
    pub m: f32,
    /// `2^integer`.
    pub mi: f32,
    /// Whether `x_u` lies within ±2^20 for every input, where the STE is its library expression.
    bounded: bool,
}

impl QuantizedRelu {
    /// The kernel (without enable_fast_inference).
    pub fn op(&self) -> ReluOp<'_> {
        let mi = pow2i(self.integer);
        let top = mi - pow2i(self.integer - self.nb());
        ReluOp { relu: self, top, m: pow2i(self.nb()), mi, bounded: self.xu_bounded(top) }
    }

    /// Without a negative slope `x_u` is 0 or x below the bound, else the bound (NaN takes
    /// it): it lies within ±|bound|.
    fn xu_bounded(&self, top: f32) -> bool {
        let bound = if self.is_quantized_clip { Some(top) } else { self.relu_upper_bound.map(|u| u as f32) };
        self.negative_slope == 0.0 && bound.is_some_and(|b| b.abs() <= 1_048_576.0)
    }
}

impl<'a> ReluOp<'a> {
    /// This op as `ReluOp<true>` where its flags are the plain ones.
    pub(crate) fn plain(&self) -> Option<ReluOp<'a, true>> {
        let r = self.relu;
        // The bits of +0: a slope of −0 would give −0 gradients below zero.
        let plain = r.negative_slope.to_bits() == 0
            && !r.use_sigmoid
            && r.is_quantized_clip
            && r.use_ste
            && r.qnoise_factor == 1.0
            && self.bounded;
        plain.then_some(ReluOp { relu: r, top: self.top, m: self.m, mi: self.mi, bounded: true })
    }
}

impl<const PLAIN: bool> ReluOp<'_, PLAIN> {
    /// The STE combination of `x_u` and `xq`.
    #[inline(always)]
    fn combine<V: Lane>(&self, (xu, g): (V, V), xq: V) -> (V, V) {
        let q = if PLAIN { 1.0 } else { self.relu.qnoise_factor as f32 };
        let omq = one_minus(self.relu.qnoise_factor);
        if PLAIN || self.relu.use_ste && self.bounded {
            (lane::ste_lib(xu, xq, q), g)
        } else if self.relu.use_ste {
            (lane::ste_blend(xu, xq, q), g)
        } else {
            (lane::no_ste_blend(xu, xq, q, omq), V::splat(omq) * g)
        }
    }
}

impl ReluOp<'_, true> {
    /// [`QuantizedRelu::xq`] and [`QuantizedRelu::xu`] at the plain flags in fewer operations:
    /// `mi·clip(k/m, 0, 1 − 1/m)` is `clip(k, 0, (1 − 1/m)·m)·(mi/m)` (each scaling by a power
    /// of two is exact and commutes with the clip), and `x ≤ top ? (x > 0 ? x : +0) : top` is
    /// `min(top, max(+0, x))` by pmin/pmax but for NaN, which takes +0 instead of top: its output
    /// is `xq`'s NaN either way and its gradient 0.
    #[inline(always)]
    fn plain_eval<V: Lane>(&self, x: V) -> (V, V) {
        let (zero, top) = (V::splat(0.0), V::splat(self.top));
        let k = (x * V::splat(self.m / self.mi)).nearest();
        let xq = lane::clip(k, zero, V::splat((1.0 - 1.0 / self.m) * self.m)) * V::splat(self.mi / self.m);
        let xu = top.pmin(zero.pmax(x));
        (lane::ste_lib(xu, xq, 1.0), V::select(x.gt(zero) & x.le(top), V::splat(1.0), zero))
    }
}

impl<const PLAIN: bool> Op for ReluOp<'_, PLAIN> {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        if PLAIN {
            let plain = ReluOp::<true> { relu: self.relu, top: self.top, m: self.m, mi: self.mi, bounded: true };
            return plain.plain_eval(x);
        }
        let xq = self.relu.xq(x, self.m, self.mi, PLAIN, |p: V| p.nearest());
        self.combine(self.relu.xu(x, self.top, PLAIN), xq)
    }
}

impl Kernel for QuantizedRelu {
    fn validate(&self) -> Result<(), (&'static str, String)> {
        integer_fits(self.integer, self.bits)?;
        if self.negative_slope != 0.0 && self.bits < 2 {
            return Err(("negative_slope", "needs bits ≥ 2 (one bit goes to the negative part)".into()));
        }
        Ok(())
    }

    fn is_stochastic(&self, training: bool) -> bool {
        training && self.use_stochastic_rounding && !self.enable_fast_inference
    }

    fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, ctx: &mut Ctx) -> Report {
        let mi = pow2i(self.integer);
        if self.enable_fast_inference {
            // fast_relu_quantize: m_i·clip(round(x·2^(bits−integer))·2^−bits, 0, 1 − 2^−bits).
            let (up, down) = (pow2i(self.bits - self.integer), pow2i(-self.bits));
            elementwise(x, y, dydx, |v| (mi * clip(rhe(v * up) * down, 0.0, 1.0 - down), 0.0));
            return Report::default();
        }
        let op = self.op();
        if self.is_stochastic(ctx.training) {
            let rng = &mut ctx.rng;
            elementwise(x, y, dydx, |v| {
                let xq = self.xq(v, op.m, op.mi, false, |p| round_through(p, true, rng));
                op.combine(self.xu(v, op.top, false), xq)
            });
        } else if let Some(plain) = op.plain() {
            simd::run(&plain, x, y, dydx);
        } else {
            simd::run(&op, x, y, dydx);
        }
        Report::default()
    }

    fn levels(&self, report: &Report) -> Levels {
        if self.enable_fast_inference {
            return Levels::codes(0, (1i64 << self.bits) - 1, pow2i(self.integer - self.bits));
        }
        if self.qnoise_factor != 1.0 || self.relu_upper_bound.is_some() && !self.is_quantized_clip {
            return Levels::Continuous;
        }
        let m = pow2i(self.nb()) as i64;
        let step = pow2i(self.integer - self.nb());
        if report.stochastic {
            // Stochastic rounding to half steps.
            return if self.use_sigmoid || self.negative_slope > 0.0 {
                Levels::Continuous
            } else {
                Levels::codes(0, 2 * m - 2, step / 2.0)
            };
        }
        if !self.use_sigmoid && self.negative_slope <= 0.0 {
            return Levels::codes(0, m - 1, step);
        }
        if m > MAX_SET {
            return Levels::Continuous;
        }
        let mi = pow2i(self.integer);
        let ns = self.negative_slope as f32;
        // mi·clip(2k/m − 1, 0, 1 − 1/m): the code of the hard sigmoid.
        let sigmoid_code = |k: i64| mi * clip(2.0 * (k as f32 / m as f32) - 1.0, 0.0, 1.0 - 1.0 / m as f32);
        if self.use_sigmoid && self.negative_slope > 0.0 {
            return Levels::set(self.sigmoid_sums(m, mi, sigmoid_code));
        }
        let mut v: Vec<f32> = if self.use_sigmoid {
            (0..=m).map(sigmoid_code).collect()
        } else {
            (0..m).map(|k| k as f32 * step).collect()
        };
        if self.negative_slope > 0.0 {
            v.extend((1..=(self.negative_slope * m as f64).floor() as i64).map(|j| -(j as f32) * step));
            v.push(-ns * mi);
        }
        Levels::set(v)
    }
}

impl QuantizedRelu {
    /// The outputs of use_sigmoid with a negative slope. QKeras adds the negative part
    /// `mi·ns·clip(2r/(ns·m) − 1, −1, 0)` to the positive one for EVERY x, both coded from
    /// the same `p = m·σ(x/mi) ∈ [0, m]` (`k = round(p)`, `r = round(ns·p)`), so the levels
    /// are the sums over the pairs (k, r) one p gives (e.g. bits 3, ns 7/64: 0.5 − ns).
    fn sigmoid_sums(&self, m: i64, mi: f32, sigmoid_code: impl Fn(i64) -> f32) -> Vec<f32> {
        let ns = self.negative_slope;
        let nf = (1.0 / (ns * m as f64)) as f32;
        let negative = |r: i64| mi * ns as f32 * clip(2.0 * (r as f32 * nf) - 1.0, -1.0, 0.0);
        let mut v = Vec::new();
        let ns = ns as f32 as f64;
        for k in 0..=m {
            // The p that round (half to even) to k: [k − ½, k + ½] ∩ [0, m], each end only
            // if it rounds to k itself. ns·p rounds to every r between the ends' roundings
            // (an excluded end counts as its limit from inside).
            let kf = k as f64;
            let (lo, hi) = ((kf - 0.5).max(0.0), (kf + 0.5).min(m as f64));
            let lo_in = k == 0 || (kf - 0.5).round_ties_even() == kf;
            let hi_in = k == m || (kf + 0.5).round_ties_even() == kf;
            let r_lo = if lo_in { (lo * ns).round_ties_even() } else { (lo * ns + 0.5).floor() };
            let r_hi = if hi_in { (hi * ns).round_ties_even() } else { (hi * ns - 0.5).ceil() };
            v.extend((r_lo as i64..=r_hi as i64).map(|r| sigmoid_code(k) + negative(r)));
        }
        v
    }
}

quantizer! {
    /// Quantized tanh: `tanh_h` is the hard tanh `2·hard_sigmoid(x) − 1` (gradient 1 on |x| ≤ 1),
    /// or the real tanh with use_real_tanh; sym = symmetric.
    pub struct QuantizedTanh: QKeras "quantized_tanh" {
        summary: "quantized (hard) tanh in [−1, 1)",
        forward: "q(x) = clip(round(m·tanh_h(x))/m, −1+sym/m, 1−1/m),  m = 2^(bits−1)",
        backward: "∂q/∂x = tanh_h'(x) inside the clip range, else 0",
        figure: {
            args: "bits=3",
            x: (-2.0, 2.0),
            why: "3 bits: 8 levels of 0.25 on the hard tanh, and the gradient 0 where it clips",
        },
        /// Total bits, sign included.
        bits: i32 = 8, BITS;
        /// Stochastic rounding (to half steps) in training.
        use_stochastic_rounding: bool = false, Kind::Bool;
        /// Drop the code −1 so the range is symmetric.
        symmetric: bool = false, Kind::Bool;
        /// Use the real tanh instead of the hard one.
        use_real_tanh: bool = false, Kind::Bool;
    }
}

/// The bounded function a quantized tanh/sigmoid rounds, and its derivative.
#[derive(Clone, Copy)]
enum Squash {
    HardTanh,
    Tanh,
    HardSigmoid,
    Sigmoid,
}

impl Squash {
    #[inline(always)]
    fn eval<V: Lane>(self, v: V) -> (V, V) {
        let one = V::splat(1.0);
        match self {
            Squash::HardTanh => {
                let (s, ds) = sigmoid_q(v);
                (V::splat(2.0) * s - one, V::splat(2.0) * ds)
            }
            Squash::Tanh => {
                let t = lane::tanh(v);
                (t, one - t * t)
            }
            Squash::HardSigmoid => sigmoid_q(v),
            Squash::Sigmoid => {
                let s = lane::sigmoid(v);
                (s, s * (one - s))
            }
        }
    }
}

/// `clip(round(m·p(x))/m, lo, hi)` with gradient `p'(x)` inside the clip range.
struct SquashOp {
    squash: Squash,
    m: f32,
    lo: f32,
    hi: f32,
}

impl SquashOp {
    /// Output and gradient given `(p, p')` and the rounded `m·p`.
    /// m is a power of two (at most 2^32) and `rounded` an integer, 0, ±inf or NaN: ÷ m is
    /// × its exact reciprocal (no quotient is subnormal).
    #[inline(always)]
    fn finish<V: Lane>(&self, dp: V, rounded: V) -> (V, V) {
        let (y, r) = self.clipped(rounded);
        // r within [lo, hi] (NaN outside) is the clip leaving it unchanged: lo ≤ hi.
        (y, dp * V::select(y.eq(r), V::splat(1.0), V::splat(0.0)))
    }

    /// `(clip(r, lo, hi), r)` for `r = rounded/m`.
    #[inline(always)]
    fn clipped<V: Lane>(&self, rounded: V) -> (V, V) {
        let r = rounded * V::splat(1.0 / self.m);
        (lane::clip(r, V::splat(self.lo), V::splat(self.hi)), r)
    }

    /// The hard squashes (`TANH`: hard tanh, else hard sigmoid) from one scaled clip, the same
    /// bits as [`Squash::eval`] then [`SquashOp::finish`] (kept as the test oracle). With
    /// `v = x/2 + ½` and a power of two `m` (the sigmoid's `m ≥ 2`), `2m·v` is `m·x + m` and
    /// `m·v` is `(m/2)·x + m/2`, both exactly (scaling by a power of two commutes with rounding
    /// and with the clip; where `v`'s `x/2` rounds, x is subnormal and both sums are exact
    /// constants). So `m·(2·clip(v, 0, 1) − 1)` is `clip(m·x + m, 0, 2m) − m` and `m·clip(v, 0, 1)`
    /// is `clip((m/2)·x + m/2, 0, m)`. The slope (1, ½) passes where both clips leave their
    /// arguments unchanged (`0 ≤ v ≤ 1`, and r within [lo, hi]; NaN fails both).
    #[inline(always)]
    fn hard<V: Lane, const TANH: bool>(&self, x: V) -> (V, V) {
        let m = self.m;
        let (a, top) = if TANH { (m, 2.0 * m) } else { (0.5 * m, m) };
        let w = x * V::splat(a) + V::splat(a);
        let c = lane::clip(w, V::splat(0.0), V::splat(top));
        let p = if TANH { c - V::splat(m) } else { c };
        let (y, r) = self.clipped(p.nearest());
        let slope = V::splat(if TANH { 1.0 } else { 0.5 });
        (y, V::select(c.eq(w) & y.eq(r), slope, V::splat(0.0)))
    }

    /// Runs over a slice; stochastic rounding (to half steps) draws per element.
    fn run(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, stochastic: bool, rng: &mut Stream) {
        if stochastic {
            elementwise(x, y, dydx, |v| {
                let (p, dp) = self.squash.eval(v);
                self.finish(dp, round_through(p * self.m, true, rng))
            });
        } else {
            // One loop per squash, chosen once: no `match` per element.
            match self.squash {
                Squash::HardTanh => simd::run(&Fixed::<0>(self), x, y, dydx),
                Squash::Tanh => simd::run(&Fixed::<1>(self), x, y, dydx),
                Squash::HardSigmoid => simd::run(&Fixed::<2>(self), x, y, dydx),
                Squash::Sigmoid => simd::run(&Fixed::<3>(self), x, y, dydx),
            }
        }
    }
}

/// A [`SquashOp`] whose squash is fixed at compile time (`S` in [`Squash`] order), so the
/// per-element `match` folds away.
struct Fixed<'a, const S: u8>(&'a SquashOp);

impl<const S: u8> Op for Fixed<'_, S> {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        let squash = match S {
            0 => return self.0.hard::<V, true>(x),
            1 => Squash::Tanh,
            2 => return self.0.hard::<V, false>(x),
            _ => Squash::Sigmoid,
        };
        let (p, dp) = squash.eval(x);
        self.0.finish(dp, (p * V::splat(self.0.m)).nearest())
    }
}

impl Kernel for QuantizedTanh {
    fn is_stochastic(&self, training: bool) -> bool {
        training && self.use_stochastic_rounding
    }

    fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, ctx: &mut Ctx) -> Report {
        let m = pow2i(self.bits - 1);
        let squash = if self.use_real_tanh { Squash::Tanh } else { Squash::HardTanh };
        let op = SquashOp { squash, m, lo: -1.0 + self.symmetric as i32 as f32 / m, hi: 1.0 - 1.0 / m };
        op.run(x, y, dydx, self.is_stochastic(ctx.training), &mut ctx.rng);
        Report::default()
    }

    fn levels(&self, report: &Report) -> Levels {
        let m = pow2i(self.bits - 1) as i64;
        let h = 1 + report.stochastic as i64; // stochastic rounding: half steps
        Levels::codes(h * (-m + self.symmetric as i64), h * (m - 1), 1.0 / (h * m) as f32)
    }
}

quantizer! {
    /// Quantized sigmoid: σ_h is the hard sigmoid `clip(x/2 + ½, 0, 1)` (gradient ½ on |x| ≤ 1),
    /// or the real one with use_real_sigmoid; sym = symmetric.
    pub struct QuantizedSigmoid: QKeras "quantized_sigmoid" {
        summary: "quantized (hard) sigmoid in [0, 1)",
        forward: "q(x) = clip(round(m·σ_h(x))/m, sym/m, 1−1/m),  m = 2^bits",
        backward: "∂q/∂x = σ_h'(x) inside the clip range, else 0",
        figure: {
            args: "bits=3",
            x: (-2.0, 2.0),
            why: "3 bits: 8 levels of 1/8 on the hard sigmoid, and the gradient 0 where it clips",
        },
        /// Total bits.
        bits: i32 = 8, BITS;
        /// Drop the code 0 so the range is symmetric about ½.
        symmetric: bool = false, Kind::Bool;
        /// Use the real sigmoid instead of the hard one.
        use_real_sigmoid: bool = false, Kind::Bool;
        /// Stochastic rounding (to half steps) in training.
        use_stochastic_rounding: bool = false, Kind::Bool;
    }
}

impl Kernel for QuantizedSigmoid {
    fn is_stochastic(&self, training: bool) -> bool {
        training && self.use_stochastic_rounding
    }

    fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, ctx: &mut Ctx) -> Report {
        let m = pow2i(self.bits);
        let squash = if self.use_real_sigmoid { Squash::Sigmoid } else { Squash::HardSigmoid };
        let op = SquashOp { squash, m, lo: self.symmetric as i32 as f32 / m, hi: 1.0 - 1.0 / m };
        op.run(x, y, dydx, self.is_stochastic(ctx.training), &mut ctx.rng);
        Report::default()
    }

    fn levels(&self, report: &Report) -> Levels {
        let m = pow2i(self.bits) as i64;
        let h = 1 + report.stochastic as i64; // stochastic rounding: half steps
        Levels::codes(h * self.symmetric as i64, h * (m - 1), 1.0 / (h * m) as f32)
    }
}

elementwise_facts! { QuantizedRelu ["use_variables"], QuantizedTanh, QuantizedSigmoid }

#[cfg(test)]
mod tests;
