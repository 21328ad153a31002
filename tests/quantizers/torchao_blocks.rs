//! Laws of torchao's block formats (`torchao.mx`, `torchao.nvfp4`): blocks, their reported
//! scales and codes, the tail block, the frozen form at one block, storage bits, the CLI and the
//! explanation. The bit-for-bit agreement with torchao itself is in tests/quantizers/conformance.rs
//! (torchao_mx.txt).

use crate::common::cli;

use cli::{qscope, stderr, stdout};
use proptest::prelude::*;
use qscope_quant::torchao::{ElemDtype, Mx, Nvfp4, ScalingMode};
use qscope_quant::{Ctx, Family, Literal, Quantizer, Report, parse};

/// Every MX element type and scaling mode, and NVFP4 with none, 'auto' and a given per-tensor scale.
fn configs() -> Vec<Quantizer> {
    let mx = ["float8_e4m3fn", "float8_e5m2", "fp6_e2m3", "fp6_e3m2", "fp4_e2m1"].into_iter().flat_map(|e| {
        ["floor", "rceil", "ceil", "even"]
            .map(|m| parse(&format!("torchao.mx(elem_dtype='{e}', scaling_mode='{m}')")).unwrap())
    });
    let nv = ["None", "'auto'", "0.25"].map(|t| parse(&format!("torchao.nvfp4(per_tensor_scale={t})")).unwrap());
    mx.chain(nv).collect()
}

fn eval(q: &Quantizer, x: &[f32]) -> (Vec<f32>, Vec<f32>, Report) {
    q.eval(x, &mut Ctx::training(0))
}

/// Finite float32s of one random magnitude, a few of another (outliers), not a whole number of
/// blocks.
fn tensor() -> impl Strategy<Value = Vec<f32>> {
    (-30i32..30, -30i32..30, prop::collection::vec(-1.0f32..1.0, 75)).prop_map(|(e, o, v)| {
        v.iter().enumerate().map(|(i, u)| u * 2f32.powi(if i % 23 == 0 { o } else { e })).collect()
    })
}

/// The values block `i` of the report can take: its elements times its scale.
fn block_levels(q: &Quantizer, report: &Report, i: usize) -> qscope_quant::Levels {
    let b = report.blocks[i];
    match q {
        Quantizer::Mx(m) => m.cast(b.code.unwrap()).levels(),
        Quantizer::Nvfp4(_) => Nvfp4::cast(b.scale, report.scale).levels(),
        other => panic!("{other} is not a block format"),
    }
}

#[test]
fn the_family_is_torchao_and_specs_print_back() {
    for q in configs() {
        assert_eq!(q.info().family, Family::Torchao);
        assert!(q.is_data_dependent(), "{q}");
        assert_eq!(parse(&q.to_string()).unwrap(), q);
    }
    assert_eq!(parse("torchao.mx").unwrap().to_string(), "torchao.mx");
    assert_eq!(
        parse("torchao.nvfp4(per_tensor_scale='auto')").unwrap().to_string(),
        "torchao.nvfp4(per_tensor_scale='auto')"
    );
}

#[test]
fn auto_po2_is_not_a_per_tensor_scale() {
    let e = parse("torchao.nvfp4(per_tensor_scale='auto_po2')").unwrap_err().to_string();
    assert!(e.contains("None, 'auto' or a number"), "{e}");
}

#[test]
fn storage_bits_count_one_8_bit_scale_per_block() {
    let bits = |s: &str| parse(s).unwrap().bits_per_element(&Report::default());
    assert_eq!(bits("torchao.mx(elem_dtype='fp4_e2m1')"), Some(4.25));
    assert_eq!(bits("torchao.mx(elem_dtype='fp6_e3m2')"), Some(6.25));
    assert_eq!(bits("torchao.mx"), Some(8.25));
    assert_eq!(bits("torchao.mx(elem_dtype='fp4_e2m1', block_size=16)"), Some(4.5));
    assert_eq!(bits("torchao.nvfp4"), Some(4.5));
}

#[test]
fn the_block_size_is_what_the_trainer_cuts_rows_into() {
    assert_eq!(parse("torchao.mx").unwrap().block_size(), Some(32));
    assert_eq!(parse("torchao.mx(block_size=8)").unwrap().block_size(), Some(8));
    assert_eq!(parse("torchao.nvfp4(per_tensor_scale=2.0)").unwrap().block_size(), Some(16));
}

#[test]
fn a_tail_that_does_not_fill_a_block_is_reported_as_a_block_of_its_own() {
    let x: Vec<f32> = (0..70).map(|i| (i as f32 * 0.7).sin()).collect();
    for (spec, lens) in [("torchao.mx", vec![32, 32, 6]), ("torchao.nvfp4", vec![16, 16, 16, 16, 6])] {
        let (_, _, r) = eval(&parse(spec).unwrap(), &x);
        assert_eq!(r.blocks.iter().map(|b| b.len).collect::<Vec<_>>(), lens, "{spec}");
    }
}

#[test]
fn the_tail_block_is_quantized_as_the_same_elements_alone() {
    let x: Vec<f32> = (0..37).map(|i| (i as f32 * 1.3).cos() * (1 + i % 5) as f32).collect();
    // 'auto' takes its per-tensor scale from the whole tensor, so not from the tail alone.
    for q in configs().into_iter().filter(|q| q.get("per_tensor_scale") != Some(Literal::Str("auto".into()))) {
        let (y, _, _) = eval(&q, &x);
        let tail = x.len() - x.len() % q.block_size().unwrap();
        let (alone, _, _) = eval(&q, &x[tail..]);
        assert_eq!(y[tail..], alone[..], "{q}");
    }
}

#[test]
fn mx_reports_each_blocks_amax_decoded_scale_and_e8m0_code() {
    let q = Quantizer::Mx(Mx { elem_dtype: ElemDtype::F4E2M1, block_size: 4, scaling_mode: ScalingMode::Floor });
    let (_, _, r) = eval(&q, &[1.0, -3.0, 0.5, 2.0, 0.0, 0.0, 0.0, 0.0]);
    // amax 3 = 1.5·2^1: code 1 − 2 + 127 = 126, scale 1/2; all zeros: code 0, scale 2^−127.
    assert_eq!((r.blocks[0].amax, r.blocks[0].scale, r.blocks[0].code), (3.0, 0.5, Some(126)));
    assert_eq!((r.blocks[1].scale, r.blocks[1].code), (2f32.powi(-127), Some(0)));
}

#[test]
fn nvfp4_reports_the_per_tensor_scale_and_each_blocks_e4m3_scale() {
    let q = parse("torchao.nvfp4(per_tensor_scale='auto')").unwrap();
    let x: Vec<f32> = (0..16).map(|i| i as f32 * 0.5).collect();
    let (_, _, r) = eval(&q, &x);
    assert_eq!((r.amax, r.scale), (Some(7.5), Some(7.5 / 2688.0)));
    // 7.5/6/t = 448 exactly in float32 here: the E4M3 byte 0x7e.
    assert_eq!((r.blocks[0].scale, r.blocks[0].code), (448.0, Some(0x7e)));
}

#[test]
fn nvfp4_auto_on_an_all_zero_tensor_is_nan_everywhere() {
    let (y, _, _) = eval(&parse("torchao.nvfp4(per_tensor_scale='auto')").unwrap(), &[0.0; 20]);
    assert!(y.iter().all(|v| v.is_nan()), "{y:?}");
    let (y, _, _) = eval(&parse("torchao.nvfp4").unwrap(), &[0.0, -0.0]);
    assert_eq!(y.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), [0, 0x8000_0000]);
}

#[test]
fn frozen_at_no_block_is_nan() {
    for q in configs() {
        let (y, _) = q.freeze(&Report::default()).eval(&[0.5, -2.0], &mut Ctx::training(0));
        assert!(y.iter().all(|v| v.is_nan()), "{q}: {y:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn every_block_lies_on_its_own_scales_levels_with_gradient_1(x in tensor()) {
        for q in configs() {
            let (y, g, report) = eval(&q, &x);
            let size = q.block_size().unwrap();
            for (i, chunk) in y.chunks(size).enumerate() {
                let levels = block_levels(&q, &report, i);
                for v in chunk {
                    prop_assert!(levels.contains_within(*v, 0.0), "{}: block {} y={:e} {:?}", q, i, v, report.blocks[i]);
                }
            }
            prop_assert!(g.iter().all(|&d| d == 1.0), "{}", q);
        }
    }

    #[test]
    fn frozen_at_the_first_block_it_reproduces_that_block(x in tensor()) {
        for q in configs() {
            let (y, _, report) = eval(&q, &x);
            let size = q.block_size().unwrap().min(x.len());
            let (fy, fg) = q.freeze(&report).eval(&x[..size], &mut Ctx::training(0));
            prop_assert!(y[..size].iter().zip(&fy).all(|(a, b)| a.to_bits() == b.to_bits()), "{}", q);
            prop_assert!(fg.iter().all(|&d| d == 1.0));
        }
    }
}

#[test]
fn eval_report_prints_every_block_with_its_code() {
    let o = qscope(&["eval", "torchao.mx(elem_dtype='fp4_e2m1', block_size=4)", "--report"], "1 2 3 4 5 6 7 8 nan 1");
    assert!(o.status.success(), "{}", stderr(&o));
    // Block 2 (amax 8, scale 2): 5/2 = 2.5 ties to 2, so 4; 7/2 = 3.5 ties to 4, so 8.
    assert!(stdout(&o).starts_with("1 1 1\n2 2 1\n3 3 1\n4 4 1\n5 4 1\n6 6 1\n7 8 1\n8 8 1\nnan nan 1\n1 nan 1\n"));
    let err = stderr(&o);
    for want in [
        "block 0: 4 elements, amax 4, scale 1 (code 0x7f)",
        "amax 8, scale 2 (code 0x80)",
        "amax nan, scale nan (code 0xff)",
    ] {
        assert!(err.contains(want), "no '{want}' in {err}");
    }
    let o = qscope(&["eval", "torchao.nvfp4(per_tensor_scale=0.5)", "--report"], "3 -1");
    assert!(stderr(&o).contains("# scale 0.5\n"), "{}", stderr(&o));
}

#[test]
fn list_shows_the_block_formats_and_their_parameters() {
    let out = stdout(&qscope(&["list", "torchao"], ""));
    for want in ["  torchao.mx\n", "elem_dtype", "scaling_mode", "  torchao.nvfp4\n", "per_tensor_scale"] {
        assert!(out.contains(want), "no '{want}' in {out}");
    }
}

#[test]
fn the_explanation_walks_from_the_blocks_code_to_the_multiplication_back() {
    let q = parse("torchao.mx(elem_dtype='fp4_e2m1')").unwrap();
    let (_, _, report) = eval(&q, &[1.0, -3.0, 0.5]);
    let e = qscope_explore::explain::explain(&q, &report, 1.3);
    let text: Vec<String> = e.steps.iter().map(|s| format!("{}: {}", s.what, s.value)).collect();
    let text = text.join("\n");
    for want in ["3 elements, amax", "E8M0 scale code: 126 (0x7e) = 0.5", "x · 2: 2.6", "float4_e2m1fn: 4 bits"] {
        assert!(text.contains(want), "no '{want}' in\n{text}");
    }
    assert!(text.contains("float4_e2m1fn → float32, × 2^(code − 127): 3 × 0.5 = 1.5"), "{text}");
    assert_eq!((e.y, e.dydx), (1.5, 1.0));
}

#[test]
fn the_nvfp4_explanation_names_the_per_tensor_scale() {
    let q = parse("torchao.nvfp4(per_tensor_scale='auto')").unwrap();
    let (_, _, report) = eval(&q, &[1.0, -3.0, 0.5]);
    let text: Vec<String> =
        qscope_explore::explain::explain(&q, &report, 1.3).steps.iter().map(|s| s.what.clone()).collect();
    let text = text.join("\n");
    assert!(text.contains("per-tensor scale t = amax / 2688") && text.contains("× (t · s)"), "{text}");
}
