//! quantized_bits' and quantized_linear's shortcuts against the formulas they replace.

use super::*;

/// `BitsOp::<true>` gives the general op's bits, value and gradient, for every float32 bit
/// pattern (every [`crate::every_float_step`]th; all with `QSCOPE_EXHAUSTIVE=1`), at
/// the plain configurations of several widths; it is offered for none of the others.
#[test]
fn the_plain_bits_op_equals_the_general_one_on_every_float() {
    let base = QuantizedBits::default();
    let plain = [
        base.clone(),
        QuantizedBits { bits: 4, integer: 0, symmetric: true, ..base.clone() },
        QuantizedBits { bits: 2, integer: 1, keep_negative: false, ..base.clone() },
        QuantizedBits { bits: 32, integer: 20, ..base.clone() },
    ];
    for b in &plain {
        let (general, fixed) = (b.op(), b.op().plain().expect("plain flags"));
        for bits in (0..=u32::MAX).step_by(crate::every_float_step()) {
            let x = f32::from_bits(bits);
            let (want, got) = (Op::eval(&general, x), fixed.eval(x));
            assert_eq!([got.0.to_bits(), got.1.to_bits()], [want.0.to_bits(), want.1.to_bits()], "{b:?} at {x:e}");
        }
    }
    let others = [
        QuantizedBits { bits: 1, ..base.clone() },
        QuantizedBits { alpha: Alpha::Value(0.5), ..base.clone() },
        QuantizedBits { use_ste: false, ..base.clone() },
        QuantizedBits { qnoise_factor: 0.5, ..base },
    ];
    assert!(others.iter().all(|b| b.op().plain().is_none()));
}

/// `LinearOp::<true>` gives the general op's bits, value and gradient, on every float32 bit
/// pattern (every [`crate::every_float_step`]th; all with `QSCOPE_EXHAUSTIVE=1`) for
/// power-of-two scales up to 2^21 (from 2^−126); it is offered for none of the other scales and flags.
#[test]
fn the_plain_linear_op_equals_the_general_one_on_every_float() {
    let base = QuantizedLinear::default();
    let configs = [
        base.clone(),
        QuantizedLinear { bits: 4, integer: 2, symmetric: false, ..base.clone() },
        QuantizedLinear { bits: 3, keep_negative: false, ..base.clone() },
    ];
    for l in &configs {
        for qs in [l.data_type_scale(), pow2i(-126), pow2i(-40), 1.0, pow2i(20), pow2i(21)] {
            let (general, fixed) = (l.op(qs), l.op(qs).plain().expect("plain flags and scale"));
            for bits in (0..=u32::MAX).step_by(crate::every_float_step()) {
                let x = f32::from_bits(bits);
                let (want, got) = (general.eval(x), fixed.eval(x));
                let [g, w] = [got, want].map(|(v, d)| [v.to_bits(), d.to_bits()]);
                assert_eq!(g, w, "{l:?}, qs {qs:e} at {x:e}");
            }
        }
    }
    let sign = QuantizedLinear { bits: 1, ..base.clone() };
    let blended = QuantizedLinear { qnoise_factor: 0.5, ..base.clone() };
    assert!(sign.op(0.5).plain().is_none() && blended.op(0.5).plain().is_none());
    let others = [0.75, pow2i(22), pow2i(126), pow2i(127), 1e-40, f32::INFINITY, f32::NAN];
    assert!(others.iter().all(|&qs| base.op(qs).plain().is_none()));
}

/// × an exact reciprocal gives the division's codes, for powers of two across the range
/// (and none for the others), every 65 521st float32 bit pattern and the specials.
#[test]
fn auto_codes_by_an_exact_reciprocal_equal_the_division() {
    let specials = [0.0, -0.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, f32::MAX, 1e-45];
    for e in (-126..=127).step_by(7).chain([-126, 126, 127]) {
        let s = pow2i(e);
        let inv = exact_reciprocal(s);
        assert_eq!(inv.is_some(), e < 127, "2^{e}");
        for v in (0..=u32::MAX).step_by(65_521).map(f32::from_bits).chain(specials) {
            let (got, want) = (auto_code::<f32, true>(v, s, inv, 7.0), auto_code::<f32, true>(v, s, None, 7.0));
            assert_eq!(got.to_bits(), want.to_bits(), "s = 2^{e}, v = {v:e}");
        }
    }
    assert!(exact_reciprocal(0.75).is_none() && exact_reciprocal(1e-40).is_none());
}

/// The lean 'auto' op gives the general op's bits, value and gradient, on every 4099th float32
/// bit pattern with |x| ≤ 2^20 (every one with `QSCOPE_EXHAUSTIVE=1` for the bench's 4-bit
/// configuration at three steps, its own among them), at several widths and integer parts and
/// for steps from the smallest it takes (2^−124) up, powers of two among them; it is offered
/// for none of the other configurations, steps and tensors.
#[test]
fn the_lean_auto_op_equals_the_general_one_within_two_to_the_twenty() {
    let base = QuantizedBits { alpha: Alpha::Auto, ..QuantizedBits::default() };
    let configs = [
        base.clone(),
        QuantizedBits { bits: 4, ..base.clone() },
        QuantizedBits { bits: 4, integer: 2, ..base.clone() },
        QuantizedBits { bits: 2, integer: 1, keep_negative: false, ..base.clone() },
        QuantizedBits { bits: 32, integer: 20, alpha: Alpha::AutoPo2, ..base.clone() },
    ];
    let steps = [
        1.999_999_5 * 2.0 / 14.0,
        4.0 / 3.0 / 7.0,
        1.0 / 3.0,
        0.3,
        0.125,
        pow2i(-124),
        1.1 * pow2i(-124),
        1e-20,
        7e3,
        1.7e5,
    ];
    for (i, b) in configs.iter().enumerate() {
        for (j, s) in steps.into_iter().enumerate() {
            let op = b.auto_op(s);
            let lean = op.lean(1_048_576.0).expect("a lean op");
            let every = if i == 1 && j < 3 { crate::every_float_step() } else { 4099 };
            for bits in (0..=u32::MAX).step_by(every) {
                let x = f32::from_bits(bits);
                if x.abs() > 1_048_576.0 || x.is_nan() {
                    continue;
                }
                let (want, got) = (Step::<true>(&op).eval(x), lean.eval(x));
                assert_eq!(
                    [got.0.to_bits(), got.1.to_bits()],
                    [want.0.to_bits(), want.1.to_bits()],
                    "{b:?}, s {s:e} at {x:e}"
                );
            }
        }
    }
    let op = base.auto_op(0.3);
    assert!(op.lean(1_048_577.0).is_none() && op.lean(f32::NAN).is_none() && op.lean(f32::INFINITY).is_none());
    let others = [
        QuantizedBits { use_ste: false, ..base.clone() }.auto_op(0.3),
        QuantizedBits { qnoise_factor: 0.5, ..base.clone() }.auto_op(0.3),
        base.auto_op(0.99 * pow2i(-124)),
        base.auto_op(0.0),
        base.auto_op(f32::INFINITY),
        base.auto_op(f32::NAN),
        base.auto_op(f32::MAX),
    ];
    assert!(others.iter().all(|op| op.lean(1.0).is_none()));
}

/// The codes' shorter form (magnitude with v's sign) gives the product's bits — ±0, ±inf and
/// NaN (payload and sign) included — for finite positive steps (normal, subnormal, the
/// largest), every 65 521st float32 bit pattern (all with `QSCOPE_EXHAUSTIVE=1`) and the
/// specials; and it is offered for no other step.
#[test]
fn the_auto_codes_shorter_form_equals_the_product_for_finite_steps() {
    let specials =
        [0.0, -0.0, f32::NAN, -f32::NAN, f32::from_bits(0x7fa0_0001), f32::INFINITY, f32::NEG_INFINITY, 1e-45];
    let step = crate::every_float_step().min(65_521);
    for s in [0.3f32, 0.125, 1e-40, 7.0, f32::MAX] {
        for v in (0..=u32::MAX).step_by(step).map(f32::from_bits).chain(specials) {
            let (got, want) = (auto_code::<f32, true>(v, s, None, 7.0), auto_code::<f32, false>(v, s, None, 7.0));
            assert_eq!(got.to_bits(), want.to_bits(), "s = {s:e}, v = {v:e} ({:#x})", v.to_bits());
        }
    }
    assert!([0.0, -0.0, f32::NAN, f32::INFINITY, -1.0].iter().all(|&s| !finite_step(s)));
}
