//! Kernel tests inside WebAssembly (Node, and headless Chromium with
//! `WASM_BINDGEN_USE_BROWSER=1`): the SIMD path is compiled in, it computes the same bits
//! as the scalar path, and the reference vectors hold in the browser too.
#![cfg(target_arch = "wasm32")]

#[allow(dead_code)]
mod common;

use common::vectors::{Case, check_case, files::FILES, parse_cases, same_bits};
use qscope_quant::simd::{self, force_scalar};
use qscope_quant::{Ctx, ENTRIES, Quantizer, parse};
use wasm_bindgen_test::wasm_bindgen_test;

/// Every deterministic case of every conformance file (build.rs finds them).
fn deterministic_cases() -> Vec<Case> {
    // A true 1-D tensor of shaped.txt is a deliberate difference (tests/quantizers/conformance.rs).
    FILES.iter().flat_map(|(_, text)| parse_cases(text)).filter(|c| !c.stochastic && c.shape.len() != 1).collect()
}

/// (y, dydx) on the SIMD path and on the scalar path.
fn both_paths(q: &Quantizer, x: &[f32], training: bool) -> [(Vec<f32>, Vec<f32>); 2] {
    let run = |scalar: bool| {
        force_scalar(scalar);
        let mut ctx = if training { Ctx::training(1) } else { Ctx::inference(1) };
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
    // Stochastic ones too: with the same seed each element gets the same draws on both paths.
    for e in ENTRIES {
        let q = (e.default)();
        for training in [false, true] {
            assert_same(&q, &x, training);
        }
    }
}

#[wasm_bindgen_test]
fn the_random_stream_gives_the_native_numbers_on_both_paths() {
    use qscope_quant::random::{Stream, unit};
    // The first numbers of seed 0, as crates/quant/src/random.rs pins them natively.
    let pinned = [1179900579u32, 3397927179, 196233325, 2213036243, 1938959192, 945494525, 539297106, 1043665402];
    let mut s = Stream::new(0);
    assert_eq!(pinned.map(|_| s.next_u32()), pinned);
    let fill = |scalar: bool| {
        force_scalar(scalar);
        let mut u = vec![0.0f32; 1027];
        Stream::new(0).fill_uniform(&mut u);
        force_scalar(false);
        u
    };
    let (simd, scalar) = (fill(false), fill(true));
    assert_eq!(simd[..8], pinned.map(unit));
    assert!(simd.iter().zip(&scalar).all(|(a, b)| same_bits(*a, *b)), "f32x4 and scalar draws differ");
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
    use qscope_nn::linalg::{Activation, affine, column_sums, matmul, matmul_at_b, transpose};
    let values = |len: usize, seed: usize| -> Vec<f32> {
        let mut v: Vec<f32> = (0..len).map(|i| (((i + seed) * 37 % 101) as f32 - 50.0) / 17.0).collect();
        // Signed zeros and a few large values, so sums cancel and round.
        for (i, x) in v.iter_mut().enumerate().filter(|(i, _)| i % 11 == 3) {
            *x = if i % 2 == 0 { -0.0 } else { 3.0e7 };
        }
        v
    };
    // Shapes that take every tile: 4, 2 and 1 rows; 8, 4 and 1 columns; and the tails.
    for (m, k, n) in [(5, 9, 13), (10, 8, 8), (10, 2, 8), (10, 8, 1), (3, 64, 29), (7, 1, 3), (1, 5, 17)] {
        let (a, b, bias) = (values(m * k, 1), values(k * n, 2), values(n, 3));
        let run = |scalar: bool| {
            force_scalar(scalar);
            let mut c = vec![0.0f32; m * n];
            matmul(&a, &b, &mut c, m, k, n);
            let mut outs = vec![c.clone()];
            affine(&a, &b, &bias, &mut c, m, k, n);
            outs.push(c.clone());
            // aᵀ·b with a read as k×m rows (the weight gradient's shape), and column sums.
            let mut g = vec![0.0f32; m * n];
            matmul_at_b(&values(k * m, 4), &b, &mut g, k, m, n);
            outs.push(g);
            let mut sums = vec![0.0f32; n];
            column_sums(&b, &mut sums, k, n);
            outs.push(sums);
            let mut t = vec![0.0f32; k * n];
            transpose(&b, &mut t, k, n);
            outs.push(t);
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
            assert!(s.iter().zip(c).all(|(a, b)| same_bits(*a, *b)), "{m}×{k}×{n}: {s:?} vs {c:?}");
        }
    }
}

#[wasm_bindgen_test]
fn training_steps_are_identical_on_both_paths() {
    // The benchmark networks, float and 4-bit, and odd widths (every tile and tail): the
    // same weights and losses, bit for bit, whether the dense loops run on f32x4 or scalar.
    for (arch, quantized) in
        [(&[2, 8, 8, 1][..], false), (&[2, 8, 8, 1], true), (&[3, 5, 17, 1], true), (&[2, 12, 1], false)]
    {
        let run = |scalar: bool| {
            force_scalar(scalar);
            let mut t = qscope_bench::train::trainer(arch, 10, quantized).unwrap();
            t.steps(60).unwrap();
            force_scalar(false);
            let weights: Vec<f32> =
                t.layers().iter().flat_map(|l| l.weights().iter().chain(l.bias()).copied()).collect();
            (weights, t.last_loss().to_bits(), t.history().to_vec())
        };
        let (simd, scalar) = (run(false), run(true));
        assert!(simd.0.iter().zip(&scalar.0).all(|(a, b)| same_bits(*a, *b)), "{arch:?} q={quantized}: weights differ");
        assert_eq!(simd.1, scalar.1, "{arch:?} q={quantized}: last loss");
        assert_eq!(simd.2, scalar.2, "{arch:?} q={quantized}: epoch metrics");
    }
}
