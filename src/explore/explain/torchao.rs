//! Step-by-step explanation of torchao's scaled FP8: the sample's amax and scale, x·scale,
//! the saturation, ml_dtypes' cast of the result (its own steps) and the division back.

use super::ml_dtypes::cast_steps;
use super::{At, Explain, Trace, n};
use crate::quant::Report;
use crate::quant::torchao::{EPS, Float8, amax_to_scale};

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
