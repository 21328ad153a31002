//! The Markdown layer of a lesson file: the `# title`, the summary, the `## steps` with their
//! text and their `qscope` block of `key=value` lines, and the checks that need only the text
//! (fences that never close, `$`/`$$` formulas that never close, lengths, and whatever the
//! renderer cannot read: unknown TeX commands, unbalanced braces). What the keys mean is
//! checked by the parent module.

use std::collections::HashSet;

use super::lines::{Backticks, closes, fence, heading};
use super::{LessonError, MAX_ERRORS, MAX_STEPS, MAX_TEXT, render};
use qscope_quant::text::shorten;

/// A lesson file cut into its parts, keys not yet interpreted.
#[derive(Clone, Debug, Default)]
pub(super) struct Raw {
    pub title: String,
    pub summary: String,
    /// The lesson-wide qscope block (before the first step): settings every step starts from.
    pub defaults: Option<Block>,
    pub steps: Vec<RawStep>,
}

#[derive(Clone, Debug, Default)]
pub(super) struct RawStep {
    pub title: String,
    /// 1-based line of the `##` heading.
    pub line: usize,
    /// The text's lines with their numbers, the qscope block left out.
    pub text: Vec<(usize, String)>,
    pub block: Option<Block>,
}

/// A step's fenced `qscope` block.
#[derive(Clone, Debug, Default)]
pub(super) struct Block {
    /// The line of its opening fence.
    pub line: usize,
    /// `(line, key, value)`, trimmed, in order.
    pub entries: Vec<(usize, String, String)>,
    /// Whether more than [`MAX_ENTRIES`] lines were given (and named as an error).
    pub full: bool,
}

impl RawStep {
    /// The step's Markdown text: its lines without leading and trailing blank ones.
    pub fn markdown(&self) -> String {
        markdown(&self.text)
    }
}

/// Numbered lines as one text, without leading and trailing blank lines.
fn markdown(lines: &[(usize, String)]) -> String {
    let kept: Vec<&str> = trimmed(lines).iter().map(|(_, l)| l.as_str()).collect();
    kept.join("\n")
}

/// The lines without leading and trailing blank ones.
fn trimmed(lines: &[(usize, String)]) -> &[(usize, String)] {
    let first = lines.iter().position(|(_, l)| !l.trim().is_empty()).unwrap_or(lines.len());
    let last = lines.iter().rposition(|(_, l)| !l.trim().is_empty()).map_or(first, |i| i + 1);
    &lines[first..last.max(first)]
}

/// An open fence: its character, length, whether it is the step's qscope block, and its line.
#[derive(Clone, Copy, Debug)]
struct Fence {
    ch: char,
    len: usize,
    qscope: bool,
    line: usize,
}

/// Cuts a lesson file into its parts; every problem of structure is an error with its line.
pub(super) fn split(text: &str) -> (Raw, Vec<LessonError>) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut raw = Raw::default();
    let mut errors = Vec::new();
    let mut title_line: Option<usize> = None;
    let mut summary: Vec<(usize, String)> = Vec::new();
    let mut open: Option<Fence> = None;
    // The errors before the open fence: the lines of a qscope block that never closes are not
    // key=value lines, so their errors are dropped for the one that says so.
    let mut before_fence = 0;
    let mut before_title_reported = false;
    for (i, line) in text.split('\n').enumerate() {
        let (n, line) = (i + 1, line.strip_suffix('\r').unwrap_or(line));
        let step_no = raw.steps.len();
        if let Some(f) = open {
            let closes = closes(line, f.ch, f.len);
            if closes {
                open = None;
            }
            match raw.steps.last_mut() {
                Some(step) if f.qscope => {
                    if !closes {
                        let title = step.title.clone();
                        let at =
                            |line, message| LessonError { step: Some((step_no, title)), line: Some(line), message };
                        entry(step.block.as_mut(), n, line, &mut errors, at);
                    }
                }
                Some(step) => step.text.push((n, line.to_string())),
                None if f.qscope => {
                    if !closes {
                        let at =
                            |line, message: String| LessonError::at(line, format!("the lesson's defaults: {message}"));
                        entry(raw.defaults.as_mut(), n, line, &mut errors, at);
                    }
                }
                None => summary.push((n, line.to_string())),
            }
            continue;
        }
        if let Some((ch, len, info)) = fence(line) {
            let mut f = Fence { ch, len, qscope: info == "qscope", line: n };
            match raw.steps.last_mut() {
                Some(step) if f.qscope => match &step.block {
                    Some(first) => {
                        let message =
                            format!("a step has one qscope block; this one repeats the block of line {}", first.line);
                        errors.push(err_in(step_no, step, n, message));
                        f.qscope = false;
                        step.text.push((n, line.to_string()));
                    }
                    None => step.block = Some(Block { line: n, entries: Vec::new(), full: false }),
                },
                Some(step) => step.text.push((n, line.to_string())),
                // Before the first step: the lesson-wide defaults, once.
                None if f.qscope && title_line.is_some() && raw.defaults.is_none() => {
                    raw.defaults = Some(Block { line: n, entries: Vec::new(), full: false });
                }
                None => {
                    if f.qscope {
                        let message = match &raw.defaults {
                            Some(first) => format!(
                                "a lesson has one qscope block of defaults (line {}); this one belongs in a step (after a '## Step title')",
                                first.line
                            ),
                            None => {
                                "a qscope block belongs after the '# Title' (the lesson's defaults) or in a step".into()
                            }
                        };
                        errors.push(LessonError::at(n, message));
                        f.qscope = false;
                    }
                    summary.push((n, line.to_string()));
                }
            }
            open = Some(f);
            before_fence = errors.len();
            continue;
        }
        match heading(line) {
            Some((1, t)) => match title_line {
                Some(first) => errors.push(LessonError::at(
                    n,
                    format!("a lesson has one '# title' (line {first}); write '## {t}' for a step"),
                )),
                None if t.is_empty() => {
                    title_line = Some(n);
                    errors.push(LessonError::at(n, "the lesson's '# title' is empty"));
                }
                None => {
                    title_line = Some(n);
                    raw.title = t.to_string();
                }
            },
            Some((2, t)) => {
                if title_line.is_none() && !before_title_reported {
                    before_title_reported = true;
                    errors.push(LessonError::at(n, "a lesson starts with its '# Title' line"));
                }
                raw.steps.push(RawStep { title: t.to_string(), line: n, ..RawStep::default() });
            }
            _ if title_line.is_none() => {
                if !line.trim().is_empty() && !before_title_reported {
                    before_title_reported = true;
                    errors.push(LessonError::at(n, "a lesson starts with its '# Title' line"));
                }
            }
            _ => match raw.steps.last_mut() {
                Some(step) => step.text.push((n, line.to_string())),
                None => summary.push((n, line.to_string())),
            },
        }
    }
    if let Some(f) = open {
        errors.truncate(before_fence);
        let what = if f.qscope { "the qscope block" } else { "the code block" };
        let marker: String = std::iter::repeat_n(f.ch, f.len).collect();
        let message = format!("{what} opened with {} never closes", shorten(&marker, 60));
        errors.push(match raw.steps.iter().rposition(|s| s.line < f.line) {
            Some(k) => err_in(k + 1, &raw.steps[k], f.line, message),
            None => LessonError::at(f.line, message),
        });
    }
    check_counts(&raw, title_line, before_title_reported, &mut errors);
    check_text(None, &summary, &mut errors);
    for (k, step) in raw.steps.iter().enumerate() {
        check_text(Some((k + 1, step)), &step.text, &mut errors);
    }
    raw.summary = markdown(&summary);
    (raw, errors)
}

fn check_counts(raw: &Raw, title_line: Option<usize>, reported: bool, errors: &mut Vec<LessonError>) {
    if title_line.is_none() && !reported {
        errors.push(LessonError::at(1, "a lesson starts with its '# Title' line"));
    }
    if raw.steps.is_empty() {
        errors.push(LessonError::whole("a lesson has at least one step: a '## Step title' line and its text"));
    }
    if let Some(extra) = raw.steps.get(MAX_STEPS) {
        errors.push(err_in(
            MAX_STEPS + 1,
            extra,
            extra.line,
            format!("a lesson has at most {MAX_STEPS} steps; this one has {}", raw.steps.len()),
        ));
    }
    for (k, step) in raw.steps.iter().enumerate() {
        if step.title.is_empty() {
            errors.push(err_in(k + 1, step, step.line, "the step's '## title' is empty"));
        } else if step.title.chars().count() > MAX_TITLE {
            errors.push(err_in(k + 1, step, step.line, format!("the title is longer than {MAX_TITLE} characters")));
        }
    }
}

/// The longest step title, in characters.
const MAX_TITLE: usize = 120;

/// The most `key=value` lines of a qscope block (a view has about 20 keys; `q` repeats up to 6
/// times): the lines after it are one error, not read.
pub const MAX_ENTRIES: usize = 64;

/// One line of a qscope block: a comment, a blank, or `key=value`; `at` makes an error at a
/// line (of the step, or of the lesson's defaults).
fn entry(
    block: Option<&mut Block>,
    n: usize,
    line: &str,
    errors: &mut Vec<LessonError>,
    at: impl FnOnce(usize, String) -> LessonError,
) {
    let t = line.trim();
    if t.is_empty() || t.starts_with('#') {
        return;
    }
    match t.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => {
            let Some(b) = block else { return };
            if b.entries.len() < MAX_ENTRIES {
                b.entries.push((n, k.trim().to_string(), v.trim().to_string()));
            } else if !std::mem::replace(&mut b.full, true) {
                let message = format!(
                    "a qscope block has at most {MAX_ENTRIES} settings; this line and those after it are not read"
                );
                errors.push(at(n, message));
            }
        }
        _ => errors.push(at(n, format!("'{}': expected key=value", shorten(t, 60)))),
    }
}

fn err_in(number: usize, step: &RawStep, line: usize, message: impl Into<String>) -> LessonError {
    LessonError { step: Some((number, step.title.clone())), line: Some(line), message: message.into() }
}

/// Length and formulas of a text (the summary when `step` is None): every `$` and `$$` closes
/// in its paragraph, outside code blocks and code spans; `\$` is a literal dollar.
fn check_text(step: Option<(usize, &RawStep)>, lines: &[(usize, String)], errors: &mut Vec<LessonError>) {
    let at = |line: usize, message: String| match step {
        Some((k, s)) => err_in(k, s, line, message),
        None => LessonError::at(line, format!("the summary: {message}")),
    };
    let first_error = errors.len();
    let length = markdown(lines).chars().count();
    if length > MAX_TEXT {
        let first = step.map_or_else(|| lines.first().map_or(1, |l| l.0), |(_, s)| s.line);
        errors.push(at(first, format!("the text has {length} characters; at most {MAX_TEXT}")));
    }
    let mut paragraph: Vec<(usize, &str)> = Vec::new();
    let mut fenced: Option<(char, usize)> = None;
    for (n, line) in lines {
        if let Some((ch, len)) = fenced {
            if closes(line, ch, len) {
                fenced = None;
            }
            continue;
        }
        if let Some((ch, len, _)) = fence(line) {
            fenced = Some((ch, len));
        }
        if fenced.is_some() || line.trim().is_empty() {
            if let Some(e) = unclosed_math(&paragraph) {
                errors.push(at(e.0, e.1));
            }
            paragraph.clear();
        } else {
            paragraph.push((*n, line));
        }
    }
    if let Some(e) = unclosed_math(&paragraph) {
        errors.push(at(e.0, e.1));
    }
    // What the renderer cannot read (an unknown TeX command, unbalanced braces…), at its line
    // in the file; a problem already named above is not repeated.
    let kept = trimmed(lines);
    let text: Vec<&str> = kept.iter().map(|(_, l)| l.as_str()).collect();
    let mut named: HashSet<(Option<usize>, String)> =
        errors[first_error..].iter().map(|e| (e.line, e.message.clone())).collect();
    // Only problems that can still be listed get a "did you mean" (a search through every name).
    for p in render::problems_hinting(&text.join("\n"), MAX_ERRORS.saturating_sub(errors.len())) {
        let line = kept.get(p.line_in_text.wrapping_sub(1)).map_or_else(|| lines.first().map_or(1, |l| l.0), |l| l.0);
        let e = at(line, p.message);
        if named.insert((e.line, e.message.clone())) {
            errors.push(e);
        }
    }
}

/// The first formula of a paragraph that does not close: `(line where it opens, message)`.
fn unclosed_math(paragraph: &[(usize, &str)]) -> Option<(usize, String)> {
    let chars: Vec<(usize, char)> =
        paragraph.iter().flat_map(|(n, l)| l.chars().chain(['\n']).map(move |c| (*n, c))).collect();
    let mut open: Option<(usize, bool)> = None; // (line, display)
    let mut backticks: Option<Backticks> = None;
    let mut i = 0;
    while i < chars.len() {
        let (n, c) = chars[i];
        let next = chars.get(i + 1).map(|p| p.1);
        match c {
            '\\' => i += 2,
            '`' if open.is_none() => {
                let run = chars[i..].iter().take_while(|p| p.1 == '`').count();
                i += run;
                // A code span ends at the next run of exactly as many backticks; without one,
                // the backticks are text.
                let ticks = backticks.get_or_insert_with(|| Backticks::of(chars.iter().map(|p| p.1 == '`')));
                if let Some(k) = ticks.closing(i, run, chars.len()) {
                    i = k + run;
                }
            }
            '$' => {
                let double = next == Some('$');
                let (now, width) = match open {
                    None => (Some((n, double)), if double { 2 } else { 1 }),
                    Some((_, true)) if double => (None, 2),
                    Some((_, true)) => (open, 1),
                    Some((_, false)) => (None, 1),
                };
                open = now;
                i += width;
            }
            _ => i += 1,
        }
    }
    open.map(|(n, display)| {
        let message = if display {
            "a display formula opened with $$ does not close (end it with $$)"
        } else {
            "an inline formula opened with $ does not close in its paragraph (end it with $; write \\$ for a dollar sign)"
        };
        (n, message.to_string())
    })
}
