//! quantized_po2's exponent rules against the logarithm they stand for.

use super::lean::LeanOp;
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
/// --release --lib every_float` (about a minute; see [`crate::every_float_step`]).
#[test]
fn the_carried_power_of_two_equals_the_rounded_logarithm_for_every_float() {
    for eb in [2, 6, 7] {
        let rule = Po2Rule::new(eb, None, false, Log2Rounding::Rnd);
        for b in (0..=0x7f80_0000u32).step_by(crate::every_float_step()) {
            let a = f32::from_bits(b);
            let (got, want) = (rule.level(a), rule.exponent_rnd(a).pow2());
            assert!(got.to_bits() == want.to_bits(), "eb {eb}: {a:e} ({b:#x})");
        }
    }
}

/// A kernel over slices: input, output, gradient.
type SliceKernel<'a> = dyn Fn(&[f32], &mut [f32], Option<&mut [f32]>) + 'a;
type Lanes = Box<dyn Fn(f32) -> (f32, f32, f32) + Sync>;
type Exact = Box<dyn Fn(f32) -> (f32, f32) + Sync>;

/// The lean ops' configurations, both quantizers at every bit width whose rule runs on bits
/// and ends at a finite power, each with the exact op it replaces: (name, constants, lean, exact).
fn lean_configs() -> Vec<(String, Lean, Lanes, Exact)> {
    let mut out: Vec<(String, Lean, Lanes, Exact)> = Vec::new();
    for bits in 1..=16 {
        let q = QuantizedPo2 { bits, ..QuantizedPo2::default() };
        let rule = q.rule(false);
        if let Some(lean) = Lean::new(&rule) {
            let exact = move |v: f32| Po2Op { rule: &rule, q: 1.0, one_minus_q: 0.0, use_ste: true }.eval(v);
            out.push((format!("{q:?}"), lean, Box::new(move |v| LeanPo2(lean).eval(v)), Box::new(exact)));
        }
        let r = QuantizedReluPo2 { bits, ..QuantizedReluPo2::default() };
        let rule = r.rule(false);
        if let Some(lean) = Lean::new(&rule) {
            let name = format!("{r:?}");
            let exact = move |v: f32| ReluPo2Op { relu: &r, rule: &rule }.eval(v);
            out.push((name, lean, Box::new(move |v| LeanReluPo2(lean).eval(v)), Box::new(exact)));
        }
    }
    out
}

/// Inputs around everything the lean ops treat apart: zeros, ε, 2^20, the top powers, the
/// switches, infinities and NaNs of both signs (signalling ones too), and a stride of all bits.
fn lean_inputs() -> Vec<f32> {
    let mut x: Vec<f32> = (0..=u32::MAX).step_by(16_411).map(f32::from_bits).collect();
    let (lo, hi) = (SWITCH_LO.to_bits() & 0x7f_ffff, SWITCH_HI.to_bits() & 0x7f_ffff);
    for e in -126..=127 {
        let at = |b: u32| f32::from_bits(((e + 127) as u32) << 23 | b);
        x.extend((lo - 2..hi + 2).step_by(5).map(at).chain([0, 1, 0x7f_ffff].map(at)));
    }
    x.extend([0.0, 1e-40, EPS, f32::from_bits(EPS.to_bits() - 1), 1_048_576.0, 1_048_577.0, f32::MAX, f32::INFINITY]);
    x.extend([f32::NAN, f32::from_bits(0x7f80_0001), f32::from_bits(0x7fff_ffff)]);
    let negative: Vec<f32> = x.iter().map(|v| -v).collect();
    x.extend(negative);
    x
}

/// Whether the lean op's output and gradient are the exact op's bits at `v`, or its carried
/// mantissa lies in the switch window (where the driver runs the exact op).
fn lean_agrees(lean: &Lean, fast: &Lanes, exact: &Exact, v: f32) -> bool {
    let ((y, g, flag), (want_y, want_g)) = (fast(v), exact(v));
    flag.to_bits() > lean.outside.to_bits() || y.to_bits() == want_y.to_bits() && g.to_bits() == want_g.to_bits()
}

#[test]
fn the_lean_ops_give_the_exact_ops_bits_outside_the_switch_window() {
    let x = lean_inputs();
    let configs = lean_configs();
    assert_eq!(configs.len(), 16, "quantized_po2(2..=9), quantized_relu_po2(1..=8)");
    for (name, lean, fast, exact) in &configs {
        for &v in &x {
            assert!(lean_agrees(lean, fast, exact, v), "{name} at {v:e} ({:#x})", v.to_bits());
        }
    }
}

/// [`lean_agrees`] on every float32 bit pattern (every [`crate::every_float_step`]th;
/// all with `QSCOPE_EXHAUSTIVE=1 cargo test --release --lib lean_ops_on_every_float`) for
/// the configurations of the benchmark and the library defaults, and a few more.
#[test]
fn the_lean_ops_on_every_float_give_the_exact_ops_bits_outside_the_switch_window() {
    let step = crate::every_float_step() as u64;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    let wanted = ["bits: 8,", "bits: 4,", "bits: 2,", "bits: 1,", "bits: 9,"];
    for (name, lean, fast, exact) in lean_configs().iter().filter(|c| wanted.iter().any(|w| c.0.contains(w))) {
        let bad = std::thread::scope(|s| {
            let jobs: Vec<_> = (0..threads)
                .map(|k| {
                    s.spawn(move || {
                        (k * step..1 << 32)
                            .step_by((threads * step) as usize)
                            .map(|b| f32::from_bits(b as u32))
                            .find(|&v| !lean_agrees(lean, fast, exact, v))
                    })
                })
                .collect();
            jobs.into_iter().find_map(|j| j.join().unwrap())
        });
        assert!(bad.is_none(), "{name} at {:?}", bad.map(f32::to_bits));
    }
}

/// The block driver on one lane and on four, with a tail: a block with a mantissa in the
/// switch window runs again through the exact op, so every element has its bits.
#[test]
fn the_lean_kernels_equal_the_exact_ops_on_whole_tensors() {
    let x: Vec<f32> = lean_inputs().into_iter().chain([3.0]).collect();
    assert_ne!(x.len() % 4, 0, "a tail to run");
    let bits_of = |y: Vec<f32>| y.into_iter().map(f32::to_bits).collect::<Vec<_>>();
    let check = |name: String, run: &SliceKernel<'_>, exact: &SliceKernel<'_>| {
        for four in [false, true] {
            crate::simd::tests::FOUR_LANES.set(four);
            let [got, want] = [run, exact].map(|f| {
                let (mut y, mut d, mut y_only) = (vec![0.0; x.len()], vec![0.0; x.len()], vec![0.0; x.len()]);
                f(&x, &mut y, Some(&mut d));
                f(&x, &mut y_only, None);
                [bits_of(y), bits_of(d), bits_of(y_only)]
            });
            crate::simd::tests::FOUR_LANES.set(false);
            assert!(got == want, "{name} (four lanes: {four})");
        }
    };
    for bits in [1, 2, 4, 8, 9, 16] {
        let q = QuantizedPo2 { bits, ..QuantizedPo2::default() };
        let rule = q.rule(false);
        let op = Po2Op { rule: &rule, q: 1.0, one_minus_q: 0.0, use_ste: true };
        if let Some(lean) = Lean::new(&rule) {
            check(format!("{q:?}"), &|x, y, d| lean::run(LeanPo2(lean), &op, x, y, d), &|x, y, d| {
                crate::simd::run(&op, x, y, d)
            });
        }
        let r = QuantizedReluPo2 { bits, ..QuantizedReluPo2::default() };
        let rule = r.rule(false);
        let op = ReluPo2Op { relu: &r, rule: &rule };
        if let Some(lean) = Lean::new(&rule) {
            check(format!("{r:?}"), &|x, y, d| lean::run(LeanReluPo2(lean), &op, x, y, d), &|x, y, d| {
                crate::simd::run(&op, x, y, d)
            });
        }
    }
}
