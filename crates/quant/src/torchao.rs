//! torchao 0.18's low-precision formats, bit for bit: each is torchao's own arithmetic (where
//! it computes in float64, where it rounds, what it divides by) around the element casts of
//! [`super::ml_dtypes`], which are written once there and reused here.
//!
//! - [`float8`]: tensorwise scaled FP8, as float8 training computes it
//!   (`hp_tensor_to_float8_dynamic(...).to_original_precision()`).
//! - [`affine`]: group-wise integers, as the affine quant primitives compute them
//!   (`choose_qparams_affine` → `quantize_affine` → `dequantize_affine`).
//! - [`intx`]: group-wise integer QAT, as `IntxFakeQuantizer` computes it (forward and gradient).
//! - [`groups`]: the group arithmetic both integer formats share.
//! - [`mx`]: the OCP MX block formats (`MXTensor.to_mx(...).dequantize()`), E8M0 block scales.
//! - [`nvfp4`]: NVFP4 (`NVFP4Tensor.to_nvfp4(...).dequantize()`), E4M3 block scales under an
//!   optional per-tensor scale.

pub mod affine;
pub mod float8;
pub mod groups;
pub mod intx;
pub mod mx;
pub mod nvfp4;

pub use affine::*;
pub use float8::*;
pub use groups::{GroupCodes, MappingType, Path, QParams};
pub use intx::*;
pub use mx::*;
pub use nvfp4::*;
