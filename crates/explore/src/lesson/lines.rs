//! The line syntax a lesson file and a step's text share: fences and ATX headings, with up to
//! three spaces of indent (more is an indented code line, neither); runs of backticks.

use std::collections::HashMap;

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

/// A text's runs of backticks by length, so that a code span finds its closing run by binary
/// search: scanning ahead from every opening run took time quadratic in the number of runs (a
/// megabyte of 1,400 runs of different lengths, seconds). Positions are those of the sequence
/// it is made from (bytes of a paragraph for the renderer, characters for the lesson reader).
#[derive(Debug)]
pub(super) struct Backticks {
    /// Every run (as long as it goes): its start and length, in order.
    runs: Vec<(usize, usize)>,
    /// The starts of the runs of each length, in order.
    by_len: HashMap<usize, Vec<usize>>,
}

impl Backticks {
    /// The runs of `true` (a backtick) in the sequence.
    pub(super) fn of(is_backtick: impl Iterator<Item = bool>) -> Backticks {
        let (mut runs, mut by_len) = (Vec::<(usize, usize)>::new(), HashMap::<usize, Vec<usize>>::new());
        let mut run: Option<(usize, usize)> = None;
        for (k, tick) in is_backtick.chain([false]).enumerate() {
            match (tick, run) {
                (true, Some((start, len))) => run = Some((start, len + 1)),
                (true, None) => run = Some((k, 1)),
                (false, Some((start, len))) => {
                    runs.push((start, len));
                    by_len.entry(len).or_default().push(start);
                    run = None;
                }
                (false, None) => {}
            }
        }
        Backticks { runs, by_len }
    }

    /// The start of the first run that starts at `from` or later and is `n` long before `to`
    /// (a run that `to` cuts is as long as what is left of it).
    pub(super) fn closing(&self, from: usize, n: usize, to: usize) -> Option<usize> {
        let whole = self
            .by_len
            .get(&n)
            .and_then(|starts| starts.get(starts.partition_point(|&st| st < from)).copied().filter(|&st| st + n <= to));
        let before_end = self.runs.partition_point(|&(st, _)| st < to);
        let cut = before_end
            .checked_sub(1)
            .map(|j| self.runs[j])
            .filter(|&(st, len)| st >= from && st + len > to && to - st == n)
            .map(|(st, _)| st);
        match (whole, cut) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::Backticks;

    /// The definition: from `from`, step over text and runs (cut at `to`) to the first run of
    /// exactly `n`.
    fn closing_by_scan(s: &str, from: usize, n: usize, to: usize) -> Option<usize> {
        let mut k = from;
        while k < to {
            let r = s[k..to].chars().take_while(|c| *c == '`').count();
            if r == n {
                return Some(k);
            }
            k += if r == 0 { s[k..].chars().next().map_or(1, char::len_utf8) } else { r };
        }
        None
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(5_000))]
        #[test]
        fn a_code_span_closes_at_the_first_run_as_long_as_its_opening_one(
            s in "[`a é]{0,40}",
            from in 0usize..42,
            n in 1usize..5,
            to in 0usize..42,
        ) {
            let (from, to) = (s.floor_char_boundary(from.min(s.len())), s.floor_char_boundary(to.min(s.len())));
            // As the lexer asks: `from` ends an opening run, so no run goes on across it.
            prop_assume!(from == 0 || !s[..from].ends_with('`') || !s[from..].starts_with('`'));
            prop_assert_eq!(Backticks::of(s.bytes().map(|b| b == b'`')).closing(from, n, to), closing_by_scan(&s, from, n, to));
        }
    }
}
