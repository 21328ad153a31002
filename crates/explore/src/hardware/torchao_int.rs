//! The hardware facts of torchao's group-wise integers: integer codes times one scale per
//! group, and what a group's extremes do to its elements.

use super::{Hardware, Warnings};
use qscope_quant::torchao::{Affine, IntxFakeQuantize, MappingType};

/// What every group-wise integer format shares.
fn group_warnings(w: &mut Warnings, group_size: i32) {
    w.push(format!(
        "Each group of {group_size} consecutive elements has its own scale: one outlier coarsens its group only, \
         a NaN makes its group's outputs NaN, and the levels shown are one group's."
    ));
    w.push("A group holding ±inf gets an infinite scale: its outputs become NaN (0·inf) or ±inf.".to_string());
}

impl Hardware for Affine {
    fn warnings(&self, w: &mut Warnings) {
        group_warnings(w, self.group_size);
        if self.mapping_type == MappingType::Symmetric {
            w.push(format!(
                "symmetric maps max|x| to (quant_max − quant_min)/2 = {} steps: the positive extreme lands half a step past \
                 quant_max and is clipped (symmetric_no_clipping_err avoids that).",
                (self.quant_max - self.quant_min) as f32 / 2.0
            ));
        }
    }
}

impl Hardware for IntxFakeQuantize {
    fn warnings(&self, w: &mut Warnings) {
        group_warnings(w, self.group_size);
        w.push(
            "The gradient is 0 where the rounded code lands on quant_min or quant_max (torch 2.15's clamp; \
             torch 2.10 passed it there), and s·(1/s) in float32 elsewhere, which is not always exactly 1."
                .to_string(),
        );
        if !self.is_symmetric {
            w.push(
                "is_symmetric=False is broken in torchao 0.18 (a float zero point used as an integer code); qscope \
                 uses the affine primitives' asymmetric scheme instead."
                    .to_string(),
            );
        }
    }
}
