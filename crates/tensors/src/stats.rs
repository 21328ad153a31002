//! Reductions over a tensor's float32 values — sums of squares and of squared errors, the largest
//! magnitude, histogram counts, per-channel sums — written for speed, as this package is compiled
//! (the page's analysis code is compiled for size; its loops over millions of elements are here).

use crate::distinct::Distinct;

/// Σx², Σ(x − y)² and the count over the pairs where both are finite (`y` absent: Σx² and the
/// count of finite x), in one pass: [`Sums`] over the whole slice.
pub fn sums(x: &[f32], y: Option<&[f32]>) -> (f64, f64, usize) {
    let mut s = Sums::default();
    s.add(x, y);
    s.total()
}

/// [`sums`] accumulated piece by piece: the pairs are summed in four interleaved lanes — element
/// i in lane i mod 4, the lanes added pairwise at the end — so four additions are in flight
/// instead of one long chain, and pieces whose lengths are multiples of 4 (the last excepted)
/// give the very bits of one pass over their concatenation: the same numbers on every platform,
/// however a tensor is cut.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sums {
    signal: [f64; 4],
    noise: [f64; 4],
    n: [u64; 4],
}

impl Sums {
    /// Adds the pairs of `x` and `y` (`y` absent: `x` against itself, so only Σx² and the count
    /// grow). A piece whose length is not a multiple of 4 must be the last.
    pub fn add(&mut self, x: &[f32], y: Option<&[f32]>) {
        let y = y.unwrap_or(x);
        assert_eq!(x.len(), y.len(), "x and y differ in length");
        let body = x.len() - x.len() % 4;
        #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
        self.add_avx2(&x[..body], &y[..body]);
        #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
        for (a, b) in x[..body].chunks_exact(4).zip(y[..body].chunks_exact(4)) {
            for k in 0..4 {
                self.add_one(k, a[k], b[k]);
            }
        }
        for (k, (&a, &b)) in x[body..].iter().zip(&y[body..]).enumerate() {
            self.add_one(k, a, b);
        }
    }

    /// One pair into lane `k`: zeros where either side is not finite.
    #[inline(always)]
    fn add_one(&mut self, k: usize, a: f32, b: f32) {
        let ok = a.is_finite() && b.is_finite();
        let (a, b) = if ok { (f64::from(a), f64::from(b)) } else { (0.0, 0.0) };
        self.signal[k] += a * a;
        self.noise[k] += (a - b) * (a - b);
        self.n[k] += u64::from(ok);
    }

    /// [`Sums::add_one`] on four pairs at once, the four f64 lanes one AVX register: the same
    /// operations in the same order per lane, so the same bits (the native build targets AVX2
    /// where the CPU has it, .cargo/config.toml). `x.len()` is a multiple of 4.
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    fn add_avx2(&mut self, x: &[f32], y: &[f32]) {
        use std::arch::x86_64::*;
        // SAFETY: this build targets AVX2 (the function exists only then); every load reads four
        // f32 of a chunk of four, every store the four lanes of a field of four.
        unsafe {
            let (mut signal, mut noise) = (_mm256_loadu_pd(self.signal.as_ptr()), _mm256_loadu_pd(self.noise.as_ptr()));
            let mut n = _mm256_loadu_si256(self.n.as_ptr().cast());
            let (exponent, one) = (_mm_set1_epi32(0x7f80_0000), _mm256_set1_epi64x(1));
            let not_finite = |v: __m128| _mm_cmpeq_epi32(_mm_and_si128(_mm_castps_si128(v), exponent), exponent);
            for (a, b) in x.chunks_exact(4).zip(y.chunks_exact(4)) {
                let (a, b) = (_mm_loadu_ps(a.as_ptr()), _mm_loadu_ps(b.as_ptr()));
                let bad = _mm_or_si128(not_finite(a), not_finite(b));
                let a = _mm256_cvtps_pd(_mm_andnot_ps(_mm_castsi128_ps(bad), a));
                let b = _mm256_cvtps_pd(_mm_andnot_ps(_mm_castsi128_ps(bad), b));
                signal = _mm256_add_pd(signal, _mm256_mul_pd(a, a));
                let d = _mm256_sub_pd(a, b);
                noise = _mm256_add_pd(noise, _mm256_mul_pd(d, d));
                // bad is −1 where either side is not finite: −1 + 1 adds nothing, 0 + 1 one.
                n = _mm256_add_epi64(n, _mm256_add_epi64(_mm256_cvtepi32_epi64(bad), one));
            }
            _mm256_storeu_pd(self.signal.as_mut_ptr(), signal);
            _mm256_storeu_pd(self.noise.as_mut_ptr(), noise);
            _mm256_storeu_si256(self.n.as_mut_ptr().cast(), n);
        }
    }

    /// `(Σx², Σ(x − y)², count)`.
    pub fn total(&self) -> (f64, f64, usize) {
        let total = |v: [f64; 4]| (v[0] + v[1]) + (v[2] + v[3]);
        (total(self.signal), total(self.noise), self.n.iter().sum::<u64>() as usize)
    }
}

/// The largest finite magnitude (0 when there is none).
pub fn amax(values: &[f32]) -> f32 {
    let mut m = [0.0f32; 4];
    let xs = values.chunks_exact(4);
    let tail = xs.remainder();
    for a in xs {
        for k in 0..4 {
            let v = if a[k].is_finite() { a[k].abs() } else { 0.0 };
            m[k] = if v > m[k] { v } else { m[k] };
        }
    }
    tail.iter().filter(|v| v.is_finite()).fold(m[0].max(m[1]).max(m[2].max(m[3])), |m, v| m.max(v.abs()))
}

/// Counts of `values` in the bins between consecutive `edges` (ascending; a value on an edge
/// belongs to the bin above it, the last edge to the last bin), and how many fall below the first
/// and above the last edge; NaN is left out.
pub fn bin_counts(values: &[f32], edges: &[f32]) -> (Vec<u32>, u32, u32) {
    let bins = edges.len().saturating_sub(1);
    let mut counts = vec![0u32; bins];
    let (mut below, mut above) = (0u32, 0u32);
    let (Some(&lo), Some(&hi)) = (edges.first(), edges.last()) else { return (counts, 0, 0) };
    let per = bins as f32 / (hi - lo);
    for &v in values {
        if v.is_nan() {
            continue;
        }
        if v < lo {
            below += 1;
        } else if v > hi {
            above += 1;
        } else if bins > 0 {
            // A first guess from the position, then settled against the edges themselves.
            let mut i = (((v - lo) * per) as usize).min(bins - 1);
            while i > 0 && v < edges[i] {
                i -= 1;
            }
            while i + 1 < bins && v >= edges[i + 1] {
                i += 1;
            }
            counts[i] += 1;
        }
    }
    (counts, below, above)
}

/// Per channel of a row-major tensor seen as `(outer, channels, inner)`: Σx², Σ(x − y)² over the
/// pairs where both are finite, and the largest finite |x| — one pass over memory.
pub fn channel_sums(x: &[f32], y: &[f32], channels: usize, inner: usize) -> Vec<(f64, f64, f32)> {
    let mut out = vec![(0.0f64, 0.0f64, 0.0f32); channels.max(1)];
    for (k, (xs, ys)) in x.chunks(inner.max(1)).zip(y.chunks(inner.max(1))).enumerate() {
        let c = &mut out[k % channels.max(1)];
        for (&a, &b) in xs.iter().zip(ys) {
            if a.is_finite() {
                c.2 = c.2.max(a.abs());
                if b.is_finite() {
                    let (a, b) = (f64::from(a), f64::from(b));
                    c.0 += a * a;
                    c.1 += (a - b) * (a - b);
                }
            }
        }
    }
    out
}

/// Over the pairs where both are finite: the distinct values of `y` (−0 and +0 as one, at most
/// [`Distinct::LIMIT`]) and how many x lie outside `bounds`.
pub fn used(x: &[f32], y: &[f32], bounds: Option<(f32, f32)>) -> (usize, usize) {
    let mut outs = Distinct::default();
    let mut clipped = 0usize;
    for (&a, &b) in x.iter().zip(y) {
        if a.is_finite() && b.is_finite() {
            outs.add(b);
            if let Some((lo, hi)) = bounds {
                clipped += usize::from(a < lo || a > hi);
            }
        }
    }
    (outs.len(), clipped)
}

/// [`used`] channel by channel of a row-major tensor seen as `(outer, channels, inner)`, each
/// channel with its own `bounds`: the most distinct outputs any channel has, and the clipped x
/// over all channels — one pass over memory, a table per channel.
pub fn channel_used(x: &[f32], y: &[f32], inner: usize, bounds: &[Option<(f32, f32)>]) -> (usize, usize) {
    let channels = bounds.len().max(1);
    let mut used = vec![Distinct::default(); channels];
    let mut clipped = 0usize;
    for (k, (xs, ys)) in x.chunks(inner.max(1)).zip(y.chunks(inner.max(1))).enumerate() {
        let c = k % channels;
        let b = bounds.get(c).copied().flatten();
        for (&a, &v) in xs.iter().zip(ys) {
            if a.is_finite() && v.is_finite() {
                used[c].add(v);
                if let Some((lo, hi)) = b {
                    clipped += usize::from(a < lo || a > hi);
                }
            }
        }
    }
    (used.iter().map(Distinct::len).max().unwrap_or(0), clipped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lanes_sum_what_a_plain_loop_sums_up_to_rounding() {
        for len in [0, 1, 3, 4, 5, 1001] {
            let x: Vec<f32> = (0..len).map(|i| ((i * 7919 % 101) as f32 - 50.0) * 0.037).collect();
            let y: Vec<f32> = x.iter().map(|v| (v * 8.0).round() / 8.0).collect();
            let (s, e, n) = sums(&x, Some(&y));
            let plain_s: f64 = x.iter().map(|&a| f64::from(a) * f64::from(a)).sum();
            let plain_e: f64 = x.iter().zip(&y).map(|(&a, &b)| (f64::from(a) - f64::from(b)).powi(2)).sum();
            assert_eq!(n, len);
            assert!((s - plain_s).abs() <= 1e-12 * plain_s && (e - plain_e).abs() <= 1e-12 * plain_e, "{len}");
            assert_eq!(sums(&x, None), (s, 0.0, n), "no y: the signal and the count");
        }
    }

    #[test]
    fn pieces_of_multiples_of_four_sum_the_bits_of_one_pass() {
        let x: Vec<f32> = (0..1003).map(|i| ((i * 7919 % 101) as f32 - 50.0) * 0.037).collect();
        let mut y: Vec<f32> = x.iter().map(|v| (v * 8.0).round() / 8.0).collect();
        y[17] = f32::NAN;
        for piece in [4, 8, 64, 1000] {
            let mut s = Sums::default();
            for (a, b) in x.chunks(piece).zip(y.chunks(piece)) {
                s.add(a, Some(b));
            }
            assert_eq!(s.total(), sums(&x, Some(&y)), "pieces of {piece}");
        }
    }

    #[test]
    fn the_vector_body_sums_the_bits_of_the_pair_by_pair_loop() {
        let specials = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0, 1e-40, 3e38];
        let x: Vec<f32> = (0..1001).map(|i| ((i * 7919 % 101) as f32 - 50.0) * 0.037).chain(specials).collect();
        let y: Vec<f32> = x.iter().rev().map(|v| (v * 8.0).round() / 8.0).collect();
        let mut body = Sums::default();
        body.add(&x, Some(&y));
        let mut one = Sums::default();
        for (i, (&a, &b)) in x.iter().zip(&y).enumerate() {
            one.add_one(i % 4, a, b);
        }
        assert_eq!(body, one);
    }

    #[test]
    fn a_non_finite_pair_adds_nothing_in_any_lane() {
        let x = [1.0, f32::NAN, 2.0, 3.0, f32::INFINITY, 0.5];
        let y = [1.0, 1.0, f32::NAN, 2.0, 4.0, 0.5];
        assert_eq!(sums(&x, Some(&y)), (1.0 + 9.0 + 0.25, 1.0, 3));
        assert_eq!(sums(&x, None), (1.0 + 4.0 + 9.0 + 0.25, 0.0, 4));
    }

    #[test]
    fn amax_is_the_largest_finite_magnitude() {
        assert_eq!(amax(&[]), 0.0);
        assert_eq!(amax(&[0.5, -3.0, f32::INFINITY, f32::NAN, 2.0]), 3.0);
        assert_eq!(amax(&[1.0, 2.0, 3.0, 4.0, -7.5]), 7.5, "the tail counts");
    }

    #[test]
    fn a_value_on_an_edge_goes_to_the_bin_above_and_the_last_edge_to_the_last_bin() {
        let (counts, below, above) = bin_counts(&[-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, f32::NAN], &[-1.0, 0.0, 1.0]);
        assert_eq!((counts, below, above), (vec![2, 3], 1, 1));
    }

    #[test]
    fn used_counts_distinct_outputs_and_clipped_inputs_of_finite_pairs() {
        let x = [0.1, 0.2, -3.0, 5.0, f32::NAN, 0.4];
        let y = [0.0, 0.25, -1.0, 1.0, 0.5, -0.0];
        assert_eq!(used(&x, &y, Some((-1.0, 1.0))), (4, 2));
        assert_eq!(used(&x, &y, None), (4, 0));
        // Two channels (inner 1): channel 0 holds x[0], x[2], x[4]; channel 1 x[1], x[3], x[5].
        assert_eq!(channel_used(&x, &y, 1, &[Some((-5.0, 5.0)), Some((0.0, 0.3))]), (3, 2));
    }

    #[test]
    fn channel_sums_match_each_gathered_channel() {
        // 3 rows × 4 channels (inner 1).
        let x: Vec<f32> = (0..12).map(|i| i as f32 - 5.5).collect();
        let y: Vec<f32> = x.iter().map(|v| v.round()).collect();
        let c = channel_sums(&x, &y, 4, 1);
        for (ch, &(s, e, m)) in c.iter().enumerate() {
            let idx = [ch, ch + 4, ch + 8];
            let want_s: f64 = idx.iter().map(|&i| f64::from(x[i]).powi(2)).sum();
            let want_e: f64 = idx.iter().map(|&i| (f64::from(x[i]) - f64::from(y[i])).powi(2)).sum();
            let want_m = idx.iter().map(|&i| x[i].abs()).fold(0.0, f32::max);
            assert_eq!((s, e, m), (want_s, want_e, want_m), "channel {ch}");
        }
    }
}
