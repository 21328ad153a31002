//! Spec text ⇄ [`Quantizer`].
//!
//! ```text
//! spec   := call | json
//! call   := name ["(" [arg ("," arg)*] [","] ")"]      name: [namespace "."] identifier
//! arg    := [key "="] value                            positional args follow the library's order
//! value  := int | float | True | False | None | 'str' | "str" | [n, n, …] | bare-word
//! json   := {"class_name": "quantized_bits", "config": {"bits": 4, …}}   (Keras get_config)
//! ```
//! Printing gives the canonical form (namespace, then only the parameters that differ
//! from the library default, as keywords), which parses back to the same quantizer.

use std::fmt;

use super::catalogue::{ENTRIES, Entry, Quantizer};
use super::schema::{Family, Literal, fmt_float};

/// A spec that could not be turned into a quantizer, with what is allowed.
#[derive(Clone, Debug, PartialEq)]
pub struct SpecError {
    pub message: String,
    /// Byte range of the offending text in the spec, when known.
    pub span: Option<(usize, usize)>,
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SpecError {}

fn err<T>(message: impl Into<String>, span: Option<(usize, usize)>) -> Result<T, SpecError> {
    Err(SpecError { message: message.into(), span })
}

/// Parses a spec (qscope form, bare QKeras string or Keras config JSON).
pub fn parse(text: &str) -> Result<Quantizer, SpecError> {
    let mut p = Parser { s: text, pos: 0 };
    p.ws();
    if p.peek() == Some('{') {
        let json = p.json_value()?;
        p.ws();
        p.end()?;
        return from_json(&json);
    }
    let (name, name_span) = p.name()?;
    let entry =
        lookup(&name).ok_or_else(|| SpecError { message: unknown_name_message(&name), span: Some(name_span) })?;
    let args = if p.eat('(') { p.args()? } else { vec![] };
    p.ws();
    p.end()?;
    build(entry, &args)
}

struct Arg {
    key: Option<String>,
    value: Literal,
    span: (usize, usize),
}

fn build(entry: &Entry, args: &[Arg]) -> Result<Quantizer, SpecError> {
    let mut q = (entry.default)();
    let qualified = entry.info.qualified();
    let mut seen: Vec<&str> = Vec::new();
    let mut keyword_seen = false;
    for (i, arg) in args.iter().enumerate() {
        let def = match &arg.key {
            None => {
                if keyword_seen {
                    return err(
                        format!("{qualified}: positional argument {} follows a keyword argument", i + 1),
                        Some(arg.span),
                    );
                }
                match entry.params.get(i) {
                    Some(def) => def,
                    None => {
                        return err(
                            format!(
                                "{qualified} takes at most {} positional argument{}, got {}",
                                entry.params.len(),
                                if entry.params.len() == 1 { "" } else { "s" },
                                args.len()
                            ),
                            Some(arg.span),
                        );
                    }
                }
            }
            Some(key) => {
                keyword_seen = true;
                match entry.params.iter().find(|d| d.name == key) {
                    Some(def) => def,
                    None => return err(unknown_param_message(entry, key), Some(arg.span)),
                }
            }
        };
        if seen.contains(&def.name) {
            return err(format!("{qualified}: '{}' is given twice", def.name), Some(arg.span));
        }
        seen.push(def.name);
        if let Err(m) = q.set(def.name, &arg.value) {
            return err(format!("{qualified}: {}={}: {m}", def.name, arg.value), Some(arg.span));
        }
    }
    finish(q)
}

fn finish(q: Quantizer) -> Result<Quantizer, SpecError> {
    match q.validate() {
        Ok(()) => Ok(q),
        Err((param, m)) => {
            let value = q.get(param).map(|v| format!("={v}")).unwrap_or_default();
            err(format!("{}: {param}{value}: {m}", q.info().qualified()), None)
        }
    }
}

/// Finds an entry by qualified name, namespace + alias, or bare name.
pub fn lookup(name: &str) -> Option<&'static Entry> {
    let (ns, bare) = match name.rsplit_once('.') {
        Some((ns, bare)) => (Some(ns), bare),
        None => (None, name),
    };
    let family = match ns {
        Some("qkeras") => Some(Family::QKeras),
        Some("larq" | "lq") => Some(Family::Larq),
        Some("beyond") => Some(Family::Beyond),
        Some(_) => None,
        None => None,
    };
    let names = |e: &&Entry| e.info.name == bare || e.info.aliases.contains(&bare);
    match (ns, family) {
        (Some(_), Some(f)) => ENTRIES.iter().filter(|e| e.info.family == f).find(names),
        // A dotted alias such as `torch.fake_quantize`.
        (Some(_), None) => ENTRIES.iter().find(|e| e.info.aliases.contains(&name)),
        // Bare: QKeras first (bare strings come from QKeras configs), then Larq, then beyond.
        (None, _) => ENTRIES.iter().find(names),
    }
}

/// Every name a user may type, for suggestions.
fn all_names() -> Vec<String> {
    let mut v = Vec::new();
    for e in ENTRIES {
        v.push(e.info.qualified());
        v.push(e.info.name.to_string());
        for a in e.info.aliases {
            v.push(a.to_string());
            if !a.contains('.') && e.info.family != Family::Beyond {
                v.push(format!("{}.{a}", e.info.family.namespace()));
            }
        }
    }
    v
}

fn unknown_name_message(name: &str) -> String {
    let names = all_names();
    match did_you_mean(name, names.iter().map(String::as_str)) {
        Some(s) => format!("unknown quantizer '{name}'; did you mean '{s}'? (`qscope list` shows them all)"),
        None => format!("unknown quantizer '{name}' (`qscope list` shows them all)"),
    }
}

fn unknown_param_message(entry: &Entry, key: &str) -> String {
    let all: Vec<&str> = entry.params.iter().map(|d| d.name).collect();
    let q = entry.info.qualified();
    if all.is_empty() {
        return format!("{q} takes no parameters, got '{key}'");
    }
    let hint = match did_you_mean(key, all.iter().copied()) {
        Some(s) => format!("; did you mean '{s}'?"),
        None => String::new(),
    };
    format!("{q} has no parameter '{key}'{hint} (parameters: {})", all.join(", "))
}

/// The closest candidate within a small edit distance (case-insensitive).
pub fn did_you_mean<'a>(word: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let w = word.to_lowercase();
    let limit = (w.chars().count() / 3).clamp(1, 3);
    candidates
        .map(|c| {
            let lc = c.to_lowercase();
            // A prefix (`clip` → `clip_value`) counts as close.
            let d = if w.len() >= 3 && (lc.starts_with(&w) || w.starts_with(&lc)) { 1 } else { edit_distance(&w, &lc) };
            (d, c)
        })
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + (ca != *cb) as usize).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The canonical spec: namespace, name, and the non-default parameters as keywords.
pub fn print(q: &Quantizer) -> String {
    let info = q.info();
    let default = ENTRIES.iter().find(|e| std::ptr::eq(e.info, info)).map(|e| (e.default)());
    let mut parts = Vec::new();
    for def in q.params() {
        let v = q.get(def.name).unwrap_or(Literal::None);
        let d = default.as_ref().and_then(|d| d.get(def.name));
        if d.as_ref() != Some(&v) {
            parts.push(format!("{}={}", def.name, v));
        }
    }
    if parts.is_empty() { info.qualified() } else { format!("{}({})", info.qualified(), parts.join(", ")) }
}

impl fmt::Display for Quantizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&print(self))
    }
}

impl std::str::FromStr for Quantizer {
    type Err = SpecError;
    fn from_str(s: &str) -> Result<Self, SpecError> {
        parse(s)
    }
}

// ---------------------------------------------------------------------------------------
// Keras config dicts
// ---------------------------------------------------------------------------------------

#[derive(Debug, Clone)]
enum Json {
    Lit(Literal),
    Obj(Vec<(String, Json, (usize, usize))>),
}

/// Keys that Keras adds to every config and that do not configure the quantizer.
const KERAS_BASE_KEYS: &[&str] = &["name", "trainable", "dtype"];

fn from_json(j: &Json) -> Result<Quantizer, SpecError> {
    let Json::Obj(top) = j else {
        return err("a config must be a JSON object", None);
    };
    let field = |k: &str| top.iter().find(|(key, _, _)| key == k);
    let Some((_, class, span)) = field("class_name") else {
        return err(
            r#"a config dict needs "class_name" (e.g. {"class_name": "quantized_bits", "config": {"bits": 4}})"#,
            None,
        );
    };
    let Json::Lit(Literal::Str(class)) = class else {
        return err("\"class_name\" must be a string", Some(*span));
    };
    let entry = lookup(class).ok_or_else(|| SpecError { message: unknown_name_message(class), span: Some(*span) })?;
    let mut args = Vec::new();
    match field("config") {
        None => {}
        Some((_, Json::Obj(cfg), _)) => {
            for (k, v, span) in cfg {
                if KERAS_BASE_KEYS.contains(&k.as_str()) && !entry.params.iter().any(|d| d.name == k) {
                    continue;
                }
                let Json::Lit(value) = v else {
                    return err(format!("config key '{k}': nested objects are not parameters"), Some(*span));
                };
                args.push(Arg { key: Some(k.clone()), value: value.clone(), span: *span });
            }
        }
        Some((_, _, span)) => return err("\"config\" must be a JSON object", Some(*span)),
    }
    build(entry, &args)
}

// ---------------------------------------------------------------------------------------
// Tokenizer / recursive descent
// ---------------------------------------------------------------------------------------

struct Parser<'a> {
    s: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.s[self.pos..].chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.bump();
        }
    }

    fn eat(&mut self, c: char) -> bool {
        self.ws();
        if self.peek() == Some(c) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char, what: &str) -> Result<(), SpecError> {
        if self.eat(c) { Ok(()) } else { self.unexpected(what) }
    }

    fn unexpected<T>(&self, what: &str) -> Result<T, SpecError> {
        match self.peek() {
            None => err(format!("unexpected end of spec; expected {what}"), Some((self.pos, self.pos))),
            Some(c) => err(
                format!("unexpected '{c}' at position {}; expected {what}", self.pos + 1),
                Some((self.pos, self.pos + c.len_utf8())),
            ),
        }
    }

    fn end(&self) -> Result<(), SpecError> {
        if self.pos == self.s.len() {
            Ok(())
        } else {
            let rest = &self.s[self.pos..];
            err(
                format!("unexpected text '{}' after the end of the spec", rest.trim_end()),
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

    fn value(&mut self) -> Result<Literal, SpecError> {
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

    fn string(&mut self) -> Result<String, SpecError> {
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
                _ => err(format!("'{}' is not a number", &self.s[start..self.pos]), Some((start, self.pos))),
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
            _ => err(format!("'{text}' is not a number"), Some((start, self.pos))),
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

    fn json_value(&mut self) -> Result<Json, SpecError> {
        self.ws();
        if self.peek() != Some('{') {
            return self.value().map(Json::Lit);
        }
        self.bump();
        let mut fields = Vec::new();
        loop {
            self.ws();
            if self.eat('}') {
                return Ok(Json::Obj(fields));
            }
            let start = self.pos;
            if !matches!(self.peek(), Some('"' | '\'')) {
                return self.unexpected("a quoted key");
            }
            let key = self.string()?;
            self.expect(':', "':'")?;
            let value = self.json_value()?;
            fields.push((key, value, (start, self.pos)));
            if self.eat(',') {
                continue;
            }
            self.expect('}', "',' or '}'")?;
            return Ok(Json::Obj(fields));
        }
    }
}

/// Formats an `f32` exactly (shortest text that reads back to the same bits).
pub fn fmt_f32(v: f32) -> String {
    if v.is_nan() {
        "nan".into()
    } else if v.is_infinite() {
        if v > 0.0 { "inf".into() } else { "-inf".into() }
    } else {
        format!("{v}")
    }
}

#[doc(hidden)]
pub fn fmt_f64(v: f64) -> String {
    fmt_float(v)
}
