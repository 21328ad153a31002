//! The quantizer and straight-through-estimator kernels: pure Rust, no web dependency.
//!
//! Data flows one way: spec text → [`spec::parse`] → [`Quantizer`] → [`Quantizer::apply`]
//! over a whole tensor (a slice: one channel) → values, gradients and a [`Report`] of the
//! data-dependent numbers (scale, threshold, learnable-parameter gradients).
//!
//! Each quantizer is one type in its family file (`qkeras/`, `larq.rs`, `beyond.rs`, `ml_dtypes.rs`, `torchao/`, `bnb.rs`) that
//! implements [`Kernel`] (the computation) and [`Facts`] (what it says about itself: data
//! dependence and its [`Frozen`] form, inert and learnable parameters), and one name in the
//! catalogue list (`catalogue.rs`), which generates [`Quantizer`] and its exhaustive dispatch.

pub mod beyond;
pub mod blocks;
pub mod bnb;
mod catalogue;
mod facts;
pub mod frozen;
pub mod inputs;
pub mod lane;
pub mod larq;
pub mod levels;
pub mod ml_dtypes;
pub mod numbers;
pub mod qkeras;
pub mod random;
pub mod round;
pub mod schema;
pub mod shaped;
pub mod simd;
pub mod spec;
pub mod text;
pub mod torchao;

/// The step between the float32 bit patterns an "every float" test checks: 4099 (about a
/// million patterns, every sign, binade and mantissa region) in the ordinary run, 1 — all 2^32,
/// a few minutes in release — with `QSCOPE_EXHAUSTIVE=1`, as a kernel rewrite is checked once.
#[cfg(test)]
pub(crate) fn every_float_step() -> usize {
    if std::env::var_os("QSCOPE_EXHAUSTIVE").is_some() { 1 } else { 4099 }
}

pub use catalogue::{ENTRIES, Entry, ParamRow, Quantizer};
pub(crate) use facts::elementwise_facts;
pub use facts::{Facts, Layout};
pub use frozen::{Fixed, Frozen};
pub use levels::Levels;
pub use schema::{Alpha, AutoScale, Family, Illustration, Info, Kind, Literal, ParamDef};
pub use spec::{SpecError, parse};

use random::Stream;

/// Evaluation context: training or inference behaviour, and the random stream that
/// stochastic quantizers draw from (same seed, same numbers).
pub struct Ctx {
    pub training: bool,
    pub rng: Stream,
}

impl Ctx {
    /// Training mode (the libraries' default for QAT), seeded.
    pub fn training(seed: u64) -> Self {
        Ctx { training: true, rng: Stream::new(seed) }
    }

    /// Inference mode (Keras learning phase 0), seeded.
    pub fn inference(seed: u64) -> Self {
        Ctx { training: false, rng: Stream::new(seed) }
    }
}

/// Data-dependent numbers a kernel computed for this tensor.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    /// The scale in use (e.g. QKeras `alpha='auto'`, LSQ step, magnitude-aware mean).
    pub scale: Option<f32>,
    /// The threshold in use (ternary, SteTern with ternary_weight_networks).
    pub threshold: Option<f32>,
    /// The absolute maximum a scale was computed from (torchao's tensorwise FP8 scale).
    pub amax: Option<f32>,
    /// Block formats (MX, NVFP4, int-k groups, NF4…): one entry per block or group, in order;
    /// empty for every other quantizer.
    pub blocks: Vec<Block>,
    /// d(Σy)/dθ for each learnable parameter θ (LSQ step, PACT clip…).
    pub param_grads: Vec<(&'static str, f32)>,
    /// Whether this evaluation drew random values (stochastic rounding in training…).
    pub stochastic: bool,
}

/// What a block format computed for one block (or group) of consecutive elements: the numbers
/// `eval --report` prints and the explorer's block view shows. A tensor whose length is not a
/// multiple of the block size ends with a shorter block of its own.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Block {
    /// The number of elements in the block (the block size, or fewer for the tail).
    pub len: usize,
    /// `max|x|` over the block (NaN if any element is), as the library computes it.
    pub amax: f32,
    /// The scale the elements are divided by before rounding (multiplied by after), as a
    /// float32 value: the decoded E8M0 / E4M3 scale, the affine scale, bitsandbytes' absmax.
    pub scale: f32,
    /// The stored scale's bits where the format stores it in a narrow type (E8M0 byte, E4M3
    /// byte), as an unsigned integer; `None` where the scale is stored as a float32/float16.
    pub code: Option<u32>,
    /// The zero point (asymmetric integer groups), as the library stores it.
    pub zero_point: Option<f32>,
}

/// A quantizer's computation over one tensor.
pub trait Kernel: schema::Schema {
    /// Checks that involve several parameters (each parameter's own range is in its
    /// schema). `Err((parameter, message))`.
    fn validate(&self) -> Result<(), (&'static str, String)> {
        Ok(())
    }

    /// Why this configuration cannot run in the given mode (the library raises there), if
    /// it cannot. `apply` still returns the inference behaviour in that case.
    fn unsupported(&self, _training: bool) -> Option<String> {
        None
    }

    /// Whether, in the given mode, outputs are random draws.
    fn is_stochastic(&self, _training: bool) -> bool {
        false
    }

    /// Writes `y = q(x)` and, if asked, `dydx[i] = ∂(Σ y)/∂x[i]` as the library's
    /// autodiff gives it. `x`, `y` and `dydx` have the same length.
    fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, ctx: &mut Ctx) -> Report;

    /// The values the output can take, given what [`Kernel::apply`] reported.
    fn levels(&self, report: &Report) -> Levels;

    /// Quantizes a row-major matrix whose rows have `row_len` elements, each row a tensor of its
    /// own: how the trainer applies a block format along a layer's input dimension
    /// ([`Facts::block_size`]). The reports' blocks are concatenated in row order; tensor-level
    /// numbers are the last row's. A format with a per-matrix statistic overrides it.
    fn apply_rows(&self, x: &[f32], row_len: usize, y: &mut [f32], dydx: Option<&mut [f32]>, ctx: &mut Ctx) -> Report {
        by_rows(x, row_len, y, dydx, ctx, &|xr, yr, d, ctx| self.apply(xr, yr, d, ctx))
    }
}

/// One tensor's quantization, as [`Kernel::apply`]: what [`by_rows`] runs on each row.
pub type ApplyFn<'a> = dyn Fn(&[f32], &mut [f32], Option<&mut [f32]>, &mut Ctx) -> Report + 'a;

/// [`Kernel::apply_rows`]' default: `apply` on each row, the rows' blocks concatenated, the
/// last row's report. Not generic (`apply` comes as `dyn`): one copy of the loop in a program,
/// not one per quantizer (54 in the page, ~1 KB each).
pub fn by_rows(
    x: &[f32],
    row_len: usize,
    y: &mut [f32],
    dydx: Option<&mut [f32]>,
    ctx: &mut Ctx,
    apply: &ApplyFn,
) -> Report {
    let mut report = Report::default();
    let mut blocks = Vec::new();
    each_row(x, row_len, y, dydx, |xr, yr, d| {
        report = apply(xr, yr, d, ctx);
        blocks.append(&mut report.blocks);
    });
    report.blocks = blocks;
    report
}

/// Calls `f(x_row, y_row, dydx_row)` for each row of `row_len` elements (the last may be
/// shorter) of a row-major matrix: [`Kernel::apply_rows`]' loop.
pub fn each_row(
    x: &[f32],
    row_len: usize,
    y: &mut [f32],
    mut dydx: Option<&mut [f32]>,
    mut f: impl FnMut(&[f32], &mut [f32], Option<&mut [f32]>),
) {
    let n = row_len.max(1);
    for (r, (xr, yr)) in x.chunks(n).zip(y.chunks_mut(n)).enumerate() {
        f(xr, yr, dydx.as_deref_mut().map(|d| &mut d[r * n..r * n + xr.len()]));
    }
}

/// Runs an elementwise forward/backward pair over a slice in one pass.
/// `f(x)` returns `(y, dy/dx)`; when no gradient is asked for, the gradient half is dead
/// code that the optimizer removes.
#[inline(always)]
pub fn elementwise(x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, mut f: impl FnMut(f32) -> (f32, f32)) {
    debug_assert_eq!(x.len(), y.len());
    match dydx {
        Some(d) => {
            debug_assert_eq!(x.len(), d.len());
            for ((xi, yi), di) in x.iter().zip(y.iter_mut()).zip(d.iter_mut()) {
                let (v, g) = f(*xi);
                *yi = v;
                *di = g;
            }
        }
        None => {
            for (xi, yi) in x.iter().zip(y.iter_mut()) {
                *yi = f(*xi).0;
            }
        }
    }
}

impl Quantizer {
    /// Convenience: evaluates a whole tensor, returning values, gradients and the report.
    pub fn eval(&self, x: &[f32], ctx: &mut Ctx) -> (Vec<f32>, Vec<f32>, Report) {
        let mut y = vec![0.0; x.len()];
        let mut g = vec![0.0; x.len()];
        let r = self.apply(x, &mut y, Some(&mut g), ctx);
        (y, g, r)
    }
}
