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
//!
//! Both input forms meet here: each is read into a catalogue entry and a list of
//! arguments, and `build` checks those against the entry's schema, so a call and a config
//! dict are held to the same rules and give the same messages. The parts:
//! `parse` (the call syntax and the tokenizer both forms share), `json` (Keras config
//! dicts), `names` (finding a quantizer by name, "did you mean") and `print` (the canonical
//! text).

mod json;
mod names;
mod parse;
mod print;

use std::fmt;

use super::catalogue::{Entry, Quantizer};
use super::schema::Literal;
use super::text::shorten;
use parse::Parser;

pub use names::did_you_mean;
pub use print::{fmt_f32, print};

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
    let mut p = Parser::new(text);
    p.ws();
    // Each form reads to the end of the text before its arguments are checked.
    let (entry, args) = if p.peek() == Some('{') { p.config()? } else { p.call()? };
    build(entry, &args)
}

impl std::str::FromStr for Quantizer {
    type Err = SpecError;
    fn from_str(s: &str) -> Result<Self, SpecError> {
        parse(s)
    }
}

/// One argument as written: `key=value` or a positional value, and where it stands.
struct Arg {
    key: Option<String>,
    value: Literal,
    span: (usize, usize),
}

/// The entry's default with the arguments applied in order, checked against its schema.
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
                    None => return err(names::unknown_param_message(entry, key), Some(arg.span)),
                }
            }
        };
        if seen.contains(&def.name) {
            return err(format!("{qualified}: '{}' is given twice", def.name), Some(arg.span));
        }
        seen.push(def.name);
        if let Err(m) = q.set(def.name, &arg.value) {
            return err(
                format!("{qualified}: {}={}: {m}", def.name, shorten(&arg.value.to_string(), 60)),
                Some(arg.span),
            );
        }
    }
    finish(q)
}

/// The checks that involve several parameters, once all are set.
fn finish(q: Quantizer) -> Result<Quantizer, SpecError> {
    match q.validate() {
        Ok(()) => Ok(q),
        Err((param, m)) => {
            let value = q.get(param).map(|v| format!("={}", shorten(&v.to_string(), 60))).unwrap_or_default();
            err(format!("{}: {param}{value}: {m}", q.info().qualified()), None)
        }
    }
}
