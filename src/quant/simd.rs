//! Slice drivers for elementwise kernels: WASM SIMD (`f32x4`) with an explicit scalar
//! tail where `simd128` is enabled, the plain scalar loop everywhere else. A kernel's
//! math is one generic [`Op::eval`] over [`Lane`], so both paths compute the same bits
//! (tests/wasm.rs checks it in the browser).

use std::sync::atomic::{AtomicBool, Ordering};

use super::lane::Lane;

/// An elementwise forward/backward pair, generic over one element or four.
pub trait Op {
    /// `(q(x), ∂q/∂x)` per lane.
    fn eval<V: Lane>(&self, x: V) -> (V, V);
}

static FORCE_SCALAR: AtomicBool = AtomicBool::new(false);

/// Makes [`run`] take the scalar loop even where SIMD is compiled in (for the SIMD =
/// scalar tests and the scalar benchmark figures).
pub fn force_scalar(on: bool) {
    FORCE_SCALAR.store(on, Ordering::Relaxed);
}

/// Whether this build has the `f32x4` path.
pub const SIMD: bool = cfg!(all(target_arch = "wasm32", target_feature = "simd128"));

/// Runs `op` over the slice: SIMD when available (unless forced scalar), else scalar.
#[inline]
pub fn run<O: Op>(op: &O, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>) {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    if !FORCE_SCALAR.load(Ordering::Relaxed) {
        return simd128::run(op, x, y, dydx);
    }
    run_scalar(op, x, y, dydx)
}

/// The plain loop, one element at a time.
#[inline]
pub fn run_scalar<O: Op>(op: &O, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>) {
    super::elementwise(x, y, dydx, |v| op.eval(v));
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128 {
    use super::Op;
    use crate::quant::lane::F32x4;

    #[inline]
    pub fn run<O: Op>(op: &O, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>) {
        assert_eq!(x.len(), y.len());
        let body = x.len() / 4 * 4;
        match dydx {
            Some(d) => {
                assert_eq!(x.len(), d.len());
                for i in (0..body).step_by(4) {
                    let (v, g) = op.eval(F32x4::load(&x[i..]));
                    v.store(&mut y[i..]);
                    g.store(&mut d[i..]);
                }
                for i in body..x.len() {
                    (y[i], d[i]) = op.eval(x[i]);
                }
            }
            None => {
                for i in (0..body).step_by(4) {
                    op.eval(F32x4::load(&x[i..])).0.store(&mut y[i..]);
                }
                for i in body..x.len() {
                    y[i] = op.eval(x[i]).0;
                }
            }
        }
    }
}
