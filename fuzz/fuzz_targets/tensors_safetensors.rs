//! safetensors files: any bytes as a whole file, through `list` (which tells the format from the
//! first bytes, so the header length, the JSON and every check of the header are reached) and
//! `read`. Never a panic; a file that lists as safetensors has every tensor's bytes after its
//! header and within the file, no two tensors' bytes overlap, names are unique, and every
//! tensor reads, with exactly its element count of values and its NaN and ±inf counted right.
#![no_main]

#[path = "common/tensor_checks.rs"]
mod checks;

use checks::{MAX_ELEMENTS, check};
use libfuzzer_sys::fuzz_target;
use qscope_tensors::{Format, Location, block_on, elements, list, read};



fuzz_target!(|data: &[u8]| {
    let Ok(listing) = block_on(list(data)) else { return };
    if listing.format != Format::Safetensors {
        return;
    }
    let header = u64::from_le_bytes(data[..8].try_into().expect("a listed file has its 8-byte length"));
    let data_start = 8 + header;
    let mut spans = Vec::new();
    let mut names = std::collections::HashSet::new();
    for info in &listing.tensors {
        let what = &info.name;
        assert!(names.insert(what.as_str()) && what != "__metadata__", "{what:?}: listed twice or as a tensor");
        assert_eq!(elements(&info.shape), Some(info.elements), "{what:?}: element count is not the shape's");
        assert_eq!(info.stored, info.dtype.safetensors_name(), "{what:?}: stored dtype");
        assert!(!info.fortran, "{what:?}: safetensors is row-major");
        let Location::Raw { offset } = info.location else { panic!("{what:?}: not raw: {:?}", info.location) };
        let end = offset.checked_add(info.bytes()).expect("end of a listed tensor overflows");
        assert!(
            data_start <= offset && end <= data.len() as u64,
            "{what:?}: bytes {offset}..{end} outside the data {data_start}..{}",
            data.len()
        );
        spans.push((offset, end, what));
    }
    spans.sort();
    for w in spans.windows(2) {
        assert!(w[0].1 <= w[1].0, "{:?} {}..{} overlaps {:?} {}..{}", w[0].2, w[0].0, w[0].1, w[1].2, w[1].0, w[1].1);
    }
    for info in listing.tensors.iter().filter(|t| t.elements <= MAX_ELEMENTS) {
        let t = block_on(read(data, info)).unwrap_or_else(|e| panic!("{:?} lists but does not read: {e}", info.name));
        assert_eq!(t.shape, info.shape, "{:?}: shape", info.name);
        check(&t, info.elements, &info.name);
    }
});
