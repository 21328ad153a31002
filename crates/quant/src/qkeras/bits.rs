//! Fixed-point quantizers: `quantized_bits`, `quantized_linear`.

use super::super::lane::{self, Lane};
use super::super::random::{DrawOp, run_drawn};
use super::super::round::{max_abs, pow2i, rhe, stochastic_round};
use super::super::schema::{Alpha, Kind, Opaque, quantizer};
use super::super::simd::{self, Op};
use super::super::{Ctx, Kernel, Levels, Report, elementwise};
use super::{integer_fits, least_squares_scale, one_minus, only_with_auto_po2, po2_round};
use crate::Layout;
use crate::{Facts, Frozen, Quantizer};

mod auto;
use auto::exact_reciprocal;
#[cfg(test)]
use auto::{Step, auto_code, finite_step};

pub(super) const BITS: Kind = Kind::Int { min: 1, max: 32 };
pub(super) const INTEGER: Kind = Kind::Int { min: 0, max: 32 };
/// `quantized_bits`' integer bits: QKeras accepts more than `bits` (its own test_quantized_bits
/// has `quantized_bits(8, 100, 1, True)`: a step of 2^100/128), up to where 2^integer is still a
/// finite float32.
const BITS_INTEGER: Kind = Kind::Int { min: 0, max: 127 };
pub(super) const QNOISE: Kind = Kind::Float { min: 0.0, max: 1.0, log: false };
const PO2_EXP: Kind = Kind::OptInt { min: -126, max: 127 };

quantizer! {
    /// QKeras' legacy fixed-point quantizer: α = alpha (1 if None), sym = symmetric, and without
    /// keep_negative the lowest code is 0. With one unsigned bit left (`bits=1`),
    /// `q(x) = α·sign(x)` with `sign(0) = +1`. `alpha='auto'` picks the per-channel step that
    /// maps the largest |x| onto the top code (half-away rounding); `'auto_po2'` refines a
    /// power-of-two step by least squares.
    ///
    /// The straight-through `x + stop_gradient(q(x) − x)` passes the gradient **unchanged
    /// everywhere** (no saturation mask).
    pub struct QuantizedBits: QKeras "quantized_bits" {
        summary: "fixed-point quantizer: bits, integer bits, sign; identity STE everywhere",
        forward: "q(x) = α·Δ·clip(round(x/Δ), −m+sym, m−1),  Δ = 2^integer / m,  m = 2^(bits−keep_negative)",
        backward: "∂q/∂x = 1 everywhere (use_ste);  1 − qnoise_factor (use_ste=False)",
        figure: {
            args: "bits=3, integer=0, alpha=1",
            x: (-1.5, 1.5),
            why: "3 bits, none of them integer: 8 codes of 0.25 from −1 to 0.75, so every step, the one-sided clip \
                  and the gradient of 1 beyond it show (the default 8 bits draws a plain line at this scale)",
        },
        /// Total bits, sign included.
        bits: i32 = 8, BITS;
        /// Bits left of the binary point (sign excluded).
        integer: i32 = 0, BITS_INTEGER;
        /// Drop the most negative code so the range is symmetric.
        symmetric: bool = false, Kind::Bool;
        /// Allow negative outputs (a sign bit).
        keep_negative: bool = true, Kind::Bool;
        /// Scale: None (1), a number, 'auto' or 'auto_po2' (data-dependent, forces symmetric).
        alpha: Alpha = Alpha::None, Kind::Alpha;
        /// Stochastic rounding in training.
        use_stochastic_rounding: bool = false, Kind::Bool;
        /// Axes of per-channel statistics (a 1-D tensor is one channel).
        scale_axis: Opaque = Opaque::default(), Kind::Axis;
        /// Blend of quantized and float output, 0 (float) to 1 (quantized).
        qnoise_factor: f64 = 1.0, QNOISE;
        /// Variable name (no effect).
        var_name: Opaque = Opaque::default(), Kind::Text;
        /// Straight-through estimator; False gives gradient 1 − qnoise_factor.
        use_ste: bool = true, Kind::Bool;
        /// Keep parameters in tf.Variables (no effect).
        use_variables: bool = false, Kind::Bool;
        /// Elements sharing one scale (auto_po2 only; no effect on one channel).
        elements_per_scale: Opaque = Opaque::default(), Kind::Axis;
        /// Smallest power-of-two exponent of the scale (auto_po2 only).
        min_po2_exponent: Option<i32> = None, PO2_EXP;
        /// Largest power-of-two exponent of the scale (auto_po2 only).
        max_po2_exponent: Option<i32> = None, PO2_EXP;
        /// Frozen scale from post-training quantization (string alpha only).
        post_training_scale: Option<f64> = None, Kind::OptFloat { min: 1e-30, max: 1e30 };
    }
}

impl QuantizedBits {
    fn kn(&self) -> i32 {
        self.keep_negative as i32
    }
}

/// quantized_bits with a fixed scale: codes, scale, and QKeras' STE combination.
///
/// `PLAIN` fixes the flags at their usual values at compile time — two or more bits, alpha 1,
/// the STE, qnoise_factor 1 ([`BitsOp::plain`]) — where a runtime flag would leave LLVM computing
/// every arm per element and selecting one (it if-converts these branches, it does not unswitch
/// the loop on them).
pub struct BitsOp<const PLAIN: bool = false> {
    /// alpha (1 for None).
    pub a: f32,
    /// `m / 2^integer`: x·m/mi as one exact power-of-two product.
    pub up: f32,
    /// `2^integer / m`, the step Δ.
    pub down: f32,
    /// Smallest and largest code.
    pub lo: f32,
    pub hi: f32,
    /// No bit left after the sign: `a·sign(x)`.
    pub one_bit: bool,
    q: f32,
    one_minus_q: f32,
    use_ste: bool,
}

impl<const PLAIN: bool> BitsOp<PLAIN> {
    /// Output and gradient for input `x` whose scaled value `x·m/mi` rounded to `r`.
    #[inline(always)]
    fn with_code<V: Lane>(&self, x: V, r: V) -> (V, V) {
        // The flags, constants where PLAIN says what they are.
        let (one_bit, scaled) = (!PLAIN && self.one_bit, !PLAIN && self.a != 1.0);
        let (use_ste, q) = (PLAIN || self.use_ste, if PLAIN { 1.0 } else { self.q });
        let a = V::splat(self.a);
        // QKeras computes m_i·clip(…)/m; with powers of two that is exactly clip(…)·Δ.
        let xq = if one_bit {
            a * lane::sgn_plus(x)
        } else {
            let v = lane::clip(r, V::splat(self.lo), V::splat(self.hi)) * V::splat(self.down);
            if scaled { a * v } else { v }
        };
        if use_ste {
            (lane::ste_blend(x, xq, q), V::splat(1.0))
        } else {
            (lane::no_ste_blend(x, xq, q, self.one_minus_q), V::splat(self.one_minus_q))
        }
    }

    /// The constant gradient of [`Op::eval`]: 1 with the STE, else `1 − q`.
    pub(crate) fn grad(&self) -> f32 {
        if PLAIN || self.use_ste { 1.0 } else { self.one_minus_q }
    }
}

impl BitsOp {
    /// This op as `BitsOp<true>` where its flags are the plain ones: the same arithmetic without
    /// the arms they rule out.
    pub(crate) fn plain(&self) -> Option<BitsOp<true>> {
        let plain = !self.one_bit && self.a == 1.0 && self.use_ste && self.q == 1.0;
        let (a, up, down, lo, hi, one_bit) = (self.a, self.up, self.down, self.lo, self.hi, self.one_bit);
        let (q, one_minus_q, use_ste) = (self.q, self.one_minus_q, self.use_ste);
        plain.then_some(BitsOp { a, up, down, lo, hi, one_bit, q, one_minus_q, use_ste })
    }

    /// [`simd::run`] of this op, through [`BitsOp::plain`] where it applies.
    pub(crate) fn run(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>) {
        match self.plain() {
            Some(p) => simd::run(&p, x, y, dydx),
            None => simd::run(self, x, y, dydx),
        }
    }
}

impl<const PLAIN: bool> Op for BitsOp<PLAIN> {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        // x·m/m_i in QKeras: the same bits as x·(m/m_i) once clipped (powers of two).
        self.with_code(x, (x * V::splat(self.up)).nearest())
    }
}

impl DrawOp for BitsOp {
    const DRAWS: usize = 1;
    /// Training with stochastic rounding: the code rounded at random.
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V, u: V, _: V) -> (V, V) {
        self.with_code(x, stochastic_round(x * V::splat(self.up), 1.0, u))
    }
}

impl QuantizedBits {
    /// The fixed-scale kernel (alpha None or a number).
    pub fn op(&self) -> BitsOp {
        let kn = self.kn();
        let m = pow2i(self.bits - kn);
        BitsOp {
            a: if let Alpha::Value(a) = self.alpha { a as f32 } else { 1.0 },
            up: m / pow2i(self.integer),
            down: pow2i(self.integer) / m,
            lo: kn as f32 * (-m + self.symmetric as i32 as f32),
            hi: m - 1.0,
            one_bit: self.bits - kn <= 0,
            q: self.qnoise_factor as f32,
            one_minus_q: one_minus(self.qnoise_factor),
            use_ste: self.use_ste,
        }
    }
}

impl Kernel for QuantizedBits {
    fn validate(&self) -> Result<(), (&'static str, String)> {
        // QKeras takes any integer; 'auto' and 'auto_po2' are checked against it within the word.
        if self.alpha.is_auto() {
            integer_fits(self.integer, self.bits)?;
        }
        let epso = self.elements_per_scale.0 != crate::Literal::None;
        only_with_auto_po2(self.alpha, epso, "elements_per_scale")?;
        only_with_auto_po2(self.alpha, self.min_po2_exponent.is_some(), "min_po2_exponent")?;
        only_with_auto_po2(self.alpha, self.max_po2_exponent.is_some(), "max_po2_exponent")?;
        if self.alpha.is_auto() && self.bits < 2 {
            return Err(("bits", "alpha='auto' needs bits ≥ 2 (one bit leaves no non-zero symmetric code)".into()));
        }
        if self.post_training_scale.is_some() && !self.alpha.is_auto() {
            return Err(("post_training_scale", "needs alpha='auto' or 'auto_po2'".into()));
        }
        Ok(())
    }

    fn is_stochastic(&self, training: bool) -> bool {
        training && self.use_stochastic_rounding && !self.alpha.is_auto() && self.bits > self.kn()
    }

    fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, ctx: &mut Ctx) -> Report {
        if self.alpha.is_auto() {
            return self.apply_auto(x, y, dydx);
        }
        let op = self.op();
        if self.is_stochastic(ctx.training) {
            run_drawn(&op, x, y, dydx, &mut ctx.rng);
        } else {
            op.run(x, y, dydx);
        }
        Report { scale: Some(op.a), ..Report::default() }
    }

    fn levels(&self, report: &Report) -> Levels {
        if self.qnoise_factor != 1.0 {
            return Levels::Continuous;
        }
        let kn = self.kn();
        let m = pow2i(self.bits - kn);
        let mi = pow2i(self.integer);
        let a = report.scale.unwrap_or(1.0);
        if self.alpha.is_auto() {
            let top = (1i64 << (self.bits - 1)) - 1;
            return Levels::codes(-top, top, a / m * mi);
        }
        if self.bits - kn > 0 {
            let lo = if self.keep_negative { -(m as i64) + self.symmetric as i64 } else { 0 };
            Levels::codes(lo, m as i64 - 1, a * mi / m)
        } else {
            Levels::set(vec![-a, a])
        }
    }
}

quantizer! {
    /// QKeras' newer linear quantizer, with a clipped straight-through estimator. qs comes from
    /// the sample for 'auto'/'auto_po2'; `[lo, hi]` are the codes, and with `bits=1` and
    /// keep_negative they are ±½ (a sign function, `0 ↦ +qs/2`). The output is
    /// `x + qnoise_factor·(q(x) − x)`, so the gradient is
    /// `(1 − qnoise_factor) + qnoise_factor·1[lo ≤ x/qs ≤ hi]`, both ends inclusive.
    pub struct QuantizedLinear: QKeras "quantized_linear" {
        summary: "linear fixed-point quantizer with a clipped STE (newer QKeras)",
        forward: "q(x) = qs·round(clip(x/qs, lo, hi)),  qs = α·2^(integer−bits+keep_negative)",
        backward: "∂q/∂x = 1 on lo ≤ x/qs ≤ hi, else 0 (scaled by qnoise_factor)",
        figure: {
            args: "bits=3",
            x: (-1.5, 1.5),
            why: "3 bits, symmetric: 7 codes of 0.25 from −0.75 to 0.75, and the clipped STE's gradient falling to 0 \
                  beyond them",
        },
        /// Total bits, sign included.
        bits: i32 = 8, BITS;
        /// Bits left of the binary point (sign excluded).
        integer: i32 = 0, INTEGER;
        /// Drop the most negative code so the range is symmetric.
        symmetric: bool = true, Kind::Bool;
        /// Allow negative outputs (a sign bit).
        keep_negative: bool = true, Kind::Bool;
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
    }
}

impl QuantizedLinear {
    fn sign_mode(&self) -> bool {
        self.bits == 1 && self.keep_negative
    }

    /// Clip bounds of the scaled value.
    fn bounds(&self) -> (f32, f32) {
        if self.sign_mode() {
            return (-0.5, 0.5);
        }
        let u = pow2i(self.bits - self.keep_negative as i32);
        let lo = if self.keep_negative { -u + self.symmetric as i32 as f32 } else { 0.0 };
        (lo, u - 1.0)
    }

    /// `2^(integer − bits + keep_negative)`, the step before alpha.
    pub fn data_type_scale(&self) -> f32 {
        pow2i(self.integer - self.bits + self.keep_negative as i32)
    }

    /// The scaled, clipped, rounded code of `v` (`_scale_clip_and_round`).
    #[inline(always)]
    fn code(&self, v: f32, qs: f32, stochastic: bool, rng: &mut crate::random::Stream) -> f32 {
        let op = self.op(qs);
        let c = op.pre(v);
        (if stochastic { stochastic_round(c, 1.0, rng.uniform()) } else { rhe(c) }) + op.shift
    }

    /// The kernel for the scale `qs`.
    pub fn op(&self, qs: f32) -> LinearOp {
        let (lo, hi) = self.bounds();
        let shift = if self.sign_mode() { 0.5 } else { 0.0 };
        LinearOp { qs, inv_qs: exact_reciprocal(qs).unwrap_or(f32::NAN), lo, hi, shift, q: self.qnoise_factor as f32 }
    }

    /// 'auto': the smallest scale that does not clip the channel's max; 'auto_po2': its
    /// power of two refined by least squares until it stops changing (at most 5 rounds).
    fn auto_scale(&self, x: &[f32], stochastic: bool, ctx: &mut Ctx) -> f32 {
        let (lo, hi) = self.bounds();
        let range = hi - lo;
        let data_max = if self.keep_negative {
            max_abs(x) * 2.0
        } else {
            x.iter().fold(f32::NEG_INFINITY, |m, &v| if v > m || v.is_nan() { v } else { m })
        };
        let qs = (data_max / range).max(crate::round::EPS);
        if self.alpha != Alpha::AutoPo2 {
            return qs;
        }
        let mut cur = po2_round(qs);
        let mut last = -1.0f32;
        let mut k = vec![0.0f32; x.len()];
        for _ in 0..if self.sign_mode() { 1 } else { 5 } {
            if last == cur {
                break;
            }
            k.iter_mut().zip(x).for_each(|(ki, &v)| *ki = self.code(v, cur, stochastic, &mut ctx.rng));
            last = cur;
            cur = least_squares_scale(Alpha::AutoPo2, x, &k, None, None);
        }
        cur
    }
}

/// quantized_linear for a given scale: clip, round, and the clipped STE. `PLAIN` fixes at
/// compile time what [`LinearOp::plain`] checks — a power-of-two scale up to 2^21 with a normal
/// reciprocal, no sign-mode shift, qnoise_factor 1 — so `x/qs` is `x·(1/qs)` (the same bits)
/// and no flag leaves LLVM computing both arms per element.
pub struct LinearOp<const PLAIN: bool = false> {
    qs: f32,
    /// [`exact_reciprocal`] of qs, NaN where it has none.
    inv_qs: f32,
    /// Clip bounds of x/qs.
    pub lo: f32,
    pub hi: f32,
    /// ½ in sign mode (bits=1 with keep_negative: codes ±½), else 0.
    pub shift: f32,
    q: f32,
}

impl LinearOp {
    /// This op as `LinearOp<true>` where its scale and flags allow (a scale of at most 2^21).
    pub(crate) fn plain(&self) -> Option<LinearOp<true>> {
        let plain = !self.inv_qs.is_nan() && self.qs <= 2_097_152.0 && self.shift == 0.0 && self.q == 1.0;
        let (qs, inv_qs, lo, hi, shift, q) = (self.qs, self.inv_qs, self.lo, self.hi, self.shift, self.q);
        plain.then_some(LinearOp { qs, inv_qs, lo, hi, shift, q })
    }
}

impl<const PLAIN: bool> LinearOp<PLAIN> {
    /// `x/qs` (as `x·(1/qs)` where PLAIN says that is exact).
    #[inline(always)]
    fn scaled<V: Lane>(&self, x: V) -> V {
        if PLAIN { x * V::splat(self.inv_qs) } else { x / V::splat(self.qs) }
    }

    /// The scaled, clipped (and, in sign mode, shifted) value that gets rounded.
    #[inline(always)]
    fn pre<V: Lane>(&self, x: V) -> V {
        let c = lane::clip(self.scaled(x), V::splat(self.lo), V::splat(self.hi));
        if PLAIN { c } else { c - V::splat(self.shift) }
    }

    /// Output and gradient given the rounded `r` of `pre(x)`. The output is
    /// `x + q·(xq − x)` (no stop-gradient), so the gradient is `(1 − q) + q·1[lo ≤ x/qs ≤ hi]`.
    #[inline(always)]
    fn post<V: Lane>(&self, x: V, r: V) -> (V, V) {
        let (qs, q) = (V::splat(self.qs), if PLAIN { 1.0 } else { self.q });
        // + shift also when it is 0: it turns a −0 code into +0.
        let xq = (r + V::splat(self.shift)) * qs;
        let pass = (V::splat(q) * qs) / qs * lane::inside(self.scaled(x), V::splat(self.lo), V::splat(self.hi));
        (lane::ste_blend(x, xq, q), V::splat(1.0 - q) + pass)
    }
}

impl<const PLAIN: bool> Op for LinearOp<PLAIN> {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        if PLAIN {
            // `post` with its constants folded: the shift of 0 only turns a −0 code into +0, which
            // `x + (xq − x)` does too, and the far branch (|x| > 2^20, so |u| > ½ as qs ≤ 2^21)
            // never sees a −0 code; the gradient `0 + (qs/qs)·1[lo ≤ u ≤ hi]` is the mask, and u within
            // [lo, hi] (NaN outside) is the clip leaving it unchanged.
            let u = self.scaled(x);
            let c = lane::clip(u, V::splat(self.lo), V::splat(self.hi));
            let xq = c.nearest() * V::splat(self.qs);
            return (lane::ste_blend(x, xq, 1.0), V::select(c.eq(u), V::splat(1.0), V::splat(0.0)));
        }
        self.post(x, self.pre(x).nearest())
    }
}

impl Kernel for QuantizedLinear {
    fn validate(&self) -> Result<(), (&'static str, String)> {
        integer_fits(self.integer, self.bits)
    }

    fn is_stochastic(&self, training: bool) -> bool {
        training && self.use_stochastic_rounding
    }

    fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, ctx: &mut Ctx) -> Report {
        let stochastic = self.is_stochastic(ctx.training);
        let dts = self.data_type_scale();
        let qs = match self.alpha {
            Alpha::None => dts,
            Alpha::Value(a) => a as f32 * dts,
            Alpha::Auto | Alpha::AutoPo2 => self.auto_scale(x, stochastic, ctx),
        };
        let op = self.op(qs);
        if stochastic {
            let rng = &mut ctx.rng;
            elementwise(x, y, dydx, |v| op.post(v, stochastic_round(op.pre(v), 1.0, rng.uniform())));
        } else if let Some(plain) = op.plain() {
            simd::run(&plain, x, y, dydx);
        } else {
            simd::run(&op, x, y, dydx);
        }
        Report { scale: Some(qs / dts), ..Report::default() }
    }

    fn levels(&self, report: &Report) -> Levels {
        if self.qnoise_factor != 1.0 {
            return Levels::Continuous;
        }
        let qs = report.scale.unwrap_or(1.0) * self.data_type_scale();
        if self.sign_mode() {
            return Levels::set(vec![-qs / 2.0, qs / 2.0]);
        }
        let (lo, hi) = self.bounds();
        Levels::codes(lo as i64, hi as i64, qs)
    }
}

impl Facts for QuantizedBits {
    fn scale_axis(&self) -> Option<i64> {
        self.scale_axis.int()
    }

    fn layout(&self) -> Layout {
        if self.alpha.is_auto() && self.post_training_scale.is_none() { Layout::Channels } else { Layout::Elementwise }
    }

    /// 'auto'/'auto_po2' without a post_training_scale freezes to that scale (QKeras:
    /// `s = post_training_scale / m`, and the report's scale is s·m, m a power of two).
    fn freeze(&self, report: &Report) -> Option<Frozen> {
        (self.alpha.is_auto() && self.post_training_scale.is_none()).then(|| {
            let post_training_scale = Some(report.scale.unwrap_or(f32::NAN) as f64);
            Frozen::Library(Quantizer::QuantizedBits(QuantizedBits { post_training_scale, ..self.clone() }))
        })
    }

    fn inert(&self) -> Vec<&'static str> {
        vec!["use_variables"]
    }
}

impl Facts for QuantizedLinear {
    fn scale_axis(&self) -> Option<i64> {
        self.scale_axis.int()
    }

    fn layout(&self) -> Layout {
        if self.alpha.is_auto() { Layout::Channels } else { Layout::Elementwise }
    }

    /// 'auto'/'auto_po2' freezes to a fixed alpha: the report's scale is
    /// `qs / data_type_scale`, and `alpha·data_type_scale` gives qs back.
    fn freeze(&self, report: &Report) -> Option<Frozen> {
        self.alpha.is_auto().then(|| {
            let alpha = Alpha::Value(report.scale.unwrap_or(f32::NAN) as f64);
            Frozen::Library(Quantizer::QuantizedLinear(QuantizedLinear { alpha, ..self.clone() }))
        })
    }

    fn inert(&self) -> Vec<&'static str> {
        vec!["use_variables"]
    }
}

#[cfg(test)]
mod tests;
