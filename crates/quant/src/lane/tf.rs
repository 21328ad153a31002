//! TensorFlow's float32 `log`, `exp`, `sigmoid` and `tanh` on CPU (Eigen's), written once over
//! [`Lane`] so that every path computes TensorFlow's bits.

use super::Lane;

/// Natural logarithm as TensorFlow computes it on CPU (Eigen's `plog_float`): the
/// mantissa is moved to [√½, √2) and log(1 + m) is a rational (3,3) approximation, with
/// plain multiply-adds (no FMA). It agrees with `tf.math.log` to the bit, so
/// quantizers that round a logarithm (power-of-two exponents) switch exactly where
/// TensorFlow does. 0 ↦ −inf, x < 0 and NaN ↦ NaN, +inf ↦ +inf.
#[inline(always)]
pub fn log<V: Lane>(x: V) -> V {
    const ALPHA: [f32; 3] = [0.182_562_96, 1.000_000_0, 1.000_000_0];
    const BETA: [f32; 4] = [0.049_616_247, 0.599_232_5, 1.5, 1.0];
    let one = V::splat(1.0);
    // frexp: x = m·2^e with m in [0.5, 1).
    let m = x.mantissa() * V::splat(0.5);
    let e = x.exponent() + one;
    let below = m.lt(V::splat(std::f32::consts::FRAC_1_SQRT_2));
    let tmp = V::select(below, m, V::splat(0.0));
    let e = e - V::select(below, one, V::splat(0.0));
    let m = (m - one) + tmp;
    let p = m * ((V::splat(ALPHA[0]) * m + V::splat(ALPHA[1])) * m + V::splat(ALPHA[2]));
    let q = ((V::splat(BETA[0]) * m + V::splat(BETA[1])) * m + V::splat(BETA[2])) * m + V::splat(BETA[3]);
    let r = e * V::splat(std::f32::consts::LN_2) + p / q;
    let r = V::select(x.lt(V::splat(f32::INFINITY)), r, x);
    // Subnormals count as 0, as TensorFlow flushes them.
    let special = V::select(x.ge(V::splat(0.0)), V::splat(f32::NEG_INFINITY), V::splat(f32::NAN));
    V::select(x.ge(V::splat(f32::MIN_POSITIVE)), r, special)
}

/// The core of [`exp`] (Eigen's `pexp_float`) at an already clamped `x`: `m = ⌊x·log2 e + ½⌋`
/// and the degree-6 polynomial `y` ≈ `e^(x − m·ln 2)`, so that `e^x = y·2^m`.
#[inline(always)]
pub(crate) fn exp_reduced<V: Lane>(x: V) -> (V, V) {
    let m = (x * V::splat(std::f32::consts::LOG2_E) + V::splat(0.5)).floor();
    let r = m * V::splat(-0.693_359_4) + x;
    let r = m * V::splat(0.000_212_194_44) + r;
    let r2 = r * r;
    let p_even = r2 * V::splat(0.001_374_496_4) + V::splat(0.041_669_652);
    let p_odd = r2 * V::splat(0.008_368_945) + V::splat(0.166_665_18);
    let p_even = r2 * p_even + V::splat(0.499_999_88);
    let y = r * p_odd + p_even;
    (m, r2 * y + (r + V::splat(1.0)))
}

/// `exp` as TensorFlow computes it on CPU (Eigen's `pexp_float`): `m = ⌊x·log2 e + ½⌋`,
/// `r = x − m·ln 2` in two parts, a degree-6 polynomial, times `2^m`. Agrees with
/// `tf.math.exp` to the bit (results below 2^−126 are flushed to 0, as TensorFlow does).
#[inline(always)]
pub fn exp<V: Lane>(x: V) -> V {
    let xc = V::select(x.gt(V::splat(88.723)), V::splat(88.723), x);
    let (m, y) = exp_reduced(xc);
    // 2^m in two factors, so 2^128·y stays finite where it should.
    let h = (m * V::splat(0.5)).floor();
    let e = y * h.pow2() * (m - h).pow2();
    let e = V::select(e.lt(V::splat(f32::MIN_POSITIVE)), V::splat(0.0), e);
    let e = V::select(x.lt(V::splat(-104.0)), V::splat(0.0), e);
    // +inf stays +inf; NaN stays NaN (every comparison with NaN is false).
    V::select(x.ge(V::splat(f32::INFINITY)), x, V::select(x.lt(V::splat(f32::INFINITY)), e, x))
}

/// The logistic function as TensorFlow computes it (`e/(1 + e)` with `e = exp(min(x,
/// 16.6355324))`); agrees with `tf.math.sigmoid` to the bit.
#[inline(always)]
pub fn sigmoid<V: Lane>(x: V) -> V {
    let cap = V::splat(16.635_532);
    let e = exp(V::select(x.gt(cap), cap, x));
    e / (V::splat(1.0) + e)
}

/// `tanh` as a rational approximation (the form Eigen and so TensorFlow use for float32),
/// accurate to a few ulp, identical on every path. Saturates to ±1 beyond |x| ≈ 7.9;
/// NaN stays NaN.
#[inline(always)]
pub fn tanh<V: Lane>(x: V) -> V {
    const A1: f32 = 0.0048935246;
    const A3: f32 = 0.00063726195;
    const A5: f32 = 1.48572235e-05;
    const A7: f32 = 5.1222973e-08;
    const A9: f32 = -8.604672e-11;
    const A11: f32 = 2.000188e-13;
    const A13: f32 = -2.7607684e-16;
    const B0: f32 = 0.004893525;
    const B2: f32 = 0.0022684347;
    const B4: f32 = 0.00011853471;
    const B6: f32 = 1.1982584e-06;
    // clip(x, −c, c) as pmax then pmin: the same values (NaN passes), one instruction each.
    let c = V::splat(7.905311);
    let xc = x.pmax(-c).pmin(c);
    let x2 = xc * xc;
    let mut p = V::splat(A13);
    for a in [A11, A9, A7, A5, A3, A1] {
        p = p * x2 + V::splat(a);
    }
    let p = p * xc;
    let q = ((V::splat(B6) * x2 + V::splat(B4)) * x2 + V::splat(B2)) * x2 + V::splat(B0);
    V::select(x.abs().lt(V::splat(4e-4)), x, p / q)
}
