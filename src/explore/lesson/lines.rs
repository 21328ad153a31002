//! The line syntax a lesson file and a step's text share: fences and ATX headings, with up to
//! three spaces of indent (more is an indented code line, neither).

/// The line without up to 3 leading spaces (None when indented more).
pub(super) fn unindent(line: &str) -> Option<&str> {
    let spaces = line.chars().take_while(|c| *c == ' ').count();
    (spaces <= 3).then(|| &line[spaces..])
}

/// `(character, run length, info string)` of a fence line: at least three backticks or
/// tildes; a backtick fence's info string has no backtick.
pub(super) fn fence(line: &str) -> Option<(char, usize, &str)> {
    let body = unindent(line)?;
    let ch = body.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = body.chars().take_while(|c| *c == ch).count();
    let info = body[len * ch.len_utf8()..].trim();
    (len >= 3 && !(ch == '`' && info.contains('`'))).then_some((ch, len, info))
}

/// Whether `line` closes a fence opened by `len` `ch`s: as many or more of them, nothing after.
pub(super) fn closes(line: &str, ch: char, len: usize) -> bool {
    fence(line).is_some_and(|(c, l, info)| c == ch && l >= len && info.is_empty())
}

/// `(level, text)` of an ATX heading: 1–6 `#`, then a space or the end; closing `#`s dropped.
pub(super) fn heading(line: &str) -> Option<(usize, &str)> {
    let body = unindent(line)?;
    let level = body.chars().take_while(|c| *c == '#').count();
    let rest = &body[level..];
    if !(1..=6).contains(&level) || !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    let text = rest.trim();
    let text = match text.trim_end_matches('#') {
        t if t.is_empty() || t.ends_with([' ', '\t']) => t.trim_end(),
        _ => text,
    };
    Some((level, text))
}
