//! Quoting user text in a message: every package's error messages name what they could not read
//! by its start, so a 100 KB spec, link value or lesson line never makes a 100 KB message.

/// At most `max` characters of `text`, followed by `…` when it was longer.
pub fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((end, _)) => format!("{}…", &text[..end]),
    }
}

#[cfg(test)]
mod tests {
    use super::shorten;

    #[test]
    fn text_up_to_max_characters_is_kept_and_longer_text_is_cut_with_an_ellipsis() {
        assert_eq!(shorten("", 3), "");
        assert_eq!(shorten("abc", 3), "abc");
        assert_eq!(shorten("abcd", 3), "abc…");
        // Characters, not bytes: a cut never splits one.
        assert_eq!(shorten("ααα", 3), "ααα");
        assert_eq!(shorten("αβγδ", 2), "αβ…");
        assert_eq!(shorten("x", 0), "…");
    }
}
