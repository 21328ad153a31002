//! Step-by-step explanations of the QKeras quantizers.

use super::{At, Trace, clipped_reason, n};
use crate::quant::qkeras::StochasticTernary;
use crate::quant::qkeras::{Binary, QuantizedBits, QuantizedLinear, QuantizedPo2, QuantizedRelu};
use crate::quant::round::{EPS, clip, pow2i, sgn_plus, sgn0};
use crate::quant::{Alpha, Quantizer, lane};

/// Steps for the QKeras families explained in detail; None for the rest.
pub(super) fn steps(q: &Quantizer, at: &At, t: &mut Trace) -> Option<String> {
    match q {
        Quantizer::QuantizedBits(b) if b.alpha.is_auto() => Some(bits_auto(b, at, t)),
        Quantizer::QuantizedBits(b) if !(b.use_stochastic_rounding && at.training) => Some(bits(b, at, t)),
        Quantizer::QuantizedLinear(l) if !(l.use_stochastic_rounding && at.training) => Some(linear(l, at, t)),
        Quantizer::QuantizedRelu(r) if plain_relu(r, at.training) => Some(relu(r, at, t)),
        Quantizer::QuantizedPo2(p) => po2(p, at, t),
        Quantizer::Binary(b) if !(b.use_stochastic_rounding && at.training) => Some(binary(b, at, t)),
        Quantizer::Ternary(tq) if !(tq.use_stochastic_rounding && at.training) => {
            Some(ternary(tq.alpha, tq.threshold, at, t))
        }
        Quantizer::StochasticTernary(StochasticTernary { alpha, threshold, .. }) if !at.report.stochastic => {
            Some(ternary(*alpha, *threshold, at, t))
        }
        _ => None,
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

fn bits(b: &QuantizedBits, at: &At, t: &mut Trace) -> String {
    let x = at.x;
    let kn = b.keep_negative as i32;
    let a = if let Alpha::Value(a) = b.alpha { a as f32 } else { 1.0 };
    let (m, mi) = (pow2i(b.bits - kn), pow2i(b.integer));
    let (xq, saturated) = if b.bits - kn <= 0 {
        t.add("one bit left: a sign (0 ↦ +1)", format!("sign({}) = {}", n(x), n(sgn_plus(x))));
        (a * sgn_plus(x), true)
    } else {
        let delta = mi / m;
        t.add(
            "step Δ = 2^(integer − bits + keep_negative)",
            format!("2^({} − {} + {kn}) = {}", b.integer, b.bits, n(delta)),
        );
        let v = x * m / mi;
        t.add("x/Δ", format!("{} / {} = {}", n(x), n(delta), n(v)));
        let r = t.round(v);
        let lo = kn as f32 * (-m + b.symmetric as i32 as f32);
        let k = t.clip("clip to the codes", r, lo, m - 1.0);
        if a != 1.0 {
            t.add("alpha", n(a));
        }
        let xq = a * (mi * k / m);
        t.add(if a != 1.0 { "q(x) = α·Δ·k" } else { "q(x) = Δ·k" }, n(xq));
        (xq, k != r && !r.is_nan())
    };
    qnoise_and_ste(b.qnoise_factor, b.use_ste, xq, at, t);
    if b.use_ste { identity_reason(saturated) } else { "use_ste=False: the gradient is 1 − qnoise_factor".into() }
}

fn bits_auto(b: &QuantizedBits, at: &At, t: &mut Trace) -> String {
    let x = at.x;
    let m = pow2i(b.bits - b.keep_negative as i32);
    let mi = pow2i(b.integer);
    let sm = at.report.scale.unwrap_or(f32::NAN);
    let s = sm / m;
    let fit = match (b.post_training_scale, b.alpha) {
        (Some(_), _) => "step s = post_training_scale / 2^(bits − keep_negative)",
        (None, Alpha::AutoPo2) => "step s: a power of two fitted to the sample by least squares (alpha='auto_po2')",
        _ => "step s = 2·max|x|/(2^bits − 2) of the sample: its largest |x| lands on the top code (alpha='auto')",
    };
    t.add(fit, n(s));
    let xs = x / mi;
    let half = (((1i64 << (b.bits - 1)) - 1) * 2) as f32 / 2.0;
    let v = xs.abs() / s;
    let k = (v + 0.5).floor();
    let tie = v - v.floor() == 0.5;
    t.add(
        "round half away from zero (QKeras' auto path): ⌊|x|/s + ½⌋",
        format!("{} → {}{}", n(v), n(k), if tie { " (a tie goes away from zero)" } else { "" }),
    );
    let kc = t.clip("clip to the top code (2^(bits−1) − 1)", k, 0.0, half);
    let z = sgn0(xs) * kc;
    let xq = sm * (mi * z / m);
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

fn linear(l: &QuantizedLinear, at: &At, t: &mut Trace) -> String {
    let x = at.x;
    let kn = l.keep_negative as i32;
    let dts = pow2i(l.integer - l.bits + kn);
    let qs = match l.alpha {
        Alpha::None => dts,
        Alpha::Value(a) => a as f32 * dts,
        Alpha::Auto | Alpha::AutoPo2 => at.report.scale.unwrap_or(f32::NAN) * dts,
    };
    let source = if l.alpha.is_auto() { "from the sample" } else { "α·2^(integer − bits + keep_negative)" };
    t.add(format!("scale qs = {source}"), n(qs));
    let sign_mode = l.bits == 1 && l.keep_negative;
    let (lo, hi, shift) = if sign_mode {
        (-0.5, 0.5, 0.5)
    } else {
        let u = pow2i(l.bits - kn);
        (if l.keep_negative { -u + l.symmetric as i32 as f32 } else { 0.0 }, u - 1.0, 0.0)
    };
    let u = x / qs;
    t.add("x/qs", n(u));
    let c = t.clip("clip before rounding", u, lo, hi);
    if sign_mode {
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

fn relu(r: &QuantizedRelu, at: &At, t: &mut Trace) -> String {
    let x = at.x;
    let (m, mi) = (pow2i(r.bits), pow2i(r.integer));
    let delta = mi / m;
    t.add("step Δ = 2^integer / 2^bits", n(delta));
    let v = x * m / mi;
    t.add("x/Δ", n(v));
    let k = t.round(v);
    t.clip("clip to the codes [0, 2^bits − 1]", k, 0.0, m - 1.0);
    let xq = mi * clip(k / m, 0.0, 1.0 - 1.0 / m);
    t.add("q(x) = Δ·k", n(xq));
    let top = mi - delta;
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

fn po2(p: &QuantizedPo2, at: &At, t: &mut Trace) -> Option<String> {
    let need = if p.max_value.is_some_and(|v| v <= 1.0) { 0 } else { 1 };
    let eb = p.bits - 1 - need;
    let stochastic = p.use_stochastic_rounding && at.training;
    if eb < 0 || p.quadratic_approximation || stochastic {
        return None;
    }
    let (min_e, max_e) = (-(2f32.powi(eb)), 2f32.powi(eb) - 1.0);
    let x = at.x;
    let a = x.abs();
    let e = if a < EPS {
        t.add("|x| < 1e−7: the smallest exponent (never 0)", n(min_e));
        min_e
    } else {
        let tv = match p.max_value {
            Some(mv) if a >= mv as f32 => {
                t.add("|x| ≥ max_value: use max_value", n(mv as f32));
                mv as f32
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

fn ternary(alpha: Alpha, threshold: Option<f64>, at: &At, t: &mut Trace) -> String {
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
        let th = threshold.unwrap_or(0.33) as f32;
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
