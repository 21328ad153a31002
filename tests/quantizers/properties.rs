//! Laws every quantizer obeys, and laws tying the facts it states about itself to its kernel,
//! checked on random configurations and inputs.

use proptest::prelude::*;
use qscope_quant::{Alpha, Ctx, ENTRIES, Family, Frozen, Kind, Levels, Literal, Quantizer, parse};
use rand::rngs::StdRng;
use rand::{Rng, RngExt, SeedableRng};

/// A random value for a parameter of the given kind, inside its allowed range.
fn random_literal(kind: &Kind, rng: &mut StdRng) -> Option<Literal> {
    Some(match *kind {
        Kind::Int { min, max } => Literal::Int(rng.random_range(min..=max.min(min + 12))),
        Kind::Float { min, max, .. } => {
            let (lo, hi) = (min.max(-8.0), max.min(8.0));
            if lo >= hi {
                Literal::Float(lo)
            } else {
                Literal::Float(((rng.random_range(lo..hi) * 64.0).round() / 64.0).clamp(lo, hi))
            }
        }
        Kind::OptFloat { min, max } => {
            if rng.random_bool(0.3) {
                Literal::None
            } else {
                Literal::Float(rng.random_range(min.max(0.0)..max.min(8.0)).max(min))
            }
        }
        Kind::OptInt { min, max } => {
            if rng.random_bool(0.5) {
                Literal::None
            } else {
                Literal::Int(rng.random_range(min.max(-8)..=max.min(8)))
            }
        }
        Kind::Bool => Literal::Bool(rng.random_bool(0.5)),
        Kind::Choice(c) => Literal::Str(c[rng.random_range(0..c.len())].to_string()),
        Kind::Alpha => match rng.random_range(0..4) {
            0 => Literal::None,
            1 => Literal::Float(rng.random_range(1..16) as f64 / 8.0),
            2 => Literal::Str("auto".into()),
            _ => Literal::Str("auto_po2".into()),
        },
        Kind::AutoScale { .. } => match rng.random_range(0..3) {
            0 => Literal::None,
            1 => Literal::Float(rng.random_range(1..16) as f64 / 8.0),
            _ => Literal::Str("auto".into()),
        },
        Kind::Axis | Kind::Text => return None,
    })
}

/// A random valid configuration of catalogue entry `index`, if the draw is valid.
fn random_instance(index: usize, seed: u64) -> Option<Quantizer> {
    let entry = &ENTRIES[index % ENTRIES.len()];
    let mut rng = StdRng::seed_from_u64(seed);
    let mut q = (entry.default)();
    for p in entry.params {
        if rng.random_bool(0.5)
            && let Some(lit) = random_literal(&p.kind, &mut rng)
        {
            q.set(p.name, &lit).expect("random literal within its kind");
        }
    }
    q.validate().ok().map(|_| q)
}

/// `n`, or a block format's block size if smaller: each block has its own scale, so the laws
/// of one scale (the reported levels, monotone, frozen at the report's first block) hold within one block.
fn within_a_block(q: &Quantizer, n: usize) -> usize {
    q.block_size().map_or(n, |b| b.min(n))
}

fn inputs(seed: u64, n: usize) -> Vec<f32> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..n).map(|_| ((rng.next_u32() as f32 / u32::MAX as f32) * 8.0 - 4.0) * rng.random_range(0.05f32..1.0)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn printed_specs_parse_back_to_the_same_quantizer(index in 0usize..1000, seed in any::<u64>()) {
        if let Some(q) = random_instance(index, seed) {
            let printed = q.to_string();
            prop_assert_eq!(parse(&printed).map_err(|e| e.message), Ok(q), "printed: {}", printed);
        }
    }

    #[test]
    fn outputs_lie_on_the_reported_levels(index in 0usize..1000, seed in any::<u64>(), training in any::<bool>()) {
        // ml_dtypes' casts output NaN and ±inf by their formats' rules: tests/quantizers/casts.rs.
        if let Some(q) = random_instance(index, seed).filter(|q| q.info().family != Family::MlDtypes) {
            let x = inputs(seed, within_a_block(&q, 64));
            let mut ctx = if training { Ctx::training(seed) } else { Ctx::inference(seed) };
            let (y, _, report) = q.eval(&x, &mut ctx);
            let levels = q.levels(&report);
            for (xi, yi) in x.iter().zip(&y) {
                // QKeras' `x + (q − x)` may leave the level off by an ulp of x.
                let tol = 4.0 * f32::EPSILON * xi.abs().max(yi.abs());
                prop_assert!(levels.contains_within(*yi, tol), "{}: x={} y={} not in {:?}", q, xi, yi, levels);
            }
        }
    }

    #[test]
    fn deterministic_forward_is_monotone(index in 0usize..1000, seed in any::<u64>()) {
        if let Some(q) = random_instance(index, seed) {
            let name = q.info().name;
            // hswish dips below zero; stochastic_round_po2 returns an exponent of |x|; QKeras'
            // quadratic po2 maps |x| < ε to 2^min_exp but small |x| to 2^(2·min_exp).
            prop_assume!(!q.is_stochastic(false) && name != "quantized_hswish" && name != "stochastic_round_po2");
            // E8M0 is NaN for x ≤ 0; the casts' own laws are in tests/quantizers/casts.rs.
            prop_assume!(q.info().family != Family::MlDtypes);
            prop_assume!(q.get("quadratic_approximation") != Some(Literal::Bool(true)));
            let mut x = inputs(seed, within_a_block(&q, 128));
            x.sort_by(f32::total_cmp);
            let (y, _, _) = q.eval(&x, &mut Ctx::inference(seed));
            // The libraries' `x + (q − x)` arithmetic may leave a level off by an ulp.
            let slack = |i: usize| 4.0 * f32::EPSILON * x[i].abs().max(y[i].abs());
            for i in 1..x.len() {
                prop_assert!(y[i] >= y[i - 1] - slack(i) - slack(i - 1), "{}: q({})={} < q({})={}", q, x[i], y[i], x[i - 1], y[i - 1]);
            }
        }
    }

    #[test]
    fn same_seed_same_numbers(index in 0usize..1000, seed in any::<u64>()) {
        if let Some(q) = random_instance(index, seed) {
            let x = inputs(seed, 32);
            let a = q.eval(&x, &mut Ctx::training(seed));
            let b = q.eval(&x, &mut Ctx::training(seed));
            prop_assert_eq!(format!("{:?}", a), format!("{:?}", b));
        }
    }

    #[test]
    fn forward_only_equals_forward_backward(index in 0usize..1000, seed in any::<u64>()) {
        if let Some(q) = random_instance(index, seed) {
            let x = inputs(seed, 40);
            let (y, _, _) = q.eval(&x, &mut Ctx::training(seed));
            let mut y2 = vec![0.0; x.len()];
            q.apply(&x, &mut y2, None, &mut Ctx::training(seed));
            prop_assert_eq!(format!("{:?}", y), format!("{:?}", y2));
        }
    }

    #[test]
    fn parsing_arbitrary_text_never_panics(text in "\\PC{0,40}") {
        let _ = parse(&text);
    }

    #[test]
    fn parsing_spec_like_text_never_panics(text in "[a-z_.]{1,20}\\(([0-9a-z_='\\[\\] .,-]{0,30})\\)?") {
        let _ = parse(&text);
    }
}

/// Bit-equal values (any NaN equals any NaN).
fn same_bits(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
}

fn ctx(training: bool, seed: u64) -> Ctx {
    if training { Ctx::training(seed) } else { Ctx::inference(seed) }
}

/// The two fits that draw random numbers themselves (their frozen forms draw from the same
/// distribution, not the same numbers): quantized_linear 'auto_po2' and ternary 'auto' with
/// stochastic rounding, in training.
fn fit_draws(q: &Quantizer, training: bool) -> bool {
    let stochastic = q.is_stochastic(training);
    stochastic
        && match q {
            Quantizer::QuantizedLinear(l) => l.alpha == Alpha::AutoPo2,
            Quantizer::Ternary(_) => true,
            _ => false,
        }
}

// The facts a quantizer states about itself (`qscope_quant::Facts`), checked against its kernel.
proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn a_quantizer_that_is_not_data_dependent_is_elementwise(index in 0usize..1000, seed in any::<u64>(), training in any::<bool>()) {
        if let Some(q) = random_instance(index, seed) {
            prop_assume!(!q.is_data_dependent() && q.unsupported(training).is_none());
            // The same first half in another tensor: the same numbers there, the same report.
            let a = inputs(seed, 48);
            let mut b = a.clone();
            b[24..].iter_mut().for_each(|v| *v = *v * 9.0 + 0.5);
            let (ya, ga, ra) = q.eval(&a, &mut ctx(training, seed));
            let (yb, gb, rb) = q.eval(&b, &mut ctx(training, seed));
            prop_assert!(same_bits(&[ra.scale.unwrap_or(0.0)], &[rb.scale.unwrap_or(0.0)]), "{}: scale {:?} vs {:?}", q, ra, rb);
            prop_assert!(same_bits(&[ra.threshold.unwrap_or(0.0)], &[rb.threshold.unwrap_or(0.0)]), "{}: {:?} vs {:?}", q, ra, rb);
            if !q.is_stochastic(training) {
                prop_assert!(same_bits(&ya[..24], &yb[..24]) && same_bits(&ga[..24], &gb[..24]), "{}", q);
            }
        }
    }

    #[test]
    fn the_frozen_form_reproduces_the_kernel_bit_for_bit(index in 0usize..1000, seed in any::<u64>(), training in any::<bool>()) {
        if let Some(q) = random_instance(index, seed) {
            prop_assume!(q.unsupported(training).is_none() && !fit_draws(&q, training));
            let x = inputs(seed, within_a_block(&q, 64));
            let (y, g, report) = q.eval(&x, &mut ctx(training, seed));
            let frozen = q.freeze(&report);
            if !q.is_data_dependent() {
                prop_assert_eq!(&frozen, &Frozen::Library(q.clone()));
            }
            prop_assume!(frozen.is_frozen());
            let (fy, fg) = frozen.eval(&x, &mut ctx(training, seed));
            prop_assert!(same_bits(&y, &fy) && same_bits(&g, &fg), "{} (training {}): {}", q, training, frozen.describe());
        }
    }

    #[test]
    fn inert_parameters_change_no_output(index in 0usize..1000, seed in any::<u64>(), training in any::<bool>()) {
        if let Some(q) = random_instance(index, seed) {
            prop_assume!(q.unsupported(training).is_none());
            let x = inputs(seed, 40);
            let want = q.eval(&x, &mut ctx(training, seed));
            let mut rng = StdRng::seed_from_u64(seed);
            for name in q.inert() {
                let def = q.params().iter().find(|p| p.name == name).expect("an inert name is a parameter");
                let mut other = q.clone();
                other.set(name, &random_literal(&def.kind, &mut rng).expect("a parameter that computes")).unwrap();
                prop_assume!(other.validate().is_ok());
                let got = other.eval(&x, &mut ctx(training, seed));
                prop_assert!(same_bits(&want.0, &got.0) && same_bits(&want.1, &got.1), "{} vs {}", q, other);
                prop_assert_eq!(&want.2, &got.2, "{} vs {}", q, other);
            }
        }
    }

    #[test]
    fn learnable_parameters_are_the_reported_ones_and_their_gradients_agree(index in 0usize..1000, seed in any::<u64>(), training in any::<bool>()) {
        if let Some(mut q) = random_instance(index, seed) {
            prop_assume!(q.unsupported(training).is_none());
            let x = inputs(seed, 40);
            let (y, g, report) = q.eval(&x, &mut ctx(training, seed));
            let names: Vec<&str> = report.param_grads.iter().map(|(n, _)| *n).collect();
            prop_assert_eq!(q.learnable(), &names[..], "{}", q);
            for &(name, want) in &report.param_grads {
                let got = q.weighted_grad(name, &x, &vec![1.0; x.len()]);
                // Equal as numbers: PACT's kernel counts (+0 when nothing clips) where the weighted
                // sum of no terms is −0.
                prop_assert!(got == want || got.is_nan() && want.is_nan(), "{}: ∂/∂{} {} vs {}", q, name, got, want);
            }
            // Fixing what the kernel took from this tensor changes none of its numbers.
            if q.init_learnable(&report) {
                let (y2, g2, _) = q.eval(&x, &mut ctx(training, seed));
                prop_assert!(same_bits(&y, &y2) && same_bits(&g, &g2), "{}", q);
            }
        }
    }
}

#[test]
fn every_entry_reports_levels_for_its_defaults() {
    for e in ENTRIES {
        let q = (e.default)();
        let x = inputs(3, 50);
        let (y, g, r) = q.eval(&x, &mut Ctx::inference(3));
        assert_eq!(y.len(), x.len());
        assert_eq!(g.len(), x.len());
        if let Levels::Set(v) = q.levels(&r) {
            assert!(!v.is_empty(), "{}", e.info.qualified());
        }
    }
}

#[test]
fn random_configurations_are_mostly_valid_so_the_laws_are_exercised() {
    let valid = (0..2000u64).filter(|&s| random_instance(s as usize, s).is_some()).count();
    assert!(valid > 1400, "only {valid} of 2000 random configurations are valid");
}

#[test]
fn po2_levels_stop_at_max_value() {
    let q = parse("qkeras.quantized_po2(4, 1)").unwrap();
    let x: Vec<f32> = (-400..=400).map(|k| k as f32 / 20.0).collect();
    let (y, _, r) = q.eval(&x, &mut Ctx::inference(0));
    let (lo, hi) = q.levels(&r).bounds().unwrap();
    assert_eq!((lo, hi), (-1.0, 1.0));
    assert!(y.iter().all(|v| v.abs() <= 1.0));
}

/// `(outputs, levels)` of `spec` on `n` copies of `x`, in training.
fn trained_draws(spec: &str, x: f32, n: usize) -> (Vec<f32>, Levels) {
    let q = parse(spec).unwrap();
    let (y, _, report) = q.eval(&vec![x; n], &mut Ctx::training(7));
    (y, q.levels(&report))
}

// QKeras clips |x| to max_value and then draws the exponent of sqrt(0.428) = 0.654 from
// {−1, 0}: x = 0.6076 gives 2^(2·0) = 1 with probability 0.31, above the rounded level 0.25.
#[test]
fn stochastic_po2_levels_include_the_draw_above_max_value() {
    let spec = "qkeras.quantized_po2(max_value=0.4281420154746005, use_stochastic_rounding=True, \
                quadratic_approximation=True, use_ste=False)";
    let (y, levels) = trained_draws(spec, 0.607_553_36, 400);
    assert!(y.contains(&1.0) && y.contains(&0.25), "{y:?}");
    assert!(y.iter().all(|&v| levels.contains(v)), "{levels:?}");
    assert_eq!(levels.bounds(), Some((-1.0, 1.0)));
    let q = parse(spec).unwrap();
    let (_, _, report) = q.eval(&[0.607_553_36], &mut Ctx::inference(7));
    assert_eq!(q.levels(&report).bounds(), Some((-0.25, 0.25)), "inference rounds to 2^−2");
}

#[test]
fn stochastic_relu_po2_levels_include_the_draw_above_max_value() {
    let spec = "qkeras.quantized_relu_po2(max_value=0.4281420154746005, use_stochastic_rounding=True, \
                quadratic_approximation=True)";
    let (y, levels) = trained_draws(spec, 0.607_553_36, 400);
    assert!(y.contains(&1.0) && y.contains(&0.25), "{y:?}");
    assert!(y.iter().all(|&v| levels.contains(v)), "{levels:?}");
    assert_eq!(levels.bounds().map(|b| b.1), Some(1.0));
}

// At max_value = 2^k the draw is 2^k unless the uniform in [2^k, 2^(k+1)) is exactly 2^k.
#[test]
fn stochastic_po2_levels_at_a_power_of_two_max_value_reach_one_power_above() {
    let (y, levels) = trained_draws("qkeras.quantized_po2(4, 0.5, use_stochastic_rounding=True)", 3.0, 400);
    assert!(y.iter().all(|&v| v == 0.5), "{y:?}");
    assert_eq!(levels.bounds(), Some((-1.0, 1.0)));
}

// Without stochastic rounding the cap is max_value's own level, also below ε (use_ste=False
// keeps `x + (q − x)` from cancelling to 0 at x = 1).
#[test]
fn po2_levels_cap_at_max_value_below_epsilon() {
    let q = parse("qkeras.quantized_po2(max_value=1e-8, use_ste=False)").unwrap();
    let (y, _, report) = q.eval(&[1.0, 1e-9], &mut Ctx::inference(0));
    assert_eq!(y[0], 2f32.powi(-27));
    assert!(y.iter().all(|&v| q.levels(&report).contains(v)), "{y:?} {:?}", q.levels(&report));
    assert_eq!(q.levels(&report).bounds().map(|b| b.1), Some(2f32.powi(-27)));
}

// quantized_po2(1) has exponent bounds ±½; quadratic_approximation makes max_exp
// 2·(−½ // 2) = −2 and Keras' K.clip raises it back to −½: 2^(2·−½) = 0.5, and 2^−½ below ε.
#[test]
fn one_bit_quadratic_po2_clips_as_keras_does() {
    let q = parse("qkeras.quantized_po2(1, quadratic_approximation=True)").unwrap();
    let (y, _, report) = q.eval(&[0.0, 0.1, 3.0, -2.0], &mut Ctx::inference(0));
    assert_eq!(y, [std::f32::consts::FRAC_1_SQRT_2, 0.5, 0.5, -0.5]);
    assert_eq!(q.levels(&report).bounds(), Some((-std::f32::consts::FRAC_1_SQRT_2, std::f32::consts::FRAC_1_SQRT_2)));
}

/// The distinct outputs of `spec` over a dyadic sweep of [−4, 4] (hits every rounding tie).
fn swept_outputs(spec: &str) -> (Vec<f32>, Levels) {
    let q = parse(spec).unwrap();
    let x: Vec<f32> = (-(1 << 14)..=(1 << 14)).map(|k| k as f32 / 4096.0).collect();
    let (mut y, _, report) = q.eval(&x, &mut Ctx::inference(0));
    y.sort_by(f32::total_cmp);
    y.dedup();
    (y, q.levels(&report))
}

// QKeras adds quantized_relu's negative part to the positive one for every x when
// use_sigmoid is set: bits 3, ns 7/64 gives 0.5 − 7/64 = 0.390625 at x = 0.595.
#[test]
fn sigmoid_relu_with_a_negative_slope_levels_are_the_sums_it_outputs() {
    let spec = "qkeras.quantized_relu(bits=3, use_sigmoid=True, negative_slope=0.109375, \
                relu_upper_bound=4.848636496591416)";
    let q = parse(spec).unwrap();
    let (y, _, report) = q.eval(&[0.595_162_87], &mut Ctx::inference(0));
    assert_eq!(y[0], 0.390625);
    assert!(q.levels(&report).contains(0.390625));
    for ns in ["0.109375", "0.25", "0.5", "1.0", "0.3"] {
        for (bits, integer) in [(3, 0), (4, 1), (5, 0)] {
            let spec = format!(
                "qkeras.quantized_relu({bits}, {integer}, use_sigmoid=True, negative_slope={ns}, use_ste=False)"
            );
            let (y, levels) = swept_outputs(&spec);
            assert_eq!(levels.list(1000), Some(y), "{spec}");
        }
    }
}
