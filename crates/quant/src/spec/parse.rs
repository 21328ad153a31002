//! The call syntax, `name(arg, key=value, …)`, and the tokenizer that the Keras config
//! form (`json.rs`) shares: a recursive-descent reader over the text that records byte
//! spans, so an error can point at what it is about.

use super::{Arg, SpecError, err, names};
use crate::catalogue::Entry;
use crate::schema::Literal;
use crate::text::shorten;

/// The text and the byte position reached in it.
pub(super) struct Parser<'a> {
    s: &'a str,
    pub(super) pos: usize,
}

impl<'a> Parser<'a> {
    pub(super) fn new(s: &'a str) -> Self {
        Parser { s, pos: 0 }
    }

    /// `name` or `name(args)` to the end of the text: the entry it names and the arguments.
    pub(super) fn call(&mut self) -> Result<(&'static Entry, Vec<Arg>), SpecError> {
        let (name, name_span) = self.name()?;
        let entry = names::entry(&name, name_span)?;
        let args = if self.eat('(') { self.args()? } else { vec![] };
        self.ws();
        self.end()?;
        Ok((entry, args))
    }

    pub(super) fn peek(&self) -> Option<char> {
        self.s[self.pos..].chars().next()
    }

    pub(super) fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    pub(super) fn ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.bump();
        }
    }

    pub(super) fn eat(&mut self, c: char) -> bool {
        self.ws();
        if self.peek() == Some(c) {
            self.bump();
            true
        } else {
            false
        }
    }

    pub(super) fn expect(&mut self, c: char, what: &str) -> Result<(), SpecError> {
        if self.eat(c) { Ok(()) } else { self.unexpected(what) }
    }

    pub(super) fn unexpected<T>(&self, what: &str) -> Result<T, SpecError> {
        match self.peek() {
            None => err(format!("unexpected end of spec; expected {what}"), Some((self.pos, self.pos))),
            Some(c) => err(
                format!("unexpected '{c}' at position {}; expected {what}", self.pos + 1),
                Some((self.pos, self.pos + c.len_utf8())),
            ),
        }
    }

    pub(super) fn end(&self) -> Result<(), SpecError> {
        if self.pos == self.s.len() {
            Ok(())
        } else {
            let rest = &self.s[self.pos..];
            err(
                format!("unexpected text '{}' after the end of the spec", shorten(rest.trim_end(), 60)),
                Some((self.pos, self.s.len())),
            )
        }
    }

    fn ident(&mut self) -> Option<(String, (usize, usize))> {
        self.ws();
        let start = self.pos;
        match self.peek() {
            Some(c) if c.is_alphabetic() || c == '_' => {}
            _ => return None,
        }
        while self.peek().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            self.bump();
        }
        Some((self.s[start..self.pos].to_string(), (start, self.pos)))
    }

    /// `ns.name` (dots allowed between identifiers).
    fn name(&mut self) -> Result<(String, (usize, usize)), SpecError> {
        let Some((mut name, (start, mut end))) = self.ident() else {
            return self.unexpected("a quantizer name such as qkeras.quantized_bits");
        };
        while self.peek() == Some('.') {
            self.bump();
            match self.ident() {
                Some((part, (_, e))) => {
                    name.push('.');
                    name.push_str(&part);
                    end = e;
                }
                None => return self.unexpected("a name after '.'"),
            }
        }
        Ok((name, (start, end)))
    }

    fn args(&mut self) -> Result<Vec<Arg>, SpecError> {
        let mut args = Vec::new();
        loop {
            if self.eat(')') {
                return Ok(args);
            }
            self.ws();
            let start = self.pos;
            // `key=value` or a positional value.
            let save = self.pos;
            let key = match self.ident() {
                Some((k, _)) if self.eat('=') => Some(k),
                _ => {
                    self.pos = save;
                    None
                }
            };
            let value = self.value()?;
            args.push(Arg { key, value, span: (start, self.pos) });
            self.ws();
            if self.eat(',') {
                continue;
            }
            self.expect(')', "',' or ')'")?;
            return Ok(args);
        }
    }

    pub(super) fn value(&mut self) -> Result<Literal, SpecError> {
        self.ws();
        match self.peek() {
            Some('\'') | Some('"') => self.string().map(Literal::Str),
            Some('[') => self.list(),
            Some(c) if c.is_ascii_digit() || c == '-' || c == '+' || c == '.' => self.number(),
            Some(c) if c.is_alphabetic() || c == '_' => {
                let (w, _) = self.ident().expect("starts with a letter");
                Ok(match w.as_str() {
                    "True" | "true" => Literal::Bool(true),
                    "False" | "false" => Literal::Bool(false),
                    "None" | "null" => Literal::None,
                    "inf" | "Infinity" => Literal::Float(f64::INFINITY),
                    "nan" | "NaN" => Literal::Float(f64::NAN),
                    _ => Literal::Str(w),
                })
            }
            _ => self.unexpected("a value (number, True/False, None, 'string' or [list])"),
        }
    }

    pub(super) fn string(&mut self) -> Result<String, SpecError> {
        let start = self.pos;
        let quote = self.bump().expect("caller saw a quote");
        let mut out = String::new();
        loop {
            match self.bump() {
                None => return err("unterminated string", Some((start, self.pos))),
                Some(c) if c == quote => return Ok(out),
                Some('\\') => match self.bump() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some(c) => out.push(c),
                    None => return err("unterminated string", Some((start, self.pos))),
                },
                Some(c) => out.push(c),
            }
        }
    }

    fn number(&mut self) -> Result<Literal, SpecError> {
        let start = self.pos;
        if matches!(self.peek(), Some('-' | '+')) {
            self.bump();
        }
        // Signed words: -inf, +inf.
        if self.peek().is_some_and(char::is_alphabetic) {
            let (w, _) = self.ident().expect("letter");
            let neg = self.s[start..].starts_with('-');
            return match w.as_str() {
                "inf" | "Infinity" => Ok(Literal::Float(if neg { f64::NEG_INFINITY } else { f64::INFINITY })),
                _ => {
                    err(format!("'{}' is not a number", shorten(&self.s[start..self.pos], 60)), Some((start, self.pos)))
                }
            };
        }
        while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_'))
            || (matches!(self.peek(), Some('-' | '+')) && matches!(self.s[..self.pos].chars().last(), Some('e' | 'E')))
        {
            self.bump();
        }
        let text = &self.s[start..self.pos];
        let clean = text.replace('_', "");
        if let Ok(v) = clean.parse::<i64>() {
            return Ok(Literal::Int(v));
        }
        let is_float = clean.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '-' | '+'));
        match clean.parse::<f64>() {
            Ok(v) if is_float => Ok(Literal::Float(v)),
            _ => err(format!("'{}' is not a number", shorten(text, 60)), Some((start, self.pos))),
        }
    }

    fn list(&mut self) -> Result<Literal, SpecError> {
        let start = self.pos;
        self.bump();
        let mut v = Vec::new();
        loop {
            self.ws();
            if self.eat(']') {
                return Ok(Literal::List(v));
            }
            match self.number()? {
                Literal::Int(i) => v.push(i as f64),
                Literal::Float(f) => v.push(f),
                _ => return err("lists hold numbers only", Some((start, self.pos))),
            }
            self.eat(',');
        }
    }
}
