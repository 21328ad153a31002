//! qscope: an interactive quantizer explorer.
//!
//! [`quant`] holds the kernels (pure Rust, no web dependency): every QKeras and Larq
//! quantizer and the classic straight-through estimators, with exact forward values and
//! gradients, parsed from and printed to one spec syntax. [`plot`] draws their curves with
//! plotters on any backend. The browser explorer is a crate of its own, `qscope-web` in `web/`.
//!
//! The modules are compiled in two packages of their own, so that the page can optimize the
//! kernels for speed and the rest for size: `qscope-kernels` ([`quant`], [`nn`], [`bench`]) and
//! `qscope-explore` ([`explore`], [`plot`]). Their files stay in src/; this crate re-exports
//! them at these paths, which the CLI, the tests and the app use.

pub use qscope_explore::{explore, plot};
pub use qscope_kernels::{bench, nn, quant};
