//! How much a quantizer loses on a sample: error, signal-to-quantization-noise ratio, the
//! levels it actually uses and how much of the input falls outside its range.

use qscope_quant::Levels;

/// Quality figures of `y = q(x)` against `x`.
#[derive(Clone, Debug, PartialEq)]
pub struct Quality {
    /// Mean squared error `Σ(x − y)²/N`.
    pub mse: f64,
    /// `10·log10(Σx² / Σ(x − y)²)` in dB; `+inf` when y = x exactly.
    pub sqnr_db: f64,
    /// Distinct output values that occur (−0 and +0 count as one).
    pub levels_used: usize,
    /// Fraction of inputs outside `[min level, max level]`; 0 when the levels are unbounded.
    pub clip_fraction: f64,
    /// Pairs counted (those where both x and y are finite).
    pub count: usize,
}

/// Σx², Σ(x − y)² and the count over the pairs where both are finite (`y` absent: Σx² and the
/// count of finite x). Summed in four interleaved lanes — element i in lane i mod 4, the lanes
/// added pairwise at the end — so four additions are in flight instead of one long chain: the
/// same numbers on every platform, at several times the speed on a checkpoint's tensors.
pub fn sums(x: &[f32], y: Option<&[f32]>) -> (f64, f64, usize) {
    let (mut signal, mut noise, mut n) = ([0.0f64; 4], [0.0f64; 4], [0usize; 4]);
    let mut add = |k: usize, a: f32, b: f32| {
        let ok = a.is_finite() && b.is_finite();
        let (a, b) = if ok { (f64::from(a), f64::from(b)) } else { (0.0, 0.0) };
        signal[k] += a * a;
        noise[k] += (a - b) * (a - b);
        n[k] += usize::from(ok);
    };
    match y {
        Some(y) => {
            let (xs, ys) = (x.chunks_exact(4), y.chunks_exact(4));
            let tail = xs.remainder().iter().zip(ys.remainder());
            for (a, b) in xs.zip(ys) {
                (0..4).for_each(|k| add(k, a[k], b[k]));
            }
            tail.enumerate().for_each(|(k, (&a, &b))| add(k, a, b));
        }
        None => {
            let xs = x.chunks_exact(4);
            let tail = xs.remainder();
            for a in xs {
                (0..4).for_each(|k| add(k, a[k], a[k]));
            }
            tail.iter().enumerate().for_each(|(k, &a)| add(k, a, a));
        }
    }
    let total = |v: [f64; 4]| (v[0] + v[1]) + (v[2] + v[3]);
    (total(signal), total(noise), n.iter().sum())
}

/// MSE, SQNR in dB and the pairs counted (both finite) of `y` against `x`: [`measure`]'s first
/// figures, in one pass without allocating (what `qscope scan` needs per tensor).
pub fn error(x: &[f32], y: &[f32]) -> (f64, f64, usize) {
    assert_eq!(x.len(), y.len(), "x and y differ in length");
    let (signal, noise, n) = sums(x, Some(y));
    let sqnr_db = if noise == 0.0 { f64::INFINITY } else { 10.0 * (signal / noise).log10() };
    (if n == 0 { 0.0 } else { noise / n as f64 }, sqnr_db, n)
}

/// Measures `y` (the quantized `x`) with the quantizer's `levels` (for the clip range).
/// Pairs with a non-finite x or y are left out of every figure.
pub fn measure(x: &[f32], y: &[f32], levels: &Levels) -> Quality {
    assert_eq!(x.len(), y.len(), "x and y differ in length");
    let pairs: Vec<(f32, f32)> =
        x.iter().zip(y).map(|(&a, &b)| (a, b)).filter(|(a, b)| a.is_finite() && b.is_finite()).collect();
    let (mse, sqnr_db, n) = error(x, y);
    let mut outs: Vec<f32> = pairs.iter().map(|&(_, b)| if b == 0.0 { 0.0 } else { b }).collect();
    outs.sort_by(f32::total_cmp);
    outs.dedup();
    let clipped = match levels.bounds() {
        Some((lo, hi)) => pairs.iter().filter(|&&(a, _)| a < lo || a > hi).count(),
        None => 0,
    };
    let frac = |k: usize| if n == 0 { 0.0 } else { k as f64 / n as f64 };
    Quality { mse, sqnr_db, levels_used: outs.len(), clip_fraction: frac(clipped), count: n }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exact_quantization_has_infinite_sqnr_and_zero_mse() {
        let m = measure(&[0.5, -0.25], &[0.5, -0.25], &Levels::Continuous);
        assert_eq!(m.sqnr_db, f64::INFINITY);
        assert_eq!(m.mse, 0.0);
    }

    #[test]
    fn non_finite_pairs_are_left_out() {
        let m = measure(&[1.0, f32::NAN, f32::INFINITY], &[1.0, 0.0, 1.0], &Levels::Continuous);
        assert_eq!(m.count, 1);
        assert_eq!(m.levels_used, 1);
    }

    #[test]
    fn mse_and_sqnr_come_from_the_quantization_error() {
        // Error only at −1 → −0.75: Σe² = 0.0625, Σx² = 2.25.
        let m = measure(&[1.0, -1.0, 0.5, 0.0], &[1.0, -0.75, 0.5, 0.0], &Levels::Continuous);
        assert_eq!(m.mse, 0.015625);
        assert!((m.sqnr_db - 10.0 * 36f64.log10()).abs() < 1e-12, "{}", m.sqnr_db);
    }

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
    fn a_non_finite_pair_adds_nothing_in_any_lane() {
        let x = [1.0, f32::NAN, 2.0, 3.0, f32::INFINITY, 0.5];
        let y = [1.0, 1.0, f32::NAN, 2.0, 4.0, 0.5];
        assert_eq!(sums(&x, Some(&y)), (1.0 + 9.0 + 0.25, 1.0, 3));
        assert_eq!(sums(&x, None), (1.0 + 4.0 + 9.0 + 0.25, 0.0, 4));
    }

    #[test]
    fn levels_used_counts_distinct_outputs_with_both_zeros_as_one() {
        let m = measure(&[0.1, 0.2, -0.1, 0.9, -0.01], &[0.0, 0.25, -0.0, 0.875, 0.0], &Levels::Continuous);
        assert_eq!(m.levels_used, 3);
    }
}
