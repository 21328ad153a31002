//! Slice drivers for elementwise kernels: `Lane::WIDTH` elements at a time with an explicit
//! scalar tail — on `F32x4` where `simd128` is enabled (the page), on `F32x8` where the native
//! build targets AVX2 (the command line) — and the plain scalar loop everywhere else. A kernel's
//! math is one generic [`Op::eval`] over [`Lane`], and the scalar loop is the same `eval` at
//! `f32`, so every path computes the same bits (tests/wasm.rs checks it in the browser, the
//! tests below natively).
//!
//! A quantizer that is its own [`Op`] takes its [`super::Kernel::apply`] from
//! `op_apply!`: a new elementwise quantizer writes only its op (and its levels).

use std::sync::atomic::{AtomicBool, Ordering};

use super::lane::Lane;

/// An elementwise forward/backward pair, generic over one element or four.
pub trait Op {
    /// `(q(x), ∂q/∂x)` per lane.
    fn eval<V: Lane>(&self, x: V) -> (V, V);

    /// [`run_lanes`] over one block of a block format ([`super::blocks`]): an op that takes one
    /// of two forms per block picks its form here, once per block rather than per vector.
    #[inline(always)]
    fn run_block<V: Lane>(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>)
    where
        Self: Sized,
    {
        run_lanes::<V, Self>(self, x, y, dydx)
    }
}

/// The [`super::Kernel::apply`] of a quantizer that is its own [`Op`] and reports nothing:
/// [`run`] over the slice. Invoked inside the `impl Kernel` block, beside the quantizer's
/// other kernel methods.
macro_rules! op_apply {
    () => {
        fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, _: &mut $crate::Ctx) -> $crate::Report {
            $crate::simd::run(self, x, y, dydx);
            $crate::Report::default()
        }
    };
}
pub(crate) use op_apply;

static FORCE_SCALAR: AtomicBool = AtomicBool::new(false);

/// Makes [`run`] take the scalar loop even where SIMD is compiled in (for the SIMD =
/// scalar tests and the scalar benchmark figures). The page never asks.
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
        return run_lanes::<super::lane::F32x4, O>(op, x, y, dydx);
    }
    #[cfg(test)]
    if tests::FOUR_LANES.get() {
        return run_lanes::<super::lane::Wide<f32, 4>, O>(op, x, y, dydx);
    }
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    if native() {
        return run_lanes::<super::lane::F32x8, O>(op, x, y, dydx);
    }
    run_scalar(op, x, y, dydx)
}

/// Whether the native eight-lane path runs: built for AVX2 (the native build targets its CPU,
/// .cargo/config.toml) and not forced scalar.
#[inline]
pub fn native() -> bool {
    #[cfg(test)]
    if tests::SCALAR.get() {
        return false;
    }
    cfg!(all(target_arch = "x86_64", target_feature = "avx2")) && !FORCE_SCALAR.load(Ordering::Relaxed)
}

/// A computation written once over [`Lane`], for [`on_lanes`] to run on the lanes [`run`] would
/// use (Rust closures cannot be generic, so it is a trait).
pub trait OnLanes {
    type Output;
    /// The computation on `V` lanes.
    fn on<V: Lane>(self) -> Self::Output;
}

/// Runs `w` on the lanes [`run`] takes — `F32x4` where the SIMD path runs, `F32x8` natively with
/// AVX2, `f32` elsewhere (and
/// `Wide<f32, 4>` under the SIMD = scalar tests' switch) — choosing once for a whole tensor:
/// the block formats' per-block work runs on the same lanes without asking again per block.
#[inline]
pub fn on_lanes<W: OnLanes>(w: W) -> W::Output {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    if enabled() {
        return w.on::<super::lane::F32x4>();
    }
    #[cfg(test)]
    if tests::FOUR_LANES.get() {
        return w.on::<super::lane::Wide<f32, 4>>();
    }
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    if native() {
        return w.on::<super::lane::F32x8>();
    }
    w.on::<f32>()
}

/// The plain loop, one element at a time: [`Op::eval`] at `f32`.
#[inline]
pub fn run_scalar<O: Op>(op: &O, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>) {
    super::elementwise(x, y, dydx, |v| op.eval(v));
}

/// `V::WIDTH` elements at a time over the longest prefix that fills whole lanes, then the
/// tail on the scalar path ([`run_scalar`]). `x`, `y` and `dydx` have the same length.
/// (Natively the unit tests run it on `Wide<f32, 4>`, the portable twin of `F32x4`; at `f32`
/// it is the scalar loop.)
#[inline(always)]
pub fn run_lanes<V: Lane, O: Op>(op: &O, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>) {
    let n = x.len();
    assert_eq!(n, y.len());
    let body = n - n % V::WIDTH;
    let (x, x_tail) = x.split_at(body);
    let (y, y_tail) = y.split_at_mut(body);
    let lanes = x.chunks_exact(V::WIDTH).zip(y.chunks_exact_mut(V::WIDTH));
    match dydx {
        Some(d) => {
            assert_eq!(n, d.len());
            let (d, d_tail) = d.split_at_mut(body);
            for ((xs, ys), ds) in lanes.zip(d.chunks_exact_mut(V::WIDTH)) {
                let (v, g) = op.eval(V::load(xs));
                v.store(ys);
                g.store(ds);
            }
            run_scalar(op, x_tail, y_tail, Some(d_tail));
        }
        None => {
            for (xs, ys) in lanes {
                op.eval(V::load(xs)).0.store(ys);
            }
            run_scalar(op, x_tail, y_tail, None);
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::cell::Cell;

    use crate::{Ctx, ENTRIES};

    thread_local! {
        /// Makes [`super::run`] (and `random::run_drawn`, `blocks::run`) take the four-lane driver on
        /// `Wide<f32, 4>` (this thread only).
        pub(crate) static FOUR_LANES: Cell<bool> = const { Cell::new(false) };
        /// Makes [`super::run`] and [`super::on_lanes`] take the scalar loop natively (this thread
        /// only), where they would take the eight AVX2 lanes.
        pub(crate) static SCALAR: Cell<bool> = const { Cell::new(false) };
    }

    /// Every quantizer's outputs and gradients on `x`, with `path` set for the evaluation.
    fn bits_on(
        path: &'static std::thread::LocalKey<Cell<bool>>,
        x: &[f32],
        q: &crate::Quantizer,
        training: bool,
    ) -> [Vec<u32>; 2] {
        path.set(true);
        let (y, g, _) = q.eval(x, &mut Ctx { training, ..Ctx::training(1) });
        path.set(false);
        [y, g].map(|v| v.into_iter().map(f32::to_bits).collect())
    }

    fn specials() -> Vec<f32> {
        let specials = [0.0, -0.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1e-9, -1e-9, 3e6, -3e6, 0.5];
        (-600..=600).map(|k| k as f32 / 128.0).chain(specials).collect()
    }

    /// The native SIMD path (eight AVX2 lanes where the build targets them; .cargo/config.toml
    /// builds for the CPU at hand) gives the scalar loop's bits for every quantizer, with a tail.
    #[test]
    fn eight_lanes_and_the_scalar_loop_agree_for_every_quantizer() {
        let x = specials();
        assert_ne!(x.len() % 8, 0, "a tail to run");
        assert_eq!(
            super::native(),
            cfg!(all(target_arch = "x86_64", target_feature = "avx2")),
            "the path compiled in runs"
        );
        for q in ENTRIES.iter().map(|e| (e.default)()) {
            for training in [false, true] {
                let native = {
                    let (y, g, _) = q.eval(&x, &mut Ctx { training, ..Ctx::training(1) });
                    [y, g].map(|v| v.into_iter().map(f32::to_bits).collect::<Vec<_>>())
                };
                assert_eq!(native, bits_on(&SCALAR, &x, &q, training), "{q} (training: {training})");
            }
        }
    }

    /// The SIMD = scalar check of tests/wasm.rs, natively: the lane-generic driver with its
    /// scalar tail gives the scalar loop's bits for every quantizer, ties and specials included.
    #[test]
    fn four_lanes_and_the_scalar_loop_agree_for_every_quantizer() {
        let x = specials();
        assert_ne!(x.len() % 4, 0, "a tail to run");
        for q in ENTRIES.iter().map(|e| (e.default)()) {
            // Stochastic ones too: the same seed gives each element the same draws on both.
            for training in [false, true] {
                let (lanes, scalar) = (bits_on(&FOUR_LANES, &x, &q, training), bits_on(&SCALAR, &x, &q, training));
                assert_eq!(lanes, scalar, "{q} (training: {training})");
            }
        }
    }
}
