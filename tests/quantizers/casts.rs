//! Laws of ml_dtypes' element casts (`ml_dtypes.float8_e4m3fn` …), on random float32 inputs
//! across the whole exponent range; bit-for-bit agreement with the package itself is in
//! tests/quantizers/conformance.rs.

use crate::common::cli;

use cli::{qscope, stderr, stdout};
use proptest::prelude::*;
use qscope_quant::{Ctx, ENTRIES, Family, Quantizer, Report};

fn casts() -> Vec<Quantizer> {
    ENTRIES.iter().filter(|e| e.info.family == Family::MlDtypes).map(|e| (e.default)()).collect()
}

fn cast(q: &Quantizer, x: &[f32]) -> (Vec<f32>, Vec<f32>) {
    let (y, g, _) = q.eval(x, &mut Ctx::training(0));
    (y, g)
}

/// Finite float32s of every magnitude: random sign and exponent, so each format's subnormals,
/// normals and overflow are all hit.
fn finite() -> impl Strategy<Value = Vec<f32>> {
    prop::collection::vec(any::<u32>().prop_map(f32::from_bits).prop_filter("finite", |v| v.is_finite()), 64)
}

fn same(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

#[test]
fn there_are_the_ten_casts_without_parameters() {
    let names: Vec<String> = casts().iter().map(|q| q.to_string()).collect();
    assert_eq!(
        names,
        [
            "ml_dtypes.float8_e4m3fn",
            "ml_dtypes.float8_e5m2",
            "ml_dtypes.float8_e4m3fnuz",
            "ml_dtypes.float8_e5m2fnuz",
            "ml_dtypes.float8_e4m3",
            "ml_dtypes.float8_e3m4",
            "ml_dtypes.float8_e8m0fnu",
            "ml_dtypes.float6_e2m3fn",
            "ml_dtypes.float6_e3m2fn",
            "ml_dtypes.float4_e2m1fn",
        ]
    );
    assert!(casts().iter().all(|q| q.params().is_empty() && !q.is_data_dependent()));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn a_cast_value_casts_to_itself(x in finite()) {
        for q in casts() {
            let y = cast(&q, &x).0;
            let yy = cast(&q, &y).0;
            for i in 0..x.len() {
                prop_assert!(same(yy[i], y[i]), "{}: x={:e} y={:e} cast again {:e}", q, x[i], y[i], yy[i]);
            }
        }
    }

    #[test]
    fn casts_are_monotone_where_they_are_numbers(mut x in finite()) {
        x.sort_by(f32::total_cmp);
        for q in casts() {
            let y: Vec<f32> = cast(&q, &x).0.into_iter().filter(|v| !v.is_nan()).collect();
            prop_assert!(y.windows(2).all(|p| p[0] <= p[1]), "{}: {:?} from {:?}", q, y, x);
        }
    }

    #[test]
    fn outputs_are_levels_or_the_formats_specials(x in finite()) {
        for q in casts() {
            let levels = q.levels(&Report::default());
            let (y, g) = cast(&q, &x);
            for i in 0..x.len() {
                // ±inf only from IEEE-style formats, past their largest value.
                let ieee = ["float8_e5m2", "float8_e4m3", "float8_e3m4"].contains(&q.info().name);
                let special = y[i].is_nan() || (y[i].is_infinite() && ieee);
                prop_assert!(special || levels.contains_within(y[i], 0.0), "{}: x={:e} y={:e}", q, x[i], y[i]);
                prop_assert_eq!(g[i], 1.0, "{}: straight-through gradient", q);
            }
        }
    }

    #[test]
    fn signed_casts_are_odd(x in finite()) {
        for q in casts().into_iter().filter(|q| q.info().name != "float8_e8m0fnu") {
            let (y, _) = cast(&q, &x);
            let neg: Vec<f32> = x.iter().map(|v| -v).collect();
            let (yn, _) = cast(&q, &neg);
            for i in 0..x.len() {
                prop_assert!(y[i] == -yn[i] || (y[i].is_nan() && yn[i].is_nan()), "{}: x={:e}", q, x[i]);
            }
        }
    }
}

#[test]
fn eval_and_list_show_the_casts() {
    let o = qscope(&["eval", "ml_dtypes.float8_e4m3fn"], "464 465 -0.0009765625 nan");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "464 448 1\n465 nan 1\n-0.0009765625 -0 1\nnan nan 1\n");
    let o = qscope(&["list", "ml_dtypes"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("\nml_dtypes\n") && out.contains("  ml_dtypes.float4_e2m1fn"), "{out}");
    assert!(!out.contains("qkeras."), "{out}");
}
