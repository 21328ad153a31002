//! The rounding, sign and TensorFlow math rules of [`super`] on `f32`.

use super::*;

#[test]
fn binade_keeps_the_exponent_bits_and_pmin_pmax_keep_self_on_nan() {
    assert_eq!([1.75f32.binade(), 0.3.binade(), 0.0.binade(), 1e-40.binade()], [1.0, 0.25, 0.0, 0.0]);
    assert_eq!(f32::INFINITY.binade(), f32::INFINITY);
    assert_eq!(f32::NAN.binade(), f32::INFINITY);
    assert_eq!([2.0f32.pmin(3.0), 2.0.pmax(3.0)], [2.0, 3.0]);
    assert_eq!([2.0f32.pmin(f32::NAN), 2.0.pmax(f32::NAN)], [2.0, 2.0]);
    assert!(f32::NAN.pmin(2.0).is_nan() && f32::NAN.pmax(2.0).is_nan());
}

#[test]
fn pmax_then_pmin_is_clip() {
    // tanh clips its input this way; every 65 537th bit pattern (all signs, binades,
    // subnormals and NaNs) and the bounds themselves.
    let c = 7.905311f32;
    let specials = [c, -c, 0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN];
    for x in (0..=u32::MAX).step_by(65_537).map(f32::from_bits).chain(specials) {
        assert_eq!(x.pmax(-c).pmin(c).to_bits(), clip(x, -c, c).to_bits(), "{x:e}");
    }
}

#[test]
fn tanh_is_within_eight_ulp_of_libm() {
    let mut worst = 0u32;
    let mut x = -9.0f32;
    while x < 9.0 {
        let (a, b) = (tanh(x), x.tanh());
        let d = (a.to_bits() as i32 - b.to_bits() as i32).unsigned_abs();
        worst = worst.max(d);
        x += 0.001_3;
    }
    assert!(worst <= 8, "worst {worst} ulp");
    assert!(tanh(f32::NAN).is_nan());
    assert_eq!(tanh(f32::INFINITY), 1.0);
    assert_eq!(tanh(f32::NEG_INFINITY), -1.0);
}

#[test]
fn exponent_mantissa_and_pow2_decompose_normal_floats() {
    for v in [1.0f32, 1.5, 0.75, 3.0e-5, 6.0e7, std::f32::consts::SQRT_2, 2.0] {
        let (e, m) = (v.exponent(), v.mantissa());
        assert_eq!(e.pow2() * m, v);
        assert!((1.0..2.0).contains(&m));
    }
    assert_eq!((-127.0f32).pow2(), 0.0);
    assert_eq!(128.0f32.pow2(), f32::INFINITY);
    assert_eq!((-126.0f32).pow2(), f32::MIN_POSITIVE);
}

#[test]
fn log_follows_tensorflow_and_handles_specials() {
    // tf.math.log bits for these inputs (TF 2.15 CPU); 0.24999999 is not correctly rounded there.
    assert_eq!(log(0.249_999_99f32).to_bits(), 0xbfb1_7219);
    assert_eq!(log(0.707_106_77f32).to_bits(), 0xbeb1_7218);
    assert_eq!(log(1.000_000_1f32).to_bits(), 0x33ff_fffe);
    assert_eq!(log(11585.237f32).to_bits(), 0x4115_b844);
    assert_eq!(log(1.0f32), 0.0);
    assert_eq!(log(0.0f32), f32::NEG_INFINITY);
    assert_eq!(log(f32::INFINITY), f32::INFINITY);
    assert!(log(-1.0f32).is_nan() && log(f32::NAN).is_nan());
    for v in [1e-30f32, 1e-7, 0.3, 2.0, 1e30] {
        assert!((log(v) - v.ln()).abs() <= 2.0 * f32::EPSILON * v.ln().abs().max(1.0), "{v}");
    }
}

#[test]
fn exp_and_sigmoid_follow_tensorflow() {
    // tf.math.exp / tf.math.sigmoid bits (TF 2.15 CPU).
    for v in [-3.0f32, -0.5, 0.0, 0.3, 1.0, 10.0, 80.0] {
        let e = exp(v);
        assert!((e - v.exp()).abs() <= 2.0 * f32::EPSILON * v.exp(), "{v}: {e} vs {}", v.exp());
    }
    assert_eq!(exp(0.0f32), 1.0);
    assert_eq!(exp(f32::NEG_INFINITY), 0.0);
    assert_eq!(exp(f32::INFINITY), f32::INFINITY);
    assert!(exp(f32::NAN).is_nan());
    assert!(exp(88.72f32).is_finite());
    assert_eq!(sigmoid(0.0f32), 0.5);
    assert_eq!(sigmoid(20.0f32), 1.0);
    assert_eq!(sigmoid(f32::NEG_INFINITY), 0.0);
    assert!(sigmoid(f32::NAN).is_nan());
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
fn ste_blend_is_the_library_expression_in_range() {
    let (x, xq) = (0.3f32, 0.25f32);
    assert_eq!(ste_blend(x, xq, 1.0), x + (xq - x));
    assert_eq!(ste_blend(1e8, 0.875, 1.0), 0.875);
    assert_eq!(ste_blend(f32::INFINITY, 0.875, 1.0), 0.875);
}

#[test]
fn clip_passes_nan_and_bounds_the_rest() {
    assert!(clip(f32::NAN, 0.0, 1.0).is_nan());
    assert_eq!(clip(-3.0f32, 0.0, 1.0), 0.0);
    assert_eq!(clip(3.0f32, 0.0, 1.0), 1.0);
}

#[test]
fn reduce_as_a_tree_gives_the_left_fold_of_pmin_pmax_and_imax() {
    // Ties between the zeros show which lane wins: the first holding the extreme, as a fold from
    // ±inf in lane order keeps it.
    let vals = [0.0f32, -0.0, 1.0, -1.0, f32::INFINITY, f32::NEG_INFINITY];
    for a in vals {
        for b in vals {
            for c in vals {
                for d in vals {
                    let w = Wide([a, b, c, d]);
                    let lo = [a, b, c, d].into_iter().fold(f32::INFINITY, f32::pmin);
                    let hi = [a, b, c, d].into_iter().fold(f32::NEG_INFINITY, f32::pmax);
                    let top = [a, b, c, d].into_iter().map(f32::abs).fold(0.0, f32::imax);
                    assert_eq!(w.reduce(Lane::pmin).to_bits(), lo.to_bits(), "{a} {b} {c} {d}");
                    assert_eq!(w.reduce(Lane::pmax).to_bits(), hi.to_bits(), "{a} {b} {c} {d}");
                    assert_eq!(w.abs().reduce(Lane::imax).to_bits(), top.to_bits(), "{a} {b} {c} {d}");
                }
            }
        }
    }
    assert_eq!(Wide([3.0f32, 1.0, 2.0]).reduce(Lane::pmin), 1.0, "an odd lane out is carried up");
    assert_eq!(2.5f32.reduce(Lane::pmax), 2.5);
}
