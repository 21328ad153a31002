//! A whole lesson in one link: `#lesson=~` followed by the lesson's UTF-8 text, compressed with
//! raw DEFLATE (RFC 1951) and written in base64url without padding (RFC 4648 §5). No server
//! holds anything: the link is the lesson.
//!
//! [`encode`] packs a text; [`decode`] unpacks a `lesson=` value and says what is wrong with a
//! damaged one — a character outside base64url, a cut link, DEFLATE data that is not valid or
//! ends early, more than [`MAX_BYTES`] when unpacked (a "deflate bomb" is stopped at that size,
//! never allocated in full), or bytes that are not UTF-8.

use miniz_oxide::inflate::TINFLStatus;

/// The largest lesson, as a file or unpacked from a link: 1 MB.
pub const MAX_BYTES: usize = 1 << 20;

/// What starts a packed lesson in `lesson=` (a built-in lesson's name is a plain identifier).
pub const PREFIX: char = '~';

/// The base64url alphabet (RFC 4648 §5).
const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// How hard DEFLATE works (miniz' levels 0–10; 9 is zlib's "best").
const LEVEL: u8 = 9;

/// `~` + base64url (no padding) of raw DEFLATE of `text`'s UTF-8.
pub fn encode(text: &str) -> String {
    let packed = miniz_oxide::deflate::compress_to_vec(text.as_bytes(), LEVEL);
    format!("{PREFIX}{}", base64url(&packed))
}

/// The lesson text of a `lesson=` value (with or without its leading `~`), or why the link is
/// damaged: "the lesson link is damaged: …".
pub fn decode(value: &str) -> Result<String, String> {
    let damaged = |why: String| format!("the lesson link is damaged: {why}");
    let offset = usize::from(value.starts_with(PREFIX));
    let body = &value[offset..];
    let bytes = unbase64url(body).map_err(|e| damaged(e.describe(offset)))?;
    let raw = inflate(&bytes).map_err(damaged)?;
    String::from_utf8(raw).map_err(|e| {
        damaged(format!("the unpacked lesson is not UTF-8 text (byte {} is not)", e.utf8_error().valid_up_to() + 1))
    })
}

/// Whether a `lesson=` value is a packed lesson rather than a built-in lesson's name.
pub fn is_packed(value: &str) -> bool {
    value.starts_with(PREFIX)
}

fn inflate(bytes: &[u8]) -> Result<Vec<u8>, String> {
    miniz_oxide::inflate::decompress_to_vec_with_limit(bytes, MAX_BYTES).map_err(|e| match e.status {
        TINFLStatus::HasMoreOutput => format!("larger than {} MB when unpacked", MAX_BYTES >> 20),
        TINFLStatus::FailedCannotMakeProgress | TINFLStatus::NeedsMoreInput => {
            "the compressed data ends early (truncated link?)".to_string()
        }
        _ => "the compressed data is not valid DEFLATE (corrupted link?)".to_string(),
    })
}

/// base64url without padding.
pub fn base64url(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        // 1 byte → 2 characters, 2 → 3, 3 → 4.
        for k in 0..=chunk.len() {
            out.push(ALPHABET[(n >> (18 - 6 * k)) as usize & 63] as char);
        }
    }
    out
}

/// Why base64url text does not decode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Base64Error {
    /// The character at this index (from 0, in characters) is not in the alphabet.
    Character { index: usize, c: char },
    /// `len % 4 == 1`: no byte count gives that many characters.
    Length(usize),
}

impl Base64Error {
    /// A message, counting characters from 1 after `offset` characters of prefix.
    fn describe(&self, offset: usize) -> String {
        match *self {
            Base64Error::Character { index, c } => {
                let shown = if c.is_control() || c.is_whitespace() { format!("{c:?}") } else { format!("'{c}'") };
                format!("{shown} is not base64url at character {}", index + offset + 1)
            }
            Base64Error::Length(n) => format!("{n} characters cannot be base64url (truncated link?)"),
        }
    }
}

/// Bytes of base64url text without padding (a trailing `=` padding is accepted too).
pub fn unbase64url(text: &str) -> Result<Vec<u8>, Base64Error> {
    let body = text.trim_end_matches('=');
    let mut sextets = Vec::with_capacity(body.len());
    for (index, c) in body.chars().enumerate() {
        let v = match c {
            'A'..='Z' => c as u8 - b'A',
            'a'..='z' => c as u8 - b'a' + 26,
            '0'..='9' => c as u8 - b'0' + 52,
            '-' => 62,
            '_' => 63,
            _ => return Err(Base64Error::Character { index, c }),
        };
        sextets.push(u32::from(v));
    }
    if sextets.len() % 4 == 1 {
        return Err(Base64Error::Length(sextets.len()));
    }
    let mut out = Vec::with_capacity(sextets.len() * 3 / 4);
    for chunk in sextets.chunks(4) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (k, &s)| n | (s << (18 - 6 * k)));
        // 2 characters → 1 byte, 3 → 2, 4 → 3.
        for k in 0..chunk.len() - 1 {
            out.push((n >> (16 - 8 * k)) as u8);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64url_matches_rfc_4648_test_vectors_without_padding() {
        let vectors = [
            ("", ""),
            ("f", "Zg"),
            ("fo", "Zm8"),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg"),
            ("fooba", "Zm9vYmE"),
            ("foobar", "Zm9vYmFy"),
        ];
        for (plain, coded) in vectors {
            assert_eq!(base64url(plain.as_bytes()), coded);
            assert_eq!(unbase64url(coded).unwrap(), plain.as_bytes());
        }
    }

    #[test]
    fn base64url_uses_minus_and_underscore() {
        assert_eq!(base64url(&[0xfb, 0xff]), "-_8");
        assert_eq!(unbase64url("-_8").unwrap(), vec![0xfb, 0xff]);
    }
}
