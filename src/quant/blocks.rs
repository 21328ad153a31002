//! What every block format does the same way: cut a 1-D tensor into consecutive blocks, take
//! each block's amax, and run one elementwise [`Op`] per block at that block's scale, keeping
//! one [`Block`] of numbers per block for the report.
//!
//! The API is three functions: [`ranges`] (where the blocks are), [`amax`] (a block's
//! `max|x|`, NaN-propagating as `torch.amax(torch.abs(x))`, in f32x4 where SIMD runs, with
//! [`amax_on`] its lane-generic form) and [`run`] (the per-block driver). torchao's MX and
//! NVFP4 use it; group-wise integers and bitsandbytes' blocks can use it as well.
//!
//! A tensor whose length is not a multiple of the block size ends with a shorter block of its
//! own, as bitsandbytes does. torchao asserts there instead; its result on the tensor padded
//! with zeros is qscope's (a zero does not change a block's amax).

use std::ops::Range;

use super::Block;
use super::lane::Lane;
use super::simd::{self, Op};

/// The index ranges of the consecutive blocks of `size` elements covering `0..len`, in order;
/// the last is shorter when `size` does not divide `len`. No block for an empty tensor.
pub fn ranges(len: usize, size: usize) -> impl Iterator<Item = Range<usize>> {
    assert!(size > 0, "a block holds at least one element");
    (0..len).step_by(size).map(move |start| start..(start + size).min(len))
}

/// `max|x|` as `torch.amax(torch.abs(x))`: NaN if any element is NaN, +0 for no elements or
/// only zeros. f32x4 where the SIMD path runs, else one element at a time: the same bits.
pub fn amax(x: &[f32]) -> f32 {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    if simd::enabled() {
        return amax_on::<super::lane::F32x4>(x);
    }
    amax_on::<f32>(x)
}

/// [`amax`] on `V` lanes: a running maximum per lane over the whole lanes, then across the
/// lanes and over the tail one element at a time. At `f32` it is the scalar loop.
pub fn amax_on<V: Lane>(x: &[f32]) -> f32 {
    const MAX_WIDTH: usize = 16;
    assert!(V::WIDTH <= MAX_WIDTH, "lanes wider than {MAX_WIDTH}");
    let body = x.len() - x.len() % V::WIDTH;
    let mut m = V::splat(0.0);
    for chunk in x[..body].chunks_exact(V::WIDTH) {
        m = nan_max(m, V::load(chunk).abs());
    }
    let mut lanes = [0.0f32; MAX_WIDTH];
    m.store(&mut lanes);
    lanes[..V::WIDTH].iter().chain(&x[body..]).fold(0.0, |m, &v| nan_max(m, v.abs()))
}

/// `max(m, a)` for `a ≥ 0` where a NaN wins and stays: `a` replaces `m` when it is NaN (not
/// ≤ inf) or larger; a NaN `m` is kept, since every comparison with it is false.
#[inline(always)]
fn nan_max<V: Lane>(m: V, a: V) -> V {
    V::select(!a.le(V::splat(f32::INFINITY)) | a.gt(m), a, m)
}

/// Runs a block format over `x`: for each block of `size` elements ([`ranges`]),
/// `per_block(elements)` returns the elementwise op at that block's scale and the block's
/// numbers; the op writes the block's `y` (and `dydx`) through [`simd::run`]. Returns the
/// blocks in order.
pub fn run<O: Op>(
    x: &[f32],
    y: &mut [f32],
    mut dydx: Option<&mut [f32]>,
    size: usize,
    mut per_block: impl FnMut(&[f32]) -> (O, Block),
) -> Vec<Block> {
    assert_eq!(x.len(), y.len(), "x and y differ in length");
    ranges(x.len(), size)
        .map(|r| {
            let (op, block) = per_block(&x[r.clone()]);
            simd::run(&op, &x[r.clone()], &mut y[r.clone()], dydx.as_deref_mut().map(|d| &mut d[r]));
            block
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quant::lane::Wide;

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
