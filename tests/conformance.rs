//! Conformance against reference vectors generated from the real QKeras and Larq
//! (`tests/conformance/generate.py`). Deterministic cases: forward values within 1 ulp,
//! gradients equal up to the libraries' transcendental functions (4 ulp or 5e−7).
//! Stochastic cases: means within six standard errors.

mod common;

use std::fs;
use std::path::Path;

use common::vectors::{self, Case, check_case, parse_cases};
use qscope::quant::parse;

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
