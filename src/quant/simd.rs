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

/// Whether the f32x4 path runs: compiled in and not forced scalar.
#[inline]
pub fn enabled() -> bool {
    SIMD && !FORCE_SCALAR.load(Ordering::Relaxed)
}

/// Runs `op` over the slice: SIMD when available (unless forced scalar), else scalar.
#[inline]
pub fn run<O: Op>(op: &O, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>) {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    if enabled() {
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
    use core::arch::wasm32::{v128, v128_load, v128_store};

    use super::Op;
    use crate::quant::lane::F32x4;

    /// Four lanes at a time, then the scalar tail. Raw pointers keep bounds checks out of the
    /// loop (the lengths are checked once, above it).
    #[inline]
    pub fn run<O: Op>(op: &O, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>) {
        let n = x.len();
        assert_eq!(n, y.len());
        let body = n / 4 * 4;
        let (xp, yp) = (x.as_ptr(), y.as_mut_ptr());
        match dydx {
            Some(d) => {
                assert_eq!(n, d.len());
                let dp = d.as_mut_ptr();
                let mut i = 0;
                while i < body {
                    // SAFETY: i + 4 ≤ body ≤ n = len of x, y and d; v128 access needs no alignment.
                    unsafe {
                        let (v, g) = op.eval(F32x4(v128_load(xp.add(i) as *const v128)));
                        v128_store(yp.add(i) as *mut v128, v.0);
                        v128_store(dp.add(i) as *mut v128, g.0);
                    }
                    i += 4;
                }
                for i in body..n {
                    (y[i], d[i]) = op.eval(x[i]);
                }
            }
            None => {
                let mut i = 0;
                while i < body {
                    // SAFETY: as above, for x and y.
                    unsafe {
                        let v = op.eval(F32x4(v128_load(xp.add(i) as *const v128))).0;
                        v128_store(yp.add(i) as *mut v128, v.0);
                    }
                    i += 4;
                }
                for i in body..n {
                    y[i] = op.eval(x[i]).0;
                }
            }
        }
    }
}
