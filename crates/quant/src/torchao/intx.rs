//! Group-wise integer QAT as torchao 0.18's `IntxFakeQuantizer` computes it under torch 2.15:
//! `IntxFakeQuantizer(IntxFakeQuantizeConfig(torch.intN, group_size=g, is_symmetric=True))` on a
//! 1-D tensor taken as one row (torchao needs 2-D; the tail is its own shorter group).
//!
//! Symmetric (torchao's path, forward and gradient): `get_group_qparams_symmetric` (the affine
//! primitives' symmetric scale over `[−2^(N−1), 2^(N−1) − 1]`, float32, eps float32's smallest
//! normal, zero point 0) and `_fake_quantize_per_channel_group`: the codes of
//! [`super::groups`] kept in float32, `y = (c − z)·s`. The gradient is autograd's through that
//! expression: `round` is straight-through, `torch.clamp` passes the gradient strictly inside
//! `(quant_min, quant_max)` in torch 2.15 — 0 where the rounded code lands on a bound — so
//! `∂y/∂x = s·(1/s)` (one float32 product, not always 1) inside and 0 outside. torch 2.10's
//! clamp passes it on the bounds too (gradient `s·(1/s)` where the code is quant_min or
//! quant_max); the forward is the same in both.
//!
//! Asymmetric: torchao 0.18's `is_symmetric=False` is broken — `get_groupwise_affine_qparams`
//! returns a float-domain zero point (`min + s·2^(N−1)` over `[0, 2^N − 1]`), truncated to int32
//! and then used as an integer code over `[−2^(N−1), 2^(N−1) − 1]` (linspace(10, 20, 32) in int4
//! comes out −5.33 everywhere, gradient 0). qscope uses the affine primitives' asymmetric scheme
//! instead (`choose_qparams_affine(x, ASYMMETRIC, (1, g), torch.intN)`, the same fake
//! quantization and gradient): README, "deliberately differs".

use super::affine::{bits_with_overhead, freeze_at};
use super::groups::{self, GroupCodes, MappingType, Path, QParams, choose_qparams};
use crate::Layout;
use crate::frozen::Frozen;
use crate::schema::{Kind, choice, quantizer};
use crate::{Ctx, Facts, Kernel, Levels, Report};

choice! {
    /// The simulated integer dtype (`torch.int2` … `torch.int8`).
    IntxDtype {
        Int2 = "int2", Int3 = "int3", Int4 = "int4", Int5 = "int5", Int6 = "int6", Int7 = "int7", Int8 = "int8",
    }
}

impl IntxDtype {
    /// Bits per code.
    pub fn bits(self) -> i32 {
        match self {
            IntxDtype::Int2 => 2,
            IntxDtype::Int3 => 3,
            IntxDtype::Int4 => 4,
            IntxDtype::Int5 => 5,
            IntxDtype::Int6 => 6,
            IntxDtype::Int7 => 7,
            IntxDtype::Int8 => 8,
        }
    }

    /// torchao's `_DTYPE_TO_QVALUE_BOUNDS`: `(−2^(N−1), 2^(N−1) − 1)`.
    pub fn bounds(self) -> (i32, i32) {
        let h = 1 << (self.bits() - 1);
        (-h, h - 1)
    }
}

quantizer! {
    /// Fake-quantized integers in groups for quantization-aware training, as torchao's
    /// `IntxFakeQuantizer`: one float32 scale per group from its amax (symmetric), the codes kept
    /// in float, and autograd's gradient, 0 where a code lands on the range's ends.
    pub struct IntxFakeQuantize: Torchao "intx_fake_quantize" {
        summary: "QAT fake quantization to intN in groups (IntxFakeQuantizer): a scale per group, gradient 0 at the clamp",
        forward: "per group: s = max|x|/((qmax − qmin)/2) (asymmetric: affine's s, z);  \
                  v = round(x·(1/s)) + z;  q(x) = (clamp(v, qmin, qmax) − z)·s",
        backward: "∂q/∂x = s·(1/s) where qmin < v < qmax, else 0 (torch 2.15's clamp; 2.10 keeps the bounds)",
        figure: {
            args: "",
            x: (-2.0, 2.0),
            why: "the default symmetric int4 group, drawn as one block spanning the range: the codes and the \
                  gradient 0 at the clamp",
        },
        /// The simulated integer dtype.
        dtype: IntxDtype = IntxDtype::Int4, Kind::Choice(IntxDtype::CHOICES);
        /// Consecutive elements sharing a scale (a shorter tail is a group of its own).
        group_size: i32 = 32, Kind::Int { min: 2, max: 4096 };
        /// Symmetric (torchao's path); False: the affine primitives' asymmetric scheme.
        is_symmetric: bool = true, Kind::Bool;
    }
}

impl IntxFakeQuantize {
    fn mapping(&self) -> MappingType {
        if self.is_symmetric { MappingType::Symmetric } else { MappingType::Asymmetric }
    }

    /// The elementwise part at one group's parameters.
    pub fn at(&self, params: QParams) -> GroupCodes {
        let (quant_min, quant_max) = self.dtype.bounds();
        GroupCodes { params, quant_min, quant_max, path: Path::FakeQuantize }
    }

    /// The parameters of a group whose min and max are `min_val` and `max_val`.
    pub fn qparams(&self, min_val: f32, max_val: f32) -> QParams {
        let (lo, hi) = self.dtype.bounds();
        choose_qparams(self.mapping(), min_val, max_val, lo, hi)
    }
}

impl Kernel for IntxFakeQuantize {
    fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, _: &mut Ctx) -> Report {
        groups::run_groups(
            x,
            y,
            dydx,
            self.group_size as usize,
            self.mapping(),
            self.at(QParams { scale: 1.0, zero_point: 0.0 }),
        )
    }

    /// Every group's `(c − z)·s` (scale 1 without a report).
    fn levels(&self, report: &Report) -> Levels {
        groups::union_levels(report, |p| self.at(p), self.qparams(-1.0, 1.0).with_scale(1.0))
    }
}

impl Facts for IntxFakeQuantize {
    fn layout(&self) -> Layout {
        Layout::Rows
    }

    /// At the first reported group: [`crate::Fixed::GroupInt`].
    fn freeze(&self, report: &Report) -> Option<Frozen> {
        freeze_at(report, |p| self.at(p))
    }

    fn inert(&self) -> Vec<&'static str> {
        Vec::new()
    }

    /// N bits plus a float16 scale per group, and a float16 zero point per group when asymmetric:
    /// int4 in groups of 32 is 4.5 symmetric, 5 asymmetric.
    fn bits_per_element(&self) -> Option<f32> {
        let (lo, hi) = self.dtype.bounds();
        Some(bits_with_overhead(lo, hi, self.group_size, !self.is_symmetric))
    }

    fn block_size(&self) -> Option<usize> {
        Some(self.group_size as usize)
    }

    /// Each group's scale (and zero point) is its own.
    fn blocks_independent(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(q: &IntxFakeQuantize, x: &[f32]) -> (Vec<f32>, Vec<f32>) {
        let (mut y, mut g) = (vec![0.0; x.len()], vec![0.0; x.len()]);
        q.apply(x, &mut y, Some(&mut g), &mut Ctx::training(0));
        (y, g)
    }

    #[test]
    fn dtypes_bound_the_codes_as_torchao() {
        assert_eq!(IntxDtype::Int2.bounds(), (-2, 1));
        assert_eq!(IntxDtype::Int4.bounds(), (-8, 7));
        assert_eq!(IntxDtype::Int8.bounds(), (-128, 127));
    }

    #[test]
    fn the_gradient_vanishes_where_the_code_lands_on_a_bound() {
        // torchao's own example: amax 8 → s = 8/7.5; 7 rounds to code 7 = quant_max.
        let x = [-3.0, -1.0, 0.0, 1.0, 2.5, 7.0, -8.0, 4.0];
        let (y, g) = eval(&IntxFakeQuantize { group_size: 8, ..IntxFakeQuantize::default() }, &x);
        assert_eq!(g, [1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0]);
        assert_eq!(y[5], -y[6], "−8·(1/s) rounds to −7 here, not to the bound");
    }

    #[test]
    fn asymmetric_keeps_a_positive_group_on_its_values() {
        // torchao 0.18 gives −5.33 everywhere here; the affine asymmetric scheme does not.
        let x: Vec<f32> = (0..32).map(|i| 10.0 + i as f32 * 10.0 / 31.0).collect();
        let (y, _) = eval(&IntxFakeQuantize { is_symmetric: false, ..IntxFakeQuantize::default() }, &x);
        assert!(x.iter().zip(&y).all(|(a, b)| (a - b).abs() <= 20.0 / 15.0 / 2.0 + 1e-5), "{y:?}");
    }

    #[test]
    fn bits_count_a_float16_scale_per_group_and_a_zero_point_when_asymmetric() {
        assert_eq!(IntxFakeQuantize::default().bits_per_element(), Some(4.5));
        let asym = IntxFakeQuantize { is_symmetric: false, ..IntxFakeQuantize::default() };
        assert_eq!(asym.bits_per_element(), Some(5.0));
    }
}
