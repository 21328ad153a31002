//! MX: the scale rules, the block casts against the formulas as torchao writes them, and the float sweep the
//! other block formats' tests share.

use super::*;

fn mx(elem_dtype: ElemDtype, scaling_mode: ScalingMode) -> Mx {
    Mx { elem_dtype, block_size: 32, scaling_mode }
}

#[test]
fn floor_takes_the_exponent_of_amax_minus_the_elements_largest() {
    // amax 6 = 1.5·2^2; fp4's largest power of two is 4 = 2^2: scale 2^0, code 127.
    assert_eq!(mx(ElemDtype::F4E2M1, ScalingMode::Floor).code(6.0), 127);
    // e4m3: 448 = 1.75·2^8, emax 8: code 127 for amax in [256, 512).
    assert_eq!(mx(ElemDtype::F8E4M3, ScalingMode::Floor).code(511.0), 127);
    assert_eq!(mx(ElemDtype::F8E4M3, ScalingMode::Floor).code(0.0), 0);
    assert_eq!(mx(ElemDtype::F8E4M3, ScalingMode::Floor).code(f32::NAN), E8M0_NAN);
}

#[test]
fn ceil_rounds_up_unless_amax_is_a_power_of_two() {
    let m = mx(ElemDtype::F4E2M1, ScalingMode::Ceil);
    assert_eq!([m.code(4.0), m.code(4.0f32.next_up())], [127, 128]);
}

#[test]
fn even_rounds_amax_at_the_elements_mantissa_first() {
    // fp4 has one mantissa bit: amax ≥ 1.75·2^k goes to 2^(k+1).
    let m = mx(ElemDtype::F4E2M1, ScalingMode::Even);
    assert_eq!([m.code(7.0f32.next_down()), m.code(7.0)], [127, 128]);
}

#[test]
fn rceil_takes_the_ceiling_of_log2_amax_over_max() {
    let m = mx(ElemDtype::F4E2M1, ScalingMode::Rceil);
    assert_eq!([m.code(6.0), m.code(6.000_001), m.code(12.0)], [127, 128, 128]);
    assert_eq!([m.code(0.0), m.code(f32::INFINITY)], [0, 254]);
}

#[test]
fn code_zero_divides_by_the_smallest_normal_and_multiplies_by_half_of_it() {
    let c = mx(ElemDtype::F8E4M3, ScalingMode::Floor).cast(0);
    assert_eq!((c.rcp, c.scale), (pow2(126), pow2(-127)));
    let x = pow2(-120);
    assert_eq!(c.eval(x).0, x / 2.0);
}

/// Every 8191st float32 bit pattern (both signs, every exponent), and the specials.
pub(crate) fn sweep() -> impl Iterator<Item = f32> {
    let specials = [0.0, -0.0, f32::NAN, -f32::NAN, f32::INFINITY, f32::NEG_INFINITY, f32::MAX, 1e-45];
    (0..=u32::MAX / 8191).map(|k| f32::from_bits(k * 8191)).chain(specials)
}

/// `torch.clamp(t, −max, max)` as two selects, the form the kernels had before pmin/pmax.
pub(crate) fn select_clamp(t: f32, max: f32) -> f32 {
    if t > max {
        max
    } else if t < -max {
        -max
    } else {
        t
    }
}

#[test]
fn powers_of_two_from_bits_are_the_float64_powers_rounded() {
    for e in -149..=127 {
        assert_eq!(pow2(e).to_bits(), (2f64.powi(e) as f32).to_bits(), "2^{e}");
    }
}

#[test]
fn the_reciprocal_of_a_floor_ceil_even_scale_from_its_bits_is_the_division() {
    for mode in [ScalingMode::Floor, ScalingMode::Ceil, ScalingMode::Even] {
        for code in 0..E8M0_NAN {
            let old = 1.0 / f32::from_bits(code << 23).max(f32::MIN_POSITIVE);
            assert_eq!(mx(ElemDtype::F4E2M1, mode).cast(code).rcp.to_bits(), old.to_bits(), "{mode:?} {code}");
        }
    }
}

#[test]
fn the_block_cast_without_the_select_clamp_gives_the_clamped_formulas_bits() {
    // The formula before pmin/pmax and before the saturating formats dropped the clamp.
    fn clamped(c: &BlockCast, x: f32) -> f32 {
        let max = c.format.max();
        let t = select_clamp(x * c.rcp, max);
        let q = c.format.cast(t);
        // `t ≤ max` fails only for a NaN once t is clamped.
        let q = if c.format.specials == Specials::Saturating && t.is_nan() { FLOATX_NAN.copysign(t) } else { q };
        q * c.scale
    }
    use ElemDtype::*;
    for dtype in [F8E4M3, F8E5M2, F6E2M3, F6E3M2, F4E2M1] {
        for code in [0, 1, 100, 125, 127, 130, 200, 254, 255] {
            let c = mx(dtype, ScalingMode::Floor).cast(code);
            for x in sweep() {
                let (new, old) = (c.eval(x).0, clamped(&c, x));
                assert!(new.to_bits() == old.to_bits() || new.is_nan() && old.is_nan(), "{dtype:?} {code} {x:e}");
            }
        }
    }
}

/// Float32 bit patterns across the whole range (all 2^32 with `QSCOPE_EXHAUSTIVE=1`).
#[test]
fn the_saturating_cast_with_nan_as_gives_the_select_over_the_cast_on_every_float() {
    // The formula before: the cast (NaN to ∓0), then ±1.5 selected where t is NaN.
    let old = |f: Format, t: f32| if t <= f32::INFINITY { f.cast(t) } else { FLOATX_NAN.copysign(t) };
    for f in [ElemDtype::F6E2M3, ElemDtype::F6E3M2, ElemDtype::F4E2M1].map(ElemDtype::format) {
        for bits in (0..=u32::MAX).step_by(crate::every_float_step()).chain([0x7fc0_0000, 0xffc0_0001]) {
            let t = f32::from_bits(bits);
            assert_eq!(f.cast_nan_as(t, FLOATX_NAN).to_bits(), old(f, t).to_bits(), "{} {t:e}", f.name);
        }
    }
}

/// Every 4099th float32 bit pattern: on all 2^32 it follows from the exhaustive checks of
/// `Format::cast_clamped` against `Format::cast` (ml_dtypes::reference) and of
/// `cast_nan_as` against the cast (above), as `x·rcp` clamped is a clamped value.
#[test]
fn the_kernels_typed_cast_gives_the_block_casts_bits_where_x_times_rcp_is_not_nan() {
    fn check<F: ConstFormat>() {
        let nvfp4 = [(1.0 / 448.0, 448.0), (1.0 / 1.125, 1.125), (3.0 / 0.015_625, 0.015_625 / 3.0)];
        let mx = [0, 1, 100, 127, 254].map(|code| mx(ElemDtype::F4E2M1, ScalingMode::Rceil).cast(code));
        for (rcp, scale) in nvfp4.into_iter().chain(mx.map(|c| (c.rcp, c.scale))) {
            let cast = BlockCast { format: F::FORMAT, rcp, scale };
            let typed = TypedCast::<F>::new(cast);
            for bits in (0..=u32::MAX).step_by(4099) {
                let x = f32::from_bits(bits);
                if !(x * rcp).is_nan() {
                    assert_eq!(typed.eval(x).0.to_bits(), cast.eval(x).0.to_bits(), "{} {rcp} {x:e}", F::FORMAT.name);
                }
            }
        }
    }
    check::<E4M3>();
    check::<E5M2>();
    check::<E2M3>();
    check::<E3M2>();
    check::<E2M1>();
}

/// Float32 bit patterns across the whole range, all 2^32 with `QSCOPE_EXHAUSTIVE=1 cargo
/// test --release --lib torchao::mx::tests::the_power` (a few minutes).
#[test]
fn the_power_of_two_cast_gives_the_block_casts_bits_on_every_float_but_nan() {
    use ElemDtype::*;
    for dtype in [F8E4M3, F8E5M2, F6E2M3, F6E3M2, F4E2M1] {
        let f = dtype.format();
        assert!(Pow2Cast::new(f, 26).is_none() && Pow2Cast::new(f, 208).is_none());
        for code in [27, 100, 127, 207] {
            let (old, new) = (mx(dtype, ScalingMode::Floor).cast(code), Pow2Cast::new(f, code).unwrap());
            for mode in [ScalingMode::Rceil, ScalingMode::Ceil, ScalingMode::Even] {
                assert_eq!(mx(dtype, mode).cast(code), old, "{dtype:?} {mode:?} {code}");
            }
            for bits in (0..=u32::MAX).step_by(crate::every_float_step()) {
                let x = f32::from_bits(bits);
                if !x.is_nan() {
                    assert_eq!(new.cast(f, x).to_bits(), old.eval(x).0.to_bits(), "{dtype:?} {code} {x:e}");
                }
            }
        }
    }
}

#[test]
fn a_nan_in_a_block_makes_the_whole_block_nan() {
    let q = mx(ElemDtype::F4E2M1, ScalingMode::Floor);
    // The second block's amax 1 = 2^0 gives code 0 − 2 + 127 = 125 (scale 1/4): 1 comes back 1.
    let mut x = vec![1.0f32; 40];
    x[3] = f32::NAN;
    let (y, _, r) = crate::Quantizer::Mx(q).eval(&x, &mut Ctx::inference(0));
    assert!(y[..32].iter().all(|v| v.is_nan()) && y[32..].iter().all(|&v| v == 1.0));
    assert_eq!(r.blocks.iter().map(|b| (b.len, b.code)).collect::<Vec<_>>(), [(32, Some(255)), (8, Some(125))]);
}
