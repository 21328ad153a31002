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
    /// Distinct output values that occur (−0 and +0 count as one), at most
    /// [`Distinct::LIMIT`](qscope_tensors::distinct::Distinct::LIMIT): a continuous output of more
    /// elements reads as that many. An output within four ulps of one of the quantizer's levels
    /// counts as that level: QKeras' `x + stop_gradient(q − x)` can land an ulp beside its level
    /// (`stochastic_binary` gives 0.99999994 for some x), and is still that level used.
    pub levels_used: usize,
    /// Fraction of inputs outside `[min level, max level]`; 0 when the levels are unbounded.
    pub clip_fraction: f64,
    /// Pairs counted (those where both x and y are finite).
    pub count: usize,
}

pub use qscope_tensors::stats::{Sums, sums};

/// MSE, SQNR in dB and the pairs counted (both finite) of `y` against `x`: [`measure`]'s first
/// figures, in one pass without allocating (what `qscope scan` needs per tensor).
pub fn error(x: &[f32], y: &[f32]) -> (f64, f64, usize) {
    assert_eq!(x.len(), y.len(), "x and y differ in length");
    error_of(sums(x, Some(y)))
}

/// [`error`]'s figures from the sums `(Σx², Σ(x − y)², count)` ([`Sums::total`]).
pub fn error_of((signal, noise, n): (f64, f64, usize)) -> (f64, f64, usize) {
    let sqnr_db = if noise == 0.0 { f64::INFINITY } else { 10.0 * (signal / noise).log10() };
    (if n == 0 { 0.0 } else { noise / n as f64 }, sqnr_db, n)
}

/// Measures `y` (the quantized `x`) with the quantizer's `levels` (for the clip range).
/// Pairs with a non-finite x or y are left out of every figure. One pass besides [`error`]'s,
/// no sort: a tensor of millions of elements is measured in tens of milliseconds.
pub fn measure(x: &[f32], y: &[f32], levels: &Levels) -> Quality {
    let (mse, sqnr_db, n) = error(x, y);
    let level = |v: f32| if levels.contains(v) { levels.nearest(v).unwrap_or(v) } else { v };
    let (levels_used, clipped) = match levels {
        Levels::Continuous => qscope_tensors::stats::used(x, y, levels.bounds()),
        _ => qscope_tensors::stats::used_as(x, y, levels.bounds(), level),
    };
    let frac = |k: usize| if n == 0 { 0.0 } else { k as f64 / n as f64 };
    Quality { mse, sqnr_db, levels_used, clip_fraction: frac(clipped), count: n }
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
    fn an_output_an_ulp_beside_a_level_counts_as_that_level() {
        let below_one = 1.0f32 - f32::EPSILON / 2.0; // 0.99999994
        let levels = Levels::set(vec![-1.0, 1.0]);
        let x = [0.3, -0.2, 0.9, -0.7, 0.1];
        let m = measure(&x, &[1.0, -1.0, below_one, -below_one, 1.0], &levels);
        assert_eq!(m.levels_used, 2, "stochastic_binary's outputs are its two levels");
        // An output far from every level is counted as itself.
        assert_eq!(measure(&x, &[1.0, -1.0, 0.5, -1.0, 1.0], &levels).levels_used, 3);
        // And the error still sees the outputs as they are.
        assert_ne!(m.mse, measure(&x, &[1.0, -1.0, 1.0, -1.0, 1.0], &levels).mse);
    }

    #[test]
    fn levels_used_counts_distinct_outputs_with_both_zeros_as_one() {
        let m = measure(&[0.1, 0.2, -0.1, 0.9, -0.01], &[0.0, 0.25, -0.0, 0.875, 0.0], &Levels::Continuous);
        assert_eq!(m.levels_used, 3);
    }
}
