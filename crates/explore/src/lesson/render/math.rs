//! A small TeX subset to MathML Core, which browsers render themselves (no math library, no
//! font fetched): numbers (`mn`), letters (`mi`), operators (`mo`), `^`/`_` scripts, `\frac`,
//! `\sqrt`, `\operatorname`, `\text`/`\mathrm` (`mtext`), `\mathbb{R}`/`\mathcal{L}`, accents (`\hat`,
//! `\tilde`…), `\left`/`\right` fences and the symbols of [`super::tex`].
//!
//! Strict parsing (for `qscope lesson check`) stops at the first problem — an unknown command,
//! unbalanced braces, a script without its argument — with its byte offset; lenient parsing (for
//! the browser) shows what it cannot read as text and never fails.

use super::html::{Html, Tag};
use super::tex::{ACCENTS, Symbol, all_names, styled, symbol};
use qscope_quant::spec::did_you_mean;
use qscope_quant::text::shorten;

/// A problem in a formula, at a byte offset of its TeX source.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct MathError {
    pub offset: usize,
    pub message: String,
}

/// A formula as a tree of MathML elements.
#[derive(Clone, Debug, PartialEq)]
enum Node {
    /// An identifier; `true`: upright.
    Mi(String, bool),
    Mn(String),
    Mo(String),
    /// A delimiter after `\left`, `\right`, `\big`…: it stretches (a plain `(` does not, as in TeX).
    Fence(String),
    Text(String),
    Row(Vec<Node>),
    Frac(Box<Node>, Box<Node>),
    Sqrt(Box<Node>),
    Scripts {
        base: Box<Node>,
        sub: Option<Box<Node>>,
        sup: Option<Box<Node>>,
    },
    /// A base, its mark, and whether the mark stretches over the whole base.
    Accent(Box<Node>, &'static str, bool),
    Space(&'static str),
    /// Nothing to draw (`\!`, `\displaystyle`, `\left.`): left out of its row.
    Nothing,
}

/// Writes `tex` as a `<math>` element (`display="block"` for a display formula). `hint`: a
/// strict parse's unknown command gets a "did you mean" (a search through every name, so the
/// caller gives it to a bounded number of problems).
pub(super) fn write(tex: &str, display: bool, strict: bool, hint: bool, out: &mut Html) -> Result<(), MathError> {
    let mut p = Parser { chars: tex.char_indices().collect(), end: tex.len(), i: 0, depth: 0, strict, hint };
    let nodes = p.row(None)?;
    out.open(Tag::Math, if display { &[("display", "block")] } else { &[] });
    for n in &nodes {
        emit(n, display, out);
    }
    out.close(Tag::Math);
    Ok(())
}

/// How deeply groups, fractions and scripts may nest (the parser and the writer recurse).
const MAX_DEPTH: usize = 40;

struct Parser {
    chars: Vec<(usize, char)>,
    end: usize,
    i: usize,
    /// Atoms being read, one inside the other.
    depth: usize,
    strict: bool,
    /// Unknown commands get a "did you mean" (strict parsing only).
    hint: bool,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.i).map(|c| c.1)
    }

    fn offset(&self) -> usize {
        self.chars.get(self.i).map_or(self.end, |c| c.0)
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.i += 1;
        }
    }

    /// In strict mode an error at `offset`; in lenient mode `fallback` in its place.
    fn fail(&self, offset: usize, message: String, fallback: Node) -> Result<Node, MathError> {
        if self.strict { Err(MathError { offset, message }) } else { Ok(fallback) }
    }

    /// Nodes up to the end, or up to the `}` closing the group opened at `open`.
    fn row(&mut self, open: Option<usize>) -> Result<Vec<Node>, MathError> {
        let mut nodes = Vec::new();
        loop {
            self.skip_space();
            let at = self.offset();
            match self.peek() {
                None => {
                    if let Some(o) = open {
                        let message = "unbalanced braces: this '{' never closes".to_string();
                        self.fail(o, message, Node::Row(Vec::new()))?;
                    }
                    return Ok(nodes);
                }
                Some('}') => {
                    self.i += 1;
                    if open.is_some() {
                        return Ok(nodes);
                    }
                    let message = "unbalanced braces: '}' without a '{' before it".to_string();
                    nodes.push(self.fail(at, message, Node::Mo("}".into()))?);
                }
                Some(c @ ('^' | '_')) => {
                    self.i += 1;
                    let arg = self.argument(c)?;
                    self.attach(&mut nodes, c == '^', arg, at)?;
                }
                Some(_) => match self.atom()? {
                    Node::Nothing => {}
                    n => nodes.push(n),
                },
            }
        }
    }

    /// Puts a script on the last node (or on nothing).
    fn attach(&self, nodes: &mut Vec<Node>, sup: bool, arg: Node, at: usize) -> Result<(), MathError> {
        let last = nodes.pop().unwrap_or(Node::Row(Vec::new()));
        let arg = Some(Box::new(arg));
        let node = match last {
            Node::Scripts { base, sub, sup: None } if sup => Node::Scripts { base, sub, sup: arg },
            Node::Scripts { base, sub: None, sup: s } if !sup => Node::Scripts { base, sub: arg, sup: s },
            Node::Scripts { .. } => {
                let what = if sup { "superscript" } else { "subscript" };
                let message = format!("a double {what}: use braces, e.g. {{x^a}}^b");
                self.fail(at, message, Node::Row(Vec::new()))?;
                // Leniently, the extra script goes on an empty base after the scripted node
                // (as `{}^b`), not around it: a chain of scripts stays flat, however long.
                nodes.push(last);
                let base = Box::new(Node::Row(Vec::new()));
                if sup {
                    Node::Scripts { base, sub: None, sup: arg }
                } else {
                    Node::Scripts { base, sub: arg, sup: None }
                }
            }
            base => {
                let base = Box::new(base);
                if sup {
                    Node::Scripts { base, sub: None, sup: arg }
                } else {
                    Node::Scripts { base, sub: arg, sup: None }
                }
            }
        };
        nodes.push(node);
        Ok(())
    }

    /// One argument: a `{group}`, a command, or a single character.
    fn argument(&mut self, of: char) -> Result<Node, MathError> {
        self.skip_space();
        let at = self.offset();
        match self.peek() {
            None | Some('}' | '^' | '_') => {
                let what = if of == '\\' {
                    "this command"
                } else if of == '^' {
                    "'^'"
                } else {
                    "'_'"
                };
                self.fail(at, format!("{what} needs an argument (a {{group}} or one character)"), Node::Row(Vec::new()))
            }
            Some(c) if c.is_ascii_digit() => {
                self.i += 1;
                Ok(Node::Mn(c.to_string()))
            }
            Some(_) => match self.atom()? {
                Node::Nothing => Ok(Node::Row(Vec::new())),
                n => Ok(n),
            },
        }
    }

    /// A group, command, number, letter or operator; nested too deeply, the rest as text.
    fn atom(&mut self) -> Result<Node, MathError> {
        if self.depth >= MAX_DEPTH {
            let (at, rest): (usize, String) = (self.offset(), self.chars[self.i..].iter().map(|c| c.1).collect());
            self.i = self.chars.len();
            return self.fail(at, format!("the formula nests deeper than {MAX_DEPTH} levels"), Node::Text(rest));
        }
        self.depth += 1;
        let node = self.atom_within();
        self.depth -= 1;
        node
    }

    fn atom_within(&mut self) -> Result<Node, MathError> {
        let at = self.offset();
        let Some(c) = self.peek() else { return Ok(Node::Row(Vec::new())) };
        self.i += 1;
        Ok(match c {
            '{' => Node::Row(self.row(Some(at))?),
            '\\' => self.command(at)?,
            '0'..='9' | '.' if c != '.' || self.peek().is_some_and(|d| d.is_ascii_digit()) => self.number(c),
            c if c.is_alphabetic() => Node::Mi(c.to_string(), false),
            '-' | '−' => Node::Mo("−".into()),
            ':' if self.peek() == Some('=') => {
                self.i += 1;
                Node::Mo("≔".into())
            }
            '*' => Node::Mo("∗".into()),
            '\'' => Node::Mo("′".into()),
            '~' => Node::Space("0.25em"),
            '&' | '%' | '#' => {
                let message = format!("'{c}' is not supported in a formula (write \\{c} for the character)");
                self.fail(at, message, Node::Mo(c.to_string()))?
            }
            c if c.is_numeric() => Node::Mn(c.to_string()),
            c => Node::Mo(c.to_string()),
        })
    }

    /// Digits with at most one decimal point followed by a digit.
    fn number(&mut self, first: char) -> Node {
        let mut s = first.to_string();
        let mut point = first == '.';
        while let Some(c) = self.peek() {
            let next_digit = self.chars.get(self.i + 1).is_some_and(|d| d.1.is_ascii_digit());
            if c.is_ascii_digit() || (c == '.' && !point && next_digit) {
                point |= c == '.';
                s.push(c);
                self.i += 1;
            } else {
                break;
            }
        }
        Node::Mn(s)
    }

    /// `\name…` after its backslash (which is at `at`).
    fn command(&mut self, at: usize) -> Result<Node, MathError> {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
            self.i += 1;
        }
        if self.i == start && self.peek().is_some() {
            self.i += 1;
        }
        let name: String = self.chars[start..self.i].iter().map(|c| c.1).collect();
        if let Some(s) = symbol(&name) {
            return Ok(match s {
                Symbol::Ident(t, upright) => Node::Mi(t.into(), upright),
                Symbol::Op(t) => Node::Mo(t.into()),
                Symbol::Function(t) => Node::Mi(t.into(), true),
                Symbol::Space(w) => Node::Space(w),
                Symbol::Nothing => Node::Nothing,
            });
        }
        if let Some((_, mark, wide)) = ACCENTS.iter().find(|(n, _, _)| *n == name) {
            return Ok(Node::Accent(Box::new(self.argument('\\')?), mark, *wide));
        }
        match name.as_str() {
            "frac" | "dfrac" | "tfrac" => {
                let num = self.argument('\\')?;
                Ok(Node::Frac(Box::new(num), Box::new(self.argument('\\')?)))
            }
            "sqrt" => {
                self.skip_space();
                if self.peek() == Some('[') {
                    let message = "\\sqrt[n]{…} (an n-th root) is not supported: write x^{1/n}".to_string();
                    return self.fail(at, message, Node::Text("\\sqrt".into()));
                }
                Ok(Node::Sqrt(Box::new(self.argument('\\')?)))
            }
            "operatorname" => {
                let t = self.text_argument(&name, at)?;
                Ok(if t.is_empty() { Node::Row(Vec::new()) } else { Node::Mi(t, true) })
            }
            "text" | "textrm" | "mathrm" | "mbox" => Ok(Node::Text(self.text_argument(&name, at)?)),
            "mathbb" => self.styled("mathbb", false, at),
            "mathcal" => self.styled("mathcal", true, at),
            "left" | "right" | "middle" | "big" | "Big" | "bigl" | "bigr" | "Bigl" | "Bigr" => self.fence(&name, at),
            "" => self.fail(at, "a formula ends with a lone '\\'".into(), Node::Text("\\".into())),
            _ if !self.strict => Ok(Node::Text(format!("\\{name}"))),
            _ => {
                let hint = match self.hint {
                    true => did_you_mean(&name, all_names()).map(|s| format!(" (did you mean \\{s}?)")),
                    false => None,
                };
                let hint = hint.unwrap_or_default();
                let message = format!("unknown command \\{} in a formula{hint}", shorten(&name, 60));
                self.fail(at, message, Node::Text(format!("\\{name}")))
            }
        }
    }

    /// The plain text of `{…}` after a command like `\text` (braces may nest; `\x` is `x`).
    fn text_argument(&mut self, name: &str, at: usize) -> Result<String, MathError> {
        self.skip_space();
        if self.peek() != Some('{') {
            let name = shorten(name, 60);
            let message = format!("\\{name} needs its text in braces, e.g. \\{name}{{round}}");
            self.fail(at, message, Node::Row(Vec::new()))?;
            return Ok(String::new());
        }
        let open = self.offset();
        self.i += 1;
        let (mut depth, mut text) = (1usize, String::new());
        while let Some(c) = self.peek() {
            self.i += 1;
            match c {
                '\\' => {
                    if let Some(n) = self.peek() {
                        self.i += 1;
                        text.push(n);
                    }
                }
                '{' => depth += 1,
                '}' if depth == 1 => return Ok(text),
                '}' => depth -= 1,
                c => text.push(c),
            }
        }
        self.fail(open, "unbalanced braces: this '{' never closes".into(), Node::Row(Vec::new()))?;
        Ok(text)
    }

    /// `\mathbb{…}` (double-struck: the indicator 𝟙, ℝ, 𝔼…) or `\mathcal{…}` (script capitals:
    /// ℒ, 𝒩…), letter by letter.
    fn styled(&mut self, name: &str, calligraphic: bool, at: usize) -> Result<Node, MathError> {
        let t = self.text_argument(name, at)?;
        match t.chars().map(|c| styled(c, calligraphic)).collect::<Option<String>>() {
            Some(s) if !s.is_empty() => Ok(Node::Mi(s, true)),
            _ => {
                let what = if calligraphic { "capital letters A–Z" } else { "letters and digits" };
                let message = format!("\\{name}{{{}}}: only {what} have this style", shorten(&t, 60));
                self.fail(at, message, Node::Text(t))
            }
        }
    }

    /// The delimiter after `\left`, `\right`, `\big`…: only the fence is drawn (`.` is none).
    fn fence(&mut self, name: &str, at: usize) -> Result<Node, MathError> {
        self.skip_space();
        let missing = format!("\\{name} needs a delimiter after it, e.g. \\{name}( or \\{name}.");
        match self.peek() {
            Some('.') => {
                self.i += 1;
                Ok(Node::Nothing)
            }
            Some(c @ ('(' | ')' | '[' | ']' | '|' | '/' | '<' | '>')) => {
                self.i += 1;
                Ok(Node::Fence(c.to_string()))
            }
            Some('\\') => {
                let here = self.offset();
                self.i += 1;
                match self.command(here)? {
                    Node::Mo(t) => Ok(Node::Fence(t)),
                    _ => self.fail(here, missing, Node::Nothing),
                }
            }
            _ => self.fail(at, missing, Node::Nothing),
        }
    }
}

/// Characters MathML stretches by default, which TeX sets at their size unless `\left`… asks.
fn is_fence(t: &str) -> bool {
    matches!(t, "(" | ")" | "[" | "]" | "{" | "}" | "|" | "‖" | "⌊" | "⌋" | "⌈" | "⌉" | "⟨" | "⟩" | "/" | "∣")
}

/// Whether a base takes its subscript underneath in a display formula (`\sum_i`, `\max_x`).
fn takes_limits(base: &Node) -> bool {
    match base {
        Node::Mo(t) => matches!(t.as_str(), "∑" | "∏"),
        Node::Mi(t, true) => matches!(t.as_str(), "max" | "min" | "lim" | "sup" | "inf" | "arg"),
        _ => false,
    }
}

/// One element (a row of one node is the node itself); `display`: limits go underneath.
fn emit(node: &Node, display: bool, out: &mut Html) {
    match node {
        Node::Mi(t, upright) => {
            let normal = *upright && t.chars().count() == 1;
            out.leaf(Tag::Mi, if normal { &[("mathvariant", "normal")] } else { &[] }, t);
        }
        Node::Mn(t) => out.leaf(Tag::Mn, &[], t),
        Node::Mo(t) if is_fence(t) => out.leaf(Tag::Mo, &[("stretchy", "false")], t),
        Node::Mo(t) | Node::Fence(t) => out.leaf(Tag::Mo, &[], t),
        // MathML trims a token's spaces: keep them as no-break spaces.
        Node::Text(t) => out.leaf(Tag::Mtext, &[], &t.replace(' ', "\u{a0}")),
        Node::Row(nodes) if nodes.len() == 1 => emit(&nodes[0], display, out),
        Node::Row(nodes) => wrap(Tag::Mrow, &[], nodes.iter(), display, out),
        Node::Frac(a, b) => wrap(Tag::Mfrac, &[], [a, b].into_iter().map(|b| &**b), display, out),
        Node::Sqrt(a) => wrap(Tag::Msqrt, &[], std::iter::once(&**a), display, out),
        Node::Scripts { base, sub, sup } => {
            let tag = match (sub, sup) {
                (Some(_), None) if display && takes_limits(base) => Tag::Munder,
                (Some(_), Some(_)) => Tag::Msubsup,
                (Some(_), None) => Tag::Msub,
                _ => Tag::Msup,
            };
            let parts = std::iter::once(base).chain(sub).chain(sup).map(|b| &**b);
            wrap(tag, &[], parts, display, out);
        }
        // An overline drawn as the row's top border (the page's and the handout's stylesheets):
        // a mark stretched over the base needs a font with a MATH table, which few systems have.
        Node::Accent(base, "‾", true) => {
            wrap(Tag::Mrow, &[("class", "overline")], std::iter::once(&**base), display, out)
        }
        Node::Accent(base, mark, wide) => {
            out.open(Tag::Mover, &[("accent", "true")]);
            emit(base, display, out);
            out.leaf(Tag::Mo, if *wide { &[("stretchy", "true")] } else { &[] }, mark);
            out.close(Tag::Mover);
        }
        Node::Nothing => {}
        Node::Space(width) => {
            out.open(Tag::Mspace, &[("width", width)]);
            out.close(Tag::Mspace);
        }
    }
}

fn wrap<'a>(
    tag: Tag,
    attrs: &[(&'static str, &str)],
    nodes: impl Iterator<Item = &'a Node>,
    display: bool,
    out: &mut Html,
) {
    out.open(tag, attrs);
    for n in nodes {
        emit(n, display, out);
    }
    out.close(tag);
}
