//! `.npy` files: any bytes as a whole file, through `list` (`\x93NUMPY` sends it to the `.npy`
//! reader: version, header length, the header's dict literal, the dtype) and `read`. Never a
//! panic; a file that lists as `.npy` holds one tensor named `-` whose bytes follow its header
//! within the file, and it reads, with exactly its element count of values, its NaN and ±inf
//! counted right, and (Fortran order) the same values as the column-major bytes, reordered.
#![no_main]

#[path = "common/tensor_checks.rs"]
mod checks;

use checks::{MAX_ELEMENTS, check};
use libfuzzer_sys::fuzz_target;
use qscope_tensors::npy::header_len;
use qscope_tensors::{Format, Location, Tensor, block_on, elements, list, read};



fuzz_target!(|data: &[u8]| {
    let Ok(listing) = block_on(list(data)) else { return };
    if listing.format != Format::Npy {
        return;
    }
    let [info] = &listing.tensors[..] else { panic!("a .npy lists {} tensors", listing.tensors.len()) };
    assert!(listing.skipped.is_empty() && listing.metadata.is_empty(), "a .npy lists more than its array");
    assert_eq!(info.name, "-");
    assert_eq!(elements(&info.shape), Some(info.elements), "element count is not the shape's");
    let start = header_len(data).expect("a listed .npy has a header length") as u64;
    let Location::Raw { offset } = info.location else { panic!("not raw: {:?}", info.location) };
    let end = offset.checked_add(info.bytes()).expect("end of the array overflows");
    assert!(offset == start && end <= data.len() as u64, "bytes {offset}..{end}, header {start}, file {}", data.len());
    if info.elements > MAX_ELEMENTS {
        return;
    }
    let t = block_on(read(data, info)).unwrap_or_else(|e| panic!("the array lists but does not read: {e}"));
    assert_eq!(t.shape, info.shape);
    check(&t, info.elements, "-");
    if info.fortran {
        // Row-major reordering is a permutation of the stored values.
        let stored = block_on(read(data, &qscope_tensors::Info { fortran: false, ..info.clone() })).expect("reads");
        let sorted = |t: &Tensor| {
            let mut b: Vec<u32> = t.values.iter().map(|v| v.to_bits()).collect();
            b.sort_unstable();
            b
        };
        assert_eq!(sorted(&t), sorted(&stored), "Fortran order: the values are not those stored, reordered");
    }
});
