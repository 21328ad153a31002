//! quantized_po2's exponent rules against the logarithm they stand for.

use super::*;

/// Every positive normal float of binade `e` (mantissa bits `lo..hi`, by `step`) gives
/// the same exponent through [`round_log2`] as through the logarithm.
fn agree_in(e: i32, bits: std::ops::Range<u32>, step: usize) {
    for b in bits.step_by(step) {
        let t = f32::from_bits(((e + 127) as u32) << 23 | b);
        assert_eq!(round_log2(t), round_log2_reference(t), "t = {t:e} ({:#x})", t.to_bits());
    }
}

#[test]
fn round_log2_equals_the_logarithm_for_every_float_from_one_sixteenth_to_sixteen() {
    for e in -4..4 {
        agree_in(e, 0..1 << 23, 1);
    }
}

#[test]
fn round_log2_equals_the_logarithm_around_each_switch_and_across_every_binade() {
    let (lo, hi) = (SWITCH_LO.to_bits() & 0x7f_ffff, SWITCH_HI.to_bits() & 0x7f_ffff);
    for e in -126..=127 {
        agree_in(e, lo - (1 << 13)..hi + (1 << 13), 1);
        agree_in(e, 0..1 << 23, 509);
        agree_in(e, (1 << 23) - 64..1 << 23, 1);
    }
}

#[test]
fn round_log2_switches_within_the_window_in_every_binade() {
    for e in -126..=127 {
        let p = |m: f32| m * (e as f32).pow2();
        let below = f32::from_bits(SWITCH_LO.to_bits() - 1);
        assert_eq!([round_log2_reference(p(below)), round_log2_reference(p(SWITCH_HI))], [e as f32, e as f32 + 1.0]);
    }
}

#[test]
fn round_log2_sends_zero_and_subnormals_to_minus_infinity_like_the_logarithm() {
    for t in [0.0f32, 1e-40, f32::from_bits(0x7f_ffff)] {
        assert_eq!(round_log2(t), f32::NEG_INFINITY);
        assert_eq!(round_log2_reference(t), f32::NEG_INFINITY);
    }
    assert_eq!(round_log2(f32::INFINITY), 128.0);
}

/// Rules across bits, max_value and both quantizers (relu_po2's exponent has one more bit).
fn rules() -> Vec<Po2Rule> {
    let mut out = Vec::new();
    for eb in -1..=15 {
        for mv in [None, Some(0.0), Some(1e-40), Some(1e-8), Some(0.3), Some(1.0), Some(4.0), Some(1e30)] {
            out.push(Po2Rule::new(eb, mv, false, Log2Rounding::Rnd));
        }
    }
    out
}

fn agree(rule: &Po2Rule, a: f32) {
    let (got, want) = (rule.level(a), rule.exponent_rnd(a).pow2());
    assert_eq!(got.to_bits(), want.to_bits(), "a = {a:e} ({:#x}), {:?}", a.to_bits(), rule.max_value);
}

#[test]
fn the_carried_power_of_two_equals_the_rounded_logarithm_for_every_rule() {
    let switches: Vec<f32> = (-126..=127)
        .flat_map(|e| {
            let (lo, hi) = (SWITCH_LO.to_bits() & 0x7f_ffff, SWITCH_HI.to_bits() & 0x7f_ffff);
            (lo - 2..hi + 2).step_by(3).map(move |b| f32::from_bits(((e + 127) as u32) << 23 | b))
        })
        .collect();
    let specials = [0.0, 1e-40, EPS, f32::from_bits(EPS.to_bits() - 1), f32::INFINITY, f32::MAX];
    for rule in rules() {
        assert_eq!(
            rule.carry.is_some(),
            rule.max_value != Some(0.0) && rule.max_value != Some(1e-40) && rule.min_exp.fract() == 0.0
        );
        for a in (0..0x7f80_0000u32).step_by(65_521).map(f32::from_bits).chain(switches.iter().copied()).chain(specials)
        {
            agree(&rule, a);
        }
    }
}

/// Non-negative float32s for the bench's rules, every one with `QSCOPE_EXHAUSTIVE=1 cargo test
/// --release --lib every_float` (about a minute; see [`crate::quant::every_float_step`]).
#[test]
fn the_carried_power_of_two_equals_the_rounded_logarithm_for_every_float() {
    for eb in [2, 6, 7] {
        let rule = Po2Rule::new(eb, None, false, Log2Rounding::Rnd);
        for b in (0..=0x7f80_0000u32).step_by(crate::quant::every_float_step()) {
            let a = f32::from_bits(b);
            let (got, want) = (rule.level(a), rule.exponent_rnd(a).pow2());
            assert!(got.to_bits() == want.to_bits(), "eb {eb}: {a:e} ({b:#x})");
        }
    }
}

/// The fast forward of quantized_po2 (sign by a select, the blend turned round) gives the
/// formula's bits (a NaN for a NaN), for every exponent range and max_value.
#[test]
fn the_po2_kernel_equals_the_signed_blended_formula() {
    let big = [1e6f32, 1_048_576.0, 1_048_577.0, 3e9, f32::MAX, f32::INFINITY, 0.0, 1e-8, 1e-40, f32::NAN];
    let x: Vec<f32> = (0..=u32::MAX).step_by(16_411).map(f32::from_bits).chain(big).chain(big.map(|v| -v)).collect();
    for bits in [1, 2, 4, 8, 12] {
        for max_value in [None, Some(0.5), Some(3.0)] {
            let q = QuantizedPo2 { bits, max_value, ..QuantizedPo2::default() };
            let rule = q.rule(false);
            let op = Po2Op { rule: &rule, q: 1.0, one_minus_q: 0.0, use_ste: true };
            for &v in &x {
                let want = ste_blend(v, sgn_plus(v) * rule.exponent_rnd(v.abs()).pow2(), 1.0);
                let got = op.eval(v).0;
                assert!(got.to_bits() == want.to_bits() || got.is_nan() && want.is_nan(), "{q:?} at {v:e}");
            }
        }
    }
}
