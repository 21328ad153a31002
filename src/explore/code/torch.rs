//! PyTorch text for the quantizers torch can express in a few lines: its own fake
//! quantization, and the straight-through idiom `x + (q − x).detach()` (forward q, gradient of
//! x) for rounding and sign quantizers, with `torch.clamp` where the gradient is clipped
//! (torch.clamp passes the gradient on the closed interval, as Keras' clip does).

use crate::quant::larq::DoReFaMode;
use crate::quant::schema::fmt_float;
use crate::quant::{Alpha, Quantizer};

/// The body of a PyTorch snippet for `x` (a tensor), or None where torch needs more than a
/// few lines (data-dependent QKeras fits, stochastic draws, power-of-two exponents…).
pub(super) fn snippet(q: &Quantizer) -> Option<String> {
    let f = fmt_float;
    Some(match q {
        Quantizer::FakeQuantize(p) => format!(
            "y = torch.fake_quantize_per_tensor_affine(x, {}, {}, {}, {})",
            f(p.scale),
            p.zero_point,
            p.quant_min,
            p.quant_max
        ),
        Quantizer::QuantizedBits(b)
            if !b.alpha.is_auto() && b.qnoise_factor == 1.0 && b.use_ste && !b.use_stochastic_rounding =>
        {
            let a = if let Alpha::Value(a) = b.alpha { a } else { 1.0 };
            let kn = b.keep_negative as i32;
            let q = if b.bits - kn <= 0 {
                format!("q = {} * torch.where(x >= 0, 1.0, -1.0)  # one bit: a sign, 0 -> +1", f(a))
            } else {
                let m = 2f64.powi(b.bits - kn);
                let delta = 2f64.powi(b.integer) / m;
                let lo = if b.keep_negative { -m + b.symmetric as i32 as f64 } else { 0.0 };
                format!(
                    "k = torch.clamp(torch.round(x / {}), {}, {})  # round half to even, as tf.round\nq = {} * k",
                    f(delta),
                    lo,
                    m - 1.0,
                    f(a * delta)
                )
            };
            format!("{q}\ny = x + (q - x).detach()  # QKeras' STE: gradient 1 everywhere")
        }
        Quantizer::QuantizedLinear(l)
            if !l.alpha.is_auto() && l.qnoise_factor == 1.0 && !l.use_stochastic_rounding && l.bits > 1 =>
        {
            let kn = l.keep_negative as i32;
            let a = if let Alpha::Value(a) = l.alpha { a } else { 1.0 };
            let qs = a * 2f64.powi(l.integer - l.bits + kn);
            let u = 2f64.powi(l.bits - kn);
            let lo = if l.keep_negative { -u + l.symmetric as i32 as f64 } else { 0.0 };
            format!(
                "xc = torch.clamp(x, {}, {})  # the clipped STE window\nq = torch.round(xc / {}) * {}\ny = xc + (q - xc).detach()",
                f(lo * qs),
                f((u - 1.0) * qs),
                f(qs),
                f(qs)
            )
        }
        Quantizer::QuantizedRelu(r)
            if !r.use_sigmoid
                && r.negative_slope == 0.0
                && r.is_quantized_clip
                && r.qnoise_factor == 1.0
                && r.use_ste
                && !r.use_stochastic_rounding =>
        {
            let delta = 2f64.powi(r.integer - r.bits);
            let top = 2f64.powi(r.integer) - delta;
            format!(
                "xu = torch.relu(torch.clamp(x, max={}))  # relu capped at the top code\nq = torch.clamp(torch.round(x / {}), 0, {}) * {}\ny = xu + (q - xu).detach()",
                f(top),
                f(delta),
                2f64.powi(r.bits) - 1.0,
                f(delta)
            )
        }
        Quantizer::RoundThrough(r) if !r.use_stochastic_rounding => "y = x + (torch.round(x) - x).detach()".into(),
        Quantizer::IdentitySte(s) => {
            format!("q = torch.round(x / {0}) * {0}\ny = x + (q - x).detach()", f(s.step))
        }
        Quantizer::ClippedSte(s) => format!(
            "xc = torch.clamp(x, {1}, {2})\nq = torch.clamp(torch.round(x / {0}) * {0}, {1}, {2})\ny = xc + (q - xc).detach()",
            f(s.step),
            f(s.min_value),
            f(s.max_value)
        ),
        Quantizer::SteSign(s) => sign_ste("torch.where(x >= 0, 1.0, -1.0)", s.clip_value, ""),
        Quantizer::SteHeaviside(s) => sign_ste("(x > 0).to(x.dtype)", s.clip_value, ""),
        Quantizer::MagnitudeAwareSign(s) => {
            let body = sign_ste("torch.where(x >= 0, 1.0, -1.0)", s.clip_value, "");
            let (lines, last) = body.rsplit_once("\ny = ").unwrap_or(("", &body));
            format!(
                "a = x.abs().mean(dim=tuple(range(x.dim() - 1)), keepdim=True).detach()  # per output channel\n\
                 {lines}\ny = a * ({last})"
            )
        }
        Quantizer::SteTern(s) => {
            let d = if s.ternary_weight_networks { "0.7 * x.abs().mean()".into() } else { f(s.threshold_value) };
            sign_ste("torch.sign(torch.sign(x + d) + torch.sign(x - d))", s.clip_value, &format!("d = {d}\n"))
        }
        Quantizer::ApproxSign(_) => "q = torch.where(x >= 0, 1.0, -1.0)\nxc = torch.clamp(x, -1, 1)\n\
             p = 2 * xc - xc * xc.abs()  # Bi-Real's piecewise quadratic: gradient 2 - 2|x|\n\
             y = p + (q - p).detach()"
            .into(),
        Quantizer::DoReFa(d) => {
            let n = (1u64 << d.k_bit) - 1;
            match d.mode {
                DoReFaMode::Activations => {
                    format!("xc = torch.clamp(x, 0, 1)\nq = torch.round(xc * {n}) / {n}\ny = xc + (q - xc).detach()")
                }
                DoReFaMode::Weights => format!(
                    "t = torch.tanh(x)\nd = t.abs().max().detach()\nv = t / (2 * d) + 0.5\n\
                     q = 2 * torch.round(v * {n}) / {n} - 1\ny = (2 * v - 1) + (q - (2 * v - 1)).detach()"
                ),
            }
        }
        Quantizer::Lsq(l) => {
            let (qn, qp) =
                if l.signed { (1i64 << (l.bits - 1), (1i64 << (l.bits - 1)) - 1) } else { (0, (1i64 << l.bits) - 1) };
            let init = match l.step {
                Some(s) => f(s),
                None => format!("(2 * x.abs().mean() / {qp} ** 0.5).item()"),
            };
            let g = if l.grad_scale { format!("1.0 / (x.numel() * {qp}) ** 0.5") } else { "1.0".into() };
            format!(
                "s = torch.nn.Parameter(torch.tensor({init}))\ng = {g}\ns_ = (s - s * g).detach() + s * g  # gradient scaled by g\n\
                 v = torch.clamp(x / s_, -{qn}, {qp})\nv = v + (torch.round(v) - v).detach()\ny = v * s_"
            )
        }
        Quantizer::Pact(p) => {
            let n = (1i64 << p.bits) - 1;
            format!(
                "alpha = torch.nn.Parameter(torch.tensor({}))\nyc = torch.clamp(x, min=0)\nyc = torch.where(yc < alpha, yc, alpha)\n\
                 q = torch.round(yc * {n} / alpha) * alpha / {n}\ny = yc + (q - yc).detach()",
                f(p.alpha)
            )
        }
        Quantizer::SoftRoundAT(s) if s.alpha >= 1e-3 => {
            let a = f(s.alpha);
            let soft =
                format!("m = torch.floor(x) + 0.5\ns = m + torch.tanh({a} * (x - m)) / (2 * math.tanh({a} / 2))");
            let out = if s.hard { "y = s + (torch.round(x) - s).detach()" } else { "y = s" };
            format!("import math\n{soft}\n{out}")
        }
        Quantizer::NoOp(_) => "y = x".into(),
        Quantizer::Binary(b) if !b.alpha.is_auto() && !b.use_stochastic_rounding => {
            let k = if b.use_01 { "(x >= 0).to(x.dtype)" } else { "torch.where(x >= 0, 1.0, -1.0)" };
            tanh_or_identity(b.alpha, &scaled(b.alpha, k))
        }
        Quantizer::Ternary(t) if !t.alpha.is_auto() => {
            let th = f(t.threshold.unwrap_or(0.33));
            let k = format!("torch.where(x.abs() >= {th}, torch.sign(x), 0.0)");
            tanh_or_identity(t.alpha, &scaled(t.alpha, &k))
        }
        _ => return None,
    })
}

/// A sign-like forward with Larq's clipped STE (`clip_value`), after some set-up lines.
fn sign_ste(forward: &str, clip_value: Option<f64>, setup: &str) -> String {
    match clip_value {
        None => format!("{setup}q = {forward}\ny = x + (q - x).detach()"),
        Some(c) => format!(
            "{setup}q = {forward}\nxc = torch.clamp(x, -{0}, {0})  # gradient 1 on |x| <= {0}\ny = xc + (q - xc).detach()",
            fmt_float(c)
        ),
    }
}

/// `q = k`, or `q = α * k` with a numeric alpha.
fn scaled(alpha: Alpha, k: &str) -> String {
    match alpha {
        Alpha::Value(a) => format!("q = {} * {k}", fmt_float(a)),
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
