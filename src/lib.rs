//! qscope: an interactive quantizer explorer.
//!
//! [`quant`] holds the kernels (pure Rust, no web dependency): every QKeras and Larq
//! quantizer and the classic straight-through estimators, with exact forward values and
//! gradients, parsed from and printed to one spec syntax.

pub mod quant;
