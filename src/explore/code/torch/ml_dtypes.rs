//! PyTorch for ml_dtypes' element casts: the cast in the library's own terms (numpy through
//! `ml_dtypes`), its value returned exactly with gradient 1.

use super::{Torch, custom_grad};
use crate::explore::code::Agreement;
use crate::quant::ml_dtypes::*;

/// The cast of a detached `x` through numpy and the dtype, with the straight-through gradient.
fn cast(f: Format) -> String {
    format!(
        "import numpy as np, ml_dtypes\n\
         q = torch.from_numpy(x.detach().numpy().astype(ml_dtypes.{}).astype(np.float32))\n{}",
        f.name,
        custom_grad("1")
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
