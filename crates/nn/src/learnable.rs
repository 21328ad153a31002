//! Learnable quantizer parameters (LSQ's `step`, PACT's clip `alpha`) as numbers an optimizer
//! steps: read one as f32, write it back clamped into its schema's range.
//!
//! Which parameters learn, their gradient for an upstream gradient `g`
//! ([`Quantizer::weighted_grad`]) and fixing what a kernel would take from each tensor
//! ([`Quantizer::init_learnable`]) are the quantizer's own facts ([`qscope_quant::Facts`]);
//! [`super::layer`] wires them into backpropagation.

use qscope_quant::{Kind, Literal, Quantizer};

/// The parameter's current value (NaN if it has none, e.g. LSQ's step before
/// [`Quantizer::init_learnable`]).
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

#[cfg(test)]
mod tests {
    use super::*;
    use qscope_quant::{Ctx, parse};

    #[test]
    fn values_are_read_set_clamped_and_frozen() {
        let mut q = parse("lsq(4)").unwrap();
        assert!(value(&q, "step").is_nan());
        let (_, _, r) = q.eval(&[0.3, -1.2, 2.5, 0.0], &mut Ctx::training(0));
        assert!(q.init_learnable(&r));
        assert_eq!(value(&q, "step"), r.scale.unwrap());
        assert!(!q.init_learnable(&r));
        set_value(&mut q, "step", -1.0).unwrap();
        assert_eq!(value(&q, "step"), 1e-9);
        assert!(set_value(&mut q, "bits", 2.0).is_err());
        assert!(set_value(&mut q, "step", f32::NAN).unwrap_err().contains("became NaN"));
        assert!(parse("larq.ste_sign").unwrap().learnable().is_empty());
    }
}
