//! Step-by-step explanations of the estimators beyond QKeras and Larq.

use super::{At, Explain, Trace, clipped_reason, n};
use qscope_quant::beyond::{ClippedSte, FakeQuantize, IdentitySte, Lsq, Pact, SoftRound, SoftRoundAT};
use qscope_quant::lane;

impl Explain for SoftRound {
    fn steps(&self, at: &At, t: &mut Trace) -> Option<String> {
        let x = at.x;
        let r = t.round(x);
        t.add("gradient factor x/round(x) (shok's SoftRound)", if r == 0.0 { "round(x) = 0".into() } else { n(x / r) });
        Some(if x == 0.0 {
            "1 at x = 0".into()
        } else if r == 0.0 {
            "0 where x rounds to 0 (0 < |x| ≤ ½ passes nothing)".into()
        } else {
            "shok's SoftRound scales the gradient by x/round(x)".into()
        })
    }
}

impl Explain for SoftRoundAT {
    fn steps(&self, at: &At, t: &mut Trace) -> Option<String> {
        let (x, a) = (at.x, self.alpha as f32);
        if self.alpha < 1e-3 {
            t.add("α < 10⁻³: the identity", n(x));
        } else {
            let m = x.floor() + 0.5;
            t.add("m = ⌊x⌋ + ½", n(m));
            t.add("r = x − m", n(x - m));
            t.add("tanh(α·r)", n(lane::tanh(a * (x - m))));
            t.add("2·tanh(α/2)", n(lane::tanh(a / 2.0) * 2.0));
            if self.hard {
                t.round(x);
                t.add("hard=True: the forward pass rounds; the soft curve's slope is the gradient", "");
            } else {
                t.add("s(x) = m + tanh(α·r)/(2·tanh(α/2))", n(at.y));
            }
        }
        Some("the soft rounding's derivative α(1 − tanh²(α·r))/(2·tanh(α/2))".into())
    }
}

impl Explain for IdentitySte {
    fn steps(&self, at: &At, t: &mut Trace) -> Option<String> {
        let (x, step) = (at.x, self.step as f32);
        t.add("x/step", n(x / step));
        let r = t.round(x / step);
        t.add("q(x) = step·k", n(step * r));
        Some("the identity STE passes the gradient unchanged".into())
    }
}

impl Explain for ClippedSte {
    fn steps(&self, at: &At, t: &mut Trace) -> Option<String> {
        let (x, step, lo, hi) = (at.x, self.step as f32, self.min_value as f32, self.max_value as f32);
        t.add("x/step", n(x / step));
        let r = t.round(x / step);
        t.clip("clip step·k to [min, max]", step * r, lo, hi);
        Some(clipped_reason(at.g, &format!("[{}, {}]", n(lo), n(hi))))
    }
}

impl Explain for Lsq {
    /// With the kernel's code range `[−Qn, Qp]` and the step in use.
    fn steps(&self, at: &At, t: &mut Trace) -> Option<String> {
        let x = at.x;
        let s = at.report.scale.unwrap_or(f32::NAN);
        let (qn, qp) = self.range();
        let source = if self.step.is_some() { "step s" } else { "step s = 2·mean|v|/√Qp of the sample" };
        t.add(source, n(s));
        let u = x / s;
        t.add("v/s", n(u));
        let c = t.clip("clip to [−Qn, Qp]", u, -qn, qp);
        let r = t.round(c);
        t.add("q(v) = s·k", n(s * r));
        let ds = if u <= -qn {
            -qn
        } else if u >= qp {
            qp
        } else {
            r - u
        };
        t.add("∂q/∂s here (before 1/√(N·Qp)): round(v/s) − v/s inside, −Qn below, Qp above", n(ds));
        Some(if at.g != 0.0 {
            format!("1 strictly inside −{} < v/s < {}", n(qn), n(qp))
        } else {
            format!("0 at or beyond the clip levels (LSQ's window −{} < v/s < {} is strict)", n(qn), n(qp))
        })
    }
}

impl Explain for Pact {
    fn steps(&self, at: &At, t: &mut Trace) -> Option<String> {
        let (x, a) = (at.x, self.alpha as f32);
        let k = self.codes_per_unit();
        let c = t.clip("clip to [0, α]", x, 0.0, a);
        t.add("y·n/α", n(c * k));
        let r = t.round(c * k);
        t.add("q(x) = round(y·n/α)·α/n", n(r / k));
        t.add("∂q/∂α here: 1 where x ≥ α (the rounding residual is dropped)", n(if x >= a { 1.0 } else { 0.0 }));
        Some(if at.g != 0.0 { "1 on 0 ≤ x < α".into() } else { "0 outside 0 ≤ x < α".into() })
    }
}

impl Explain for FakeQuantize {
    fn steps(&self, at: &At, t: &mut Trace) -> Option<String> {
        let (x, s) = (at.x, self.scale as f32);
        let inv = 1.0f32 / s;
        t.add("f32(1/scale) (PyTorch multiplies by the reciprocal)", n(inv));
        t.add("x·(1/scale)", n(x * inv));
        let r = t.round(x * inv);
        let c = self.zero_point as f32 + r;
        t.add("code c = zero_point + round(x/scale)", n(c));
        let cc = t.clip("clamp to [quant_min, quant_max]", c, self.quant_min as f32, self.quant_max as f32);
        t.add("q(x) = (c − zero_point)·scale", n((cc - self.zero_point as f32) * s));
        Some(if at.g != 0.0 {
            "1 where the unclamped code is within [quant_min, quant_max]".into()
        } else {
            "0 where the unclamped code is outside [quant_min, quant_max]".into()
        })
    }
}
