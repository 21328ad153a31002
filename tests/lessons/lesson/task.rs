//! The task language: conditions parsed, printed back, and evaluated on the explorer's
//! quantizers and on the trainer's figures.

use super::*;
use qscope_explore::lesson::task::{Clause, Comparison, Measure, TrainObservation, explorer_value, weight_levels};
use qscope_explore::runs::Runs;

#[test]
fn a_condition_is_clauses_joined_by_and() {
    let c = condition("test_acc >= 90% and weight_levels == 2");
    let want = [
        Clause { measure: Measure::TestAcc, op: Comparison::Ge, number: 90.0, percent: true },
        Clause { measure: Measure::WeightLevels, op: Comparison::Eq, number: 2.0, percent: false },
    ];
    assert_eq!(c.clauses, want);
    assert_eq!(c.clauses[0].threshold(), 0.9);
}

#[test]
fn whitespace_is_free_and_signs_exponents_and_the_true_minus_are_read() {
    let c = condition("  dydx( −1.5 )<=-2.5e-1and y(+0.25)!=1E2");
    assert_eq!(c.to_string(), "dydx(-1.5) <= -0.25 and y(0.25) != 100");
}

#[test]
fn a_condition_prints_back_as_it_parses() {
    for text in
        ["dydx(1.5) == 0", "y(0.1875) == 0.25 and levels < 16", "sqnr > 20 and mse <= 0.001", "twin_test_acc >= 85%"]
    {
        assert_eq!(condition(text).to_string(), text);
    }
}

#[test]
fn a_bad_condition_says_what_is_wrong_and_where() {
    let cases = [
        ("", "the condition is empty; expected e.g. dydx(1.5) == 0"),
        ("test_accuracy > 0.9", "unknown measure 'test_accuracy' at character 1; did you mean 'test_acc'?"),
        ("dydx == 0", "dydx needs the x where it is measured, e.g. dydx(1.5)"),
        ("levels(2) == 2", "'levels' takes no argument"),
        ("levels 2", "expected a comparison (==, !=, <, <=, >, >=) after 'levels' at character 8, found the number 2"),
        ("levels ==", "expected a number after 'levels =='"),
        ("levels == two", "expected a number after '==' at character 11, found 'two'"),
        ("levels == 2 or mse < 1", "expected 'and' or the end at character 13, found 'or'"),
        ("levels == 2 and", "expected a measure after 'and'"),
        ("mse < inf", "expected a number after '<' at character 7, found 'inf'"),
        ("mse < 1e999", "the number at character 7 is too large"),
        ("mse < 1e", "the exponent of the number at character 7 has no digits"),
        ("y(2e6) == 0", "y: x = 2e6 at character 3 is beyond ±1000000"),
        ("mse < 1 ; levels > 2", "';' at character 9 is not part of a condition"),
    ];
    for (text, message) in cases {
        let e = Condition::parse(text).expect_err(text);
        assert!(e.starts_with(message), "{text}: {e}");
    }
}

#[test]
fn the_ste_sign_gradient_vanishes_outside_the_clip_and_passes_inside() {
    let st = explorer("#q=larq.ste_sign");
    assert!(condition("dydx(1.5) == 0").observe(&st).unwrap());
    assert!(condition("dydx(0.5) == 1").observe(&st).unwrap());
    assert!(!condition("dydx(0.5) == 0").observe(&st).unwrap());
}

#[test]
fn quantized_bits_rounds_ties_to_even() {
    let st = explorer("#q=qkeras.quantized_bits(4,0,1)");
    // 0.1875 = 1.5 steps of 0.125 → 2 steps; 0.0625 = 0.5 steps → 0.
    assert!(condition("y(0.1875) == 0.25 and y(0.0625) == 0").observe(&st).unwrap());
    assert_eq!(explorer_value(Measure::Y(0.3125), &st), Ok(0.25));
}

#[test]
fn the_selected_quantizer_is_measured() {
    let st = explorer("#q=qkeras.quantized_bits(4,0,1)&q=larq.ste_sign&sel=1");
    assert_eq!(explorer_value(Measure::Dydx(1.5), &st), Ok(0.0));
    assert_eq!(explorer_value(Measure::Curves, &st), Ok(2.0));
}

#[test]
fn levels_count_the_outputs_and_are_infinite_when_unbounded() {
    assert_eq!(explorer_value(Measure::Levels, &explorer("#q=qkeras.quantized_bits(4,0,1)")), Ok(15.0));
    assert_eq!(explorer_value(Measure::Levels, &explorer("#q=larq.ste_sign")), Ok(2.0));
    assert_eq!(explorer_value(Measure::Levels, &explorer("#q=softround")), Ok(f64::INFINITY));
    assert!(!condition("levels < 1000").observe(&explorer("#q=softround")).unwrap());
}

#[test]
fn sqnr_and_mse_are_measured_on_the_sample_tensor() {
    use qscope_explore::drawn::context;
    use qscope_explore::metrics::measure;
    let st = explorer("#q=qkeras.quantized_bits(4,0,1)&sample=laplace,0.3&seed=7");
    let x = st.sample_spec().generate();
    let q = &st.slots[0].quantizer;
    let (y, _, report) = q.eval(&x, &mut context(true, 7));
    let m = measure(&x, &y, &q.levels(&report));
    assert_eq!(explorer_value(Measure::Mse, &st), Ok(m.mse));
    assert_eq!(explorer_value(Measure::Sqnr, &st), Ok(m.sqnr_db));
    assert!(m.sqnr_db > 10.0 && m.mse > 0.0);
}

#[test]
fn a_data_dependent_quantizer_is_measured_frozen_on_the_sample_tensor() {
    use qscope_explore::drawn::context;
    // alpha='auto' takes its scale from the sample: at a sample value, y is that value's output
    // in the run on the whole sample.
    let st = explorer("#q=qkeras.quantized_bits(4,0,1,alpha='auto')&seed=3");
    let x = st.sample_spec().generate();
    let (y, _, _) = st.slots[0].quantizer.eval(&x, &mut context(true, 3));
    for i in [0, 250, 999] {
        assert_eq!(explorer_value(Measure::Y(x[i]), &st), Ok(f64::from(y[i])), "x = {}", x[i]);
    }
}

#[test]
fn a_trainer_measure_is_not_an_explorer_value() {
    let e = explorer_value(Measure::TestAcc, &State::default()).unwrap_err();
    assert_eq!(e, "'test_acc' is a trainer measure; the explorer has none");
}

fn observation() -> TrainObservation {
    TrainObservation {
        test_acc: 0.92,
        train_acc: 0.95,
        test_loss: 0.1,
        train_loss: 0.08,
        epoch: 120.0,
        float_test_acc: 0.97,
        twin_test_acc: None,
        weight_levels: 2.0,
        latent_max: 1.5,
    }
}

#[test]
fn a_trainer_condition_holds_on_the_latest_epoch() {
    let obs = observation();
    assert!(condition("test_acc >= 90% and weight_levels == 2").holds(&obs));
    assert!(!condition("test_acc >= 95%").holds(&obs));
    assert!(condition("epoch >= 100 and train_loss < 0.1 and float_test_acc > 0.96").holds(&obs));
}

#[test]
fn the_twins_accuracy_never_holds_without_a_twin() {
    assert!(!condition("twin_test_acc >= 0").holds(&observation()));
    let with_twin = TrainObservation { twin_test_acc: Some(0.5), ..observation() };
    assert!(condition("twin_test_acc >= 0").holds(&with_twin));
}

#[test]
fn weight_levels_are_the_most_among_the_hidden_layers_and_infinite_for_float() {
    let levels = |hash: &str| {
        let (p, problems) = TrainParams::parse(hash);
        assert!(problems.is_empty(), "{problems:?}");
        weight_levels(&p)
    };
    assert_eq!(levels("#view=train&hidden=8,8&wq=larq.ste_sign"), 2.0);
    assert_eq!(levels("#view=train&hidden=8,8&wq=qkeras.quantized_bits(4,0,1)"), 15.0);
    assert_eq!(levels("#view=train&hidden=8,8&wq=larq.ste_sign&wq2=qkeras.ternary()"), 3.0);
    assert_eq!(levels("#view=train&hidden=8,8&wq=larq.ste_sign&wq2="), f64::INFINITY);
    assert_eq!(levels("#view=train&hidden=&wq=larq.ste_sign"), f64::INFINITY);
    assert_eq!(levels("#view=train&hidden=&wq=larq.ste_sign&qo=1"), 2.0);
}

/// The quantized net of `hash` after `epochs` epochs, as the trainer observes it.
fn trained(hash: &str, epochs: usize) -> TrainObservation {
    let (p, problems) = TrainParams::parse(hash);
    assert!(problems.is_empty(), "{problems:?}");
    let mut runs = Runs::new(&p).unwrap();
    for _ in 0..epochs {
        runs.epoch().unwrap();
    }
    TrainObservation::of(Some(&runs), weight_levels(&p))
}

#[test]
fn latent_max_is_the_largest_latent_weight_of_the_quantized_layers() {
    let hash = "#view=train&dataset=circle&hidden=8,8&wq=larq.ste_sign&optimizer=adam&lr=0.01";
    let free = trained(hash, 50);
    assert!(free.latent_max > 1.0, "{}", free.latent_max);
    let clipped = trained(&format!("{hash}&weight_clip=1"), 50);
    assert!(clipped.latent_max > 0.9 && clipped.latent_max <= 1.0, "{}", clipped.latent_max);
    assert!(condition("latent_max <= 1").holds(&clipped) && !condition("latent_max <= 1").holds(&free));
    assert_eq!(trained("#view=train&hidden=8,8&wq=", 1).latent_max, 0.0, "a float net has no latent weights");
}

fn measure() -> impl Strategy<Value = Measure> {
    let x = -1e6f32..=1e6;
    prop_oneof![
        x.clone().prop_map(Measure::Y),
        x.prop_map(Measure::Dydx),
        prop::sample::select(vec![
            Measure::Levels,
            Measure::Sqnr,
            Measure::Mse,
            Measure::Curves,
            Measure::TestAcc,
            Measure::TrainAcc,
            Measure::TestLoss,
            Measure::TrainLoss,
            Measure::Epoch,
            Measure::FloatTestAcc,
            Measure::TwinTestAcc,
            Measure::WeightLevels,
            Measure::LatentMax,
        ]),
    ]
}

fn clause() -> impl Strategy<Value = Clause> {
    let op = prop::sample::select(vec![
        Comparison::Eq,
        Comparison::Ne,
        Comparison::Lt,
        Comparison::Le,
        Comparison::Gt,
        Comparison::Ge,
    ]);
    let number = prop_oneof![
        any::<f64>().prop_filter("finite", |v| v.is_finite()),
        -1e3f64..1e3,
        (0i32..100).prop_map(f64::from)
    ];
    (measure(), op, number, any::<bool>()).prop_map(|(measure, op, number, percent)| Clause {
        measure,
        op,
        number,
        percent,
    })
}

proptest! {
    #[test]
    fn a_printed_condition_parses_back_to_itself(clauses in prop::collection::vec(clause(), 1..5)) {
        let c = Condition { clauses };
        let text = c.to_string();
        prop_assert_eq!(Condition::parse(&text), Ok(c), "{}", text);
    }
}
