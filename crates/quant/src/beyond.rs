//! Estimators beyond QKeras and Larq: soft rounding, the classic STEs, learnable-step
//! quantizers (LSQ, PACT) and PyTorch's fake quantization. Their specs carry no namespace.

use super::lane::{self, Lane};
use super::round::{mean_abs, rhe};
use super::schema::{Kind, quantizer};
use super::simd::{self, Op};
use crate::Layout;

mod passes;
use super::{Ctx, Facts, Frozen, Kernel, Levels, Quantizer, Report, elementwise_facts};
use crate::levels::MAX_SET;
use passes::{LsqPass, PactPass};

const STEP: Kind = Kind::Float { min: 1e-9, max: 1e9, log: true };
const BITS: Kind = Kind::Int { min: 1, max: 24 };

quantizer! {
    /// `SoftRound` of the shok library (not Agustsson & Theis' soft rounding): the forward
    /// pass rounds half to even, the backward pass scales the gradient by `x/round(x)`, so
    /// 0 < |x| ≤ ½ passes nothing; ±inf give NaN.
    pub struct SoftRound: Beyond "softround" ["SoftRound", "shok.SoftRound"] {
        summary: "round with the gradient scaled by x/round(x) (shok)",
        forward: "q(x) = round(x)",
        backward: "∂q/∂x = x/round(x);  0 where round(x) = 0 ≠ x;  1 at x = 0",
        figure: {
            args: "",
            x: (-2.0, 2.0),
            why: "the default: rounding, with the gradient x/round(x) that grows towards 0",
        },
    }
}

impl Op for SoftRound {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        let (zero, one) = (V::splat(0.0), V::splat(1.0));
        let r = x.nearest();
        let at_zero = x.ge(zero) & x.le(zero);
        let rounds_to_zero = r.ge(zero) & r.le(zero);
        (r, V::select(at_zero, one, V::select(rounds_to_zero, zero, x / r)))
    }
}

impl Kernel for SoftRound {
    simd::op_apply!();

    fn levels(&self, _: &Report) -> Levels {
        Levels::Grid { step: 1.0 }
    }
}

quantizer! {
    /// Soft rounding of Agustsson & Theis (2020), as `tensorflow_compression.soft_round`:
    /// continuous, monotone, exact at integers, rounding as α → ∞ and the identity for α < 10⁻³.
    /// With `hard=True` (explorer-defined) the forward pass rounds and `s'` is the
    /// pseudo-gradient.
    pub struct SoftRoundAT: Beyond "soft_round" ["tfc.soft_round"] {
        summary: "Agustsson–Theis soft rounding with temperature α (smooth staircase)",
        forward: "s(x) = m + tanh(α·r)/(2·tanh(α/2)),  m = ⌊x⌋ + ½,  r = x − m",
        backward: "∂s/∂x = α(1 − tanh²(α·r))/(2·tanh(α/2))",
        figure: {
            args: "",
            x: (-2.0, 2.0),
            why: "the default temperature 5: a smooth staircase and its periodic gradient",
        },
        /// Sharpness α (larger is closer to rounding).
        alpha: f64 = 5.0, Kind::Float { min: 0.0, max: 1e3, log: false };
        /// Round in the forward pass and use s' as the straight-through gradient.
        hard: bool = false, Kind::Bool;
    }
}

impl Op for SoftRoundAT {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        let one = V::splat(1.0);
        if self.alpha < 1e-3 {
            return (if self.hard { x.nearest() } else { x }, one);
        }
        let a = self.alpha as f32;
        let z = V::splat(lane::tanh(a / 2.0) * 2.0);
        let a = V::splat(a);
        let m = x.floor() + V::splat(0.5);
        let t = lane::tanh(a * (x - m));
        let s = if self.hard { x.nearest() } else { m + t / z };
        (s, a * (one - t * t) / z)
    }
}

impl Kernel for SoftRoundAT {
    simd::op_apply!();

    fn levels(&self, _: &Report) -> Levels {
        if self.hard { Levels::Grid { step: 1.0 } } else { Levels::Continuous }
    }
}

quantizer! {
    /// The plain straight-through estimator (Bengio et al. 2013): round to a multiple of
    /// `step`, pass the gradient unchanged.
    pub struct IdentitySte: Beyond "ste" ["identity_ste"] {
        summary: "round to multiples of step; gradient passed straight through",
        forward: "q(x) = step·round(x/step)",
        backward: "∂q/∂x = 1",
        figure: {
            args: "step=0.5",
            x: (-2.0, 2.0),
            why: "step 0.5, so eight steps fall in the range; the gradient is 1 everywhere",
        },
        /// Quantization step.
        step: f64 = 1.0, STEP;
    }
}

impl Op for IdentitySte {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        let s = V::splat(self.step as f32);
        (s * (x / s).nearest(), V::splat(1.0))
    }
}

impl Kernel for IdentitySte {
    simd::op_apply!();

    fn levels(&self, _: &Report) -> Levels {
        Levels::Grid { step: self.step as f32 }
    }
}

quantizer! {
    /// The clipped straight-through estimator (Hubara et al. 2016, hard-tanh STE):
    /// round to a multiple of `step` inside `[min_value, max_value]`; the gradient passes
    /// only inside that range (both ends inclusive).
    pub struct ClippedSte: Beyond "clipped_ste" {
        summary: "round within [min, max]; gradient 1 inside the range, 0 outside",
        forward: "q(x) = clip(step·round(x/step), min, max)",
        backward: "∂q/∂x = 1[min ≤ x ≤ max]",
        figure: { args: "step=0.25", x: (-2.0, 2.0), why: "steps of 0.25 inside [−1, 1], and the gradient 0 outside" },
        /// Quantization step.
        step: f64 = 1.0, STEP;
        /// Lower clip bound.
        min_value: f64 = -1.0, Kind::Float { min: -1e9, max: 1e9, log: false };
        /// Upper clip bound.
        max_value: f64 = 1.0, Kind::Float { min: -1e9, max: 1e9, log: false };
    }
}

impl Op for ClippedSte {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        let (s, lo, hi) =
            (V::splat(self.step as f32), V::splat(self.min_value as f32), V::splat(self.max_value as f32));
        (lane::clip(s * (x / s).nearest(), lo, hi), lane::inside(x, lo, hi))
    }
}

impl Kernel for ClippedSte {
    fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.min_value >= self.max_value {
            return Err(("max_value", format!("must exceed min_value={}", self.min_value)));
        }
        Ok(())
    }

    simd::op_apply!();

    fn levels(&self, _: &Report) -> Levels {
        let s = self.step;
        let (lo, hi) = ((self.min_value / s).ceil() as i64, (self.max_value / s).floor() as i64);
        if hi.saturating_sub(lo) > MAX_SET {
            return Levels::Continuous;
        }
        let mut v: Vec<f32> = (lo..=hi).map(|k| (k as f64 * s) as f32).collect();
        v.extend([self.min_value as f32, self.max_value as f32]);
        Levels::set(v)
    }
}

quantizer! {
    /// Learned Step Size Quantization (Esser et al. 2019). Codes `[−Qn, Qp]`: signed
    /// `Qn = 2^(b−1)`, `Qp = 2^(b−1) − 1`; unsigned `Qn = 0`, `Qp = 2^b − 1`. The step's
    /// gradient is the rounding residual inside, `−Qn` below and `Qp` above, times
    /// `g = 1/√(N·Qp)` with grad_scale. step=None initialises `s = 2·mean|v|/√Qp` from the tensor.
    pub struct Lsq: Beyond "lsq" {
        summary: "learned step size quantization; gradient for the step too",
        forward: "q(v) = s·round(clip(v/s, −Qn, Qp))",
        backward: "∂q/∂v = 1[−Qn < v/s < Qp];  ∂q/∂s = round(v/s) − v/s | −Qn | Qp  (×1/√(N·Qp))",
        figure: {
            args: "bits=3, step=0.25",
            x: (-1.5, 1.5),
            why: "3 signed bits at a fixed step of 0.25 (None would take it from the tensor): codes −4…3 and the \
                  gradient 0 beyond them",
        },
        /// Bits b.
        bits: i32 = 4, BITS;
        /// Step s; None initialises it as 2·mean|v|/√Qp.
        step: Option<f64> = None, Kind::OptFloat { min: 1e-9, max: 1e9 };
        /// Signed codes (weights) or unsigned (activations after ReLU).
        signed: bool = true, Kind::Bool;
        /// Multiply the step gradient by 1/√(N·Qp).
        grad_scale: bool = true, Kind::Bool;
    }
}

impl Lsq {
    /// The code range `(Qn, Qp)`: signed `(2^(b−1), 2^(b−1) − 1)`, unsigned `(0, 2^b − 1)`.
    pub fn range(&self) -> (f32, f32) {
        if self.signed {
            let h = (1i64 << (self.bits - 1)) as f32;
            (h, h - 1.0)
        } else {
            (0.0, ((1i64 << self.bits) - 1) as f32)
        }
    }

    /// The step in use on tensor `x`: the set one, or LSQ's initialisation `2·mean|x|/√Qp`.
    fn step_on(&self, x: &[f32]) -> f32 {
        match self.step {
            Some(s) => s as f32,
            None => 2.0 * mean_abs(x) / self.range().1.sqrt(),
        }
    }

    /// `Σᵢ gᵢ·∂yᵢ/∂s` at step `s` (`gᵢ = 1` without `g`): the rounding residual inside, the
    /// clip level outside, summed in f64, times `1/√(N·Qp)` with grad_scale. The kernel's
    /// report (no `g`) and backpropagation ([`Facts::weighted_grad`]) both come from here.
    fn step_grad(&self, s: f32, x: &[f32], g: Option<&[f32]>) -> f32 {
        let (qn, qp) = self.range();
        let sum: f64 = x
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                let u = v / s;
                let d = if u <= -qn {
                    -qn
                } else if u >= qp {
                    qp
                } else {
                    rhe(u) - u
                };
                g.map_or(1.0, |g| g[i] as f64) * d as f64
            })
            .sum();
        self.scaled(sum, x.len())
    }

    /// The step gradient from its sum `Σᵢ gᵢ·∂yᵢ/∂s` over `n` inputs.
    fn scaled(&self, sum: f64, n: usize) -> f32 {
        let scale = if self.grad_scale { 1.0 / (n as f32 * self.range().1).sqrt() } else { 1.0 };
        sum as f32 * scale
    }
}

/// LSQ's forward `s·round(clip(v/s, −Qn, Qp))` and its gradient in v.
struct LsqOp {
    s: f32,
    qn: f32,
    qp: f32,
}

impl LsqOp {
    /// Output, gradient in v and `∂y/∂s` (the residual [`Lsq::step_grad`] sums), from one
    /// division `v/s`.
    #[inline(always)]
    fn eval_all<V: Lane>(&self, x: V) -> (V, V, V) {
        let (s, qn, qp) = (V::splat(self.s), V::splat(-self.qn), V::splat(self.qp));
        let u = x / s;
        let pass = u.gt(qn) & u.lt(qp);
        let residual = V::select(u.le(qn), qn, V::select(u.ge(qp), qp, u.nearest() - u));
        (s * lane::clip(u, qn, qp).nearest(), V::select(pass, V::splat(1.0), V::splat(0.0)), residual)
    }
}

impl Op for LsqOp {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        let (y, g, _) = self.eval_all(x);
        (y, g)
    }
}

impl Kernel for Lsq {
    fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.signed && self.bits < 2 {
            return Err(("bits", "signed LSQ needs bits ≥ 2 (Qp = 0 at one bit)".into()));
        }
        Ok(())
    }

    fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, _: &mut Ctx) -> Report {
        let (qn, qp) = self.range();
        let s = self.step_on(x);
        let mut report = Report { scale: Some(s), ..Report::default() };
        let op = LsqOp { s, qn, qp };
        match dydx {
            Some(d) => {
                let sum = simd::on_lanes(LsqPass { op: &op, x, y, d });
                report.param_grads.push(("step", self.scaled(sum, x.len())));
            }
            None => simd::run(&op, x, y, None),
        }
        report
    }

    fn levels(&self, report: &Report) -> Levels {
        let (qn, qp) = self.range();
        Levels::codes(-(qn as i64), qp as i64, report.scale.unwrap_or(1.0))
    }
}

quantizer! {
    /// PACT (Choi et al. 2018): clip to a learnable `[0, α]`, then k-bit uniform codes; α's
    /// gradient drops the rounding residual.
    pub struct Pact: Beyond "pact" {
        summary: "learnable clipping [0, α] then k-bit codes; gradient for α too",
        forward: "q(x) = round(clip(x, 0, α)·n/α)·α/n,  n = 2^bits − 1",
        backward: "∂q/∂x = 1[0 ≤ x < α];  ∂q/∂α = 1[x ≥ α]",
        figure: {
            args: "bits=3, alpha=1.5",
            x: (-0.5, 2.0),
            why: "3 bits clipped at α = 1.5 (the default 6 lies outside the range): 8 levels and the gradient cut \
                  above α",
        },
        /// Bits k.
        bits: i32 = 4, BITS;
        /// Clipping level α.
        alpha: f64 = 6.0, Kind::Float { min: 1e-6, max: 1e6, log: true };
    }
}

impl Pact {
    /// The number of steps n = 2^bits − 1 across [0, α].
    pub fn step_count(&self) -> i64 {
        (1i64 << self.bits) - 1
    }

    /// Codes per unit of y, n/α (f32, as the kernel multiplies).
    pub fn codes_per_unit(&self) -> f32 {
        self.step_count() as f32 / self.alpha as f32
    }
}

/// PACT's kernel: `round(clip(x, 0, α)·k)/k` with `k = n/α`.
struct PactOp {
    a: f32,
    k: f32,
}

impl Op for PactOp {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        let (zero, a, k) = (V::splat(0.0), V::splat(self.a), V::splat(self.k));
        let pass = x.ge(zero) & x.lt(a);
        ((lane::clip(x, zero, a) * k).nearest() / k, V::select(pass, V::splat(1.0), zero))
    }
}

impl Kernel for Pact {
    fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, _: &mut Ctx) -> Report {
        let a = self.alpha as f32;
        let n = self.step_count() as f32;
        let mut report = Report { scale: Some(a / n), ..Report::default() };
        let op = PactOp { a, k: self.codes_per_unit() };
        match dydx {
            Some(d) => {
                // ∂(Σq)/∂α: one for every input clipped at α.
                let clipped = simd::on_lanes(PactPass { op: &op, x, y, d });
                report.param_grads.push(("alpha", clipped as f32));
            }
            None => simd::run(&op, x, y, None),
        }
        report
    }

    fn levels(&self, _: &Report) -> Levels {
        if self.step_count() >= MAX_SET {
            return Levels::Continuous;
        }
        let k = self.codes_per_unit();
        Levels::set((0..=self.step_count()).map(|c| c as f32 / k).collect())
    }
}

quantizer! {
    /// PyTorch's `torch.fake_quantize_per_tensor_affine` (the kernel of `FakeQuantize`): the code
    /// multiplies by the reciprocal, `round(x·f32(1/scale))`. NaN maps to quant_min's value and
    /// ±inf saturate, both with gradient 0.
    pub struct FakeQuantize: Beyond "fake_quantize" ["torch.fake_quantize", "torch.fake_quantize_per_tensor_affine", "FakeQuantize"] {
        summary: "PyTorch affine fake quantization (scale, zero point, code range)",
        forward: "q(x) = (clamp(zp + round(x/s), qmin, qmax) − zp)·s",
        backward: "∂q/∂x = 1[qmin ≤ zp + round(x/s) ≤ qmax]",
        figure: {
            args: "scale=0.25, zero_point=2, quant_min=0, quant_max=7",
            x: (-1.0, 2.0),
            why: "3-bit unsigned codes with zero point 2: the asymmetric range −0.5…1.25 and the gradient 0 beyond \
                  it",
        },
        /// Step s.
        scale: f64 = 0.1, STEP;
        /// Integer code of 0.0.
        zero_point: i32 = 0, Kind::Int { min: -(1 << 24), max: 1 << 24 };
        /// Smallest code.
        quant_min: i32 = -128, Kind::Int { min: -(1 << 24), max: 1 << 24 };
        /// Largest code.
        quant_max: i32 = 127, Kind::Int { min: -(1 << 24), max: 1 << 24 };
    }
}

impl Op for FakeQuantize {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        let s = self.scale as f32;
        let inv = V::splat(1.0f32 / s);
        let (zp, lo, hi) =
            (V::splat(self.zero_point as f32), V::splat(self.quant_min as f32), V::splat(self.quant_max as f32));
        let c = zp + (x * inv).nearest();
        // fmin(fmax(c, lo), hi) on the integer cast: NaN lands on quant_min.
        let inside = c.ge(lo) & c.le(hi);
        let cc = V::select(c.ge(lo), V::select(c.gt(hi), hi, c), lo);
        ((cc - zp) * V::splat(s), V::select(inside, V::splat(1.0), V::splat(0.0)))
    }
}

impl Kernel for FakeQuantize {
    fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.quant_min > self.quant_max {
            return Err(("quant_min", format!("must not exceed quant_max={}", self.quant_max)));
        }
        if !(self.quant_min..=self.quant_max).contains(&self.zero_point) {
            return Err((
                "zero_point",
                format!("must lie in [quant_min, quant_max] = [{}, {}]", self.quant_min, self.quant_max),
            ));
        }
        Ok(())
    }

    fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, _: &mut Ctx) -> Report {
        simd::run(self, x, y, dydx);
        Report { scale: Some(self.scale as f32), ..Report::default() }
    }

    fn levels(&self, _: &Report) -> Levels {
        let s = self.scale as f32;
        Levels::codes((self.quant_min - self.zero_point) as i64, (self.quant_max - self.zero_point) as i64, s)
    }
}

elementwise_facts! { SoftRound, SoftRoundAT, IdentitySte, ClippedSte, FakeQuantize }

impl Facts for Lsq {
    fn layout(&self) -> Layout {
        if self.step.is_none() { Layout::Flat } else { Layout::Elementwise }
    }

    /// step=None takes its step from the tensor: frozen (and learned) at the reported one.
    fn freeze(&self, report: &Report) -> Option<Frozen> {
        self.step.is_none().then(|| {
            let step = Some(report.scale.unwrap_or(f32::NAN) as f64);
            Frozen::Library(Quantizer::Lsq(Lsq { step, ..self.clone() }))
        })
    }

    fn inert(&self) -> Vec<&'static str> {
        Vec::new()
    }

    fn learnable(&self) -> &'static [&'static str] {
        &["step"]
    }

    fn weighted_grad(&self, name: &str, x: &[f32], g: &[f32]) -> f32 {
        if name == "step" { self.step_grad(self.step_on(x), x, Some(g)) } else { 0.0 }
    }

    fn init_learnable(&mut self, report: &Report) -> bool {
        match report.scale {
            Some(s) if self.step.is_none() && s.is_finite() && s > 0.0 => {
                self.step = Some(s as f64);
                true
            }
            _ => false,
        }
    }
}

impl Facts for Pact {
    fn layout(&self) -> Layout {
        Layout::Elementwise
    }

    fn freeze(&self, _: &Report) -> Option<Frozen> {
        None
    }

    fn inert(&self) -> Vec<&'static str> {
        Vec::new()
    }

    fn learnable(&self) -> &'static [&'static str] {
        &["alpha"]
    }

    /// `∂yᵢ/∂α = 1` where the input is clipped at α.
    fn weighted_grad(&self, name: &str, x: &[f32], g: &[f32]) -> f32 {
        if name != "alpha" {
            return 0.0;
        }
        let a = self.alpha as f32;
        let sum: f64 = x.iter().zip(g).filter(|(v, _)| **v >= a).map(|(_, &gi)| gi as f64).sum();
        sum as f32
    }
}
