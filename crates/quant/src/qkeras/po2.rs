//! Power-of-two quantizers: `quantized_po2`, `quantized_relu_po2`.

use super::super::lane::{self, Lane};
use super::super::random::Stream;
use super::super::round::{EPS, no_ste_blend, sgn_plus, ste_blend};
use super::super::schema::{Kind, Opaque, choice, quantizer};
use super::super::simd::Op;
use super::super::{Ctx, Kernel, Levels, Report, elementwise};
use super::{LN2, one_minus};
use crate::elementwise_facts;
use lean::{Lean, LeanPo2, LeanReluPo2};
use std::sync::OnceLock;

mod lean;

choice! {
    /// How the log2 of |x| becomes an exponent.
    Log2Rounding { Rnd = "rnd", Floor = "floor" }
}

const BITS: Kind = Kind::Int { min: 1, max: 16 };
const MAX_VALUE: Kind = Kind::OptFloat { min: 0.0, max: 1e30 };
const QNOISE: Kind = Kind::Float { min: 0.0, max: 1.0, log: false };

/// `2^e` for the exponents QKeras produces (integers, or ±½ in the degenerate 1-bit case);
/// below 2^−126 the result is 0, as TensorFlow flushes subnormals.
#[inline(always)]
fn exp2(e: f32) -> f32 {
    if e.fract() == 0.0 { e.pow2() } else { e.exp2() }
}

/// The mantissas between which, in every binade, TensorFlow's float32 `round(log(t)/ln 2)`
/// moves from the binade's exponent to the next (near √2; where exactly differs by binade,
/// as `log` adds the exponent's `e·ln 2` in float32): the smallest and largest first mantissa
/// of the next exponent, over all 254 binades (the test below checks every binade).
const SWITCH_LO: f32 = f32::from_bits(0x3fb5_04be);
const SWITCH_HI: f32 = f32::from_bits(0x3fb5_0529);

/// `round(log(t)/ln 2)` with TensorFlow's float32 `log`, as a step function: the exponent
/// bits, plus one where the mantissa is past the switch. A vector with a mantissa within
/// [`SWITCH_LO`, `SWITCH_HI`) (about 2^−17 of inputs) takes the logarithm itself. Zero and
/// subnormals give −inf, as `log` flushes them; +inf gives 128 (not inf: both clip alike).
#[inline(always)]
pub fn round_log2<V: Lane>(t: V) -> V {
    let m = t.mantissa();
    if V::any(m.ge(V::splat(SWITCH_LO)) & m.lt(V::splat(SWITCH_HI))) {
        return round_log2_reference(t);
    }
    let e = t.exponent() + V::select(m.ge(V::splat(SWITCH_HI)), V::splat(1.0), V::splat(0.0));
    V::select(t.lt(V::splat(f32::MIN_POSITIVE)), V::splat(f32::NEG_INFINITY), e)
}

/// Per binade `e` ∈ [−126, 127], the first mantissa (its 23 bits) from which
/// [`round_log2_reference`] gives `e + 1` rather than `e` (one step within the window; the
/// tests check every mantissa of it), found once by bisection.
fn switches() -> &'static [u32; 254] {
    static SWITCHES: OnceLock<[u32; 254]> = OnceLock::new();
    SWITCHES.get_or_init(|| {
        std::array::from_fn(|i| {
            let e = i as i32 - 126;
            let t = |b: u32| f32::from_bits(((e + 127) as u32) << 23 | b);
            let (mut lo, mut hi) = (SWITCH_LO.to_bits() & 0x7f_ffff, SWITCH_HI.to_bits() & 0x7f_ffff);
            while lo < hi {
                let mid = (lo + hi) / 2;
                if round_log2_reference(t(mid)) > e as f32 { hi = mid } else { lo = mid + 1 }
            }
            lo
        })
    })
}

/// `2^round(log(t)/ln 2)`, clipped, as integer operations on t's bits: t plus a constant
/// carries the mantissas past a switch into the exponent, and the exponent bits alone are the
/// power of two ([`Lane::iadd`], [`Lane::binade`]).
/// `2^−23`, the power of two that ε = 1e−7 rounds to (and so everything below ε, at most).
const TINY: f32 = 1.0 / 8_388_608.0;

#[derive(Clone, Copy)]
struct Carry {
    /// Carries from the latest switch of the binades whose switch shows after the clip.
    late: f32,
    /// From the earliest, when those binades switch at different mantissas: where the two
    /// disagree a lane lies between switches, and its vector takes the logarithm.
    early: Option<f32>,
    /// `2^min_exp` and `2^max_exp` (0 and +inf beyond float32).
    lo: f32,
    hi: f32,
}

impl Carry {
    /// For exponents clipped to `[min_exp, max_exp]` (integers) of `t = min(|x|, max_value)`
    /// with `|x| ≥ ε`; None when max_value is subnormal (t's rounding would not reach the clip).
    fn new(min_exp: f32, max_exp: f32, max_value: Option<f32>) -> Option<Carry> {
        if max_value.is_some_and(|mv| mv < f32::MIN_POSITIVE || mv.is_nan()) {
            return None;
        }
        let binade = |v: f32| ((v.to_bits() >> 23) & 0xff) as i32 - 127;
        let floor = binade(max_value.map_or(EPS, |mv| mv.min(EPS)));
        let top = max_value.map_or(127, binade);
        // A binade's switch shows when its exponent and the next clip apart, and t reaches it.
        let from = floor.max(-126).max(min_exp.max(-127.0) as i32);
        let to = top.min(127).min(max_exp.min(128.0) as i32 - 1);
        let range = switches().get((from + 126) as usize..(to + 127).max(from + 126) as usize).unwrap_or(&[]);
        let carry = |s: u32| f32::from_bits(0x80_0000 - s);
        let (first, last) = (range.iter().min(), range.iter().max());
        Some(Carry {
            late: carry(last.copied().unwrap_or(SWITCH_HI.to_bits() & 0x7f_ffff)),
            early: first.filter(|&f| Some(f) != last).map(|&f| carry(f)),
            lo: min_exp.pow2(),
            hi: max_exp.pow2(),
        })
    }
}

/// `round(log(t)/ln 2)` as QKeras computes it (`tf.math.log`, Eigen's float32 `plog`): the
/// formula [`round_log2`] stands for, and its slow path.
#[inline(always)]
fn round_log2_reference<V: Lane>(t: V) -> V {
    (lane::log(t) / V::splat(LN2)).nearest()
}

/// QKeras `stochastic_round_po2`: a random exponent `e` with `E[2^e] = |x|`.
pub fn stochastic_round_po2(x: f32, rng: &mut Stream) -> f32 {
    po2_drawn(x, rng.uniform())
}

/// `stochastic_round_po2` on lanes, given each element's draw `u` ∈ [0, 1): the exponent
/// `e0 = round(log(|x| + ε)/ln 2)` (TensorFlow's float32 log), the bracket `[lo, lo + 1]`
/// around |x| and `lo` where `|x| < 2^lo + (2^(lo+1) − 2^lo)·u`, else `lo + 1`. The exponents
/// here are integers, +inf or NaN, so [`Lane::pow2`] gives `2^e` (a NaN exponent's 0 where
/// `exp2` gives NaN decides no comparison: both brackets are NaN there). Not inlined: one
/// copy serves the kernel's lanes, and one the quantizers' element-by-element draws.
#[inline(never)]
pub fn po2_drawn<V: Lane>(x: V, u: V) -> V {
    let (y, one) = (x.abs(), V::splat(1.0));
    let e0 = (lane::log(y + V::splat(EPS)) / V::splat(LN2)).nearest();
    let above = e0.pow2().gt(y);
    let (lo, hi) = (V::select(above, e0 - one, e0), V::select(above, e0, e0 + one));
    let (a, b) = (lo.pow2(), hi.pow2());
    V::select(y.lt(a + (b - a) * u), lo, hi)
}

/// The largest exponent `stochastic_round_po2` can return for `y`: its draw at `u = 0`,
/// `lo + 1` whenever `2^lo ≤ y` (even at y = 2^lo, where the draw `v = 2^lo` has probability
/// 2^−24), else `lo`.
fn stochastic_po2_top(y: f32) -> f32 {
    po2_drawn(y, 0.0)
}

/// Exponent range and rounding shared by both po2 quantizers (`_clip_power_of_two`).
pub struct Po2Rule {
    pub min_exp: f32,
    pub max_exp: f32,
    pub max_value: Option<f32>,
    quadratic: bool,
    stochastic: bool,
    floor: bool,
    /// The exact 'rnd' rule on bits (not quadratic).
    carry: Option<Carry>,
}

impl Po2Rule {
    fn new(effect_bits: i32, max_value: Option<f64>, quadratic: bool, log2: Log2Rounding) -> Po2Rule {
        let span = 2f64.powi(effect_bits);
        let min_exp = -span;
        let mut max_exp = span - 1.0;
        if quadratic {
            max_exp = 2.0 * (max_exp / 2.0).floor();
        }
        // Keras' `K.clip(x, lo, hi)` raises `hi` to `lo` when `hi < lo`. Only quantized_po2(1)
        // with quadratic_approximation gets there: bounds ±½, and max_exp 2·⌊−½/2⌋ = −2.
        max_exp = max_exp.max(min_exp);
        let (min_exp, max_exp) = (min_exp as f32, max_exp as f32);
        let integral = min_exp.fract() == 0.0 && max_exp.fract() == 0.0;
        let max_value = max_value.map(|v| v as f32);
        let floor = log2 == Log2Rounding::Floor;
        Po2Rule {
            min_exp,
            max_exp,
            max_value,
            quadratic,
            stochastic: false,
            floor,
            carry: if integral && !quadratic && !floor { Carry::new(min_exp, max_exp, max_value) } else { None },
        }
    }

    /// The exponent for `|x|`, drawing when stochastic; `|x| < ε` takes the smallest.
    #[inline(always)]
    fn exponent(&self, a: f32, rng: &mut Stream) -> f32 {
        if !self.stochastic || a < EPS {
            return self.exponent_rnd(a);
        }
        let t = match self.max_value {
            Some(mv) if a >= mv => mv,
            _ => a,
        };
        let (t, f) = if self.quadratic { (t.sqrt(), 2.0) } else { (t, 1.0) };
        f * lane::clip(stochastic_round_po2(t, rng), self.min_exp, self.max_exp)
    }

    /// Whether the deterministic 'rnd' rule applies (no stochastic draw, integer exponent
    /// bounds); it runs on SIMD lanes.
    fn exact(&self) -> bool {
        !self.floor && !self.stochastic && self.min_exp.fract() == 0.0 && self.max_exp.fract() == 0.0
    }

    /// The deterministic exponent, `round(log(t)/ln 2)` (or `floor`) with TensorFlow's
    /// float32 log, so it switches exactly where TensorFlow does near 2^(k+½);
    /// `|x| < ε` takes the smallest exponent.
    #[inline(always)]
    fn exponent_rnd<V: Lane>(&self, a: V) -> V {
        let t = match self.max_value {
            Some(mv) => V::select(a.ge(V::splat(mv)), V::splat(mv), a),
            None => a,
        };
        let (t, f) = if self.quadratic { (t.sqrt(), 2.0) } else { (t, 1.0) };
        let e0 = if self.floor { (lane::log(t) / V::splat(LN2)).floor() } else { round_log2(t) };
        let e = V::splat(f) * lane::clip(e0, V::splat(self.min_exp), V::splat(self.max_exp));
        V::select(a.lt(V::splat(EPS)), V::splat(self.min_exp), e)
    }

    /// `2^exponent_rnd(a)` (any power of two for NaN: the callers' outputs are NaN there), by
    /// [`Carry`] where it applies, else from the exponent.
    #[inline(always)]
    fn level<V: Lane>(&self, a: V) -> V {
        let Some(c) = self.carry else { return self.exponent_rnd(a).pow2() };
        let t = match self.max_value {
            Some(mv) => V::select(a.ge(V::splat(mv)), V::splat(mv), a),
            None => a,
        };
        let r = t.iadd(V::splat(c.late)).binade();
        if let Some(early) = c.early
            && V::any(t.iadd(V::splat(early)).binade().gt(r))
        {
            return self.exponent_rnd(a).pow2();
        }
        // The bounds where they bind: r is a power of two, 0 or +inf, never NaN.
        let r = if c.lo > 0.0 { r.pmax(V::splat(c.lo)) } else { r };
        let r = if c.hi < f32::INFINITY { r.pmin(V::splat(c.hi)) } else { r };
        // |x| < ε rounds to at most 2^−23: the clip gives 2^min_exp already from there up.
        if c.lo >= TINY { r } else { V::select(a.lt(V::splat(EPS)), V::splat(c.lo), r) }
    }

    /// Every value `2^exponent` can take: the clipped (and, quadratic, doubled) integer
    /// exponents, plus `2^min_exp` for |x| < ε.
    fn levels(&self) -> Vec<f32> {
        let f = if self.quadratic { 2.0 } else { 1.0 };
        let lo = self.min_exp.min(self.max_exp).floor() as i32 - 1;
        let hi = self.min_exp.max(self.max_exp).ceil() as i32 + 1;
        let mut v = vec![exp2(self.min_exp)];
        v.extend((lo..=hi).map(|e| exp2(f * (e as f32).max(self.min_exp).min(self.max_exp))));
        // Every |x| ≥ ε is quantized as min(|x|, max_value) and the exponent rises with it,
        // so nothing lies above the level of max_value itself.
        if self.max_value.is_some() {
            let cap = exp2(self.top_exponent().max(self.min_exp));
            v.retain(|&l| l <= cap);
        }
        v
    }

    /// The exponent of inputs at or above max_value: the rounded one, or when stochastic the
    /// largest draw, which may be one power above it (QKeras clips |x| to max_value before
    /// `stochastic_round_po2`, not after).
    fn top_exponent(&self) -> f32 {
        match self.max_value {
            Some(mv) if self.stochastic => {
                let (t, f) = if self.quadratic { (mv.sqrt(), 2.0) } else { (mv, 1.0) };
                f * lane::clip(stochastic_po2_top(t), self.min_exp, self.max_exp)
            }
            _ => self.exponent_rnd(f32::INFINITY),
        }
    }
}

fn need_sign_bit(max_value: Option<f64>) -> i32 {
    match max_value {
        Some(v) if v <= 1.0 => 0,
        _ => 1,
    }
}

/// quantized_po2 with the exact 'rnd' exponent rule and QKeras' STE combination.
struct Po2Op<'a> {
    rule: &'a Po2Rule,
    q: f32,
    one_minus_q: f32,
    use_ste: bool,
}

impl Op for Po2Op<'_> {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        let xq = lane::sgn_plus(x) * self.rule.level(x.abs());
        if self.use_ste {
            (lane::ste_blend(x, xq, self.q), V::splat(1.0))
        } else {
            (lane::no_ste_blend(x, xq, self.q, self.one_minus_q), V::splat(self.one_minus_q))
        }
    }
}

quantizer! {
    /// Power-of-two quantizer, rounding in the log domain (switch points at 2^(k+½));
    /// `sign(0) = +1` and `|x| < 1e−7 ↦ 2^min_exp`, so the output is never 0.
    /// Exponents: `[−2^eb, 2^eb − 1]` with `eb = bits − 1 − need`, `need = 0` iff
    /// max_value ≤ 1; quadratic_approximation keeps even exponents. The STE is
    /// `x + stop_gradient(q − x)`.
    pub struct QuantizedPo2: QKeras "quantized_po2" {
        summary: "power-of-two quantizer (sign and exponent bits); identity STE",
        forward: "q(x) = sign(x)·2^clip(round(log2|x|), min_exp, max_exp)",
        backward: "∂q/∂x = 1 everywhere (use_ste);  1 − qnoise_factor otherwise",
        figure: {
            args: "bits=4, max_value=1",
            x: (-2.0, 2.0),
            why: "4 bits with max_value 1: powers of two crowding towards 0 and the cap at ±1 inside the range",
        },
        /// Bits for the sign, the exponent and its sign.
        bits: i32 = 8, BITS;
        /// Largest output magnitude (approximate: |x| ≥ max_value is quantized as max_value).
        max_value: Option<f64> = None, MAX_VALUE;
        /// Stochastic rounding of the exponent in training.
        use_stochastic_rounding: bool = false, Kind::Bool;
        /// Round sqrt(|x|) so the exponent is even.
        quadratic_approximation: bool = false, Kind::Bool;
        /// 'rnd' (round half to even) or 'floor' of log2|x|.
        log2_rounding: Log2Rounding = Log2Rounding::Rnd, Kind::Choice(Log2Rounding::CHOICES);
        /// Blend of quantized and float output, 0 (float) to 1 (quantized).
        qnoise_factor: f64 = 1.0, QNOISE;
        /// Variable name (no effect).
        var_name: Opaque = Opaque::default(), Kind::Text;
        /// Straight-through estimator; False gives gradient 1 − qnoise_factor.
        use_ste: bool = true, Kind::Bool;
        /// Keep parameters in tf.Variables (no effect).
        use_variables: bool = false, Kind::Bool;
    }
}

impl QuantizedPo2 {
    /// The exponent rule in this mode.
    pub fn rule(&self, training: bool) -> Po2Rule {
        let need = need_sign_bit(self.max_value);
        let mut r =
            Po2Rule::new(self.bits - 1 - need, self.max_value, self.quadratic_approximation, self.log2_rounding);
        r.stochastic = self.is_stochastic(training);
        r
    }
}

impl Kernel for QuantizedPo2 {
    fn is_stochastic(&self, training: bool) -> bool {
        training && self.use_stochastic_rounding && self.log2_rounding == Log2Rounding::Rnd
    }

    fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, ctx: &mut Ctx) -> Report {
        let rule = self.rule(ctx.training);
        let q = self.qnoise_factor as f32;
        let omq = one_minus(self.qnoise_factor);
        if rule.exact() {
            let op = Po2Op { rule: &rule, q, one_minus_q: omq, use_ste: self.use_ste };
            match Lean::new(&rule).filter(|_| self.use_ste && q == 1.0) {
                Some(lean) => lean::run(LeanPo2(lean), &op, x, y, dydx),
                None => lean::run_exact(&op, x, y, dydx),
            }
            return Report::default();
        }
        let g = if self.use_ste { 1.0 } else { omq };
        let rng = &mut ctx.rng;
        elementwise(x, y, dydx, |v| {
            let xq = sgn_plus(v) * exp2(rule.exponent(v.abs(), rng));
            let out = if self.use_ste { ste_blend(v, xq, q) } else { no_ste_blend(v, xq, q, omq) };
            (out, g)
        });
        Report::default()
    }

    fn levels(&self, report: &Report) -> Levels {
        if self.qnoise_factor != 1.0 {
            return Levels::Continuous;
        }
        // Stochastic exactly when this evaluation drew (training with stochastic rounding): a
        // drawn exponent may reach one power above max_value's rounded level.
        let pos = self.rule(report.stochastic).levels();
        let mut all: Vec<f32> = pos.iter().map(|v| -v).collect();
        all.extend(pos);
        Levels::set(all)
    }
}

quantizer! {
    /// Power-of-two ReLU: the exponent rule of quantized_po2 over
    /// `[−2^(bits−need), 2^(bits−need) − 1]`; with a negative_slope, x < 0 gives
    /// `−2^E(negative_slope·relu(−x))`. Never outputs 0: x ≤ 0 with negative_slope = 0 gives
    /// `2^min_exp`. The STE goes through `relu(x)` capped at max_value.
    pub struct QuantizedReluPo2: QKeras "quantized_relu_po2" {
        summary: "power-of-two ReLU (never 0); STE through relu capped at max_value",
        forward: "q(x) = 2^clip(round(log2 relu(x)), min_exp, max_exp)",
        backward: "∂q/∂x = 1 on 0 < x ≤ max_value, negative_slope (or 0) for x ≤ 0, 0 above",
        figure: {
            args: "bits=4, max_value=1",
            x: (-1.0, 2.0),
            why: "4 bits with max_value 1: powers of two up to the cap at 1, and the gradient cut above it",
        },
        /// Bits for the exponent and its sign.
        bits: i32 = 8, BITS;
        /// Largest output (approximate).
        max_value: Option<f64> = None, MAX_VALUE;
        /// Slope for negative inputs: 0 or a power of two.
        negative_slope: f64 = 0.0, Kind::Float { min: 0.0, max: 1.0, log: false };
        /// Stochastic rounding of the exponent in training.
        use_stochastic_rounding: bool = false, Kind::Bool;
        /// Round sqrt(x) so the exponent is even.
        quadratic_approximation: bool = false, Kind::Bool;
        /// 'rnd' (round half to even) or 'floor' of log2 x.
        log2_rounding: Log2Rounding = Log2Rounding::Rnd, Kind::Choice(Log2Rounding::CHOICES);
        /// Blend of quantized and float output, 0 (float) to 1 (quantized).
        qnoise_factor: f64 = 1.0, QNOISE;
        /// Variable name (no effect).
        var_name: Opaque = Opaque::default(), Kind::Text;
        /// Straight-through estimator; False gives gradient 1 − qnoise_factor (of relu).
        use_ste: bool = true, Kind::Bool;
        /// Keep parameters in tf.Variables (no effect).
        use_variables: bool = false, Kind::Bool;
    }
}

impl QuantizedReluPo2 {
    pub fn rule(&self, training: bool) -> Po2Rule {
        let need = need_sign_bit(self.max_value);
        let mut r = Po2Rule::new(self.bits - need, self.max_value, self.quadratic_approximation, self.log2_rounding);
        r.stochastic = self.is_stochastic(training);
        r
    }
}

/// The power of two of a rounded log2 (a trait, not a closure, so it inlines into the loop).
trait Level<V> {
    fn level(&mut self, t: V) -> V;
}

/// [`Po2Rule::level`], on lanes.
struct Exact<'a>(&'a Po2Rule);

impl<V: Lane> Level<V> for Exact<'_> {
    #[inline(always)]
    fn level(&mut self, t: V) -> V {
        self.0.level(t)
    }
}

/// The stochastic exponent's power of two, one element at a time.
struct Drawn<'a>(&'a Po2Rule, &'a mut Stream);

impl Level<f32> for Drawn<'_> {
    #[inline(always)]
    fn level(&mut self, t: f32) -> f32 {
        self.0.exponent(t, self.1).pow2()
    }
}

/// quantized_relu_po2: the exponent rule on relu(x) (or the negative part), and the STE
/// through the leaky ReLU capped at max_value.
struct ReluPo2Op<'a> {
    relu: &'a QuantizedReluPo2,
    rule: &'a Po2Rule,
}

impl ReluPo2Op<'_> {
    /// Output and gradient, with `rule` giving the power of two of the rounded log2 (exact or drawn).
    #[inline(always)]
    fn eval_with<V: Lane>(&self, v: V, rule: &mut impl Level<V>) -> (V, V) {
        let (zero, one) = (V::splat(0.0), V::splat(1.0));
        let ns = self.relu.negative_slope as f32;
        // x_u: K.relu(x, negative_slope) (plain relu, 0 at −inf, when the slope is 0) …
        let pos = v.gt(zero);
        let neg = if ns == 0.0 { zero } else { V::splat(ns) * v };
        let (mut xu, mut dxu) = (V::select(pos, v, neg), V::select(pos, one, V::splat(ns)));
        // … replaced by max_value above it: tf.where(x <= max_value, …) sends NaN there too.
        if let Some(m) = self.relu.max_value {
            let below = v.le(V::splat(m as f32));
            (xu, dxu) = (V::select(below, xu, V::splat(m as f32)), V::select(below, dxu, zero));
        }
        let relu_pos = V::select(pos, v, zero);
        let relu_neg = V::select(v.lt(zero), -v, zero);
        let xq = if ns == 0.0 {
            rule.level(relu_pos)
        } else {
            V::select(v.ge(zero), rule.level(relu_pos), -rule.level(relu_neg * V::splat(ns)))
        };
        let xq = V::select(v.le(v), xq, v);
        let q = self.relu.qnoise_factor as f32;
        if self.relu.use_ste {
            (lane::ste_blend(xu, xq, q), dxu)
        } else {
            let omq = one_minus(self.relu.qnoise_factor);
            (lane::no_ste_blend(xu, xq, q, omq), V::splat(omq) * dxu)
        }
    }
}

impl Op for ReluPo2Op<'_> {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        self.eval_with(x, &mut Exact(self.rule))
    }
}

impl Kernel for QuantizedReluPo2 {
    fn validate(&self) -> Result<(), (&'static str, String)> {
        let ns = self.negative_slope;
        if ns != 0.0 && ns.log2().fract() != 0.0 {
            return Err(("negative_slope", "expected 0 or a power of two".to_string()));
        }
        Ok(())
    }

    fn is_stochastic(&self, training: bool) -> bool {
        training && self.use_stochastic_rounding && self.log2_rounding == Log2Rounding::Rnd
    }

    fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, ctx: &mut Ctx) -> Report {
        let rule = self.rule(ctx.training);
        let op = ReluPo2Op { relu: self, rule: &rule };
        let usual = self.negative_slope == 0.0 && self.use_ste && self.qnoise_factor == 1.0;
        if let Some(lean) = Lean::new(&rule).filter(|_| usual && rule.exact()) {
            lean::run(LeanReluPo2(lean), &op, x, y, dydx);
        } else if rule.exact() {
            lean::run_exact(&op, x, y, dydx);
        } else {
            let rng = &mut ctx.rng;
            elementwise(x, y, dydx, |v| op.eval_with(v, &mut Drawn(&rule, rng)));
        }
        Report::default()
    }

    fn levels(&self, report: &Report) -> Levels {
        if self.qnoise_factor != 1.0 {
            return Levels::Continuous;
        }
        // Stochastic exactly when this evaluation drew (training with stochastic rounding): a
        // drawn exponent may reach one power above max_value's rounded level.
        let pos = self.rule(report.stochastic).levels();
        let mut all = pos.clone();
        if self.negative_slope != 0.0 {
            all.extend(pos.iter().map(|v| -v));
        }
        Levels::set(all)
    }
}

elementwise_facts! { QuantizedPo2 ["use_variables"], QuantizedReluPo2 ["use_variables"] }

#[cfg(test)]
mod tests;
