//! What every block format does the same way: cut a 1-D tensor into consecutive blocks, take
//! each block's statistic (its amax, or its min and max), and run one elementwise [`Op`] per
//! block at that block's scale, keeping one [`Block`] of numbers per block for the report.
//!
//! The API is [`ranges`] (where the blocks are), [`amax`] (a tensor's `max|x|`, NaN-propagating
//! as `torch.amax(torch.abs(x))`, in f32x4 where SIMD runs, with [`amax_on`] the lane-generic
//! form a block's statistic takes) and [`run`] (the per-block driver, generic over the [`Statistic`] it measures;
//! [`run_chunked`] hands a chunk's statistics over at once, to derive the ops on lanes). torchao's
//! MX, NVFP4 and group-wise integers and bitsandbytes' blocks use it.
//!
//! The driver picks the lanes once per tensor ([`simd::on_lanes`]) and then, block by block,
//! measures the block and quantizes it while it is still in the L1 cache: one read of memory.
//!
//! A tensor whose length is not a multiple of the block size ends with a shorter block of its
//! own, as bitsandbytes does. torchao asserts there instead; its result on the tensor padded
//! with zeros is qscope's (a zero does not change a block's amax).

use std::marker::PhantomData;
use std::ops::Range;

use super::Block;
use super::lane::Lane;
use super::simd::{self, OnLanes, Op};

/// The index ranges of the consecutive blocks of `size` elements covering `0..len`, in order;
/// the last is shorter when `size` does not divide `len`. No block for an empty tensor.
pub fn ranges(len: usize, size: usize) -> impl Iterator<Item = Range<usize>> {
    assert!(size > 0, "a block holds at least one element");
    (0..len).step_by(size).map(move |start| start..(start + size).min(len))
}

/// `max|x|` as `torch.amax(torch.abs(x))`: NaN if any element is NaN, +0 for no elements or
/// only zeros. f32x4 where the SIMD path runs, else one element at a time: the same value.
pub fn amax(x: &[f32]) -> f32 {
    simd::on_lanes(Amax(x))
}

/// [`tensor_amax_on`] as an [`OnLanes`] computation.
struct Amax<'a>(&'a [f32]);

impl OnLanes for Amax<'_> {
    type Output = f32;
    fn on<V: Lane>(self) -> f32 {
        tensor_amax_on::<V>(self.0)
    }
}

/// [`amax`] on `V` lanes: a running maximum per lane over the whole lanes, then across the
/// lanes and over the tail one element at a time. At `f32` it is the scalar loop.
///
/// |x| has its sign bit clear, so its bits order like its value as integers, a NaN above +inf:
/// the running maximum is one integer `max` per lane ([`Lane::imax`]), and a NaN anywhere wins.
/// (A block's statistic; a whole tensor's is [`tensor_amax_on`], the same value.)
#[inline(always)]
pub fn amax_on<V: Lane>(x: &[f32]) -> f32 {
    let body = x.len() - x.len() % V::WIDTH;
    let mut m = V::splat(0.0);
    for chunk in x[..body].chunks_exact(V::WIDTH) {
        m = m.imax(V::load(chunk).abs());
    }
    // An integer maximum: the same bits in any order ([`Lane::reduce`]'s tree).
    x[body..].iter().fold(m.reduce(V::imax), |m, &v| m.imax(v.abs()))
}

/// [`amax_on`] for a long slice (a whole tensor), without an `abs` per vector (three operations
/// in V8): two running integer maxima, one of x's bits as signed integers (the largest positive
/// x wins), one of x's bits with the sign flipped (an unsigned maximum: the negative x of
/// largest magnitude wins, else the largest positive) — three operations per vector, not four;
/// the larger of their magnitudes is the largest |x| bits, a NaN of either sign winning. Two
/// reductions instead of one: slower on a block's few vectors.
#[inline(always)]
pub fn tensor_amax_on<V: Lane>(x: &[f32]) -> f32 {
    let body = x.len() - x.len() % V::WIDTH;
    let sign = V::splat(-0.0);
    let (mut signed, mut unsigned) = (V::splat(0.0), sign);
    for chunk in x[..body].chunks_exact(V::WIDTH) {
        let v = V::load(chunk);
        signed = signed.imax(v);
        unsigned = unsigned.imax(v.ixor(sign));
    }
    // The signed maximum starts at +0, so its sign bit is clear.
    let (signed, unsigned) = (signed.reduce(V::imax), unsigned.reduce(V::imax).ixor(-0.0));
    x[body..].iter().fold(signed.imax(unsigned.abs()), |m, &v| m.imax(v.abs()))
}

/// What the driver measures of each block before it asks for the block's op: computed on the
/// driver's lanes, the same value on every path.
pub trait Statistic: Sized {
    /// The statistic of the block `x`, on `V` lanes.
    fn of<V: Lane>(x: &[f32]) -> Self;
}

/// A block's `max|x|` ([`amax_on`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockAmax(pub f32);

impl Statistic for BlockAmax {
    #[inline(always)]
    fn of<V: Lane>(x: &[f32]) -> Self {
        BlockAmax(amax_on::<V>(x))
    }
}

/// Runs a block format over `x`: for each block of `size` elements ([`ranges`]),
/// `per_block(statistic, len)` returns the elementwise op at that block's scale and the block's
/// numbers; the op writes the block's `y` (and `dydx`) on the same lanes. Returns the blocks in
/// order.
pub fn run<S: Statistic + Copy, O: Op>(
    x: &[f32],
    y: &mut [f32],
    dydx: Option<&mut [f32]>,
    size: usize,
    mut per_block: impl FnMut(S, usize) -> (O, Block),
) -> Vec<Block> {
    run_chunked(x, y, dydx, size, |stats: &[S], len, ops: &mut Vec<O>, blocks: &mut Vec<Block>| {
        for &stat in stats {
            let (op, block) = per_block(stat, len);
            ops.push(op);
            blocks.push(block);
        }
    })
}

/// [`run`] with the blocks' ops and numbers derived a chunk at a time: `per_chunk(stats, len,
/// ops, blocks)` gets the statistics of consecutive blocks of `len` elements each and pushes one
/// op and one [`Block`] per statistic, in order (so that the derivation itself can run on lanes).
pub fn run_chunked<S: Statistic, O: Op>(
    x: &[f32],
    y: &mut [f32],
    dydx: Option<&mut [f32]>,
    size: usize,
    per_chunk: impl FnMut(&[S], usize, &mut Vec<O>, &mut Vec<Block>),
) -> Vec<Block> {
    assert_eq!(x.len(), y.len(), "x and y differ in length");
    assert!(size > 0, "a block holds at least one element");
    simd::on_lanes(Run { x, y, dydx, size, per_chunk, statistic: PhantomData })
}

/// [`run_chunked`]'s arguments, run on the lanes [`simd::on_lanes`] picks.
struct Run<'a, S, O, F> {
    x: &'a [f32],
    y: &'a mut [f32],
    dydx: Option<&'a mut [f32]>,
    size: usize,
    per_chunk: F,
    statistic: PhantomData<(S, O)>,
}

/// `x`, `y` and `dydx` cut where the whole blocks of `size` end: `(whole blocks, tail)`.
#[allow(clippy::type_complexity)]
pub fn split_whole<'a>(
    x: &'a [f32],
    y: &'a mut [f32],
    dydx: Option<&'a mut [f32]>,
    size: usize,
) -> ((&'a [f32], &'a mut [f32], Option<&'a mut [f32]>), (&'a [f32], &'a mut [f32], Option<&'a mut [f32]>)) {
    let whole = x.len() - x.len() % size;
    let (x, x_tail) = x.split_at(whole);
    let (y, y_tail) = y.split_at_mut(whole);
    let (d, d_tail) = match dydx.map(|d| d.split_at_mut(whole)) {
        Some((d, t)) => (Some(d), Some(t)),
        None => (None, None),
    };
    ((x, y, d), (x_tail, y_tail, d_tail))
}

/// Elements per chunk of blocks: [`Run`] measures a chunk's blocks, then derives their ops, then
/// quantizes them — 16 KB of input, still in the L1 cache when it is read the second time.
const CHUNK: usize = 4096;

impl<S: Statistic, O: Op, F: FnMut(&[S], usize, &mut Vec<O>, &mut Vec<Block>)> OnLanes for Run<'_, S, O, F> {
    type Output = Vec<Block>;

    /// The whole blocks chunk by chunk ([`whole_blocks`], the usual sizes with the size a
    /// constant, so that a block's loops unroll), then the shorter tail block.
    #[inline(always)]
    fn on<V: Lane>(self) -> Vec<Block> {
        let Run { x, y, dydx, size, mut per_chunk, .. } = self;
        let mut blocks = Vec::with_capacity(x.len().div_ceil(size));
        let ((x, y, d), (x_tail, y_tail, d_tail)) = split_whole(x, y, dydx, size);
        let f = &mut per_chunk;
        match (V::WIDTH > 1, size) {
            (true, 16) => whole_blocks::<V, S, O, 16>(x, y, d, 16, f, &mut blocks),
            (true, 32) => whole_blocks::<V, S, O, 32>(x, y, d, 32, f, &mut blocks),
            (true, 64) => whole_blocks::<V, S, O, 64>(x, y, d, 64, f, &mut blocks),
            _ => whole_blocks::<V, S, O, 0>(x, y, d, size, f, &mut blocks),
        }
        if !x_tail.is_empty() {
            let mut op = Vec::with_capacity(1);
            per_chunk(&[S::of::<V>(x_tail)], x_tail.len(), &mut op, &mut blocks);
            op[0].run_block::<V>(x_tail, y_tail, d_tail);
        }
        blocks
    }
}

/// Blocks of `size` elements (`N` when it is not 0: a constant), `x.len()` a multiple of it,
/// chunk by chunk in three passes over its blocks: the statistics, then the ops and numbers
/// (one block's scale does not wait for the next block's statistic, so the scalar divisions
/// and casts of consecutive blocks overlap), then the elementwise ops.
#[inline(always)]
fn whole_blocks<V: Lane, S: Statistic, O: Op, const N: usize>(
    x: &[f32],
    y: &mut [f32],
    mut dydx: Option<&mut [f32]>,
    size: usize,
    per_chunk: &mut impl FnMut(&[S], usize, &mut Vec<O>, &mut Vec<Block>),
    blocks: &mut Vec<Block>,
) {
    let size = if N > 0 { N } else { size };
    let chunk = (CHUNK / size).max(1) * size;
    let mut stats = Vec::with_capacity(chunk / size);
    let mut ops = Vec::with_capacity(chunk / size);
    for (c, (xc, yc)) in x.chunks(chunk).zip(y.chunks_mut(chunk)).enumerate() {
        stats.clear();
        stats.extend(xc.chunks_exact(size).map(S::of::<V>));
        ops.clear();
        per_chunk(&stats, size, &mut ops, blocks);
        assert_eq!(ops.len(), stats.len(), "one op per block");
        let mut dc = dydx.as_deref_mut().map(|d| &mut d[c * chunk..c * chunk + xc.len()]);
        for (i, ((op, xs), ys)) in ops.iter().zip(xc.chunks_exact(size)).zip(yc.chunks_exact_mut(size)).enumerate() {
            let d = dc.as_deref_mut().map(|d| &mut d[i * size..(i + 1) * size]);
            op.run_block::<V>(xs, ys, d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lane::Wide;

    #[test]
    fn a_tail_that_does_not_fill_a_block_is_a_block_of_its_own() {
        assert_eq!(ranges(70, 32).collect::<Vec<_>>(), [0..32, 32..64, 64..70]);
        assert_eq!(ranges(64, 32).count(), 2);
        assert_eq!(ranges(0, 32).count(), 0);
    }

    #[test]
    fn amax_is_nan_when_any_element_is_and_zero_for_zeros() {
        assert_eq!(amax(&[1.0, -3.0, -0.0, 2.5, 0.5]), 3.0);
        assert!(amax(&[1.0, 2.0, 3.0, 4.0, f32::NAN, 1.0]).is_nan());
        assert!(amax(&[f32::NAN, 9.0, 1.0, 2.0, 3.0]).is_nan());
        assert_eq!(amax(&[-0.0, 0.0]).to_bits(), 0);
        assert_eq!(amax(&[]), 0.0);
        assert_eq!(amax(&[1.0, f32::NEG_INFINITY]), f32::INFINITY);
    }

    /// `x·s`, gradient `s`: an op that shows which block's scale reached an element.
    struct Times(f32);

    impl Op for Times {
        fn eval<V: Lane>(&self, x: V) -> (V, V) {
            (x * V::splat(self.0), V::splat(self.0))
        }
    }

    /// Both drivers (four lanes, where 16, 32 and 64 are constants, and the scalar loop), block
    /// sizes and lengths around a chunk.
    fn sizes_and_lengths() -> impl Iterator<Item = (bool, usize, usize)> {
        [true, false].into_iter().flat_map(|four| {
            [1, 3, 16, 32, 64, 100, 5000]
                .into_iter()
                .flat_map(move |size| [0, 5, 64, 4096, 4097, 9001].map(move |len| (four, size, len)))
        })
    }

    #[test]
    fn every_block_of_every_chunk_gets_its_own_op_and_report_in_order() {
        for (four, size, len) in sizes_and_lengths() {
            let x: Vec<f32> = (0..len).map(|i| ((i * 37 % 101) as f32 - 50.0) / 8.0).collect();
            let (mut y, mut g) = (vec![0.0; len], vec![0.0; len]);
            simd::tests::FOUR_LANES.set(four);
            let reported = run(&x, &mut y, Some(&mut g), size, |BlockAmax(a), len| {
                (Times(1.0 / (a + 1.0)), Block { len, amax: a, scale: a, code: None, zero_point: None })
            });
            simd::tests::FOUR_LANES.set(false);
            let want: Vec<Range<usize>> = ranges(len, size).collect();
            assert_eq!(
                reported.iter().map(|b| b.len).collect::<Vec<_>>(),
                want.iter().map(|r| r.len()).collect::<Vec<_>>()
            );
            for (b, r) in reported.iter().zip(want) {
                let s = 1.0 / (amax(&x[r.clone()]) + 1.0);
                assert_eq!(b.amax, amax(&x[r.clone()]), "{four} size {size}, length {len}");
                assert!(r.clone().all(|i| y[i] == x[i] * s && g[i] == s), "{four} size {size}, length {len}, {r:?}");
            }
        }
    }

    #[test]
    fn the_integer_maximum_of_abs_bits_is_the_nan_propagating_maximum() {
        // The formula before Lane::imax: a NaN replaces m, else the larger value does.
        let old = |m: f32, a: f32| if a.is_nan() || a > m { a } else { m };
        let xs: Vec<f32> = crate::torchao::mx::tests::sweep().collect();
        for w in xs.windows(3).step_by(7) {
            let (new, want) = (amax(w), w.iter().fold(0.0f32, |m, v| old(m, v.abs())));
            assert!(new.to_bits() == want.to_bits() || new.is_nan() && want.is_nan(), "{w:?}");
        }
    }

    #[test]
    fn two_integer_maxima_give_the_maximum_of_the_abs_bits() {
        // A block's formula: one running integer maximum of |x|'s bits.
        let old = |x: &[f32]| amax_on::<f32>(x);
        let mut bits = 0x9e37_79b9u32;
        let specials = [f32::NAN, -f32::NAN, f32::from_bits(0xffff_ffff), f32::INFINITY, f32::NEG_INFINITY, -0.0];
        for case in 0..4000 {
            let x: Vec<f32> = (0..case % 41)
                .map(|i| {
                    bits = bits.wrapping_mul(0x0019_660d).wrapping_add(0x3c6e_f35f);
                    match bits >> 28 {
                        0 if case % 3 == 0 => specials[i % specials.len()],
                        1..=3 => -f32::from_bits(bits >> 8),
                        _ => f32::from_bits(bits.rotate_left(case as u32 % 32)),
                    }
                })
                .collect();
            let want = old(&x).to_bits();
            let new = [tensor_amax_on::<f32>(&x), tensor_amax_on::<Wide<f32, 4>>(&x), amax_on::<Wide<f32, 4>>(&x)];
            assert_eq!(new.map(f32::to_bits), [want; 3], "{x:?}");
        }
    }

    #[test]
    fn four_lanes_and_the_scalar_loop_give_the_same_amax() {
        let base: Vec<f32> = (0..67).map(|i| ((i * 37 % 23) as f32 - 11.0) * 0.37).collect();
        for special in [None, Some(f32::NAN), Some(f32::INFINITY), Some(-0.0)] {
            for at in [0, 3, 4, 33, 64, 66] {
                let mut x = base.clone();
                if let Some(s) = special {
                    x[at] = s;
                }
                for len in [0, 1, 3, 4, 5, 16, 67] {
                    let (lanes, scalar) = (amax_on::<Wide<f32, 4>>(&x[..len]), amax_on::<f32>(&x[..len]));
                    assert_eq!(lanes.to_bits(), scalar.to_bits(), "{special:?} at {at}, length {len}");
                }
            }
        }
    }
}
