//! The user's CSV, pasted or dropped on the Train view, read into a [`Table`]: a header row,
//! numeric feature columns and one label column whose values are the classes. Every problem is
//! one message naming the file, the line (as an editor numbers it: the header's is 1, a newline
//! inside quotes counts) and the column, so the page can show it and keep the data it had.
//!
//! What it reads (RFC 4180, plus what spreadsheets write):
//! - cells split by commas — or, when the header line has no comma outside quotes, by its
//!   semicolons or tabs (whichever it has more of; a European spreadsheet's export, a TSV);
//! - quoted cells with `""` for a quote, spanning lines if they like; spaces around the quotes;
//! - CRLF, LF or CR line ends, a UTF-8 byte-order mark, a last line with or without its newline;
//! - lines of nothing but spaces skipped wherever they are, as pandas' `read_csv` skips them; a
//!   line of empty cells is a row, and its empty cells are named;
//! - feature cells rounded once, from their text to the nearest float32 (the spaces around them
//!   trimmed): every float32 written as its shortest text reads back as itself, which a float64
//!   read then rounded to float32 (pandas' way) misses for one, ±7.038531e-26 (double rounding;
//!   checked over all float32s); NaN, infinities and values past float32's range refused;
//! - labels as written (unquoted ones trimmed); the classes sorted numerically when every label
//!   is a number ("2" before "10"), else by their text.
//!
//! Linear in the input, whatever it holds: a cell's text is copied once, a row's cells past the
//! header's count are counted and not kept, and the limits ([`MAX_BYTES`], the header's width,
//! [`MAX_ROWS`]) are checked as soon as they are passed, before the rest is read.

use std::collections::HashMap;

use crate::hash::quote;
use qscope_nn::table::{MAX_CLASSES, MAX_FEATURES, MAX_ROWS, MIN_ROWS, Table};

/// The largest file read, checked before anything else (100,000 rows of 65 long numbers are
/// about 120 MB).
pub const MAX_BYTES: usize = 256 << 20;

/// The most column names a "no such column" message lists.
const LISTED: usize = 10;

/// The table in a CSV file's bytes: `name` is the file's name (it starts every message and names
/// the table), `label` the label column's header name (None: the last column). The features are
/// the other columns in order; the classes are the distinct labels, sorted.
pub fn parse_csv(name: &str, bytes: &[u8], label: Option<&str>) -> Result<Table, String> {
    let fail = |m: String| format!("{name}: {m}");
    let (mut reader, mut rec, names, header_line) = header(name, bytes)?;
    let target = match label {
        None => names.len() - 1,
        Some(want) => names.iter().position(|n| n == want.trim()).ok_or_else(|| {
            let listed: Vec<String> = names.iter().take(LISTED).map(|n| format!("'{}'", quote(n))).collect();
            let more = names.len().saturating_sub(LISTED);
            let more = if more > 0 { format!(" and {more} more") } else { String::new() };
            fail(format!("no column '{}' for the label; the columns are {}{more}", quote(want), listed.join(", ")))
        })?,
    };
    let features: Vec<String> =
        names.iter().enumerate().filter(|&(k, _)| k != target).map(|(_, n)| n.clone()).collect();

    // The rows: values row-major, each row's label as the index of its first appearance.
    let cols = names.len();
    let mut x: Vec<f32> = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut first: Vec<String> = Vec::new();
    let mut y: Vec<usize> = Vec::new();
    loop {
        if !reader.next(&mut rec, cols).map_err(|e| fail(e.message(&names)))? {
            break;
        }
        if rec.is_blank() {
            continue;
        }
        let line = rec.line;
        if y.len() == MAX_ROWS {
            return Err(fail(format!("line {line} is row {}; a table has at most {MAX_ROWS} rows", MAX_ROWS + 1)));
        }
        if rec.count != cols {
            return Err(fail(format!("line {line} has {} cells; the header has {cols}", rec.count)));
        }
        for (k, name) in names.iter().enumerate() {
            let at = rec.cells[k].line;
            let text = rec.text(k).map_err(|l| fail(format!("line {l} is not UTF-8 text")))?;
            let text = if rec.cells[k].quoted && k == target { text } else { text.trim() };
            if text.is_empty() {
                return Err(fail(format!("line {at}, column '{}' is empty", quote(name))));
            }
            if k == target {
                y.push(seen.get(text).copied().unwrap_or_else(|| {
                    first.push(text.to_string());
                    *seen.entry(text.to_string()).or_insert(first.len() - 1)
                }));
            } else {
                let bad = |why| fail(format!("line {at}, column '{}': '{}' {why}", quote(name), quote(text)));
                x.push(number(text).map_err(bad)?);
            }
        }
    }

    let rows = y.len();
    if rows == 0 {
        return Err(fail(format!("only a header (line {header_line}), no rows")));
    }
    if rows < MIN_ROWS {
        let s = if rows == 1 { "" } else { "s" };
        return Err(fail(format!("{rows} row{s}; a table needs at least {MIN_ROWS}")));
    }
    let (k, column) = (first.len(), quote(&names[target]));
    if k == 1 {
        let only = quote(&first[0]);
        return Err(fail(format!("every label in column '{column}' is '{only}'; a table needs 2 classes or more")));
    }
    if k > MAX_CLASSES {
        return Err(fail(format!(
            "column '{column}' has {k} different labels; a table has at most {MAX_CLASSES} classes"
        )));
    }
    let (classes, index) = sorted(first);
    let y: Vec<u8> = y.into_iter().map(|c| index[c]).collect();
    Table::new(name, features, classes, x, y)
}

/// The header of a CSV file's bytes: its column names, in order (for the page's choice of the
/// label column), or the problem [`parse_csv`] would name.
pub fn columns(bytes: &[u8]) -> Result<Vec<String>, String> {
    header("the CSV", bytes).map(|(_, _, names, _)| names)
}

/// Reads up to the end of the header: the reader after it, the record buffer, the names and
/// the header's line.
fn header<'a>(name: &str, bytes: &'a [u8]) -> Result<(Reader<'a>, Record, Vec<String>, usize), String> {
    let fail = |m: String| format!("{name}: {m}");
    if bytes.len() > MAX_BYTES {
        let mib = |n: usize| n as f64 / f64::from(1 << 20);
        return Err(fail(format!("{:.1} MiB; a CSV may have at most {:.0} MiB", mib(bytes.len()), mib(MAX_BYTES))));
    }
    if bytes.starts_with(b"\xFF\xFE") || bytes.starts_with(b"\xFE\xFF") {
        return Err(fail("the file is UTF-16 text; save it as UTF-8".into()));
    }
    let s = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let (start, line) = header_start(s);
    if start == s.len() {
        return Err(fail("the file is empty".into()));
    }
    let mut reader = Reader { s, i: start, line, delimiter: delimiter(&s[start..]) };
    let mut rec = Record::default();
    reader.next(&mut rec, MAX_FEATURES + 1).map_err(|e| fail(e.message(&[])))?;
    let header_line = rec.line;
    if rec.count > MAX_FEATURES + 1 {
        let most = MAX_FEATURES + 1;
        let why = format!("the most is {most} ({MAX_FEATURES} features and the label)");
        return Err(fail(format!("the header has {} columns; {why}", rec.count)));
    }
    let mut names: Vec<String> = Vec::with_capacity(rec.count);
    for k in 0..rec.count {
        let text = rec.text(k).map_err(|l| fail(format!("line {l} is not UTF-8 text")))?.trim();
        if text.is_empty() {
            return Err(fail(format!("line {header_line}, column {} has no name", k + 1)));
        }
        if let Some(j) = names.iter().position(|n| n == text) {
            let (text, k) = (quote(text), k + 1);
            return Err(fail(format!("line {header_line}, column {k}: '{text}' is column {}'s name too", j + 1)));
        }
        names.push(text.to_string());
    }
    if names.len() < 2 {
        let only = names.first().map_or(String::new(), |n| quote(n));
        return Err(fail(format!("the header has one column, '{only}'; a table needs features and a label")));
    }
    Ok((reader, rec, names, header_line))
}

/// A feature cell's value, or why it has none (text past float32's range reads as an infinity,
/// refused as NaN and the infinities are).
fn number(text: &str) -> Result<f32, &'static str> {
    match text.parse::<f32>() {
        Ok(v) if v.is_finite() => Ok(v),
        Ok(_) => Err("is not a finite float32 number"),
        Err(_) => Err("is not a number"),
    }
}

/// The classes in order — by value when every one is a number (its text breaking ties: "7"
/// and "07" are two classes), else by text — and each first-appearance index's place in it.
fn sorted(first: Vec<String>) -> (Vec<String>, Vec<u8>) {
    let values: Option<Vec<f64>> = first.iter().map(|c| c.parse::<f64>().ok().filter(|v| v.is_finite())).collect();
    let mut order: Vec<usize> = (0..first.len()).collect();
    // One sort (one copy of the sort in the page), by value first where there are values.
    order.sort_by(|&a, &b| {
        let by_value = values.as_ref().map_or(std::cmp::Ordering::Equal, |v| v[a].total_cmp(&v[b]));
        by_value.then_with(|| first[a].cmp(&first[b]))
    });
    let mut index = vec![0u8; first.len()];
    order.iter().enumerate().for_each(|(place, &c)| index[c] = place as u8);
    (order.iter().map(|&c| first[c].clone()).collect(), index)
}

/// Where the header starts: the first line with more than spaces and tabs (its offset and line
/// number); the end of the input when there is none.
fn header_start(s: &[u8]) -> (usize, usize) {
    let (mut i, mut line, mut start) = (0, 1, 0);
    while i < s.len() {
        match s[i] {
            b' ' | b'\t' => i += 1,
            b'\n' | b'\r' => {
                i += if s[i] == b'\r' && s.get(i + 1) == Some(&b'\n') { 2 } else { 1 };
                (line, start) = (line + 1, i);
            }
            _ => return (start, line),
        }
    }
    (s.len(), line)
}

/// The delimiter, from the header line alone (`s` starts with it): a comma when it has one
/// outside quotes, else the semicolon or tab it has more of (a comma when it has neither: one
/// column). A quote opens a quoted name only at a name's start, as the reader reads it.
fn delimiter(s: &[u8]) -> u8 {
    let (mut commas, mut semicolons, mut tabs) = (0usize, 0usize, 0usize);
    let (mut quoted, mut at_start, mut i) = (false, true, 0);
    while i < s.len() {
        match (quoted, s[i]) {
            (true, b'"') if s.get(i + 1) == Some(&b'"') => i += 1,
            (true, b'"') => (quoted, at_start) = (false, false),
            (true, _) => {}
            (false, b'"') if at_start => quoted = true,
            (false, b'\n' | b'\r') => break,
            (false, b',') => (commas, at_start) = (commas + 1, true),
            (false, b';') => (semicolons, at_start) = (semicolons + 1, true),
            (false, b'\t') => (tabs, at_start) = (tabs + 1, true),
            (false, b' ') => {}
            (false, _) => at_start = false,
        }
        i += 1;
    }
    match (commas, semicolons, tabs) {
        (0, s, t) if t > s => b'\t',
        (0, s, _) if s > 0 => b';',
        _ => b',',
    }
}

/// A kept cell: where its text ends in [`Record::buf`], the line it starts on, whether quoted.
struct Cell {
    end: usize,
    line: usize,
    quoted: bool,
}

/// One record (a row, or the header): its kept cells' texts side by side in `buf` (quotes
/// undone), and how many cells it has in all. Reused from row to row.
#[derive(Default)]
struct Record {
    buf: Vec<u8>,
    cells: Vec<Cell>,
    count: usize,
    line: usize,
}

impl Record {
    fn bytes(&self, k: usize) -> &[u8] {
        let start = if k == 0 { 0 } else { self.cells[k - 1].end };
        &self.buf[start..self.cells[k].end]
    }

    /// Cell `k`'s text, or the line of its first byte that is not UTF-8.
    fn text(&self, k: usize) -> Result<&str, usize> {
        let b = self.bytes(k);
        std::str::from_utf8(b).map_err(|e| self.cells[k].line + line_ends(&b[..e.valid_up_to()]))
    }

    /// A line of nothing but spaces (and tabs, unless they split cells): skipped.
    fn is_blank(&self) -> bool {
        self.count == 1 && !self.cells[0].quoted && self.bytes(0).iter().all(|&b| b == b' ' || b == b'\t')
    }
}

/// The line ends in `b`: CRLF, LF or CR, one each.
fn line_ends(b: &[u8]) -> usize {
    b.iter().enumerate().filter(|&(i, &c)| c == b'\n' || (c == b'\r' && b.get(i + 1) != Some(&b'\n'))).count()
}

/// What stopped a record: a quote never closed, or text after a closing quote.
struct Broken {
    line: usize,
    cell: usize,
    unclosed: bool,
}

impl Broken {
    /// Its message, naming the cell's column by `names` (by number past them: the header).
    fn message(&self, names: &[String]) -> String {
        let column = match names.get(self.cell) {
            Some(n) => format!("column '{}'", quote(n)),
            None => format!("column {}", self.cell + 1),
        };
        let what =
            if self.unclosed { "opens a quote that is never closed" } else { "has text after its closing quote" };
        format!("line {}, {column} {what}", self.line)
    }
}

/// Reads records from the bytes, one pass, counting lines.
struct Reader<'a> {
    s: &'a [u8],
    i: usize,
    line: usize,
    delimiter: u8,
}

impl Reader<'_> {
    /// The next record into `rec`, keeping its first `keep` cells (the rest are only counted);
    /// false at the end of the input.
    fn next(&mut self, rec: &mut Record, keep: usize) -> Result<bool, Broken> {
        (rec.count, rec.line) = (0, self.line);
        rec.buf.clear();
        rec.cells.clear();
        if self.i >= self.s.len() {
            return Ok(false);
        }
        loop {
            let (line, kept) = (self.line, rec.count < keep);
            let quoted = self.cell(rec, kept)?;
            if kept {
                rec.cells.push(Cell { end: rec.buf.len(), line, quoted });
            }
            rec.count += 1;
            match self.s.get(self.i) {
                None => return Ok(true),
                Some(&b) if b == self.delimiter => self.i += 1,
                Some(b'\n' | b'\r') => {
                    self.i += if self.s[self.i..].starts_with(b"\r\n") { 2 } else { 1 };
                    self.line += 1;
                    return Ok(true);
                }
                Some(_) => return Err(Broken { line: self.line, cell: rec.count - 1, unclosed: false }),
            }
        }
    }

    /// Past the spaces from `i` (around a quoted cell: tabs too, unless tabs split cells).
    fn spaces(&self, mut i: usize) -> usize {
        while i < self.s.len() && (self.s[i] == b' ' || (self.s[i] == b'\t' && self.delimiter != b'\t')) {
            i += 1;
        }
        i
    }

    /// One cell, up to its delimiter or line end (left unread), its text appended to `rec.buf`
    /// when `keep`; whether it was quoted.
    fn cell(&mut self, rec: &mut Record, keep: bool) -> Result<bool, Broken> {
        let (s, mut i) = (self.s, self.spaces(self.i));
        let find = |from: usize, stop: &dyn Fn(u8) -> bool| {
            s[from..].iter().position(|&b| stop(b)).map_or(s.len(), |p| from + p)
        };
        if s.get(i) != Some(&b'"') {
            let end = find(self.i, &|b| b == self.delimiter || b == b'\n' || b == b'\r');
            if keep {
                rec.buf.extend_from_slice(&s[self.i..end]);
            }
            self.i = end;
            return Ok(false);
        }
        let opened = self.line;
        i += 1;
        loop {
            let from = i;
            i = find(i, &|b| b == b'"');
            self.line += line_ends(&s[from..i]);
            if keep {
                rec.buf.extend_from_slice(&s[from..i]);
            }
            match s.get(i + 1) {
                _ if i == s.len() => return Err(Broken { line: opened, cell: rec.count, unclosed: true }),
                Some(b'"') if keep => rec.buf.push(b'"'),
                Some(b'"') => {}
                _ => break,
            }
            i += 2;
        }
        self.i = self.spaces(i + 1);
        Ok(true)
    }
}

#[cfg(test)]
mod tests;
