//! Conformance against reference vectors generated from the real libraries: every file in
//! `tests/conformance/` (build.rs lists them; each names its generator in its header).
//! QKeras and Larq (`generate.py`): forward values within 1 ulp, gradients equal up to the
//! libraries' transcendental functions (4 ulp or 5e−7), stochastic cases as means within six
//! standard errors; `shaped.py` likewise, on 2-D and 4-D weights (per-channel statistics, QKeras'
//! `scale_axis`), through [`Quantizer::apply_shaped`](qscope_quant::Quantizer::apply_shaped). Files marked `# compare: bits` — ml_dtypes' casts (`formats.py`), torchao's
//! scaled FP8, group-wise integers, MX and NVFP4 (`torchao_formats.py`, `torchao_affine.py`,
//! `torchao_mx.py`) and bitsandbytes' 4-bit formats (`bnb_formats.py`) — bit for bit, and the same
//! on 2-D and 3-D weights (`shaped_torch.py`: groups and blocks along the last dimension, NVFP4's and
//! FP8's per-tensor scale over the whole weight, bitsandbytes' blocks over the flattened one). The
//! torch-style quantizers (`softround`, `lsq`, `pact`…) are held to their PyTorch snippets run
//! in torch (`tests/snippets/`, the explorer's snippet tests).

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use crate::common::vectors::{self, Case, bit_exact, check_case, files::FILES, parse_cases, same_bits};
use qscope_quant::{Ctx, ENTRIES, parse};

/// Quantizers with no reference vectors, and why.
const NO_VECTORS: &[(&str, &str)] = &[];

fn within_tolerance(c: &Case) -> Vec<String> {
    match parse(&c.spec) {
        Ok(q) if c.stochastic => vectors::check_stochastic(&q, c),
        Ok(q) => check_case(&q, c),
        Err(e) => vec![format!("line {}: {}: does not parse: {e}", c.line, c.spec)],
    }
}

/// Every value bit for bit (−0 is not +0; any NaN matches a NaN), gradients exactly.
fn to_the_bit(c: &Case) -> Vec<String> {
    let q = match parse(&c.spec) {
        Ok(q) => q,
        Err(e) => return vec![format!("line {}: {}: does not parse: {e}", c.line, c.spec)],
    };
    let (y, g) = vectors::eval_case(&q, c, &mut Ctx::training(1));
    let wrong = (0..c.x.len()).filter(|&i| !same_bits(y[i], c.y[i]) || !same_bits(g[i], c.dydx[i]));
    wrong
        .take(5)
        .map(|i| {
            format!("line {}: {}: x={:e} y={:e} dydx={} expected {:e}", c.line, c.spec, c.x[i], y[i], g[i], c.y[i])
        })
        .collect()
}

/// What differs from the library in one file.
fn differences(name: &str, text: &str) -> Vec<String> {
    let cases = parse_cases(text);
    let exact = bit_exact(text);
    let mut errs = Vec::new();
    let mut failed = 0;
    // A true 1-D tensor (`shape N`): some QKeras and Larq statistics then reduce over no axis (a
    // scale per element); qscope gives a 1-D tensor as one channel, `(N, 1)` — the README's
    // "deliberately differs" table.
    for c in cases.iter().filter(|c| c.shape.len() != 1) {
        assert_eq!(c.x.len(), c.y.len(), "{name}.txt line {}: x and y lengths", c.line);
        assert_eq!(c.x.len(), c.dydx.len(), "{name}.txt line {}: x and dydx lengths", c.line);
        let e = if exact { to_the_bit(c) } else { within_tolerance(c) };
        failed += usize::from(!e.is_empty());
        errs.extend(e.into_iter().take(5));
    }
    if failed > 0 {
        errs.insert(0, format!("{name}.txt: {failed} of {} cases differ from the library:", cases.len()));
    }
    errs
}

/// The cases of `tests/conformance/{name}.txt` as its library computes them.
fn assert_file_matches(name: &str) {
    let (_, text) = FILES.iter().find(|(n, _)| *n == name).expect("build.rs lists the file");
    let errs = differences(name, text);
    assert!(errs.is_empty(), "{}", errs.join("\n"));
}

// `qkeras_matches_its_library`, `bnb_matches_its_library`…: one test per file (build.rs).
include!(concat!(env!("OUT_DIR"), "/conformance_tests.rs"));

#[test]
fn the_conformance_folder_holds_every_library_s_vectors() {
    let names: Vec<&str> = FILES.iter().map(|(n, _)| *n).collect();
    for family in ["qkeras", "larq", "ml_dtypes", "torchao", "bnb"] {
        assert!(names.contains(&family), "build.rs found no {family}.txt in {names:?}");
    }
}

#[test]
fn qkeras_and_larq_are_compared_within_tolerance_and_the_others_to_the_bit() {
    for (name, text) in FILES {
        assert_eq!(bit_exact(text), !matches!(*name, "qkeras" | "larq" | "shaped"), "{name}.txt's `# compare:` header");
    }
}

/// The texts of the snippet runs' vectors (`tests/snippets/*.txt`: each snippet run in the real
/// framework, and qscope held to its output by the explorer's snippet tests).
fn snippet_vectors() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snippets");
    let mut texts = Vec::new();
    for entry in fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "txt") {
            texts.push(fs::read_to_string(&path).unwrap());
        }
    }
    texts
}

#[test]
fn every_catalogue_entry_has_reference_vectors_or_a_reason() {
    let snippets = snippet_vectors();
    let texts = FILES.iter().map(|(_, text)| *text).chain(snippets.iter().map(String::as_str));
    let covered: BTreeSet<&str> =
        texts.flat_map(parse_cases).filter_map(|c| parse(&c.spec).ok().map(|q| q.info().name)).collect();
    let excused: BTreeSet<&str> = NO_VECTORS.iter().map(|(name, _)| *name).collect();
    let missing: Vec<&str> =
        ENTRIES.iter().map(|e| e.info.name).filter(|n| !covered.contains(n) && !excused.contains(n)).collect();
    assert!(
        missing.is_empty(),
        "no reference vectors (add cases to a generator, or a reason to NO_VECTORS): {missing:?}"
    );
    let stale: Vec<&str> = excused.iter().copied().filter(|n| covered.contains(n)).collect();
    assert!(stale.is_empty(), "NO_VECTORS names quantizers that have vectors: {stale:?}");
}
