//! A tensor written as text: whitespace-separated numbers, `nan`, `inf` and `-inf` accepted
//! (`qscope eval` reads its stdin with this).

use crate::text::shorten;

/// One number as written (nan, inf, -inf, +inf and `infinity` accepted, in any case);
/// `index` (from 0) names it in the message.
pub fn parse_number(tok: &str, index: usize) -> Result<f32, String> {
    let t = tok.to_ascii_lowercase();
    let t = t.strip_prefix('+').unwrap_or(&t);
    match t {
        "nan" | "-nan" => return Ok(f32::NAN),
        "inf" | "infinity" => return Ok(f32::INFINITY),
        "-inf" | "-infinity" => return Ok(f32::NEG_INFINITY),
        _ => {}
    }
    t.parse::<f32>().map_err(|_| format!("input value {} ('{}') is not a number", index + 1, shorten(tok, 40)))
}

/// Every number of `text`, in order, or the first token that is not one.
pub fn parse_numbers(text: &str) -> Result<Vec<f32>, String> {
    text.split_whitespace().enumerate().map(|(i, t)| parse_number(t, i)).collect()
}
