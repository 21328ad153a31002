//! The spec parser on any text: never a panic; an error's span lies within the text; a spec
//! that parses prints to its canonical form, which parses back to the same quantizer and
//! prints the same again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use qscope_quant::parse;

fuzz_target!(|text: &str| {
    let q = match parse(text) {
        Ok(q) => q,
        Err(e) => {
            if let Some((start, end)) = e.span {
                assert!(text.get(start..end).is_some(), "{text:?}: span {start}..{end} is not a range of the text");
            }
            return;
        }
    };
    let printed = q.to_string();
    match parse(&printed) {
        Ok(again) => {
            assert_eq!(again, q, "{text:?} printed as {printed:?} parses to another quantizer");
            assert_eq!(again.to_string(), printed, "the canonical form of {text:?} is not stable");
        }
        Err(e) => panic!("{text:?} printed as {printed:?}, which does not parse: {}", e.message),
    }
});
