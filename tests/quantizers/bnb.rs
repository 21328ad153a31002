//! Laws of bitsandbytes' 4-bit formats (`bnb.nf4`, `bnb.fp4`) on random tensors of every
//! magnitude and length; the bit-for-bit agreement with bitsandbytes itself is in
//! tests/quantizers/conformance.rs (bnb.txt).

use crate::common::cli;

use cli::{qscope, stderr, stdout};
use proptest::prelude::*;
use qscope_quant::bnb::{BlockCode, Table};
use qscope_quant::{Block, Ctx, Family, Fixed, Frozen, Quantizer, Report, parse};

/// Both formats at the default block and at the smallest one.
fn configs() -> Vec<Quantizer> {
    ["bnb.nf4", "bnb.fp4", "bnb.nf4(blocksize=32)", "bnb.fp4(blocksize=32)"].map(|s| parse(s).unwrap()).to_vec()
}

/// Finite float32s of one random magnitude, a few of another (outliers), of a length that
/// usually leaves a tail block.
fn tensor() -> impl Strategy<Value = Vec<f32>> {
    (-30i32..30, -30i32..30, prop::collection::vec(-1.0f32..1.0, 1..200)).prop_map(|(e, o, v)| {
        v.iter().enumerate().map(|(i, u)| u * 2f32.powi(if i % 37 == 5 { o } else { e })).collect()
    })
}

fn eval(q: &Quantizer, x: &[f32]) -> (Vec<f32>, Vec<f32>, Report) {
    q.eval(x, &mut Ctx::training(0))
}

/// The report of a tensor cut into `blocksize` blocks, block by block.
fn blocks_of(q: &Quantizer, x: &[f32]) -> Vec<(Vec<f32>, Block)> {
    let (y, _, report) = eval(q, x);
    let bs = q.block_size().unwrap();
    y.chunks(bs).map(<[f32]>::to_vec).zip(report.blocks).collect()
}

#[test]
fn the_family_is_bnb_and_data_dependent() {
    for q in configs() {
        assert_eq!(q.info().family, Family::Bnb);
        assert_eq!(Family::Bnb.title(), "bitsandbytes");
        assert!(q.is_data_dependent(), "{q}");
        assert_eq!(parse(&q.to_string()).unwrap(), q);
    }
    assert_eq!(parse("bnb.nf4").unwrap().to_string(), "bnb.nf4");
}

#[test]
fn only_the_blocksizes_bitsandbytes_accepts_parse() {
    for b in [32, 64, 128, 256, 512, 1024, 2048, 4096] {
        assert!(parse(&format!("bnb.fp4(blocksize={b})")).is_ok(), "{b}");
    }
    let err = parse("bnb.nf4(blocksize=48)").unwrap_err().to_string();
    assert!(err.contains("blocksize") && err.contains("48") && err.contains("[32, 64, 128"), "{err}");
    assert!(parse("bnb.nf4(blocksize=16)").is_err());
}

#[test]
fn storage_is_four_bits_plus_a_float32_absmax_per_block() {
    let bits = |s: &str| parse(s).unwrap().bits_per_element(&Report::default());
    assert_eq!(bits("bnb.nf4"), Some(4.5));
    assert_eq!(bits("bnb.fp4(blocksize=32)"), Some(5.0));
    assert_eq!(bits("bnb.nf4(blocksize=4096)"), Some(4.0078125));
    assert_eq!(parse("bnb.fp4(blocksize=128)").unwrap().block_size(), Some(128));
}

#[test]
fn the_report_has_one_block_per_blocksize_and_a_shorter_tail() {
    let q = parse("bnb.nf4").unwrap();
    let x: Vec<f32> = (0..150).map(|i| (i as f32 - 70.0) / 10.0).collect();
    let (_, _, r) = eval(&q, &x);
    let lens: Vec<usize> = r.blocks.iter().map(|b| b.len).collect();
    assert_eq!(lens, [64, 64, 22]);
    assert_eq!((r.blocks[0].amax, r.blocks[0].scale, r.blocks[0].code), (7.0, 7.0, None));
    assert_eq!(r.blocks[2].amax, 7.9);
}

#[test]
fn an_all_zero_tail_stores_the_clamped_absmax_a_full_block_zero() {
    let q = parse("bnb.fp4(blocksize=32)").unwrap();
    let (y, _, r) = eval(&q, &[0.0; 40]);
    assert!(y.iter().all(|v| v.to_bits() == 0), "{y:?}");
    assert_eq!((r.blocks[0].scale, r.blocks[1].scale), (0.0, 1e-38));
    assert_eq!((r.blocks[0].amax, r.blocks[1].amax), (0.0, 0.0));
}

#[test]
fn a_nan_makes_its_block_nan_and_leaves_the_others() {
    let q = parse("bnb.nf4(blocksize=32)").unwrap();
    let mut x: Vec<f32> = (0..70).map(|i| (i as f32 * 0.37).sin()).collect();
    x[40] = f32::NAN;
    let b = blocks_of(&q, &x);
    assert!(b[1].0.iter().all(|v| v.is_nan()) && b[1].1.scale.is_nan());
    assert!(b[0].0.iter().chain(&b[2].0).all(|v| v.is_finite()));
}

#[test]
fn an_inf_keeps_its_sign_lost_and_turns_its_neighbours_into_nan() {
    // absmax inf: finite elements scale to 0 and come back 0·inf = NaN; ±inf scale to NaN,
    // which bucketize puts on the top value 1, so both come back +inf.
    let q = parse("bnb.fp4").unwrap();
    let (y, _, _) = eval(&q, &[1.0, f32::NEG_INFINITY, f32::INFINITY, 0.0]);
    assert!(y[0].is_nan() && y[3].is_nan());
    assert_eq!((y[1], y[2]), (f32::INFINITY, f32::INFINITY));
}

#[test]
fn fp4_differs_from_ocp_e2m1() {
    // At absmax 6, OCP E2M1's grid {0, 0.5, 1, 1.5, 2, 3, 4, 6} would keep 1.5; bitsandbytes'
    // {0, 1/16, 2, 3, 4, 6, 8, 12}/12 · 6 = {0, 0.03125, 1, 1.5, 2, 3, 4, 6} has no 0.5.
    let q = parse("bnb.fp4").unwrap();
    let (y, _, _) = eval(&q, &[6.0, 0.5, 0.2, 0.01]);
    assert_eq!(y, [6.0, 0.03125, 0.03125, 0.0]);
}

#[test]
fn a_tail_divides_where_a_full_block_multiplies_by_the_reciprocal() {
    // absmax 3: 1/3 rounds in float32, so x·(1/3) and x/3 can fall on either side of a bound.
    let full = BlockCode::new(Table::Nf4, 3.0, true);
    let tail = BlockCode::new(Table::Nf4, 3.0, false);
    // 1.1679376·(1/3) = 0.38931257 lies above NF4's bound 0.38931254, 1.1679376/3 on it.
    let x = 1.1679376f32;
    assert_eq!((full.bucket(x), tail.bucket(x)), (12, 11));
    assert_eq!(full.scaled(x), x * (1.0 / 3.0));
    assert_eq!(tail.scaled(x), x / 3.0);
}

#[test]
fn the_frozen_form_is_the_first_blocks_scale() {
    let q = parse("bnb.nf4(blocksize=32)").unwrap();
    let x: Vec<f32> = (0..32).map(|i| (i as f32 * 0.61).cos() * 2.0).collect();
    let (y, g, report) = eval(&q, &x);
    let Frozen::Fixed(Fixed::Bnb4Bit(op)) = q.freeze(&report) else { panic!("not a fixed form") };
    assert_eq!(op.absmax, report.blocks[0].scale);
    let (fy, fg) = q.freeze(&report).eval(&x, &mut Ctx::training(0));
    assert!(y.iter().zip(&fy).all(|(a, b)| a.to_bits() == b.to_bits()) && g == fg);
    let Frozen::Fixed(Fixed::Bnb4Bit(none)) = q.freeze(&Report::default()) else { panic!("not a fixed form") };
    assert!(none.absmax.is_nan());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn outputs_lie_on_the_table_times_their_blocks_absmax(x in tensor()) {
        for q in configs() {
            let table = if q.info().name == "nf4" { Table::Nf4 } else { Table::Fp4 };
            for (y, block) in blocks_of(&q, &x) {
                let levels = table.levels(block.scale);
                for v in y {
                    prop_assert!(levels.contains_within(v, 0.0), "{}: {:e} at absmax {:e}", q, v, block.scale);
                }
            }
            prop_assert!(eval(&q, &x).1.iter().all(|&g| g == 1.0), "{}: gradient 1", q);
        }
    }

    #[test]
    fn each_blocks_largest_element_comes_back_exactly(x in tensor()) {
        // amax·(1/amax) rounds to 1 or just below it, both in the top bucket (and amax/amax = 1).
        for q in configs() {
            for (y, block) in blocks_of(&q, &x) {
                prop_assume!(block.amax > 1e-30);
                prop_assert_eq!(y.iter().fold(0.0f32, |m, v| m.max(v.abs())), block.amax, "{}", q);
            }
        }
    }

    #[test]
    fn at_a_fixed_absmax_quantizing_twice_changes_nothing(x in tensor()) {
        for q in configs() {
            let (y, _, report) = eval(&q, &x);
            let n = report.blocks[0].len;
            let (yy, _) = q.freeze(&report).eval(&y[..n], &mut Ctx::training(0));
            prop_assert!(y[..n].iter().zip(&yy).all(|(a, b)| a.to_bits() == b.to_bits()), "{}: {:?} → {:?}", q, y, yy);
        }
    }

    #[test]
    fn within_a_block_the_forward_is_monotone(mut x in tensor()) {
        x.sort_by(f32::total_cmp);
        for q in configs() {
            for (y, _) in blocks_of(&q, &x) {
                prop_assert!(y.windows(2).all(|p| p[0] <= p[1]), "{}: {:?}", q, y);
            }
        }
    }
}

#[test]
fn eval_reports_every_blocks_amax_and_absmax() {
    let o = qscope(&["eval", "bnb.nf4(blocksize=32)", "--report"], &"0.5 ".repeat(33));
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("# block 0: 32 elements, amax 0.5, scale 0.5\n# block 1: 1 elements, amax 0.5, scale 0.5"),
        "{err}"
    );
    assert_eq!(stdout(&o).lines().next(), Some("0.5 0.5 1"));
}

#[test]
fn list_shows_the_bitsandbytes_family() {
    let o = qscope(&["list", "bnb"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("\nbitsandbytes\n") && out.contains("  bnb.nf4\n") && out.contains("  bnb.fp4\n"), "{out}");
    assert!(out.contains("blocksize"), "{out}");
}

#[test]
fn the_explanation_walks_from_absmax_to_the_table_value() {
    let q = parse("bnb.nf4").unwrap();
    let (_, _, report) = eval(&q, &[0.3, -1.7, 3.0]);
    let e = qscope_explore::explain::explain(&q, &report, 1.0);
    let text: Vec<String> = e.steps.iter().map(|s| format!("{}: {}", s.what, s.value)).collect();
    let text = text.join("\n");
    for want in ["absmax = max|x| of the block", "tail block: x / max(absmax", "clamp to [−1, 1]", "nf4 value"] {
        assert!(text.contains(want), "no '{want}' in\n{text}");
    }
    // 1/3 lies in the bucket of 0.33791524 (bounds 0.29201376 and 0.38931254).
    assert!(text.contains("0.33791524 · absmax (float32): 0.33791524 · 3 = 1.0137458"), "{text}");
    assert_eq!((e.y, e.dydx), (1.0137458, 1.0));
}
