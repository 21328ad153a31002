//! What a quantizer is in hardware: the fixed-point type that holds its outputs exactly, and
//! the configurations whose behaviour surprises users.
//!
//! # The QKeras ↔ HLS rule
//!
//! An output set `{c·2^e : c = lo…hi}` (integer codes times a power of two) is exactly the
//! HLS type `ap_fixed<W, I>` (signed, `lo < 0`) or `ap_ufixed<W, I>` (`lo ≥ 0`), where `W` is
//! the fewest bits holding every code (two's complement when signed) and `I = W + e` counts
//! the bits left of the binary point **including the sign bit**; `ac_fixed<W, I, signed>`
//! is the same type in Algorithmic C. QKeras' `integer` excludes the sign bit, so
//! `quantized_bits(bits, integer, keep_negative=True)` is `ap_fixed<bits, integer + 1>`,
//! `keep_negative=False` is `ap_ufixed<bits, integer>`, and a power-of-two `alpha = 2^p` adds
//! `p` to I. (Early hls4ml versions used `ap_fixed<bits + 1, integer + 1>`, one bit wider
//! than needed.) When the step is not a power of two the codes are integers `ap_int<W>` /
//! `ap_uint<W>` (`ac_int<W, signed>`) and every value is `code × scale`, which needs a
//! multiplier in hardware.
//!
//! What is particular to one quantizer — levels no fixed-point type holds, configurations
//! worth a warning — is its `Hardware` impl, one per catalogue type in `qkeras.rs`,
//! `larq.rs` and `beyond.rs`.

mod beyond;
mod bnb;
mod larq;
mod ml_dtypes;
mod qkeras;
mod torchao;
mod torchao_int;

use qscope_quant::{Ctx, Levels, Literal, Quantizer, Report, each_quantizer};

/// What a quantizer is in hardware beyond what its levels say. The defaults say nothing
/// beyond them — the fixed-point type follows from the levels, no warnings of its own —
/// which is right for a quantizer with nothing particular (`impl Hardware for X {}`).
trait Hardware {
    /// Why no fixed-point type holds the outputs whatever their levels, if so.
    fn not_fixed_point(&self) -> Option<&'static str> {
        None
    }

    /// This quantizer's own surprising configurations, one sentence each.
    fn warnings(&self, _: &mut Warnings) {}
}

/// Why power-of-two levels are not a fixed-point number.
const EXPONENTS: &str = "power-of-two levels: hardware stores a sign and an exponent (hls4ml's \
                         ExponentPrecisionType), not a fixed-point number";

/// The integer codes behind a quantizer's outputs and their HLS types.
#[derive(Clone, Debug, PartialEq)]
pub struct FixedPoint {
    /// Two's complement codes (some code is negative).
    pub signed: bool,
    /// W: bits per code.
    pub word_bits: u32,
    /// I: bits left of the binary point, sign included (`W + log2(scale)`); for a scale that
    /// is not a power of two, `W` (the codes are plain integers).
    pub integer_bits: i32,
    /// The value of code 1 (the step).
    pub scale: f32,
    /// Whether `scale` is a power of two (a plain fixed-point type holds the values).
    pub power_of_two: bool,
    /// Smallest and largest code.
    pub code_range: (i64, i64),
    /// `(code, value)` for every code, when there are at most 256 of them; else empty.
    pub codes: Vec<(i64, f32)>,
    /// `ap_fixed<4,1>`, `ap_ufixed<4,0>`, or `ap_int<8>` / `ap_uint<2>` with a non-power-of-two scale.
    pub ap_fixed: String,
    /// `ac_fixed<4,1,true>`, or `ac_int<8,true>` with a non-power-of-two scale.
    pub ac_fixed: String,
}

/// Most codes listed in [`FixedPoint::codes`].
pub const MAX_LISTED_CODES: usize = 256;

/// The fixed-point form of `q`'s outputs, given the report of a sample (its scale, for
/// data-dependent quantizers), or why there is none.
pub fn fixed_point(q: &Quantizer, report: &Report) -> Result<FixedPoint, String> {
    if let Some(why) = each_quantizer!(q, k => k.not_fixed_point()) {
        return Err(why.into());
    }
    let (lo, hi, step, values) = match q.levels(report) {
        Levels::Uniform { lo, step, count } if count > 0 => {
            let hi = lo + count as i64 - 1;
            let values =
                if count as usize <= MAX_LISTED_CODES { (lo..=hi).map(|c| c as f32 * step).collect() } else { vec![] };
            (lo, hi, step, values)
        }
        Levels::Set(v) => uniform_set(&v)?,
        Levels::Grid { step } => {
            return Err(format!("unbounded: every multiple of {step} is an output, so no word width holds them"));
        }
        _ => return Err("not a staircase: the outputs are continuous".into()),
    };
    if !(step > 0.0 && step.is_finite()) {
        return Err(format!("the step {step} is not a positive number"));
    }
    let signed = lo < 0;
    let w = word_bits(lo, hi, signed);
    let exp = power_of_two_exponent(step);
    let (i, ap, ac) = match exp {
        Some(e) => {
            let i = w as i32 + e;
            let ap = format!("{}<{w},{i}>", if signed { "ap_fixed" } else { "ap_ufixed" });
            (i, ap, format!("ac_fixed<{w},{i},{signed}>"))
        }
        None => {
            let ap = format!("{}<{w}>", if signed { "ap_int" } else { "ap_uint" });
            (w as i32, ap, format!("ac_int<{w},{signed}>"))
        }
    };
    Ok(FixedPoint {
        signed,
        word_bits: w,
        integer_bits: i,
        scale: step,
        power_of_two: exp.is_some(),
        code_range: (lo, hi),
        codes: (lo..=hi).zip(values).collect(),
        ap_fixed: ap,
        ac_fixed: ac,
    })
}

/// A sorted level set as integer codes times a step, if it is one (PACT, ternary,
/// clipped_ste…); two levels that are not `{0, s}` nor `{−s, 0}` are a sign bit instead.
fn uniform_set(v: &[f32]) -> Result<(i64, i64, f32, Vec<f32>), String> {
    let n = v.len();
    if n < 2 {
        return Err("fewer than two output levels".into());
    }
    let step = (v[n - 1] as f64 - v[0] as f64) / (n - 1) as f64;
    let lo_f = v[0] as f64 / step;
    let lo = lo_f.round();
    let tol = 1e-5 * step;
    let uniform = (lo_f - lo).abs() < 1e-4
        && v.iter().enumerate().all(|(i, &x)| ((lo + i as f64) * step - x as f64).abs() <= tol);
    if uniform {
        let lo = lo as i64;
        let listed = if n <= MAX_LISTED_CODES { v.to_vec() } else { vec![] };
        return Ok((lo, lo + n as i64 - 1, step as f32, listed));
    }
    if n == 2 {
        return Err(format!(
            "two levels {} and {}: one bit selects between them (a binary/XNOR encoding), not a fixed-point number",
            v[0], v[1]
        ));
    }
    let spaced = v.windows(2).all(|p| ((p[1] - p[0]) as f64 - step).abs() <= 4.0 * tol);
    if spaced {
        return Err(format!(
            "equally spaced levels {} … {} offset from 0 by a fraction of the step: a code c stands for \
             {} + c·{}, an offset no plain fixed-point type has",
            v[0],
            v[n - 1],
            v[0],
            step as f32
        ));
    }
    Err("the levels are not equally spaced, so no fixed-point type holds them".into())
}

/// Fewest bits holding codes `lo..=hi` (two's complement when signed).
fn word_bits(lo: i64, hi: i64, signed: bool) -> u32 {
    (1..64)
        .find(|&w| if signed { lo >= -(1i64 << (w - 1)) && hi < (1i64 << (w - 1)) } else { hi < (1i64 << w) })
        .unwrap_or(64)
}

/// `e` when `v = 2^e` exactly (normal floats).
fn power_of_two_exponent(v: f32) -> Option<i32> {
    let b = v.to_bits();
    let exponent = ((b >> 23) & 0xff) as i32;
    (v > 0.0 && b & 0x007f_ffff == 0 && exponent > 0 && exponent < 255).then(|| exponent - 127)
}

/// Configurations whose behaviour surprises users, one sentence each (empty when none).
pub fn warnings(q: &Quantizer) -> Vec<String> {
    // Where the output saturates: beyond ±2^20 qscope returns the quantized value itself.
    let far = q.eval(&[-1e7, 1e7], &mut Ctx::inference(0)).0;
    let mut w = Warnings { q, far, list: Vec::new() };
    if q.is_data_dependent() {
        w.push(
            "This quantizer's scale or threshold depends on the whole tensor: the curve shown is for the \
             sample's value, and a plain sweep would give another.",
        );
    }
    each_quantizer!(q, k => k.warnings(&mut w));
    if let Some(Literal::Float(qn)) = q.get("qnoise_factor")
        && qn < 1.0
    {
        w.push(format!(
            "qnoise_factor={qn} < 1 blends the float input back in (y = x + {qn}·(q(x) − x)): outputs lie off the levels."
        ));
    }
    w.list
}

/// The warnings being written, with the quantizer's outputs to quote.
struct Warnings<'a> {
    q: &'a Quantizer,
    /// The outputs at ∓10⁷.
    far: Vec<f32>,
    list: Vec<String>,
}

impl Warnings<'_> {
    fn push(&mut self, warning: impl Into<String>) {
        self.list.push(warning.into());
    }

    /// `lo … hi`, the outputs far out, when the output saturates.
    fn bounds(&self) -> Option<String> {
        self.far.iter().all(|v| v.abs() < 1e6).then(|| format!("{} … {}", self.far[0], self.far[1]))
    }

    /// The output at `x` in inference.
    fn output(&self, x: f32) -> f32 {
        self.q.eval(&[x], &mut Ctx::inference(0)).0[0]
    }
}
