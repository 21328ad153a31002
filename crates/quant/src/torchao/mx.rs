//! OCP MX block formats as torchao 0.18 computes them:
//! `MXTensor.to_mx(x, elem_dtype, block_size, scaling_mode).dequantize(torch.float32)`
//! (torchao/prototype/mx_formats/mx_tensor.py `to_mx`, `_to_mx_rceil`, `get_fp_scale`,
//! `to_dtype`; tests/conformance/torchao_mx.txt holds it to the bit).
//!
//! Per block of `block_size` consecutive elements, with `amax = max|x|` (NaN if any is):
//! - `floor`, `ceil`, `even`: the E8M0 code is `⌊log2 amax⌋ − emax + 127` read from amax's
//!   float32 exponent bits (`ceil` adds 1 when its mantissa bits are not all 0; `even` first
//!   adds half an element-mantissa step to amax's bits and clears its mantissa), clamped to
//!   0…255; 255 (NaN) when amax is NaN. `emax` is the exponent of the element's largest power of
//!   two (e4m3 8, e5m2 15, fp6_e2m3 2, fp6_e3m2 4, fp4_e2m1 2). Elements are divided by
//!   `max(2^(code−127), 2^−126)` — torchao clamps the divisor to float32's smallest normal.
//! - `rceil`: `descale = amax / max` in float32, code `clamp(⌈log2 descale⌉, −127, 127) + 127`
//!   (log2 rounded to float32 first, so just above a power of two it stays there), 254 for an
//!   inf amax, 255 for NaN; elements are multiplied by `2^(127−code)`, but by 1 for code 0 and
//!   by 2^−127 for code 254.
//! - Then the elements are clamped to ±max (NaN stays), cast to the element type (ml_dtypes'
//!   rounding: torch's float8 casts and torchao's fp6/fp4 bit-twiddling agree with it on every
//!   non-NaN float32) and multiplied back by `2^(code−127)` (2^−127 for code 0: a block whose
//!   code is 0 is divided by 2^−126 but multiplied by 2^−127, so it comes back halved; NaN for
//!   code 255).
//!
//! torchao asserts that the length is a multiple of the block size; qscope cuts the tail into a
//! shorter block of its own ([`crate::blocks`]).
//!
//! Gradient: qscope's, the identity, 1 everywhere — as torchao's MX training passes it (its
//! `mx_mm` autograd function hands the gradient computed with the quantized operand to the
//! high-precision one). MX itself defines none: torch's autograd straight through
//! `to_mx(...).dequantize()` differentiates the clamp and the float8 cast for FP8 elements (1
//! where |x/scale| < max, 0 where clamped, at the bound too under torch 2.15) and gives FP6/FP4
//! elements, cast by integer bit arithmetic, no gradient at all.

use crate::Layout;
use std::marker::PhantomData;

use crate::blocks::{self, BlockAmax};
use crate::frozen::{Fixed, Frozen};
use crate::lane::Lane;
use crate::ml_dtypes::*;
use crate::schema::{Kind, choice, quantizer};
use crate::simd::{self, Op};
use crate::{Block, Ctx, Facts, Kernel, Levels, Report};

choice! {
    /// torchao's MX element dtype: `torch.float8_e4m3fn`, `torch.float8_e5m2`, the strings
    /// `"fp6_e2m3"` and `"fp6_e3m2"`, and `torch.float4_e2m1fn_x2` (two FP4 per byte).
    ElemDtype {
        F8E4M3 = "float8_e4m3fn",
        F8E5M2 = "float8_e5m2",
        F6E2M3 = "fp6_e2m3",
        F6E3M2 = "fp6_e3m2",
        F4E2M1 = "fp4_e2m1",
    }
}

impl ElemDtype {
    /// The element format, as ml_dtypes defines it.
    pub fn format(self) -> Format {
        match self {
            ElemDtype::F8E4M3 => Float8E4M3Fn::FORMAT,
            ElemDtype::F8E5M2 => Float8E5M2::FORMAT,
            ElemDtype::F6E2M3 => Float6E2M3Fn::FORMAT,
            ElemDtype::F6E3M2 => Float6E3M2Fn::FORMAT,
            ElemDtype::F4E2M1 => Float4E2M1Fn::FORMAT,
        }
    }

    /// The `elem_dtype` argument as torchao takes it, in Python.
    pub fn torch(self) -> &'static str {
        match self {
            ElemDtype::F8E4M3 => "torch.float8_e4m3fn",
            ElemDtype::F8E5M2 => "torch.float8_e5m2",
            ElemDtype::F6E2M3 => "\"fp6_e2m3\"",
            ElemDtype::F6E3M2 => "\"fp6_e3m2\"",
            ElemDtype::F4E2M1 => "torch.float4_e2m1fn_x2",
        }
    }
}

choice! {
    /// torchao's `ScaleCalculationMode` (its values are these strings).
    ScalingMode { Floor = "floor", Rceil = "rceil", Ceil = "ceil", Even = "even" }
}

impl ScalingMode {
    /// The enum member, as Python writes it.
    pub fn torch(self) -> &'static str {
        match self {
            ScalingMode::Floor => "ScaleCalculationMode.FLOOR",
            ScalingMode::Rceil => "ScaleCalculationMode.RCEIL",
            ScalingMode::Ceil => "ScaleCalculationMode.CEIL",
            ScalingMode::Even => "ScaleCalculationMode.EVEN",
        }
    }
}

/// The E8M0 code of NaN.
pub const E8M0_NAN: u32 = 255;

/// The value torchao's fp6/fp4 cast gives a NaN (its bit arithmetic lands on code ±1.5).
const FLOATX_NAN: f32 = 1.5;

quantizer! {
    /// An OCP MX block format: blocks of `block_size` elements share one E8M0 (power-of-two)
    /// scale from the block's amax, each element an FP8/FP6/FP4 number. The curve is drawn at
    /// one block's scale (the sweep's own block by default).
    pub struct Mx: Torchao "mx" {
        summary: "MX block format: an E8M0 power-of-two scale per block of 32, FP8/FP6/FP4 elements",
        forward: "per block: code = ⌊log2 amax⌋ − emax + 127 (floor; rceil ⌈log2(amax/max)⌉ + 127);  \
                  q(x) = elem(clamp(x / 2^(code−127), ±max)) · 2^(code−127)",
        backward: "∂q/∂x = 1 (qscope's, as torchao's MX training passes it; MX itself defines none)",
        figure: {
            args: "elem_dtype='fp4_e2m1'",
            x: (-2.0, 2.0),
            why: "MXFP4 (FP4 elements; the default FP8 elements are too fine to see): one block spanning the range, \
                  its power-of-two scale times ±{0, 0.5, …, 6}",
        },
        /// The element type: MXFP8 (e4m3, e5m2), MXFP6 (e2m3, e3m2) or MXFP4 (e2m1).
        elem_dtype: ElemDtype = ElemDtype::F8E4M3, Kind::Choice(ElemDtype::CHOICES);
        /// Elements per block sharing one scale (the OCP spec's 32).
        block_size: i32 = 32, Kind::Int { min: 1, max: 1024 };
        /// How the block's E8M0 exponent is derived from its amax (torchao's ScaleCalculationMode).
        scaling_mode: ScalingMode = ScalingMode::Floor, Kind::Choice(ScalingMode::CHOICES);
    }
}

/// A block's elementwise cast: `elem(clamp(x·rcp, ±max))·scale`, gradient 1. torchao's fp6/fp4
/// cast turns a NaN into ±1.5 (ml_dtypes into ∓0); a NaN reaches it only with a NaN `scale`
/// in MX, or from 0·inf in NVFP4's two-level reciprocal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockCast {
    pub format: Format,
    /// What the elements are multiplied by before the cast (1/scale, exactly or as torchao rounds it).
    pub rcp: f32,
    /// What the cast elements are multiplied by (the decoded block scale, times NVFP4's per-tensor one).
    pub scale: f32,
}

impl Op for BlockCast {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        (block_cast(self.format, self.rcp, self.scale, x), V::splat(1.0))
    }
}

/// An element format fixed at compile time: a kernel generic over it folds the format's
/// constants and its specials' branch into the loop, where a [`BlockCast`] reads them per block.
pub trait ConstFormat {
    const FORMAT: Format;
}

/// `elem_formats! { Marker = CastType, … }`: one [`ConstFormat`] marker per element type.
macro_rules! elem_formats {
    ($($(#[doc = $doc:literal])* $marker:ident = $ty:ident),*) => {$(
        $(#[doc = $doc])*
        #[derive(Clone, Copy, Debug)]
        pub struct $marker;

        impl ConstFormat for $marker {
            const FORMAT: Format = $ty::FORMAT;
        }
    )*};
}

elem_formats! {
    /// float8_e4m3fn.
    E4M3 = Float8E4M3Fn,
    /// float8_e5m2.
    E5M2 = Float8E5M2,
    /// fp6_e2m3.
    E2M3 = Float6E2M3Fn,
    /// fp6_e3m2.
    E3M2 = Float6E3M2Fn,
    /// fp4_e2m1.
    E2M1 = Float4E2M1Fn
}

/// A [`BlockCast`] whose format `F` is fixed at compile time: the kernels' per-block op.
#[derive(Clone, Copy, Debug)]
pub struct TypedCast<F> {
    pub rcp: f32,
    pub scale: f32,
    format: PhantomData<F>,
}

impl<F: ConstFormat> TypedCast<F> {
    /// `cast`, whose format must be `F`'s.
    #[inline(always)]
    pub fn new(cast: BlockCast) -> Self {
        debug_assert_eq!(cast.format, F::FORMAT);
        TypedCast { rcp: cast.rcp, scale: cast.scale, format: PhantomData }
    }
}

impl<F: ConstFormat> Op for TypedCast<F> {
    /// [`block_cast`] but for a NaN `x·rcp`, which stays a NaN here ([`Format::cast_clamped`]):
    /// in MX and NVFP4 it comes only from a NaN element or a NaN `rcp`, whose block's scale is
    /// NaN too, so the block is NaN either way.
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        let max = V::splat(F::FORMAT.max());
        let q = F::FORMAT.cast_clamped((x * V::splat(self.rcp)).pmin(max).pmax(-max));
        (q * V::splat(self.scale), V::splat(1.0))
    }
}

/// The E8M0 codes whose blocks [`Pow2Cast`] casts: scales `S` from 2^−100 to 2^80, where `rcp`
/// is `1/S` exactly (below, code 0's scale is not `1/rcp`; above, `M` could overflow).
pub const POW2_CODES: std::ops::RangeInclusive<u32> = 27..=207;

/// A block's cast at a power-of-two scale `S` (an E8M0 code in [`POW2_CODES`]) in x's own units:
/// `x·(1/S)` and `·S` are exact there, and rounding commutes with them, so
/// `elem(clamp(x/S, ±max))·S` is x clamped to `±max·S` and rounded on the format's grid scaled
/// by `S` ([`Format::round_above`] from `2^lo·S`), its sign bit or-ed in — two multiplications
/// and the cast's overflow test fewer. The same bits on every float but NaN ([`BlockCast`] is
/// the oracle), and a NaN element makes its block's code 255, never one of these.
#[derive(Clone, Copy, Debug)]
pub struct Pow2Cast {
    /// `max·S`.
    pub bound: f32,
    /// `2^lo·S`, the lowest binade of the scaled grid.
    pub lowest: f32,
}

impl Pow2Cast {
    /// The cast of a block of format `f` whose E8M0 code is `code`, if it is in [`POW2_CODES`].
    #[inline(always)]
    pub fn new(f: Format, code: u32) -> Option<Pow2Cast> {
        let s = code as i32 - 127;
        POW2_CODES.contains(&code).then(|| Pow2Cast { bound: f.max() * pow2(s), lowest: pow2(f.min_exponent() + s) })
    }

    /// `elem(clamp(x/S, ±max))·S` of a non-NaN x.
    #[inline(always)]
    pub fn cast<V: Lane>(&self, f: Format, x: V) -> V {
        let bound = V::splat(self.bound);
        let c = x.pmin(bound).pmax(-bound);
        f.round_above(c, V::splat(self.lowest)).ior(c.iand(V::splat(-0.0)))
    }
}

/// An MX block's op: [`Pow2Cast`] where its code allows, else the cast as torchao writes it —
/// chosen once per block ([`Op::run_block`]), the rare second form out of line ([`run_typed`]),
/// so that the block driver's loops are not doubled.
#[derive(Clone, Copy, Debug)]
enum MxCast<F> {
    Pow2(TypedPow2<F>),
    Typed(TypedCast<F>),
}

/// A [`Pow2Cast`] in the format `F`.
#[derive(Clone, Copy, Debug)]
struct TypedPow2<F>(Pow2Cast, PhantomData<F>);

impl<F: ConstFormat> Op for TypedPow2<F> {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        (self.0.cast(F::FORMAT, x), V::splat(1.0))
    }
}

impl<F: ConstFormat> Op for MxCast<F> {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        match self {
            MxCast::Pow2(c) => c.eval(x),
            MxCast::Typed(c) => c.eval(x),
        }
    }

    #[inline(always)]
    fn run_block<V: Lane>(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>) {
        match self {
            MxCast::Pow2(c) => simd::run_lanes::<V, _>(c, x, y, dydx),
            MxCast::Typed(c) => run_typed::<V, F>(c, x, y, dydx),
        }
    }
}

/// [`simd::run_lanes`] of a [`TypedCast`], out of line: an MX block whose code is outside
/// [`POW2_CODES`].
#[inline(never)]
fn run_typed<V: Lane, F: ConstFormat>(c: &TypedCast<F>, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>) {
    simd::run_lanes::<V, _>(c, x, y, dydx)
}

/// `elem(clamp(x·rcp, ±max))·scale`, with torchao's ±1.5 for a NaN reaching an fp6/fp4 cast.
///
/// `torch.clamp(t, −max, max)` is `t.pmin(max).pmax(−max)`: a NaN `t` stays NaN (pmin/pmax keep
/// their first operand when a comparison fails). A saturating (fp6/fp4) cast takes everything
/// beyond ±max (±inf too) to ±max itself, so there the clamp is left out: the same value
/// (checked against the clamped formula in the tests).
#[inline(always)]
pub fn block_cast<V: Lane>(format: Format, rcp: f32, scale: f32, x: V) -> V {
    let t = x * V::splat(rcp);
    let q = if format.specials == Specials::Saturating {
        format.cast_nan_as(t, FLOATX_NAN)
    } else {
        let max = V::splat(format.max());
        format.cast(t.pmin(max).pmax(-max))
    };
    q * V::splat(scale)
}

impl BlockCast {
    /// Every finite output: the format's values times the scale.
    pub fn levels(&self) -> Levels {
        Levels::set(self.format.levels().into_iter().map(|v| v * self.scale).filter(|v| v.is_finite()).collect())
    }
}

/// [`Mx::code`] under `ScalingMode::Rceil` of a non-NaN amax: `⌈log2(amax / max)⌉ + 127`
/// (254 where the quotient overflows), with float64's log2 — a call, kept out of the kernel.
#[inline(never)]
fn rceil_code(f: Format, amax: f32) -> u32 {
    let descale = amax / f.max();
    if descale.is_infinite() {
        return 254;
    }
    let e = (f64::from(descale).log2() as f32).ceil().clamp(-127.0, 127.0);
    (e as i32 + 127) as u32
}

/// `get_fp_scale`: the E8M0 code's value, `2^(code−127)` (2^−127, a float32 subnormal, for 0;
/// NaN for 255).
#[inline]
pub fn e8m0_value(code: u32) -> f32 {
    if code >= E8M0_NAN { f32::NAN } else { pow2(code as i32 - 127) }
}

impl Mx {
    /// The element format.
    pub fn format(&self) -> Format {
        self.elem_dtype.format()
    }

    /// The E8M0 code torchao derives from a block's amax under this scaling mode.
    pub fn code(&self, amax: f32) -> u32 {
        self.code_in(self.format(), amax)
    }

    /// [`Mx::code`] with the element format `f` given (a constant in the kernel's loop, which
    /// this joins).
    #[inline(always)]
    fn code_in(&self, f: Format, amax: f32) -> u32 {
        if amax.is_nan() {
            return E8M0_NAN;
        }
        if self.scaling_mode == ScalingMode::Rceil {
            return rceil_code(f, amax);
        }
        let mut bits = amax.to_bits();
        if self.scaling_mode == ScalingMode::Even {
            bits = (bits + (1 << (22 - f.mantissa_bits))) & 0xff80_0000;
        }
        let mut e = ((bits >> 23) & 0xff) as i32 - 127;
        if self.scaling_mode == ScalingMode::Ceil && bits & 0x007f_ffff != 0 {
            e += 1;
        }
        ((e - f.max_exponent()).clamp(-127, 128) + 127) as u32
    }

    /// The cast of a block with E8M0 code `code`: what torchao multiplies (or divides) the
    /// elements by, and the decoded scale it multiplies them back with. (A division by the
    /// power of two `2^k` and a multiplication by `2^−k` round the same: both are exact.)
    pub fn cast(&self, code: u32) -> BlockCast {
        self.cast_in(self.format(), code)
    }

    /// [`Mx::cast`] in the element format `f`.
    #[inline(always)]
    fn cast_in(&self, format: Format, code: u32) -> BlockCast {
        let scale = e8m0_value(code);
        let rcp = match (self.scaling_mode, code) {
            (_, E8M0_NAN) => f32::NAN,
            (ScalingMode::Rceil, 254) => pow2(-127),
            (ScalingMode::Rceil, 0) => 1.0,
            (ScalingMode::Rceil, c) => pow2(127 - c as i32),
            // 1 / max(2^(c−127), 2^−126): a power of two, so its reciprocal is exact.
            (_, c) => pow2(127 - (c as i32).max(1)),
        };
        BlockCast { format, rcp, scale }
    }

    /// The cast and the numbers of a block of `len` elements whose amax is `amax`.
    pub fn block(&self, amax: f32, len: usize) -> (BlockCast, Block) {
        self.block_in(self.format(), amax, len)
    }

    /// [`Mx::block`] in the element format `f`.
    #[inline(always)]
    fn block_in(&self, f: Format, amax: f32, len: usize) -> (BlockCast, Block) {
        let code = self.code_in(f, amax);
        let cast = self.cast_in(f, code);
        (cast, Block { len, amax, scale: cast.scale, code: Some(code), zero_point: None })
    }

    /// The blocks of `x`, cast with the element format `F` (the elem_dtype's), each block's
    /// code and scale computed inline with `F`'s constants.
    fn run<F: ConstFormat>(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>) -> Vec<Block> {
        blocks::run(x, y, dydx, self.size(), |BlockAmax(amax), len| {
            let (cast, block) = self.block_in(F::FORMAT, amax, len);
            let op = match Pow2Cast::new(F::FORMAT, block.code.unwrap_or(E8M0_NAN)) {
                Some(c) => MxCast::Pow2(TypedPow2(c, PhantomData)),
                None => MxCast::Typed(TypedCast::<F>::new(cast)),
            };
            (op, block)
        })
    }

    fn size(&self) -> usize {
        self.block_size.max(1) as usize
    }
}

impl Kernel for Mx {
    fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, _: &mut Ctx) -> Report {
        let blocks = match self.elem_dtype {
            ElemDtype::F8E4M3 => self.run::<E4M3>(x, y, dydx),
            ElemDtype::F8E5M2 => self.run::<E5M2>(x, y, dydx),
            ElemDtype::F6E2M3 => self.run::<E2M3>(x, y, dydx),
            ElemDtype::F6E3M2 => self.run::<E3M2>(x, y, dydx),
            ElemDtype::F4E2M1 => self.run::<E2M1>(x, y, dydx),
        };
        Report { blocks, ..Report::default() }
    }

    /// The element values times the first block's scale (scale 1 without a block).
    fn levels(&self, report: &Report) -> Levels {
        let code = report.blocks.first().and_then(|b| b.code).unwrap_or(127);
        self.cast(code).levels()
    }
}

impl Facts for Mx {
    fn layout(&self) -> Layout {
        Layout::Rows
    }

    /// The cast at the report's first block's E8M0 code ([`Fixed::ScaledBlock`]); torchao has
    /// no parameter for a given block scale. With no block, NaN.
    fn freeze(&self, report: &Report) -> Option<Frozen> {
        let first = report.blocks.first().copied();
        let cast = first
            .and_then(|b| b.code)
            .map_or(BlockCast { format: self.format(), rcp: f32::NAN, scale: f32::NAN }, |code| self.cast(code));
        let report = Report { blocks: first.into_iter().collect(), ..Report::default() };
        Some(Frozen::Fixed(Fixed::ScaledBlock { what: "torchao.mx", cast, report }))
    }

    fn inert(&self) -> Vec<&'static str> {
        Vec::new()
    }

    /// The element's bits plus one 8-bit E8M0 scale per block: MXFP8 8.25, MXFP6 6.25,
    /// MXFP4 4.25 at blocks of 32.
    fn bits_per_element(&self) -> Option<f32> {
        Some(self.format().bits() as f32 + 8.0 / self.size() as f32)
    }

    fn block_size(&self) -> Option<usize> {
        Some(self.size())
    }

    /// Each block's shared exponent is its own.
    fn blocks_independent(&self) -> bool {
        true
    }

    fn element_format(&self) -> Option<Format> {
        Some(self.format())
    }
}

#[cfg(test)]
pub(crate) mod tests;
