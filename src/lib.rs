//! qscope: an interactive quantizer explorer.
//!
//! [`quant`] holds the kernels (pure Rust, no web dependency): every QKeras and Larq
//! quantizer and the classic straight-through estimators, with exact forward values and
//! gradients, parsed from and printed to one spec syntax. [`plot`] draws their curves with
//! plotters on any backend. The browser explorer is a crate of its own, `qscope-web` in `web/`.

pub mod bench;
pub mod explore;
pub mod nn;
pub mod plot;
pub mod quant;
