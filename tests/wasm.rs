//! Kernel tests inside WebAssembly (Node, and headless Chromium with
//! `WASM_BINDGEN_USE_BROWSER=1`): the SIMD path is compiled in, it computes the same bits
//! as the scalar path, and the reference vectors hold in the browser too.
#![cfg(target_arch = "wasm32")]

mod common;

use common::vectors::{Case, check_case, parse_cases, same_bits};
use qscope::quant::simd::{self, force_scalar};
use qscope::quant::{Ctx, ENTRIES, Quantizer, parse};
use wasm_bindgen_test::wasm_bindgen_test;

const QKERAS: &str = include_str!("conformance/qkeras.txt");
const LARQ: &str = include_str!("conformance/larq.txt");

fn deterministic_cases() -> Vec<Case> {
    parse_cases(QKERAS).into_iter().chain(parse_cases(LARQ)).filter(|c| !c.stochastic).collect()
}

/// (y, dydx) on the SIMD path and on the scalar path.
fn both_paths(q: &Quantizer, x: &[f32], training: bool) -> [(Vec<f32>, Vec<f32>); 2] {
    let run = |scalar: bool| {
        force_scalar(scalar);
        let mut ctx = if training { Ctx::new(1) } else { Ctx::inference(1) };
        let (y, g, _) = q.eval(x, &mut ctx);
        force_scalar(false);
        (y, g)
    };
    [run(false), run(true)]
}

fn assert_same(q: &Quantizer, x: &[f32], training: bool) -> usize {
    let [(ys, gs), (yc, gc)] = both_paths(q, x, training);
    for i in 0..x.len() {
        assert!(same_bits(ys[i], yc[i]), "{q}: x={} simd y={} scalar y={}", x[i], ys[i], yc[i]);
        assert!(same_bits(gs[i], gc[i]), "{q}: x={} simd dydx={} scalar dydx={}", x[i], gs[i], gc[i]);
    }
    x.len()
}

#[wasm_bindgen_test]
fn simd_path_is_compiled_in() {
    assert!(simd::enabled(), "this wasm build lacks simd128 (or it is forced off)");
}

#[wasm_bindgen_test]
fn simd_equals_scalar_on_the_conformance_inputs() {
    let mut checked = 0;
    for c in deterministic_cases() {
        let q = parse(&c.spec).unwrap_or_else(|e| panic!("{}: {e}", c.spec));
        if !q.is_stochastic(c.training) {
            checked += assert_same(&q, &c.x, c.training);
        }
    }
    assert!(checked > 1000, "only {checked} values compared");
}

#[wasm_bindgen_test]
fn simd_equals_scalar_for_every_quantizer_including_the_tail() {
    // Dense grid with ties at every step of 1/64, specials, and a length that is not a
    // multiple of four.
    let mut x: Vec<f32> = (-600..=600).map(|k| k as f32 / 128.0).collect();
    x.extend([
        0.0,
        -0.0,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1e-9,
        -1e-9,
        3e6,
        -3e6,
        std::f32::consts::FRAC_1_SQRT_2,
        std::f32::consts::SQRT_2,
        0.5,
    ]);
    assert_ne!(x.len() % 4, 0);
    for e in ENTRIES {
        let q = (e.default)();
        for training in [false, true] {
            if !q.is_stochastic(training) {
                assert_same(&q, &x, training);
            }
        }
    }
}

#[wasm_bindgen_test]
fn reference_vectors_hold_in_webassembly() {
    let mut errs = Vec::new();
    for c in deterministic_cases() {
        let q = parse(&c.spec).unwrap_or_else(|e| panic!("{}: {e}", c.spec));
        errs.extend(check_case(&q, &c));
    }
    assert!(
        errs.is_empty(),
        "{} mismatches:\n{}",
        errs.len(),
        errs.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
    );
}

#[wasm_bindgen_test]
fn dense_layer_loops_are_identical_on_both_paths() {
    use qscope::nn::linalg::{Activation, matmul};
    let (m, k, n) = (5, 9, 13); // n not a multiple of four: the tail runs too
    let a: Vec<f32> = (0..m * k).map(|i| ((i * 37 % 101) as f32 - 50.0) / 17.0).collect();
    let b: Vec<f32> = (0..k * n).map(|i| ((i * 53 % 97) as f32 - 48.0) / 13.0).collect();
    let run = |scalar: bool| {
        force_scalar(scalar);
        let mut c = vec![0.0f32; m * n];
        matmul(&a, &b, &mut c, m, k, n);
        let mut outs = vec![c.clone()];
        for act in [Activation::Relu, Activation::Tanh, Activation::Sigmoid] {
            let (mut y, mut d) = (vec![0.0; c.len()], vec![0.0; c.len()]);
            act.apply(&c, &mut y, Some(&mut d));
            outs.push(y);
            outs.push(d);
        }
        force_scalar(false);
        outs
    };
    let (simd, scalar) = (run(false), run(true));
    for (s, c) in simd.iter().zip(&scalar) {
        assert!(s.iter().zip(c).all(|(a, b)| same_bits(*a, *b)), "{s:?} vs {c:?}");
    }
}
