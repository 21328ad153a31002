//! `lesson=` values: a built-in name, a damaged link (any text after `~`) or a packed lesson
//! (any bytes as DEFLATE data, so the inflater and its 1 MB limit are reached). Never a panic;
//! a link that unpacks packs again into a link that unpacks to the same text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use qscope_explore::lesson::{Lesson, link, load, source};

fuzz_target!(|data: &[u8]| {
    let Some((&how, rest)) = data.split_first() else { return };
    let value = match how % 3 {
        0 => String::from_utf8_lossy(rest).into_owned(),
        1 => format!("~{}", String::from_utf8_lossy(rest)),
        _ => format!("~{}", link::base64url(rest)),
    };
    let Ok(text) = source(&value) else {
        assert!(load(&value).is_err(), "{value:?}: source fails but load does not");
        return;
    };
    assert!(text.len() <= link::MAX_BYTES, "{value:?} unpacks to {} bytes", text.len());
    if link::is_packed(value.trim()) {
        assert_eq!(
            link::decode(&link::encode(&text)).as_ref(),
            Ok(&text),
            "{value:?}: the text does not pack and unpack"
        );
    }
    let _ = Lesson::parse(&text);
});
