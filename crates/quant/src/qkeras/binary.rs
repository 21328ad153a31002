//! Binary quantizers: `binary`, `stochastic_binary`, `bernoulli`.

use super::super::lane::{self, Lane};
use super::super::random::{DrawOp, run_drawn};
use super::super::round::{max_abs, mean_f32, sgn_plus, sgn0, ste_blend, stochastic_round};
use super::super::schema::{Alpha, Kind, Opaque, quantizer};
use super::super::simd::{self, Op};
use super::super::{Ctx, Kernel, Levels, Report, elementwise};
use super::{least_squares_scale, only_with_auto_po2, sigmoid_q};
use crate::Layout;
use crate::round::EPS;
use crate::{Facts, Frozen, Quantizer};

const PO2_EXP: Kind = Kind::OptInt { min: -126, max: 127 };
const TEMPERATURE: Kind = Kind::Float { min: 1e-6, max: 1e6, log: true };

/// Population standard deviation of one channel plus ε (`K.std(x) + K.epsilon()`).
pub(super) fn std_eps(x: &[f32]) -> f32 {
    let mean = mean_f32(x.iter().copied());
    mean_f32(x.iter().map(|v| (v - mean) * (v - mean))).sqrt() + EPS
}

/// `tanh` and its derivative `1 − tanh²` (TensorFlow's TanhGrad).
#[inline(always)]
pub(super) fn tanh_d<V: Lane>(v: V) -> (V, V) {
    let t = lane::tanh(v);
    (t, V::splat(1.0) - t * t)
}

/// [`SignOp`]'s shape parameter: nothing known at compile time.
pub(super) const GENERAL: u8 = 0;
/// binary's tanh path: no threshold, no use_01, alpha None.
pub(super) const BINARY: u8 = 1;
/// ternary's tanh path: a threshold, alpha None.
pub(super) const TERNARY: u8 = 2;

/// Fixed-scale sign codes (binary, or ternary with a threshold) and the value the STE
/// passes through: `tanh(x)` when alpha is None (gradient `1 − tanh²`), else x. `SHAPE` other
/// than [`GENERAL`] fixes the options at compile time ([`SignOp::shaped`]): runtime options
/// would leave LLVM computing every arm per element and selecting one.
pub(super) struct SignOp<const SHAPE: u8 = GENERAL> {
    pub scale: f32,
    /// Ternary threshold (codes are 0 below it); None for binary.
    pub threshold: Option<f32>,
    pub use_01: bool,
    pub tanh_path: bool,
}

impl SignOp {
    /// Runs over a slice, as `SignOp<BINARY>` or `SignOp<TERNARY>` where the options are theirs.
    pub(super) fn run(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>) {
        match (self.threshold, self.use_01, self.tanh_path) {
            (None, false, true) => simd::run(&self.shaped::<BINARY>(), x, y, dydx),
            (Some(_), _, true) => simd::run(&self.shaped::<TERNARY>(), x, y, dydx),
            _ => simd::run(self, x, y, dydx),
        }
    }

    /// The same op with the shape parameter `S`.
    pub(super) fn shaped<const S: u8>(&self) -> SignOp<S> {
        SignOp { scale: self.scale, threshold: self.threshold, use_01: self.use_01, tanh_path: self.tanh_path }
    }
}

impl<const SHAPE: u8> Op for SignOp<SHAPE> {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        let threshold = match SHAPE {
            BINARY => None,
            TERNARY => Some(self.threshold.unwrap_or(f32::NAN)),
            _ => self.threshold,
        };
        let (use_01, tanh_path) = if SHAPE == GENERAL { (self.use_01, self.tanh_path) } else { (false, true) };
        let k = match threshold {
            Some(t) => {
                let s = lane::sgn0(x);
                V::select(x.abs().ge(V::splat(t)), s, V::splat(0.0) * s)
            }
            None if use_01 => (lane::sgn_plus(x) + V::splat(1.0)) / V::splat(2.0),
            None => lane::sgn_plus(x),
        };
        if tanh_path {
            // tanh(x) + (k − tanh(x)) is exactly k (+0 for zero) for k ∈ {−1, 0, 1} with the
            // sign of tanh(x) — checked over every float in [0, 1] — so the forward pass
            // needs no tanh; only the gradient 1 − tanh²(x) does.
            let (_, g) = tanh_d(x);
            (k * V::splat(self.scale) + V::splat(0.0), g)
        } else {
            (lane::ste_blend(x, V::splat(self.scale) * k, 1.0), V::splat(1.0))
        }
    }
}

/// The probability `σ(T·x/sd)` the stochastic binaries draw +1 with.
#[inline(always)]
fn prob<V: Lane>(v: V, temperature: f32, sd: f32, real: bool) -> V {
    let z = V::splat(temperature) * v / V::splat(sd);
    if real { lane::sigmoid(z) } else { sigmoid_q(z).0 }
}

/// stochastic_binary's and bernoulli's training draw: `+1` (or `1`) where `u < p`, else `−1`
/// (or `0`), times the scale, through the identity STE.
struct DrawnSign {
    scale: f32,
    temperature: f32,
    sd: f32,
    real: bool,
    zero_one: bool,
}

impl DrawOp for DrawnSign {
    const DRAWS: usize = 1;
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V, u: V, _: V) -> (V, V) {
        let p = prob(x, self.temperature, self.sd, self.real);
        let mut q = sgn_plus(sgn0(p - u));
        if self.zero_one {
            q = (q + V::splat(1.0)) / V::splat(2.0);
        }
        (ste_blend(x, V::splat(self.scale) * q, 1.0), V::splat(1.0))
    }
}

quantizer! {
    /// Binary quantizer, `{−scale, scale}` (`{0, scale}` with use_01). scale = 1 (None), alpha,
    /// or the per-channel least-squares fit `mean(x·k)/mean(k²)` = mean|x| for 'auto'
    /// ('auto_po2' rounds it to a power of two). With use_stochastic_rounding (training) x is
    /// first stochastically rounded to 1/8 of `2·min(max|x|, 1)`, and zeros draw a random sign.
    /// With alpha None the output is `tanh(x) + stop_gradient(q(x) − tanh(x))`, hence its gradient.
    pub struct Binary: QKeras "binary" {
        summary: "sign quantizer ±scale (0 ↦ +1); tanh' gradient when alpha is None",
        forward: "q(x) = scale·sign(x),  sign(0) = +1",
        backward: "∂q/∂x = 1 − tanh²(x) (alpha None);  1 otherwise",
        figure: {
            args: "",
            x: (-2.0, 2.0),
            why: "the library default: the sign, and the tanh-derivative gradient it passes when alpha is None",
        },
        /// Output {0, 1} instead of {−1, 1}.
        use_01: bool = false, Kind::Bool;
        /// Scale: None (1, tanh gradient), a number, 'auto' or 'auto_po2'.
        alpha: Alpha = Alpha::None, Kind::Alpha;
        /// Stochastic rounding before the sign, in training.
        use_stochastic_rounding: bool = false, Kind::Bool;
        /// Axes of per-channel statistics (a 1-D tensor is one channel).
        scale_axis: Opaque = Opaque::default(), Kind::Axis;
        /// Elements sharing one scale (auto_po2 only; no effect on one channel).
        elements_per_scale: Opaque = Opaque::default(), Kind::Axis;
        /// Smallest power-of-two exponent of the scale (auto_po2 only).
        min_po2_exponent: Option<i32> = None, PO2_EXP;
        /// Largest power-of-two exponent of the scale (auto_po2 only).
        max_po2_exponent: Option<i32> = None, PO2_EXP;
    }
}

impl Kernel for Binary {
    fn validate(&self) -> Result<(), (&'static str, String)> {
        let eps = self.elements_per_scale.0 != crate::Literal::None;
        only_with_auto_po2(self.alpha, eps, "elements_per_scale")?;
        only_with_auto_po2(self.alpha, self.min_po2_exponent.is_some(), "min_po2_exponent")?;
        only_with_auto_po2(self.alpha, self.max_po2_exponent.is_some(), "max_po2_exponent")
    }

    fn is_stochastic(&self, training: bool) -> bool {
        training && self.use_stochastic_rounding
    }

    fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, ctx: &mut Ctx) -> Report {
        let stochastic = self.is_stochastic(ctx.training);
        if !stochastic && !self.alpha.is_auto() {
            let a = if let Alpha::Value(a) = self.alpha { a as f32 } else { 1.0 };
            let op = SignOp { scale: a, threshold: None, use_01: self.use_01, tanh_path: self.alpha == Alpha::None };
            op.run(x, y, dydx);
            return Report { scale: Some(a), ..Report::default() };
        }
        let f = 2.0 * max_abs(x).min(1.0);
        // Codes k and the value the STE passes through (x, or tanh(x) for alpha None).
        let mut k = vec![0.0f32; x.len()];
        let mut through = vec![0.0f32; x.len()];
        let mut grad = vec![1.0f32; x.len()];
        for (i, &v) in x.iter().enumerate() {
            let v = if stochastic { f * stochastic_round(v / f, 0.125, ctx.rng.uniform()) } else { v };
            let mut s = sgn0(v);
            if s == 0.0 && self.use_stochastic_rounding {
                s = if ctx.training { 2.0 * ctx.rng.uniform().round_ties_even() - 1.0 } else { 1.0 };
            }
            let mut s = sgn_plus(s);
            if self.use_01 {
                s = (s + 1.0) / 2.0;
            }
            k[i] = s;
            (through[i], grad[i]) = if self.alpha == Alpha::None { tanh_d(v) } else { (v, 1.0) };
        }
        let scale = least_squares_scale(self.alpha, &through, &k, self.min_po2_exponent, self.max_po2_exponent);
        let mut i = 0;
        elementwise(x, y, dydx, |_| {
            let r = (ste_blend(through[i], scale * k[i], 1.0), grad[i]);
            i += 1;
            r
        });
        Report { scale: Some(scale), ..Report::default() }
    }

    fn levels(&self, report: &Report) -> Levels {
        let s = report.scale.unwrap_or(1.0);
        Levels::set(if self.use_01 { vec![0.0, s] } else { vec![-s, s] })
    }
}

quantizer! {
    /// Stochastic binary, random in training: `sd` is the channel's std for string alpha (else
    /// 1), σ the real sigmoid (or QKeras' hard one), the scale the least-squares fit to sign(x).
    /// In inference it is `binary(alpha)`, with its gradient (`1 − tanh²` for alpha None).
    pub struct StochasticBinary: QKeras "stochastic_binary" {
        summary: "binary with random sign, P(+1) = σ(T·x/sd); binary in inference",
        forward: "q(x) = scale·(+1 w.p. σ(T·x/sd), else −1)",
        backward: "∂q/∂x = 1 (training)",
        figure: {
            args: "",
            x: (-2.0, 2.0),
            why: "the library default: the mean of the random signs follows x smoothly, the band shows their spread",
        },
        /// Scale: None (1), a number, 'auto' or 'auto_po2'.
        alpha: Alpha = Alpha::None, Kind::Alpha;
        /// Sharpness T of the sigmoid.
        temperature: f64 = 6.0, TEMPERATURE;
        /// Real sigmoid (True) or QKeras' hard sigmoid.
        use_real_sigmoid: bool = true, Kind::Bool;
    }
}

impl Kernel for StochasticBinary {
    fn is_stochastic(&self, training: bool) -> bool {
        training
    }

    fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, ctx: &mut Ctx) -> Report {
        if !ctx.training {
            let b = Binary { alpha: self.alpha, ..Binary::default() };
            return b.apply(x, y, dydx, ctx);
        }
        let sd = if self.alpha.is_auto() { std_eps(x) } else { 1.0 };
        // The codes the scale is fitted to (a string alpha only: the others ignore them).
        let k: Vec<f32> = if self.alpha.is_auto() { x.iter().map(|&v| sgn_plus(v)).collect() } else { Vec::new() };
        let scale = least_squares_scale(self.alpha, x, &k, None, None);
        let (temperature, real) = (self.temperature as f32, self.use_real_sigmoid);
        let op = DrawnSign { scale, temperature, sd, real, zero_one: false };
        run_drawn(&op, x, y, dydx, &mut ctx.rng);
        Report { scale: Some(scale), ..Report::default() }
    }

    fn levels(&self, report: &Report) -> Levels {
        let s = report.scale.unwrap_or(1.0);
        Levels::set(vec![-s, s])
    }
}

quantizer! {
    /// Bernoulli quantizer, random in training and inference alike (QKeras gives it no
    /// inference branch); the scale is the least-squares fit to `(sign(x) + 1)/2`.
    pub struct Bernoulli: QKeras "bernoulli" {
        summary: "random {0, scale}, P(1) = σ(T·x/sd); stochastic even in inference",
        forward: "q(x) = scale·(1 w.p. σ(T·x/sd), else 0)",
        backward: "∂q/∂x = 1",
        figure: {
            args: "",
            x: (-2.0, 2.0),
            why: "the library default: the mean of the random {0, 1} draws follows σ(T·x/sd)",
        },
        /// Scale: None (1), a number, 'auto' or 'auto_po2'.
        alpha: Alpha = Alpha::None, Kind::Alpha;
        /// Sharpness T of the sigmoid.
        temperature: f64 = 6.0, TEMPERATURE;
        /// Real sigmoid (True) or QKeras' hard sigmoid.
        use_real_sigmoid: bool = true, Kind::Bool;
    }
}

impl Kernel for Bernoulli {
    fn is_stochastic(&self, _: bool) -> bool {
        true
    }

    fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, ctx: &mut Ctx) -> Report {
        let sd = if self.alpha.is_auto() { std_eps(x) } else { 1.0 };
        let fit = |v: f32| (sgn_plus(v) + 1.0) / 2.0;
        let k: Vec<f32> = if self.alpha.is_auto() { x.iter().map(|&v| fit(v)).collect() } else { Vec::new() };
        let scale = least_squares_scale(self.alpha, x, &k, None, None);
        let (temperature, real) = (self.temperature as f32, self.use_real_sigmoid);
        let op = DrawnSign { scale, temperature, sd, real, zero_one: true };
        run_drawn(&op, x, y, dydx, &mut ctx.rng);
        Report { scale: Some(scale), ..Report::default() }
    }

    fn levels(&self, report: &Report) -> Levels {
        Levels::set(vec![0.0, report.scale.unwrap_or(1.0)])
    }
}

impl Facts for Binary {
    fn scale_axis(&self) -> Option<i64> {
        self.scale_axis.int()
    }

    fn layout(&self) -> Layout {
        if self.alpha.is_auto() {
            Layout::Channels
        } else if self.use_stochastic_rounding {
            Layout::Flat
        } else {
            Layout::Elementwise
        }
    }

    /// 'auto'/'auto_po2' freezes to a fixed alpha (the same path: codes sign(x), output
    /// `x + sg(α·k − x)`, gradient 1). Stochastic rounding's grid `2·min(max|x|, 1)` is not
    /// in the report: a run that drew stays [`Frozen::Live`].
    fn freeze(&self, report: &Report) -> Option<Frozen> {
        if !self.alpha.is_auto() && !self.use_stochastic_rounding {
            return None;
        }
        let mut b = self.clone();
        if b.alpha.is_auto() {
            b.alpha = Alpha::Value(report.scale.unwrap_or(f32::NAN) as f64);
        }
        let live = b.use_stochastic_rounding && report.stochastic;
        Some(if live { Frozen::Live(Quantizer::Binary(b)) } else { Frozen::Library(Quantizer::Binary(b)) })
    }

    fn inert(&self) -> Vec<&'static str> {
        Vec::new()
    }
}

impl Facts for StochasticBinary {
    fn layout(&self) -> Layout {
        if self.alpha.is_auto() { Layout::Channels } else { Layout::Elementwise }
    }

    /// String alpha: in training the draws need the tensor's std ([`Frozen::Live`]); in
    /// inference it is `binary(alpha)` with the fitted scale.
    fn freeze(&self, report: &Report) -> Option<Frozen> {
        self.alpha.is_auto().then(|| {
            if report.stochastic {
                Frozen::Live(Quantizer::StochasticBinary(self.clone()))
            } else {
                let alpha = Alpha::Value(report.scale.unwrap_or(f32::NAN) as f64);
                Frozen::Library(Quantizer::Binary(Binary { alpha, ..Binary::default() }))
            }
        })
    }

    fn inert(&self) -> Vec<&'static str> {
        Vec::new()
    }
}

impl Facts for Bernoulli {
    fn layout(&self) -> Layout {
        if self.alpha.is_auto() { Layout::Channels } else { Layout::Elementwise }
    }

    /// String alpha: the draws need the tensor's std, which the report lacks.
    fn freeze(&self, _: &Report) -> Option<Frozen> {
        self.alpha.is_auto().then(|| Frozen::Live(Quantizer::Bernoulli(self.clone())))
    }

    fn inert(&self) -> Vec<&'static str> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `SignOp<BINARY>` and `SignOp<TERNARY>` give the general op's bits, value and gradient, on
    /// every float32 bit pattern (every [`crate::every_float_step`]th; all with
    /// `QSCOPE_EXHAUSTIVE=1`), for the options they stand for.
    #[test]
    fn the_shaped_sign_ops_equal_the_general_one_on_every_float() {
        let check = |op: &SignOp, f: &dyn Fn(f32) -> (f32, f32)| {
            for bits in (0..=u32::MAX).step_by(crate::every_float_step()) {
                let x = f32::from_bits(bits);
                let (want, got) = (op.eval(x), f(x));
                assert_eq!([got.0.to_bits(), got.1.to_bits()], [want.0.to_bits(), want.1.to_bits()], "x = {x:e}");
            }
        };
        let binary = SignOp { scale: 1.0, threshold: None, use_01: false, tanh_path: true };
        check(&binary, &|x| binary.shaped::<BINARY>().eval(x));
        for t in [0.33, 0.0, 1e-40, 7.5] {
            let ternary = SignOp { scale: 1.0, threshold: Some(t), use_01: false, tanh_path: true };
            check(&ternary, &|x| ternary.shaped::<TERNARY>().eval(x));
        }
    }
    /// The identity behind SignOp's tanh-free forward pass: t + (1 − t) = 1 for every
    /// float t in [0, 1] (and so, by symmetry, t + (−1 − t) = −1 on [−1, 0]).
    #[test]
    fn tanh_blend_is_exact_for_every_float_in_the_unit_interval() {
        let one = 1.0f32.to_bits();
        let bad = (0..=one).map(f32::from_bits).filter(|&t| t + (1.0 - t) != 1.0).count();
        assert_eq!(bad, 0);
    }
}
