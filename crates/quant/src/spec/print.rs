//! The canonical spec text: namespace, name, and only the parameters that differ from the
//! library default, as keywords, so that it parses back to the same quantizer; and the exact
//! float text that the CLI and the explanations print.

use std::fmt;

use crate::catalogue::{ENTRIES, Quantizer};
use crate::schema::Literal;

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
