//! Laws of torchao's group-wise integers (`torchao.affine`, `torchao.intx_fake_quantize`) on
//! random tensors; the bit-for-bit agreement with torchao itself is in tests/quantizers/conformance.rs
//! (torchao_affine.txt).

use crate::common::cli;

use cli::{qscope, stderr, stdout};
use proptest::prelude::*;
use qscope_quant::{Ctx, Family, Frozen, Quantizer, Report, parse};

fn q(spec: &str) -> Quantizer {
    parse(spec).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

/// A spread of configurations: every mapping, several ranges and group sizes, every intx dtype.
fn configs() -> Vec<Quantizer> {
    let mut v: Vec<Quantizer> = ["asymmetric", "symmetric", "symmetric_no_clipping_err"]
        .into_iter()
        .flat_map(|m| {
            [(-8, 7, 32), (0, 15, 8), (-128, 127, 5), (0, 255, 16)].map(|(lo, hi, g)| {
                q(&format!("torchao.affine(mapping_type='{m}', group_size={g}, quant_min={lo}, quant_max={hi})"))
            })
        })
        .collect();
    for d in 2..=8 {
        for sym in ["True", "False"] {
            v.push(q(&format!("torchao.intx_fake_quantize(dtype='int{d}', group_size=12, is_symmetric={sym})")));
        }
    }
    v
}

/// Finite float32s of one random magnitude, a few of another (outliers), 50 long (a tail).
fn tensor() -> impl Strategy<Value = Vec<f32>> {
    (-30i32..30, -30i32..30, prop::collection::vec(-1.0f32..1.0, 50)).prop_map(|(e, o, v)| {
        v.iter().enumerate().map(|(i, u)| u * 2f32.powi(if i % 17 == 0 { o } else { e })).collect()
    })
}

fn eval(q: &Quantizer, x: &[f32]) -> (Vec<f32>, Vec<f32>, Report) {
    q.eval(x, &mut Ctx::training(0))
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn both_are_torchao_block_formats_that_print_and_parse_back() {
    for q in configs() {
        assert_eq!(q.info().family, Family::Torchao);
        assert!(q.is_data_dependent(), "{q}");
        assert!(q.block_size().is_some(), "{q}");
        assert_eq!(parse(&q.to_string()).unwrap(), q);
    }
    assert_eq!(q("torchao.affine").to_string(), "torchao.affine");
    assert_eq!(q("torchao.intx_fake_quantize").block_size(), Some(32));
}

#[test]
fn a_range_out_of_order_or_beyond_int8_and_uint8_is_rejected() {
    for spec in [
        "torchao.affine(quant_min=7, quant_max=7)",
        "torchao.affine(quant_min=-1, quant_max=200)",
        "torchao.affine(group_size=0)",
        "torchao.intx_fake_quantize(group_size=1)",
        "torchao.intx_fake_quantize(dtype='int1')",
    ] {
        assert!(parse(spec).is_err(), "{spec} parsed");
    }
}

#[test]
fn each_group_and_the_tail_report_their_own_scale() {
    let x: Vec<f32> = (0..70).map(|i| (i as f32 * 0.37).sin() * (1 + i / 32) as f32).collect();
    let (_, _, r) = eval(&q("torchao.affine"), &x);
    assert_eq!(r.blocks.iter().map(|b| b.len).collect::<Vec<_>>(), [32, 32, 6]);
    assert!(r.blocks[1].scale > r.blocks[0].scale, "{:?}", r.blocks);
    assert!(r.blocks.iter().all(|b| b.zero_point.is_some() && b.code.is_none()));
}

#[test]
fn symmetric_affine_and_the_symmetric_fake_quantizer_agree_on_finite_values() {
    // The same primitives; they part only on ±inf (the integer cast of a NaN code).
    let x: Vec<f32> = (0..64).map(|i| (i as f32 * 1.7).cos() * 3.0).collect();
    let affine = eval(&q("torchao.affine(mapping_type='symmetric', group_size=16)"), &x).0;
    let intx = eval(&q("torchao.intx_fake_quantize(group_size=16)"), &x).0;
    assert_eq!(bits(&affine), bits(&intx));
}

#[test]
fn rows_are_cut_into_groups_each() {
    let x: Vec<f32> = (0..40).map(|i| i as f32 - 20.0).collect();
    let mut y = vec![0.0; 40];
    let quant = q("torchao.intx_fake_quantize(group_size=8)");
    let r = quant.apply_rows(&x, 20, &mut y, None, &mut Ctx::training(0));
    // Two rows of 20: groups of 8, 8 and a tail of 4 in each.
    assert_eq!(r.blocks.iter().map(|b| b.len).collect::<Vec<_>>(), [8, 8, 4, 8, 8, 4]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn outputs_lie_on_the_levels_of_their_groups(x in tensor()) {
        for q in configs() {
            let (y, _, report) = eval(&q, &x);
            let levels = q.levels(&report);
            for i in 0..x.len() {
                prop_assert!(levels.contains_within(y[i], 0.0), "{}: x={:e} y={:e}", q, x[i], y[i]);
            }
        }
    }

    #[test]
    fn frozen_at_a_group_it_reproduces_that_group(x in tensor()) {
        for q in configs() {
            let g = q.block_size().unwrap().min(x.len());
            let (y, d, report) = eval(&q, &x[..g]);
            let frozen = q.freeze(&report);
            prop_assert!(matches!(frozen, Frozen::Fixed(_)), "{}", q);
            let (fy, fd) = frozen.eval(&x[..g], &mut Ctx::training(0));
            prop_assert_eq!((bits(&y), bits(&d)), (bits(&fy), bits(&fd)), "{}", q);
        }
    }

    #[test]
    fn quantizing_twice_at_a_fixed_group_changes_nothing(x in tensor()) {
        for q in configs() {
            let (y, _, report) = eval(&q, &x);
            let (yy, _) = q.freeze(&report).eval(&y[..q.block_size().unwrap().min(x.len())], &mut Ctx::training(0));
            prop_assert_eq!(bits(&y[..yy.len()]), bits(&yy), "{}", q);
        }
    }

    #[test]
    fn the_forward_is_monotone_within_a_group(mut x in tensor()) {
        x.sort_by(f32::total_cmp);
        for q in configs() {
            let x = &x[..q.block_size().unwrap().min(x.len())];
            let (y, _, _) = eval(&q, x);
            prop_assert!(y.windows(2).all(|p| p[0] <= p[1]), "{}: {:?} from {:?}", q, y, x);
        }
    }

    #[test]
    fn the_fake_quantizer_gradient_is_zero_exactly_where_the_output_is_an_end_of_the_range(x in tensor()) {
        for q in configs().into_iter().filter(|q| q.info().name == "intx_fake_quantize") {
            let (y, d, report) = eval(&q, &x);
            let levels = q.levels(&Report { blocks: report.blocks[..1].to_vec(), ..Report::default() });
            let (lo, hi) = levels.bounds().unwrap();
            let g = q.block_size().unwrap();
            for i in 0..g {
                let at_end = y[i] == lo || y[i] == hi;
                prop_assert_eq!(d[i] == 0.0, at_end, "{}: x={:e} y={:e} dydx={}", q, x[i], y[i], d[i]);
            }
        }
    }
}

#[test]
fn eval_reports_each_group_with_its_scale_and_zero_point() {
    let o = qscope(&["eval", "torchao.affine(group_size=2)", "--report"], "-1 2 0.5 nan 3");
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("# block 0: 2 elements, amax 2, scale 0.2, zero point -3\n"), "{err}");
    assert!(err.contains("# block 1: 2 elements, amax nan, scale nan"), "{err}");
    assert!(err.contains("# block 2: 1 elements, amax 3, scale 0.2, zero point -8\n"), "{err}");
    assert_eq!(stdout(&o).lines().next(), Some("-1 -1 1"));
}

#[test]
fn list_shows_both_in_the_torchao_family() {
    let o = qscope(&["list", "torchao"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("  torchao.affine\n") && out.contains("  torchao.intx_fake_quantize\n"), "{out}");
    assert!(out.contains("mapping_type") && out.contains("is_symmetric"), "{out}");
}

#[test]
fn the_explanation_walks_from_the_group_scale_to_the_dequantized_code() {
    let quant = q("torchao.intx_fake_quantize(group_size=8)");
    let x = [-3.0, -1.0, 0.0, 1.0, 2.5, 7.0, -8.0, 4.0];
    let (_, _, report) = eval(&quant, &x);
    let e = qscope_explore::explain::explain(&quant, &report, 7.0);
    let text: Vec<String> = e.steps.iter().map(|s| format!("{}: {}", s.what, s.value)).collect();
    let text = text.join("\n");
    for want in ["8 elements, 8", "scale s = max|x|", "1/s", "round half to even", "clamp to the codes [-8, 7]"] {
        assert!(text.contains(want), "no '{want}' in\n{text}");
    }
    assert!(text.contains("torch 2.15's clamp passes no gradient"), "{text}");
    assert_eq!(e.dydx, 0.0);
}
