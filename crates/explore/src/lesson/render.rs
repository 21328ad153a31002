//! A lesson's text (the Markdown subset of the lesson format) as HTML that is safe by
//! construction: the renderer writes every tag itself from a closed set ([`ALLOWED_TAGS`]), and
//! every piece of the lesson's text — words, code, formula tokens, link targets — goes through
//! one escape function ([`escape`]). Raw HTML in a lesson is shown as text; only `http://`,
//! `https://` and `#…` targets become links (with `rel="noopener noreferrer"`).
//!
//! Blocks: paragraphs (blank-line separated), `- ` bullet lists, `1. ` numbered lists, tables
//! (a `| a | b |` header row, a `|---|---|` rule, then rows), headings (`###` inside a step:
//! bold text), fenced code blocks (shown as code). Inline: `**bold**`, `*italic*`, `` `code` ``,
//! `[text](https://…)`, `$…$` and `$$…$$` formulas as MathML Core (the browser renders it, no
//! math library), `\$` for a dollar. An image (`![…](…)`) is a problem: a lesson has no files
//! and fetches nothing.
//!
//! [`render_lenient`] never fails (what it cannot read shows as text), for the browser;
//! [`problems`] lists every problem (an unknown TeX command, an unclosed `$`, unbalanced
//! braces) with its line, for `qscope lesson check`. [`safe_html`] checks the promise on an
//! output (for the tests and the fuzz target).

mod check;
mod html;
mod inline;
mod math;
#[cfg(test)]
mod tests;
pub mod tex;

use std::fmt;

use super::lines::{closes, fence, heading, unindent};

pub use check::{balanced, only_allowed_tags, safe_html};
pub use html::{ALLOWED_TAGS, escape};
use html::{Html, Tag};

/// A problem in a text, at its line (from 1, counted in the text given to the renderer).
#[derive(Clone, Debug, PartialEq)]
pub struct RenderError {
    pub line_in_text: usize,
    pub message: String,
}

impl fmt::Display for RenderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line_in_text, self.message)
    }
}

/// How many of a text's problems may suggest a command ("did you mean \\lambda?"): each
/// suggestion compares the word with every command name, and a lesson lists 100 errors.
pub const HINTED: usize = 100;

/// The text as HTML, whatever it holds: an unknown command or a broken formula shows as text.
pub fn render_lenient(md: &str) -> String {
    render(md, 0).0
}

/// Every problem of the text, in order (the first [`HINTED`] with a "did you mean" where one
/// fits).
pub fn problems(md: &str) -> Vec<RenderError> {
    render(md, HINTED).1
}

/// Every problem of the text, in order; only the first `hints` may carry a "did you mean".
pub(super) fn problems_hinting(md: &str, hints: usize) -> Vec<RenderError> {
    render(md, hints).1
}

/// The HTML (lenient) and the problems found on the way (the first `hints` may suggest).
fn render(md: &str, hints: usize) -> (String, Vec<RenderError>) {
    let mut r = Blocks { hints, ..Blocks::default() };
    let lines: Vec<&str> = md.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect();
    let mut i = 0;
    while i < lines.len() {
        let (n, line) = (i + 1, lines[i]);
        i += 1;
        if let Some((ch, len, _)) = fence(line) {
            r.flush();
            let body: Vec<&str> = lines[i..].iter().take_while(|l| !closes(l, ch, len)).copied().collect();
            i += body.len() + 1;
            r.out.open(Tag::Pre, &[]);
            r.out.leaf(Tag::Code, &[], &body.join("\n"));
            r.out.close(Tag::Pre);
            r.out.newline();
        } else if line.trim().is_empty() {
            r.flush();
        } else if let Some((_, title)) = heading(line) {
            r.flush();
            r.out.open(Tag::P, &[]);
            r.out.open(Tag::Strong, &[]);
            r.inline(&[(n, title)]);
            r.out.close(Tag::Strong);
            r.out.close(Tag::P);
            r.out.newline();
        } else if let Some(rows) = table(&lines[i - 1..]) {
            r.flush();
            r.table(n, &rows);
            i += rows.len() - 1;
        } else if let Some((item, ordered)) = item(line) {
            r.flush_paragraph();
            if !r.list.is_empty() && r.ordered != ordered {
                r.flush();
            }
            r.ordered = ordered;
            r.list.push(vec![(n, item)]);
        } else if let Some(item) = r.list.last_mut() {
            item.push((n, line.trim_start()));
        } else {
            r.paragraph.push((n, line.trim_start()));
        }
    }
    r.flush();
    (r.out.into_string(), r.problems)
}

/// The blocks written so far and the ones being gathered.
#[derive(Default)]
struct Blocks<'a> {
    out: Html,
    problems: Vec<RenderError>,
    paragraph: Vec<(usize, &'a str)>,
    /// The items of an open list, each its numbered lines.
    list: Vec<Vec<(usize, &'a str)>>,
    /// Whether the open list is numbered.
    ordered: bool,
    /// How many more problems may carry a "did you mean".
    hints: usize,
}

impl Blocks<'_> {
    fn flush(&mut self) {
        self.flush_paragraph();
        if self.list.is_empty() {
            return;
        }
        let tag = if self.ordered { Tag::Ol } else { Tag::Ul };
        self.out.open(tag, &[]);
        for item in std::mem::take(&mut self.list) {
            self.out.open(Tag::Li, &[]);
            self.inline(&item);
            self.out.close(Tag::Li);
        }
        self.out.close(tag);
        self.out.newline();
    }

    /// A table whose header row is on line `first`: `rows[0]` the header, `rows[1]` the rule.
    fn table(&mut self, first: usize, rows: &[&str]) {
        self.out.open(Tag::Table, &[]);
        for (k, row) in rows.iter().enumerate().filter(|(k, _)| *k != 1) {
            let cell = if k == 0 { Tag::Th } else { Tag::Td };
            self.out.open(Tag::Tr, &[]);
            for text in cells(row) {
                self.out.open(cell, &[]);
                self.inline(&[(first + k, text.trim())]);
                self.out.close(cell);
            }
            self.out.close(Tag::Tr);
        }
        self.out.close(Tag::Table);
        self.out.newline();
    }

    fn flush_paragraph(&mut self) {
        if self.paragraph.is_empty() {
            return;
        }
        let lines = std::mem::take(&mut self.paragraph);
        self.out.open(Tag::P, &[]);
        self.inline(&lines);
        self.out.close(Tag::P);
        self.out.newline();
    }

    /// Numbered lines as one run of inline Markdown; problems get their line back.
    fn inline(&mut self, lines: &[(usize, &str)]) {
        let text = lines.iter().map(|l| l.1).collect::<Vec<_>>().join("\n");
        let mut found = Vec::new();
        inline::write(&text, &mut self.out, &mut found, &mut self.hints);
        // The newlines before each problem, by binary search (counting them again for each of
        // 200,000 problems in a 1 MB paragraph took seconds).
        let breaks: Vec<usize> = text.match_indices('\n').map(|(k, _)| k).collect();
        for p in found {
            let newlines = breaks.partition_point(|&k| k < p.offset.min(text.len()));
            let line = lines.get(newlines).map_or(lines.last().map_or(1, |l| l.0), |l| l.0);
            self.problems.push(RenderError { line_in_text: line, message: p.message });
        }
    }
}

/// The text of a list item, and whether it is numbered: `- text`, or `1. text` / `1) text`
/// (up to nine digits; the list numbers its items from 1 whatever they say).
fn item(line: &str) -> Option<(&str, bool)> {
    let body = unindent(line)?;
    let digits = body.bytes().take_while(u8::is_ascii_digit).count();
    let (rest, ordered) = match digits {
        0 => (body.strip_prefix('-')?, false),
        1..=9 => (body[digits..].strip_prefix(['.', ')'])?, true),
        _ => return None,
    };
    match rest {
        "" => Some(("", ordered)),
        r if r.starts_with([' ', '\t']) => Some((r.trim_start(), ordered)),
        _ => None,
    }
}

/// The lines of a table starting at `lines[0]`: a row (`| a | b |`), a rule of as many cells
/// (`|---|:--:|`), then every row up to the first line that is not one.
fn table<'a>(lines: &[&'a str]) -> Option<Vec<&'a str>> {
    let row = |l: &str| unindent(l).is_some_and(|b| b.trim_start().starts_with('|'));
    let head = *lines.first().filter(|l| row(l))?;
    let rule = *lines.get(1)?;
    let is_rule = cells(rule).iter().all(|c| {
        let c = c.trim().trim_start_matches(':').trim_end_matches(':');
        !c.is_empty() && c.bytes().all(|b| b == b'-')
    });
    if !row(rule) || !is_rule || cells(rule).len() != cells(head).len() {
        return None;
    }
    Some(lines.iter().take_while(|l| row(l)).copied().collect())
}

/// A table row's cells: split at each `|` outside code spans and formulas (`\|` is a bar in
/// the text), the outer bars dropped.
fn cells(row: &str) -> Vec<&str> {
    let row = row.trim();
    let row = row.strip_prefix('|').unwrap_or(row);
    let row = if row.ends_with('|') && !row.ends_with("\\|") { &row[..row.len() - 1] } else { row };
    let (mut out, mut start, mut inside) = (Vec::new(), 0, None::<u8>);
    let bytes = row.as_bytes();
    let mut k = 0;
    while k < bytes.len() {
        match (bytes[k], inside) {
            (b'\\', _) => k += 1,
            (b'`' | b'$', None) => inside = Some(bytes[k]),
            (b, Some(open)) if b == open => inside = None,
            (b'|', None) => {
                out.push(&row[start..k]);
                start = k + 1;
            }
            _ => {}
        }
        k += 1;
    }
    out.push(&row[start..]);
    out
}
