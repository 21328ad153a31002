//! A data-dependent quantizer frozen at the scale or threshold a tensor gave it.
//!
//! `quantized_bits(4,0,1,alpha='auto')` evaluated on a sweep `x = −2…2` picks its scale from
//! the sweep, not from the weights it would quantize; its curve is only meaningful "for a
//! scale". [`Quantizer::freeze`] returns an equivalent quantizer with the numbers of a
//! [`Report`] (from the sample tensor) fixed, so any x can be evaluated elementwise; each
//! quantizer says how in its [`Facts::freeze`](super::Facts::freeze). Where a library parameter
//! expresses the frozen state, the result is that library configuration ([`Frozen::Library`]);
//! where none does exactly, it is a small explorer-side evaluator with the library's forward
//! and backward formulas and the fixed numbers ([`Fixed`]).

use super::bnb::BlockCode;
use super::larq::{DoReFa, DoReFaMode, DoReFaWeights, ScaledSign};
use super::qkeras::{QuantizedBits, hswish};
use super::round::{rhe, sgn0, ste_blend, stochastic_round};
use super::torchao::{BlockCast, GroupCodes, Path, ScaledCast};
use super::{Ctx, Kernel, Levels, Quantizer, Report, elementwise, simd, spec};

/// A quantizer with its data-dependent numbers fixed.
#[derive(Clone, Debug, PartialEq)]
pub enum Frozen {
    /// A library configuration expressing the frozen state exactly (e.g. `alpha='auto'` →
    /// `post_training_scale`). A degenerate scale (0 or NaN, from an all-zero or NaN sample)
    /// is set directly: it evaluates exactly but does not print as a valid spec.
    Library(Quantizer),
    /// An explorer-side evaluator where no library parameter is exact.
    Fixed(Fixed),
    /// Still data-dependent: the report lacks a number the quantizer needs (the std behind
    /// stochastic_binary / stochastic_ternary / bernoulli draws with string alpha in training,
    /// binary's stochastic-rounding grid `2·min(max|x|, 1)` in training). What the report does
    /// fix (a scale) is fixed.
    Live(Quantizer),
}

/// Explorer-side frozen evaluators, each with the library's exact formulas (float32, same
/// operation order) and fixed numbers.
#[derive(Clone, Debug, PartialEq)]
pub enum Fixed {
    /// QKeras `ternary(alpha='auto'/'auto_po2')`: codes from the last fitting round,
    /// `k = sign(x)·1[|s₀·round(x/s₀)| ≥ t]` with `s₀ = 2t` the scale before the last
    /// least-squares refit (so |x| > t strictly, up to float rounding of x/s₀), output
    /// `x + stop_gradient(s·k − x)`, gradient 1. Fixed-alpha ternary thresholds inclusively
    /// (|x| ≥ t) and cannot express this. With stochastic rounding, in training
    /// `round` is QKeras' stochastic rounding to thirds (same distribution, other draws).
    AutoTernary { threshold: f32, scale: f32, stochastic: bool },
    /// Larq `MagnitudeAwareSign`: `a·sign(x)` (0 ↦ +a), gradient `a·1[|x| ≤ clip_value]`;
    /// Larq has no parameter for the mean `a`.
    MagnitudeSign { scale: f32, clip_value: Option<f32> },
    /// Larq `DoReFa(mode='weights')`: `2·round(n·(tanh x/2d + ½))/n − 1`, gradient
    /// `(1 − tanh²x)/d` (both 0-safe as `divide_no_nan`), `d = max|tanh|` of the sample.
    DoReFaWeights { k_bit: i32, max_tanh: f32 },
    /// QKeras `quantized_hswish(alpha='auto')`: `h(x) = x·min(relu(x + shift), upper)/upper`,
    /// then `inner` (quantized_bits with the frozen `post_training_scale`) on h; gradient
    /// `h'(x)` times inner's. quantized_hswish has no post_training_scale of its own.
    Hswish { inner: QuantizedBits, relu_shift: f32, relu_upper_bound: f32 },
    /// torchao `float8`: `fp8(clamp(x·s, ±max)) / s` at the sample's scale `s`, gradient 1;
    /// the spec has no parameter for a given scale.
    ScaledFloat8(ScaledCast),
    /// torchao `affine` / `intx_fake_quantize`: one group's integer codes at its scale and
    /// zero point, `(clamp(round(x·(1/s)) + z, qmin, qmax) − z)·s`, with the quantizer's gradient;
    /// the specs have no parameters for a given scale and zero point.
    GroupInt(GroupCodes),
    /// A torchao block format (`mx`, `nvfp4`) at one block's scale: every x is cast as an
    /// element of that block, `elem(clamp(x·rcp, ±max))·scale`, gradient 1; `report` holds
    /// that block (and NVFP4's per-tensor scale). The specs have no parameter for a given block
    /// scale.
    ScaledBlock { what: &'static str, cast: BlockCast, report: Report },
    /// bitsandbytes `nf4` / `fp4`: `table[bucket(x·(1/a))]·a` (a tail block: `x/a`) at one
    /// block's absmax `a`, gradient 1; the spec has no parameter for a given absmax.
    Bnb4Bit(BlockCode),
}

impl Frozen {
    /// Whether the frozen form no longer depends on the tensor it is evaluated on.
    pub fn is_frozen(&self) -> bool {
        !matches!(self, Frozen::Live(_))
    }

    /// Quantizes `x` elementwise (Library and Live: the kernel), writing values and, if asked,
    /// gradients; returns the numbers in use.
    pub fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, ctx: &mut Ctx) -> Report {
        match self {
            Frozen::Library(q) | Frozen::Live(q) => q.apply(x, y, dydx, ctx),
            Frozen::Fixed(f) => f.apply(x, y, dydx, ctx),
        }
    }

    /// Values and gradients of a whole slice.
    pub fn eval(&self, x: &[f32], ctx: &mut Ctx) -> (Vec<f32>, Vec<f32>) {
        let (mut y, mut g) = (vec![0.0; x.len()], vec![0.0; x.len()]);
        self.apply(x, &mut y, Some(&mut g), ctx);
        (y, g)
    }

    /// The values the output can take.
    pub fn levels(&self, report: &Report) -> Levels {
        match self {
            Frozen::Library(q) | Frozen::Live(q) => q.levels(report),
            Frozen::Fixed(f) => f.levels(),
        }
    }

    /// A one-line description: the spec of a library form, or what an explorer-side form fixes.
    pub fn describe(&self) -> String {
        match self {
            Frozen::Library(q) => spec::print(q),
            Frozen::Live(q) => format!("{} (still depends on the tensor)", spec::print(q)),
            Frozen::Fixed(f) => f.describe(),
        }
    }
}

impl Fixed {
    /// The fixed numbers, as a report.
    fn report(&self) -> Report {
        match self {
            Fixed::AutoTernary { threshold, scale, .. } => {
                Report { scale: Some(*scale), threshold: Some(*threshold), ..Report::default() }
            }
            Fixed::MagnitudeSign { scale, .. } => Report { scale: Some(*scale), ..Report::default() },
            Fixed::DoReFaWeights { max_tanh, .. } => Report { scale: Some(*max_tanh), ..Report::default() },
            Fixed::Hswish { inner, .. } => {
                Report { scale: inner.post_training_scale.map(|s| s as f32), ..Report::default() }
            }
            Fixed::ScaledFloat8(c) => Report { scale: Some(c.scale), ..Report::default() },
            Fixed::GroupInt(c) => Report { scale: Some(c.params.scale), ..Report::default() },
            Fixed::ScaledBlock { report, .. } => report.clone(),
            Fixed::Bnb4Bit(c) => Report { scale: Some(c.absmax), ..Report::default() },
        }
    }

    fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, ctx: &mut Ctx) -> Report {
        let mut report = self.report();
        match *self {
            Fixed::AutoTernary { threshold, scale, stochastic } => {
                let s0 = 2.0 * threshold;
                let draw = stochastic && ctx.training;
                report.stochastic = draw;
                let rng = &mut ctx.rng;
                elementwise(x, y, dydx, |v| {
                    let r = if draw { stochastic_round(v / s0, 1.0 / 3.0, rng.uniform()) } else { rhe(v / s0) };
                    let k = if (s0 * r).abs() >= threshold { sgn0(v) } else { 0.0 };
                    (ste_blend(v, scale * k, 1.0), 1.0)
                });
            }
            Fixed::MagnitudeSign { scale, clip_value } => {
                simd::run(&ScaledSign { scale, clip: clip_value }, x, y, dydx)
            }
            Fixed::DoReFaWeights { k_bit, max_tanh } => {
                let n = ((1u64 << k_bit) - 1) as f32;
                simd::run(&DoReFaWeights { n, two_d: 2.0 * max_tanh }, x, y, dydx);
            }
            Fixed::Hswish { ref inner, relu_shift, relu_upper_bound } => {
                report = hswish(relu_shift, relu_upper_bound, inner, x, y, dydx, ctx);
                report.stochastic = inner.is_stochastic(ctx.training);
            }
            Fixed::ScaledFloat8(ref c) => report = c.apply(x, y, dydx),
            Fixed::GroupInt(ref c) => report = c.apply(x, y, dydx),
            Fixed::ScaledBlock { ref cast, .. } => simd::run(cast, x, y, dydx),
            Fixed::Bnb4Bit(ref c) => simd::run(c, x, y, dydx),
        }
        report
    }

    fn levels(&self) -> Levels {
        match *self {
            Fixed::AutoTernary { scale, .. } => Levels::set(vec![-scale, 0.0, scale]),
            Fixed::MagnitudeSign { scale, .. } => Levels::set(vec![-scale, scale]),
            Fixed::DoReFaWeights { k_bit, .. } => DoReFa { k_bit, mode: DoReFaMode::Weights }.levels(&self.report()),
            Fixed::Hswish { ref inner, .. } => inner.levels(&self.report()),
            Fixed::ScaledFloat8(ref c) => c.levels(),
            Fixed::GroupInt(ref c) => c.levels(),
            Fixed::ScaledBlock { ref cast, .. } => cast.levels(),
            Fixed::Bnb4Bit(ref c) => c.levels(),
        }
    }

    fn describe(&self) -> String {
        match self {
            Fixed::AutoTernary { threshold, scale, .. } => {
                format!("qkeras.ternary(alpha='auto') frozen: scale {scale}, codes where |x| > {threshold}")
            }
            Fixed::MagnitudeSign { scale, .. } => format!("larq.MagnitudeAwareSign frozen: mean|x| = {scale}"),
            Fixed::DoReFaWeights { k_bit, max_tanh } => {
                format!("larq.DoReFa(k_bit={k_bit}, mode='weights') frozen: max|tanh x| = {max_tanh}")
            }
            Fixed::Hswish { inner, .. } => format!(
                "qkeras.quantized_hswish(alpha='auto') frozen: quantized_bits post_training_scale = {}",
                inner.post_training_scale.unwrap_or(f64::NAN)
            ),
            Fixed::ScaledFloat8(c) => format!("torchao.float8 frozen: {} at scale {}", c.format.name, c.scale),
            Fixed::GroupInt(c) => format!(
                "torchao.{} frozen: one group's scale {} and zero point {}",
                match c.path {
                    Path::Dequantize => "affine",
                    Path::FakeQuantize => "intx_fake_quantize",
                },
                c.params.scale,
                c.params.zero_point
            ),
            Fixed::ScaledBlock { what, cast, report } => {
                let code =
                    report.blocks.first().and_then(|b| b.code).map(|c| format!(" (code {c})")).unwrap_or_default();
                format!("{what} frozen at one block's scale: {} times {}{code}", cast.format.name, cast.scale)
            }
            Fixed::Bnb4Bit(c) => format!("bnb.{} frozen: one block at absmax {}", c.table.name(), c.absmax),
        }
    }
}
