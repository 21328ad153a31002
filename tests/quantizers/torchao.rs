//! Laws of torchao's scaled FP8 (`torchao.float8`) on random tensors of every magnitude; the
//! bit-for-bit agreement with torchao itself is in tests/quantizers/conformance.rs (torchao.txt).

use crate::common::cli;

use cli::{qscope, stderr, stdout};
use proptest::prelude::*;
use qscope_quant::{Ctx, Family, Frozen, Literal, Quantizer, Report, parse};

/// Every configuration: both dtypes, both scale roundings.
fn configs() -> Vec<Quantizer> {
    ["float8_e4m3fn", "float8_e5m2"]
        .into_iter()
        .flat_map(|d| {
            ["False", "True"]
                .map(|r| parse(&format!("torchao.float8(float8_dtype='{d}', round_scales_to_power_of_2={r})")).unwrap())
        })
        .collect()
}

/// A tensor of finite float32s of one random magnitude (so the scale spans the range), a few
/// of them of another (outliers).
fn tensor() -> impl Strategy<Value = Vec<f32>> {
    (-30i32..30, -30i32..30, prop::collection::vec(-1.0f32..1.0, 48)).prop_map(|(e, o, v)| {
        v.iter().enumerate().map(|(i, u)| u * 2f32.powi(if i % 16 == 0 { o } else { e })).collect()
    })
}

fn eval(q: &Quantizer, x: &[f32]) -> (Vec<f32>, Vec<f32>, Report) {
    q.eval(x, &mut Ctx::training(0))
}

#[test]
fn the_family_is_torchao_and_data_dependent() {
    for q in configs() {
        assert_eq!(q.info().family, Family::Torchao);
        assert!(q.is_data_dependent(), "{q}");
        assert_eq!(parse(&q.to_string()).unwrap(), q);
    }
    assert_eq!(parse("torchao.float8").unwrap().to_string(), "torchao.float8");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn outputs_lie_on_the_formats_levels_divided_by_the_scale(x in tensor()) {
        for q in configs() {
            let (y, g, report) = eval(&q, &x);
            let levels = q.levels(&report);
            for i in 0..x.len() {
                prop_assert!(levels.contains_within(y[i], 0.0), "{}: x={:e} y={:e} scale {:?}", q, x[i], y[i], report.scale);
                prop_assert_eq!(g[i], 1.0, "{}: torchao passes the gradient through", q);
            }
        }
    }

    #[test]
    fn at_a_fixed_scale_quantizing_twice_changes_nothing(x in tensor()) {
        for q in configs() {
            let (y, _, report) = eval(&q, &x);
            let frozen = q.freeze(&report);
            prop_assert!(matches!(frozen, Frozen::Fixed(_)), "{}", q);
            let (yy, _) = frozen.eval(&y, &mut Ctx::training(0));
            prop_assert!(y.iter().zip(&yy).all(|(a, b)| a.to_bits() == b.to_bits()), "{}: {:?} → {:?}", q, y, yy);
        }
    }

    #[test]
    fn the_forward_is_monotone(mut x in tensor()) {
        x.sort_by(f32::total_cmp);
        for q in configs() {
            let (y, _, _) = eval(&q, &x);
            prop_assert!(y.windows(2).all(|p| p[0] <= p[1]), "{}: {:?} from {:?}", q, y, x);
        }
    }

    #[test]
    fn the_largest_element_keeps_its_magnitude_up_to_the_formats_precision(x in tensor()) {
        // amax·scale is the format's max (before a power-of-two rounding), so amax comes back
        // within the format's relative step at its top exponent.
        for q in configs().into_iter().filter(|q| q.get("round_scales_to_power_of_2") == Some(Literal::Bool(false))) {
            let (y, _, report) = eval(&q, &x);
            let amax = report.amax.unwrap();
            prop_assume!(amax > 1e-12);
            let top = y.iter().fold(0.0f32, |m, v| m.max(v.abs()));
            prop_assert!((top - amax).abs() <= amax * 2f32.powi(-2), "{}: amax {} came back {}", q, amax, top);
        }
    }
}

#[test]
fn eval_reports_the_amax_and_the_scale() {
    let o = qscope(&["eval", "torchao.float8", "--report"], "0.3 -1.7 3 0 nan");
    assert!(o.status.success(), "{}", stderr(&o));
    // A NaN anywhere makes amax and the scale NaN, and every output with them.
    assert_eq!(stdout(&o), "0.3 nan 1\n-1.7 nan 1\n3 nan 1\n0 nan 1\nnan nan 1\n");
    assert!(stderr(&o).contains("# amax nan\n# scale nan\n"), "{}", stderr(&o));
    let o = qscope(&["eval", "torchao.float8(round_scales_to_power_of_2=True)", "--report"], "0.3 -1.7 3 0.001");
    assert!(o.status.success(), "{}", stderr(&o));
    // 448/3 = 149.33 rounds down to 128: outputs on the grid of e4m3 / 128 (as torchao gives them).
    assert_eq!(stdout(&o), "0.3 0.3125 1\n-1.7 -1.75 1\n3 3 1\n0.001 0.0009765625 1\n");
    let err = stderr(&o);
    assert!(err.contains("# amax 3\n# scale 128\n# levels 253 from -3.5 to 3.5"), "{err}");
}

#[test]
fn list_shows_the_torchao_family() {
    let o = qscope(&["list", "torchao"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("\ntorchao\n") && out.contains("  torchao.float8\n"), "{out}");
    assert!(out.contains("float8_dtype") && out.contains("round_scales_to_power_of_2"), "{out}");
}

#[test]
fn the_explanation_walks_from_amax_to_the_division_by_the_scale() {
    let q = parse("torchao.float8(round_scales_to_power_of_2=True)").unwrap();
    let (_, _, report) = eval(&q, &[0.3, -1.7, 3.0]);
    let e = qscope_explore::explain::explain(&q, &report, 1.7);
    let steps: Vec<String> = e.steps.iter().map(|s| format!("{}: {}", s.what, s.value)).collect();
    let text = steps.join("\n");
    for want in ["amax", "scale = 448", "2^⌊log2 scale⌋", "x·scale", "saturate to ±448", "float8_e4m3fn: 8 bits"]
    {
        assert!(text.contains(want), "no '{want}' in\n{text}");
    }
    assert!(text.contains("float8_e4m3fn → float32, ÷ scale: 224 / 128 = 1.75"), "{text}");
    assert_eq!((e.y, e.dydx), (1.75, 1.0));
}
