//! Conformance against reference vectors generated from the real QKeras and Larq
//! (`tests/conformance/generate.py`). Deterministic cases: forward values within 1 ulp,
//! gradients equal up to the libraries' transcendental functions (4 ulp or 5e−7).
//! Stochastic cases: means within six standard errors. ml_dtypes' casts
//! (`tests/conformance/formats.py`), torchao's scaled FP8 (`torchao_formats.py`), its MX and
//! NVFP4 block formats (`torchao_mx.py`) and bitsandbytes' 4-bit formats (`bnb_formats.py`): bit
//! for bit.

mod common;

use std::fs;
use std::path::Path;

use common::vectors::{self, Case, check_case, parse_cases, same_bits};
use qscope::quant::{Ctx, parse};

fn load(file: &str) -> Vec<Case> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance").join(file);
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    parse_cases(&text)
}

fn check_exact(c: &Case) -> Vec<String> {
    match parse(&c.spec) {
        Ok(q) => check_case(&q, c),
        Err(e) => vec![format!("line {}: {}: does not parse: {e}", c.line, c.spec)],
    }
}

fn check_stochastic(c: &Case) -> Vec<String> {
    match parse(&c.spec) {
        Ok(q) => vectors::check_stochastic(&q, c),
        Err(e) => vec![format!("line {}: {}: does not parse: {e}", c.line, c.spec)],
    }
}

fn check_file(file: &str) {
    let cases = load(file);
    let mut errs = Vec::new();
    let mut failed_cases = 0;
    for c in &cases {
        assert_eq!(c.x.len(), c.y.len(), "line {}: x and y lengths", c.line);
        assert_eq!(c.x.len(), c.dydx.len(), "line {}: x and dydx lengths", c.line);
        let e = if c.stochastic { check_stochastic(c) } else { check_exact(c) };
        if !e.is_empty() {
            failed_cases += 1;
        }
        errs.extend(e.into_iter().take(5));
    }
    assert!(
        errs.is_empty(),
        "{file}: {failed_cases} of {} cases differ from the library:\n{}",
        cases.len(),
        errs.join("\n")
    );
}

#[test]
fn qkeras_reference_vectors_match() {
    check_file("qkeras.txt");
}

#[test]
fn larq_reference_vectors_match() {
    check_file("larq.txt");
}

/// Every case of `file` bit for bit (−0 is not +0; any NaN matches a NaN), gradients exactly;
/// `cases` is how many the file holds.
fn check_bits(file: &str, cases: usize) {
    let cases_in = load(file);
    assert_eq!(cases_in.len(), cases, "{file}: number of cases");
    let mut errs = Vec::new();
    for c in &cases_in {
        let q = parse(&c.spec).unwrap_or_else(|e| panic!("{}: {e}", c.spec));
        let (y, g, _) = q.eval(&c.x, &mut Ctx::training(1));
        let wrong = (0..c.x.len()).filter(|&i| !same_bits(y[i], c.y[i]) || !same_bits(g[i], c.dydx[i]));
        errs.extend(wrong.take(5).map(|i| {
            format!("line {}: {}: x={:e} y={:e} dydx={} expected {:e}", c.line, c.spec, c.x[i], y[i], g[i], c.y[i])
        }));
    }
    assert!(errs.is_empty(), "{}", errs.join("\n"));
}

/// ml_dtypes' element casts, one case per dtype, and the straight-through gradient 1.
#[test]
fn ml_dtypes_casts_match_bit_for_bit() {
    check_bits("ml_dtypes.txt", 10);
}

/// torchao's tensorwise scaled FP8 (both dtypes, both scale roundings, 16 edge-case tensors
/// each), and the gradient torch's autograd gives through it (1).
#[test]
fn torchao_float8_matches_bit_for_bit() {
    check_bits("torchao.txt", 64);
}

/// torchao's group-wise integers: `affine` (3 mappings × 6 ranges and group sizes) and
/// `intx_fake_quantize` (int2…int8, symmetric and the affine asymmetric scheme), 5 tensors
/// each (tails, random magnitudes, a tensor of edge-case groups), with torch 2.15's gradient.
#[test]
fn torchao_group_integers_match_bit_for_bit() {
    check_bits("torchao_affine.txt", 145);
}

/// torchao's MX block formats (every element type and scaling mode, 12 edge-case tensors each,
/// and blocks of 16 and 1) and NVFP4 (one level, 'auto' and two given per-tensor scales, 12
/// tensors each) on the zero-padded tensor, and qscope's gradient 1.
#[test]
fn torchao_mx_and_nvfp4_match_bit_for_bit() {
    check_bits("torchao_mx.txt", 290);
}

/// bitsandbytes' NF4 and FP4 (28 edge-case tensors each: the whole code look-up with every
/// tie, zeros, outliers, NaN, ±inf, tails, subnormals, several block sizes), gradient 1.
#[test]
fn bnb_4bit_matches_bit_for_bit() {
    check_bits("bnb.txt", 56);
}
