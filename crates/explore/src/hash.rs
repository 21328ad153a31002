//! How a link's hash is written, for every table of settings alike: `key=value` parts joined by
//! `&`, percent-encoded only where a URL fragment needs it, one rule for switches and numbers,
//! bounded messages. It knows no setting; [`settings`](crate::settings) and the views' tables
//! build on it.
//!
//! Percent-encoding is kept to what a fragment needs (space, `"`, `#`, `%`, `&`, `<`, `>`,
//! `` ` ``, `{`, `|`, `}`, `\`, `^`, controls and non-ASCII), so a spec stays readable; `+` is a
//! plus, not a space.

use qscope_quant::spec::did_you_mean;
use qscope_quant::text::shorten;

/// The most problems a hash reports one by one; the rest are counted in one more message (a
/// 100 KB link of bad parts gives a readable banner).
pub const MAX_PROBLEMS: usize = 20;

/// How much of a value a message quotes.
pub const QUOTED: usize = 60;

/// A user's text in a message: at most [`QUOTED`] characters.
pub fn quote(text: &str) -> String {
    shorten(text, QUOTED)
}

/// One `key=value` part of a hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part<'a> {
    /// As written, for passing it on untouched.
    pub raw: &'a str,
    /// Decoded, trimmed, lower-case: keys are read in any case.
    pub key: String,
    /// Decoded; `None` when the part has no `=`.
    pub value: Option<String>,
}

/// The parts of a hash (with or without its `#`), empty ones skipped.
pub fn parts(hash: &str) -> impl Iterator<Item = Part<'_>> {
    let text = hash.strip_prefix('#').unwrap_or(hash);
    text.split('&').filter(|p| !p.trim().is_empty()).map(|raw| {
        let (key, value) = match raw.split_once('=') {
            Some((k, v)) => (k, Some(decode(v))),
            None => (raw, None),
        };
        Part { raw, key: decode(key).trim().to_ascii_lowercase(), value }
    })
}

/// `'x' has no value; expected x=…`.
pub fn no_value(key: &str) -> String {
    let key = quote(key);
    format!("'{key}' has no value; expected {key}=…")
}

/// `unknown key 'sed'; did you mean 'seed'? (keys: q, x, …)`.
pub fn unknown_key(key: &str, keys: &[&str]) -> String {
    let hint = match did_you_mean(key, keys.iter().copied()) {
        Some(k) if key.len() > 1 => format!("; did you mean '{k}'?"),
        _ => String::new(),
    };
    format!("unknown key '{}'{hint} (keys: {})", quote(key), keys.join(", "))
}

/// Keeps the first [`MAX_PROBLEMS`] problems and counts the others in one more.
pub fn cap_problems(problems: &mut Vec<String>) {
    if problems.len() > MAX_PROBLEMS {
        let more = problems.len() - MAX_PROBLEMS;
        problems.truncate(MAX_PROBLEMS);
        problems.push(format!("{more} more problem{} not listed", if more == 1 { " is" } else { "s are" }));
    }
}

/// An on/off value, read by one rule for every key of every link and every CLI value: `1` or
/// `true` is on, `0`, `false` or nothing is off (`true`/`false` in any case: Python's `True`
/// too); anything else is named.
pub fn switch(text: &str) -> Result<bool, String> {
    match text.trim() {
        "1" => Ok(true),
        "0" | "" => Ok(false),
        t if t.eq_ignore_ascii_case("true") => Ok(true),
        t if t.eq_ignore_ascii_case("false") => Ok(false),
        _ => Err("expected 1 or 0".into()),
    }
}

/// A number as written in a link; accepts the true minus sign `−` a copied label may carry.
pub fn number(text: &str) -> Option<f32> {
    text.trim().replace('−', "-").parse::<f32>().ok()
}

/// A number from `min` to `max` (both included), called `noun` in messages.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds<T> {
    pub noun: &'static str,
    pub min: T,
    pub max: T,
}

impl<T: Copy + PartialOrd + std::str::FromStr + std::fmt::Display> Bounds<T> {
    /// The number (a `−` read as a minus), or `expected a batch size from 1 to 250`.
    pub fn parse(&self, text: &str) -> Result<T, String> {
        let v = text.trim().replace('−', "-").parse::<T>().ok().filter(|v| (self.min..=self.max).contains(v));
        v.ok_or_else(|| format!("expected {} from {}", self.noun, self.describe()))
    }

    /// `1 to 250`.
    pub fn describe(&self) -> String {
        format!("{} to {}", self.min, self.max)
    }

    /// `v` within the bounds.
    pub fn clamp(&self, v: T) -> T {
        if v < self.min {
            self.min
        } else if v > self.max {
            self.max
        } else {
            v
        }
    }
}

/// Whether a byte may stay as it is in a hash value: what a URL fragment allows, minus the
/// separators `&` and `#`, the escape `%`, and `"`, `<`, `>`, `` ` `` that browsers encode.
fn keeps(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~!$'()*+,;=:@/?[]".contains(&b)
}

/// Percent-encodes what a hash value must not hold (see the module doc) as `%XX` per UTF-8 byte.
pub fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if keeps(b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Decodes `%XX` sequences (a `%` not followed by two hex digits stays as it is); invalid
/// UTF-8 becomes U+FFFD. `+` stays a plus.
pub fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(h), Some(l)) = (bytes.get(i + 1).and_then(|&b| hex(b)), bytes.get(i + 2).and_then(|&b| hex(b)))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_switch_is_one_zero_true_or_false_in_any_case() {
        for on in ["1", "true", "True", " TRUE "] {
            assert_eq!(switch(on), Ok(true), "{on}");
        }
        for off in ["0", "false", "False", ""] {
            assert_eq!(switch(off), Ok(false), "{off}");
        }
        assert_eq!(switch("yes"), Err("expected 1 or 0".into()));
    }

    #[test]
    fn parts_are_decoded_with_keys_in_lower_case_and_raw_text_kept() {
        let got: Vec<Part> = parts("#Seed=3&&q=a%20b&present").collect();
        assert_eq!(got[0], Part { raw: "Seed=3", key: "seed".into(), value: Some("3".into()) });
        assert_eq!(got[1].value.as_deref(), Some("a b"));
        assert_eq!(got[2], Part { raw: "present", key: "present".into(), value: None });
        assert_eq!(got.len(), 3);
    }

    #[test]
    fn bounds_name_the_range_and_read_a_true_minus() {
        let b = Bounds { noun: "an offset", min: -1.0f32, max: 1.0 };
        assert_eq!(b.parse("−0.5"), Ok(-0.5));
        assert_eq!(b.parse("2"), Err("expected an offset from -1 to 1".into()));
        assert_eq!(b.clamp(3.0), 1.0);
    }

    #[test]
    fn encoding_round_trips_and_keeps_specs_readable() {
        let spec = "qkeras.quantized_bits(4,0,alpha='auto')&x=<1 % 2>#é";
        assert_eq!(decode(&encode(spec)), spec);
        assert_eq!(encode("larq.SteSign(clip_value=1.5)"), "larq.SteSign(clip_value=1.5)");
        assert_eq!(decode("%zz%4"), "%zz%4");
    }
}
