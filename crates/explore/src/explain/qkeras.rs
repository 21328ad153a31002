//! Step-by-step explanations of the QKeras quantizer classes.

use super::{At, Explain, Trace, clipped_reason, n};
use qscope_quant::qkeras::{
    Bernoulli, Binary, QuantizedBits, QuantizedHswish, QuantizedLinear, QuantizedPo2, QuantizedRelu, QuantizedReluPo2,
    QuantizedSigmoid, QuantizedTanh, QuantizedUlaw, StochasticBinary, StochasticTernary, Ternary,
};
use qscope_quant::round::{EPS, clip, pow2i, sgn_plus, sgn0};
use qscope_quant::{Alpha, lane};

impl Explain for QuantizedBits {
    fn steps(&self, at: &At, t: &mut Trace) -> Option<String> {
        if self.alpha.is_auto() {
            Some(bits_auto(self, at, t))
        } else {
            at.deterministic(self.use_stochastic_rounding).then(|| bits(self, at, t))
        }
    }
}

impl Explain for QuantizedLinear {
    fn steps(&self, at: &At, t: &mut Trace) -> Option<String> {
        at.deterministic(self.use_stochastic_rounding).then(|| linear(self, at, t))
    }
}

impl Explain for QuantizedPo2 {
    fn steps(&self, at: &At, t: &mut Trace) -> Option<String> {
        po2(self, at, t)
    }
}

impl Explain for QuantizedReluPo2 {
    fn steps(&self, _: &At, _: &mut Trace) -> Option<String> {
        None
    }
}

impl Explain for QuantizedRelu {
    fn steps(&self, at: &At, t: &mut Trace) -> Option<String> {
        plain_relu(self, at.training).then(|| relu(self, at, t))
    }
}

impl Explain for QuantizedTanh {
    fn steps(&self, _: &At, _: &mut Trace) -> Option<String> {
        None
    }
}

impl Explain for QuantizedSigmoid {
    fn steps(&self, _: &At, _: &mut Trace) -> Option<String> {
        None
    }
}

impl Explain for QuantizedUlaw {
    fn steps(&self, _: &At, _: &mut Trace) -> Option<String> {
        None
    }
}

impl Explain for QuantizedHswish {
    fn steps(&self, _: &At, _: &mut Trace) -> Option<String> {
        None
    }
}

impl Explain for Binary {
    fn steps(&self, at: &At, t: &mut Trace) -> Option<String> {
        at.deterministic(self.use_stochastic_rounding).then(|| binary(self, at, t))
    }
}

impl Explain for StochasticBinary {
    fn steps(&self, _: &At, _: &mut Trace) -> Option<String> {
        None
    }
}

impl Explain for Ternary {
    fn steps(&self, at: &At, t: &mut Trace) -> Option<String> {
        at.deterministic(self.use_stochastic_rounding).then(|| ternary(self.alpha, at, t))
    }
}

impl Explain for StochasticTernary {
    /// Explained as the `ternary` it is when no draw was made (inference).
    fn steps(&self, at: &At, t: &mut Trace) -> Option<String> {
        (!at.report.stochastic).then(|| ternary(self.alpha, at, t))
    }
}

impl Explain for Bernoulli {
    fn steps(&self, _: &At, _: &mut Trace) -> Option<String> {
        None
    }
}

/// The identity STE's reason, saying so when the output saturates.
fn identity_reason(saturated: bool) -> String {
    if saturated {
        "QKeras' STE passes 1 even though the output saturates".into()
    } else {
        "the identity STE passes the gradient unchanged".into()
    }
}

/// The fixed-scale path, with the kernel's own step, code bounds and alpha.
fn bits(b: &QuantizedBits, at: &At, t: &mut Trace) -> String {
    let x = at.x;
    let op = b.op();
    let (xq, saturated) = if op.one_bit {
        t.add("one bit left: a sign (0 ↦ +1)", format!("sign({}) = {}", n(x), n(sgn_plus(x))));
        (op.a * sgn_plus(x), true)
    } else {
        t.add(
            "step Δ = 2^(integer − bits + keep_negative)",
            format!("2^({} − {} + {}) = {}", b.integer, b.bits, b.keep_negative as i32, n(op.down)),
        );
        let v = x * op.up;
        t.add("x/Δ", format!("{} / {} = {}", n(x), n(op.down), n(v)));
        let r = t.round(v);
        let k = t.clip("clip to the codes", r, op.lo, op.hi);
        if op.a != 1.0 {
            t.add("alpha", n(op.a));
        }
        let xq = op.a * (k * op.down);
        t.add(if op.a != 1.0 { "q(x) = α·Δ·k" } else { "q(x) = Δ·k" }, n(xq));
        (xq, k != r && !r.is_nan())
    };
    qnoise_and_ste(b.qnoise_factor, b.use_ste, xq, at, t);
    if b.use_ste { identity_reason(saturated) } else { "use_ste=False: the gradient is 1 − qnoise_factor".into() }
}

/// The 'auto' path, with the kernel's m, 2^integer and top code, and the sample's step.
fn bits_auto(b: &QuantizedBits, at: &At, t: &mut Trace) -> String {
    let x = at.x;
    let sm = at.report.scale.unwrap_or(f32::NAN);
    let op = b.auto_op(f32::NAN);
    let s = sm / op.m;
    let fit = match (b.post_training_scale, b.alpha) {
        (Some(_), _) => "step s = post_training_scale / 2^(bits − keep_negative)",
        (None, Alpha::AutoPo2) => "step s: a power of two fitted to the sample by least squares (alpha='auto_po2')",
        _ => "step s = 2·max|x|/(2^bits − 2) of the sample: its largest |x| lands on the top code (alpha='auto')",
    };
    t.add(fit, n(s));
    let xs = x / op.mi;
    let v = xs.abs() / s;
    let k = (v + 0.5).floor();
    let tie = v - v.floor() == 0.5;
    t.add(
        "round half away from zero (QKeras' auto path): ⌊|x|/s + ½⌋",
        format!("{} → {}{}", n(v), n(k), if tie { " (a tie goes away from zero)" } else { "" }),
    );
    let kc = t.clip("clip to the top code (2^(bits−1) − 1)", k, 0.0, op.half);
    let z = sgn0(xs) * kc;
    let xq = sm * (op.mi * z / op.m);
    t.add("q(x) = sign(x)·s·k", n(xq));
    qnoise_and_ste(b.qnoise_factor, b.use_ste, xq, at, t);
    if b.use_ste {
        identity_reason(kc != k && !k.is_nan())
    } else {
        "use_ste=False: the gradient is 1 − qnoise_factor".into()
    }
}

/// The qnoise blend (when not 1) and QKeras' straight-through step.
fn qnoise_and_ste(qnoise: f64, use_ste: bool, xq: f32, at: &At, t: &mut Trace) {
    if qnoise != 1.0 {
        t.add("blend with qnoise_factor", format!("x + {qnoise}·(q(x) − x)"));
    }
    if use_ste {
        t.qkeras_ste(xq, at.y);
    } else {
        t.add("no STE: y = (1 − qnoise)·x + stop_gradient(qnoise·q(x))", "gradient 1 − qnoise_factor");
    }
}

/// With the kernel's own clip bounds and sign-mode shift for the scale in use.
fn linear(l: &QuantizedLinear, at: &At, t: &mut Trace) -> String {
    let x = at.x;
    let dts = l.data_type_scale();
    let qs = match l.alpha {
        Alpha::None => dts,
        Alpha::Value(a) => a as f32 * dts,
        Alpha::Auto | Alpha::AutoPo2 => at.report.scale.unwrap_or(f32::NAN) * dts,
    };
    let source = if l.alpha.is_auto() { "from the sample" } else { "α·2^(integer − bits + keep_negative)" };
    t.add(format!("scale qs = {source}"), n(qs));
    let op = l.op(qs);
    let (lo, hi, shift) = (op.lo, op.hi, op.shift);
    let u = x / qs;
    t.add("x/qs", n(u));
    let c = t.clip("clip before rounding", u, lo, hi);
    if shift != 0.0 {
        t.add("one bit: shift by ½ so the codes are ±½", n(c - shift));
    }
    let r = t.round(c - shift) + shift;
    let xq = r * qs;
    t.add("q(x) = qs·k", n(xq));
    if l.qnoise_factor != 1.0 {
        t.add("blend with qnoise_factor", format!("x + {}·(q(x) − x)", l.qnoise_factor));
    }
    t.add("output y = x + qnoise·(q(x) − x), no stop-gradient", "the clip decides the gradient");
    let window = format!("{} ≤ x/qs ≤ {}", n(lo), n(hi));
    if l.qnoise_factor != 1.0 {
        return format!("(1 − qnoise_factor) + qnoise_factor·1[{window}]");
    }
    clipped_reason(at.g, &window)
}

/// quantized_relu without sigmoid, negative slope, upper bound or stochastic training.
fn plain_relu(r: &QuantizedRelu, training: bool) -> bool {
    !r.use_sigmoid
        && r.use_ste
        && r.qnoise_factor == 1.0
        && r.negative_slope == 0.0
        && r.is_quantized_clip
        && !r.enable_fast_inference
        && !(r.use_stochastic_rounding && training)
}

/// With the kernel's code count, 2^integer and top code.
fn relu(r: &QuantizedRelu, at: &At, t: &mut Trace) -> String {
    let x = at.x;
    let op = r.op();
    let (m, mi, top) = (op.m, op.mi, op.top);
    let delta = mi / m;
    t.add("step Δ = 2^integer / 2^bits", n(delta));
    let v = x * m / mi;
    t.add("x/Δ", n(v));
    let k = t.round(v);
    t.clip("clip to the codes [0, 2^bits − 1]", k, 0.0, m - 1.0);
    let xq = mi * clip(k / m, 0.0, 1.0 - 1.0 / m);
    t.add("q(x) = Δ·k", n(xq));
    t.add(
        "straight-through: y = r(x) + stop_gradient(q(x) − r(x)), r = relu capped at the top code",
        format!("top code {}", n(top)),
    );
    if x <= 0.0 {
        "relu passes nothing for x ≤ 0".into()
    } else if x > top {
        format!("0 above the top code {} (the STE goes through the capped relu)", n(top))
    } else {
        format!("1 on 0 < x ≤ {} (the capped relu's slope)", n(top))
    }
}

/// With the kernel's exponent range; None for the stochastic, quadratic and one-bit rules.
fn po2(p: &QuantizedPo2, at: &At, t: &mut Trace) -> Option<String> {
    let rule = p.rule(at.training);
    // One bit for the exponent leaves the degenerate range ±½ (not integer exponents).
    let one_bit = rule.min_exp.fract() != 0.0;
    if one_bit || p.quadratic_approximation || !at.deterministic(p.use_stochastic_rounding) {
        return None;
    }
    let (min_e, max_e) = (rule.min_exp, rule.max_exp);
    let x = at.x;
    let a = x.abs();
    let e = if a < EPS {
        t.add("|x| < 1e−7: the smallest exponent (never 0)", n(min_e));
        min_e
    } else {
        let tv = match rule.max_value {
            Some(mv) if a >= mv => {
                t.add("|x| ≥ max_value: use max_value", n(mv));
                mv
            }
            _ => a,
        };
        let l = lane::log(tv) / std::f32::consts::LN_2;
        t.add("log2|x| (TensorFlow's float32 log)", n(l));
        let e0 = if p.log2_rounding.as_str() == "floor" {
            let f = l.floor();
            t.add("floor (log2_rounding='floor')", format!("{} → {}", n(l), n(f)));
            f
        } else {
            t.round(l)
        };
        t.clip("clip the exponent", e0, min_e, max_e)
    };
    let xq = sgn_plus(x) * pow2i(e as i32);
    t.add("q(x) = sign(x)·2^e (0 ↦ +)", n(xq));
    qnoise_and_ste(p.qnoise_factor, p.use_ste, xq, at, t);
    Some(if p.use_ste { identity_reason(false) } else { "use_ste=False: the gradient is 1 − qnoise_factor".into() })
}

fn binary(b: &Binary, at: &At, t: &mut Trace) -> String {
    let x = at.x;
    let mut k = sgn_plus(x);
    t.add("sign (0 ↦ +1)", n(k));
    if b.use_01 {
        k = (k + 1.0) / 2.0;
        t.add("use_01: (k + 1)/2", n(k));
    }
    let xq = scale_of(b.alpha, at, t) * k;
    t.add("q(x) = scale·k", n(xq));
    tanh_or_identity(b.alpha, xq, at, t)
}

fn ternary(alpha: Alpha, at: &At, t: &mut Trace) -> String {
    let x = at.x;
    let k = if alpha.is_auto() {
        let th = at.report.threshold.unwrap_or(f32::NAN);
        let s0 = 2.0 * th;
        t.add("threshold from the sample's fit: half the scale before the last refit", n(th));
        t.add("x/s₀, s₀ = 2·threshold", n(x / s0));
        let r = t.round(x / s0);
        let k = if (s0 * r).abs() >= th { sgn0(x) } else { 0.0 };
        t.add("code: sign(x) where the rounded code is not 0 (|x| > threshold, strict)", n(k));
        k
    } else {
        let th = at.report.threshold.unwrap_or(f32::NAN);
        let k = if x.abs() >= th { sgn0(x) } else { 0.0 * sgn0(x) };
        t.add(format!("code: sign(x) where |x| ≥ {} (inclusive)", n(th)), n(k));
        k
    };
    let xq = scale_of(alpha, at, t) * k;
    t.add("q(x) = scale·k", n(xq));
    tanh_or_identity(alpha, xq, at, t)
}

/// The scale of a binary/ternary: 1, alpha or the sample's least-squares fit (a step).
fn scale_of(alpha: Alpha, at: &At, t: &mut Trace) -> f32 {
    match alpha {
        Alpha::None => 1.0,
        Alpha::Value(a) => a as f32,
        Alpha::Auto | Alpha::AutoPo2 => {
            let s = at.report.scale.unwrap_or(f32::NAN);
            t.add("scale: the sample's least-squares fit mean(x·k)/mean(k²)", n(s));
            s
        }
    }
}

/// alpha None sends the gradient through tanh; otherwise the identity STE.
fn tanh_or_identity(alpha: Alpha, xq: f32, at: &At, t: &mut Trace) -> String {
    if alpha == Alpha::None {
        let th = lane::tanh(at.x);
        t.add("straight-through through tanh: y = tanh(x) + stop_gradient(q(x) − tanh(x))", n(th));
        "with alpha None QKeras passes the gradient through tanh: 1 − tanh²(x)".into()
    } else {
        t.qkeras_ste(xq, at.y);
        "QKeras' STE passes 1 for every x, however far from 0".into()
    }
}
