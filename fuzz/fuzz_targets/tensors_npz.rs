//! `.npz` files: any bytes as a whole file, through `list` (`PK\x03\x04` or `PK\x05\x06` sends
//! it to the zip reader: the end record, ZIP64, the central directory, each member's local
//! header and its `.npy` header, stored or inflated) and `read`. Never a panic; every tensor of
//! a file that lists as `.npz` has its bytes within the file; a stored member always reads, a
//! deflated one may fail (corrupt DEFLATE data) but only with an error; a read gives exactly the
//! element count of values, with its NaN and ±inf counted right.
#![no_main]

#[path = "common/tensor_checks.rs"]
mod checks;

use checks::{MAX_ELEMENTS, check};
use libfuzzer_sys::fuzz_target;
use qscope_tensors::{Format, Location, block_on, elements, list, read};



fuzz_target!(|data: &[u8]| {
    let Ok(listing) = block_on(list(data)) else { return };
    if listing.format != Format::Npz {
        return;
    }
    assert!(!listing.tensors.is_empty() || !listing.skipped.is_empty(), "an .npz lists nothing");
    let len = data.len() as u64;
    for info in &listing.tensors {
        let what = &info.name;
        assert_eq!(elements(&info.shape), Some(info.elements), "{what:?}: element count is not the shape's");
        match info.location {
            Location::Raw { offset } => {
                let end = offset.checked_add(info.bytes()).expect("end of a listed tensor overflows");
                assert!(end <= len, "{what:?}: bytes {offset}..{end} past the end of the file ({len})");
            }
            Location::Deflated { offset, compressed, .. } => {
                let end = offset.checked_add(compressed).expect("end of a listed member overflows");
                assert!(end <= len, "{what:?}: deflated bytes {offset}..{end} past the end of the file ({len})");
            }
        }
        if info.elements > MAX_ELEMENTS {
            continue;
        }
        match block_on(read(data, info)) {
            Ok(t) => {
                assert_eq!(t.shape, info.shape, "{what:?}: shape");
                check(&t, info.elements, what);
            }
            Err(e) => {
                assert!(matches!(info.location, Location::Deflated { .. }), "{what:?}: a stored member does not read: {e}")
            }
        }
    }
});
