//! The conformance files as the tests see them: every `tests/conformance/*.txt`, found here, so
//! a new file is tested natively and in wasm without a list written by hand
//! (`$OUT_DIR/conformance.rs`, included by `tests/common/vectors.rs`, and one test per file in
//! `$OUT_DIR/conformance_tests.rs`, included by `tests/quantizers/conformance.rs`).

use std::path::Path;
use std::{env, fs};

fn main() {
    let root = env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let dir = Path::new(&root).join("tests/conformance");
    println!("cargo::rerun-if-changed=tests/conformance");
    let mut files: Vec<_> = fs::read_dir(&dir)
        .map(|entries| entries.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "txt"));
    files.sort();
    let mut out = String::from(
        "/// Every conformance file: its name (without `.txt`) and its text.\npub const FILES: &[(&str, &str)] = &[\n",
    );
    for p in &files {
        let stem = p.file_stem().and_then(|s| s.to_str()).expect("a UTF-8 file name");
        out += &format!("    ({stem:?}, include_str!({:?})),\n", p.display().to_string());
    }
    out += "];\n";
    // One test per file, named for it (`bnb_matches_its_library`), for tests/quantizers/conformance.rs.
    let mut tests = String::new();
    for p in &files {
        let stem = p.file_stem().and_then(|s| s.to_str()).expect("a UTF-8 file name");
        let name: String =
            stem.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect();
        tests += &format!("#[test]\nfn {name}_matches_its_library() {{\n    assert_file_matches({stem:?});\n}}\n\n");
    }
    let out_dir = env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    fs::write(Path::new(&out_dir).join("conformance.rs"), out).expect("writing conformance.rs");
    fs::write(Path::new(&out_dir).join("conformance_tests.rs"), tests).expect("writing conformance_tests.rs");
}
