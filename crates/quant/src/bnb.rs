//! bitsandbytes 0.50's 4-bit block formats, bit for bit: `quantize_4bit(x, blocksize=…,
//! quant_type='nf4'|'fp4')` then `dequantize_4bit` on the CPU (tests/conformance/bnb.txt holds
//! them from the real package).
//!
//! What bitsandbytes computes (backends/default/ops.py `quantize_4bit`, the CPU's; its
//! dequantization in csrc/cpu_ops.cpp or, for an odd length, `_dequantize_4bit_compute`):
//! 1. The flat float32 tensor is cut into blocks of `blocksize`; a length that is not a multiple
//!    ends with a shorter tail block of its own.
//! 2. `absmax = max|x|` per block (`torch.max`: NaN if any element is NaN).
//! 3. A full block is scaled by a reciprocal, `x · (1 / max(absmax, 1e−38))`; the tail block by
//!    a division, `x / max(absmax, 1e−38)` — two roundings against one, so a tail can pick another
//!    code — and the tail stores the clamped absmax (an all-zero tail stores 1e−38, a full block
//!    0). Both are clamped to [−1, 1] (NaN stays NaN).
//! 4. The code is `torch.bucketize(scaled, midpoints)`: the table sorted by value, the float32
//!    midpoints `(a + b)/2` of neighbours as bounds, and the first bound ≥ scaled wins — a tie
//!    goes to the lower value; NaN lands above every bound, on the top value 1.
//! 5. `y = table[code] · absmax` in float32. An inf in the block makes absmax inf: finite
//!    elements scale to 0 and come back as 0·inf = NaN, ±inf scale to NaN and come back as
//!    1·inf = +inf (−inf too); a NaN makes the whole block NaN.
//!
//! The tables (`get_4bit_type`, normalised by its max |v|): NF4 the sixteen normal quantiles of
//! QLoRA (7 negative, 0 and 8 positive values in [−1, 1]), FP4 bitsandbytes' own 1-2-1 float with bias 2 —
//! {0, 0.0625, 2, 3, 4, 6, 8, 12}/12 and their negatives, not OCP E2M1. FP4 has two codes for 0
//! (0b0000 and 0b1000): quantization picks 0b1000 for 0 < scaled ≤ 0.0026; the table and the
//! AVX-512 and torch dequantizers give +0 for it, the scalar C++ kernel (no AVX-512, or a length
//! not a multiple of 16) −0. qscope gives +0 (README, "Where qscope deliberately differs").
//!
//! Gradient: bitsandbytes' 4-bit functions have no autograd; qscope's is the identity
//! (straight-through), as QLoRA never differentiates through the quantization of its weights.

use std::marker::PhantomData;

use super::blocks::{self, BlockAmax};
use super::frozen::{Fixed, Frozen};
use super::lane::Lane;
use super::schema::{Kind, quantizer};
use super::simd::{self, Op};
use super::{Block, Ctx, Facts, Kernel, Levels, Report};

/// The block sizes `quantize_4bit` accepts (it raises `ValueError('invalid blocksize …')` on
/// any other).
pub const BLOCKSIZES: [i32; 8] = [32, 64, 128, 256, 512, 1024, 2048, 4096];

/// The smallest absmax a block is scaled by (`absmax.clamp(min=1e-38)`, a float32 subnormal).
pub const MIN_ABSMAX: f32 = 1e-38;

/// A 4-bit code table: the sixteen values sorted ascending (as `bucketize` sees them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    Nf4,
    Fp4,
}

/// NF4, as `get_4bit_type('nf4')` lists it (already sorted): Python floats made float32.
const NF4: [f64; 16] = [
    -1.0,
    -0.6961928009986877,
    -0.5250730514526367,
    -0.39491748809814453,
    -0.28444138169288635,
    -0.18477343022823334,
    -0.09105003625154495,
    0.0,
    0.07958029955625534,
    0.16093020141124725,
    0.24611230194568634,
    0.33791524171829224,
    0.44070982933044434,
    0.5626170039176941,
    0.7229568362236023,
    1.0,
];

impl Table {
    /// The values, ascending. FP4 is `get_4bit_type('fp4')`: `[0, 0.0625, 8, 12, 4, 6, 2, 3]`
    /// and negatives divided by 12 in float32 (its `-0` is Python's integer 0: both zeros +0).
    pub const fn values(self) -> [f32; 16] {
        let mut v = [0.0f32; 16];
        let mut i = 0;
        while i < 16 {
            v[i] = match self {
                Table::Nf4 => NF4[i] as f32,
                Table::Fp4 => {
                    let pos = [0.0f32, 0.0625, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0];
                    if i < 8 { -(pos[7 - i] / 12.0) + 0.0 } else { pos[i - 8] / 12.0 }
                }
            };
            i += 1;
        }
        v
    }

    /// The fifteen bucket bounds: `(a + b) / 2` of neighbours, in float32.
    pub const fn bounds(self) -> [f32; 15] {
        let v = self.values();
        let mut b = [0.0f32; 15];
        let mut i = 0;
        while i < 15 {
            b[i] = (v[i] + v[i + 1]) / 2.0;
            i += 1;
        }
        b
    }

    /// Every finite output at a stored `absmax`: the values times it (FP4's two zeros are one
    /// level).
    pub fn levels(self, absmax: f32) -> Levels {
        Levels::set(self.values().iter().map(|v| v * absmax).filter(|v| v.is_finite()).collect())
    }

    /// `quant_type` as bitsandbytes spells it.
    pub fn name(self) -> &'static str {
        match self {
            Table::Nf4 => "nf4",
            Table::Fp4 => "fp4",
        }
    }
}

/// One block's elementwise work: `values[bucket(x·recip / div)] · absmax`, gradient 1. A full
/// block has `recip = 1/max(absmax, 1e−38)` and `div = 1`, the tail `recip = 1` and
/// `div = max(absmax, 1e−38)` (multiplying or dividing by 1 is exact, so one op serves both).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockCode {
    pub table: Table,
    /// A full block (else the tail).
    pub full: bool,
    pub recip: f32,
    pub div: f32,
    /// The stored absmax the codes are multiplied by.
    pub absmax: f32,
}

impl BlockCode {
    /// The block with this `max|x|`, full (`blocksize` elements) or the tail: a full block
    /// keeps the raw absmax and scales by its reciprocal, a tail stores the clamped one and
    /// divides by it.
    #[inline(always)]
    pub fn new(table: Table, amax: f32, full: bool) -> BlockCode {
        // torch.clamp(min=1e-38): NaN stays NaN.
        let clamped = if amax < MIN_ABSMAX { MIN_ABSMAX } else { amax };
        let (recip, div, absmax) = if full { (1.0 / clamped, 1.0, amax) } else { (1.0, clamped, clamped) };
        BlockCode { table, full, recip, div, absmax }
    }

    /// Every finite output at this block's absmax.
    pub fn levels(&self) -> Levels {
        self.table.levels(self.absmax)
    }

    /// The scaled value `x·recip / div` whose bucket is the code (before the clamp to [−1, 1]).
    pub fn scaled(&self, x: f32) -> f32 {
        x * self.recip / self.div
    }

    /// The index of the value `x` gets in the sorted table.
    pub fn bucket(&self, x: f32) -> usize {
        let t = self.scaled(x);
        self.table.bounds().iter().position(|&b| t <= b).unwrap_or(15)
    }
}

impl Op for BlockCode {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        let t = x * V::splat(self.recip) / V::splat(self.div);
        (bucket_value(self.table, t) * V::splat(self.absmax), V::splat(1.0))
    }
}

/// `values[bucketize(t, bounds)]`: the value of the first bound ≥ t, the top value when none
/// is (t above all, or NaN) — `torch.bucketize(right=False)`, a tie to the lower value. The
/// clamp of t to [−1, 1] never changes the bucket: −1 and below fall under the first bound, 1
/// and above over the last.
///
/// The value's bits are summed, not selected: above each bound the table moves one value up,
/// so `bits(values[k]) = bits(values[0]) + Σ_{i<k} (bits(values[i+1]) − bits(values[i]))` in
/// wrapping integers, and each bound adds its step where `t` lies above it — a comparison, an
/// `and` and an integer add per bound ([`Steps`]). NF4 first finds its quarter of the table
/// and climbs only that quarter's three bounds ([`quartered`]); FP4 is symmetric and climbs its
/// seven positive bounds on `|t|` ([`mirrored`]). The select chain this replaces is the tests'
/// oracle.
#[inline(always)]
fn bucket_value<V: Lane>(table: Table, t: V) -> V {
    match table {
        Table::Nf4 => quartered(&NF4_QUARTERS, t),
        Table::Fp4 => mirrored(&FP4_STEPS, t),
    }
}

/// A table of sixteen values cut into four quarters of four: the bounds between the quarters
/// and, per quarter `q` (the four lanes of each array), its first value, its three inner bounds
/// and the integer steps over them ([`quartered`]).
struct Quarters {
    between: [f32; 3],
    first: [f32; 4],
    inner: [[f32; 4]; 3],
    steps: [[f32; 4]; 3],
}

/// The quarters of a table: bounds `b[4q + r]`, values `v[4q]` and steps
/// `bits(v[4q + r + 1]) − bits(v[4q + r])`, r = 0, 1, 2.
const fn quarters(table: Table) -> Quarters {
    let (v, b) = (table.values(), table.bounds());
    let mut q = Quarters { between: [b[3], b[7], b[11]], first: [0.0; 4], inner: [[0.0; 4]; 3], steps: [[0.0; 4]; 3] };
    let mut k = 0;
    while k < 4 {
        q.first[k] = v[4 * k];
        let mut r = 0;
        while r < 3 {
            q.inner[r][k] = b[4 * k + r];
            q.steps[r][k] = f32::from_bits(v[4 * k + r + 1].to_bits().wrapping_sub(v[4 * k + r].to_bits()));
            r += 1;
        }
        k += 1;
    }
    q
}

const NF4_QUARTERS: Quarters = quarters(Table::Nf4);

/// Bucketize over fifteen sorted bounds in two steps of three comparisons. The value's index
/// `k = #{i : t above b[i]}` has quarter `⌊k/4⌋ = #{j ∈ 3, 7, 11 : t above b[j]}` (the bounds
/// are sorted), kept as the byte offsets [`Lane::lookup4`] reads; then `k mod 4` counts the
/// quarter's three inner bounds t is above, looked up from it, and the value climbs from the
/// quarter's first by their integer steps (as [`climb`]). "Above" is `!(t ≤ b)`: NaN is above
/// every bound. Seven four-entry lookups and six comparisons where [`counted`] makes fifteen.
#[inline(always)]
fn quartered<V: Lane>(q: &Quarters, t: V) -> V {
    let zero = V::splat(0.0);
    let mut at = V::splat(f32::from_bits(0x0302_0100));
    for b in q.between {
        at = at.iadd(V::select(!t.le(V::splat(b)), V::splat(f32::from_bits(0x0404_0404)), zero));
    }
    let mut y = V::lookup4(q.first, at);
    for (inner, steps) in q.inner.iter().zip(&q.steps) {
        y = y.iadd(V::select(!t.le(V::lookup4(*inner, at)), V::lookup4(*steps, at), zero));
    }
    y
}

/// A climb over sorted bounds: the bits to start from and, per bound, the integer step to the
/// next value.
struct Steps<const K: usize> {
    base: u32,
    bounds: [f32; K],
    steps: [u32; K],
}

/// The fifteen bounds of a table, each with the step `bits(values[i+1]) − bits(values[i])`.
#[cfg(test)]
const fn all_steps(table: Table) -> Steps<15> {
    let (v, b) = (table.values(), table.bounds());
    let mut steps = [0u32; 15];
    let mut i = 0;
    while i < 15 {
        steps[i] = v[i + 1].to_bits().wrapping_sub(v[i].to_bits());
        i += 1;
    }
    Steps { base: v[0].to_bits(), bounds: b, steps }
}

/// The seven positive bounds of a symmetric table (values `[8..16]` ascending from +0), each
/// with its step.
const fn positive_steps(table: Table) -> Steps<7> {
    let (v, b) = (table.values(), table.bounds());
    let (mut bounds, mut steps) = ([0.0f32; 7], [0u32; 7]);
    let mut j = 0;
    while j < 7 {
        bounds[j] = b[8 + j];
        steps[j] = v[9 + j].to_bits().wrapping_sub(v[8 + j].to_bits());
        j += 1;
    }
    Steps { base: v[8].to_bits(), bounds, steps }
}

#[cfg(test)]
const NF4_STEPS: Steps<15> = all_steps(Table::Nf4);
const FP4_STEPS: Steps<7> = positive_steps(Table::Fp4);

/// `base` plus the step of every bound `above` reports `t` over.
#[inline(always)]
fn climb<V: Lane, const K: usize>(s: &Steps<K>, above: impl Fn(V) -> V::Mask) -> V {
    let mut y = V::splat(f32::from_bits(s.base));
    for (&b, &step) in s.bounds.iter().zip(&s.steps) {
        y = y.iadd(V::select(above(V::splat(b)), V::splat(f32::from_bits(step)), V::splat(0.0)));
    }
    y
}

/// Bucketize over all fifteen bounds: `t` is above a bound unless `t ≤ bound` (so NaN is above
/// every bound and lands on the top value). NF4's before [`quartered`], kept as its tests'
/// second oracle.
#[cfg(test)]
fn counted<V: Lane>(s: &Steps<15>, t: V) -> V {
    climb(s, |b| !t.le(b))
}

/// Bucketize of a table symmetric about 0 whose two middle values are +0 (FP4), on `|t|`.
///
/// For t > 0 the value is `p[#{j : t > b⁺_j}]` over the positive values p and bounds b⁺; for
/// t < 0, as the negative bounds are the positive ones negated (float32 midpoints round
/// symmetrically) and a tie goes to the lower — larger in magnitude — value, it is
/// `−p[#{j : |t| ≥ b⁺_j}]` (+0 when that count is 0). For positive floats `a ≥ b` is
/// `bits(a) + 1 > bits(b)`, so one key serves both signs: `|t|` with 1 added to its bits where
/// t < 0, compared as floats — `|t|` is capped at 2 first (above every bound: NaN and ±inf
/// land there as on the top value), so the key stays a finite float.
#[inline(always)]
fn mirrored<V: Lane>(s: &Steps<7>, t: V) -> V {
    let neg = t.lt(V::splat(0.0));
    let key = V::splat(2.0).pmin(t.abs()).iadd(V::select(neg, V::splat(f32::from_bits(1)), V::splat(0.0)));
    let p = climb(s, |b| key.gt(b));
    // The sign bit added where t < 0; then + 0 turns the −0 of a zero count into +0.
    p.iadd(V::select(neg, V::splat(-0.0), V::splat(0.0))) + V::splat(0.0)
}

/// A code table fixed at compile time: the kernel's loop takes its bounds and steps as
/// constants.
trait ConstTable {
    const TABLE: Table;
}

/// A full block of table `T`: `values[bucket(x·recip)]·absmax`, gradient 1 ([`BlockCode`] for a
/// full block: dividing by 1 is exact, so it is left out).
#[derive(Clone, Copy, Debug)]
struct FullBlock<T> {
    recip: f32,
    absmax: f32,
    table: PhantomData<T>,
}

impl<T: ConstTable> Op for FullBlock<T> {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        let t = x * V::splat(self.recip);
        (bucket_value(T::TABLE, t) * V::splat(self.absmax), V::splat(1.0))
    }
}

/// Quantizes `x` block by block with table `T` ([`blocks::run`] over the full blocks, then the
/// shorter tail block on its own), one [`Block`] per block in the report: its amax and the
/// absmax it stores.
fn apply_blocks<T: ConstTable>(blocksize: i32, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>) -> Report {
    let bs = blocksize as usize;
    let ((x, y, d), (x_tail, y_tail, d_tail)) = blocks::split_whole(x, y, dydx, bs);
    let mut blocks = blocks::run(x, y, d, bs, |BlockAmax(amax), len| {
        let op = BlockCode::new(T::TABLE, amax, true);
        (FullBlock::<T> { recip: op.recip, absmax: op.absmax, table: PhantomData }, block(amax, len, &op))
    });
    if !x_tail.is_empty() {
        let amax = blocks::amax(x_tail);
        let op = BlockCode::new(T::TABLE, amax, false);
        simd::run(&op, x_tail, y_tail, d_tail);
        blocks.push(block(amax, x_tail.len(), &op));
    }
    Report { blocks, ..Report::default() }
}

/// The report's numbers of a block of `len` elements.
fn block(amax: f32, len: usize, op: &BlockCode) -> Block {
    Block { len, amax, scale: op.absmax, code: None, zero_point: None }
}

/// `four_bit_quantizer! { docs  Type "name" "n values" "summary" "why its figure" }`: one of the two types, whose
/// schema differs only in name, table size and summary.
macro_rules! four_bit_quantizer {
    ($(#[doc = $doc:expr])* $ty:ident $name:literal $values:literal $summary:literal $why:literal) => {
        quantizer! {
            $(#[doc = $doc])*
            pub struct $ty: Bnb $name {
                summary: $summary,
                forward: concat!("per block a = max|x|;  q(x) = ", $name, "[bucket(x·(1/a))]·a (tail block: x/a), \
                                  bucket = nearest of the ", $values, " values, a tie to the lower"),
                backward: "∂q/∂x = 1 (qscope's straight-through; bitsandbytes' 4-bit functions have no gradient)",
                figure: { args: "", x: (-2.0, 2.0), why: $why },
                /// Elements per absmax block: 32, 64, 128, 256, 512, 1024, 2048 or 4096.
                blocksize: i32 = 64, Kind::Int { min: 32, max: 4096 };
            }
        }
    };
}

four_bit_quantizer! {
    /// NormalFloat4 (QLoRA): sixteen normal quantiles scaled by each block's absmax, as
    /// bitsandbytes 0.50's `quantize_4bit(quant_type='nf4')` and `dequantize_4bit` compute it.
    Nf4 "nf4" "16" "NF4 (QLoRA): 16 normal quantiles in [−1, 1] times each block's absmax"
        "the default: one block spanning the range, its 16 normal quantiles dense near 0"
}

four_bit_quantizer! {
    /// bitsandbytes' own FP4 (1 sign, 2 exponent, 1 mantissa bit, bias 2: values
    /// {0, 0.0625, 2, 3, 4, 6, 8, 12}/12, not OCP E2M1) scaled by each block's absmax, as
    /// `quantize_4bit(quant_type='fp4')` and `dequantize_4bit` compute it.
    Fp4 "fp4" "15" "bitsandbytes' FP4 ({0, 1/16, 2, 3, 4, 6, 8, 12}/12, ±) times each block's absmax"
        "the default: one block spanning the range, its 15 values times the block's absmax"
}

/// The shared [`Kernel`] and [`Facts`] of the two 4-bit types, each with its table.
macro_rules! four_bit {
    ($($ty:ident => $table:expr),*) => {$(
        impl ConstTable for $ty {
            const TABLE: Table = $table;
        }

        impl $ty {
            /// The code table.
            pub const TABLE: Table = $table;

            /// The elementwise work of the report's first block: its absmax, scaled as a full
            /// block or as a tail as it was; a full block at NaN without one.
            pub fn first_block(&self, report: &Report) -> BlockCode {
                match report.blocks.first() {
                    Some(b) => BlockCode::new(Self::TABLE, b.scale, b.len == self.blocksize as usize),
                    None => BlockCode::new(Self::TABLE, f32::NAN, true),
                }
            }
        }

        impl Kernel for $ty {
            fn validate(&self) -> Result<(), (&'static str, String)> {
                validate_blocksize(self.blocksize)
            }

            fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, _: &mut Ctx) -> Report {
                apply_blocks::<Self>(self.blocksize, x, y, dydx)
            }

            /// The table times the first block's absmax (the table itself without a block).
            fn levels(&self, report: &Report) -> Levels {
                Self::TABLE.levels(report.blocks.first().map_or(1.0, |b| b.scale))
            }
        }

        impl Facts for $ty {
            /// Blocks over the flattened tensor, whatever its shape (bitsandbytes' `quantize_4bit`).
            fn layout(&self) -> $crate::Layout {
                $crate::Layout::Flat
            }

            /// At the report's first block ([`Self::first_block`], [`Fixed::Bnb4Bit`]).
            fn freeze(&self, report: &Report) -> Option<Frozen> {
                Some(Frozen::Fixed(Fixed::Bnb4Bit(self.first_block(report))))
            }

            fn inert(&self) -> Vec<&'static str> {
                Vec::new()
            }

            /// 4 bits a code plus a float32 absmax per block, as bitsandbytes stores it without
            /// `compress_statistics`: 4 + 32/blocksize (4.5 at 64).
            fn bits_per_element(&self) -> Option<f32> {
                Some(4.0 + 32.0 / self.blocksize as f32)
            }

            fn block_size(&self) -> Option<usize> {
                Some(self.blocksize as usize)
            }

            /// Each block's absmax is its own (no `compress_statistics`).
            fn blocks_independent(&self) -> bool {
                true
            }
        }
    )*};
}

four_bit!(Nf4 => Table::Nf4, Fp4 => Table::Fp4);

/// bitsandbytes' check: one of [`BLOCKSIZES`].
fn validate_blocksize(blocksize: i32) -> Result<(), (&'static str, String)> {
    if BLOCKSIZES.contains(&blocksize) {
        Ok(())
    } else {
        Err((
            "blocksize",
            format!("{blocksize} is not a blocksize bitsandbytes accepts; expected one of {BLOCKSIZES:?}"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lane::Wide;

    #[test]
    fn fp4_is_bitsandbytes_table_over_twelve() {
        let v = Table::Fp4.values();
        assert_eq!(v[15], 1.0);
        assert_eq!(v[8..], [0.0, 0.0625 / 12.0, 2.0 / 12.0, 0.25, 4.0 / 12.0, 0.5, 8.0 / 12.0, 1.0]);
        assert!(v.iter().all(|z| *z != 0.0 || z.is_sign_positive()), "both zeros are +0");
        assert_eq!(Table::Fp4.bounds()[7], 0.0);
    }

    #[test]
    fn nf4_bounds_are_float32_midpoints() {
        assert_eq!(Table::Nf4.bounds()[0], -0.848_096_4);
        assert_eq!(Table::Nf4.bounds()[7], 0.039_790_15);
    }

    #[test]
    fn a_tie_goes_to_the_lower_value_and_nan_to_the_top() {
        let op = BlockCode::new(Table::Nf4, 1.0, true);
        let b = Table::Nf4.bounds()[9];
        assert_eq!(op.eval(b).0, Table::Nf4.values()[9]);
        assert_eq!(op.eval(b.next_up()).0, Table::Nf4.values()[10]);
        let inf = BlockCode::new(Table::Nf4, f32::INFINITY, true);
        assert_eq!(inf.eval(f32::NEG_INFINITY).0, f32::INFINITY);
    }

    #[test]
    fn the_const_tables_are_the_float32_formulas() {
        assert_eq!(Table::Nf4.values(), NF4.map(|v| v as f32));
        let pos = [0.0f32, 0.0625, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0].map(|v| v / 12.0);
        let fp4: [f32; 16] = std::array::from_fn(|i| if i < 8 { -pos[7 - i] + 0.0 } else { pos[i - 8] });
        assert_eq!(Table::Fp4.values().map(f32::to_bits), fp4.map(f32::to_bits));
        for t in [Table::Nf4, Table::Fp4] {
            let v = t.values();
            assert_eq!(t.bounds(), std::array::from_fn(|i| (v[i] + v[i + 1]) / 2.0));
        }
    }

    #[test]
    fn a_full_blocks_kernel_op_gives_the_block_codes_bits() {
        // FullBlock leaves out BlockCode's division by 1 and reads the table as constants.
        fn check<T: ConstTable>() {
            for amax in [1.0, 0.37, 7.9, 0.0, 1e-39, 3e38, f32::INFINITY, f32::NAN] {
                let code = BlockCode::new(T::TABLE, amax, true);
                let full = FullBlock::<T> { recip: code.recip, absmax: code.absmax, table: PhantomData };
                let ties = T::TABLE.bounds().into_iter().flat_map(|b| [b, b.next_up(), b.next_down(), -b]);
                for x in crate::torchao::mx::tests::sweep().chain(ties) {
                    let (a, b) = (full.eval(x).0, code.eval(x).0);
                    assert!(a.to_bits() == b.to_bits() || a.is_nan() && b.is_nan(), "{amax} {x:e}");
                }
            }
        }
        check::<Nf4>();
        check::<Fp4>();
    }

    /// The bucketize before the integer steps: fifteen selects from the top value down.
    fn select_chain(table: Table, t: f32) -> f32 {
        let (values, bounds) = (table.values(), table.bounds());
        let mut y = values[15];
        for i in (0..15).rev() {
            y = if t <= bounds[i] { values[i] } else { y };
        }
        y
    }

    /// Every bound, its neighbours and negation, and the specials.
    fn around_bounds(table: Table) -> impl Iterator<Item = f32> {
        let specials = [0.0, -0.0, f32::NAN, -f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1.0, -1.0, 2.0, -2.0];
        let near = table.bounds().into_iter().flat_map(|b| [b, b.next_up(), b.next_down()]);
        near.flat_map(|b| [b, -b]).chain(specials)
    }

    #[test]
    fn the_integer_steps_give_the_select_chains_bits() {
        for table in [Table::Nf4, Table::Fp4] {
            for t in crate::torchao::mx::tests::sweep().chain(around_bounds(table)) {
                let (new, old) = (bucket_value(table, t), select_chain(table, t));
                assert_eq!(new.to_bits(), old.to_bits(), "{table:?} {t:e}");
                let lanes = bucket_value(table, Wide([t, -t, t.next_up(), 0.5]));
                let want = [t, -t, t.next_up(), 0.5].map(|v| select_chain(table, v).to_bits());
                assert_eq!(lanes.0.map(f32::to_bits), want, "{table:?} {t:e}");
            }
        }
    }

    /// Float32 bit patterns across the whole range, all 2^32 with `QSCOPE_EXHAUSTIVE=1 cargo test
    /// --release --lib bnb::tests::every_float` (a few minutes; see
    /// [`crate::every_float_step`]).
    #[test]
    fn every_float_gets_the_select_chains_bits() {
        for table in [Table::Nf4, Table::Fp4] {
            for bits in (0..=u32::MAX).step_by(crate::every_float_step()) {
                let t = f32::from_bits(bits);
                assert_eq!(bucket_value(table, t).to_bits(), select_chain(table, t).to_bits(), "{table:?} {t:e}");
            }
        }
    }

    #[test]
    fn nf4_in_quarters_gives_the_fifteen_steps_bits_on_four_lanes() {
        for t in crate::torchao::mx::tests::sweep().chain(around_bounds(Table::Nf4)) {
            let lanes = Wide([t, -t, t.next_up(), t.next_down()]);
            let (new, old) = (quartered(&NF4_QUARTERS, lanes), counted(&NF4_STEPS, lanes));
            assert_eq!(new.0.map(f32::to_bits), old.0.map(f32::to_bits), "{t:e}");
        }
    }

    #[test]
    fn fp4_negative_bounds_are_the_positive_ones_negated() {
        let b = Table::Fp4.bounds();
        assert!((0..7).all(|j| b[6 - j].to_bits() == (-b[8 + j]).to_bits()), "{b:?}");
        assert_eq!((b[7], Table::Fp4.values()[7].to_bits(), Table::Fp4.values()[8].to_bits()), (0.0, 0, 0));
    }

    #[test]
    fn a_zero_tail_stores_the_clamped_absmax() {
        assert_eq!(BlockCode::new(Table::Fp4, 0.0, false).absmax, MIN_ABSMAX);
        assert_eq!(BlockCode::new(Table::Fp4, 0.0, true).absmax, 0.0);
    }
}
