//! The renderer's promise, checked on its output: every `<` begins an allowed tag and every
//! opened tag closes, in order. The renderer's tests and the `lesson` fuzz target use it.

use super::ALLOWED_TAGS;
use super::html::VOID_TAGS;

/// Every `<` of the HTML begins an allowed tag (opening or closing), followed by `>` or a space.
pub fn only_allowed_tags(html: &str) -> Result<(), String> {
    for (i, _) in html.match_indices('<') {
        let rest = html[i + 1..].strip_prefix('/').unwrap_or(&html[i + 1..]);
        let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
        let after = rest[name.len()..].chars().next();
        if !ALLOWED_TAGS.contains(&name.as_str()) || !matches!(after, Some('>' | ' ')) {
            let end = html.ceil_char_boundary((i + 40).min(html.len()));
            return Err(format!("'<' at {i} does not begin an allowed tag: {:?}", &html[i..end]));
        }
    }
    Ok(())
}

/// Every opened tag of the HTML closes, in order (a void tag, `<wbr>`, never opens).
pub fn balanced(html: &str) -> Result<(), String> {
    let mut open: Vec<&str> = Vec::new();
    for (i, _) in html.match_indices('<') {
        let rest = &html[i + 1..];
        let (closing, rest) = rest.strip_prefix('/').map_or((false, rest), |r| (true, r));
        let name = &rest[..rest.find([' ', '>']).unwrap_or(rest.len())];
        match (closing, open.last()) {
            (false, _) if VOID_TAGS.contains(&name) => {}
            (false, _) => open.push(name),
            (true, Some(top)) if *top == name => {
                open.pop();
            }
            _ => return Err(format!("</{name}> at {i} closes {:?}", open.last())),
        }
    }
    if open.is_empty() { Ok(()) } else { Err(format!("unclosed: {open:?}")) }
}

/// Both: only allowed tags, balanced.
pub fn safe_html(html: &str) -> Result<(), String> {
    only_allowed_tags(html).and_then(|()| balanced(html))
}
