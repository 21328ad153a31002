//! `sin`, `cos` and `ln` that give the same bits on every platform.
//!
//! Rust's `f64::sin` calls the platform's libm: glibc natively, a musl port in WASM; they
//! differ in the last bit now and then, and one flipped bit in a dataset point changes a whole
//! training run. These use only `+ − × ÷`, `round` and bit manipulation (all exactly specified
//! by IEEE 754), so the browser and `qscope train` generate the same datasets and features,
//! bit for bit. Accuracy: within 2 ulp of the true value for |x| < 2^20 (checked against std);
//! outside that range still deterministic, just less accurate.

/// π/2 = HI + MID + LO (fdlibm's split): HI and MID have 33 significant bits, so `k · HI` and
/// `k · MID` are exact for |k| < 2^20.
const PIO2_HI: f64 = f64::from_bits(0x3ff9_21fb_5440_0000);
const PIO2_MID: f64 = f64::from_bits(0x3dd0_b461_1a60_0000);
const PIO2_LO: f64 = f64::from_bits(0x3ba3_198a_2e03_7073);

/// Taylor coefficients (−1)ⁿ/(2n+1)! and (−1)ⁿ/(2n)!, n ≥ 1; enough terms for |r| ≤ π/4.
const SIN: [f64; 8] = [
    -1.0 / 6.0,
    1.0 / 120.0,
    -1.0 / 5_040.0,
    1.0 / 362_880.0,
    -1.0 / 39_916_800.0,
    1.0 / 6_227_020_800.0,
    -1.0 / 1_307_674_368_000.0,
    1.0 / 355_687_428_096_000.0,
];
const COS: [f64; 8] = [
    -1.0 / 2.0,
    1.0 / 24.0,
    -1.0 / 720.0,
    1.0 / 40_320.0,
    -1.0 / 3_628_800.0,
    1.0 / 479_001_600.0,
    -1.0 / 87_178_291_200.0,
    1.0 / 20_922_789_888_000.0,
];

/// Σ cᵢ·zⁱ⁺¹ by Horner.
fn series(c: &[f64], z: f64) -> f64 {
    c.iter().rev().fold(0.0, |acc, &ci| (acc + ci) * z)
}

/// `x = k·π/2 + r`, |r| ≤ π/4 (about): the quadrant `k mod 4` and `r`.
fn reduce(x: f64) -> (i64, f64) {
    let k = (x * std::f64::consts::FRAC_2_PI).round();
    let r = ((x - k * PIO2_HI) - k * PIO2_MID) - k * PIO2_LO;
    ((k as i64).rem_euclid(4), r)
}

fn sin_kernel(r: f64) -> f64 {
    r + r * series(&SIN, r * r)
}

fn cos_kernel(r: f64) -> f64 {
    1.0 + series(&COS, r * r)
}

/// sin x; NaN for ±∞ and NaN.
pub fn sin(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let (q, r) = reduce(x);
    match q {
        0 => sin_kernel(r),
        1 => cos_kernel(r),
        2 => -sin_kernel(r),
        _ => -cos_kernel(r),
    }
}

/// cos x; NaN for ±∞ and NaN.
pub fn cos(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let (q, r) = reduce(x);
    match q {
        0 => cos_kernel(r),
        1 => -sin_kernel(r),
        2 => -cos_kernel(r),
        _ => sin_kernel(r),
    }
}

/// ln 2 split so that `e · LN2_HI` is exact for any exponent e.
const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);

/// ln x = e·ln 2 + 2·atanh(f), x = 2ᵉ·m, m ∈ [√½, √2), f = (m − 1)/(m + 1); NaN for x < 0,
/// −∞ for 0.
pub fn ln(x: f64) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    if x.is_infinite() {
        return x;
    }
    // Subnormals: scale into the normal range first.
    let (x, bias) = if x < f64::MIN_POSITIVE { (x * 2f64.powi(54), -54) } else { (x, 0) };
    let bits = x.to_bits();
    let mut e = ((bits >> 52) & 0x7ff) as i64 - 1023 + bias;
    let mut m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    if m > std::f64::consts::SQRT_2 {
        m *= 0.5;
        e += 1;
    }
    let f = (m - 1.0) / (m + 1.0);
    let f2 = f * f;
    // 2·atanh f = 2(f + f³/3 + f⁵/5 + …); |f| ≤ 0.172, so f²¹ is below 2^−53 relative.
    let odd = (1..=10).rev().fold(0.0, |acc, n| (acc + 1.0 / (2 * n + 1) as f64) * f2);
    let e = e as f64;
    e * LN2_HI + (2.0 * (f + f * odd) + e * LN2_LO)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ulps(a: f64, b: f64) -> u64 {
        (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs()
    }

    /// Within 2 ulp of std's value, or within 2^−52 absolute near a zero of the function.
    fn close(ours: f64, std: f64) -> bool {
        ulps(ours, std) <= 2 || (ours - std).abs() <= f64::EPSILON
    }

    #[test]
    fn sin_and_cos_match_std_over_the_dataset_range() {
        for i in -200_000..=200_000 {
            let x = i as f64 * 1.0e-4 * std::f64::consts::E; // ±54, irregular steps
            assert!(close(sin(x), x.sin()), "sin {x}: {} vs {}", sin(x), x.sin());
            assert!(close(cos(x), x.cos()), "cos {x}: {} vs {}", cos(x), x.cos());
        }
    }

    #[test]
    fn sin_and_cos_hit_exact_values() {
        assert_eq!(sin(0.0), 0.0);
        assert_eq!(cos(0.0), 1.0);
        assert!((sin(std::f64::consts::FRAC_PI_2) - 1.0).abs() <= f64::EPSILON);
        assert!(sin(f64::INFINITY).is_nan() && cos(f64::NAN).is_nan());
    }

    #[test]
    fn ln_matches_std_from_subnormals_to_huge() {
        // Positive doubles spread over every exponent (subnormals included), and near 1.
        let spread = (1..300_000u64).map(|i| f64::from_bits(i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 1));
        let near_one = (-100_000..100_000).map(|i| 1.0 + i as f64 * 1.3e-6);
        for x in spread.chain(near_one).filter(|x| x.is_finite()) {
            assert!(close(ln(x), x.ln()), "ln {x}: {} vs {}", ln(x), x.ln());
        }
        assert_eq!(ln(1.0), 0.0);
        assert_eq!(ln(0.0), f64::NEG_INFINITY);
        assert!(ln(-1.0).is_nan());
    }
}
