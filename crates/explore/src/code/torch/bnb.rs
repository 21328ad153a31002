//! PyTorch for bitsandbytes' 4-bit formats: `quantize_4bit` and `dequantize_4bit` as a user
//! calls them, the value returned exactly with gradient 1 (bitsandbytes' functions have no
//! autograd; an `autograd.Function`, as ml_dtypes' casts, keeps an inf's value where
//! `q - (x.detach() - x)` would turn it into NaN).

use super::Torch;
use crate::code::Agreement;
use qscope_quant::bnb::{Fp4, Nf4, Table};

/// The round trip of `x` through bitsandbytes, with the straight-through gradient.
fn round_trip(table: Table, blocksize: i32) -> String {
    format!(
        "import bitsandbytes.functional as bnbf\n\
         class Bnb4bit(torch.autograd.Function):  # value: bitsandbytes' round trip; gradient: 1 (straight-through)\n    \
         @staticmethod\n    \
         def forward(ctx, x):\n        \
         q, state = bnbf.quantize_4bit(x.detach(), blocksize={blocksize}, quant_type='{}')\n        \
         return bnbf.dequantize_4bit(q, state)\n    \
         @staticmethod\n    \
         def backward(ctx, g):\n        \
         return g\n\
         y = Bnb4bit.apply(x)",
        table.name()
    )
}

macro_rules! torch {
    ($($ty:ident),*) => {$(
        impl Torch for $ty {
            fn torch(&self) -> String {
                round_trip(Self::TABLE, self.blocksize)
            }

            fn agreement(&self) -> Agreement {
                Agreement::Exact
            }
        }
    )*};
}
torch!(Nf4, Fp4);
