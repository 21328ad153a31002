//! Conformance against reference vectors generated from the real QKeras and Larq
//! (`tests/conformance/generate.py`). Deterministic cases: forward values within 1 ulp,
//! gradients equal up to the libraries' transcendental functions (4 ulp or 5e−7).
//! Stochastic cases: means within six standard errors.

mod common;

use std::fs;
use std::path::Path;

use common::vectors::{Case, check_case, parse_cases};
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
    let q = match parse(&c.spec) {
        Ok(q) => q,
        Err(e) => return vec![format!("line {}: {}: does not parse: {e}", c.line, c.spec)],
    };
    let mut ctx = if c.training { Ctx::training(7) } else { Ctx::inference(7) };
    let n = c.x.len();
    let m = c.samples.max(1000);
    let (mut sy, mut syy, mut sg, mut sgg) = (vec![0.0f64; n], vec![0.0f64; n], vec![0.0f64; n], vec![0.0f64; n]);
    for _ in 0..m {
        let (y, g, _) = q.eval(&c.x, &mut ctx);
        for i in 0..n {
            sy[i] += y[i] as f64;
            syy[i] += (y[i] as f64).powi(2);
            sg[i] += g[i] as f64;
            sgg[i] += (g[i] as f64).powi(2);
        }
    }
    let mut errs = Vec::new();
    let s = c.samples as f64;
    for i in 0..n {
        let (my, mg) = (sy[i] / m as f64, sg[i] / m as f64);
        let var_y = (syy[i] / m as f64 - my * my).max(0.0);
        let var_g = (sgg[i] / m as f64 - mg * mg).max(0.0);
        let lib_var = c.yvar.get(i).copied().unwrap_or(0.0) as f64;
        let tol_y = 6.0 * (lib_var / s + var_y / m as f64).sqrt() + 1e-5 * (1.0 + my.abs());
        let tol_g = 6.0 * (2.0 * var_g / m as f64).sqrt() + 1e-5 * (1.0 + mg.abs());
        if (my - c.y[i] as f64).abs() > tol_y {
            errs.push(format!("line {}: {}: x={} mean y={my} expected {} (±{tol_y})", c.line, c.spec, c.x[i], c.y[i]));
        }
        if (mg - c.dydx[i] as f64).abs() > tol_g {
            errs.push(format!("line {}: {}: x={} mean dydx={mg} expected {}", c.line, c.spec, c.x[i], c.dydx[i]));
        }
    }
    errs
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
