//! QKeras' quantizing helper functions (used inside its quantizers and as activations).

use super::super::lane::{self, Lane};
use super::super::random::{DrawOp, run_drawn};
use super::super::round::stochastic_round;
use super::super::schema::{Kind, quantizer};
use super::super::simd::{self, Op};
use super::super::{Ctx, Kernel, Levels, Report};
use super::po2::po2_drawn;
use crate::elementwise_facts;

const PRECISION: Kind = Kind::Float { min: 1e-6, max: 1e6, log: true };

quantizer! {
    /// `_round_through(x, use_stochastic_rounding, precision)`: round half to even (or, in
    /// training with stochastic rounding, to a random neighbouring multiple of precision)
    /// with the identity straight-through estimator `x + stop_gradient(round(x) − x)`.
    pub struct RoundThrough: QKeras fn "_round_through" ["round_through"] {
        summary: "round half to even with the identity STE (QKeras' core trick)",
        forward: "q(x) = round(x)  (training + stochastic: SR to multiples of precision)",
        backward: "∂q/∂x = 1",
        figure: {
            args: "",
            x: (-2.0, 2.0),
            why: "the library function: rounding half to even (0.5 and 1.5 go to even neighbours) with the identity \
                  gradient",
        },
        /// Stochastic rounding in training.
        use_stochastic_rounding: bool = false, Kind::Bool;
        /// Step of stochastic rounding.
        precision: f64 = 0.5, PRECISION;
    }
}

impl Op for RoundThrough {
    /// `x + stop_gradient(round(x) − x)`.
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        (lane::ste_blend(x, x.nearest(), 1.0), V::splat(1.0))
    }
}

impl DrawOp for RoundThrough {
    const DRAWS: usize = 1;
    /// Training with stochastic rounding: `x + stop_gradient(sr(x) − x)`.
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V, u: V, _: V) -> (V, V) {
        (lane::ste_blend(x, stochastic_round(x, self.precision as f32, u), 1.0), V::splat(1.0))
    }
}

impl Kernel for RoundThrough {
    fn is_stochastic(&self, training: bool) -> bool {
        training && self.use_stochastic_rounding
    }

    fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, ctx: &mut Ctx) -> Report {
        if self.is_stochastic(ctx.training) {
            run_drawn(self, x, y, dydx, &mut ctx.rng);
        } else {
            simd::run(self, x, y, dydx);
        }
        Report::default()
    }

    fn levels(&self, report: &Report) -> Levels {
        Levels::Grid { step: if report.stochastic { self.precision as f32 } else { 1.0 } }
    }
}

quantizer! {
    /// `stochastic_round(x, precision)`: `x/p` rounded down with probability `1 − frac`,
    /// up with probability `frac` (unbiased), times p — in training and inference alike.
    /// Floor and ceil have no gradient in TensorFlow.
    pub struct StochasticRound: QKeras fn "stochastic_round" {
        summary: "unbiased stochastic rounding to multiples of precision",
        forward: "q(x) = p·(⌊x/p⌋ + 1[U < frac(x/p)])",
        backward: "∂q/∂x = 0 (no STE of its own)",
        figure: {
            args: "",
            x: (-2.0, 2.0),
            why: "the library default: steps of 0.5, the mean of the draws following x between them",
        },
        /// Step size.
        precision: f64 = 0.5, PRECISION;
    }
}

impl DrawOp for StochasticRound {
    const DRAWS: usize = 1;
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V, u: V, _: V) -> (V, V) {
        (stochastic_round(x, self.precision as f32, u), V::splat(0.0))
    }
}

impl Kernel for StochasticRound {
    fn is_stochastic(&self, _: bool) -> bool {
        true
    }

    fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, ctx: &mut Ctx) -> Report {
        run_drawn(self, x, y, dydx, &mut ctx.rng);
        Report::default()
    }

    fn levels(&self, _: &Report) -> Levels {
        Levels::Grid { step: self.precision as f32 }
    }
}

quantizer! {
    /// `stochastic_round_po2(x)`: returns an **exponent** e, `⌊log2|x|⌋` or one more, drawn
    /// so that `E[2^e] = |x|`.
    pub struct StochasticRoundPo2: QKeras fn "stochastic_round_po2" {
        summary: "random power-of-two exponent with E[2^e] = |x| (returns e)",
        forward: "q(x) = e ∈ {lo, lo+1},  P(e = lo+1) = (|x| − 2^lo)/2^lo",
        backward: "∂q/∂x = 0",
        figure: {
            args: "",
            x: (-4.0, 4.0),
            why: "the library function: the exponent drawn so that the mean of 2^e is |x|",
        },
    }
}

impl DrawOp for StochasticRoundPo2 {
    const DRAWS: usize = 1;
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V, u: V, _: V) -> (V, V) {
        (po2_drawn(x, u), V::splat(0.0))
    }
}

impl Kernel for StochasticRoundPo2 {
    fn is_stochastic(&self, _: bool) -> bool {
        true
    }

    fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, ctx: &mut Ctx) -> Report {
        run_drawn(self, x, y, dydx, &mut ctx.rng);
        Report::default()
    }

    fn levels(&self, _: &Report) -> Levels {
        Levels::Grid { step: 1.0 }
    }
}

/// Declares a parameterless piecewise-linear helper `clip(a·x + b, lo, hi)·s + o` whose
/// gradient is the slope on the clip interval.
macro_rules! clipped_linear {
    ($(#[doc = $doc:expr])* $ty:ident $name:literal, $summary:literal, $fwd:literal, $bwd:literal,
     slope: $a:expr, scale: $s:expr, offset: $o:expr, x: $x:expr, why: $why:literal) => {
        quantizer! {
            $(#[doc = $doc])*
            pub struct $ty: QKeras fn $name {
                summary: $summary,
                forward: $fwd,
                backward: $bwd,
                figure: { args: "", x: $x, why: $why },
            }
        }

        impl Op for $ty {
            #[inline(always)]
            fn eval<V: Lane>(&self, x: V) -> (V, V) {
                let (zero, one) = (V::splat(0.0), V::splat(1.0));
                let u = V::splat($a) * x + V::splat(0.5);
                (V::splat($s) * lane::clip(u, zero, one) + V::splat($o), V::splat($s * $a) * lane::inside(u, zero, one))
            }
        }

        impl Kernel for $ty {
            simd::op_apply!();

            fn levels(&self, _: &Report) -> Levels {
                Levels::Continuous
            }
        }
    };
}

clipped_linear! {
    /// QKeras' `hard_sigmoid(x)`, the sigmoid its quantizers use by default.
    HardSigmoid "hard_sigmoid", "piecewise-linear sigmoid", "σ_h(x) = clip(x/2 + ½, 0, 1)", "½ on [−1, 1], else 0",
    slope: 0.5f32, scale: 1.0f32, offset: 0.0f32,
    x: (-2.0, 2.0), why: "the library function: its clip at ±1 inside the range"
}

clipped_linear! {
    /// QKeras' `hard_tanh(x)` (σ_h is `hard_sigmoid`), which is `clip(x, −1, 1)`.
    HardTanh "hard_tanh", "piecewise-linear tanh", "tanh_h(x) = 2σ_h(x) − 1", "1 on [−1, 1], else 0",
    slope: 0.5f32, scale: 2.0f32, offset: -1.0f32,
    x: (-2.0, 2.0), why: "the library function: its clip at ±1 inside the range"
}

clipped_linear! {
    /// QKeras' `smooth_sigmoid(x)`, a flatter hard sigmoid.
    SmoothSigmoid "smooth_sigmoid", "flatter piecewise-linear sigmoid", "σ_s(x) = clip(0.1875x + ½, 0, 1)", "0.1875 on [−8/3, 8/3]",
    slope: 0.1875f32, scale: 1.0f32, offset: 0.0f32,
    x: (-4.0, 4.0), why: "the library function over [−4, 4], so its clip at ±8/3 shows"
}

clipped_linear! {
    /// QKeras' `smooth_tanh(x)` (σ_s is `smooth_sigmoid`), a flatter hard tanh.
    SmoothTanh "smooth_tanh", "flatter piecewise-linear tanh", "tanh_s(x) = 2σ_s(x) − 1", "0.375 on [−8/3, 8/3]",
    slope: 0.1875f32, scale: 2.0f32, offset: -1.0f32,
    x: (-4.0, 4.0), why: "the library function over [−4, 4], so its clip at ±8/3 shows"
}

quantizer! {
    /// `binary_sigmoid(x) = _round_through(hard_sigmoid(x))`: **0 for x ≤ 0**
    /// (`hard_sigmoid(0) = ½` rounds to even 0).
    pub struct BinarySigmoid: QKeras fn "binary_sigmoid" {
        summary: "{0, 1} step (0 ↦ 0) with the hard-sigmoid gradient",
        forward: "q(x) = round(σ_h(x)) = 1[x > 0]",
        backward: "∂q/∂x = ½ on [−1, 1], else 0",
        figure: {
            args: "",
            x: (-2.0, 2.0),
            why: "the library function: the {0, 1} step and the hard sigmoid's gradient on [−1, 1]",
        },
    }
}

/// The library's `ste_blend(hs, round(hs))` of the hard sigmoid `hs` is `round(hs)` itself: hs is
/// +0…1 (0.5·v + 0.5 is never −0) and `hs + (k − hs)` is exact there for k = round(hs) ∈ {0, 1}
/// (Sterbenz), while a NaN takes the blend's `round(hs)` arm — checked on every float.
#[inline(always)]
fn binary_sigmoid<V: Lane>(v: V) -> (V, V) {
    let (zero, one, half) = (V::splat(0.0), V::splat(1.0), V::splat(0.5));
    let u = half * v + half;
    let hs = lane::clip(u, zero, one);
    (hs.nearest(), half * lane::inside(u, zero, one))
}

impl Op for BinarySigmoid {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        binary_sigmoid(x)
    }
}

impl Kernel for BinarySigmoid {
    simd::op_apply!();

    fn levels(&self, _: &Report) -> Levels {
        Levels::set(vec![0.0, 1.0])
    }
}

quantizer! {
    /// `binary_tanh(x) = 2·binary_sigmoid(x) − 1`: ±1 with **0 ↦ −1**.
    pub struct BinaryTanh: QKeras fn "binary_tanh" {
        summary: "±1 step (0 ↦ −1) with the hard-tanh gradient",
        forward: "q(x) = 2·round(σ_h(x)) − 1",
        backward: "∂q/∂x = 1 on [−1, 1], else 0",
        figure: {
            args: "",
            x: (-2.0, 2.0),
            why: "the library function: the ±1 step (0 ↦ −1) and the hard tanh's gradient on [−1, 1]",
        },
    }
}

impl Op for BinaryTanh {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        let (b, g) = binary_sigmoid(x);
        let two = V::splat(2.0);
        (two * b - V::splat(1.0), two * g)
    }
}

impl Kernel for BinaryTanh {
    simd::op_apply!();

    fn levels(&self, _: &Report) -> Levels {
        Levels::set(vec![-1.0, 1.0])
    }
}

elementwise_facts! {
    RoundThrough, StochasticRound, StochasticRoundPo2, HardSigmoid, HardTanh, SmoothSigmoid, SmoothTanh,
    BinarySigmoid, BinaryTanh,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::round::{EPS, rhe};

    /// QKeras' `stochastic_round_po2` as written, one element and its draw `u`: the
    /// formula [`po2_drawn`] replaced.
    fn stochastic_round_po2_as_written(x: f32, u: f32) -> f32 {
        let exp2 = |e: f32| if e.fract() == 0.0 { e.pow2() } else { e.exp2() };
        let y = x.abs();
        let e0 = rhe(lane::log(y + EPS) / std::f32::consts::LN_2);
        let (lo, hi) = if exp2(e0) > y { (e0 - 1.0, e0) } else { (e0, e0 + 1.0) };
        let (a, b) = (exp2(lo), exp2(hi));
        if y < a + (b - a) * u { lo } else { hi }
    }

    /// stochastic_round_po2 draws the exponent it replaced on every float32 bit pattern (every
    /// [`crate::every_float_step`]th; all with `QSCOPE_EXHAUSTIVE=1`), NaNs included, and
    /// on the ties (|x| exactly at a draw's threshold: the powers of two, times 1¼, 1½ and 1¾,
    /// and their neighbours), at draws from 0 to the largest below 1, on one lane and on four.
    #[test]
    fn stochastic_round_po2_is_the_formula_it_replaces_on_every_float() {
        let draws = [0.0, 0.25, 0.5, 0.75, 1.0 - 1.0 / 16_777_216.0, 0.123_456_7];
        let ties = (-149..=127).flat_map(|e| [1.0, 1.25, 1.5, 1.75].map(|m| m * 2f64.powi(e) as f32));
        let ties = ties.flat_map(|t| [t.to_bits() - 1, t.to_bits(), t.to_bits() + 1, (-t).to_bits()]);
        for bits in (0..=u32::MAX).step_by(crate::every_float_step()).chain(ties) {
            let x = f32::from_bits(bits);
            for u in draws {
                let want = stochastic_round_po2_as_written(x, u).to_bits();
                assert_eq!(po2_drawn(x, u).to_bits(), want, "x = {x:e}, u = {u}");
                let four = po2_drawn(lane::Wide::<f32, 4>::splat(x), lane::Wide::<f32, 4>::splat(u));
                assert_eq!(four.0.map(f32::to_bits), [want; 4], "x = {x:e}, u = {u} (four lanes)");
            }
        }
    }

    /// binary_sigmoid's value is the library's straight-through blend of the rounded hard
    /// sigmoid, on every float32 bit pattern (every [`crate::every_float_step`]th; all
    /// with `QSCOPE_EXHAUSTIVE=1`), NaNs included.
    #[test]
    fn binary_sigmoid_is_the_blend_it_replaces_on_every_float() {
        for bits in (0..=u32::MAX).step_by(crate::every_float_step()) {
            let x = f32::from_bits(bits);
            let hs = lane::clip(0.5 * x + 0.5, 0.0f32, 1.0);
            let blend = lane::ste_blend(hs, hs.nearest(), 1.0);
            assert_eq!(binary_sigmoid(x).0.to_bits(), blend.to_bits(), "x = {x:e}");
        }
    }
}
