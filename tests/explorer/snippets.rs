//! "Copy as code", checked by running: `tests/snippets/generate.py` ran every snippet qscope
//! offers, unchanged, in the real frameworks (PyTorch 2.15 and 2.10, TensorFlow 2.15 with
//! QKeras and Larq) and committed what each computed beside it, with a hash of the snippet's
//! text. These tests need no framework: each committed text is still the one qscope offers,
//! every offered snippet has committed outputs for every framework version, each ran, and
//! qscope agrees with each output as [`agreement`] promises.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use crate::common::vectors::{Case, check_stochastic, parse_cases, same_bits, ulps};
use qscope_explore::code::{Agreement, Framework, NEAR_ZERO, agreement, snippet, snippet_in};
use qscope_quant::{Ctx, ENTRIES, Quantizer, parse, spec};

const REGENERATE: &str = "re-run tests/snippets/generate.py (its docstring has the command)";

/// A snippet's name for a learnable parameter → qscope's: the LSQ paper calls the step `s`.
const PARAMETER_NAMES: [(&str, &str); 1] = [("s", "step")];

/// Every committed case, its parameter gradients under qscope's names.
fn cases() -> Vec<Case> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snippets");
    let mut files: Vec<_> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|f| f.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    let mut cases = Vec::new();
    for path in files {
        let text = fs::read_to_string(&path).unwrap();
        for mut c in parse_cases(&text) {
            for (name, _) in &mut c.grads {
                if let Some((_, ours)) = PARAMETER_NAMES.iter().find(|(theirs, _)| theirs == name) {
                    *name = ours.to_string();
                }
            }
            cases.push(c);
        }
    }
    cases
}

/// The case's quantizer and framework.
fn subject(c: &Case) -> (Quantizer, Framework) {
    let q = parse(&c.spec).unwrap_or_else(|e| panic!("line {}: {} does not parse: {e}", c.line, c.spec));
    let f = Framework::parse(&c.lang).unwrap_or_else(|| panic!("line {}: unknown lang '{}'", c.line, c.lang));
    (q, f)
}

/// `line 12: SPEC (pytorch, torch 2.15.0)`: where a message is about.
fn label(c: &Case) -> String {
    format!("line {}: {} ({}, {})", c.line, c.spec, c.lang, c.version)
}

/// FNV-1a 64 of the text's UTF-8 bytes, as the generator writes it.
fn fnv1a64(text: &str) -> String {
    let h = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    format!("fnv1a64:{h:016x}")
}

/// Whether the committed outputs are of the snippet qscope offers today.
fn current(c: &Case) -> bool {
    let (q, f) = subject(c);
    snippet_in(&q, f).is_ok_and(|text| fnv1a64(&text) == c.hash)
}

/// Fails with the first few messages, and how many there are.
fn assert_none(what: &str, errs: Vec<String>) {
    let shown: Vec<&str> = errs.iter().take(40).map(String::as_str).collect();
    assert!(errs.is_empty(), "{} {what}:\n{}", errs.len(), shown.join("\n"));
}

#[test]
fn the_hash_is_fnv1a_64_as_the_generator_computes_it() {
    assert_eq!(fnv1a64(""), "fnv1a64:cbf29ce484222325");
    assert_eq!(fnv1a64("a"), "fnv1a64:af63dc4c8601ec8c");
    assert_eq!(fnv1a64("foobar"), "fnv1a64:85944171f73967e8");
}

#[test]
fn every_committed_snippet_text_is_the_one_qscope_offers_today() {
    let mut errs = Vec::new();
    for c in cases() {
        let (q, f) = subject(&c);
        match snippet_in(&q, f) {
            Err(e) => errs.push(format!("{}: qscope no longer offers it ({e}): {REGENERATE}", label(&c))),
            Ok(text) if fnv1a64(&text) != c.hash => {
                errs.push(format!("{}: snippet text changed: {REGENERATE}", label(&c)))
            }
            Ok(_) => {}
        }
    }
    assert_none("committed outputs are of another snippet text", errs);
}

#[test]
fn every_offered_snippet_has_committed_outputs_for_every_framework_version() {
    let cases = cases();
    let mut versions: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let mut have = BTreeSet::new();
    for c in &cases {
        versions.entry(&c.lang).or_default().insert(&c.version);
        have.insert((spec::print(&subject(c).0), c.lang.as_str(), c.version.as_str()));
    }
    // Each catalogue entry at its defaults, and every configuration the generator ran.
    let defaults = ENTRIES.iter().map(|e| (e.default)());
    let specs: BTreeSet<String> = defaults.chain(cases.iter().map(|c| subject(c).0)).map(|q| spec::print(&q)).collect();
    let mut errs = Vec::new();
    for s in &specs {
        let offered = snippet(&parse(s).unwrap()).into_iter().map(|(f, _)| f).filter(|f| *f != Framework::Cli);
        for f in offered {
            let Some(vs) = versions.get(f.key()) else {
                errs.push(format!("{s}: no committed outputs in {} at all: {REGENERATE}", f.key()));
                continue;
            };
            for v in vs.iter().filter(|v| !have.contains(&(s.clone(), f.key(), **v))) {
                errs.push(format!("{s} ({}, {v}): offered but never run: {REGENERATE}", f.key()));
            }
        }
    }
    assert_none("offered snippets have no committed outputs", errs);
}

#[test]
fn every_snippet_ran_in_its_framework() {
    let errs = cases()
        .into_iter()
        .filter(|c| !c.error.is_empty())
        .map(|c| format!("{} raised: {}", label(&c), c.error))
        .collect();
    assert_none("snippets raised in their framework", errs);
}

#[test]
fn qscope_agrees_with_every_snippets_output_as_promised() {
    let mut errs = Vec::new();
    let mut failed = BTreeSet::new();
    let all = cases();
    let checked: Vec<&Case> = all.iter().filter(|c| c.error.is_empty() && current(c)).collect();
    for c in &checked {
        let (q, f) = subject(c);
        let e = match agreement(&q, f) {
            None => vec![format!("{}: offered without an agreement", label(c))],
            Some(Agreement::Distribution { .. }) => {
                check_stochastic(&q, c).into_iter().map(|e| format!("{e} [{}, {}]", c.lang, c.version)).collect()
            }
            Some(_) if c.stochastic => vec![format!("{}: draws differ run to run, but bits are promised", label(c))],
            Some(Agreement::Exact) => check_bits(&q, c, 0, false),
            Some(Agreement::Ulps { ulps, .. }) => check_bits(&q, c, ulps, false),
            Some(Agreement::Level { .. }) => check_bits(&q, c, 0, true),
        };
        if !e.is_empty() {
            failed.insert(format!("{} ({}, {})", c.spec, c.lang, c.version));
        }
        errs.extend(e.into_iter().take(3));
    }
    let what = format!("disagreements in {} of {} snippet runs ({failed:#?})", failed.len(), checked.len());
    assert_none(&what, errs);
}

/// Values, input gradients and parameter gradients within `n` ulps (0: the same bits); with
/// `tie`, a value may instead be the level next to qscope's. One message per disagreement.
fn check_bits(q: &Quantizer, c: &Case, n: u32, tie: bool) -> Vec<String> {
    let mut ctx = if c.training { Ctx::training(1) } else { Ctx::inference(1) };
    let (y, g, report) = q.eval(&c.x, &mut ctx);
    let levels = q.levels(&report).list(1 << 16).unwrap_or_default();
    let neighbours = |a: f32, b: f32| {
        let at = |v: f32| levels.iter().position(|&l| l == v);
        tie && matches!((at(a), at(b)), (Some(i), Some(j)) if i.abs_diff(j) == 1)
    };
    // ±0 count as equal: the STE idiom x + (q − x) turns q = −0 into +0.
    let close = |a: f32, b: f32| {
        if n == 0 { same_bits(a, b) || a == b } else { ulps(a, b) <= u64::from(n) || (a - b).abs() <= NEAR_ZERO }
    };
    let mut errs = Vec::new();
    let differ = |what: String, ours: f32, theirs: f32| {
        (!close(ours, theirs)).then(|| format!("{}: {what} {ours} (qscope) vs {theirs} (snippet)", label(c)))
    };
    for i in 0..c.x.len() {
        if !neighbours(y[i], c.y[i]) {
            errs.extend(differ(format!("x={}: y", c.x[i]), y[i], c.y[i]));
        }
        errs.extend(differ(format!("x={}: dydx", c.x[i]), g[i], c.dydx[i]));
    }
    for (name, theirs) in &c.grads {
        match report.param_grads.iter().find(|(p, _)| p == name) {
            Some((_, ours)) if theirs.len() == 1 => errs.extend(differ(format!("d(sum y)/d{name}"), *ours, theirs[0])),
            _ => errs.push(format!("{}: the snippet learns {name}, qscope does not", label(c))),
        }
    }
    for (name, _) in report.param_grads.iter().filter(|(p, _)| !c.grads.iter().any(|(n, _)| n == p)) {
        errs.push(format!("{}: qscope learns {name}, the snippet does not", label(c)));
    }
    errs
}
