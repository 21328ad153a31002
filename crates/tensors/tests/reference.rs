//! The readers against files written by the real `safetensors` and `numpy` packages
//! (tests/fixtures/tensors, made by tests/conformance/tensors.py): every tensor lists with the
//! dtype, shape and order the file stores, and reads to the float32 values torch's `.float()`
//! gives — bit for bit, NaN by class and sign.

use std::collections::HashMap;
use std::fs;
use std::path::PathBuf;

use proptest::prelude::*;
use qscope_tensors::{Format, Listing, block_on, list, read, read_pieces};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/tensors")
}

struct Expected {
    file: String,
    name: String,
    dtype: String,
    shape: Vec<usize>,
    fortran: bool,
    bits: Vec<u32>,
}

fn expected() -> Vec<Expected> {
    let text = fs::read_to_string(fixtures().join("expected.txt")).expect("expected.txt");
    let mut out = Vec::new();
    let mut cur: Option<Expected> = None;
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
        match key {
            "tensor" => {
                let (file, name) = rest.split_once(' ').expect("tensor FILE NAME");
                cur = Some(Expected {
                    file: file.into(),
                    name: name.into(),
                    dtype: String::new(),
                    shape: Vec::new(),
                    fortran: false,
                    bits: Vec::new(),
                });
            }
            "dtype" => cur.as_mut().unwrap().dtype = rest.into(),
            "shape" => cur.as_mut().unwrap().shape = rest.split_whitespace().map(|d| d.parse().unwrap()).collect(),
            "order" => cur.as_mut().unwrap().fortran = rest == "F",
            "f32" => {
                cur.as_mut().unwrap().bits =
                    rest.split_whitespace().map(|h| u32::from_str_radix(h, 16).unwrap()).collect()
            }
            "end" => out.push(cur.take().expect("end after tensor")),
            other => panic!("expected.txt: unknown line {other}"),
        }
    }
    out
}

fn open(file: &str) -> (Vec<u8>, Listing) {
    let bytes = fs::read(fixtures().join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    let listing = block_on(list(&bytes[..])).unwrap_or_else(|e| panic!("{file}: {e}"));
    (bytes, listing)
}

fn same(a: u32, b: u32) -> bool {
    let nan = |x: u32| f32::from_bits(x).is_nan();
    if nan(a) || nan(b) { nan(a) && nan(b) && (a >> 31 == b >> 31) } else { a == b }
}

#[test]
fn every_fixture_tensor_reads_to_the_packages_float32_bits() {
    let cases = expected();
    assert!(cases.len() >= 60, "{} cases", cases.len());
    let mut files: HashMap<String, (Vec<u8>, Listing)> = HashMap::new();
    for e in &cases {
        let (bytes, listing) = files.entry(e.file.clone()).or_insert_with(|| open(&e.file));
        let info = listing.find(&e.name).unwrap_or_else(|| panic!("{}: no tensor {}", e.file, e.name));
        assert_eq!(info.stored, e.dtype, "{}:{}", e.file, e.name);
        assert_eq!(info.shape, e.shape, "{}:{}", e.file, e.name);
        assert_eq!(info.fortran, e.fortran, "{}:{}", e.file, e.name);
        let t = block_on(read(&bytes[..], info)).unwrap_or_else(|err| panic!("{}:{}: {err}", e.file, e.name));
        assert_eq!(t.values.len(), e.bits.len(), "{}:{}", e.file, e.name);
        for (i, (v, want)) in t.values.iter().zip(&e.bits).enumerate() {
            assert!(
                same(v.to_bits(), *want),
                "{}:{}[{i}]: {:08x}, the package gives {want:08x}",
                e.file,
                e.name,
                v.to_bits()
            );
        }
        let nan = e.bits.iter().filter(|b| f32::from_bits(**b).is_nan()).count();
        assert_eq!(t.nan, nan, "{}:{}", e.file, e.name);
    }
}

#[test]
fn read_in_pieces_every_streamable_fixture_tensor_gives_reads_values_in_order() {
    let mut streamed = 0;
    for e in expected() {
        let (bytes, listing) = open(&e.file);
        let info = listing.find(&e.name).unwrap();
        let whole = block_on(read(&bytes[..], info)).unwrap().values;
        for piece in [1, 3, 4096] {
            let (mut got, mut lens, mut buffer) = (Vec::new(), Vec::new(), vec![9.0]);
            let read = block_on(read_pieces(&bytes[..], info, piece, &mut buffer, |xs| {
                lens.push(xs.len());
                got.extend_from_slice(xs);
            }))
            .unwrap();
            if !read {
                assert!(got.is_empty() && (info.fortran || e.file.ends_with(".npz")), "{}:{}", e.file, e.name);
                continue;
            }
            streamed += 1;
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&got), bits(&whole), "{}:{} in pieces of {piece}", e.file, e.name);
            let (last, full) = lens.split_last().map_or((0, &[][..]), |(l, f)| (*l, f));
            assert!(full.iter().all(|&n| n == piece) && last <= piece, "{}:{}: {lens:?}", e.file, e.name);
        }
    }
    assert!(streamed >= 100, "{streamed} streamed reads");
}

#[test]
fn every_fixture_file_lists_exactly_the_tensors_expected() {
    let cases = expected();
    let mut names: HashMap<&str, Vec<&str>> = HashMap::new();
    for e in &cases {
        names.entry(&e.file).or_default().push(&e.name);
    }
    for (file, mut want) in names {
        let (_, l) = open(file);
        let mut got: Vec<&str> = l.tensors.iter().map(|t| t.name.as_str()).collect();
        got.sort();
        want.sort();
        assert_eq!(got, want, "{file}");
    }
}

#[test]
fn safetensors_metadata_is_kept_in_file_order() {
    let (_, l) = open("dtypes.safetensors");
    assert_eq!(l.format, Format::Safetensors);
    let keys: Vec<&str> = l.metadata.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["format", "source"]);
    assert!(open("empty_meta.safetensors").1.metadata.is_empty());
}

#[test]
fn wide_integers_and_float64_report_the_elements_the_cast_rounded() {
    let (bytes, l) = open("dtypes.safetensors");
    for name in ["f64", "i64", "u64"] {
        let t = block_on(read(&bytes[..], l.find(name).unwrap())).unwrap();
        assert!(t.rounded > 0, "{name}: the fixture holds values float32 cannot represent");
    }
    let t = block_on(read(&bytes[..], l.find("f16").unwrap())).unwrap();
    assert_eq!(t.rounded, 0, "half precision widens exactly");
}

#[test]
fn a_truncated_copy_of_every_fixture_is_refused_or_reads_short_never_panics() {
    for entry in fs::read_dir(fixtures()).unwrap() {
        let path = entry.unwrap().path();
        if !matches!(path.extension().and_then(|e| e.to_str()), Some("safetensors" | "npy" | "npz")) {
            continue;
        }
        let bytes = fs::read(&path).unwrap();
        for cut in [1, 7, 9, bytes.len() / 2, bytes.len() - 1] {
            let short = &bytes[..cut.min(bytes.len() - 1)];
            if let Ok(l) = block_on(list(short)) {
                for t in &l.tensors {
                    let _ = block_on(read(short, t));
                }
            }
        }
    }
}

/// A safetensors file of one F32 tensor, written as the reference writes it.
fn safetensors_f32(values: &[f32], shape: &[usize]) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    let mut h =
        format!(r#"{{"t":{{"dtype":"F32","shape":[{}],"data_offsets":[0,{}]}}}}"#, dims.join(","), values.len() * 4)
            .into_bytes();
    while !h.len().is_multiple_of(8) {
        h.push(b' ');
    }
    let mut f = (h.len() as u64).to_le_bytes().to_vec();
    f.extend(h);
    f.extend(values.iter().flat_map(|v| v.to_le_bytes()));
    f
}

proptest! {
    #[test]
    fn float32_tensors_round_trip_bit_for_bit(bits in prop::collection::vec(any::<u32>(), 0..200), rows in 1usize..5) {
        let n = bits.len() / rows * rows;
        let values: Vec<f32> = bits[..n].iter().map(|b| f32::from_bits(*b)).collect();
        let f = safetensors_f32(&values, &[rows, n / rows]);
        let l = block_on(list(&f[..])).unwrap();
        let t = block_on(read(&f[..], &l.tensors[0])).unwrap();
        prop_assert_eq!(t.values.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), bits[..n].to_vec());
    }
}
