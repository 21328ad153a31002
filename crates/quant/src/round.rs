//! Helpers shared by every family: stochastic rounding given a draw (the draws come from
//! [`super::random`]), reductions over a tensor (sums and means in TensorFlow's order, max |x|),
//! exact powers of two, Keras' ε.
//!
//! All arithmetic is `f32`, as in TensorFlow and PyTorch, so results agree to the bit.
//! The elementwise rounding and sign rules (`clip`, `inside`, `sgn0`, `sgn_plus`,
//! `ste_blend`, `no_ste_blend`, round half to even) are defined once, generically, in
//! [`super::lane`], and re-exported here for scalar code, which calls them at `f32`: the
//! SIMD and the scalar paths cannot drift apart. The libraries round half to even
//! (`tf.round`, `torch.round`); Rust's `f32::round` rounds half away from zero and must
//! never be used for them.

use rand::Rng;

use super::lane::Lane;
pub use super::lane::{clip, inside, no_ste_blend, sgn_plus, sgn0, ste_blend};

/// Keras' `epsilon()`.
pub const EPS: f32 = 1e-7;

/// Round half to even, as `tf.round` / `torch.round` / `np.round`: [`Lane::nearest`] at
/// `f32`, the scalar name of the one definition.
#[inline(always)]
pub fn rhe(v: f32) -> f32 {
    v.nearest()
}

/// A uniform draw in `[0, 1)` with 24 random bits, as `tf.random.uniform` produces
/// ([`super::random::unit`]), from any `rand` generator (the gallery's sample tensor).
#[inline(always)]
pub fn uniform<R: Rng + ?Sized>(rng: &mut R) -> f32 {
    super::random::unit(rng.next_u32())
}

/// QKeras `stochastic_round(x, precision)` given the draw `u` ∈ [0, 1): rounds `x/precision`
/// down where `frac < u` (probability `1 − frac`), else up (so it is unbiased), then scales
/// back. Ties and integers are exact; ceil is `−⌊−v⌋`, the same IEEE value. Gradient: none of
/// its own (callers wrap it in an STE).
#[inline(always)]
pub fn stochastic_round<V: Lane>(x: V, precision: f32, u: V) -> V {
    let scale = V::splat(1.0 / precision);
    let v = x * scale;
    let fl = v.floor();
    let frac = v - fl;
    V::select(frac.lt(u), fl, -(-v).floor()) / scale
}

/// `table[k]` per lane of `k`, integer values below `table.len()` (NaN and negatives read
/// `table[0]`, as `as usize` converts them): one scalar load per lane.
#[inline(always)]
pub fn lookup<V: Lane>(k: V, table: &[f32]) -> V {
    let mut lanes = [0.0f32; 16];
    k.store(&mut lanes);
    for v in &mut lanes[..V::WIDTH] {
        *v = table[*v as usize];
    }
    V::load(&lanes)
}

/// `2^e` for an integer exponent, exact over the whole f32 range (subnormals included;
/// [`Lane::pow2`] flushes below 2^−126, as the kernels' TensorFlow arithmetic does).
#[inline]
pub fn pow2i(e: i32) -> f32 {
    if e > 127 {
        f32::INFINITY
    } else if e >= -126 {
        f32::from_bits(((e + 127) as u32) << 23)
    } else if e >= -149 {
        f32::from_bits(1u32 << (e + 149))
    } else {
        0.0
    }
}

/// Sum in float32 in the order of Eigen's vectorized reducer (TensorFlow on CPU, 8-wide
/// packets): pairs of packets into two accumulators, a last packet into the first, the
/// remainder one by one, then the lanes added pairwise. It usually reproduces
/// TensorFlow's sums and stays within a few ulp when it does not.
pub fn sum_f32(values: impl ExactSizeIterator<Item = f32>) -> f32 {
    const P: usize = 8;
    let n = values.len();
    let unrolled = n / (2 * P) * 2 * P;
    let vectorized = n / P * P;
    let (mut a, mut b) = ([0.0f32; P], [0.0f32; P]);
    let mut tail = 0.0f32;
    for (i, v) in values.enumerate() {
        if i < unrolled {
            let lane = i % (2 * P);
            if lane < P { a[lane] += v } else { b[lane - P] += v }
        } else if i < vectorized {
            a[i % P] += v;
        } else {
            tail += v;
        }
    }
    reduce(a, b, tail)
}

/// The end of Eigen's reduction: the two packet accumulators added lane by lane, their lanes
/// added pairwise, and the scalar remainder's sum added last.
fn reduce(mut a: [f32; 8], b: [f32; 8], tail: f32) -> f32 {
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
    let mut width = a.len();
    while width > 1 {
        width /= 2;
        for i in 0..width {
            a[i] += a[i + width];
        }
    }
    tail + a[0]
}

/// The per-element terms of K float32 sums ([`sums_f32`]), generic over one element or four.
pub trait Terms<const K: usize> {
    /// The last term counts lanes: it is a mask's bits ([`Lane::mask_bits`]), added as integers,
    /// and its sum is the number of set lanes — the float32 sum of ones in any order where
    /// that is below 2^24, which callers ensure (`x.len() < 2^24`).
    const COUNTS: bool = false;
    /// The K terms of each lane of `v`.
    fn terms<V: Lane>(&self, v: V) -> [V; K];
}

/// `[Σ t(xᵢ)[0], …, Σ t(xᵢ)[K−1]]`: K float32 sums in one pass over `x`, each added in
/// [`sum_f32`]'s order (so each equals `sum_f32` of that term to the bit), on f32x4 lanes
/// where SIMD runs.
#[inline]
pub fn sums_f32<const K: usize, T: Terms<K>>(x: &[f32], t: &T) -> [f32; K] {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    if super::simd::enabled() {
        return sums_lanes::<super::lane::F32x4, K, T>(x, t);
    }
    sums_lanes::<f32, K, T>(x, t)
}

/// [`sums_f32`] on lanes `V`: Eigen's two 8-wide accumulators as `8 / V::WIDTH` lanes each
/// (lane by lane, the same additions in the same order), then the scalar tail.
#[inline(always)]
pub(crate) fn sums_lanes<V: Lane, const K: usize, T: Terms<K>>(x: &[f32], t: &T) -> [f32; K] {
    const P: usize = 8;
    let (w, zero) = (V::WIDTH, V::splat(0.0));
    let (mut a, mut b) = ([[zero; P]; K], [[zero; P]; K]);
    let mut blocks = x.chunks_exact(2 * P);
    for c in &mut blocks {
        for j in 0..P / w {
            let (lo, hi) = (t.terms(V::load(&c[j * w..])), t.terms(V::load(&c[P + j * w..])));
            for k in 0..K {
                let int = T::COUNTS && k == K - 1;
                a[k][j] = if int { a[k][j].iadd(lo[k]) } else { a[k][j] + lo[k] };
                b[k][j] = if int { b[k][j].iadd(hi[k]) } else { b[k][j] + hi[k] };
            }
        }
    }
    let rest = blocks.remainder();
    let (packet, tail) = rest.split_at(rest.len() / P * P);
    if !packet.is_empty() {
        for j in 0..P / w {
            let u = t.terms(V::load(&packet[j * w..]));
            for k in 0..K {
                a[k][j] = if T::COUNTS && k == K - 1 { a[k][j].iadd(u[k]) } else { a[k][j] + u[k] };
            }
        }
    }
    std::array::from_fn(|k| {
        let (mut sa, mut sb) = ([0.0f32; P], [0.0f32; P]);
        for j in 0..P / w {
            a[k][j].store(&mut sa[j * w..]);
            b[k][j].store(&mut sb[j * w..]);
        }
        if T::COUNTS && k == K - 1 {
            let set = tail.iter().filter(|&&v| t.terms(v)[k].to_bits() != 0).count() as u32;
            return sa.iter().chain(&sb).fold(set, |c, v| c.wrapping_sub(v.to_bits())) as f32;
        }
        reduce(sa, sb, tail.iter().fold(0.0f32, |s, &v| s + t.terms(v)[k]))
    })
}

/// The term of `mean(|x|)`.
struct Magnitude;

impl Terms<1> for Magnitude {
    #[inline(always)]
    fn terms<V: Lane>(&self, v: V) -> [V; 1] {
        [v.abs()]
    }
}

/// `Σ|x|` in float32, as `sum_f32` of the magnitudes (the same bits), in one vectorized pass.
#[inline]
pub fn sum_abs(x: &[f32]) -> f32 {
    sums_f32(x, &Magnitude)[0]
}

/// `mean(|x|)` in float32, as `mean_f32` of the magnitudes (the same bits), in one vectorized pass.
#[inline]
pub fn mean_abs(x: &[f32]) -> f32 {
    mean_of(sum_abs(x), x.len())
}

/// A float32 sum of `n` values over `n`, as [`mean_f32`] divides it (NaN for none).
#[inline]
pub fn mean_of(sum: f32, n: usize) -> f32 {
    if n == 0 { f32::NAN } else { sum / n as f32 }
}

/// Mean in float32 (`K.mean`).
#[inline]
pub fn mean_f32(values: impl ExactSizeIterator<Item = f32>) -> f32 {
    let n = values.len();
    mean_of(sum_f32(values), n)
}

/// Largest absolute value (`K.max(abs(x))`); NaN propagates as in TensorFlow.
#[inline]
pub fn max_abs(x: &[f32]) -> f32 {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    if super::simd::enabled() {
        return max_abs_lanes::<super::lane::F32x4>(x);
    }
    max_abs_lanes::<f32>(x)
}

/// [`max_abs`] on lanes `V`: the magnitudes' bits as integers are ordered as the magnitudes,
/// with NaN above +inf ([`Lane::imax`]); the maximum does not depend on the order.
#[inline(always)]
pub(crate) fn max_abs_lanes<V: Lane>(x: &[f32]) -> f32 {
    const K: usize = 4;
    let mut m = [V::splat(0.0); K];
    let mut blocks = x.chunks_exact(K * V::WIDTH);
    for c in &mut blocks {
        for (j, mj) in m.iter_mut().enumerate() {
            *mj = mj.imax(V::load(&c[j * V::WIDTH..]).abs());
        }
    }
    let mut lanes = [0.0f32; 64];
    for (j, mj) in m.into_iter().enumerate() {
        mj.store(&mut lanes[j * V::WIDTH..]);
    }
    let top = lanes[..K * V::WIDTH].iter().chain(blocks.remainder()).fold(0.0f32, |t, v| t.imax(v.abs()));
    if top.is_nan() { f32::NAN } else { top }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lane::Wide;

    /// The terms `v` and `v²/3`.
    struct Two;

    impl Terms<2> for Two {
        fn terms<V: Lane>(&self, v: V) -> [V; 2] {
            [v, v * v / V::splat(3.0)]
        }
    }

    #[test]
    fn sums_add_each_sum_in_sum_f32s_order_on_one_lane_and_on_four() {
        for n in [0usize, 5, 8, 13, 16, 23, 24, 31, 1000, 1003] {
            let x: Vec<f32> = (0..n).map(|i| ((i * 7919 % 1000) as f32 - 500.0) / 37.0).collect();
            let want = [sum_f32(x.iter().copied()), sum_f32(x.iter().map(|v| v * v / 3.0))].map(f32::to_bits);
            assert_eq!(sums_lanes::<f32, 2, _>(&x, &Two).map(f32::to_bits), want, "n = {n}");
            assert_eq!(sums_lanes::<Wide<f32, 4>, 2, _>(&x, &Two).map(f32::to_bits), want, "n = {n}");
        }
    }

    #[test]
    fn mean_abs_is_mean_f32_of_the_magnitudes() {
        for n in [0usize, 7, 16, 1001] {
            let x: Vec<f32> = (0..n).map(|i| ((i * 104_729 % 997) as f32 - 498.0) / 7.0).collect();
            assert_eq!(mean_abs(&x).to_bits(), mean_f32(x.iter().map(|v| v.abs())).to_bits(), "n = {n}");
        }
    }

    #[test]
    fn max_abs_on_one_lane_and_on_four_is_the_folded_maximum() {
        // The oracle: `a > m` from 0, NaN anywhere gives NaN.
        let fold = |x: &[f32]| {
            let m = x.iter().fold(0.0f32, |m, v| if v.abs() > m { v.abs() } else { m });
            if x.iter().any(|v| v.is_nan()) { f32::NAN } else { m }
        };
        let pool = [0.5f32, -3.0, -0.0, 1e-40, -f32::INFINITY, 7.25, -7.5, f32::NAN, 2.0, -f32::MAX];
        for n in [0usize, 1, 3, 4, 15, 16, 17, 33, 70] {
            for shift in 0..pool.len() {
                let x: Vec<f32> = (0..n).map(|i| pool[(i * 7 + shift) % pool.len()] / (1 + i % 5) as f32).collect();
                let want = fold(&x).to_bits();
                assert_eq!(max_abs_lanes::<f32>(&x).to_bits(), want, "{x:?}");
                assert_eq!(max_abs_lanes::<Wide<f32, 4>>(&x).to_bits(), want, "{x:?}");
                let finite: Vec<f32> = x.iter().map(|v| if v.is_nan() { 1.0 } else { *v }).collect();
                assert_eq!(max_abs_lanes::<Wide<f32, 4>>(&finite).to_bits(), fold(&finite).to_bits(), "{finite:?}");
            }
        }
    }

    #[test]
    fn max_abs_is_the_largest_magnitude_or_nan() {
        let x: Vec<f32> = (0..37).map(|i| (i as f32 - 20.0) / 3.0).collect();
        assert_eq!(max_abs(&x), 20.0 / 3.0);
        assert_eq!(max_abs(&[]), 0.0);
        for at in [3, 20, 36] {
            let mut y = x.clone();
            y[at] = f32::NAN;
            assert!(max_abs(&y).is_nan(), "NaN at {at}");
        }
    }

    #[test]
    fn rhe_rounds_ties_to_even() {
        let got: Vec<f32> = [-2.5f32, -1.5, -0.5, 0.5, 1.5, 2.5].iter().map(|&v| rhe(v)).collect();
        assert_eq!(got, vec![-2.0, -2.0, -0.0, 0.0, 2.0, 2.0]);
    }

    #[test]
    fn pow2i_is_exact_across_the_range() {
        for e in -149..=127 {
            assert_eq!(pow2i(e), 2f64.powi(e) as f32, "2^{e}");
        }
        assert_eq!(pow2i(128), f32::INFINITY);
        assert_eq!(pow2i(-150), 0.0);
    }
}
