//! Scaled FP8 as torchao 0.18's float8 training computes it, tensorwise:
//! `hp_tensor_to_float8_dynamic(x, dtype, LinearMMConfig(), round_scales_to_power_of_2=…)`
//! followed by `.to_original_precision()` (tests/conformance/torchao.txt holds it to the bit).
//!
//! What torchao computes (torchao/float8/float8_utils.py, float8_training_tensor.py):
//! 1. `amax = max|x|` in float32 (`torch.max(torch.abs(x))`: a NaN anywhere makes it NaN);
//! 2. `scale = float32(finfo.max / clamp(float64(amax), min=1e-12))` — in float64, then rounded
//!    once to float32; with `round_scales_to_power_of_2`, `exp2(floor(log2(scale)))` in float32,
//!    where log2 is rounded to float32 first: a scale just below 2^k has log2 rounding to k, so
//!    it becomes 2^k — up, not down, although torchao's doc says "round down";
//! 3. `fp8(clamp(x·scale, −max, max))`: the product in float32, saturated, then cast (round to
//!    nearest even; NaN stays NaN) — the cast is ml_dtypes' [`Format::cast`];
//! 4. `data / scale` in float32 (a division, not a multiplication by the reciprocal).
//!
//! Gradient: torchao's `_ToFloat8ConstrFunc` and `_FromFloat8ConstrFunc` both pass the incoming
//! gradient through unchanged and the scale is computed under `no_grad`, so `∂(Σy)/∂x = 1`
//! everywhere — at NaN, ±inf and saturated inputs too (checked in torch 2.15 and 2.10).

use crate::Layout;
use std::marker::PhantomData;

use super::mx::{ConstFormat, E4M3, E5M2};
use crate::blocks;
use crate::frozen::{Fixed, Frozen};
use crate::lane::Lane;
use crate::ml_dtypes::{Float8E4M3Fn, Float8E5M2, Format};
use crate::schema::{Kind, choice, quantizer};
use crate::simd::{self, Op};
use crate::{Ctx, Facts, Kernel, Levels, Report};

choice! {
    /// torchao's FP8 element dtype (`torch.float8_e4m3fn` or `torch.float8_e5m2`).
    Float8Dtype { E4M3Fn = "float8_e4m3fn", E5M2 = "float8_e5m2" }
}

impl Float8Dtype {
    /// The element format, as ml_dtypes defines it (torch's dtypes of the same names agree).
    pub fn format(self) -> Format {
        match self {
            Float8Dtype::E4M3Fn => Float8E4M3Fn::FORMAT,
            Float8Dtype::E5M2 => Float8E5M2::FORMAT,
        }
    }
}

/// torchao's `EPS`: the smallest amax a scale is computed from.
pub const EPS: f64 = 1e-12;

quantizer! {
    /// FP8 with one scale per tensor, from its amax, as torchao's float8 training scales a
    /// tensor before a float8 matmul and what the matmul sees of it, divided back. The scale is
    /// the tensor's; qscope draws it frozen at the sample's scale.
    pub struct Float8: Torchao "float8" {
        summary: "FP8 with a per-tensor scale max/amax: x·s saturated to ±max, cast, ÷s (float8 training)",
        forward: "s = f32(max / max(f64(amax), 1e−12)), with round_scales_to_power_of_2 2^⌊log2 s⌋;  \
                  q(x) = fp8(clamp(x·s, −max, max)) / s",
        backward: "∂q/∂x = 1 (torchao's to- and from-float8 functions pass the gradient through; s has none)",
        figure: {
            args: "",
            x: (-2.0, 2.0),
            why: "the default E4M3, scaled by 448/amax of the sample tensor N(0, 0.5²): fine steps, saturating at \
                  the sample's amax",
        },
        /// The FP8 element dtype.
        float8_dtype: Float8Dtype = Float8Dtype::E4M3Fn, Kind::Choice(Float8Dtype::CHOICES);
        /// Round the scale to a power of two: 2^⌊log2 s⌋ with log2 rounded to float32 first.
        round_scales_to_power_of_2: bool = false, Kind::Bool;
    }
}

/// torchao's `amax_to_scale`: `float32(max / clamp(float64(amax), min=EPS))` (NaN stays NaN),
/// then, if asked, `exp2(floor(log2(scale)))` in float32.
pub fn amax_to_scale(amax: f32, format: Format, round_scales_to_power_of_2: bool) -> f32 {
    let a = if amax.is_nan() { f64::NAN } else { f64::from(amax).max(EPS) };
    let scale = (f64::from(format.max()) / a) as f32;
    if round_scales_to_power_of_2 { round_scale_down_to_power_of_2(scale) } else { scale }
}

/// torchao's `_round_scale_down_to_power_of_2`: `exp2(floor(log2(s)))` in float32. torch's
/// float32 log2 is correctly rounded here (checked on 200 000 scales, every float within 40
/// ulps below a power of two among them), so it is log2 in float64 rounded to float32: a
/// scale just below 2^k rounds to 2^k.
pub fn round_scale_down_to_power_of_2(scale: f32) -> f32 {
    let l = (f64::from(scale).log2() as f32).floor();
    if l.is_nan() { f32::NAN } else { <f32 as Lane>::pow2(l) }
}

/// The elementwise part at a fixed scale: `fp8(clamp(x·s, ±max)) / s`, gradient 1. The kernel
/// runs it at the tensor's scale; the explorer's frozen form at the sample's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScaledCast {
    pub format: Format,
    pub scale: f32,
}

impl Op for ScaledCast {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        (scaled_cast(self.format, self.scale, x), V::splat(1.0))
    }
}

/// `fp8(clamp(x·s, −max, max)) / s`. `torch.clamp` is `t.pmin(max).pmax(−max)`: a NaN stays
/// NaN (pmin/pmax keep their first operand when the comparison fails), and the clamped value is
/// cast without an overflow test ([`Format::cast_clamped`]; a NaN stays a NaN).
#[inline(always)]
pub fn scaled_cast<V: Lane>(format: Format, scale: f32, x: V) -> V {
    let (s, max) = (V::splat(scale), V::splat(format.max()));
    format.cast_clamped((x * s).pmin(max).pmax(-max)) / s
}

/// A [`ScaledCast`] whose format `F` is fixed at compile time (the kernel's op: the format's
/// constants fold into the loop).
#[derive(Clone, Copy, Debug)]
struct TypedScaledCast<F> {
    scale: f32,
    format: PhantomData<F>,
}

impl<F: ConstFormat> Op for TypedScaledCast<F> {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        (scaled_cast(F::FORMAT, self.scale, x), V::splat(1.0))
    }
}

impl ScaledCast {
    /// Every finite output: each of the format's values divided by the scale (as the forward
    /// divides, in float32).
    pub fn levels(&self) -> Levels {
        Levels::set(self.format.levels().into_iter().map(|v| v / self.scale).filter(|v| v.is_finite()).collect())
    }

    /// Evaluates a slice and reports the scale.
    pub fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>) -> Report {
        simd::run(self, x, y, dydx);
        Report { scale: Some(self.scale), ..Report::default() }
    }
}

impl Float8 {
    /// The elementwise cast at `scale`.
    pub fn at(&self, scale: f32) -> ScaledCast {
        ScaledCast { format: self.float8_dtype.format(), scale }
    }
}

impl Kernel for Float8 {
    fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, _: &mut Ctx) -> Report {
        // `torch.max(torch.abs(x))`: the whole tensor is one block.
        let amax = blocks::amax(x);
        let scale = amax_to_scale(amax, self.float8_dtype.format(), self.round_scales_to_power_of_2);
        match self.float8_dtype {
            Float8Dtype::E4M3Fn => simd::run(&TypedScaledCast::<E4M3> { scale, format: PhantomData }, x, y, dydx),
            Float8Dtype::E5M2 => simd::run(&TypedScaledCast::<E5M2> { scale, format: PhantomData }, x, y, dydx),
        }
        Report { amax: Some(amax), scale: Some(scale), ..Report::default() }
    }

    /// The FP8 values divided by the reported scale (scale 1 without a report).
    fn levels(&self, report: &Report) -> Levels {
        self.at(report.scale.unwrap_or(1.0)).levels()
    }
}

impl Facts for Float8 {
    fn layout(&self) -> Layout {
        Layout::Flat
    }

    /// The scale is always the tensor's; torchao's `hp_tensor_and_scale_to_float8` takes a
    /// given one, but the spec has no parameter for it: [`Fixed::ScaledFloat8`].
    fn freeze(&self, report: &Report) -> Option<Frozen> {
        Some(Frozen::Fixed(Fixed::ScaledFloat8(self.at(report.scale.unwrap_or(f32::NAN)))))
    }

    fn inert(&self) -> Vec<&'static str> {
        Vec::new()
    }

    fn element_format(&self) -> Option<Format> {
        Some(self.float8_dtype.format())
    }

    /// 8 bits an element, whatever the tensor (its one float32 scale is shared by all of them):
    /// counting the levels a report gives would read a tensor with ±inf, whose scale is 0, as
    /// one level and 1 bit.
    fn bits_per_element(&self) -> Option<f32> {
        Some(8.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_element_costs_8_bits_even_on_a_tensor_with_an_infinity() {
        let q = crate::parse("torchao.float8").unwrap();
        let (_, _, report) = q.eval(&[0.5, f32::INFINITY, -1.0], &mut crate::Ctx::training(0));
        assert_eq!(q.bits_per_element(&report), Some(8.0));
    }

    #[test]
    fn the_scale_is_computed_in_float64_and_rounded_once() {
        // 448/3 in float64 is 149.333…; float32 rounds it once.
        assert_eq!(amax_to_scale(3.0, Float8E4M3Fn::FORMAT, false), (448.0f64 / 3.0) as f32);
        assert_eq!(amax_to_scale(0.0, Float8E4M3Fn::FORMAT, false), (448.0 / 1e-12) as f32);
        assert!(amax_to_scale(f32::NAN, Float8E5M2::FORMAT, false).is_nan());
        assert_eq!(amax_to_scale(f32::INFINITY, Float8E5M2::FORMAT, false), 0.0);
    }

    #[test]
    fn the_pmin_pmax_clamp_and_the_typed_kernel_give_the_select_formulas_bits() {
        // The formula before pmin/pmax: torch.clamp as two selects.
        fn selects(c: &ScaledCast, x: f32) -> f32 {
            let t = crate::torchao::mx::tests::select_clamp(x * c.scale, c.format.max());
            c.format.cast(t) / c.scale
        }
        for dtype in [Float8Dtype::E4M3Fn, Float8Dtype::E5M2] {
            let q = Float8 { float8_dtype: dtype, round_scales_to_power_of_2: false };
            for scale in [1.0, 149.333_33, 3e-30, 7e20, 0.0, f32::INFINITY] {
                let c = q.at(scale);
                let x: Vec<f32> = crate::torchao::mx::tests::sweep().collect();
                let mut y = vec![0.0; x.len()];
                match dtype {
                    Float8Dtype::E4M3Fn => {
                        simd::run(&TypedScaledCast::<E4M3> { scale, format: PhantomData }, &x, &mut y, None)
                    }
                    Float8Dtype::E5M2 => {
                        simd::run(&TypedScaledCast::<E5M2> { scale, format: PhantomData }, &x, &mut y, None)
                    }
                }
                for (&x, &typed) in x.iter().zip(&y) {
                    let (new, old) = (c.eval(x).0, selects(&c, x));
                    let same = |a: f32| a.to_bits() == old.to_bits() || a.is_nan() && old.is_nan();
                    assert!(same(new) && same(typed), "{dtype:?} at {scale}: {x:e}");
                }
            }
        }
    }

    #[test]
    fn a_power_of_two_scale_rounds_down_except_just_below_a_power_of_two() {
        assert_eq!(round_scale_down_to_power_of_2(149.33), 128.0);
        assert_eq!(round_scale_down_to_power_of_2(128.0), 128.0);
        // log2 of the float below 128 rounds to 7 in float32: torchao gives 128, not 64.
        assert_eq!(round_scale_down_to_power_of_2(128.0f32.next_down()), 128.0);
        assert_eq!(round_scale_down_to_power_of_2(0.0), 0.0);
    }
}
