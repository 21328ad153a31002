//! The learned-step quantizers' fused passes: values, gradients and the learned parameter's
//! gradient (LSQ's step, PACT's α) from one read of the input.

use super::super::lane::Lane;
use super::super::simd::{OnLanes, Op};
use super::{LsqOp, PactOp};

/// LSQ's forward and backward pass in one: `y`, `∂y/∂v` and the step gradient's sum
/// `Σᵢ ∂yᵢ/∂s`, added in float64 element by element in order, as [`Lsq::step_grad`] does
/// (its bits depend on that order; the residuals come four at a time).
pub(super) struct LsqPass<'a> {
    pub(super) op: &'a LsqOp,
    pub(super) x: &'a [f32],
    pub(super) y: &'a mut [f32],
    pub(super) d: &'a mut [f32],
}

impl OnLanes for LsqPass<'_> {
    type Output = f64;

    fn on<V: Lane>(self) -> f64 {
        let n = self.x.len();
        assert!(self.y.len() == n && self.d.len() == n && V::WIDTH <= 16);
        let body = n - n % V::WIDTH;
        // `Sum for f64` starts at −0.0 (the identity of addition).
        let mut sum = -0.0f64;
        let mut lanes = [0.0f32; 16];
        let (x, y, d) =
            (self.x.chunks_exact(V::WIDTH), self.y.chunks_exact_mut(V::WIDTH), self.d.chunks_exact_mut(V::WIDTH));
        for ((xs, ys), ds) in x.zip(y).zip(d) {
            let (v, g, r) = self.op.eval_all(V::load(xs));
            v.store(ys);
            g.store(ds);
            r.store(&mut lanes);
            for &ri in &lanes[..V::WIDTH] {
                sum += ri as f64;
            }
        }
        let tail = self.x[body..].iter().zip(&mut self.y[body..]).zip(&mut self.d[body..]);
        for ((&v, yi), di) in tail {
            let (q, g, r) = self.op.eval_all(v);
            (*yi, *di) = (q, g);
            sum += r as f64;
        }
        sum
    }
}

/// PACT's forward and backward pass with α's gradient in one: `y`, `∂y/∂x` and the number of
/// inputs at or above α, counted in f32 lanes per block of 2^20 elements (exact: at most 2^20
/// per lane) and added up as integers.
pub(super) struct PactPass<'a> {
    pub(super) op: &'a PactOp,
    pub(super) x: &'a [f32],
    pub(super) y: &'a mut [f32],
    pub(super) d: &'a mut [f32],
}

impl OnLanes for PactPass<'_> {
    type Output = u64;

    fn on<V: Lane>(self) -> u64 {
        const BLOCK: usize = 1 << 20;
        assert!(self.y.len() == self.x.len() && self.d.len() == self.x.len() && V::WIDTH <= 16);
        let (zero, one, a) = (V::splat(0.0), V::splat(1.0), V::splat(self.op.a));
        let (mut total, mut lanes) = (0u64, [0.0f32; 16]);
        let blocks = self.x.chunks(BLOCK).zip(self.y.chunks_mut(BLOCK)).zip(self.d.chunks_mut(BLOCK));
        for ((xb, yb), db) in blocks {
            let body = xb.len() - xb.len() % V::WIDTH;
            let mut count = zero;
            let lanes_of =
                xb.chunks_exact(V::WIDTH).zip(yb.chunks_exact_mut(V::WIDTH)).zip(db.chunks_exact_mut(V::WIDTH));
            for ((xs, ys), ds) in lanes_of {
                let v = V::load(xs);
                let (q, g) = self.op.eval(v);
                q.store(ys);
                g.store(ds);
                count = count + V::select(v.ge(a), one, zero);
            }
            count.store(&mut lanes);
            total += lanes[..V::WIDTH].iter().map(|&c| c as u64).sum::<u64>();
            for ((&v, yi), di) in xb[body..].iter().zip(&mut yb[body..]).zip(&mut db[body..]) {
                (*yi, *di) = self.op.eval(v);
                total += (v >= self.op.a) as u64;
            }
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Lsq, Pact, simd};
    use super::*;
    use crate::simd::tests::FOUR_LANES;
    use crate::{Ctx, Kernel};

    /// The fused pass gives the values, gradients and step gradient of the separate ones
    /// (the step gradient's sequential sum, then the elementwise kernel) to the bit, on one
    /// lane and on four, with a tail, specials and inputs far outside the code range.
    #[test]
    fn the_fused_pass_equals_the_step_gradient_sum_and_the_kernel() {
        let specials = [0.0, -0.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1e-30, -1e-30, 3e6, -3e6, 0.5];
        let lcg = crate::inputs::spread(4099);
        let far: Vec<f32> = lcg.iter().map(|v| v * 1e3).chain([0.0, -0.0, 1e-30, -1e-30, 0.5]).collect();
        let with_specials: Vec<f32> = lcg.iter().copied().chain(specials).collect();
        // Unsigned codes of negative inputs: every residual is −Qn = −0, and so is the sum.
        let negative: Vec<f32> = lcg.iter().map(|v| -v.abs() - 1.0).collect();
        let base = Lsq::default();
        let configs = [
            base.clone(),
            Lsq { bits: 2, signed: false, grad_scale: false, ..base.clone() },
            Lsq { bits: 8, step: Some(0.01), ..base.clone() },
            Lsq { bits: 3, step: Some(0.3), ..base.clone() },
        ];
        for (q, x) in configs.iter().flat_map(|q| [&lcg, &far, &with_specials, &negative].map(|x| (q, x))) {
            let (qn, qp) = q.range();
            let s = q.step_on(x);
            let op = LsqOp { s, qn, qp };
            let (mut y0, mut d0) = (vec![0.0; x.len()], vec![0.0; x.len()]);
            simd::run_scalar(&op, x, &mut y0, Some(&mut d0));
            let want = (y0, d0, q.step_grad(s, x, None));
            for four in [false, true] {
                FOUR_LANES.set(four);
                let (mut y, mut d) = (vec![0.0; x.len()], vec![0.0; x.len()]);
                let report = q.apply(x, &mut y, Some(&mut d), &mut Ctx::training(0));
                FOUR_LANES.set(false);
                let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&y), bits(&want.0), "{q:?} values, four lanes: {four}");
                assert_eq!(bits(&d), bits(&want.1), "{q:?} gradients, four lanes: {four}");
                let step: Vec<_> = report.param_grads.iter().map(|&(n, g)| (n, g.to_bits())).collect();
                assert_eq!(step, vec![("step", want.2.to_bits())], "{q:?} step gradient, four lanes: {four}");
            }
        }
    }

    /// PACT's fused count of clipped inputs is the filter's, on one lane and on four, over
    /// more than one block.
    #[test]
    fn pacts_fused_count_is_the_filters() {
        let lcg = crate::inputs::spread((1 << 20) + 4099)
            .into_iter()
            .map(|v| v * 4.0)
            .chain([f32::NAN, 6.0])
            .collect::<Vec<_>>();
        let p = Pact::default();
        for four in [false, true] {
            FOUR_LANES.set(four);
            let (mut y, mut d) = (vec![0.0; lcg.len()], vec![0.0; lcg.len()]);
            let report = p.apply(&lcg, &mut y, Some(&mut d), &mut crate::Ctx::training(0));
            FOUR_LANES.set(false);
            let want = lcg.iter().filter(|&&v| v >= 6.0).count() as f32;
            assert_eq!(report.param_grads, vec![("alpha", want)], "four lanes: {four}");
        }
    }
}
