//! The µ-law quantizer `quantized_ulaw`.

use super::super::lane::{self, Lane};
use super::super::round::{clip, lookup, pow2i};
use super::super::schema::{Kind, quantizer};
use super::super::simd::{self, Op};
use super::super::{Ctx, Kernel, Levels, Report};
use super::integer_fits;
use super::relu::{BITS, INTEGER};
use crate::elementwise_facts;
use crate::levels::MAX_SET;

quantizer! {
    /// µ-law quantizer: codes of the hard sigmoid of `x/2^integer` are mapped through
    /// `c(r) = sign(r)·ln(1 + u·|r|)/ln(1 + u)` and clipped to `[−1 + symmetric/m, 1 − 1/m]`,
    /// `m = 2^(bits−1)`, then scaled by `2^integer`. The rounding has a straight-through
    /// estimator, so the gradient is the chain rule through c.
    pub struct QuantizedUlaw: QKeras "quantized_ulaw" {
        summary: "µ-law companded quantizer (dense codes near 0)",
        forward: "q(x) = 2^integer·clip(sign(r)·ln(1+u|r|)/ln(1+u)),  r = 2·round(m·σ_h(x/2^integer))/m − 1",
        backward: "∂q/∂x = 2·c'(r)·σ_h'(x/2^integer) inside the clip range; 0 at r = 0",
        figure: { args: "bits=4", x: (-1.5, 1.5), why: "4 bits: µ-law codes, dense near 0 and sparse towards ±1" },
        /// Total bits, sign included.
        bits: i32 = 8, BITS;
        /// Bits left of the binary point.
        integer: i32 = 0, INTEGER;
        /// Drop the code −1 so the range is symmetric.
        symmetric: bool = false, Kind::Bool;
        /// Compression parameter µ.
        u: f64 = 255.0, Kind::Float { min: 1e-6, max: 1e9, log: true };
    }
}

impl QuantizedUlaw {
    /// µ-law companding `sign(r)·log(1 + u|r|)/log(1 + u)`.
    #[inline(always)]
    fn law<V: Lane>(&self, rp: V) -> V {
        let (one, u) = (V::splat(1.0), V::splat(self.u as f32));
        lane::sgn0(rp) * lane::log(one + u * rp.abs()) / V::splat(lane::log(1.0 + self.u as f32))
    }
}

impl QuantizedUlaw {
    /// The code `round(m·σ_h(x/2^integer))` ∈ [0, m] (NaN for NaN) and σ_h's slope there, from
    /// one scaled clip: with `v = xs/2 + ½` (xs = x/2^integer) and m a power of two,
    /// `m·clip(v, 0, 1)` is `clip((m/2)·xs + m/2, 0, m)` exactly (for m = 1 it is the same
    /// arithmetic; for m ≥ 2 the scaling is exact and commutes with the rounding and the clip, and
    /// where `xs/2` rounds, xs is subnormal and both sums are m/2), and `0 ≤ v ≤ 1` is the clip
    /// leaving its argument unchanged. `(m/2)·xs` is `x·((m/2)/2^integer)`, one product: both
    /// are one rounding of the same value where `x/2^integer` is exact, and where it is not it is
    /// below 2^−126 and both sums are m/2 again. [`QuantizedUlaw::code_by_sigmoid`] is the oracle.
    #[inline(always)]
    fn code<V: Lane>(&self, x: V) -> (V, V) {
        let m = pow2i(self.bits - 1);
        let h = V::splat(0.5 * m);
        // m/2 and m_i are powers of two: (m/2)/m_i is exact.
        let w = x * V::splat(0.5 * m / pow2i(self.integer)) + h;
        let c = lane::clip(w, V::splat(0.0), V::splat(m));
        (c.nearest(), V::select(c.eq(w), V::splat(0.5), V::splat(0.0)))
    }

    /// [`QuantizedUlaw::code`] as QKeras composes it: the hard sigmoid, then × m and round.
    #[cfg(test)]
    fn code_by_sigmoid<V: Lane>(&self, x: V) -> (V, V) {
        let (s, ds) = super::sigmoid_q(x * V::splat(1.0 / pow2i(self.integer)));
        ((s * V::splat(pow2i(self.bits - 1))).nearest(), ds)
    }

    /// The output for code `k` and the gradient's factors that depend on k alone.
    #[inline(always)]
    fn of_code<V: Lane>(&self, k: V) -> (V, V) {
        let m = pow2i(self.bits - 1);
        let (lo, hi) = (V::splat(-1.0 + self.symmetric as i32 as f32 / m), V::splat(1.0 - 1.0 / m));
        let (one, two, m, mi) = (V::splat(1.0), V::splat(2.0), V::splat(m), V::splat(pow2i(self.integer)));
        let (u, l) = (V::splat(self.u as f32), V::splat(lane::log(1.0 + self.u as f32)));
        // m is a power of two: × its reciprocal is ÷ it, bit for bit.
        let inv_m = one / m;
        let rp = two * (k * inv_m) - one;
        let c = self.law(rp);
        let sg = lane::sgn0(rp);
        // Reverse mode in TensorFlow's order: clip mask, ÷log(1+u), ×sign, ×1/(1+u|r|), ×u,
        // ×sign (|r|' = 0 at r = 0), ×2/m·m; the caller goes on with ×σ', ÷2^integer.
        let mut g = mi * lane::inside(c, lo, hi);
        g = g / l * sg;
        g = g * (one / (one + u * rp.abs()));
        g = g * u * sg;
        g = g * two * inv_m * m;
        (mi * lane::clip(c, lo, hi), g)
    }

    /// The gradient from the code's factor `g` and σ_h's slope: the clip mask zeroes it at NaN
    /// before the chain rule.
    #[inline(always)]
    fn grad<V: Lane>(&self, x: V, g: V, ds: V) -> V {
        V::select(x.le(x), g * ds * V::splat(1.0 / pow2i(self.integer)), V::splat(0.0))
    }
}

impl Op for QuantizedUlaw {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        let (k, ds) = self.code(x);
        let (out, g) = self.of_code(k);
        (out, self.grad(x, g, ds))
    }
}

/// quantized_ulaw with [`QuantizedUlaw::of_code`] read from tables of its m + 1 codes (the
/// same bits: they are its values), for tensors long enough to pay for them.
struct UlawTable<'a> {
    ulaw: &'a QuantizedUlaw,
    out: Vec<f32>,
    grad: Vec<f32>,
}

impl Op for UlawTable<'_> {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        let (k, ds) = self.ulaw.code(x);
        // A NaN code reads entry 0: NaN passes through, as the formula passes it.
        (V::select(x.le(x), lookup(k, &self.out), x), self.ulaw.grad(x, lookup(k, &self.grad), ds))
    }
}

/// [`UlawTable`] for at most 256 codes (bits ≤ 8, the usual widths): each lane's value and
/// gradient factor are one pair of a fixed table, read without bounds checks.
struct UlawPairs<'a> {
    ulaw: &'a QuantizedUlaw,
    pairs: Box<[[f32; 2]; 256]>,
}

impl<'a> UlawPairs<'a> {
    /// The table of `ulaw`'s codes, or None where it has more than 256.
    fn new(ulaw: &'a QuantizedUlaw) -> Option<Self> {
        let codes = pow2i(ulaw.bits - 1) as usize + 1;
        (codes <= 256).then(|| {
            let mut pairs = Box::new([[0.0; 2]; 256]);
            for (k, p) in pairs.iter_mut().enumerate().take(codes) {
                let (out, grad) = ulaw.of_code(k as f32);
                *p = [out, grad];
            }
            UlawPairs { ulaw, pairs }
        })
    }
}

impl Op for UlawPairs<'_> {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        let (k, ds) = self.ulaw.code(x);
        // A NaN code reads entry 0, as in UlawTable.
        let (out, grad) = V::lookup_pairs(&self.pairs, k);
        (V::select(x.le(x), out, x), self.ulaw.grad(x, grad, ds))
    }
}

impl Kernel for QuantizedUlaw {
    fn validate(&self) -> Result<(), (&'static str, String)> {
        integer_fits(self.integer, self.bits)
    }

    fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, _: &mut Ctx) -> Report {
        let codes = pow2i(self.bits - 1) as usize + 1;
        if codes.saturating_mul(4) > x.len() {
            // Too few elements to pay for the tables.
            simd::run(self, x, y, dydx);
            return Report::default();
        }
        match UlawPairs::new(self) {
            Some(pairs) => simd::run(&pairs, x, y, dydx),
            None => {
                let (out, grad) = (0..codes).map(|k| self.of_code(k as f32)).unzip();
                simd::run(&UlawTable { ulaw: self, out, grad }, x, y, dydx);
            }
        }
        Report::default()
    }

    fn levels(&self, _: &Report) -> Levels {
        let m = pow2i(self.bits - 1);
        if m as i64 > MAX_SET {
            return Levels::Continuous;
        }
        let mi = pow2i(self.integer);
        let (lo, hi) = (-1.0 + self.symmetric as i32 as f32 / m, 1.0 - 1.0 / m);
        let codes = 0..=(m as i64);
        Levels::set(codes.map(|k| mi * clip(self.law(2.0 * (k as f32 / m) - 1.0), lo, hi)).collect())
    }
}

elementwise_facts! { QuantizedUlaw }

#[cfg(test)]
mod ulaw_tests {
    use super::*;
    use crate::lane::Wide;

    /// The code and slope by one scaled clip are the hard sigmoid's, scaled and rounded, on every
    /// float32 bit pattern (every [`crate::every_float_step`]th at bits 8 and 32, all with
    /// `QSCOPE_EXHAUSTIVE=1`; every 65 521st at the other widths) and every integer part.
    #[test]
    fn the_ulaw_code_by_one_scaled_clip_is_the_sigmoids() {
        for bits in 1..=32 {
            let step = if bits % 8 == 0 { crate::every_float_step() } else { 65_521 };
            for integer in [0, 1, bits / 2, bits] {
                let q = QuantizedUlaw { bits, integer, symmetric: false, u: 255.0 };
                for b in (0..=u32::MAX).step_by(step).chain([0x8000_0000, 0x3f80_0000, 0xbf80_0000, 1, 0x8000_0001]) {
                    let x = f32::from_bits(b);
                    let [got, want] = [q.code(x), q.code_by_sigmoid(x)].map(|(k, d)| [k.to_bits(), d.to_bits()]);
                    assert_eq!(got, want, "bits {bits} integer {integer} at {x:e}");
                }
            }
        }
    }

    /// The tables' kernel gives the formula's bits (a NaN for a NaN: which NaN the formula
    /// gives depends on how the compiler folds it), over every 65 521st float32 bit pattern and a fine sweep of [−3, 3].
    #[test]
    fn the_ulaw_tables_give_the_formulas_bits() {
        let sweep = (-3000..=3000).map(|i| i as f32 / 997.0);
        let x: Vec<f32> = (0..=u32::MAX).step_by(65_521).map(f32::from_bits).chain(sweep).collect();
        for bits in [1, 2, 4, 8, 11] {
            for integer in [0, bits / 2, bits] {
                for (symmetric, u) in [(false, 255.0), (true, 255.0), (false, 0.5), (true, 3e4)] {
                    let q = QuantizedUlaw { bits, integer, symmetric, u };
                    let codes = pow2i(bits - 1) as usize + 1;
                    let (out, grad) = (0..codes).map(|k| q.of_code(k as f32)).unzip();
                    let table = UlawTable { ulaw: &q, out, grad };
                    let pairs = UlawPairs::new(&q);
                    assert_eq!(pairs.is_some(), bits <= 8, "pairs for bits {bits}");
                    for &v in x.iter().chain(&[f32::NAN, -f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0]) {
                        let (a, b) = (table.eval(v), q.eval(v));
                        let bits =
                            |(y, g): (f32, f32)| [if y.is_nan() { 0x7fc0_0000 } else { y.to_bits() }, g.to_bits()];
                        assert_eq!(bits(a), bits(b), "{q:?} at {v:e}");
                        if let Some(p) = &pairs {
                            assert_eq!(bits(p.eval(v)), bits(b), "{q:?} at {v:e} (pairs)");
                            let four = Wide::<f32, 4>::splat(v);
                            let (y4, g4) = p.eval(four);
                            let (mut ys, mut gs) = ([0.0f32; 4], [0.0f32; 4]);
                            y4.store(&mut ys);
                            g4.store(&mut gs);
                            assert_eq!(bits((ys[3], gs[3])), bits(b), "{q:?} at {v:e} (pairs, four lanes)");
                        }
                    }
                }
            }
        }
    }
}
