//! Group-wise integers as torchao 0.18's quant primitives compute them, on groups of
//! `group_size` along a 1-D tensor (one row, block size `(1, group_size)`):
//!
//! ```text
//! s, z = choose_qparams_affine(x, mapping_type, (1, g), dtype, quant_min, quant_max)
//! c = quantize_affine(x, (1, g), s, z, dtype, quant_min, quant_max)
//! y = dequantize_affine(c, (1, g), s, z, dtype, quant_min, quant_max)
//! ```
//!
//! with `dtype` torch.int8 when `[quant_min, quant_max]` fits it, else torch.uint8 (the
//! dtype only bounds the range; the codes are the same). The arithmetic is in [`super::groups`]
//! (tests/conformance/torchao_affine.txt holds it to the bit). The scale is float32 (the input's
//! dtype) and the zero point int32, torchao's defaults; eps is float32's smallest normal.
//!
//! Gradient: 1 everywhere. That is qscope's definition: `quantize_affine` runs under
//! `torch.no_grad` and its integer codes carry no gradient, so torchao has none to give.

use super::groups::{self, GroupCodes, MappingType, Path, QParams, choose_qparams};
use crate::Layout;
use crate::frozen::{Fixed, Frozen};
use crate::schema::{Kind, quantizer};
use crate::{Ctx, Facts, Kernel, Levels, Report};

quantizer! {
    /// Integer codes in groups along the tensor, one float32 scale and int32 zero point per
    /// group from its min and max, as torchao's affine quant primitives compute them; the
    /// explorer draws it frozen at one group's scale and zero point.
    pub struct Affine: Torchao "affine" {
        summary: "int codes in groups, a scale and zero point per group (choose_qparams_affine → quantize_affine → dequantize_affine)",
        forward: "per group: s, z from its min and max (mapping_type);  \
                  c = clamp(round(x·(1/s)) + z, quant_min, quant_max) as an integer;  q(x) = (c − z)·s",
        backward: "∂q/∂x = 1 (qscope's definition: torchao's quantize_affine has no gradient)",
        figure: {
            args: "",
            x: (-2.0, 2.0),
            why: "the default int4 group, drawn as one block spanning the range: 16 levels of (hi − lo)/15",
        },
        /// How a group's min and max become its scale and zero point.
        mapping_type: MappingType = MappingType::Asymmetric, Kind::Choice(MappingType::CHOICES);
        /// Consecutive elements sharing a scale (a shorter tail is a group of its own).
        group_size: i32 = 32, Kind::Int { min: 1, max: 4096 };
        /// The smallest integer code.
        quant_min: i32 = -8, Kind::Int { min: -128, max: 255 };
        /// The largest integer code.
        quant_max: i32 = 7, Kind::Int { min: -128, max: 255 };
    }
}

impl Affine {
    /// The torch dtype of the codes: int8 when the range fits it, else uint8.
    pub fn dtype(&self) -> &'static str {
        if self.quant_max <= 127 { "int8" } else { "uint8" }
    }

    /// The elementwise part at one group's parameters.
    pub fn at(&self, params: QParams) -> GroupCodes {
        GroupCodes { params, quant_min: self.quant_min, quant_max: self.quant_max, path: Path::Dequantize }
    }

    /// The parameters of a group whose min and max are `min_val` and `max_val`.
    pub fn qparams(&self, min_val: f32, max_val: f32) -> QParams {
        choose_qparams(self.mapping_type, min_val, max_val, self.quant_min, self.quant_max)
    }
}

impl Kernel for Affine {
    fn validate(&self) -> Result<(), (&'static str, String)> {
        validate_range(self.quant_min, self.quant_max)
    }

    fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, _: &mut Ctx) -> Report {
        groups::run_groups(
            x,
            y,
            dydx,
            self.group_size as usize,
            self.mapping_type,
            self.at(QParams { scale: 1.0, zero_point: 0.0 }),
        )
    }

    /// Every group's `(c − z)·s` (scale 1 and the mapping's own zero point without a report).
    fn levels(&self, report: &Report) -> Levels {
        groups::union_levels(report, |p| self.at(p), self.qparams(-1.0, 1.0).with_scale(1.0))
    }
}

/// `quant_min < quant_max`, both within int8 or both within uint8 (torchao checks the range
/// against the dtype's).
pub(super) fn validate_range(quant_min: i32, quant_max: i32) -> Result<(), (&'static str, String)> {
    if quant_min >= quant_max {
        return Err(("quant_max", format!("quant_max ({quant_max}) must be greater than quant_min ({quant_min})")));
    }
    if quant_min < 0 && quant_max > 127 {
        return Err((
            "quant_max",
            format!("[{quant_min}, {quant_max}] fits neither int8 (−128…127) nor uint8 (0…255)"),
        ));
    }
    Ok(())
}

impl QParams {
    /// The same zero point at another scale.
    pub fn with_scale(self, scale: f32) -> QParams {
        QParams { scale, ..self }
    }
}

/// The frozen form: the group codes at the first reported group's scale and zero point (NaN
/// without one, like torchao.float8).
pub(super) fn freeze_at(report: &Report, codes: impl Fn(QParams) -> GroupCodes) -> Option<Frozen> {
    let params = report.blocks.first().map_or(QParams { scale: f32::NAN, zero_point: 0.0 }, |b| QParams {
        scale: b.scale,
        zero_point: b.zero_point.unwrap_or(0.0),
    });
    Some(Frozen::Fixed(Fixed::GroupInt(codes(params))))
}

/// Bits per element: the codes' bits plus a float16 scale per group, and a float16 zero point
/// per group where the mapping has one of its own (asymmetric; a symmetric zero point is the
/// same constant for every group).
pub(super) fn bits_with_overhead(quant_min: i32, quant_max: i32, group_size: i32, zero_point: bool) -> f32 {
    let code_bits = ((quant_max - quant_min + 1) as f64).log2().ceil() as f32;
    let per_group = if zero_point { 32.0 } else { 16.0 };
    code_bits + per_group / group_size as f32
}

impl Facts for Affine {
    fn layout(&self) -> Layout {
        Layout::Rows
    }

    /// At the first reported group: [`Fixed::GroupInt`] (the spec has no parameter for a
    /// given scale and zero point).
    fn freeze(&self, report: &Report) -> Option<Frozen> {
        freeze_at(report, |p| self.at(p))
    }

    fn inert(&self) -> Vec<&'static str> {
        Vec::new()
    }

    /// int4 in groups of 32: 4 + 32/32 = 5 asymmetric (float16 scale and zero point per group,
    /// as the issue's comparison assumes; torchao itself keeps them in the input's dtype),
    /// 4 + 16/32 = 4.5 symmetric.
    fn bits_per_element(&self) -> Option<f32> {
        let zp = self.mapping_type == MappingType::Asymmetric;
        Some(bits_with_overhead(self.quant_min, self.quant_max, self.group_size, zp))
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
    use crate::Block;

    fn eval(q: &Affine, x: &[f32]) -> (Vec<f32>, Vec<f32>, Report) {
        let (mut y, mut g) = (vec![0.0; x.len()], vec![0.0; x.len()]);
        let r = q.apply(x, &mut y, Some(&mut g), &mut Ctx::training(0));
        (y, g, r)
    }

    #[test]
    fn the_tail_is_a_shorter_group_of_its_own() {
        let q = Affine { group_size: 4, ..Affine::default() };
        let (_, _, r) = eval(&q, &[1.0, 2.0, 3.0, 4.0, -0.5, 0.25]);
        assert_eq!(r.blocks.iter().map(|b| b.len).collect::<Vec<_>>(), [4, 2]);
        assert_eq!(r.blocks[1], Block { len: 2, amax: 0.5, scale: 0.75 / 15.0, code: None, zero_point: Some(2.0) });
        // z = −8 − round(−0.5/0.05) = 2.
    }

    #[test]
    fn the_gradient_is_one_everywhere() {
        let (_, g, _) = eval(&Affine::default(), &[0.0, 1e9, f32::NAN, -3.0, f32::INFINITY]);
        assert!(g.iter().all(|&v| v == 1.0));
    }

    #[test]
    fn the_range_must_be_ordered_and_fit_int8_or_uint8() {
        assert!(validate_range(-8, 7).is_ok() && validate_range(0, 255).is_ok());
        assert_eq!(validate_range(3, 3).unwrap_err().0, "quant_max");
        assert!(validate_range(-1, 128).is_err());
    }

    #[test]
    fn bits_count_a_float16_scale_and_an_asymmetric_zero_point_per_group() {
        assert_eq!(Affine::default().bits_per_element(), Some(5.0));
        let sym = Affine { mapping_type: MappingType::Symmetric, ..Affine::default() };
        assert_eq!(sym.bits_per_element(), Some(4.5));
        let u8 = Affine { quant_min: 0, quant_max: 255, group_size: 128, ..Affine::default() };
        assert_eq!(u8.bits_per_element(), Some(8.25));
    }
}
