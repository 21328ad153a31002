//! The explorer's analysis model (`qscope_explore`): data dependence, freezing, metrics on
//! quantized samples, hardware types and warnings, step-by-step explanations and "copy as
//! code". (The sample distributions, histograms and metric formulas have unit tests in their
//! modules.)

use qscope_explore::code::{Framework, cli_line, larq_call, qkeras_call, snippet};
use qscope_explore::explain::explain;
use qscope_explore::hardware::{fixed_point, warnings};
use qscope_explore::metrics::measure;
use qscope_explore::sample::SampleSpec;
use qscope_quant::{Ctx, ENTRIES, Family, Fixed, Frozen, Quantizer, Report, parse};

fn q(spec: &str) -> Quantizer {
    parse(spec).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

fn ctx(training: bool) -> Ctx {
    if training { Ctx::training(7) } else { Ctx::inference(7) }
}

/// Bit-equal slices (any NaN equals any NaN).
fn same_bits(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
}

/// A weight-like sample with a zero, a negative zero and a large value appended.
fn sample() -> Vec<f32> {
    let mut x = SampleSpec { n: 300, ..SampleSpec::default() }.generate();
    x.extend([0.0, -0.0, 1.7]);
    x
}

/// Data-dependent configurations across every family that has one.
const DATA_DEPENDENT: &[&str] = &[
    "qkeras.quantized_bits(4,0,1,alpha='auto')",
    "qkeras.quantized_bits(4,2,1,alpha='auto')",
    "qkeras.quantized_bits(3,0,1,alpha='auto_po2')",
    "qkeras.quantized_bits(8,1,alpha='auto_po2',min_po2_exponent=-3)",
    "qkeras.quantized_bits(4,0,1,alpha='auto',qnoise_factor=0.5)",
    "qkeras.quantized_bits(4,0,1,alpha='auto',use_ste=False)",
    "qkeras.quantized_linear(4,0,alpha='auto')",
    "qkeras.quantized_linear(4,0,alpha='auto_po2')",
    "qkeras.quantized_linear(3,0,keep_negative=False,alpha='auto')",
    "qkeras.quantized_linear(1,0,alpha='auto_po2')",
    "qkeras.quantized_linear(4,0,alpha='auto',use_stochastic_rounding=True)",
    "qkeras.quantized_hswish(4,2,alpha='auto')",
    "qkeras.binary(alpha='auto')",
    "qkeras.binary(alpha='auto_po2')",
    "qkeras.binary(use_01=True,alpha='auto')",
    "qkeras.binary(use_stochastic_rounding=True)",
    "qkeras.stochastic_binary(alpha='auto')",
    "qkeras.bernoulli(alpha='auto')",
    "qkeras.ternary(alpha='auto')",
    "qkeras.ternary(alpha='auto_po2',number_of_unrolls=1)",
    "qkeras.ternary(alpha='auto',use_stochastic_rounding=True)",
    "qkeras.stochastic_ternary(alpha='auto')",
    "larq.MagnitudeAwareSign",
    "larq.MagnitudeAwareSign(clip_value=None)",
    "larq.SteTern(ternary_weight_networks=True)",
    "larq.DoReFa(k_bit=3, mode='weights')",
    "larq.DoReFa(k_bit=1, mode='weights')",
    "lsq(bits=4)",
    "lsq(bits=3, signed=False, grad_scale=False)",
    "torchao.float8",
    "torchao.float8(float8_dtype='float8_e5m2', round_scales_to_power_of_2=True)",
    // One tail block holds the whole sample: the frozen form reproduces it.
    "bnb.nf4(blocksize=4096)",
    "bnb.fp4(blocksize=4096)",
];

// ----------------------------------------------------------------------------------------
// Sample tensor
// ----------------------------------------------------------------------------------------

#[test]
fn data_dependence_is_read_from_the_parameters() {
    for spec in DATA_DEPENDENT {
        assert!(q(spec).is_data_dependent(), "{spec}");
    }
    for spec in [
        "qkeras.quantized_bits(4,0,1)",
        "qkeras.quantized_bits(4,0,1,alpha='auto',post_training_scale=2.0)",
        "qkeras.binary(alpha=0.5)",
        "larq.SteTern",
        "larq.DoReFa",
        "lsq(bits=4, step=0.1)",
        "fake_quantize",
    ] {
        assert!(!q(spec).is_data_dependent(), "{spec}");
    }
}

// ----------------------------------------------------------------------------------------
// Freezing
// ----------------------------------------------------------------------------------------

#[test]
fn freezing_reproduces_every_data_dependent_quantizer_bit_for_bit() {
    let x = sample();
    let mut checked = 0;
    for spec in DATA_DEPENDENT {
        let quant = q(spec);
        for training in [true, false] {
            if quant.unsupported(training).is_some() {
                continue;
            }
            let (y, g, report) = quant.eval(&x, &mut ctx(training));
            let frozen = quant.freeze(&report);
            // Live forms keep depending on the tensor; two fits draw random numbers themselves.
            let fit_draws =
                training && (spec.contains("linear(4,0,alpha='auto_po2'") || spec.contains("ternary(alpha='auto',use"));
            if !frozen.is_frozen() || fit_draws && report.stochastic {
                continue;
            }
            let (mut fy, mut fg) = (vec![0.0; x.len()], vec![0.0; x.len()]);
            let freport = frozen.apply(&x, &mut fy, Some(&mut fg), &mut ctx(training));
            assert!(same_bits(&y, &fy), "{spec} (training {training}): outputs differ");
            assert!(same_bits(&g, &fg), "{spec} (training {training}): gradients differ");
            assert_eq!(report.param_grads, freport.param_grads, "{spec}: parameter gradients differ");
            checked += 1;
        }
    }
    assert!(checked >= 45, "only {checked} configurations checked");
}

#[test]
fn a_frozen_quantizer_is_elementwise() {
    let x = sample();
    let sweep: Vec<f32> = (0..=80).map(|i| -2.0 + i as f32 * 0.05).collect();
    for spec in DATA_DEPENDENT {
        let quant = q(spec);
        let frozen = quant.freeze(&quant.eval(&x, &mut ctx(false)).2);
        if !frozen.is_frozen() || quant.is_stochastic(false) {
            continue;
        }
        let (whole, _) = frozen.eval(&sweep, &mut ctx(false));
        let single: Vec<f32> = sweep.iter().map(|&v| frozen.eval(&[v], &mut ctx(false)).0[0]).collect();
        assert!(same_bits(&whole, &single), "{spec}");
    }
}

#[test]
fn quantized_bits_auto_freezes_to_its_post_training_scale() {
    let quant = q("qkeras.quantized_bits(4,0,1,alpha='auto')");
    let report = quant.eval(&sample(), &mut ctx(true)).2;
    let Frozen::Library(Quantizer::QuantizedBits(b)) = quant.freeze(&report) else { panic!("not a library form") };
    assert_eq!(b.post_training_scale, Some(report.scale.unwrap() as f64));
}

#[test]
fn larq_twn_freezes_to_a_fixed_threshold_value() {
    let quant = q("larq.SteTern(ternary_weight_networks=True)");
    let report = quant.eval(&sample(), &mut ctx(true)).2;
    let Frozen::Library(Quantizer::SteTern(t)) = quant.freeze(&report) else { panic!("not a library form") };
    assert!(!t.ternary_weight_networks);
    assert_eq!(t.threshold_value, report.threshold.unwrap() as f64);
}

#[test]
fn ternary_auto_freezes_to_the_explorer_side_strict_threshold() {
    let quant = q("qkeras.ternary(alpha='auto')");
    let report = quant.eval(&sample(), &mut ctx(true)).2;
    let frozen = quant.freeze(&report);
    assert!(matches!(frozen, Frozen::Fixed(Fixed::AutoTernary { .. })), "{frozen:?}");
    let t = report.threshold.unwrap();
    let (y, _) = frozen.eval(&[t, -t], &mut ctx(true));
    assert_eq!(y, vec![0.0, 0.0], "|x| = threshold is not enough: the threshold is strict");
}

#[test]
fn statistics_the_report_lacks_stay_live() {
    let x = sample();
    for spec in [
        "qkeras.bernoulli(alpha='auto')",
        "qkeras.stochastic_binary(alpha='auto')",
        "qkeras.binary(use_stochastic_rounding=True)",
    ] {
        let quant = q(spec);
        let report = quant.eval(&x, &mut ctx(true)).2;
        assert!(!quant.freeze(&report).is_frozen(), "{spec}");
    }
}

#[test]
fn a_quantizer_that_is_not_data_dependent_freezes_to_itself() {
    let quant = q("qkeras.quantized_bits(4,0,1)");
    assert_eq!(quant.freeze(&Report::default()), Frozen::Library(quant));
}

// ----------------------------------------------------------------------------------------
// Metrics
// ----------------------------------------------------------------------------------------

#[test]
fn clip_fraction_counts_inputs_outside_the_level_range() {
    let quant = q("qkeras.quantized_bits(4,0,1)");
    let x = [-1.0, -0.5, 0.9, 0.875];
    let (y, _, report) = quant.eval(&x, &mut ctx(true));
    let m = measure(&x, &y, &quant.levels(&report));
    assert_eq!(m.clip_fraction, 0.5);
}

// ----------------------------------------------------------------------------------------
// Hardware
// ----------------------------------------------------------------------------------------

fn hls(spec: &str) -> (String, String) {
    let quant = q(spec);
    let report = quant.eval(&sample(), &mut ctx(true)).2;
    let f = fixed_point(&quant, &report).unwrap_or_else(|e| panic!("{spec}: {e}"));
    (f.ap_fixed, f.ac_fixed)
}

#[test]
fn quantized_bits_4_0_1_is_ap_fixed_4_1() {
    assert_eq!(hls("qkeras.quantized_bits(4,0,1)"), ("ap_fixed<4,1>".into(), "ac_fixed<4,1,true>".into()));
}

#[test]
fn quantized_bits_8_3_is_ap_fixed_8_4_because_hls_counts_the_sign_bit() {
    assert_eq!(hls("qkeras.quantized_bits(8,3)").0, "ap_fixed<8,4>");
}

#[test]
fn quantized_bits_without_negatives_is_ap_ufixed_with_the_same_integer_bits() {
    assert_eq!(
        hls("qkeras.quantized_bits(4,0,keep_negative=False)"),
        ("ap_ufixed<4,0>".into(), "ac_fixed<4,0,false>".into())
    );
}

#[test]
fn a_power_of_two_alpha_moves_the_binary_point() {
    assert_eq!(hls("qkeras.quantized_bits(4,0,1,alpha=0.5)").0, "ap_fixed<4,0>");
    assert!(hls("qkeras.quantized_bits(4,0,1,alpha='auto_po2')").0.starts_with("ap_fixed<4,"));
}

#[test]
fn quantized_relu_is_ap_ufixed() {
    assert_eq!(hls("qkeras.quantized_relu(4,0)").0, "ap_ufixed<4,0>");
    assert_eq!(hls("qkeras.quantized_relu(3,1)").0, "ap_ufixed<3,1>");
}

#[test]
fn ternary_codes_are_a_two_bit_integer() {
    assert_eq!(hls("larq.SteTern").0, "ap_fixed<2,2>");
}

#[test]
fn a_step_that_is_not_a_power_of_two_gives_integer_codes_and_a_scale() {
    let quant = q("larq.DoReFa(k_bit=2)");
    let f = fixed_point(&quant, &Report::default()).unwrap();
    assert_eq!((f.ap_fixed.as_str(), f.ac_fixed.as_str(), f.power_of_two), ("ap_uint<2>", "ac_int<2,false>", false));
    assert_eq!(f.scale, 1.0 / 3.0);
}

#[test]
fn codes_are_listed_with_the_values_the_kernel_outputs() {
    let quant = q("pact(bits=2, alpha=3.0)");
    let x: Vec<f32> = (0..=40).map(|i| -0.5 + i as f32 * 0.1).collect();
    let (y, _, report) = quant.eval(&x, &mut ctx(true));
    let f = fixed_point(&quant, &report).unwrap();
    assert_eq!(f.codes.iter().map(|c| c.0).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
    assert!(y.iter().all(|v| f.codes.iter().any(|c| c.1 == *v)), "{y:?} vs {:?}", f.codes);
}

#[test]
fn more_than_256_codes_are_counted_but_not_listed() {
    let f = fixed_point(&q("qkeras.quantized_bits(12,2)"), &Report::default()).unwrap();
    assert_eq!((f.code_range, f.codes.len(), f.ap_fixed.as_str()), ((-2048, 2047), 0, "ap_fixed<12,3>"));
}

#[test]
fn signs_and_powers_of_two_have_no_fixed_point_type() {
    for spec in [
        "qkeras.quantized_bits(1,0)",
        "larq.SteSign",
        "qkeras.quantized_po2(4)",
        "ste",
        "qkeras.quantized_tanh(4,use_real_tanh=True,symmetric=True)",
    ] {
        let quant = q(spec);
        let report = quant.eval(&[0.5], &mut ctx(true)).2;
        if spec.contains("tanh") {
            assert!(fixed_point(&quant, &report).is_ok(), "{spec}: a uniform grid has a type");
        } else {
            assert!(fixed_point(&quant, &report).is_err(), "{spec}");
        }
    }
}

fn warned(spec: &str, needle: &str) -> bool {
    warnings(&q(spec)).iter().any(|w| w.contains(needle))
}

#[test]
fn bits_1_warns_that_quantized_bits_is_a_sign() {
    assert!(warned("qkeras.quantized_bits(1,0)", "is a sign function"));
}

#[test]
fn symmetric_0_warns_about_the_asymmetric_range() {
    assert!(warned("qkeras.quantized_bits(4,0,0)", "asymmetric range, -1 … 0.875"));
    assert!(!warned("qkeras.quantized_bits(4,0,1)", "asymmetric"));
}

#[test]
fn an_alpha_that_is_not_a_power_of_two_warns() {
    assert!(warned("qkeras.quantized_bits(4,0,1,alpha=0.75)", "not a power of two"));
    assert!(!warned("qkeras.quantized_bits(4,0,1,alpha=0.5)", "not a power of two"));
}

#[test]
fn integer_bits_warn_with_the_real_range_and_hls_type() {
    assert!(warned("qkeras.quantized_bits(8,3)", "outputs span -8 … 7.9375, the HLS type is ap_fixed<8,4>"));
    assert!(warned("qkeras.quantized_bits(4,4)", "every output is a multiple of 2"));
}

#[test]
fn a_qnoise_factor_below_one_warns_that_outputs_leave_the_levels() {
    assert!(warned("qkeras.quantized_bits(4,0,1,qnoise_factor=0.5)", "outputs lie off the levels"));
}

#[test]
fn qkeras_identity_ste_warns_that_saturated_outputs_pass_gradient() {
    assert!(warned(
        "qkeras.quantized_bits(4,0,1)",
        "passes gradient 1 even where the output saturates (outside -0.875 … 0.875)"
    ));
    assert!(warned("qkeras.quantized_bits(4,0,1,use_ste=False)", "gradient 1 − qnoise_factor = 0"));
}

#[test]
fn po2_warns_about_its_approximate_max_value_and_missing_zero() {
    assert!(warned("qkeras.quantized_po2(4,3)", "max_value=3 is approximate: inputs at or above it give 4"));
    assert!(warned("qkeras.quantized_po2(4)", "never outputs 0: x = 0 gives 0.0625"));
}

#[test]
fn relu_po2_warns_that_it_never_outputs_zero() {
    assert!(warned("qkeras.quantized_relu_po2(4)", "x ≤ 0 gives 0.00390625"));
}

#[test]
fn plain_configurations_have_no_warnings() {
    for spec in ["larq.SteSign", "qkeras.quantized_relu(4,0)", "fake_quantize", "qkeras.quantized_linear(4,0)"] {
        assert_eq!(warnings(&q(spec)), Vec::<String>::new(), "{spec}");
    }
}

#[test]
fn every_warning_is_one_sentence() {
    let mut specs: Vec<Quantizer> = ENTRIES.iter().map(|e| (e.default)()).collect();
    specs.extend(
        [
            "qkeras.quantized_bits(1,0)",
            "qkeras.quantized_bits(8,3,alpha=0.75,qnoise_factor=0.5)",
            "qkeras.quantized_po2(4,3)",
            "qkeras.quantized_bits(4,alpha='auto',keep_negative=False)",
        ]
        .map(q),
    );
    for quant in specs {
        for w in warnings(&quant) {
            assert!(w.ends_with('.') && !w.trim_end_matches('.').contains(". "), "{quant}: {w}");
        }
    }
}

// ----------------------------------------------------------------------------------------
// Explanations
// ----------------------------------------------------------------------------------------

/// The report an explanation of `quant` gets: the sample's for a data-dependent one.
/// The report the explorer explains with: the sample's for a data-dependent quantizer, else
/// the x sweep's (fixed numbers such as ternary's threshold are reported there too).
fn report_for(quant: &Quantizer) -> Report {
    let training = quant.unsupported(true).is_none();
    let input = if quant.is_data_dependent() { sample() } else { vec![-1.0, 0.0, 1.0] };
    quant.eval(&input, &mut ctx(training)).2
}

#[test]
fn an_explanation_ends_with_the_kernels_y_and_dydx() {
    let mut quantizers: Vec<Quantizer> = ENTRIES.iter().map(|e| (e.default)()).collect();
    quantizers.extend(DATA_DEPENDENT.iter().map(|s| q(s)));
    quantizers.extend(
        [
            "qkeras.quantized_bits(4,0,1)",
            "qkeras.quantized_bits(4,2,0,alpha=0.5)",
            "qkeras.quantized_linear(1,0)",
            "qkeras.quantized_relu(3,1)",
            "qkeras.quantized_po2(4,1)",
            "qkeras.ternary(alpha=2.0)",
            "larq.DoReFa(mode='weights')",
            "soft_round(hard=True)",
        ]
        .map(q),
    );
    for quant in &quantizers {
        let report = report_for(quant);
        for x in [-2.0f32, -0.4375, -0.0, 0.1875, 0.3, 1.0, 2.5, f32::NAN, f32::INFINITY] {
            let e = explain(quant, &report, x);
            let mut c = if e.training { Ctx::training(0) } else { Ctx::inference(0) };
            let (y, g) = if quant.is_data_dependent() {
                quant.freeze(&report).eval(&[x], &mut c)
            } else {
                let (y, g, _) = quant.eval(&[x], &mut c);
                (y, g)
            };
            let n = e.steps.len();
            let (ys, gs) = (&e.steps[n - 2], &e.steps[n - 1]);
            let parse = |s: &str| s.parse::<f32>().unwrap_or(f32::NAN);
            assert!(same_bits(&[parse(&ys.value), parse(&gs.value)], &[y[0], g[0]]), "{quant} at {x}: {:?}", e.steps);
            assert!(ys.what.starts_with("y") && gs.what.starts_with("dy/dx"), "{quant}: {:?}", e.steps);
        }
    }
}

#[test]
fn the_intermediate_q_of_x_is_the_kernels_output() {
    let specs = [
        "qkeras.quantized_bits(4,0,1)",
        "qkeras.quantized_bits(6,2,0,alpha=0.5)",
        "qkeras.quantized_bits(4,0,1,alpha='auto')",
        "qkeras.quantized_linear(4,1)",
        "qkeras.quantized_linear(1,0)",
        "qkeras.quantized_relu(3,1)",
        "qkeras.quantized_po2(5)",
        "qkeras.binary(alpha=0.5)",
        "qkeras.ternary()",
        "qkeras.ternary(alpha=2.0, threshold=0.25)",
        "qkeras.ternary(alpha='auto')",
        "larq.DoReFa(k_bit=3)",
        "larq.DoReFa(mode='weights')",
        "ste(step=0.25)",
        "lsq(bits=3)",
        "pact(bits=3, alpha=2.0)",
        "fake_quantize(0.1, 3, 0, 15)",
    ];
    for spec in specs {
        let quant = q(spec);
        let report = report_for(&quant);
        for i in 0..=60 {
            let x = -3.0 + i as f32 * 0.1;
            let e = explain(&quant, &report, x);
            let step = e.steps.iter().find(|s| s.what.starts_with("q(")).unwrap_or_else(|| panic!("{spec}: no q(x)"));
            let rounded_blend = e.steps.iter().any(|s| s.value.contains("in float32 x + (q(x) − x)"));
            assert!(step.value.parse::<f32>() == Ok(e.y) || rounded_blend, "{spec} at {x}: {:?}", e.steps);
        }
    }
}

fn step_values(spec: &str, x: f32) -> String {
    let quant = q(spec);
    let e = explain(&quant, &report_for(&quant), x);
    e.steps.iter().map(|s| format!("{}: {}\n", s.what, s.value)).collect()
}

#[test]
fn quantized_bits_names_the_tie_rule() {
    // 0.1875 = 1.5·Δ and 0.3125 = 2.5·Δ both round to the even code 2.
    assert!(step_values("qkeras.quantized_bits(4,0,1)", 0.1875).contains("1.5 → 2 (a tie goes to the even neighbour)"));
    assert!(step_values("qkeras.quantized_bits(4,0,1)", 0.3125).contains("round half to even (tf.round): 2.5 → 2"));
}

#[test]
fn a_saturated_quantized_bits_explains_why_the_gradient_is_still_one() {
    let text = step_values("qkeras.quantized_bits(4,0,1)", 2.0);
    assert!(text.contains("16 → 7 (saturates)"), "{text}");
    assert!(text.contains("dy/dx: QKeras' STE passes 1 even though the output saturates: 1"), "{text}");
}

#[test]
fn quantized_bits_auto_rounds_half_away_from_zero_with_the_sample_scale() {
    let text = step_values("qkeras.quantized_bits(4,0,1,alpha='auto')", 0.1);
    assert!(text.contains("of the sample: its largest |x| lands on the top code"), "{text}");
    assert!(text.contains("round half away from zero"), "{text}");
}

#[test]
fn a_per_channel_explanation_names_the_channel_its_statistic_comes_from() {
    let quant = q("qkeras.quantized_bits(4,0,1,alpha='auto')");
    let plain = explain(&quant, &report_for(&quant), 0.1);
    let e = plain.clone().for_channel(5, 1);
    let text: String = e.steps.iter().map(|s| format!("{}\n", s.what)).collect();
    assert!(text.contains("of channel 5 (axis 1) of the sample: its largest |x|"), "{text}");
    let values = |e: &qscope_explore::explain::Explanation| e.steps.iter().map(|s| s.value.clone()).collect::<Vec<_>>();
    assert_eq!(values(&e), values(&plain), "only the words change");
}

#[test]
fn a_ternary_explains_with_the_threshold_the_kernel_used() {
    assert!(
        step_values("qkeras.ternary(alpha=2.0, threshold=0.25)", 0.25)
            .contains("code: sign(x) where |x| ≥ 0.25 (inclusive): 1")
    );
    assert!(step_values("qkeras.ternary()", 0.3).contains("|x| ≥ 0.33 (inclusive): 0"));
}

#[test]
fn a_clipped_ste_explains_the_cut_gradient() {
    assert!(step_values("larq.SteSign", 1.5).contains("dy/dx: the clipped STE cuts the gradient outside |x| ≤ 1: 0"));
}

#[test]
fn the_formula_lines_are_the_catalogue_formulas() {
    let quant = q("larq.ApproxSign");
    let e = explain(&quant, &Report::default(), 0.5);
    assert_eq!(
        e.formula,
        vec![format!("forward: {}", quant.info().forward), format!("backward: {}", quant.info().backward)]
    );
}

// ----------------------------------------------------------------------------------------
// Copy as code
// ----------------------------------------------------------------------------------------

#[test]
fn every_catalogue_entry_gets_its_library_snippet_and_a_cli_line() {
    for e in ENTRIES {
        let s = snippet(&(e.default)());
        let has = |f: Framework| s.iter().any(|(g, _)| *g == f);
        assert!(has(Framework::Cli), "{}", e.info.name);
        match e.info.family {
            Family::QKeras => assert!(has(Framework::QKeras), "{}", e.info.name),
            Family::Larq => assert!(has(Framework::Larq), "{}", e.info.name),
            Family::Beyond | Family::MlDtypes | Family::Torchao | Family::Bnb => {}
        }
    }
}

#[test]
fn a_qkeras_snippet_is_positional_like_qkeras_users_write_it() {
    let s = snippet(&q("qkeras.quantized_bits(4,0,1,alpha=1)"));
    assert_eq!(
        s[0],
        (Framework::QKeras, "from qkeras import quantized_bits\nq = quantized_bits(4, 0, 1, alpha=1)".into())
    );
}

#[test]
fn qkeras_snippets_parse_back_to_the_same_quantizer() {
    let mut all: Vec<Quantizer> = ENTRIES.iter().map(|e| (e.default)()).collect();
    all.extend(DATA_DEPENDENT.iter().map(|s| q(s)));
    all.extend(
        [
            "qkeras.quantized_bits(8,3,keep_negative=False)",
            "qkeras.quantized_po2(4,1.5)",
            "qkeras.quantized_relu(4,0,use_stochastic_rounding=True)",
            "qkeras.stochastic_round(precision=0.25)",
            "qkeras._round_through(1, 0.25)",
            "qkeras.quantized_bits(4,0,1,alpha=0.75,scale_axis=[0, 1],var_name='w')",
        ]
        .map(q),
    );
    for quant in all.iter().filter(|q| q.info().family == Family::QKeras) {
        let call = qkeras_call(quant).unwrap();
        assert_eq!(&q(&format!("qkeras.{call}")), quant, "{call}");
    }
}

#[test]
fn a_larq_snippet_uses_keywords() {
    let s = snippet(&q("larq.SteTern(threshold_value=0.1)"));
    assert_eq!(s[0], (Framework::Larq, "import larq as lq\nq = lq.quantizers.SteTern(threshold_value=0.1)".into()));
}

#[test]
fn larq_snippets_parse_back_to_the_same_quantizer() {
    for quant in ENTRIES.iter().map(|e| (e.default)()).filter(|q| q.info().family == Family::Larq) {
        let call = larq_call(&quant).unwrap();
        let back = q(&format!("larq.{call}"));
        if let Quantizer::NoOp(_) = quant {
            continue; // Larq requires a precision that qscope's default leaves None.
        }
        assert_eq!(back, quant, "{call}");
    }
}

#[test]
fn fake_quantize_is_torchs_own_function() {
    let s = snippet(&q("fake_quantize(0.1, 3, 0, 15)"));
    let torch = &s.iter().find(|(f, _)| *f == Framework::PyTorch).unwrap().1;
    assert!(torch.ends_with("y = torch.fake_quantize_per_tensor_affine(x, 0.1, 3, 0, 15)"), "{torch}");
}

#[test]
fn rounding_quantizers_use_the_detach_idiom_in_pytorch() {
    for spec in ["qkeras.quantized_bits(4,0,1)", "ste", "larq.SteSign", "larq.DoReFa", "pact"] {
        let s = snippet(&q(spec));
        let torch = &s.iter().find(|(f, _)| *f == Framework::PyTorch).unwrap_or_else(|| panic!("{spec}")).1;
        assert!(torch.contains(".detach()"), "{spec}: {torch}");
    }
}

#[test]
fn the_cli_line_quotes_the_spec_for_the_shell() {
    assert_eq!(
        cli_line(&q("qkeras.ternary(alpha='auto')")),
        r"qscope eval 'qkeras.ternary(alpha='\''auto'\'')' <<< '-1 -0.5 -0.25 0 0.25 0.5 1'"
    );
}
