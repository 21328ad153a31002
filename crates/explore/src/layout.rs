//! A small float format's bit layout, as the Selected panel shows it: the sign, exponent and
//! mantissa fields (`S|EEEE|MMM`), the bias, and the edge values with their codes — largest,
//! smallest normal, smallest subnormal — and the codes of NaN, ±inf and −0. Every number is a
//! fact of the format ([`Format`], held to ml_dtypes' `finfo` and code table in its tests), so
//! an element cast, torchao's FP8 and the elements of a block format show the same layout.

use qscope_quant::ml_dtypes::Format;

/// One field of a float's bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    Sign,
    Exponent,
    Mantissa,
}

impl Field {
    /// The letter a cell shows.
    pub fn letter(self) -> char {
        match self {
            Field::Sign => 'S',
            Field::Exponent => 'E',
            Field::Mantissa => 'M',
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Field::Sign => "sign",
            Field::Exponent => "exponent",
            Field::Mantissa => "mantissa",
        }
    }
}

/// What the panel shows of a format.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    /// The ml_dtypes name.
    pub name: &'static str,
    /// The fields from the top bit down, with their widths (no sign field for E8M0).
    pub fields: Vec<(Field, u32)>,
    /// `(what, value)` rows: bits, bias, max, min normal, min subnormal, NaN, inf, −0.
    pub rows: Vec<(&'static str, String)>,
}

/// A value of a format written exactly: plainly from 10⁻⁴ to 10⁶, else in scientific notation
/// (`1.52587890625e−5`), as ml_dtypes' `finfo` prints them; every digit is the value's.
pub fn exact(v: f32) -> String {
    let (v, a) = (v as f64, v.abs() as f64);
    let s = if a != 0.0 && !(1e-4..1e6).contains(&a) { format!("{v:e}") } else { v.to_string() };
    s.replace('-', "−")
}

/// The layout of `f`, its values written [`exact`]ly.
pub fn layout(f: Format) -> Layout {
    let mut fields = Vec::with_capacity(3);
    if f.signed() {
        fields.push((Field::Sign, 1));
    }
    fields.push((Field::Exponent, f.exponent_bits));
    if f.mantissa_bits > 0 {
        fields.push((Field::Mantissa, f.mantissa_bits));
    }
    let widths: Vec<String> = fields.iter().map(|(field, n)| format!("{n} {}", field.name())).collect();
    let value = |v: f32| {
        let code = f.code_of(v).map(|c| format!(" = {}", bits(f, c))).unwrap_or_default();
        format!("{}{}{code}", exact(v), power(v))
    };
    let min_subnormal = if f.mantissa_bits == 0 { "none (no mantissa)".to_string() } else { value(f.min_positive()) };
    let (nan, inf) = (f.nan_codes(), f.inf_codes());
    let nan = if nan.is_empty() { "none".to_string() } else { codes(f, &nan) };
    let inf = match (inf.is_empty(), f.max() == f.cast(f32::INFINITY)) {
        (false, _) => codes(f, &inf),
        (true, true) => "none (saturates at ±max)".to_string(),
        (true, false) => "none (overflow → NaN)".to_string(),
    };
    let negative_zero = if f.negative_zero() { codes(f, &[f.code(true, 0, 0)]) } else { "none".to_string() };
    Layout {
        name: f.name,
        fields,
        rows: vec![
            ("bits", format!("{} = {}", f.bits(), widths.join(" + "))),
            ("bias", f.bias.to_string()),
            ("max", value(f.max())),
            ("min normal", value(f.min_normal())),
            ("min subnormal", min_subnormal),
            ("NaN", nan),
            ("±inf", inf),
            ("−0", negative_zero),
        ],
    }
}

/// ` (2^−6)` for a power of two, else nothing.
fn power(v: f32) -> String {
    let e = (v.abs() as f64).log2().round() as i32;
    if v != 0.0 && v.is_finite() && 2f64.powi(e) == v.abs() as f64 {
        format!(" (2^{})", e.to_string().replace('-', "−"))
    } else {
        String::new()
    }
}

/// A code in hex with as many digits as the format's bits need.
fn hex(f: Format, code: u32) -> String {
    format!("0x{code:0width$x}", width = f.bits().div_ceil(4) as usize)
}

/// A code in hex, then its bits grouped by field: `0x7e (0 1111 110)`.
fn bits(f: Format, code: u32) -> String {
    let all = format!("{code:0width$b}", width = f.bits() as usize);
    let mut groups = Vec::new();
    let mut at = 0;
    for n in [u32::from(f.signed()), f.exponent_bits, f.mantissa_bits].into_iter().filter(|&n| n > 0) {
        groups.push(&all[at..at + n as usize]);
        at += n as usize;
    }
    format!("{} ({})", hex(f, code), groups.join(" "))
}

/// Codes as hex, consecutive ones as a run: `0x7d–0x7f, 0xfd–0xff (6 codes)`.
fn codes(f: Format, list: &[u32]) -> String {
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for &c in list {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == c => *end = c,
            _ => runs.push((c, c)),
        }
    }
    let text: Vec<String> =
        runs.iter().map(|&(a, b)| if a == b { bits(f, a) } else { format!("{}–{}", hex(f, a), hex(f, b)) }).collect();
    let count = if runs.len() < list.len() { format!(" ({} codes)", list.len()) } else { String::new() };
    format!("{}{count}", text.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use qscope_quant::ml_dtypes::{Float4E2M1Fn, Float8E4M3Fn, Float8E5M2, Float8E8M0Fnu};

    fn rows(f: Format) -> Vec<(&'static str, String)> {
        layout(f).rows
    }

    fn row(f: Format, what: &str) -> String {
        rows(f).into_iter().find(|(k, _)| *k == what).unwrap().1
    }

    #[test]
    fn e4m3fn_has_a_sign_four_exponent_and_three_mantissa_bits() {
        let l = layout(Float8E4M3Fn::FORMAT);
        assert_eq!(l.fields, vec![(Field::Sign, 1), (Field::Exponent, 4), (Field::Mantissa, 3)]);
        assert_eq!(
            l.rows,
            vec![
                ("bits", "8 = 1 sign + 4 exponent + 3 mantissa".to_string()),
                ("bias", "7".to_string()),
                ("max", "448 = 0x7e (0 1111 110)".to_string()),
                ("min normal", "0.015625 (2^−6) = 0x08 (0 0001 000)".to_string()),
                ("min subnormal", "0.001953125 (2^−9) = 0x01 (0 0000 001)".to_string()),
                ("NaN", "0x7f (0 1111 111), 0xff (1 1111 111)".to_string()),
                ("±inf", "none (overflow → NaN)".to_string()),
                ("−0", "0x80 (1 0000 000)".to_string()),
            ]
        );
    }

    #[test]
    fn e5m2_lists_its_nan_codes_as_runs_and_has_infinities() {
        assert_eq!(row(Float8E5M2::FORMAT, "NaN"), "0x7d–0x7f, 0xfd–0xff (6 codes)");
        assert_eq!(row(Float8E5M2::FORMAT, "±inf"), "0x7c (0 11111 00), 0xfc (1 11111 00)");
        assert_eq!(row(Float8E5M2::FORMAT, "max"), "57344 = 0x7b (0 11110 11)");
        assert_eq!(row(Float8E5M2::FORMAT, "min subnormal"), "1.52587890625e−5 (2^−16) = 0x01 (0 00000 01)");
    }

    #[test]
    fn fp4_saturates_and_has_no_specials() {
        let f = Float4E2M1Fn::FORMAT;
        assert_eq!(row(f, "max"), "6 = 0x7 (0 11 1)");
        assert_eq!(row(f, "min subnormal"), "0.5 (2^−1) = 0x1 (0 00 1)");
        assert_eq!((row(f, "NaN"), row(f, "±inf")), ("none".to_string(), "none (saturates at ±max)".to_string()));
    }

    #[test]
    fn formats_built_on_the_casts_show_their_elements_layout() {
        let format = |spec: &str| qscope_quant::parse(spec).unwrap().element_format().map(|f| f.name);
        assert_eq!(format("torchao.float8(float8_dtype='float8_e5m2')"), Some("float8_e5m2"));
        assert_eq!(format("torchao.mx(elem_dtype='fp6_e3m2')"), Some("float6_e3m2fn"));
        assert_eq!(format("torchao.nvfp4"), Some("float4_e2m1fn"));
        assert_eq!(format("ml_dtypes.float8_e3m4"), Some("float8_e3m4"));
        assert_eq!(format("qkeras.quantized_bits(4,0,1)"), None);
    }

    #[test]
    fn e8m0_is_an_unsigned_exponent_without_subnormals() {
        let l = layout(Float8E8M0Fnu::FORMAT);
        assert_eq!(l.fields, vec![(Field::Exponent, 8)]);
        assert_eq!(row(Float8E8M0Fnu::FORMAT, "min subnormal"), "none (no mantissa)");
        assert_eq!(row(Float8E8M0Fnu::FORMAT, "NaN"), "0xff (11111111)");
        assert_eq!(row(Float8E8M0Fnu::FORMAT, "min normal"), "5.877471754111438e−39 (2^−127) = 0x00 (00000000)");
        assert_eq!(row(Float8E8M0Fnu::FORMAT, "max"), "1.7014118346046923e38 (2^127) = 0xfe (11111110)");
        assert_eq!(row(Float8E8M0Fnu::FORMAT, "−0"), "none");
    }
}
