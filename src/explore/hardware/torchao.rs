//! The hardware facts of torchao's scaled FP8: FP8 elements and one float32 scale per tensor,
//! and what the tensor's amax does to every element.

use super::{Hardware, Warnings};
use crate::quant::torchao::Float8;

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
