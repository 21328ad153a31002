//! Step-by-step explanation of torchao's group-wise integers (`affine`, `intx_fake_quantize`):
//! the group's scale and zero point, x·(1/s), the rounding, the zero point, the clamp to the code
//! range, the integer cast (affine) and `(c − z)·s`.

use super::{At, Explain, Trace, n};
use qscope_quant::torchao::{Affine, GroupCodes, IntxFakeQuantize, Path, QParams};

/// The steps at the report's first group (the frozen group); returns why dy/dx is what it is.
fn group_steps(codes: impl Fn(QParams) -> GroupCodes, rule: &str, at: &At, t: &mut Trace) -> String {
    let block = at.report.blocks.first();
    let params = QParams {
        scale: block.map_or(f32::NAN, |b| b.scale),
        zero_point: block.and_then(|b| b.zero_point).unwrap_or(0.0),
    };
    let c = codes(params);
    if let Some(b) = block {
        t.add("the group: its length and max|x| (NaN if any element is)", format!("{} elements, {}", b.len, n(b.amax)));
    }
    t.add(format!("scale s = {rule}, at least float32's smallest normal"), n(params.scale));
    t.add("zero point z (int32)", n(params.zero_point));
    let recip = 1.0 / params.scale;
    t.add("1/s (float32 reciprocal: torchao multiplies by it)", n(recip));
    let v = t.round(at.x * recip) + params.zero_point;
    t.add("+ z", n(v));
    let (lo, hi) = (c.quant_min as f32, c.quant_max as f32);
    let mut code = t.clip(&format!("clamp to the codes [{}, {}]", c.quant_min, c.quant_max), v, lo, hi);
    if c.path == Path::Dequantize {
        let cast = if code.is_nan() { 0.0 } else { code };
        t.add("cast to the integer dtype (torch's CPU cast makes NaN 0)", n(cast));
        code = cast;
    }
    t.add("(c − z)·s", format!("({} − {}) · {} = {}", n(code), n(params.zero_point), n(params.scale), n(at.y)));
    match c.path {
        Path::Dequantize => {
            "qscope's definition: torchao's quantize_affine runs without gradient, so the value passes straight through"
                .into()
        }
        Path::FakeQuantize if at.g != 0.0 => format!(
            "autograd through round (straight-through) and the clamp: s·(1/s) = {} in float32, inside ({}, {})",
            n(at.g),
            c.quant_min,
            c.quant_max
        ),
        Path::FakeQuantize => format!(
            "torch 2.15's clamp passes no gradient where the code before it is ≤ {} or ≥ {} (2.10 kept the bounds)",
            c.quant_min, c.quant_max
        ),
    }
}

impl Explain for Affine {
    fn steps(&self, at: &At, t: &mut Trace) -> Option<String> {
        let rule = match self.mapping_type.as_str() {
            "asymmetric" => "(max(max, 0) − min(min, 0))/(quant_max − quant_min)",
            "symmetric" => "max|x|/((quant_max − quant_min)/2)",
            _ => "max(min(min, 0)/quant_min, max(max, 0)/quant_max)",
        };
        Some(group_steps(|p| self.at(p), rule, at, t))
    }
}

impl Explain for IntxFakeQuantize {
    fn steps(&self, at: &At, t: &mut Trace) -> Option<String> {
        let rule = if self.is_symmetric {
            "max|x|/((quant_max − quant_min)/2)"
        } else {
            "(max(max, 0) − min(min, 0))/(quant_max − quant_min)"
        };
        Some(group_steps(|p| self.at(p), rule, at, t))
    }
}
