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

/// Lanes of [`Sums`]: element i is summed in lane i mod `LANES`.
pub const LANES: usize = 8;

/// Pairs checked for NaN and infinities at a time before they are summed (a multiple of
/// [`LANES`]; 2 KB of each side, in the L1 cache when they are summed).
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
const RUN: usize = 256;

/// [`sums`] accumulated piece by piece: the pairs are summed in eight interleaved lanes — element
/// i in lane i mod 8, the lanes added pairwise at the end — so eight additions are in flight
/// instead of one long chain (two AVX registers of four, each add waiting only on its own lane's
/// last), and pieces whose lengths are multiples of 8 (the last excepted) give the very bits of one
/// pass over their concatenation: the same numbers on every platform, however a tensor is cut.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sums {
    signal: [f64; LANES],
    noise: [f64; LANES],
    n: [u64; LANES],
}

impl Sums {
    /// Adds the pairs of `x` and `y` (`y` absent: `x` against itself, so only Σx² and the count
    /// grow). A piece whose length is not a multiple of [`LANES`] must be the last.
    pub fn add(&mut self, x: &[f32], y: Option<&[f32]>) {
        let y = y.unwrap_or(x);
        self.pass::<false>(x, y, &mut Sums::default());
    }

    /// [`Sums::add`] of the pairs, and into `own` what `own.add(x, None)` adds (the tensor's own
    /// Σx² and finite count), in one pass over memory: the same bits as the two passes. While
    /// every finite x has had a finite y, `own`'s lanes are this sum's, and are copied rather
    /// than summed again.
    pub fn add_and_own(&mut self, x: &[f32], y: &[f32], own: &mut Sums) {
        let bits = |v: &[f64; LANES]| v.map(f64::to_bits);
        if bits(&own.signal) != bits(&self.signal) || own.n != self.n {
            self.pass::<true>(x, y, own);
            return;
        }
        let before = *self;
        if self.pass::<false>(x, y, &mut Sums::default()) {
            // A finite x whose y is not: its x² counts in the tensor's own sum only.
            (own.signal, own.n) = (before.signal, before.n);
            own.add(x, None);
        } else {
            (own.signal, own.n) = (self.signal, self.n);
        }
    }

    /// Returns whether some pair was left out whose x is finite.
    fn pass<const OWN: bool>(&mut self, x: &[f32], y: &[f32], own: &mut Sums) -> bool {
        assert_eq!(x.len(), y.len(), "x and y differ in length");
        let body = x.len() - x.len() % LANES;
        #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
        let mut left_out = self.pass_avx2::<OWN>(&x[..body], &y[..body], own);
        #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
        let mut left_out = false;
        #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
        for (a, b) in x[..body].chunks_exact(LANES).zip(y[..body].chunks_exact(LANES)) {
            for k in 0..LANES {
                left_out |= self.add_one(k, a[k], b[k]);
                if OWN {
                    own.add_one(k, a[k], a[k]);
                }
            }
        }
        for (k, (&a, &b)) in x[body..].iter().zip(&y[body..]).enumerate() {
            left_out |= self.add_one(k, a, b);
            if OWN {
                own.add_one(k, a, a);
            }
        }
        left_out
    }

    /// One pair into lane `k`: zeros where either side is not finite. Returns whether the pair
    /// was left out with a finite x.
    #[inline(always)]
    fn add_one(&mut self, k: usize, a: f32, b: f32) -> bool {
        let ok = a.is_finite() && b.is_finite();
        let (a, b) = if ok { (f64::from(a), f64::from(b)) } else { (0.0, 0.0) };
        self.signal[k] += a * a;
        self.noise[k] += (a - b) * (a - b);
        self.n[k] += u64::from(ok);
        !ok && a.is_finite()
    }

    /// [`Sums::add_one`] on eight pairs at once, lanes 0–3 one AVX register and lanes 4–7
    /// another: the same operations in the same order per lane, so the same bits (the native
    /// build targets AVX2 where the CPU has it, .cargo/config.toml); with `OWN`,
    /// `own.add_one(k, a, a)` beside it. `x.len()` is a multiple of [`LANES`].
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    fn pass_avx2<const OWN: bool>(&mut self, x: &[f32], y: &[f32], own: &mut Sums) -> bool {
        use std::arch::x86_64::*;
        // SAFETY: this build targets AVX2 (the function exists only then); every load reads four
        // f32 of a chunk of eight, every load and store of a field four of its eight lanes.
        unsafe {
            let load = |v: &[f64; LANES], h: usize| _mm256_loadu_pd(v.as_ptr().add(4 * h));
            let load_n = |v: &[u64; LANES], h: usize| _mm256_loadu_si256(v.as_ptr().add(4 * h).cast());
            let mut signal = [load(&self.signal, 0), load(&self.signal, 1)];
            let mut noise = [load(&self.noise, 0), load(&self.noise, 1)];
            let mut n = [load_n(&self.n, 0), load_n(&self.n, 1)];
            let mut own_signal = [load(&own.signal, 0), load(&own.signal, 1)];
            let mut own_n = [load_n(&own.n, 0), load_n(&own.n, 1)];
            let (exponent, one) = (_mm_set1_epi32(0x7f80_0000), _mm256_set1_epi64x(1));
            let not_finite = |v: __m128| _mm_cmpeq_epi32(_mm_and_si128(_mm_castps_si128(v), exponent), exponent);
            let mut left_out = _mm_setzero_si128();
            // A run of pairs is first summed without masks, as if all were finite (the usual
            // case): any NaN or infinity on either side makes Σa² or Σ(a − b)² NaN or infinite
            // (every term is ≥ 0, and finite float32 squares cannot overflow a float64 sum), so a
            // run whose sums stay finite had none and gave the masked loop's very bits. Otherwise
            // the sums are put back and the run summed again with masks, still in the cache.
            let finite = |v: &[__m256d; 2]| {
                let (max, v) = (_mm256_set1_pd(f64::MAX), _mm256_add_pd(v[0], v[1]));
                // Ordered ≤ is false for NaN and +∞.
                _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_LE_OQ>(v, max)) == 0b1111
            };
            for (xr, yr) in x.chunks(RUN).zip(y.chunks(RUN)) {
                let before = (signal, noise, own_signal);
                for (a8, b8) in xr.chunks_exact(LANES).zip(yr.chunks_exact(LANES)) {
                    for h in 0..2 {
                        let a = _mm256_cvtps_pd(_mm_loadu_ps(a8.as_ptr().add(4 * h)));
                        let b = _mm256_cvtps_pd(_mm_loadu_ps(b8.as_ptr().add(4 * h)));
                        let aa = _mm256_mul_pd(a, a);
                        if OWN {
                            own_signal[h] = _mm256_add_pd(own_signal[h], aa);
                        }
                        signal[h] = _mm256_add_pd(signal[h], aa);
                        let d = _mm256_sub_pd(a, b);
                        noise[h] = _mm256_add_pd(noise[h], _mm256_mul_pd(d, d));
                    }
                }
                if finite(&signal) && finite(&noise) {
                    let per_lane = _mm256_set1_epi64x((xr.len() / LANES) as i64);
                    for h in 0..2 {
                        n[h] = _mm256_add_epi64(n[h], per_lane);
                        if OWN {
                            own_n[h] = _mm256_add_epi64(own_n[h], per_lane);
                        }
                    }
                    continue;
                }
                (signal, noise, own_signal) = before;
                for (a8, b8) in xr.chunks_exact(LANES).zip(yr.chunks_exact(LANES)) {
                    for h in 0..2 {
                        let (a, b) = (_mm_loadu_ps(a8.as_ptr().add(4 * h)), _mm_loadu_ps(b8.as_ptr().add(4 * h)));
                        let bad_a = not_finite(a);
                        let bad = _mm_or_si128(bad_a, not_finite(b));
                        left_out = _mm_or_si128(left_out, _mm_andnot_si128(bad_a, bad));
                        if OWN {
                            // The own sum's noise, (a − a)², is zero in every lane: only Σa² and the count.
                            let a = _mm256_cvtps_pd(_mm_andnot_ps(_mm_castsi128_ps(bad_a), a));
                            own_signal[h] = _mm256_add_pd(own_signal[h], _mm256_mul_pd(a, a));
                            own_n[h] = _mm256_add_epi64(own_n[h], _mm256_add_epi64(_mm256_cvtepi32_epi64(bad_a), one));
                        }
                        let a = _mm256_cvtps_pd(_mm_andnot_ps(_mm_castsi128_ps(bad), a));
                        let b = _mm256_cvtps_pd(_mm_andnot_ps(_mm_castsi128_ps(bad), b));
                        signal[h] = _mm256_add_pd(signal[h], _mm256_mul_pd(a, a));
                        let d = _mm256_sub_pd(a, b);
                        noise[h] = _mm256_add_pd(noise[h], _mm256_mul_pd(d, d));
                        // bad is −1 where either side is not finite: −1 + 1 adds nothing, 0 + 1 one.
                        n[h] = _mm256_add_epi64(n[h], _mm256_add_epi64(_mm256_cvtepi32_epi64(bad), one));
                    }
                }
            }
            for h in 0..2 {
                _mm256_storeu_pd(self.signal.as_mut_ptr().add(4 * h), signal[h]);
                _mm256_storeu_pd(self.noise.as_mut_ptr().add(4 * h), noise[h]);
                _mm256_storeu_si256(self.n.as_mut_ptr().add(4 * h).cast(), n[h]);
                if OWN {
                    _mm256_storeu_pd(own.signal.as_mut_ptr().add(4 * h), own_signal[h]);
                    _mm256_storeu_si256(own.n.as_mut_ptr().add(4 * h).cast(), own_n[h]);
                }
            }
            _mm_movemask_epi8(left_out) != 0
        }
    }

    /// `(Σx², Σ(x − y)², count)`: the lanes added pairwise.
    pub fn total(&self) -> (f64, f64, usize) {
        let total = |v: [f64; LANES]| ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
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
    used_as(x, y, bounds, |v| v)
}

/// [`used`] with each output counted as `level(y)`: the level it stands for (a library's
/// `x + (q − x)` can miss its level by an ulp; the caller snaps it back).
pub fn used_as(x: &[f32], y: &[f32], bounds: Option<(f32, f32)>, level: impl Fn(f32) -> f32) -> (usize, usize) {
    let mut outs = Distinct::default();
    let mut clipped = 0usize;
    for (&a, &b) in x.iter().zip(y) {
        if a.is_finite() && b.is_finite() {
            outs.add(level(b));
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
    fn pieces_of_multiples_of_eight_sum_the_bits_of_one_pass() {
        let x: Vec<f32> = (0..1003).map(|i| ((i * 7919 % 101) as f32 - 50.0) * 0.037).collect();
        let mut y: Vec<f32> = x.iter().map(|v| (v * 8.0).round() / 8.0).collect();
        y[17] = f32::NAN;
        for piece in [8, 16, 64, 1000] {
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
            one.add_one(i % LANES, a, b);
        }
        assert_eq!(body, one);
    }

    #[test]
    fn one_pass_with_the_own_sums_gives_the_bits_of_two() {
        let specials = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0, 1e-40, 3e38];
        let x: Vec<f32> = (0..1001).map(|i| ((i * 7919 % 101) as f32 - 50.0) * 0.037).chain(specials).collect();
        let round = |v: &f32| (v * 8.0).round() / 8.0;
        // y finite wherever x is; y not finite at a finite x in the first piece, in a later one.
        let mut ys: Vec<Vec<f32>> = vec![x.iter().map(round).collect(), x.iter().rev().map(round).collect()];
        ys.push(x.iter().map(round).collect());
        ys[2][700] = f32::NAN;
        for y in &ys {
            let (mut pairs, mut own) = (Sums::default(), Sums::default());
            for (a, b) in x.chunks(64).zip(y.chunks(64)) {
                pairs.add_and_own(a, b, &mut own);
            }
            let (mut two, mut alone) = (Sums::default(), Sums::default());
            two.add(&x, Some(y));
            alone.add(&x, None);
            assert_eq!((pairs, own), (two, alone));
        }
    }

    proptest::proptest! {
        #[test]
        fn runs_with_a_nan_or_infinity_anywhere_sum_the_bits_of_the_pair_by_pair_loop(
            at in proptest::collection::vec((0usize..1500, 0usize..4, proptest::bool::ANY), 0..4),
            len in 0usize..1500,
        ) {
            let specials = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 3e38];
            let x0: Vec<f32> = (0..len).map(|i| ((i * 7919 % 101) as f32 - 50.0) * 0.037).collect();
            let (mut x, mut y) = (x0.clone(), x0.iter().map(|v| (v * 8.0).round() / 8.0).collect::<Vec<_>>());
            for &(i, k, on_x) in at.iter().filter(|a| a.0 < len) {
                if on_x { x[i] = specials[k] } else { y[i] = specials[k] }
            }
            let mut one = Sums::default();
            for (i, (&a, &b)) in x.iter().zip(&y).enumerate() {
                one.add_one(i % LANES, a, b);
            }
            let mut body = Sums::default();
            body.add(&x, Some(&y));
            proptest::prop_assert_eq!(body, one);
            let (mut pairs, mut own) = (Sums::default(), Sums::default());
            for (a, b) in x.chunks(256).zip(y.chunks(256)) {
                pairs.add_and_own(a, b, &mut own);
            }
            let mut alone = Sums::default();
            alone.add(&x, None);
            proptest::prop_assert_eq!((pairs, own), (one, alone));
        }
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
