//! Keras config dicts, `{"class_name": "quantized_bits", "config": {"bits": 4, …}}`, as
//! `get_config()` writes them: the JSON subset read with the call syntax's tokenizer (values
//! are the same literals), then the class looked up and the config's keys made keyword
//! arguments, so a dict is held to the same rules as the call it stands for.

use super::parse::Parser;
use super::{Arg, SpecError, err, names};
use crate::catalogue::Entry;
use crate::schema::Literal;
use crate::text::shorten;

/// A JSON value as far as a config needs one: a literal, or an object whose fields keep
/// their spans.
#[derive(Debug, Clone)]
enum Json {
    Lit(Literal),
    Obj(Vec<(String, Json, (usize, usize))>),
}

/// The deepest nesting of objects read: a config is two deep (the dict and its `config`); a
/// deeper one is refused before it can exhaust the stack (a link may hold any text).
const MAX_DEPTH: usize = 8;

/// Keys that Keras adds to every config and that do not configure the quantizer.
const KERAS_BASE_KEYS: &[&str] = &["name", "trainable", "dtype"];

impl Parser<'_> {
    /// A config dict to the end of the text: the entry its class names and its keys as
    /// keyword arguments.
    pub(super) fn config(&mut self) -> Result<(&'static Entry, Vec<Arg>), SpecError> {
        let json = self.json_value(0)?;
        self.ws();
        self.end()?;
        arguments(&json)
    }

    /// A value `depth` objects deep.
    fn json_value(&mut self, depth: usize) -> Result<Json, SpecError> {
        self.ws();
        if self.peek() != Some('{') {
            return self.value().map(Json::Lit);
        }
        if depth == MAX_DEPTH {
            return err(format!("a config nests objects deeper than {MAX_DEPTH}"), Some((self.pos, self.pos + 1)));
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
            let value = self.json_value(depth + 1)?;
            fields.push((key, value, (start, self.pos)));
            if self.eat(',') {
                continue;
            }
            self.expect('}', "',' or '}'")?;
            return Ok(Json::Obj(fields));
        }
    }
}

/// The entry `class_name` names and the `config` keys as keyword arguments (the keys Keras
/// adds to every config are dropped unless the quantizer has such a parameter).
fn arguments(j: &Json) -> Result<(&'static Entry, Vec<Arg>), SpecError> {
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
    let entry = names::entry(class, *span)?;
    let mut args = Vec::new();
    match field("config") {
        None => {}
        Some((_, Json::Obj(cfg), _)) => {
            for (k, v, span) in cfg {
                if KERAS_BASE_KEYS.contains(&k.as_str()) && !entry.params.iter().any(|d| d.name == k) {
                    continue;
                }
                let Json::Lit(value) = v else {
                    return err(
                        format!("config key '{}': nested objects are not parameters", shorten(k, 60)),
                        Some(*span),
                    );
                };
                args.push(Arg { key: Some(k.clone()), value: value.clone(), span: *span });
            }
        }
        Some((_, _, span)) => return err("\"config\" must be a JSON object", Some(*span)),
    }
    Ok((entry, args))
}
