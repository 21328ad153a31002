//! The spec parser on Keras config dicts: any text after `{`. Never a panic; a config that
//! parses prints to a spec that parses back to the same quantizer.
#![no_main]

use libfuzzer_sys::fuzz_target;
use qscope_quant::parse;

fuzz_target!(|text: &str| {
    let dict = format!("{{{text}");
    let result = parse(&dict);
    if let Err(e) = &result
        && let Some((start, end)) = e.span
    {
        assert!(dict.get(start..end).is_some(), "{dict:?}: span {start}..{end} is not a range of the text");
    }
    let Ok(q) = result else { return };
    let printed = q.to_string();
    match parse(&printed) {
        Ok(again) => assert_eq!(again, q, "{dict:?} printed as {printed:?} parses to another quantizer"),
        Err(e) => panic!("{dict:?} printed as {printed:?}, which does not parse: {}", e.message),
    }
});
