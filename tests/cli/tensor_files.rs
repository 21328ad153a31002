//! `qscope tensors`, and `--tensor FILE[:NAME]` for `compare` and `eval`: the user's own tensors
//! from files written by the real packages (tests/fixtures/tensors).

use crate::common::cli;

use cli::{qscope, stderr, stdout};

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/tensors/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn tensors_lists_name_dtype_shape_and_elements_after_the_metadata() {
    let o = qscope(&["tensors", &fixture("weights.safetensors")], "");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].ends_with("weights.safetensors: safetensors, 2 tensors"), "{out}");
    assert_eq!(lines[1], "# format: pt");
    assert_eq!(&lines[2..], ["layer.bias\tF32\t[48]\t48", "layer.weight\tBF16\t[64, 48]\t3072"]);
}

#[test]
fn tensors_json_is_one_object_per_tensor() {
    let o = qscope(&["tensors", "--json", &fixture("deflated.npz")], "");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(
        out.lines().next(),
        Some(r#"{"name": "w", "dtype": ">f8", "shape": [2, 3, 4], "elements": 24}"#),
        "{out}"
    );
    assert_eq!(out.lines().count(), 3);
}

#[test]
fn compare_on_a_tensor_names_it_and_runs_each_spec_on_its_values() {
    let t = format!("{}:layer.weight", fixture("weights.safetensors"));
    let o = qscope(&["compare", "--tensor", &t, "ml_dtypes.float8_e4m3fn", "qkeras.quantized_bits(8,0,1)"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.starts_with("# weights.safetensors · layer.weight · [64, 48] · BF16 (3072 elements), seed 0\n"),
        "{out}"
    );
    assert_eq!(out.lines().filter(|l| !l.starts_with('#') && !l.starts_with("bits")).count(), 2, "{out}");
}

#[test]
fn a_file_of_several_tensors_needs_a_name_and_lists_them() {
    let o = qscope(&["compare", "--tensor", &fixture("weights.safetensors")], "");
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("holds 2 tensors: name one as") && e.contains("layer.bias, layer.weight"), "{e}");
    let o = qscope(&["compare", "--tensor", &format!("{}:nope", fixture("weights.safetensors"))], "");
    assert!(stderr(&o).contains("no tensor 'nope'"), "{}", stderr(&o));
}

/// The float32 values expected.txt gives for a fixture's tensor (row-major).
fn expected(file: &str) -> Vec<f32> {
    let text = std::fs::read_to_string(fixture("expected.txt")).unwrap();
    let block = text.split("\nend").find(|b| b.contains(&format!("tensor {file} "))).unwrap();
    let line = block.lines().find(|l| l.starts_with("f32 ")).unwrap();
    line[4..].split_whitespace().map(|h| f32::from_bits(u32::from_str_radix(h, 16).unwrap())).collect()
}

#[test]
fn eval_reads_a_tensor_instead_of_stdin_row_major() {
    let o = qscope(&["eval", "ml_dtypes.float8_e4m3fn", "--tensor", &fixture("v1_lt_f4_f_3x4.npy")], "");
    assert!(o.status.success(), "{}", stderr(&o));
    let x: Vec<f32> = stdout(&o).lines().map(|l| l.split(' ').next().unwrap().parse().unwrap()).collect();
    let want = expected("v1_lt_f4_f_3x4.npy");
    assert_eq!(x.len(), 12);
    assert!(
        x.iter().zip(&want).all(|(a, b)| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())),
        "{x:?} vs {want:?}"
    );
}

#[test]
fn a_pytorch_pickle_is_named_with_the_line_that_converts_it() {
    let dir = std::env::temp_dir().join(format!("qscope-pickle-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("model.pt");
    std::fs::write(&path, b"\x80\x02\x8a\x0alZ\xfc\x9cF\xf9 j\xa8P\x19.").unwrap();
    let o = qscope(&["tensors", path.to_str().unwrap()], "");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("a Python pickle") && e.contains("from safetensors.torch import save_file"), "{e}");
}

fn sqnr_of(out: &str, spec_prefix: &str) -> f64 {
    let line = out.lines().find(|l| l.split('\t').nth(3).is_some_and(|s| s.starts_with(spec_prefix))).unwrap();
    line.split('\t').nth(2).unwrap().parse().unwrap()
}

#[test]
fn the_channel_axis_changes_per_channel_scales_and_group_direction() {
    // weights.safetensors' layer.weight has one outlier column (output channel 5, the last axis).
    let t = format!("{}:layer.weight", fixture("weights.safetensors"));
    let specs = ["qkeras.quantized_bits(4,0,1,alpha='auto')", "torchao.affine(group_size=16)"];
    let last = stdout(&qscope(&["compare", "--tensor", &t, specs[0], specs[1]], ""));
    let axis0 = stdout(&qscope(&["compare", "--tensor", &t, "--axis", "0", specs[0], specs[1]], ""));
    // A scale per output channel isolates the outlier column; per row, every row holds it.
    assert!(
        sqnr_of(&last, "qkeras.quantized_bits") > sqnr_of(&axis0, "qkeras.quantized_bits") + 3.0,
        "{last}\n{axis0}"
    );
    // Groups down the columns keep the outlier column in groups of its own.
    assert!(sqnr_of(&axis0, "torchao.affine") > sqnr_of(&last, "torchao.affine"), "{last}\n{axis0}");
}

#[test]
fn an_axis_the_tensor_lacks_or_without_a_tensor_is_refused() {
    let t = format!("{}:layer.weight", fixture("weights.safetensors"));
    let o = qscope(&["compare", "--tensor", &t, "--axis", "2"], "");
    assert!(stderr(&o).contains("axis 2: the tensor has 2 axes (0 to 1)"), "{}", stderr(&o));
    let o = qscope(&["compare", "--axis", "0"], "");
    assert!(stderr(&o).contains("--axis needs --tensor"), "{}", stderr(&o));
}

#[test]
fn scan_gives_every_tensor_a_row_and_the_whole_file_a_last_one() {
    let o = qscope(&["scan", &fixture("weights.safetensors"), "bnb.nf4", "torchao.float8", "--jobs", "2"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let rows: Vec<Vec<&str>> = out.lines().filter(|l| !l.starts_with('#')).map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows[0], ["name", "shape", "dtype", "elements", "SQNR_dB bnb.nf4", "SQNR_dB torchao.float8"]);
    assert_eq!(rows.iter().map(|r| r[0]).collect::<Vec<_>>(), ["name", "layer.bias", "layer.weight", "all"]);
    // Each tensor's SQNR is `qscope compare --tensor`'s for it.
    let t = format!("{}:layer.weight", fixture("weights.safetensors"));
    let compared = stdout(&qscope(&["compare", "--tensor", &t, "bnb.nf4"], ""));
    assert_eq!(rows[2][4], compared.lines().last().unwrap().split('\t').nth(2).unwrap());
    // The last row pools signal and noise: between the tensors' own figures.
    let (a, b, all): (f64, f64, f64) =
        (rows[1][4].parse().unwrap(), rows[2][4].parse().unwrap(), rows[3][4].parse().unwrap());
    assert!(all >= a.min(b) && all <= a.max(b), "{a} {b} {all}");
    assert_eq!(rows[3][3], "3120");
}

#[test]
fn scan_filters_by_name_and_writes_json_or_csv() {
    let file = fixture("weights.safetensors");
    let o = qscope(&["scan", &file, "bnb.nf4", "--filter", "weight$", "--json"], "");
    let out = stdout(&o);
    assert!(
        out.lines().next().unwrap().starts_with(
            r#"{"name": "layer.weight", "shape": [64, 48], "dtype": "BF16", "elements": 3072, "sqnr_db": {"bnb.nf4": "#
        ),
        "{out}"
    );
    assert_eq!(out.lines().count(), 2, "{out}");
    let o = qscope(&["scan", &fixture("stored.npz"), "torchao.float8", "--csv"], "");
    let out = stdout(&o);
    assert_eq!(out.lines().next(), Some("name,shape,dtype,elements,sqnr_db torchao.float8"));
    assert!(out.contains("weight,\"[3, 4]\",<f4,12,"), "{out}");
    let o = qscope(&["scan", &file, "--filter", "("], "");
    assert!(stderr(&o).contains("--filter ("), "{}", stderr(&o));
}
