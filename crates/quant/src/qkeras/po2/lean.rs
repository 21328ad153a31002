//! The usual configurations of both po2 quantizers — the 'rnd' rule on bits ([`Carry`]), no
//! max_value, a finite top power, qnoise_factor 1 with the STE (and for quantized_relu_po2 no
//! negative_slope) — in a few lane operations with the constants chosen once per tensor.
//!
//! The output is QKeras' `x + (xq − x)` on the magnitude `t = min(|x|, 2^max_exp)`: where
//! `|x| ≤ 2^20` and below the top power it is the library expression itself; above the top
//! power `t + (hi − t)` is `hi`, and otherwise the level is within a factor √2 of t, so
//! `l − t` is exact and the sum is `l` — the intended `xq` that `lane::ste_blend` takes
//! beyond 2^20 (±inf included, as t is finite). A NaN x stays in t and comes out quieted, as
//! the library's sum does. Vectors are not checked one by one for a mantissa between the
//! binades' switches: a block of [`BLOCK`] elements keeps the largest carried mantissa, and a
//! block that reached the window runs again through the general op (`Po2Op`, `ReluPo2Op`),
//! which is also the oracle of the tests (all 2^32 inputs).

use super::{Carry, Po2Rule};
use crate::lane::Lane;
use crate::round::EPS;
use crate::simd::{self, OnLanes, Op};

/// Elements per check of the switch window.
const BLOCK: usize = 256;

/// The constants of one tensor's rule.
#[derive(Clone, Copy)]
pub(super) struct Lean {
    /// [`Carry::late`].
    late: f32,
    /// The largest carried mantissa (`(t + late) & 0x7f_ffff`) outside the switch window:
    /// the window's mantissas carry to the top `last − first` below 2^23.
    pub(super) outside: f32,
    /// `2^min_exp` (0 below float32's normals) and `2^max_exp` (finite, at least 1).
    lo: f32,
    hi: f32,
}

impl Lean {
    /// For a rule on bits without max_value and with a finite top power, else None.
    pub(super) fn new(rule: &Po2Rule) -> Option<Lean> {
        let c: Carry = rule.carry?;
        if rule.max_value.is_some() || rule.quadratic || !(1.0..f32::INFINITY).contains(&c.hi) {
            return None;
        }
        let width = c.early.map_or(0, |e| e.to_bits() - c.late.to_bits());
        Some(Lean { late: c.late, outside: f32::from_bits(0x7f_ffff - width), lo: c.lo, hi: c.hi })
    }

    /// `t = min(a, hi)` for the magnitude `a`, its power of two `l` (`lo` below ε), and the
    /// carried mantissa for the window check.
    #[inline(always)]
    fn level<V: Lane>(&self, a: V) -> (V, V, V) {
        let t = a.pmin(V::splat(self.hi));
        // Below ε the level is lo: t carries as 0, whose binade 0 lifts to lo (a NaN t carries
        // garbage that the library's sum drops).
        let u = V::select(t.lt(V::splat(EPS)), V::splat(0.0), t).iadd(V::splat(self.late));
        (t, u.binade().pmax(V::splat(self.lo)), u.iand(V::splat(f32::from_bits(0x7f_ffff))))
    }
}

/// One vector's output, gradient and carried mantissa.
pub(super) trait LeanOp: Copy {
    fn eval<V: Lane>(self, x: V) -> (V, V, V);
    /// The rule's constants.
    fn lean(self) -> Lean;
}

/// quantized_po2: the library's sum with x's sign on t and l, `t' + (xq − t')`. The sign is
/// x's after adding 0 (−0 becomes +0, as sgn⁺ gives +1 there; a NaN keeps its sign, as the
/// library's sum does); both terms signed, an exact 0 comes out +0 as the library's does.
#[derive(Clone, Copy)]
pub(super) struct LeanPo2(pub Lean);

impl LeanOp for LeanPo2 {
    #[inline(always)]
    fn eval<V: Lane>(self, x: V) -> (V, V, V) {
        let x0 = x + V::splat(0.0);
        let a = x0.abs();
        let sign = x0.ixor(a);
        let (t, l, flag) = self.0.level(a);
        let (t, xq) = (t.ior(sign), l.ior(sign));
        (t + (xq - t), V::splat(1.0), flag)
    }
    fn lean(self) -> Lean {
        self.0
    }
}

/// quantized_relu_po2 without negative_slope: `t + (l − t)` of `relu(x)` (`pmax`: −0 and a
/// NaN stay, both giving the library's bits), gradient 1 where x > 0.
#[derive(Clone, Copy)]
pub(super) struct LeanReluPo2(pub Lean);

impl LeanOp for LeanReluPo2 {
    #[inline(always)]
    fn eval<V: Lane>(self, x: V) -> (V, V, V) {
        let zero = V::splat(0.0);
        let (t, l, flag) = self.0.level(x.pmax(V::splat(-0.0)));
        (t + (l - t), V::select(x.gt(zero), V::splat(1.0), zero), flag)
    }
    fn lean(self) -> Lean {
        self.0
    }
}

/// Runs `lean` over the slices, block by block, and `exact` again over a block where a lane's
/// mantissa lay in the switch window; the last block's elements past whole lanes take `exact`.
pub(super) fn run<L: LeanOp, E: Op>(lean: L, exact: &E, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>) {
    simd::on_lanes(Blocks { lean, outside: lean.lean().outside, exact, x, y, dydx });
}

/// [`simd::run`] of the general op, not inlined: the one copy of its loops, for the other
/// configurations and the blocks in the switch window alike.
#[inline(never)]
pub(super) fn run_exact<E: Op>(exact: &E, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>) {
    simd::run(exact, x, y, dydx);
}

struct Blocks<'a, L, E> {
    lean: L,
    outside: f32,
    exact: &'a E,
    x: &'a [f32],
    y: &'a mut [f32],
    dydx: Option<&'a mut [f32]>,
}

impl<L: LeanOp, E: Op> OnLanes for Blocks<'_, L, E> {
    type Output = ();

    #[inline(always)]
    fn on<V: Lane>(self) -> Self::Output {
        let Blocks { lean, outside, exact, x, y, mut dydx } = self;
        assert_eq!(x.len(), y.len());
        let mut start = 0;
        while start < x.len() {
            let end = (start + BLOCK).min(x.len());
            let body = start + (end - start) / V::WIDTH * V::WIDTH;
            let (xs, ys) = (&x[start..end], &mut y[start..end]);
            let ds = dydx.as_deref_mut().map(|d| &mut d[start..end]);
            let mut top = V::splat(0.0);
            let lanes = xs[..body - start].chunks_exact(V::WIDTH).zip(ys.chunks_exact_mut(V::WIDTH));
            let ds = match ds {
                Some(d) => {
                    for ((xv, yv), dv) in lanes.zip(d.chunks_exact_mut(V::WIDTH)) {
                        let (v, g, f) = lean.eval(V::load(xv));
                        v.store(yv);
                        g.store(dv);
                        top = top.imax(f);
                    }
                    Some(d)
                }
                None => {
                    for (xv, yv) in lanes {
                        let (v, _, f) = lean.eval(V::load(xv));
                        v.store(yv);
                        top = top.imax(f);
                    }
                    None
                }
            };
            let from = if V::any(top.igt(V::splat(outside))) { 0 } else { body - start };
            run_exact(exact, &xs[from..], &mut ys[from..], ds.map(|d| &mut d[from..]));
            start = end;
        }
    }
}
