//! PyTorch for ml_dtypes' element casts: the cast in the library's own terms (numpy through
//! `ml_dtypes`), its value returned exactly with gradient 1. The gradient is an
//! `autograd.Function`'s, not `q - (x.detach() - x)`: float4/6 cast a NaN to 0, and that
//! form would put the NaN back.

use super::Torch;
use crate::code::Agreement;
use qscope_quant::ml_dtypes::*;

/// The cast of `x` through numpy and the dtype, with the straight-through gradient.
fn cast(f: Format) -> String {
    format!(
        "import numpy as np, ml_dtypes\n\
         class Cast(torch.autograd.Function):  # value: the cast, exactly; gradient: 1 (straight-through)\n    \
         @staticmethod\n    \
         def forward(ctx, x):\n        \
         return torch.from_numpy(x.detach().numpy().astype(ml_dtypes.{}).astype(np.float32))\n    \
         @staticmethod\n    \
         def backward(ctx, g):\n        \
         return g\n\
         y = Cast.apply(x)",
        f.name
    )
}

macro_rules! torch {
    ($($ty:ident),*) => {$(
        impl Torch for $ty {
            fn torch(&self) -> String {
                cast(Self::FORMAT)
            }

            fn agreement(&self) -> Agreement {
                Agreement::Exact
            }
        }
    )*};
}
each_cast!(torch);
