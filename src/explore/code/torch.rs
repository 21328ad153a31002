//! PyTorch text for the quantizers torch can express in a few lines: its own fake
//! quantization, and the straight-through idiom `x + (q − x).detach()` (forward q, gradient of
//! x) for rounding and sign quantizers, with `torch.clamp` where the gradient is clipped
//! (torch.clamp passes the gradient on the closed interval, as Keras' clip does).
//!
//! One [`Torch`] impl per catalogue type, in catalogue order: QKeras classes, QKeras
//! functions, Larq, beyond.

use crate::quant::beyond::{ClippedSte, FakeQuantize, IdentitySte, Lsq, Pact, SoftRound, SoftRoundAT};
use crate::quant::larq::{
    ApproxSign, DoReFa, DoReFaMode, MagnitudeAwareSign, NoOp, SteHeaviside, SteSign, SteTern, SwishSign,
};
use crate::quant::qkeras::{
    Bernoulli, Binary, BinarySigmoid, BinaryTanh, HardSigmoid, HardTanh, QuantizedBits, QuantizedHswish,
    QuantizedLinear, QuantizedPo2, QuantizedRelu, QuantizedReluPo2, QuantizedSigmoid, QuantizedTanh, QuantizedUlaw,
    RoundThrough, SmoothSigmoid, SmoothTanh, StochasticBinary, StochasticRound, StochasticRoundPo2, StochasticTernary,
    Ternary,
};
use crate::quant::schema::fmt_float as f;
use crate::quant::{Alpha, Quantizer, each_quantizer};

/// A quantizer as a few lines of PyTorch.
trait Torch {
    /// The body of a snippet computing `y` from `x` (a tensor), or None where torch needs
    /// more than a few lines (data-dependent QKeras fits, stochastic draws, power-of-two
    /// exponents…).
    fn torch(&self) -> Option<String>;
}

/// The PyTorch body for `q`, if torch can express it in a few lines.
pub(super) fn snippet(q: &Quantizer) -> Option<String> {
    each_quantizer!(q, k => k.torch())
}

// QKeras classes.

impl Torch for QuantizedBits {
    fn torch(&self) -> Option<String> {
        if self.alpha.is_auto() || self.qnoise_factor != 1.0 || !self.use_ste || self.use_stochastic_rounding {
            return None;
        }
        let a = if let Alpha::Value(a) = self.alpha { a } else { 1.0 };
        let kn = self.keep_negative as i32;
        let q = if self.bits - kn <= 0 {
            format!("q = {} * torch.where(x >= 0, 1.0, -1.0)  # one bit: a sign, 0 -> +1", f(a))
        } else {
            let m = 2f64.powi(self.bits - kn);
            let delta = 2f64.powi(self.integer) / m;
            let lo = if self.keep_negative { -m + self.symmetric as i32 as f64 } else { 0.0 };
            format!(
                "k = torch.clamp(torch.round(x / {}), {}, {})  # round half to even, as tf.round\nq = {} * k",
                f(delta),
                lo,
                m - 1.0,
                f(a * delta)
            )
        };
        Some(format!("{q}\ny = x + (q - x).detach()  # QKeras' STE: gradient 1 everywhere"))
    }
}

impl Torch for QuantizedLinear {
    fn torch(&self) -> Option<String> {
        if self.alpha.is_auto() || self.qnoise_factor != 1.0 || self.use_stochastic_rounding || self.bits <= 1 {
            return None;
        }
        let kn = self.keep_negative as i32;
        let a = if let Alpha::Value(a) = self.alpha { a } else { 1.0 };
        let qs = a * 2f64.powi(self.integer - self.bits + kn);
        let u = 2f64.powi(self.bits - kn);
        let lo = if self.keep_negative { -u + self.symmetric as i32 as f64 } else { 0.0 };
        Some(format!(
            "xc = torch.clamp(x, {}, {})  # the clipped STE window\nq = torch.round(xc / {}) * {}\ny = xc + (q - xc).detach()",
            f(lo * qs),
            f((u - 1.0) * qs),
            f(qs),
            f(qs)
        ))
    }
}

impl Torch for QuantizedPo2 {
    fn torch(&self) -> Option<String> {
        None
    }
}

impl Torch for QuantizedReluPo2 {
    fn torch(&self) -> Option<String> {
        None
    }
}

impl Torch for QuantizedRelu {
    fn torch(&self) -> Option<String> {
        let plain = !self.use_sigmoid
            && self.negative_slope == 0.0
            && self.is_quantized_clip
            && self.qnoise_factor == 1.0
            && self.use_ste
            && !self.use_stochastic_rounding;
        if !plain {
            return None;
        }
        let delta = 2f64.powi(self.integer - self.bits);
        let top = 2f64.powi(self.integer) - delta;
        Some(format!(
            "xu = torch.relu(torch.clamp(x, max={}))  # relu capped at the top code\nq = torch.clamp(torch.round(x / {}), 0, {}) * {}\ny = xu + (q - xu).detach()",
            f(top),
            f(delta),
            2f64.powi(self.bits) - 1.0,
            f(delta)
        ))
    }
}

impl Torch for QuantizedTanh {
    fn torch(&self) -> Option<String> {
        None
    }
}

impl Torch for QuantizedSigmoid {
    fn torch(&self) -> Option<String> {
        None
    }
}

impl Torch for QuantizedUlaw {
    fn torch(&self) -> Option<String> {
        None
    }
}

impl Torch for QuantizedHswish {
    fn torch(&self) -> Option<String> {
        None
    }
}

impl Torch for Binary {
    fn torch(&self) -> Option<String> {
        if self.alpha.is_auto() || self.use_stochastic_rounding {
            return None;
        }
        let k = if self.use_01 { "(x >= 0).to(x.dtype)" } else { "torch.where(x >= 0, 1.0, -1.0)" };
        Some(tanh_or_identity(self.alpha, &scaled(self.alpha, k)))
    }
}

impl Torch for StochasticBinary {
    fn torch(&self) -> Option<String> {
        None
    }
}

impl Torch for Ternary {
    fn torch(&self) -> Option<String> {
        if self.alpha.is_auto() {
            return None;
        }
        let th = f(self.threshold.unwrap_or(0.33));
        let k = format!("torch.where(x.abs() >= {th}, torch.sign(x), 0.0)");
        Some(tanh_or_identity(self.alpha, &scaled(self.alpha, &k)))
    }
}

impl Torch for StochasticTernary {
    fn torch(&self) -> Option<String> {
        None
    }
}

impl Torch for Bernoulli {
    fn torch(&self) -> Option<String> {
        None
    }
}

// QKeras functions.

impl Torch for RoundThrough {
    fn torch(&self) -> Option<String> {
        (!self.use_stochastic_rounding).then(|| "y = x + (torch.round(x) - x).detach()".into())
    }
}

impl Torch for StochasticRound {
    fn torch(&self) -> Option<String> {
        None
    }
}

impl Torch for StochasticRoundPo2 {
    fn torch(&self) -> Option<String> {
        None
    }
}

impl Torch for HardSigmoid {
    fn torch(&self) -> Option<String> {
        None
    }
}

impl Torch for HardTanh {
    fn torch(&self) -> Option<String> {
        None
    }
}

impl Torch for SmoothSigmoid {
    fn torch(&self) -> Option<String> {
        None
    }
}

impl Torch for SmoothTanh {
    fn torch(&self) -> Option<String> {
        None
    }
}

impl Torch for BinarySigmoid {
    fn torch(&self) -> Option<String> {
        None
    }
}

impl Torch for BinaryTanh {
    fn torch(&self) -> Option<String> {
        None
    }
}

// Larq.

impl Torch for SteSign {
    fn torch(&self) -> Option<String> {
        Some(sign_ste("torch.where(x >= 0, 1.0, -1.0)", self.clip_value, ""))
    }
}

impl Torch for ApproxSign {
    fn torch(&self) -> Option<String> {
        Some(
            "q = torch.where(x >= 0, 1.0, -1.0)\nxc = torch.clamp(x, -1, 1)\n\
             p = 2 * xc - xc * xc.abs()  # Bi-Real's piecewise quadratic: gradient 2 - 2|x|\n\
             y = p + (q - p).detach()"
                .into(),
        )
    }
}

impl Torch for SwishSign {
    fn torch(&self) -> Option<String> {
        None
    }
}

impl Torch for SteHeaviside {
    fn torch(&self) -> Option<String> {
        Some(sign_ste("(x > 0).to(x.dtype)", self.clip_value, ""))
    }
}

impl Torch for MagnitudeAwareSign {
    fn torch(&self) -> Option<String> {
        let body = sign_ste("torch.where(x >= 0, 1.0, -1.0)", self.clip_value, "");
        let (lines, last) = body.rsplit_once("\ny = ").unwrap_or(("", &body));
        Some(format!(
            "a = x.abs().mean(dim=tuple(range(x.dim() - 1)), keepdim=True).detach()  # per output channel\n\
             {lines}\ny = a * ({last})"
        ))
    }
}

impl Torch for SteTern {
    fn torch(&self) -> Option<String> {
        let d = if self.ternary_weight_networks { "0.7 * x.abs().mean()".into() } else { f(self.threshold_value) };
        Some(sign_ste("torch.sign(torch.sign(x + d) + torch.sign(x - d))", self.clip_value, &format!("d = {d}\n")))
    }
}

impl Torch for DoReFa {
    fn torch(&self) -> Option<String> {
        let n = (1u64 << self.k_bit) - 1;
        Some(match self.mode {
            DoReFaMode::Activations => {
                format!("xc = torch.clamp(x, 0, 1)\nq = torch.round(xc * {n}) / {n}\ny = xc + (q - xc).detach()")
            }
            DoReFaMode::Weights => format!(
                "t = torch.tanh(x)\nd = t.abs().max().detach()\nv = t / (2 * d) + 0.5\n\
                 q = 2 * torch.round(v * {n}) / {n} - 1\ny = (2 * v - 1) + (q - (2 * v - 1)).detach()"
            ),
        })
    }
}

impl Torch for NoOp {
    fn torch(&self) -> Option<String> {
        Some("y = x".into())
    }
}

// Beyond.

impl Torch for SoftRound {
    fn torch(&self) -> Option<String> {
        None
    }
}

impl Torch for SoftRoundAT {
    fn torch(&self) -> Option<String> {
        if self.alpha < 1e-3 {
            return None;
        }
        let a = f(self.alpha);
        let soft = format!("m = torch.floor(x) + 0.5\ns = m + torch.tanh({a} * (x - m)) / (2 * math.tanh({a} / 2))");
        let out = if self.hard { "y = s + (torch.round(x) - s).detach()" } else { "y = s" };
        Some(format!("import math\n{soft}\n{out}"))
    }
}

impl Torch for IdentitySte {
    fn torch(&self) -> Option<String> {
        Some(format!("q = torch.round(x / {0}) * {0}\ny = x + (q - x).detach()", f(self.step)))
    }
}

impl Torch for ClippedSte {
    fn torch(&self) -> Option<String> {
        Some(format!(
            "xc = torch.clamp(x, {1}, {2})\nq = torch.clamp(torch.round(x / {0}) * {0}, {1}, {2})\ny = xc + (q - xc).detach()",
            f(self.step),
            f(self.min_value),
            f(self.max_value)
        ))
    }
}

impl Torch for Lsq {
    fn torch(&self) -> Option<String> {
        let (qn, qp) = self.range();
        let init = match self.step {
            Some(s) => f(s),
            None => format!("(2 * x.abs().mean() / {qp} ** 0.5).item()"),
        };
        let g = if self.grad_scale { format!("1.0 / (x.numel() * {qp}) ** 0.5") } else { "1.0".into() };
        Some(format!(
            "s = torch.nn.Parameter(torch.tensor({init}))\ng = {g}\ns_ = (s - s * g).detach() + s * g  # gradient scaled by g\n\
             v = torch.clamp(x / s_, -{qn}, {qp})\nv = v + (torch.round(v) - v).detach()\ny = v * s_"
        ))
    }
}

impl Torch for Pact {
    fn torch(&self) -> Option<String> {
        let n = (1i64 << self.bits) - 1;
        Some(format!(
            "alpha = torch.nn.Parameter(torch.tensor({}))\nyc = torch.clamp(x, min=0)\nyc = torch.where(yc < alpha, yc, alpha)\n\
             q = torch.round(yc * {n} / alpha) * alpha / {n}\ny = yc + (q - yc).detach()",
            f(self.alpha)
        ))
    }
}

impl Torch for FakeQuantize {
    fn torch(&self) -> Option<String> {
        Some(format!(
            "y = torch.fake_quantize_per_tensor_affine(x, {}, {}, {}, {})",
            f(self.scale),
            self.zero_point,
            self.quant_min,
            self.quant_max
        ))
    }
}

/// A sign-like forward with Larq's clipped STE (`clip_value`), after some set-up lines.
fn sign_ste(forward: &str, clip_value: Option<f64>, setup: &str) -> String {
    match clip_value {
        None => format!("{setup}q = {forward}\ny = x + (q - x).detach()"),
        Some(c) => format!(
            "{setup}q = {forward}\nxc = torch.clamp(x, -{0}, {0})  # gradient 1 on |x| <= {0}\ny = xc + (q - xc).detach()",
            f(c)
        ),
    }
}

/// `q = k`, or `q = α * k` with a numeric alpha.
fn scaled(alpha: Alpha, k: &str) -> String {
    match alpha {
        Alpha::Value(a) => format!("q = {} * {k}", f(a)),
        _ => format!("q = {k}"),
    }
}

/// QKeras binary/ternary: the STE through tanh when alpha is None, else the identity.
fn tanh_or_identity(alpha: Alpha, q: &str) -> String {
    if alpha == Alpha::None {
        format!("{q}\nt = torch.tanh(x)  # alpha None: gradient 1 - tanh^2\ny = t + (q - t).detach()")
    } else {
        format!("{q}\ny = x + (q - x).detach()")
    }
}
