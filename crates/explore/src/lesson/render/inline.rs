//! A paragraph's inline Markdown: `**bold**`, `*italic*` (nested either way), `` `code` ``,
//! `[links](https://…)`, `$…$` and `$$…$$` formulas, `\` escapes. Emphasis is matched with a
//! stack of `*` runs (a simplified CommonMark: a run can open when a non-space follows it and
//! close when a non-space precedes it), so tags always nest.

use super::html::{Html, Tag, safe_href};
use super::math;
use crate::lesson::lines::Backticks;

/// The longest link text or target, in bytes: a bracket not closed within it is text (a long
/// run of unclosed brackets is then read in linear time).
const MAX_LINK: usize = 2048;

/// A problem at a byte offset of the paragraph.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Problem {
    pub offset: usize,
    pub message: String,
}

#[derive(Debug)]
enum Tok {
    Text(String),
    Code(String),
    Math {
        start: usize,
        tex: String,
        display: bool,
    },
    Link {
        inner: Vec<Tok>,
        url: String,
    },
    /// A run of `*`: what is left of it as text, and the tags it opens and closes (1: em, 2: strong).
    Stars {
        count: usize,
        can_open: bool,
        can_close: bool,
        opens: Vec<usize>,
        closes: Vec<usize>,
    },
}

/// Writes a paragraph's inline content; problems (formulas) are recorded, the output stays
/// lenient. `hints`: how many more formula problems may get a "did you mean" (each takes one).
pub(super) fn write(text: &str, out: &mut Html, problems: &mut Vec<Problem>, hints: &mut usize) {
    let mut toks = Lexer { s: text, i: 0, problems, backticks: None }.run(0, text.len(), true);
    match_stars(&mut toks);
    emit(&toks, out, problems, hints);
}

struct Lexer<'a, 'p> {
    s: &'a str,
    i: usize,
    problems: &'p mut Vec<Problem>,
    /// The text's runs of backticks, indexed at the first code span.
    backticks: Option<Backticks>,
}

impl Lexer<'_, '_> {
    fn char_at(&self, i: usize) -> Option<char> {
        self.s.get(i..).and_then(|r| r.chars().next())
    }

    fn char_before(&self, i: usize) -> Option<char> {
        self.s[..i].chars().next_back()
    }

    /// Tokens of `s[from..to]`; links only outside links.
    fn run(&mut self, from: usize, to: usize, links: bool) -> Vec<Tok> {
        self.i = from;
        let mut toks = Vec::new();
        let mut text = String::new();
        while self.i < to {
            let Some(c) = self.char_at(self.i) else { break };
            let tok = match c {
                '\\' => {
                    match self.char_at(self.i + 1).filter(|n| n.is_ascii_punctuation() && self.i + 1 < to) {
                        Some(n) => {
                            text.push(n);
                            self.i += 1 + n.len_utf8();
                        }
                        None => {
                            text.push('\\');
                            self.i += 1;
                        }
                    }
                    continue;
                }
                '`' => self.code(to),
                '$' => self.math(to),
                '!' if links && self.s[self.i..to].starts_with("![") => {
                    self.image(to);
                    None
                }
                '[' if links => self.link(to),
                '*' => Some(self.stars(to)),
                _ => None,
            };
            match tok {
                Some(t) => {
                    if !text.is_empty() {
                        toks.push(Tok::Text(std::mem::take(&mut text)));
                    }
                    toks.push(t);
                }
                None => {
                    // Not markup: the character (or the run of backticks already skipped) is text.
                    let start = self.i;
                    let len = if c == '`' { self.run_of('`', to) } else { c.len_utf8() };
                    text.push_str(&self.s[start..start + len]);
                    self.i = start + len;
                }
            }
        }
        if !text.is_empty() {
            toks.push(Tok::Text(text));
        }
        toks
    }

    /// Bytes of the run of `ch` at the cursor (ASCII `ch`).
    fn run_of(&self, ch: char, to: usize) -> usize {
        self.s[self.i..to].chars().take_while(|c| *c == ch).count()
    }

    /// A code span: a run of backticks up to the next run of exactly as many.
    fn code(&mut self, to: usize) -> Option<Tok> {
        let n = self.run_of('`', to);
        let s = self.s;
        let k = self.backticks.get_or_insert_with(|| Backticks::of(s.bytes().map(|b| b == b'`'))).closing(
            self.i + n,
            n,
            to,
        )?;
        let body = self.s[self.i + n..k].replace('\n', " ");
        let body = match body.strip_prefix(' ').and_then(|b| b.strip_suffix(' ')) {
            Some(inner) if !inner.trim().is_empty() => inner.to_string(),
            _ => body,
        };
        self.i = k + n;
        Some(Tok::Code(body))
    }

    /// `$…$` or `$$…$$`; an unclosed one is a problem and its `$` is text.
    fn math(&mut self, to: usize) -> Option<Tok> {
        let display = self.s[self.i..to].starts_with("$$");
        let delim = if display { "$$" } else { "$" };
        let start = self.i + delim.len();
        let mut k = start;
        while k < to {
            if self.s[k..to].starts_with(delim) {
                let tex = self.s[start..k].to_string();
                self.i = k + delim.len();
                return Some(Tok::Math { start, tex, display });
            }
            let skip =
                if self.s[k..].starts_with('\\') { 1 + self.char_at(k + 1).map_or(0, char::len_utf8) } else { 0 };
            k = (k + skip.max(self.char_at(k).map_or(1, char::len_utf8))).min(to);
        }
        let message = if display {
            "a display formula opened with $$ does not close (end it with $$)"
        } else {
            "an inline formula opened with $ does not close in its paragraph (end it with $; write \\$ for a dollar sign)"
        };
        self.problems.push(Problem { offset: self.i, message: message.into() });
        let end = self.i + delim.len();
        self.i = end;
        Some(Tok::Text(delim.into()))
    }

    /// `![alt](target)` is a problem (a lesson loads no files and fetches nothing); it stays
    /// text, and the `!` is read as text here.
    fn image(&mut self, to: usize) {
        let open = self.i + 1;
        let Some(close) = self.matching(open, '[', ']', to) else { return };
        if self.s[close + 1..to].starts_with('(') && self.matching(close + 1, '(', ')', to).is_some() {
            let message = "an image (![…](…)) cannot be shown: a lesson loads no files; describe it in words, or link it with […](https://…)";
            self.problems.push(Problem { offset: self.i, message: message.into() });
        }
    }

    /// `[text](url)` with a safe url; anything else leaves `[` as text.
    fn link(&mut self, to: usize) -> Option<Tok> {
        let close = self.matching(self.i, '[', ']', to)?;
        if !self.s[close + 1..to].starts_with('(') {
            return None;
        }
        let url_end = self.matching(close + 1, '(', ')', to)?;
        let url = &self.s[close + 2..url_end];
        if !safe_href(url) {
            return None;
        }
        let url = url.to_string();
        let mut inner = self.run(self.i + 1, close, false);
        match_stars(&mut inner);
        self.i = url_end + 1;
        Some(Tok::Link { inner, url })
    }

    /// The offset of the bracket closing the one at `open` (nesting counted, `\x` skipped),
    /// within [`MAX_LINK`] bytes.
    fn matching(&self, open: usize, left: char, right: char, to: usize) -> Option<usize> {
        let mut depth = 0usize;
        let end = to.min(self.s.ceil_char_boundary(open + MAX_LINK));
        let mut chars = self.s[open..end].char_indices();
        while let Some((k, c)) = chars.next() {
            match c {
                '\\' => {
                    chars.next();
                }
                c if c == left => depth += 1,
                c if c == right => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(open + k);
                    }
                }
                '\n' if left == '(' => return None,
                _ => {}
            }
        }
        None
    }

    fn stars(&mut self, to: usize) -> Tok {
        let count = self.run_of('*', to);
        let before = self.char_before(self.i);
        self.i += count;
        let after = if self.i < to { self.char_at(self.i) } else { None };
        let can_open = after.is_some_and(|c| !c.is_whitespace());
        let can_close = before.is_some_and(|c| !c.is_whitespace());
        Tok::Stars { count, can_open, can_close, opens: Vec::new(), closes: Vec::new() }
    }
}

/// Pairs `*` runs: a closing run takes from the nearest open run, two stars (strong) when both
/// have two, else one (em). Inner pairs are matched first, so tags nest.
fn match_stars(toks: &mut [Tok]) {
    let mut stack: Vec<usize> = Vec::new();
    for j in 0..toks.len() {
        let Tok::Stars { can_open, can_close, .. } = toks[j] else { continue };
        while can_close && let Some(&k) = stack.last() {
            let (left, right) = toks.split_at_mut(j);
            let (Tok::Stars { count: ck, opens, .. }, Tok::Stars { count: cj, closes, .. }) =
                (&mut left[k], &mut right[0])
            else {
                break;
            };
            if *cj == 0 {
                break;
            }
            let used = if *ck >= 2 && *cj >= 2 { 2 } else { 1 };
            *ck -= used;
            *cj -= used;
            opens.push(used);
            closes.push(used);
            if *ck == 0 {
                stack.pop();
            }
        }
        if let Tok::Stars { count, .. } = toks[j]
            && can_open
            && count > 0
        {
            stack.push(j);
        }
    }
}

fn emphasis(used: usize) -> Tag {
    if used == 2 { Tag::Strong } else { Tag::Em }
}

fn emit(toks: &[Tok], out: &mut Html, problems: &mut Vec<Problem>, hints: &mut usize) {
    for t in toks {
        match t {
            Tok::Text(s) => out.text(s),
            Tok::Code(s) => out.code(s),
            Tok::Math { start, tex, display } => {
                let mut m = Html::default();
                if let Err(e) = math::write(tex, *display, true, *hints > 0, &mut m) {
                    problems.push(Problem { offset: start + e.offset, message: e.message });
                    *hints = hints.saturating_sub(1);
                    m = Html::default();
                    let _ = math::write(tex, *display, false, false, &mut m);
                }
                out.append(m);
            }
            Tok::Link { inner, url } => {
                out.open(Tag::A, &[("href", url), ("rel", "noopener noreferrer"), ("target", "_blank")]);
                emit(inner, out, problems, hints);
                out.close(Tag::A);
            }
            Tok::Stars { count, opens, closes, .. } => {
                for used in closes {
                    out.close(emphasis(*used));
                }
                out.text(&"*".repeat(*count));
                for used in opens.iter().rev() {
                    out.open(emphasis(*used), &[]);
                }
            }
        }
    }
}
