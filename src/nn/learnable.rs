//! Learnable quantizer parameters (LSQ's `step`, PACT's clip `alpha`) inside a network.
//!
//! A kernel's [`Report::param_grads`] is `∂(Σᵢ yᵢ)/∂θ`: the gradient for an upstream gradient
//! of 1 everywhere. Backpropagation needs `Σᵢ gᵢ·∂yᵢ/∂θ` for the actual upstream `g`, which a
//! sum cannot give. [`weighted_grad`] evaluates the same per-element terms as the kernels
//! (`src/quant/beyond.rs`), weights them by `gᵢ` and applies the same tensor-level factor
//! (LSQ's `1/√(N·Qp)`), with the kernels' summation (f64, then f32). The tests check it against
//! the kernels: with `g = 1` it equals the report bit for bit, and with a one-hot `g` it equals
//! the one-element term.

use crate::quant::round::{mean_f32, rhe};
use crate::quant::{Kind, Literal, Quantizer, Report};

/// The learnable parameters of a quantizer (none for most).
pub fn names(q: &Quantizer) -> &'static [&'static str] {
    match q {
        Quantizer::Lsq(_) => &["step"],
        Quantizer::Pact(_) => &["alpha"],
        _ => &[],
    }
}

/// LSQ's code range `(Qn, Qp)`: signed `(2^(b−1), 2^(b−1) − 1)`, unsigned `(0, 2^b − 1)`.
fn lsq_range(bits: i32, signed: bool) -> (f32, f32) {
    if signed {
        let h = (1i64 << (bits - 1)) as f32;
        (h, h - 1.0)
    } else {
        (0.0, ((1i64 << bits) - 1) as f32)
    }
}

/// `Σᵢ gᵢ·∂yᵢ/∂θ` for parameter `name` of `q` at input `x` (0 for a non-learnable name).
pub fn weighted_grad(q: &Quantizer, name: &str, x: &[f32], g: &[f32]) -> f32 {
    assert_eq!(x.len(), g.len(), "weighted_grad: shapes");
    match (q, name) {
        (Quantizer::Lsq(p), "step") => {
            let (qn, qp) = lsq_range(p.bits, p.signed);
            let s = match p.step {
                Some(s) => s as f32,
                None => 2.0 * mean_f32(x.iter().map(|v| v.abs())) / qp.sqrt(),
            };
            // ∂yᵢ/∂s: the rounding residual inside, the clip level outside (as the kernel).
            let sum: f64 = x
                .iter()
                .zip(g)
                .map(|(&v, &gi)| {
                    let u = v / s;
                    let d = if u <= -qn {
                        -qn
                    } else if u >= qp {
                        qp
                    } else {
                        rhe(u) - u
                    };
                    gi as f64 * d as f64
                })
                .sum();
            let scale = if p.grad_scale { 1.0 / (x.len() as f32 * qp).sqrt() } else { 1.0 };
            sum as f32 * scale
        }
        (Quantizer::Pact(p), "alpha") => {
            // ∂yᵢ/∂α = 1 where the input is clipped at α.
            let a = p.alpha as f32;
            let sum: f64 = x.iter().zip(g).filter(|(v, _)| **v >= a).map(|(_, &gi)| gi as f64).sum();
            sum as f32
        }
        _ => 0.0,
    }
}

/// The parameter's current value (NaN if it has none, e.g. LSQ's step before [`freeze`]).
pub fn value(q: &Quantizer, name: &str) -> f32 {
    match q.get(name) {
        Some(Literal::Float(v)) => v as f32,
        Some(Literal::Int(v)) => v as f32,
        _ => f32::NAN,
    }
}

/// Sets the parameter, clamped into its schema's range (a step may not reach 0).
pub fn set_value(q: &mut Quantizer, name: &str, v: f32) -> Result<(), String> {
    let (lo, hi) = match q.params().iter().find(|p| p.name == name).map(|p| p.kind) {
        Some(Kind::Float { min, max, .. } | Kind::OptFloat { min, max }) => (min, max),
        _ => return Err(format!("{q}: '{name}' is not a learnable number")),
    };
    if !v.is_finite() {
        return Err(format!("{q}: the learned {name} became {v}"));
    }
    q.set(name, &Literal::Float((v as f64).clamp(lo, hi)))
}

/// LSQ with `step=None` takes its step from each tensor (`2·mean|x|/√Qp`); to learn it, the
/// step is fixed at the value the kernel reported for the first tensor (LSQ's initialisation).
/// Returns whether it changed the quantizer.
pub fn freeze(q: &mut Quantizer, report: &Report) -> bool {
    match (&mut *q, report.scale) {
        (Quantizer::Lsq(p), Some(s)) if p.step.is_none() && s.is_finite() && s > 0.0 => {
            p.step = Some(s as f64);
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quant::{Ctx, parse};

    fn inputs() -> Vec<f32> {
        (0..37).map(|i| (i as f32 * 0.37).sin() * 2.5).collect()
    }

    #[test]
    fn unit_upstream_gradient_reproduces_the_kernel_report() {
        let x = inputs();
        for spec in ["lsq(bits=4, step=0.1)", "lsq(3, step=0.3, signed=False)", "lsq(4)", "pact(4, alpha=1.5)"] {
            let q = parse(spec).unwrap();
            let (_, _, report) = q.eval(&x, &mut Ctx::new(0));
            let (name, want) = report.param_grads[0];
            assert_eq!(names(&q), [name]);
            let got = weighted_grad(&q, name, &x, &vec![1.0; x.len()]);
            assert_eq!(got.to_bits(), want.to_bits(), "{spec}: {got} vs {want}");
        }
    }

    #[test]
    fn one_hot_upstream_gradient_is_the_element_term() {
        let x = inputs();
        let q = parse("pact(4, alpha=1.5)").unwrap();
        let lsq = parse("lsq(bits=4, step=0.2, grad_scale=False)").unwrap();
        for i in 0..x.len() {
            let mut g = vec![0.0; x.len()];
            g[i] = 2.0;
            for q in [&q, &lsq] {
                // The one-element tensor has the same per-element term (no grad_scale here).
                let (_, _, r) = q.eval(&x[i..=i], &mut Ctx::new(0));
                assert_eq!(weighted_grad(q, names(q)[0], &x, &g), 2.0 * r.param_grads[0].1, "{q} at {}", x[i]);
            }
        }
    }

    #[test]
    fn values_are_read_set_clamped_and_frozen() {
        let mut q = parse("lsq(4)").unwrap();
        assert!(value(&q, "step").is_nan());
        let (_, _, r) = q.eval(&inputs(), &mut Ctx::new(0));
        assert!(freeze(&mut q, &r));
        assert_eq!(value(&q, "step"), r.scale.unwrap());
        assert!(!freeze(&mut q, &r));
        set_value(&mut q, "step", -1.0).unwrap();
        assert_eq!(value(&q, "step"), 1e-9);
        assert!(set_value(&mut q, "bits", 2.0).is_err());
        assert!(set_value(&mut q, "step", f32::NAN).unwrap_err().contains("became NaN"));
        assert!(names(&parse("larq.ste_sign").unwrap()).is_empty());
    }
}
