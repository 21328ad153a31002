//! The hardware facts of the QKeras quantizers and helper functions.

use super::{EXPONENTS, Hardware, Warnings, power_of_two_exponent};
use qscope_quant::Alpha;
use qscope_quant::qkeras::{
    Bernoulli, Binary, BinarySigmoid, BinaryTanh, HardSigmoid, HardTanh, QuantizedBits, QuantizedHswish,
    QuantizedLinear, QuantizedPo2, QuantizedRelu, QuantizedReluPo2, QuantizedSigmoid, QuantizedTanh, QuantizedUlaw,
    RoundThrough, SmoothSigmoid, SmoothTanh, StochasticBinary, StochasticRound, StochasticRoundPo2, StochasticTernary,
    Ternary,
};

impl Hardware for QuantizedBits {
    fn warnings(&self, w: &mut Warnings) {
        let b = self;
        let kn = b.keep_negative as i32;
        if b.alpha.is_auto() {
            if !b.keep_negative || b.use_stochastic_rounding {
                w.push("With a string alpha QKeras forces symmetric=True and ignores keep_negative and stochastic rounding.");
            }
            if b.alpha == Alpha::Auto {
                w.push(
                    "alpha='auto' picks a scale that is not a power of two: use 'auto_po2' for fixed-point hardware.",
                );
            }
            return;
        }
        if b.bits - kn <= 0 {
            let a = if let Alpha::Value(a) = b.alpha { a } else { 1.0 };
            w.push(format!(
                "quantized_bits with bits=1 is a sign function (±{a}, 0 ↦ +{a}), not a 1-bit fixed-point number."
            ));
        } else if b.keep_negative && !b.symmetric {
            let range = w.bounds().unwrap_or_default();
            w.push(format!(
                "symmetric=0 gives an asymmetric range, {range}: the most negative code has no positive twin."
            ));
        }
        if b.bits - kn > 0 && b.integer > 0 && b.keep_negative {
            w.push(format!(
                "integer={} counts the bits left of the binary point without the sign: outputs span {}, the HLS type \
                 is ap_fixed<{},{}>.",
                b.integer,
                w.bounds().unwrap_or_default(),
                b.bits,
                b.integer + 1
            ));
        }
        if b.integer > b.bits - kn {
            let step = 2f64.powi(b.integer - b.bits + kn);
            w.push(format!("integer={} leaves a step of {step} > 1: every output is a multiple of {step}.", b.integer));
        }
        odd_alpha(b.alpha, w);
        if !b.use_ste {
            w.push(format!(
                "use_ste=False makes the gradient 1 − qnoise_factor = {} everywhere.",
                1.0 - b.qnoise_factor
            ));
        } else {
            saturating_ste(w);
        }
    }
}

impl Hardware for QuantizedLinear {
    fn warnings(&self, w: &mut Warnings) {
        if self.bits == 1 && self.keep_negative {
            w.push("quantized_linear with bits=1 is a sign function with outputs ±qs/2 (0 ↦ +qs/2).");
        }
        odd_alpha(self.alpha, w);
    }
}

impl Hardware for QuantizedPo2 {
    fn not_fixed_point(&self) -> Option<&'static str> {
        Some(EXPONENTS)
    }

    fn warnings(&self, w: &mut Warnings) {
        let zero = w.output(0.0);
        w.push(format!("quantized_po2 never outputs 0: x = 0 gives {zero}, the smallest power of two."));
        approximate_max_value(self.max_value, w);
        if self.use_ste {
            saturating_ste(w);
        }
    }
}

impl Hardware for QuantizedReluPo2 {
    fn not_fixed_point(&self) -> Option<&'static str> {
        Some(EXPONENTS)
    }

    fn warnings(&self, w: &mut Warnings) {
        let zero = w.output(0.0);
        w.push(format!("quantized_relu_po2 never outputs 0: x ≤ 0 gives {zero}, the smallest power of two."));
        approximate_max_value(self.max_value, w);
    }
}

impl Hardware for QuantizedRelu {
    fn warnings(&self, w: &mut Warnings) {
        if self.relu_upper_bound.is_some() && self.is_quantized_clip {
            w.push("relu_upper_bound has no effect while is_quantized_clip=True (the top code clips).");
        }
        half_steps(self.use_stochastic_rounding, w);
    }
}

impl Hardware for QuantizedTanh {
    fn warnings(&self, w: &mut Warnings) {
        half_steps(self.use_stochastic_rounding, w);
    }
}

impl Hardware for QuantizedSigmoid {
    fn warnings(&self, w: &mut Warnings) {
        half_steps(self.use_stochastic_rounding, w);
    }
}

impl Hardware for QuantizedUlaw {}

impl Hardware for QuantizedHswish {
    fn warnings(&self, w: &mut Warnings) {
        odd_alpha(self.alpha, w);
        w.push(
            "The gradient is hard-swish's h′(x) everywhere: QKeras' STE does not cut it where the output saturates.",
        );
    }
}

impl Hardware for Binary {
    fn warnings(&self, w: &mut Warnings) {
        unclipped_with_alpha(self.alpha, "SteSign", w);
    }
}

impl Hardware for StochasticBinary {}

impl Hardware for Ternary {
    fn warnings(&self, w: &mut Warnings) {
        unclipped_with_alpha(self.alpha, "SteTern", w);
    }
}

impl Hardware for StochasticTernary {}

impl Hardware for Bernoulli {
    fn warnings(&self, w: &mut Warnings) {
        w.push("bernoulli is random even in inference: QKeras gives it no deterministic branch.");
    }
}

impl Hardware for RoundThrough {}
impl Hardware for StochasticRound {}
impl Hardware for StochasticRoundPo2 {}
impl Hardware for HardSigmoid {}
impl Hardware for HardTanh {}
impl Hardware for SmoothSigmoid {}
impl Hardware for SmoothTanh {}
impl Hardware for BinarySigmoid {}
impl Hardware for BinaryTanh {}

/// A numeric alpha that is not a power of two needs a multiplier.
fn odd_alpha(alpha: Alpha, w: &mut Warnings) {
    if let Alpha::Value(a) = alpha
        && (power_of_two_exponent(a as f32).is_none() || a as f32 as f64 != a)
    {
        w.push(format!(
            "alpha={a} is not a power of two: no plain fixed-point type holds the levels, a multiplier is needed."
        ));
    }
}

/// With alpha set, binary and ternary pass gradient 1 everywhere; Larq's `twin` clips it.
fn unclipped_with_alpha(alpha: Alpha, twin: &str, w: &mut Warnings) {
    if alpha != Alpha::None {
        w.push(format!(
            "With alpha set the gradient is 1 for every x, however far from 0 (no clipping, unlike Larq's {twin})."
        ));
    }
}

/// QKeras' identity STE passes 1 where the output saturates.
fn saturating_ste(w: &mut Warnings) {
    if let Some(range) = w.bounds() {
        w.push(format!(
            "QKeras' straight-through estimator passes gradient 1 even where the output saturates (outside {range}), \
             so latent values can drift far out of range."
        ));
    }
}

/// A po2 max_value that is not itself a level.
fn approximate_max_value(max_value: Option<f64>, w: &mut Warnings) {
    if let Some(m) = max_value {
        let top = w.output(m as f32);
        if top as f64 != m {
            w.push(format!("max_value={m} is approximate: inputs at or above it give {top}."));
        }
    }
}

/// QKeras' stochastic rounding to half steps.
fn half_steps(stochastic: bool, w: &mut Warnings) {
    if stochastic {
        w.push("Stochastic rounding uses QKeras' precision 0.5 in training: outputs fall halfway between the levels.");
    }
}
