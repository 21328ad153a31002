//! The JSON a safetensors header is: objects, arrays, strings, numbers, `true`, `false`,
//! `null` (RFC 8259), with a nesting limit. Numbers stay text until a caller asks for one.

/// A JSON value. Objects keep their keys in file order.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Object(Vec<(String, Json)>),
    Array(Vec<Json>),
    String(String),
    Number(String),
    Bool(bool),
    Null,
}

/// The deepest nesting read (a safetensors header needs 3).
const MAX_DEPTH: usize = 64;

impl Json {
    /// Parses a whole text as one JSON value. `Err` names the byte offset and the problem.
    pub fn parse(text: &str) -> Result<Json, String> {
        let mut p = Parser { s: text.as_bytes(), i: 0 };
        let v = p.value(0)?;
        p.space();
        if p.i != p.s.len() {
            return Err(p.error("text after the end of the JSON value"));
        }
        Ok(v)
    }

    /// The number as an unsigned 64-bit integer, if it is one.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Json::Number(n) => n.parse().ok(),
            _ => None,
        }
    }

    /// What kind of value this is, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Json::Object(_) => "an object",
            Json::Array(_) => "an array",
            Json::String(_) => "a string",
            Json::Number(_) => "a number",
            Json::Bool(_) => "a boolean",
            Json::Null => "null",
        }
    }
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn error(&self, what: &str) -> String {
        format!("JSON: {what} at byte {}", self.i)
    }

    fn space(&mut self) {
        while matches!(self.s.get(self.i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        self.space();
        if self.s.get(self.i) == Some(&b) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json, String> {
        if depth > MAX_DEPTH {
            return Err(self.error("nesting deeper than 64"));
        }
        self.space();
        match self.s.get(self.i) {
            None => Err(self.error("unexpected end")),
            Some(b'{') => {
                self.i += 1;
                let mut fields = Vec::new();
                if self.eat(b'}') {
                    return Ok(Json::Object(fields));
                }
                loop {
                    self.space();
                    if self.s.get(self.i) != Some(&b'"') {
                        return Err(self.error("expected a key in quotes"));
                    }
                    let key = self.string()?;
                    if !self.eat(b':') {
                        return Err(self.error("expected ':' after a key"));
                    }
                    fields.push((key, self.value(depth + 1)?));
                    if self.eat(b'}') {
                        return Ok(Json::Object(fields));
                    }
                    if !self.eat(b',') {
                        return Err(self.error("expected ',' or '}' in an object"));
                    }
                }
            }
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                if self.eat(b']') {
                    return Ok(Json::Array(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    if self.eat(b']') {
                        return Ok(Json::Array(items));
                    }
                    if !self.eat(b',') {
                        return Err(self.error("expected ',' or ']' in an array"));
                    }
                }
            }
            Some(b'"') => self.string().map(Json::String),
            Some(b't') => self.word("true", Json::Bool(true)),
            Some(b'f') => self.word("false", Json::Bool(false)),
            Some(b'n') => self.word("null", Json::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.error("unexpected character")),
        }
    }

    fn word(&mut self, w: &str, v: Json) -> Result<Json, String> {
        if self.s[self.i..].starts_with(w.as_bytes()) {
            self.i += w.len();
            Ok(v)
        } else {
            Err(self.error("unexpected word"))
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while matches!(self.s.get(self.i), Some(b'0'..=b'9')) {
            self.i += 1;
        }
        self.i - start
    }

    fn number(&mut self) -> Result<Json, String> {
        let start = self.i;
        if self.s[self.i] == b'-' {
            self.i += 1;
        }
        let first = self.s.get(self.i).copied();
        let n = self.digits();
        if n == 0 || (first == Some(b'0') && n > 1) {
            return Err(self.error("malformed number"));
        }
        if self.s.get(self.i) == Some(&b'.') {
            self.i += 1;
            if self.digits() == 0 {
                return Err(self.error("malformed number"));
            }
        }
        if matches!(self.s.get(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.s.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return Err(self.error("malformed number"));
            }
        }
        // Only ASCII digits and signs were consumed.
        Ok(Json::Number(String::from_utf8_lossy(&self.s[start..self.i]).into_owned()))
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let h = self.s.get(self.i..self.i + 4).ok_or_else(|| self.error("short \\u escape"))?;
        let v = std::str::from_utf8(h).ok().and_then(|h| u32::from_str_radix(h, 16).ok());
        self.i += 4;
        v.ok_or_else(|| self.error("malformed \\u escape"))
    }

    fn string(&mut self) -> Result<String, String> {
        self.i += 1;
        let mut out = Vec::new();
        loop {
            let Some(&b) = self.s.get(self.i) else { return Err(self.error("unterminated string")) };
            self.i += 1;
            match b {
                b'"' => return String::from_utf8(out).map_err(|_| self.error("a string that is not UTF-8")),
                b'\\' => {
                    let Some(&e) = self.s.get(self.i) else { return Err(self.error("unterminated string")) };
                    self.i += 1;
                    let c = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let hi = self.hex4()?;
                            let code = if (0xd800..0xdc00).contains(&hi) && self.s[self.i..].starts_with(b"\\u") {
                                self.i += 2;
                                let lo = self.hex4()?;
                                if !(0xdc00..0xe000).contains(&lo) {
                                    return Err(self.error("unpaired surrogate"));
                                }
                                0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00)
                            } else {
                                hi
                            };
                            char::from_u32(code).ok_or_else(|| self.error("unpaired surrogate"))?
                        }
                        _ => return Err(self.error("unknown escape")),
                    };
                    let mut buf = [0; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
                0..0x20 => return Err(self.error("a control character in a string")),
                _ => out.push(b),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_object_keeps_its_keys_in_order() {
        let v = Json::parse(r#" {"b": [1, 2], "a": {"x": "y"}, "c": null} "#).unwrap();
        let Json::Object(f) = v else { panic!() };
        assert_eq!(f.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(), ["b", "a", "c"]);
    }

    #[test]
    fn escapes_and_surrogate_pairs_decode() {
        assert_eq!(Json::parse(r#""a\"\n\u00e9\ud83d\ude00""#).unwrap(), Json::String("a\"\né😀".into()));
    }

    #[test]
    fn malformed_text_is_an_error_naming_the_offset() {
        for bad in ["{", "[1,]", "{\"a\" 1}", "01", "1.", "\"\\ud800\"", "{} x", "\"\u{1}\""] {
            let e = Json::parse(bad).unwrap_err();
            assert!(e.contains("at byte"), "{bad}: {e}");
        }
    }

    #[test]
    fn nesting_is_limited() {
        let deep = "[".repeat(100) + &"]".repeat(100);
        assert!(Json::parse(&deep).unwrap_err().contains("nesting"));
    }

    #[test]
    fn only_whole_unsigned_numbers_are_u64() {
        assert_eq!(Json::parse("18446744073709551615").unwrap().as_u64(), Some(u64::MAX));
        for n in ["18446744073709551616", "-1", "1.0", "1e3"] {
            assert_eq!(Json::parse(n).unwrap().as_u64(), None, "{n}");
        }
    }
}
