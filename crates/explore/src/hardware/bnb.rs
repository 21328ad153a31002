//! The hardware facts of bitsandbytes' 4-bit formats: a 4-bit index into a table of sixteen
//! values times a float32 absmax per block, and what one element does to its block.

use super::{Hardware, Warnings};
use qscope_quant::bnb::{Fp4, Nf4};

/// Warnings both formats share.
fn block_warnings(blocksize: i32, w: &mut Warnings) {
    w.push(format!(
        "The absmax is the block's ({blocksize} elements): one outlier coarsens its whole block, a NaN makes the block \
         NaN, and an inf turns its finite neighbours into NaN (0 · inf)."
    ));
    w.push(
        "A length that is not a multiple of blocksize ends with a shorter block that divides by its absmax where full \
         blocks multiply by its reciprocal: the same value can get another code there.",
    );
}

impl Hardware for Nf4 {
    fn not_fixed_point(&self) -> Option<&'static str> {
        Some(
            "a 4-bit index into sixteen normal quantiles (not equally spaced) times a float32 absmax per block: \
             dequantization is a table look-up and a multiply, no fixed-point type holds the values",
        )
    }

    fn warnings(&self, w: &mut Warnings) {
        block_warnings(self.blocksize, w);
    }
}

impl Hardware for Fp4 {
    fn not_fixed_point(&self) -> Option<&'static str> {
        Some(
            "bitsandbytes' FP4 (1 sign, 2 exponent, 1 mantissa bit, bias 2: {0, 1/16, 2, 3, 4, 6, 8, 12}/12) times a \
             float32 absmax per block: not OCP E2M1 (whose values are {0, 0.5, 1, 1.5, 2, 3, 4, 6}), and no \
             fixed-point type holds them",
        )
    }

    fn warnings(&self, w: &mut Warnings) {
        block_warnings(self.blocksize, w);
        w.push(
            "FP4 has two codes for zero; bitsandbytes' scalar CPU kernel decodes 0b1000 (0 < x ≤ 0.0026·absmax) as −0, \
             its AVX-512 kernel and its table as +0 (qscope's).",
        );
    }
}
