//! PyTorch for torchao's formats, in torchao's own terms: the library call that quantizes and
//! the one that dequantizes, so the numbers are torchao's own.
//!
//! The block formats run on the tensor padded with zeros to whole blocks (torchao asserts
//! whole blocks; a zero does not change a block's amax, so the tail block is qscope's) and pass
//! the gradient through an `autograd.Function`: torchao gives MX none and NVFP4 one that
//! reaches only its block scales, and qscope's is the identity.

use super::Torch;
use crate::code::Agreement;
use qscope_quant::AutoScale;
use qscope_quant::schema::fmt_float;
use qscope_quant::torchao::{Float8, Mx, NVFP4_BLOCK, Nvfp4};

impl Torch for Float8 {
    fn torch(&self) -> String {
        format!(
            "from torchao.float8.float8_scaling_utils import hp_tensor_to_float8_dynamic\n\
             from torchao.float8.float8_training_tensor import LinearMMConfig\n\
             x8 = hp_tensor_to_float8_dynamic(x, torch.{}, LinearMMConfig(), round_scales_to_power_of_2={})\n\
             y = x8.to_original_precision()  # x8._data / x8._scale, gradient passed through",
            self.float8_dtype.as_str(),
            if self.round_scales_to_power_of_2 { "True" } else { "False" }
        )
    }

    fn agreement(&self) -> Agreement {
        Agreement::Exact
    }
}

/// A block format as an `autograd.Function` named `class`: `forward` (Python lines computing
/// `y` from the 1-D `x` padded with zeros to `xp`, whole blocks of `block`) returns its value
/// exactly; the gradient is 1.
fn straight_through(imports: &str, class: &str, why: &str, block: usize, forward: &str) -> String {
    let body: String = forward.lines().map(|l| format!("        {l}\n")).collect();
    format!(
        "import torch.nn.functional as F\n\
         {imports}\n\
         class {class}(torch.autograd.Function):  # value: torchao's, exactly; gradient: 1 ({why})\n    \
         @staticmethod\n    \
         def forward(ctx, x):\n        \
         xp = F.pad(x, (0, -len(x) % {block}))  # zeros keep each block's amax: the tail is a block of its own\n\
         {body}        \
         return y[:len(x)]\n    \
         @staticmethod\n    \
         def backward(ctx, g):\n        \
         return g\n\
         y = {class}.apply(x)"
    )
}

impl Torch for Mx {
    fn torch(&self) -> String {
        straight_through(
            "from torchao.prototype.mx_formats.mx_tensor import MXTensor\n\
             from torchao.prototype.mx_formats.config import ScaleCalculationMode",
            "MX",
            "qscope's: MX defines none",
            self.block_size as usize,
            &format!(
                "y = MXTensor.to_mx(xp, {}, {}, {}).dequantize(torch.float32)",
                self.elem_dtype.torch(),
                self.block_size,
                self.scaling_mode.torch()
            ),
        )
    }

    fn agreement(&self) -> Agreement {
        Agreement::Exact
    }
}

impl Torch for Nvfp4 {
    fn torch(&self) -> String {
        let t = match self.per_tensor_scale {
            AutoScale::None => "None".to_string(),
            AutoScale::Auto => "per_tensor_amax_to_scale(torch.amax(torch.abs(x)))".to_string(),
            AutoScale::Value(v) => format!("torch.tensor({}, dtype=torch.float32)", fmt_float(v)),
        };
        straight_through(
            "from torchao.prototype.mx_formats.nvfp4_tensor import NVFP4Tensor, per_tensor_amax_to_scale",
            "NVFP4",
            "qscope's: torchao's reaches only the block scales",
            NVFP4_BLOCK,
            &format!(
                "t = {t}\n\
                 y = NVFP4Tensor.to_nvfp4(xp.reshape(1, -1), per_tensor_scale=t).dequantize(torch.float32).reshape(-1)"
            ),
        )
    }

    fn agreement(&self) -> Agreement {
        Agreement::Exact
    }
}
