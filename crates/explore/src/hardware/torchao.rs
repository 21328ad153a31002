//! The hardware facts of torchao's formats: scaled FP8 (FP8 elements and one float32 scale per
//! tensor) and the block formats (a narrow scale per block), and what an amax does to them.

use super::{Hardware, Warnings};
use qscope_quant::AutoScale;
use qscope_quant::torchao::{Float8, Mx, Nvfp4, ScalingMode};

impl Hardware for Float8 {
    fn not_fixed_point(&self) -> Option<&'static str> {
        Some(
            "FP8 elements (sign, exponent, mantissa) times one float32 scale per tensor: the levels are not \
              equally spaced and no fixed-point type holds them",
        )
    }

    fn warnings(&self, w: &mut Warnings) {
        w.push(
            "The scale is the whole tensor's (max/amax): one outlier coarsens every other element, and a NaN or \
             ±inf anywhere makes every output NaN.",
        );
        if self.round_scales_to_power_of_2 {
            w.push(
                "round_scales_to_power_of_2 rounds the scale's float32 log2 first, so a scale just below 2^k becomes \
                 2^k, not 2^(k−1): the largest |x|·scale can then saturate at the format's max.",
            );
        }
    }
}

impl Hardware for Mx {
    fn not_fixed_point(&self) -> Option<&'static str> {
        Some(
            "FP8/FP6/FP4 elements (sign, exponent, mantissa) times an 8-bit power-of-two (E8M0) scale per block: \
             no fixed-point type holds them, and each block has its own range",
        )
    }

    fn warnings(&self, w: &mut Warnings) {
        w.push(
            "One NaN in a block makes its scale code 255 and every element of the block NaN; an inf gives its \
             block a scale near 2^127, so the block's other elements become 0.",
        );
        match self.scaling_mode {
            ScalingMode::Floor | ScalingMode::Even => w.push(
                "floor (and even) scales take amax's exponent only: amax above the element's largest value times \
                 2^⌊log2 amax⌋ saturates: an FP4 block with amax 7.5 clips it to 6.",
            ),
            ScalingMode::Ceil | ScalingMode::Rceil => w.push(
                "ceil and rceil scales never saturate the block's amax, but leave up to one binade of the element \
                 range unused: small elements fall to 0 sooner.",
            ),
        }
        if self.scaling_mode != ScalingMode::Rceil {
            w.push(
                "A block whose scale code is 0 (amax below 2^(emax − 126), emax the element's largest power of two) \
                 is divided by 2^−126 but multiplied back by 2^−127: torchao returns it halved.",
            );
        }
    }
}

impl Hardware for Nvfp4 {
    fn not_fixed_point(&self) -> Option<&'static str> {
        Some(
            "FP4 E2M1 elements times an 8-bit E4M3 scale per block of 16 (times a float32 per-tensor scale with \
             two levels): no fixed-point type holds them, and each block has its own range",
        )
    }

    fn warnings(&self, w: &mut Warnings) {
        w.push(
            "The E4M3 block scale rounds amax/6 to 3 mantissa bits, so a block's amax can land above 6·scale and \
             saturate, or below it and leave the top level unused.",
        );
        match self.per_tensor_scale {
            AutoScale::None => w.push(
                "Without a per-tensor scale the block scale is clamped to [2^−6, 448]: values beyond 6·448 = 2688 \
                 saturate, and a block whose amax is below 0.09375 keeps the coarse grid 2^−6·{0, 0.5, …, 6}.",
            ),
            AutoScale::Auto => w.push(
                "'auto' takes the per-tensor scale from the whole tensor's amax (amax/2688): an all-zero tensor \
                 divides 0 by 0 and comes back NaN, and a NaN anywhere makes every output NaN.",
            ),
            AutoScale::Value(_) => w.push(
                "A given per-tensor scale t caps the tensor at 2688·t: larger values saturate, and blocks below \
                 0.09375·t keep the coarsest block scale.",
            ),
        }
    }
}
