//! QKeras (`google/qkeras`, `qkeras/quantizers.py`): every quantizer class and the
//! quantizing helper functions, with the library's constructor parameters and defaults.
//!
//! A 1-D tensor is one channel: per-channel statistics (`alpha='auto'`, least-squares
//! scales, ternary thresholds) are taken over all of it, as QKeras does for shape `[N, 1]`.
//! QKeras' internal sigmoid is its default, `hard_sigmoid`.

mod binary;
mod bits;
mod functions;
mod hswish;
mod po2;
mod relu;
mod ternary;
mod ulaw;

pub use binary::{Bernoulli, Binary, StochasticBinary};
pub use bits::{QuantizedBits, QuantizedLinear};
pub use functions::{
    BinarySigmoid, BinaryTanh, HardSigmoid, HardTanh, RoundThrough, SmoothSigmoid, SmoothTanh, StochasticRound,
    StochasticRoundPo2,
};
pub use hswish::QuantizedHswish;
pub(crate) use hswish::hswish;
pub use po2::{QuantizedPo2, QuantizedReluPo2};
pub use relu::{QuantizedRelu, QuantizedSigmoid, QuantizedTanh};
pub use ternary::{StochasticTernary, Ternary};
pub use ulaw::QuantizedUlaw;

use super::lane::{self, Lane};
use super::round::{EPS, mean_f32, mean_of, pow2i, rhe};
use super::schema::Alpha;

/// `ln 2` as float32, as `x / np.log(2.0)` divides by it in TensorFlow.
const LN2: f32 = std::f32::consts::LN_2;

/// QKeras' internal sigmoid (default "hard"): `clip(0.5·x + 0.5, 0, 1)` and its slope.
#[inline(always)]
fn sigmoid_q<V: Lane>(x: V) -> (V, V) {
    let half = V::splat(0.5);
    let (zero, one) = (V::splat(0.0), V::splat(1.0));
    let v = half * x + half;
    (lane::clip(v, zero, one), half * lane::inside(v, zero, one))
}

/// `2^Rhe(log2(s + ε))`: the power of two nearest to `s` in the log domain.
#[inline]
fn po2_round(s: f32) -> f32 {
    let e = rhe(lane::log(s + EPS) / LN2);
    if e.is_nan() { f32::NAN } else { pow2i(e as i32) }
}

/// `_get_least_squares_scale` for one channel: `mean(x·q) / (mean(q·q) + ε)`, rounded to a
/// power of two for `auto_po2` and clipped to `[2^min_exp, 2^max_exp]` when given.
fn least_squares_scale(alpha: Alpha, x: &[f32], q: &[f32], min_exp: Option<i32>, max_exp: Option<i32>) -> f32 {
    match alpha {
        Alpha::None => 1.0,
        Alpha::Value(a) => a as f32,
        Alpha::Auto | Alpha::AutoPo2 => {
            let xq = mean_f32(x.iter().zip(q).map(|(a, b)| a * b));
            let qq = mean_f32(q.iter().map(|b| b * b));
            fitted_scale(alpha, xq, qq, min_exp, max_exp)
        }
    }
}

/// [`least_squares_scale`] of the float32 sums `Σx·q` and `Σq·q` over `n` elements (as
/// [`sums_f32`](super::round::sums_f32) gives them in one pass): the same bits.
fn least_squares_of_sums(
    alpha: Alpha,
    [xq, qq]: [f32; 2],
    n: usize,
    min_exp: Option<i32>,
    max_exp: Option<i32>,
) -> f32 {
    match alpha {
        Alpha::None => 1.0,
        Alpha::Value(a) => a as f32,
        Alpha::Auto | Alpha::AutoPo2 => fitted_scale(alpha, mean_of(xq, n), mean_of(qq, n), min_exp, max_exp),
    }
}

/// `mean(x·q) / (mean(q·q) + ε)`, for 'auto_po2' rounded to a power of two and clipped.
fn fitted_scale(alpha: Alpha, xq: f32, qq: f32, min_exp: Option<i32>, max_exp: Option<i32>) -> f32 {
    let s = xq / (qq + EPS);
    if alpha == Alpha::Auto {
        return s;
    }
    let mut s = po2_round(s);
    if let Some(lo) = min_exp {
        s = s.max(pow2i(lo));
    }
    if let Some(hi) = max_exp {
        s = s.min(pow2i(hi));
    }
    s
}

/// `(1 − q)` as Python computes it (in double) before TensorFlow casts it to float32.
#[inline]
fn one_minus(q: f64) -> f32 {
    (1.0 - q) as f32
}

/// Checks a parameter is only set together with `alpha='auto_po2'`.
fn only_with_auto_po2(alpha: Alpha, set: bool, name: &'static str) -> Result<(), (&'static str, String)> {
    if set && alpha != Alpha::AutoPo2 {
        return Err((name, "only supported with alpha='auto_po2'".into()));
    }
    Ok(())
}

/// The integer part must fit the word.
fn integer_fits(integer: i32, bits: i32) -> Result<(), (&'static str, String)> {
    if integer > bits {
        return Err(("integer", format!("exceeds bits={bits}; allowed: 0 to {bits}")));
    }
    Ok(())
}
