//! PyTorch for torchao's group-wise integers, in torchao's own terms: the quant primitives on
//! each group as a row of its own (torchao asserts whole groups; qscope's tail is a shorter
//! group, so each group is its own call), concatenated back.
//!
//! `affine` returns torchao's values with gradient 1 (an `autograd.Function`: qscope's
//! definition). `intx_fake_quantize` is `IntxFakeQuantizer`'s path (`choose_qparams_affine` and
//! `_fake_quantize_affine`, as `get_group_qparams_symmetric` and
//! `_fake_quantize_per_channel_group` call them) on detached values, with torch 2.15's clamp
//! gradient written out, so the snippet gives the same gradient under torch 2.10 as well.

use super::Torch;
use crate::code::Agreement;
use qscope_quant::torchao::{Affine, IntxFakeQuantize};

impl Torch for Affine {
    fn torch(&self) -> String {
        let (g, lo, hi, dt) = (self.group_size, self.quant_min, self.quant_max, self.dtype());
        format!(
            "from torchao.quantization.quant_primitives import (MappingType, choose_qparams_affine,\n    \
             quantize_affine, dequantize_affine)\n\
             def affine(g):  # one group as a row of its own\n    \
             g, block = g.reshape(1, -1), (1, g.numel())\n    \
             s, z = choose_qparams_affine(g, MappingType.{}, block, torch.{dt}, {lo}, {hi})\n    \
             c = quantize_affine(g, block, s, z, torch.{dt}, {lo}, {hi})\n    \
             return dequantize_affine(c, block, s, z, torch.{dt}, {lo}, {hi}).reshape(-1)\n\
             class Affine(torch.autograd.Function):  # value: torchao's per group of {g}; gradient: 1\n    \
             @staticmethod\n    \
             def forward(ctx, x):\n        \
             return torch.cat([affine(g) for g in x.detach().split({g})])\n    \
             @staticmethod\n    \
             def backward(ctx, g):\n        \
             return g\n\
             y = Affine.apply(x)",
            self.mapping_type.as_str().to_uppercase()
        )
    }

    fn agreement(&self) -> Agreement {
        Agreement::Exact
    }
}

impl Torch for IntxFakeQuantize {
    fn torch(&self) -> String {
        let (lo, hi) = self.dtype.bounds();
        let g = self.group_size;
        let qparams = if self.is_symmetric {
            format!(
                "s, z = choose_qparams_affine(g, MappingType.SYMMETRIC, block, torch.int8, {lo}, {hi},\n        \
                 scale_dtype=torch.float32, zero_point_dtype=torch.float32)  # get_group_qparams_symmetric\n    \
                 z = z.to(torch.int32)"
            )
        } else {
            format!(
                "# is_symmetric=False is broken in torchao 0.18: the affine primitives' asymmetric scheme instead\n    \
                 s, z = choose_qparams_affine(g, MappingType.ASYMMETRIC, block, torch.{}, {lo}, {hi})",
                self.dtype.as_str()
            )
        };
        format!(
            "from torchao.quantization.quant_primitives import (MappingType, choose_qparams_affine,\n    \
             _fake_quantize_affine)\n\
             def fake_quantize(x):  # IntxFakeQuantizer({}, group_size={g}) on one group as a row\n    \
             g, block = x.detach().reshape(1, -1), (1, x.numel())\n    \
             {qparams}\n    \
             q = _fake_quantize_affine(g, block, s, z, torch.int32, {lo}, {hi})\n    \
             v = torch.round(g * (1.0 / s)) + z  # the code before the clamp\n    \
             d = torch.where((v > {lo}) & (v < {hi}), s, 0.0) * (1.0 / s)  # torch 2.15's clamp gradient\n    \
             return (q - (g - x.reshape(1, -1)) * d).reshape(-1)\n\
             y = torch.cat([fake_quantize(g) for g in x.split({g})])",
            self.dtype.as_str()
        )
    }

    fn agreement(&self) -> Agreement {
        Agreement::Exact
    }
}
