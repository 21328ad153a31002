//! Step-by-step explanations of torchao's formats. Scaled FP8: the sample's amax and scale,
//! x·scale, the saturation, ml_dtypes' cast of the result (its own steps) and the division back.
//! MX and NVFP4: the drawn block's amax and scale code, x times the reciprocal, the clamp, the
//! element cast and the multiplication back.

use super::ml_dtypes::cast_steps;
use super::{At, Explain, Trace, n};
use qscope_quant::torchao::{
    AMAX_PER_TENSOR_SCALE, BlockCast, E8M0_NAN, EPS, Float8, Mx, Nvfp4, ScalingMode, amax_to_scale,
};
use qscope_quant::{AutoScale, Block, Report};

impl Explain for Float8 {
    fn steps(&self, at: &At, t: &mut Trace) -> Option<String> {
        let f = self.float8_dtype.format();
        let max = f.max();
        let amax = at.report.amax.unwrap_or(f32::NAN);
        let s = at.report.scale.unwrap_or(f32::NAN);
        t.add("amax = max|x| of the sample (float32; NaN if any element is)", n(amax));
        let raw = amax_to_scale(amax, f, false);
        t.add(format!("scale = {} / max(amax, {EPS:e}) in float64, rounded to float32", n(max)), n(raw));
        if self.round_scales_to_power_of_2 {
            t.add("scale → 2^⌊log2 scale⌋ (log2 rounded to float32 first: just below 2^k gives 2^k)", n(s));
        }
        let scaled = at.x * s;
        t.add("x·scale (float32)", n(scaled));
        let c = t.clip(&format!("saturate to ±{}", n(max)), scaled, -max, max);
        let cast = f.cast(c);
        cast_steps(f, &At { x: c, y: cast, g: at.g, training: at.training, report: &Report::default() }, t);
        t.add(format!("{} → float32, ÷ scale", f.name), format!("{} / {} = {}", n(cast), n(s), n(at.y)));
        Some(
            "torchao's to- and from-float8 functions pass the gradient through unchanged, and the scale is \
              computed without gradient"
                .into(),
        )
    }
}

/// The block whose scale the curve is drawn at (the report's first), and its E8M0/E4M3 code.
fn block_line(at: &At, t: &mut Trace, code_name: &str) -> Option<Block> {
    let b = at.report.blocks.first().copied();
    match b {
        Some(b) => {
            t.add(format!("the block drawn: {} elements, amax = max|x| (NaN if any element is)", b.len), n(b.amax))
        }
        None => t.add("the block drawn", "none in the report: the scale is NaN"),
    }
    if let Some(code) = b.and_then(|b| b.code) {
        t.add(
            format!("{code_name} scale code"),
            format!("{code} (0x{code:02x}) = {}", n(b.map_or(f32::NAN, |b| b.scale))),
        );
    }
    b
}

/// The element steps shared by MX and NVFP4: x·rcp, the clamp, the element cast (ml_dtypes'
/// steps) and the multiplication back.
fn block_cast_steps(c: &BlockCast, at: &At, t: &mut Trace, times: &str) {
    let f = c.format;
    let scaled = at.x * c.rcp;
    t.add(format!("x · {}", n(c.rcp)), n(scaled));
    let clipped = t.clip(&format!("clamp to ±{}", n(f.max())), scaled, -f.max(), f.max());
    let cast = f.cast(clipped);
    cast_steps(f, &At { x: clipped, y: cast, g: at.g, training: at.training, report: &Report::default() }, t);
    t.add(format!("{} → float32, × {times}", f.name), format!("{} × {} = {}", n(cast), n(c.scale), n(at.y)));
}

impl Explain for Mx {
    fn steps(&self, at: &At, t: &mut Trace) -> Option<String> {
        let f = self.format();
        let b = block_line(at, t, "E8M0");
        if let Some(b) = b {
            let how = match self.scaling_mode {
                ScalingMode::Floor => {
                    format!("⌊log2 amax⌋ − {} + 127 (amax's float32 exponent bits)", f.max_exponent())
                }
                ScalingMode::Ceil => {
                    format!("⌈log2 amax⌉ − {} + 127 (exponent bits, +1 if any mantissa bit)", f.max_exponent())
                }
                ScalingMode::Even => format!(
                    "⌊log2 amax⌋ − {} + 127 after rounding amax to {} mantissa bits (half up)",
                    f.max_exponent(),
                    f.mantissa_bits
                ),
                ScalingMode::Rceil => format!("⌈log2(amax / {})⌉ + 127, log2 in float32", n(f.max())),
            };
            t.add(format!("code = {how}, within 0…254; NaN amax 255"), b.code.map_or("—".into(), |c| c.to_string()));
        }
        let code = b.and_then(|b| b.code).unwrap_or(E8M0_NAN);
        block_cast_steps(&self.cast(code), at, t, "2^(code − 127)");
        Some("qscope passes the gradient straight through: torchao's MX defines no gradient".into())
    }
}

impl Explain for Nvfp4 {
    fn steps(&self, at: &At, t: &mut Trace) -> Option<String> {
        let tensor = at.report.scale;
        match (self.per_tensor_scale, tensor) {
            (AutoScale::Auto, Some(s)) => {
                t.add("tensor amax (float32; NaN if any element is)", n(at.report.amax.unwrap_or(f32::NAN)));
                t.add(format!("per-tensor scale t = amax / {} (448 · 6)", n(AMAX_PER_TENSOR_SCALE)), n(s));
            }
            (_, Some(s)) => t.add("per-tensor scale t (given)", n(s)),
            (_, None) => t.add("per-tensor scale", "none: one level, E4M3 block scales alone"),
        }
        let b = block_line(at, t, "E4M3");
        if let Some(b) = b {
            let what = if tensor.is_some() { "amax / 6 / t" } else { "amax / 6" };
            t.add(format!("s = e4m3(clamp({what}, 2^−6, 448)), float32 throughout"), n(b.scale));
        }
        let s = b.map_or(f32::NAN, |b| b.scale);
        let times = if tensor.is_some() { "(t · s)" } else { "s" };
        block_cast_steps(&Nvfp4::cast(s, tensor), at, t, times);
        Some("qscope passes the gradient straight through: torchao's autograd reaches only the block scales".into())
    }
}
