//! What a quantizer says about itself besides computing: [`Facts`].
//!
//! [`Kernel`](super::Kernel) is the computation (values, gradients, levels); `Facts` holds the
//! per-quantizer knowledge that the explorer and the trainer need around it and that running
//! the kernel does not reveal: whether the output at one element depends on the rest of the
//! tensor and how to freeze it at a sample's numbers ([`Facts::freeze`]), which parameters have
//! no effect ([`Facts::inert`]), and the learnable parameters with their gradients. It is a
//! trait of its own, not more `Kernel` methods, so the hot path stays the computation alone and
//! these facts read as one list per quantizer.
//!
//! Every catalogue type implements it in its family file, beside its kernel; [`Quantizer`]
//! dispatches through `each_quantizer!`, so a quantizer without the impl does not compile.
//! `freeze` and `inert` are required; quantizers with neither a tensor statistic nor anything
//! to freeze list themselves in [`elementwise_facts!`] (with their inert parameters, if any),
//! which states exactly that. The learnable-parameter methods default to "none" (all but LSQ and
//! PACT). `Axis` and `Text` parameters are recorded, never computed with (their
//! [`Kind`](super::Kind) says so), and are not listed as inert.

use super::frozen::Frozen;
use super::ml_dtypes::Format;
use super::{Quantizer, Report};

/// How a library gives a tensor of several dimensions (a weight) to a quantizer: what its
/// statistics run over. The channel axis is the last, as Keras and PyTorch lay out a weight's
/// output channels (Keras) or input features (PyTorch's blocks and groups); qscope's `axis`
/// moves another axis there first (a transpose), see [`Quantizer::apply_shaped`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Each element alone (no statistic): the shape cannot change an output.
    Elementwise,
    /// One statistic over the whole tensor (a per-tensor scale, bitsandbytes' blocks over the
    /// flattened tensor): as a 1-D tensor in row-major order.
    Flat,
    /// Blocks or groups along the channel axis, each row on its own (torchao's groups, MX and
    /// NVFP4 blocks): [`Kernel::apply_rows`](crate::Kernel::apply_rows) with rows along it.
    Rows,
    /// One statistic per channel, every other axis reduced (QKeras' `alpha='auto'`, Larq's
    /// MagnitudeAwareSign): each channel quantized as a tensor of its own.
    Channels,
}

/// What a quantizer says about itself besides computing: whether its output depends on the
/// whole tensor and how to freeze it, which parameters are inert, which learn. Every catalogue
/// type implements it in its family file; [`Quantizer`] dispatches to it exhaustively.
pub trait Facts {
    /// The frozen form at the numbers of `report` (from this quantizer's run on a tensor), or
    /// `None` when the output at one element depends on that element alone, in training and in
    /// inference: nothing depends on the tensor, so nothing needs freezing. `Some` exactly when
    /// a per-tensor scale or threshold (`alpha='auto'`/`'auto_po2'`, Larq's TWN threshold,
    /// MagnitudeAwareSign's mean, DoReFa's weight normalisation, LSQ's initial step) or a
    /// statistic behind random draws (the std of stochastic binaries with string alpha,
    /// binary's stochastic-rounding grid `2·min(max|x|, 1)`) is in use — whatever the report.
    fn freeze(&self, report: &Report) -> Option<Frozen>;

    /// The parameters that change no output in the current configuration (a control for them
    /// is folded away). Never `Axis` or `Text` parameters, which never compute.
    fn inert(&self) -> Vec<&'static str>;

    /// How its library sees a tensor of more than one dimension (a weight): see [`Layout`].
    fn layout(&self) -> Layout;

    /// Storage cost of one element in bits, the scales' share included (MXFP4 4 + 8/32 = 4.25,
    /// NVFP4 4 + 8/16 = 4.5, NF4 with blocksize 64 4 + 32/64 = 4.5, int4 in groups of 32 with a
    /// float16 scale and zero point 4 + 32/32 = 5, an FP8 cast 8), for the format comparison.
    /// `None` (the default, right for the elementwise quantizers, whose only scale is per
    /// tensor or fixed) means: the bits needed to index the quantizer's levels, ⌈log₂ n⌉.
    fn bits_per_element(&self) -> Option<f32> {
        None
    }

    /// The small float format each element is stored in (an ml_dtypes cast, torchao's FP8,
    /// the elements of MX and NVFP4 blocks), for its bit layout; `None` (the default, right
    /// for the integer and binary quantizers and formats with their own tables) otherwise.
    fn element_format(&self) -> Option<Format> {
        None
    }

    /// For block formats, the number of consecutive elements that share a scale (MX 32, NVFP4
    /// 16, a group, bitsandbytes' blocksize): the trainer then quantizes a layer's weights and
    /// activations in rows along its input dimension, each row a 1-D tensor cut into blocks.
    /// `None` (the default) for every quantizer whose scale, if any, is per tensor.
    fn block_size(&self) -> Option<usize> {
        None
    }

    /// For block formats, whether each block is quantized from its own elements alone (no
    /// statistic of the whole tensor, such as NVFP4's per-tensor scale), so that a tensor cut at
    /// block boundaries — at row boundaries for [`Layout::Rows`] — gives the same outputs piece
    /// by piece ([`Quantizer::piece`]). `false` (the default) is always safe.
    fn blocks_independent(&self) -> bool {
        false
    }

    /// The axis a per-channel statistic keeps when the spec names one (QKeras' `scale_axis`,
    /// negative from the end); `None` (the default): the shape's channel axis.
    fn scale_axis(&self) -> Option<i64> {
        None
    }

    /// The learnable parameters (LSQ's `step`, PACT's `alpha`); none by default.
    fn learnable(&self) -> &'static [&'static str] {
        &[]
    }

    /// `Σᵢ gᵢ·∂yᵢ/∂θ` for learnable parameter `name` at input `x` and upstream gradient `g`
    /// (0 for a name that is not learnable). With `g = 1` everywhere it is the kernel's
    /// [`Report::param_grads`] entry, bit for bit: the same per-element terms, tensor-level
    /// factor and summation (f64, then f32).
    fn weighted_grad(&self, _name: &str, _x: &[f32], _g: &[f32]) -> f32 {
        0.0
    }

    /// Fixes a learnable parameter that the kernel otherwise takes from each tensor (LSQ's
    /// `step=None` initialisation `2·mean|x|/√Qp`) at the value `report` gives, so it can be
    /// learned. Returns whether it changed the quantizer.
    fn init_learnable(&mut self, _report: &Report) -> bool {
        false
    }
}

/// `elementwise_facts! { A, B ["p", "q"], … }`: the [`Facts`] of quantizers whose output at an
/// element depends on that element alone (nothing to freeze) and that learn nothing; the
/// bracketed names are the parameters that never have an effect.
macro_rules! elementwise_facts {
    ($($ty:ident $([$($inert:literal),* $(,)?])?),* $(,)?) => {$(
        impl $crate::Facts for $ty {
            fn freeze(&self, _: &$crate::Report) -> Option<$crate::Frozen> {
                None
            }

            fn inert(&self) -> Vec<&'static str> {
                vec![$($($inert),*)?]
            }

            fn layout(&self) -> $crate::Layout {
                $crate::Layout::Elementwise
            }
        }
    )*};
}
pub(crate) use elementwise_facts;

impl Quantizer {
    /// The axis its per-channel statistic keeps, when its spec names one ([`Facts::scale_axis`]).
    pub fn scale_axis(&self) -> Option<i64> {
        crate::catalogue::each_quantizer!(self, k => k.scale_axis())
    }

    /// How its library sees a tensor of several dimensions ([`Facts::layout`]).
    pub fn layout(&self) -> Layout {
        crate::catalogue::each_quantizer!(self, k => k.layout())
    }

    /// Whether the output at one element depends on the rest of the tensor (in training,
    /// inference or both), judged from the parameters; see [`Facts::freeze`].
    pub fn is_data_dependent(&self) -> bool {
        crate::catalogue::each_quantizer!(self, k => k.freeze(&Report::default())).is_some()
    }

    /// The frozen form at the numbers in `report` (from [`Quantizer::apply`] on a sample).
    ///
    /// Contract (tested for every data-dependent configuration): evaluating the result in the
    /// mode the report came from, on the same tensor, gives this quantizer's outputs and
    /// gradients bit for bit, and the same random draws where draws remain. Exceptions:
    /// [`Frozen::Live`], and the two fits that themselves draw (quantized_linear 'auto_po2' and
    /// ternary 'auto' with stochastic rounding, in training), whose frozen forms draw from the
    /// same distribution. A quantizer that is not data-dependent comes back unchanged as
    /// [`Frozen::Library`].
    pub fn freeze(&self, report: &Report) -> Frozen {
        crate::catalogue::each_quantizer!(self, k => k.freeze(report)).unwrap_or_else(|| Frozen::Library(self.clone()))
    }

    /// The parameters with no effect in this configuration; see [`Facts::inert`].
    pub fn inert(&self) -> Vec<&'static str> {
        crate::catalogue::each_quantizer!(self, k => k.inert())
    }

    /// Storage bits per element, scales included ([`Facts::bits_per_element`]), else the bits
    /// that index the levels `report` gives, ⌈log₂ n⌉ (at least 1); `None` for continuous
    /// outputs or an unbounded grid.
    pub fn bits_per_element(&self, report: &Report) -> Option<f32> {
        crate::catalogue::each_quantizer!(self, k => k.bits_per_element())
            .or_else(|| self.levels(report).count().map(|n| (n.max(2) as f64).log2().ceil() as f32))
    }

    /// The float format of each element, where there is one; see [`Facts::element_format`].
    pub fn element_format(&self) -> Option<Format> {
        crate::catalogue::each_quantizer!(self, k => k.element_format())
    }

    /// Elements per block for block formats; see [`Facts::block_size`].
    pub fn block_size(&self) -> Option<usize> {
        crate::catalogue::each_quantizer!(self, k => k.block_size())
    }

    /// Whether its blocks are quantized independently; see [`Facts::blocks_independent`].
    pub fn blocks_independent(&self) -> bool {
        crate::catalogue::each_quantizer!(self, k => k.blocks_independent())
    }

    /// The learnable parameters (none for most).
    pub fn learnable(&self) -> &'static [&'static str] {
        crate::catalogue::each_quantizer!(self, k => k.learnable())
    }

    /// `Σᵢ gᵢ·∂yᵢ/∂θ` for parameter `name` at input `x`; see [`Facts::weighted_grad`].
    pub fn weighted_grad(&self, name: &str, x: &[f32], g: &[f32]) -> f32 {
        assert_eq!(x.len(), g.len(), "weighted_grad: shapes");
        crate::catalogue::each_quantizer!(self, k => k.weighted_grad(name, x, g))
    }

    /// Fixes what a learnable parameter would take from each tensor at the report's value;
    /// whether it changed the quantizer. See [`Facts::init_learnable`].
    pub fn init_learnable(&mut self, report: &Report) -> bool {
        crate::catalogue::each_quantizer!(self, k => k.init_learnable(report))
    }
}

#[cfg(test)]
mod tests {
    use crate::{Ctx, parse};

    fn inputs() -> Vec<f32> {
        (0..37).map(|i| (i as f32 * 0.37).sin() * 2.5).collect()
    }

    #[test]
    fn unit_upstream_gradient_reproduces_the_kernel_report() {
        let x = inputs();
        for spec in ["lsq(bits=4, step=0.1)", "lsq(3, step=0.3, signed=False)", "lsq(4)", "pact(4, alpha=1.5)"] {
            let q = parse(spec).unwrap();
            let (_, _, report) = q.eval(&x, &mut Ctx::training(0));
            let (name, want) = report.param_grads[0];
            assert_eq!(q.learnable(), [name]);
            let got = q.weighted_grad(name, &x, &vec![1.0; x.len()]);
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
                let (_, _, r) = q.eval(&x[i..=i], &mut Ctx::training(0));
                assert_eq!(q.weighted_grad(q.learnable()[0], &x, &g), 2.0 * r.param_grads[0].1, "{q} at {}", x[i]);
            }
        }
    }

    #[test]
    fn bits_per_element_defaults_to_the_bits_that_index_the_levels() {
        let bits = |spec: &str| {
            let q = parse(spec).unwrap();
            let (_, _, r) = q.eval(&inputs(), &mut Ctx::inference(0));
            q.bits_per_element(&r)
        };
        assert_eq!(bits("quantized_bits(4,0,1)"), Some(4.0));
        assert_eq!(bits("ste_sign"), Some(1.0));
        assert_eq!(bits("ternary"), Some(2.0));
        assert_eq!(bits("ml_dtypes.float8_e4m3fn"), Some(8.0));
        assert_eq!(bits("ml_dtypes.float6_e2m3fn"), Some(6.0));
        assert_eq!(bits("ml_dtypes.float4_e2m1fn"), Some(4.0));
        assert_eq!(bits("torchao.float8"), Some(8.0));
        assert_eq!(bits("identity_ste"), None);
    }
}
