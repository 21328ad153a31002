//! NVFP4 as torchao 0.18 computes it: `NVFP4Tensor.to_nvfp4(x, per_tensor_scale=t)
//! .dequantize(torch.float32)` (torchao/prototype/mx_formats/nvfp4_tensor.py `nvfp4_quantize`,
//! `per_tensor_amax_to_scale`, `get_hp_scales`; tests/conformance/torchao_mx.txt holds it to
//! the bit). torchao takes 2-D tensors only: a 1-D input is one row.
//!
//! Per block of 16 consecutive elements, with `amax = max|x|` (NaN if any is), in float32:
//! - one level (`per_tensor_scale=None`): `s = e4m3(clamp(amax / 6, 2^−6, 448))` (NaN stays
//!   NaN), elements `x · (1 / s)` — a rounded reciprocal, as torchao multiplies to match its
//!   Triton kernel — and back `· s`;
//! - two levels (a per-tensor scale `t`: a given number, or `'auto'` =
//!   `per_tensor_amax_to_scale(amax of the tensor)` = `amax / 2688`, 2688 = 448 · 6):
//!   `s = e4m3(clamp(amax / 6 / t, 2^−6, 448))`, elements `x · ((1 / t) / s)` and back
//!   `· (t · s)`;
//! - between the two, the elements are clamped to ±6 and cast to FP4 E2M1 (ml_dtypes' rounding
//!   on every non-NaN value; torchao's cast makes a NaN ±1.5, which only 0 · inf produces here).
//!
//! So one level saturates beyond 6 · 448 = 2688 and flushes a block below 6 · 2^−6 = 0.09375
//! onto the grid of 2^−6 · {0, 0.5, …}; `'auto'` on an all-zero tensor divides 0 by 0 and gives
//! NaN everywhere. torchao asserts whole blocks of 16; qscope cuts the tail into a shorter block
//! of its own ([`crate::blocks`]). Gradient: qscope's identity. torchao's autograd through
//! `to_nvfp4` reaches only the block scales (the elements pass through integer bit views), so
//! `d(Σy)/dx` is 0 except at each block's largest element.

use crate::Layout;
use crate::blocks::{self, BlockAmax};
use crate::frozen::{Fixed, Frozen};
use crate::lane::{Lane, clip};
use crate::ml_dtypes::{Float4E2M1Fn, Float8E4M3Fn, Format};
use crate::schema::{AutoScale, Kind, quantizer};
use crate::simd::{self, OnLanes};
use crate::torchao::{BlockCast, E2M1, TypedCast};
use crate::{Block, Ctx, Facts, Kernel, Levels, Report, each_row};

/// Elements per block (torchao asserts 16).
pub const NVFP4_BLOCK: usize = 16;

/// `F8E4M3_MAX · F4_E2M1_MAX`: `per_tensor_amax_to_scale` divides the tensor's amax by it.
pub const AMAX_PER_TENSOR_SCALE: f32 = 2688.0;

/// torchao's `E4M3_EPS`: `torch.finfo(torch.float8_e4m3fn).tiny`, the smallest block scale.
pub const E4M3_EPS: f32 = 0.015_625;

quantizer! {
    /// NVIDIA's NVFP4: blocks of 16 FP4 (E2M1) elements share an E4M3 scale from the block's
    /// amax, optionally under a float32 per-tensor scale. The curve is drawn at one block's
    /// scale (the sweep's own block by default).
    pub struct Nvfp4: Torchao "nvfp4" {
        summary: "NVFP4: FP4 E2M1 elements, an E4M3 scale per block of 16, optionally a per-tensor scale",
        forward: "per block: s = e4m3(clamp(amax/6 [/t], 2^−6, 448));  \
                  q(x) = fp4(clamp(x·(1/s) [x·((1/t)/s)], ±6))·s [·(t·s)];  'auto': t = amax/2688",
        backward: "∂q/∂x = 1 (qscope's: torchao's autograd reaches only the block scales)",
        figure: {
            args: "",
            x: (-2.0, 2.0),
            why: "the default: one block spanning the range, FP4 values times its E4M3 scale",
        },
        /// None: E4M3 block scales alone; 'auto': the tensor's amax / 2688 (two-level
        /// scaling); a number: that per-tensor scale.
        per_tensor_scale: AutoScale = AutoScale::None, Kind::AutoScale { min: 1e-30, max: 1e30 };
    }
}

/// The E4M3 (float8_e4m3fn) byte of a value of that format that is not negative; a NaN is
/// 0x7f with the NaN's sign bit (torch's cast keeps it: inf/inf gives 0xff on x86).
pub fn e4m3_code(v: f32) -> u32 {
    if v.is_nan() {
        return 0x7f | ((v.to_bits() >> 24) & 0x80);
    }
    if v < 2f32.powi(-6) {
        return (v * 512.0) as u32; // subnormals: k·2^−9
    }
    let bits = v.to_bits();
    ((((bits >> 23) & 0xff) - 120) << 3) | ((bits >> 20) & 7) // biased 127 → 7
}

impl Nvfp4 {
    fn format() -> Format {
        Float4E2M1Fn::FORMAT
    }

    /// The per-tensor scale of tensor `x` (None for one level).
    pub fn tensor_scale(&self, x: &[f32]) -> Option<f32> {
        match self.per_tensor_scale {
            AutoScale::None => None,
            AutoScale::Auto => Some(blocks::amax(x) / AMAX_PER_TENSOR_SCALE),
            AutoScale::Value(v) => Some(v as f32),
        }
    }

    /// The E4M3 block scale torchao stores for a block of this amax.
    pub fn block_scale(amax: f32, tensor_scale: Option<f32>) -> f32 {
        let s = amax / 6.0;
        let s = tensor_scale.map_or(s, |t| s / t);
        Float8E4M3Fn::FORMAT.cast(clip(s, E4M3_EPS, 448.0))
    }

    /// The cast of a block whose E4M3 scale is `s`: `x·(1/s)` and back `·s`, or with a
    /// per-tensor `t`, `x·((1/t)/s)` and back `·(t·s)`.
    pub fn cast(s: f32, tensor_scale: Option<f32>) -> BlockCast {
        let (rcp, scale) = match tensor_scale {
            None => (1.0 / s, s),
            Some(t) => ((1.0 / t) / s, t * s),
        };
        BlockCast { format: Self::format(), rcp, scale }
    }
}

/// [`Nvfp4::block_scale`] and [`Nvfp4::cast`] of the blocks whose amaxes are the lanes of
/// `amax`: `(s, rcp, scale)`, lane by lane the same IEEE operations (the scalar functions are
/// the oracle).
#[inline(always)]
fn scales_on<V: Lane>(amax: V, t: Option<f32>) -> (V, V, V) {
    let s = amax / V::splat(6.0);
    let s = t.map_or(s, |t| s / V::splat(t));
    let s = Float8E4M3Fn::FORMAT.cast(clip(s, V::splat(E4M3_EPS), V::splat(448.0)));
    match t {
        None => (s, V::splat(1.0) / s, s),
        Some(t) => (s, V::splat(1.0 / t) / s, V::splat(t) * s),
    }
}

/// A chunk's blocks' casts and numbers from their amaxes, [`scales_on`] `V::WIDTH` blocks at a
/// time (a block's few vectors would otherwise wait on its two scalar divisions and cast), the
/// blocks that do not fill a vector one at a time.
struct ScalesOf<'a> {
    stats: &'a [BlockAmax],
    len: usize,
    t: Option<f32>,
    ops: &'a mut Vec<TypedCast<E2M1>>,
    blocks: &'a mut Vec<Block>,
}

impl OnLanes for ScalesOf<'_> {
    type Output = ();
    #[inline(always)]
    fn on<V: Lane>(self) {
        const MAX_WIDTH: usize = 16;
        assert!(V::WIDTH <= MAX_WIDTH, "lanes wider than {MAX_WIDTH}");
        let ScalesOf { stats, len, t, ops, blocks } = self;
        let mut push = |amax: &[f32], s: V, rcp: V, scale: V| {
            let (mut ss, mut rr, mut cc) = ([0.0f32; MAX_WIDTH], [0.0f32; MAX_WIDTH], [0.0f32; MAX_WIDTH]);
            s.store(&mut ss);
            rcp.store(&mut rr);
            scale.store(&mut cc);
            for (l, &amax) in amax.iter().enumerate() {
                let cast = BlockCast { format: Nvfp4::format(), rcp: rr[l], scale: cc[l] };
                ops.push(TypedCast::new(cast));
                blocks.push(Block { len, amax, scale: ss[l], code: Some(e4m3_code(ss[l])), zero_point: None });
            }
        };
        let body = stats.len() - stats.len() % V::WIDTH;
        let mut amax = [0.0f32; MAX_WIDTH];
        for group in stats[..body].chunks_exact(V::WIDTH) {
            for (a, &BlockAmax(b)) in amax.iter_mut().zip(group) {
                *a = b;
            }
            let (s, rcp, scale) = scales_on(V::load(&amax), t);
            push(&amax[..V::WIDTH], s, rcp, scale);
        }
        for &BlockAmax(a) in &stats[body..] {
            let (s, rcp, scale) = scales_on(a, t);
            push(&[a], V::splat(s), V::splat(rcp), V::splat(scale));
        }
    }
}

impl Nvfp4 {
    /// One row's blocks at the per-tensor scale `t` ([`blocks::run_chunked`]: a chunk's scales
    /// on lanes, [`ScalesOf`]).
    fn row_blocks(x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, t: Option<f32>) -> Vec<Block> {
        blocks::run_chunked(x, y, dydx, NVFP4_BLOCK, |stats: &[BlockAmax], len, ops, blocks| {
            simd::on_lanes(ScalesOf { stats, len, t, ops, blocks })
        })
    }

    fn report(&self, x: &[f32], t: Option<f32>, blocks: Vec<Block>) -> Report {
        let amax = (self.per_tensor_scale == AutoScale::Auto).then(|| blocks::amax(x));
        Report { scale: t, amax, blocks, ..Report::default() }
    }
}

impl Kernel for Nvfp4 {
    fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, _: &mut Ctx) -> Report {
        let t = self.tensor_scale(x);
        self.report(x, t, Self::row_blocks(x, y, dydx, t))
    }

    /// A matrix is one tensor to torchao: the per-tensor scale ('auto') comes from the whole
    /// matrix's amax; each row is cut into its own blocks of 16.
    fn apply_rows(&self, x: &[f32], row_len: usize, y: &mut [f32], dydx: Option<&mut [f32]>, _: &mut Ctx) -> Report {
        let t = self.tensor_scale(x);
        let mut blocks = Vec::new();
        each_row(x, row_len, y, dydx, |xr, yr, d| blocks.extend(Self::row_blocks(xr, yr, d, t)));
        self.report(x, t, blocks)
    }

    /// The FP4 values times the first block's scale (and the per-tensor one); scale 1 without
    /// a block.
    fn levels(&self, report: &Report) -> Levels {
        let s = report.blocks.first().map_or(1.0, |b| b.scale);
        Self::cast(s, report.scale).levels()
    }
}

impl Facts for Nvfp4 {
    fn layout(&self) -> Layout {
        Layout::Rows
    }

    /// The cast at the report's first block's E4M3 scale and its per-tensor scale
    /// ([`Fixed::ScaledBlock`]); torchao has no parameter for a given block scale. With no
    /// block, NaN.
    fn freeze(&self, report: &Report) -> Option<Frozen> {
        let first = report.blocks.first().copied();
        let cast = Self::cast(first.map_or(f32::NAN, |b| b.scale), report.scale);
        let report =
            Report { scale: report.scale, amax: report.amax, blocks: first.into_iter().collect(), ..Report::default() };
        Some(Frozen::Fixed(Fixed::ScaledBlock { what: "torchao.nvfp4", cast, report }))
    }

    fn inert(&self) -> Vec<&'static str> {
        Vec::new()
    }

    /// 4-bit elements plus one 8-bit E4M3 scale per 16: 4.5 (the one float32 per-tensor scale
    /// is not counted: it is shared by the whole tensor).
    fn bits_per_element(&self) -> Option<f32> {
        Some(4.0 + 8.0 / NVFP4_BLOCK as f32)
    }

    fn block_size(&self) -> Option<usize> {
        Some(NVFP4_BLOCK)
    }

    /// Unless the per-tensor scale is taken from the tensor's amax.
    fn blocks_independent(&self) -> bool {
        !matches!(self.per_tensor_scale, AutoScale::Auto)
    }

    fn element_format(&self) -> Option<Format> {
        Some(Float4E2M1Fn::FORMAT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simd::Op;

    #[test]
    fn e4m3_codes_are_the_bytes_of_the_scale() {
        assert_eq!(
            [e4m3_code(448.0), e4m3_code(1.0), e4m3_code(E4M3_EPS), e4m3_code(f32::NAN)],
            [0x7e, 0x38, 0x08, 0x7f]
        );
        assert_eq!(e4m3_code(2f32.powi(-9)), 1);
    }

    #[test]
    fn a_block_scale_is_amax_over_6_in_e4m3_clamped_to_2_pow_minus_6_and_448() {
        // 7/6 = 1.1667 rounds to 1.125 in E4M3.
        assert_eq!(Nvfp4::block_scale(7.0, None), 1.125);
        assert_eq!(Nvfp4::block_scale(0.0, None), E4M3_EPS);
        assert_eq!(Nvfp4::block_scale(1e6, None), 448.0);
        assert!(Nvfp4::block_scale(f32::NAN, None).is_nan());
    }

    #[test]
    fn one_level_saturates_beyond_2688() {
        let c = Nvfp4::cast(Nvfp4::block_scale(5000.0, None), None);
        assert_eq!(c.eval(5000.0f32).0, 2688.0);
    }

    /// Every non-negative float32 amax and NaN, all 2^31 with `QSCOPE_EXHAUSTIVE=1 cargo test
    /// --release --lib torchao::nvfp4::tests::the_scales` (a few minutes).
    #[test]
    fn the_scales_on_four_lanes_are_the_scalar_block_scale_and_cast() {
        use crate::lane::Wide;
        let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || a.is_nan() && b.is_nan();
        for t in [None, Some(1.0), Some(3.0e-3), Some(7.5e4), Some(f32::NAN)] {
            let amaxes = (0..=0x7f80_0000u32).step_by(crate::every_float_step()).map(f32::from_bits);
            for a in amaxes.chain([0.0, f32::INFINITY, f32::NAN, 2688.0, 0.09375]) {
                let lanes = [a, a.next_up(), a * 0.75, 6.0 * E4M3_EPS];
                let (s, rcp, scale) = scales_on(Wide(lanes), t);
                for (l, &amax) in lanes.iter().enumerate() {
                    let want_s = Nvfp4::block_scale(amax, t);
                    let want = Nvfp4::cast(want_s, t);
                    assert!(same(s.0[l], want_s) && same(rcp.0[l], want.rcp), "{amax:e} at {t:?}");
                    assert!(same(scale.0[l], want.scale), "{amax:e} at {t:?}");
                }
            }
        }
    }

    #[test]
    fn two_levels_divide_by_the_tensor_scale_before_rounding_the_block_scale() {
        let t = 5000.0 / AMAX_PER_TENSOR_SCALE;
        let s = Nvfp4::block_scale(5000.0, Some(t));
        assert_eq!(s, 448.0);
        assert_eq!(Nvfp4::cast(s, Some(t)).eval(5000.0f32).0, 6.0 * (t * 448.0));
    }
}
