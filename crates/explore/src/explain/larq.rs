//! Step-by-step explanations of the Larq quantizers.

use super::{At, Explain, Trace, clipped_reason, n};
use qscope_quant::lane;
use qscope_quant::larq::{
    ApproxSign, DoReFa, DoReFaMode, MagnitudeAwareSign, NoOp, SteHeaviside, SteSign, SteTern, SwishSign,
};
use qscope_quant::round::{sgn_plus, sgn0};

impl Explain for SteSign {
    fn steps(&self, at: &At, t: &mut Trace) -> Option<String> {
        sign(at.x, 1.0, t);
        Some(clip_reason(at.g, self.clip_value))
    }
}

impl Explain for ApproxSign {
    fn steps(&self, at: &At, t: &mut Trace) -> Option<String> {
        let x = at.x;
        sign(x, 1.0, t);
        let v = if x.abs() <= 1.0 { (1.0 - x.abs()) * 2.0 } else { 0.0 };
        t.add("Bi-Real's ApproxSign gradient 2 − 2|x| on |x| ≤ 1", n(v));
        Some("the derivative of Bi-Real's piecewise quadratic, a triangle peaking at 0".into())
    }
}

impl Explain for SwishSign {
    fn steps(&self, at: &At, t: &mut Trace) -> Option<String> {
        sign(at.x, 1.0, t);
        t.add("β", n(self.beta as f32));
        Some("SwishSign's smooth gradient β(2 − βx·tanh(βx/2))/(1 + cosh βx), never clipped".into())
    }
}

impl Explain for SteHeaviside {
    fn steps(&self, at: &At, t: &mut Trace) -> Option<String> {
        let v = if at.x > 0.0 { 1.0 } else { 0.0 };
        t.add("heaviside: 1 if x > 0, else 0 (0 ↦ 0)", n(v));
        Some(clip_reason(at.g, self.clip_value))
    }
}

impl Explain for MagnitudeAwareSign {
    fn steps(&self, at: &At, t: &mut Trace) -> Option<String> {
        let a = at.report.scale.unwrap_or(f32::NAN);
        t.add("scale a = mean|x| of the sample (held constant for the gradient)", n(a));
        sign(at.x, a, t);
        Some(format!("a times the clipped STE: {}", clip_reason(at.g, self.clip_value)))
    }
}

impl Explain for SteTern {
    fn steps(&self, at: &At, t: &mut Trace) -> Option<String> {
        let x = at.x;
        let th = if self.ternary_weight_networks {
            let th = at.report.threshold.unwrap_or(f32::NAN);
            t.add("threshold Δ = 0.7·mean|x| of the sample (ternary weight networks)", n(th));
            th
        } else {
            t.add("threshold Δ", n(self.threshold_value as f32));
            self.threshold_value as f32
        };
        let k = sgn0(sgn0(x + th) + sgn0(x - th));
        t.add("code sign(sign(x + Δ) + sign(x − Δ)): ±1 where |x| ≥ Δ (inclusive), else 0", n(k));
        Some(clip_reason(at.g, self.clip_value))
    }
}

impl Explain for DoReFa {
    fn steps(&self, at: &At, t: &mut Trace) -> Option<String> {
        let x = at.x;
        let nn = self.step_count() as f32;
        t.add("levels n = 2^k_bit − 1", n(nn));
        Some(match self.mode {
            DoReFaMode::Activations => {
                let c = t.clip("clip to [0, 1]", x, 0.0, 1.0);
                t.add("n·x", n(c * nn));
                let r = t.round(c * nn);
                t.add("q(x) = round(n·x)/n", n(r / nn));
                clipped_reason(at.g, "[0, 1]")
            }
            DoReFaMode::Weights => {
                let d_max = at.report.scale.unwrap_or(f32::NAN);
                let th = lane::tanh(x);
                t.add("tanh(x)", n(th));
                t.add("d = max|tanh| of the sample (held constant for the gradient)", n(d_max));
                let v = th / (2.0 * d_max) + 0.5;
                t.add("tanh(x)/2d + ½ ∈ [0, 1]", n(v));
                let r = t.round(v * nn);
                t.add("q(x) = 2·round(n·…)/n − 1", n(2.0 * r / nn - 1.0));
                "the derivative of the tanh normalisation, (1 − tanh²x)/d, straight through the rounding".into()
            }
        })
    }
}

impl Explain for NoOp {
    fn steps(&self, _: &At, _: &mut Trace) -> Option<String> {
        Some("the identity".into())
    }
}

/// `scale·sign(x)` with Larq's sign (0 ↦ +1).
fn sign(x: f32, scale: f32, t: &mut Trace) {
    let s = sgn_plus(x);
    t.add("sign (0 ↦ +1, as Larq's sign)", n(s));
    if scale != 1.0 {
        t.add("q(x) = a·sign(x)", n(scale * s));
    }
}

/// Larq's clipped straight-through estimator, or the identity without clip_value.
fn clip_reason(g: f32, clip_value: Option<f64>) -> String {
    match clip_value {
        None => "clip_value=None: the gradient passes unchanged everywhere".into(),
        Some(c) => clipped_reason(g, &format!("|x| ≤ {c}")),
    }
}
