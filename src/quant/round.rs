//! Rounding and sign primitives, written once and shared by every family.
//!
//! All arithmetic is `f32`, as in TensorFlow and PyTorch, so results agree to the bit.
//! The libraries round half to even (`tf.round`, `torch.round`); Rust's `f32::round`
//! rounds half away from zero and must never be used for them.

use rand::Rng;

/// Keras' `epsilon()`.
pub const EPS: f32 = 1e-7;

/// Round half to even, as `tf.round` / `torch.round` / `np.round`.
#[inline(always)]
pub fn rhe(v: f32) -> f32 {
    v.round_ties_even()
}

/// `tf.sign`: −1, 0 or +1; NaN stays NaN.
#[inline(always)]
pub fn sgn0(v: f32) -> f32 {
    if v > 0.0 {
        1.0
    } else if v < 0.0 {
        -1.0
    } else {
        v * 0.0 // keeps NaN, maps ±0 to ±0
    }
}

/// Sign with zero mapped to +1 (Larq's `sign`, QKeras' 1-bit paths); NaN stays NaN.
#[inline(always)]
pub fn sgn_plus(v: f32) -> f32 {
    if v < 0.0 {
        -1.0
    } else if v >= 0.0 {
        1.0
    } else {
        v
    }
}

/// Keras `clip` / `tf.clip_by_value`: `min(max(v, lo), hi)`; NaN passes through.
#[inline(always)]
pub fn clip(v: f32, lo: f32, hi: f32) -> f32 {
    let a = if v < lo { lo } else { v };
    if a > hi { hi } else { a }
}

/// Gradient mask of `clip`: 1 on `[lo, hi]` (both ends inclusive), else 0 (NaN → 0).
#[inline(always)]
pub fn inside(v: f32, lo: f32, hi: f32) -> f32 {
    if v >= lo && v <= hi { 1.0 } else { 0.0 }
}

/// A uniform draw in `[0, 1)` with 24 random bits, as `tf.random.uniform` produces.
#[inline(always)]
pub fn uniform<R: Rng + ?Sized>(rng: &mut R) -> f32 {
    (rng.next_u32() >> 8) as f32 * (1.0 / 16_777_216.0)
}

/// QKeras `stochastic_round(x, precision)`: rounds `x/precision` down with probability
/// `1 − frac` and up with probability `frac` (so it is unbiased), then scales back.
/// Ties and integers are exact. Gradient: none of its own (callers wrap it in an STE).
#[inline(always)]
pub fn stochastic_round<R: Rng + ?Sized>(x: f32, precision: f32, rng: &mut R) -> f32 {
    let scale = 1.0 / precision;
    let v = x * scale;
    let fl = v.floor();
    let frac = v - fl;
    let r = if frac < uniform(rng) { fl } else { v.ceil() };
    r / scale
}

/// QKeras' straight-through combination `x + stop_gradient(q·(xq − x))`, evaluated in
/// float32 as the library does, so values agree to the bit.
///
/// Where that expression is an artefact — `|x| > 2^20`, where `xq` is lost to
/// cancellation, and ±inf, where it gives NaN — qscope returns the intended value
/// `(1 − q)·x + q·xq` instead (see README, "Where qscope differs").
#[inline(always)]
pub fn ste_blend(x: f32, xq: f32, q: f32) -> f32 {
    if x.abs() <= 1_048_576.0 {
        x + q * (xq - x)
    } else if q == 1.0 {
        xq
    } else {
        (1.0 - q) * x + q * xq
    }
}

/// QKeras' `use_ste=False` combination `(1 − q)·x + stop_gradient(q·xq)`;
/// `one_minus_q` is `1 − q` as Python computes it before casting to float32.
#[inline(always)]
pub fn no_ste_blend(x: f32, xq: f32, q: f32, one_minus_q: f32) -> f32 {
    if q == 1.0 { xq } else { one_minus_q * x + q * xq }
}

/// `2^e` for an integer exponent, exact over the whole f32 range (subnormals included).
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
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
    let mut width = P;
    while width > 1 {
        width /= 2;
        for i in 0..width {
            a[i] += a[i + width];
        }
    }
    tail + a[0]
}

/// Mean in float32 (`K.mean`).
#[inline]
pub fn mean_f32(values: impl ExactSizeIterator<Item = f32>) -> f32 {
    let n = values.len();
    if n == 0 {
        return f32::NAN;
    }
    sum_f32(values) / n as f32
}

/// Largest absolute value (`K.max(abs(x))`); NaN propagates as in TensorFlow.
#[inline]
pub fn max_abs(x: &[f32]) -> f32 {
    let mut m = 0.0f32;
    for &v in x {
        let a = v.abs();
        if a.is_nan() {
            return f32::NAN;
        }
        if a > m {
            m = a;
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rhe_rounds_ties_to_even() {
        let got: Vec<f32> = [-2.5f32, -1.5, -0.5, 0.5, 1.5, 2.5].iter().map(|&v| rhe(v)).collect();
        assert_eq!(got, vec![-2.0, -2.0, -0.0, 0.0, 2.0, 2.0]);
    }

    #[test]
    fn sgn_plus_maps_zero_to_one_and_keeps_nan() {
        assert_eq!(sgn_plus(0.0), 1.0);
        assert_eq!(sgn_plus(-0.0), 1.0);
        assert_eq!(sgn_plus(-3.0), -1.0);
        assert!(sgn_plus(f32::NAN).is_nan());
    }

    #[test]
    fn sgn0_maps_zero_to_zero() {
        assert_eq!(sgn0(0.0), 0.0);
        assert_eq!(sgn0(-2.0), -1.0);
        assert!(sgn0(f32::NAN).is_nan());
    }

    #[test]
    fn pow2i_is_exact_across_the_range() {
        for e in -149..=127 {
            assert_eq!(pow2i(e), 2f64.powi(e) as f32, "2^{e}");
        }
        assert_eq!(pow2i(128), f32::INFINITY);
        assert_eq!(pow2i(-150), 0.0);
    }

    #[test]
    fn ste_blend_is_the_library_expression_in_range() {
        let (x, xq) = (0.3f32, 0.25f32);
        assert_eq!(ste_blend(x, xq, 1.0), x + (xq - x));
        assert_eq!(ste_blend(1e8, 0.875, 1.0), 0.875);
        assert_eq!(ste_blend(f32::INFINITY, 0.875, 1.0), 0.875);
    }
}
