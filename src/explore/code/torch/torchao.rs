//! PyTorch for torchao's formats, in torchao's own terms: the library call that quantizes and
//! the one that dequantizes, so the numbers are torchao's own.

use super::Torch;
use crate::explore::code::Agreement;
use crate::quant::torchao::Float8;

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
