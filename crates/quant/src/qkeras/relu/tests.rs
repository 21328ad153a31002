//! quantized_relu's and the squashes' replaced formulas as oracles.

use super::*;

/// The quantized value as QKeras writes it, with its divisions by m and m_i.
fn xq_divided(r: &QuantizedRelu, v: f32, m: f32, mi: f32) -> f32 {
    let (ns, nf) = (r.negative_slope as f32, (1.0 / (r.negative_slope * m as f64)) as f32);
    let (top, mins) = (1.0 - 1.0 / m, mi * ns);
    let (mut xq, p);
    if r.use_sigmoid {
        p = sigmoid_q(v / mi).0 * m;
        xq = mi * lane::clip(2.0 * (p.nearest() / m) - 1.0, 0.0, top);
    } else {
        p = v * m / mi;
        xq = mi * lane::clip(p.nearest() / m, 0.0, top);
    }
    if r.negative_slope > 0.0 {
        let k = (p * ns).nearest() * nf;
        xq += mins * if r.use_sigmoid { lane::clip(2.0 * k - 1.0, -1.0, 0.0) } else { lane::clip(k, -1.0, 0.0) };
    }
    xq
}

/// x_u stays within the STE shortcut's bound, which gives the full STE's bits (every 1021st float).
#[test]
fn the_bounded_ste_is_the_full_ste() {
    let x: Vec<f32> = (0..=u32::MAX / 1021).map(|k| f32::from_bits(k * 1021)).collect();
    let base = QuantizedRelu::default();
    let variants = [
        base.clone(),
        QuantizedRelu { bits: 4, integer: 2, qnoise_factor: 0.5, ..base.clone() },
        QuantizedRelu { is_quantized_clip: false, relu_upper_bound: Some(6.0), ..base.clone() },
        QuantizedRelu { bits: 24, integer: 20, ..base.clone() },
    ];
    for r in variants {
        let op = r.op();
        assert!(op.bounded, "{r:?}");
        let full = ReluOp { bounded: false, ..r.op() };
        for &v in &x {
            assert!(r.xu(v, op.top, false).0.abs() <= 1_048_576.0, "{r:?} at {v:e}");
            let (a, b) = (op.eval(v), full.eval(v));
            assert_eq!([a.0.to_bits(), a.1.to_bits()], [b.0.to_bits(), b.1.to_bits()], "{r:?} at {v:e}");
        }
    }
    let slope = QuantizedRelu { negative_slope: 0.25, ..base.clone() };
    let open = QuantizedRelu { is_quantized_clip: false, ..base.clone() };
    let unbounded = [slope, open, QuantizedRelu { bits: 32, integer: 24, ..base }];
    assert!(unbounded.iter().all(|r| !r.op().bounded));
}

/// `ReluOp::<true>` gives the general op's bits, value and gradient, on every float32 bit
/// pattern (every [`crate::every_float_step`]th; all with `QSCOPE_EXHAUSTIVE=1`) at
/// plain configurations; it is offered for none of the others.
#[test]
fn the_plain_relu_op_equals_the_general_one_on_every_float() {
    let base = QuantizedRelu::default();
    let plain = [
        base.clone(),
        QuantizedRelu { bits: 4, integer: 2, ..base.clone() },
        QuantizedRelu { bits: 1, integer: 0, ..base.clone() },
        QuantizedRelu { bits: 24, integer: 20, relu_upper_bound: Some(6.0), ..base.clone() },
        QuantizedRelu { bits: 32, integer: 20, ..base.clone() },
        QuantizedRelu { bits: 30, integer: 0, ..base.clone() },
    ];
    for r in &plain {
        let (general, fixed) = (r.op(), r.op().plain().expect("plain flags"));
        for bits in (0..=u32::MAX).step_by(crate::every_float_step()) {
            let x = f32::from_bits(bits);
            let (want, got) = (general.eval(x), fixed.eval(x));
            assert_eq!([got.0.to_bits(), got.1.to_bits()], [want.0.to_bits(), want.1.to_bits()], "{r:?} at {x:e}");
        }
    }
    let others = [
        QuantizedRelu { negative_slope: 0.25, ..base.clone() },
        QuantizedRelu { negative_slope: -0.0, ..base.clone() },
        QuantizedRelu { use_sigmoid: true, ..base.clone() },
        QuantizedRelu { is_quantized_clip: false, relu_upper_bound: Some(6.0), ..base.clone() },
        QuantizedRelu { use_ste: false, ..base.clone() },
        QuantizedRelu { qnoise_factor: 0.5, ..base.clone() },
        QuantizedRelu { bits: 32, integer: 24, ..base },
    ];
    assert!(others.iter().all(|r| r.op().plain().is_none()), "offered where it does not apply");
}

/// The squashes' × 1/m gives ÷ m's bits on integer-valued floats (every 257th, rounded) at every m.
#[test]
fn the_squash_reciprocal_equals_the_division() {
    let integers = (0..=u32::MAX / 257).map(|k| f32::from_bits(k * 257).nearest());
    let codes: Vec<f32> = integers.chain([0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN]).collect();
    for bits in 0..=32 {
        let op = SquashOp { squash: Squash::HardTanh, m: pow2i(bits), lo: -1.0, hi: 1.0 };
        for &c in &codes {
            let divided = lane::clip(c / op.m, -1.0f32, 1.0);
            assert_eq!(op.finish(1.0f32, c).0.to_bits(), divided.to_bits(), "m = 2^{bits}, code {c:e}");
        }
    }
}

/// Multiplying by the reciprocal powers of two gives the divisions' bits, over every
/// 1021st float32 bit pattern, for codes with and without the sigmoid and negative slope.
#[test]
fn reciprocal_products_equal_the_divisions() {
    let base = QuantizedRelu { relu_upper_bound: None, ..QuantizedRelu::default() };
    for bits in [1, 4, 8, 16, 32] {
        for integer in [0, bits / 2, bits] {
            for (use_sigmoid, negative_slope) in [(false, 0.0), (false, 0.25), (true, 0.0), (true, 0.1)] {
                let r = QuantizedRelu { bits, integer, use_sigmoid, negative_slope, ..base.clone() };
                let op = r.op();
                for v in (0..=u32::MAX / 1021).map(|k| f32::from_bits(k * 1021)) {
                    let new = r.xq(v, op.m, op.mi, false, |p: f32| p.nearest());
                    let old = xq_divided(&r, v, op.m, op.mi);
                    assert_eq!(
                        new.to_bits(),
                        old.to_bits(),
                        "bits {bits} integer {integer} {use_sigmoid} {negative_slope} at {v:e}"
                    );
                }
            }
        }
    }
}

/// The hard squashes' one-clip kernels give [`Squash::eval`] then [`SquashOp::finish`]'s bits,
/// value and gradient, on every float32 bit pattern (every [`crate::every_float_step`]th;
/// all with `QSCOPE_EXHAUSTIVE=1`), at every width and both symmetries.
#[test]
fn the_hard_squashes_by_one_clip_equal_the_squash_then_finish() {
    for bits in 1..=32 {
        for symmetric in [false, true] {
            let sym = symmetric as i32 as f32;
            let (mt, ms) = (pow2i(bits - 1), pow2i(bits));
            let tanh = SquashOp { squash: Squash::HardTanh, m: mt, lo: -1.0 + sym / mt, hi: 1.0 - 1.0 / mt };
            let sigmoid = SquashOp { squash: Squash::HardSigmoid, m: ms, lo: sym / ms, hi: 1.0 - 1.0 / ms };
            let step = if bits % 8 == 0 { crate::every_float_step() } else { 65_521 };
            for b in (0..=u32::MAX).step_by(step).chain([0x8000_0000, 0x3f80_0000, 0xbf80_0000]) {
                let x = f32::from_bits(b);
                for (op, got) in [(&tanh, tanh.hard::<f32, true>(x)), (&sigmoid, sigmoid.hard::<f32, false>(x))] {
                    let (p, dp) = op.squash.eval(x);
                    let want = op.finish(dp, (p * op.m).nearest());
                    assert_eq!(
                        [got.0.to_bits(), got.1.to_bits()],
                        [want.0.to_bits(), want.1.to_bits()],
                        "bits {bits} symmetric {symmetric} {} at {x:e}",
                        op.m
                    );
                }
            }
        }
    }
}

/// The squashes' clip mask by `clip(r) == r` is `inside(r, lo, hi)` (NaN, ±0, the bounds and
/// beyond them).
#[test]
fn the_squash_clip_mask_is_inside() {
    let op = SquashOp { squash: Squash::Tanh, m: 8.0, lo: -1.0, hi: 0.875 };
    let mut codes: Vec<f32> = (-20..=20).map(|k| k as f32).collect();
    codes.extend([0.0, -0.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 7.0, 7.5, -8.0, -8.5]);
    for k in codes {
        let r = k / 8.0;
        let want = lane::inside(r, op.lo, op.hi);
        assert_eq!(op.finish(1.0f32, k).1.to_bits(), want.to_bits(), "code {k}");
    }
}
