//! quantized_bits with `alpha='auto'` or `'auto_po2'`: the data-dependent step (the channel's
//! largest |x| mapped onto the top code; for 'auto_po2' a power of two refitted by least
//! squares) and the kernel that applies it.

use super::QuantizedBits;
use crate::Report;
use crate::lane::{self, Lane};
use crate::qkeras::{least_squares_of_sums, one_minus, po2_round};
use crate::round::{Terms, max_abs, pow2i, sums_f32};
use crate::schema::Alpha;
use crate::simd::{self, Op};

impl QuantizedBits {
    /// `alpha='auto'` / `'auto_po2'`: a data-dependent step, codes rounded half away from zero.
    pub(super) fn apply_auto(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>) -> Report {
        let shape = self.auto_op(f32::NAN);
        let (m, mi, half) = (shape.m, shape.mi, shape.half);
        let levels = half * 2.0;
        // The tensor's max|x| where the step is fitted to it (None for a frozen step).
        let (s, top) = match self.post_training_scale {
            Some(pts) => (pts as f32 / m, None),
            None => {
                let top = max_abs(x);
                let mut s = top / mi * 2.0 / levels;
                if self.alpha == Alpha::AutoPo2 {
                    s = po2_round(s);
                    // Five least-squares refits of the codes of x/m_i, each one fused pass; a
                    // refit that returns its own step is a fixed point the rest would repeat.
                    let (lo, hi) = (self.min_po2_exponent, self.max_po2_exponent);
                    for _ in 0..5 {
                        let sums = code_fit_sums(x, 1.0 / mi, s, half);
                        let next = least_squares_of_sums(Alpha::AutoPo2, sums, x.len(), lo, hi);
                        if next.to_bits() == s.to_bits() {
                            break;
                        }
                        s = next;
                    }
                }
                (s, Some(top))
            }
        };
        AutoBitsOp { s, inv_s: exact_reciprocal(s), ..shape }.run(x, y, dydx, top);
        Report { scale: Some(s * m), ..Report::default() }
    }

    /// The 'auto' kernel for the step `s` per code (NaN for its shape before the fit).
    pub fn auto_op(&self, s: f32) -> AutoBitsOp {
        AutoBitsOp {
            s,
            inv_s: exact_reciprocal(s),
            half: (((1i64 << (self.bits - 1)) - 1) * 2) as f32 / 2.0,
            m: pow2i(self.bits - self.kn()),
            mi: pow2i(self.integer),
            q: self.qnoise_factor as f32,
            one_minus_q: one_minus(self.qnoise_factor),
            use_ste: self.use_ste,
        }
    }
}

/// The 'auto' codes: `sign(v)·min(⌊|v|/s + ½⌋, half)` — rounding half away from zero;
/// `inv_s` is 1/s where that is exact, and then `|v|·(1/s)` is `|v|/s` to the bit.
///
/// `FINITE`: `s` is finite and positive, and the code is `min(k, half)` with v's sign — as k
/// ≥ 0, ±0 stays ±0, and a NaN k (v NaN: |v|'s NaN, quieted) passes `pmin` and takes v's sign
/// back: the product's bits, in half the operations. Otherwise (a tensor of zeros, a NaN or
/// an infinity in it) the product as written, where 0/0 and ∞/∞ make k NaN for numbers too.
#[inline(always)]
pub(super) fn auto_code<V: Lane, const FINITE: bool>(v: V, s: f32, inv_s: Option<f32>, half: V) -> V {
    let q = match inv_s {
        Some(r) => v.abs() * V::splat(r),
        None => v.abs() / V::splat(s),
    };
    let k = (q + V::splat(0.5)).floor();
    if FINITE { k.pmin(half).copysign(v) } else { lane::sgn0(v) * V::select(k.lt(half), k, half) }
}

/// Whether [`auto_code`]'s shorter form holds for the step `s`.
pub(super) fn finite_step(s: f32) -> bool {
    s.is_finite() && s > 0.0
}

/// `1/s` when it is exact — s a power of two whose reciprocal is normal (auto_po2's steps).
pub(super) fn exact_reciprocal(s: f32) -> Option<f32> {
    let r = 1.0 / s;
    (s.is_normal() && s > 0.0 && s.to_bits() & 0x7f_ffff == 0 && r.is_normal()).then_some(r)
}

/// The least-squares terms `xs·z` and `z·z` of the 'auto' codes `z` of `xs = x/m_i` for the
/// step `s` (× the exact reciprocal of the power of two m_i is ÷ m_i).
struct CodeFit<const FINITE: bool> {
    inv_mi: f32,
    s: f32,
    inv_s: Option<f32>,
    half: f32,
}

/// The sums of both terms over `x` in Eigen's order ([`sums_f32`]), for the step `s`.
fn code_fit_sums(x: &[f32], inv_mi: f32, s: f32, half: f32) -> [f32; 2] {
    let inv_s = exact_reciprocal(s);
    if finite_step(s) {
        sums_f32(x, &CodeFit::<true> { inv_mi, s, inv_s, half })
    } else {
        sums_f32(x, &CodeFit::<false> { inv_mi, s, inv_s, half })
    }
}

impl<const FINITE: bool> Terms<2> for CodeFit<FINITE> {
    #[inline(always)]
    fn terms<V: Lane>(&self, v: V) -> [V; 2] {
        let xs = v * V::splat(self.inv_mi);
        let z = auto_code::<V, FINITE>(xs, self.s, self.inv_s, V::splat(self.half));
        [xs * z, z * z]
    }
}

/// quantized_bits with a data-dependent step `s` already fitted.
pub struct AutoBitsOp {
    s: f32,
    /// [`exact_reciprocal`] of s.
    inv_s: Option<f32>,
    /// The top code, `2^(bits−1) − 1`.
    pub half: f32,
    /// `2^(bits − keep_negative)`.
    pub m: f32,
    /// `2^integer`.
    pub mi: f32,
    q: f32,
    one_minus_q: f32,
    use_ste: bool,
}

impl AutoBitsOp {
    /// [`simd::run`] of this op for a tensor whose max|x| is `top` (None: not known):
    /// [`LeanAuto`] where it applies, else the codes as the product `sign(x)·min(k, half)` — the
    /// shorter form's bits for every step, and one loop fewer in the page.
    fn run(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, top: Option<f32>) {
        match top.and_then(|top| self.lean(top)) {
            Some(lean) => simd::run(&lean, x, y, dydx),
            None => simd::run(&Step::<false>(self), x, y, dydx),
        }
    }

    /// This op as [`LeanAuto`] over a tensor with max|x| = `top`, where that gives its bits: the
    /// identity STE at qnoise_factor 1, `|x| ≤ top ≤ 2^20` (so `ste_blend` is its library
    /// expression), and a step `s ≥ 2^−124` with `s·m` and `s·m_i` finite. Then `s·m_i` is
    /// exact and so is `x/m_i` unless it is below 2^−126, where `|x/m_i|/s` and `|x|/(s·m_i)` are
    /// both below ¼ (code 0): the codes are the same; and with z·m_i/m exact (a power of two
    /// times a code), `(s·m)·(z·m_i/m)` and `z·(s·m_i)` are one rounding of the same product.
    pub(super) fn lean(&self, top: f32) -> Option<LeanAuto> {
        let (s, sm) = (self.s, self.s * self.mi);
        let exact = s >= pow2i(-124) && (s * self.m).is_finite() && sm.is_finite();
        (self.use_ste && self.q == 1.0 && top <= 1_048_576.0 && exact).then_some(LeanAuto { sm, half: self.half })
    }

    #[inline(always)]
    fn eval_with<V: Lane, const FINITE: bool>(&self, x: V) -> (V, V) {
        // m and m_i are powers of two: multiplying by their reciprocals is dividing by them.
        let (inv_m, mi, inv_mi) = (V::splat(1.0 / self.m), V::splat(self.mi), V::splat(1.0 / self.mi));
        let z = auto_code::<V, FINITE>(x * inv_mi, self.s, self.inv_s, V::splat(self.half));
        let xq = V::splat(self.s * self.m) * (mi * z * inv_m);
        if self.use_ste {
            (lane::ste_blend(x, xq, self.q), V::splat(1.0))
        } else {
            (lane::no_ste_blend(x, xq, self.q, self.one_minus_q), V::splat(self.one_minus_q))
        }
    }
}

/// [`AutoBitsOp`] with [`auto_code`]'s form fixed (`FINITE`): the product form is the kernel
/// outside [`LeanAuto`]; the shorter form is the lean op's oracle.
pub(super) struct Step<'a, const FINITE: bool>(pub(super) &'a AutoBitsOp);

impl<const FINITE: bool> Op for Step<'_, FINITE> {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        self.0.eval_with::<V, FINITE>(x)
    }
}

/// quantized_bits 'auto' in its usual configuration ([`AutoBitsOp::lean`]): the code
/// `min(⌊|x|/(s·m_i) + ½⌋, half)` with x's sign, times `s·m_i`, through the library's STE
/// expression — the same bits in about half the operations.
pub(super) struct LeanAuto {
    /// `s·m_i`.
    sm: f32,
    half: f32,
}

impl Op for LeanAuto {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        let sm = V::splat(self.sm);
        let k = (x.abs() / sm + V::splat(0.5)).floor().pmin(V::splat(self.half));
        // k ≥ +0 (x is finite): x's sign bit or-ed in is its copysign, in two operations.
        let z = k.ior(x.iand(V::splat(-0.0)));
        (lane::ste_lib(x, z * sm, 1.0), V::splat(1.0))
    }
}
