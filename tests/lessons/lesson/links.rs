//! Lesson links: packing, unpacking, and every way a link can be damaged.

use super::*;
use qscope_explore::lesson::link;

#[test]
fn a_lesson_link_is_a_tilde_and_base64url() {
    let packed = link::encode(SMALL);
    assert!(packed.starts_with('~'));
    assert!(packed[1..].bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'), "{packed}");
    assert!(packed.len() < SMALL.len(), "{} ≥ {}", packed.len(), SMALL.len());
}

#[test]
fn a_lesson_link_opens_the_lesson() {
    assert_eq!(load(&link::encode(SMALL)), Ok(lesson(SMALL)));
}

#[test]
fn a_truncated_link_says_the_data_ends_early() {
    let packed = link::encode(SMALL);
    // Cut at a multiple of 4 characters, so what is left is valid base64url.
    let cut = &packed[..1 + (packed.len() - 1) / 2 / 4 * 4];
    assert_eq!(
        link::decode(cut),
        Err("the lesson link is damaged: the compressed data ends early (truncated link?)".into())
    );
}

#[test]
fn a_link_cut_inside_a_base64_group_is_named() {
    let e = link::decode("~Zm9vY").unwrap_err();
    assert_eq!(e, "the lesson link is damaged: 5 characters cannot be base64url (truncated link?)");
}

#[test]
fn a_character_outside_base64url_is_named_with_its_position() {
    let mut packed = link::encode(SMALL);
    packed.replace_range(16..17, "*");
    assert_eq!(link::decode(&packed), Err("the lesson link is damaged: '*' is not base64url at character 17".into()));
    let e = link::decode("~abc def").unwrap_err();
    assert_eq!(e, "the lesson link is damaged: ' ' is not base64url at character 5");
}

#[test]
fn corrupted_compressed_data_is_named() {
    // A first block of the reserved type 3.
    let e = link::decode(&format!("~{}", link::base64url(&[0xff, 0xff, 0xff]))).unwrap_err();
    assert_eq!(e, "the lesson link is damaged: the compressed data is not valid DEFLATE (corrupted link?)");
}

#[test]
fn unpacked_bytes_that_are_not_utf8_are_named() {
    let packed = miniz_oxide::deflate::compress_to_vec(b"# T\xff\xfe", 9);
    let e = link::decode(&format!("~{}", link::base64url(&packed))).unwrap_err();
    assert_eq!(e, "the lesson link is damaged: the unpacked lesson is not UTF-8 text (byte 4 is not)");
}

#[test]
fn a_deflate_bomb_is_refused_at_one_megabyte() {
    let bomb = miniz_oxide::deflate::compress_to_vec(&vec![b'a'; 64 << 20], 9);
    assert!(bomb.len() < 100_000, "{}", bomb.len());
    let e = link::decode(&format!("~{}", link::base64url(&bomb))).unwrap_err();
    assert_eq!(e, "the lesson link is damaged: larger than 1 MB when unpacked");
}

#[test]
fn a_damaged_link_is_one_lesson_error_without_a_line() {
    let e = load("~Zm9vY").unwrap_err();
    assert_eq!(e.len(), 1);
    assert_eq!((e[0].step.clone(), e[0].line), (None, None));
    assert!(e[0].to_string().starts_with("the lesson link is damaged: "), "{}", e[0]);
}

#[test]
fn an_unknown_lesson_name_is_an_error_listing_the_built_in_ones() {
    let e = load("no_such_lesson").unwrap_err();
    assert!(e[0].message.starts_with("no built-in lesson is called 'no_such_lesson'"), "{}", e[0]);
}

proptest! {
    #[test]
    fn a_lesson_link_unpacks_to_its_text(text in any::<String>()) {
        prop_assert_eq!(link::decode(&link::encode(&text)), Ok(text));
    }
}
