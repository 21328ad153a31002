//! qscope's analysis model and drawing, the `qscope-explore` package: [`explore`] (what the
//! explorer, the CLI and the lessons show about a quantizer) and [`plot`] (its figures, with
//! plotters on any backend).
//!
//! A package of its own so that the page's `web` profile compiles it for size while the
//! kernels (`qscope-kernels`, re-exported here as [`quant`] and [`nn`] so that `crate::quant`
//! reads the same in every file) keep opt-level 3. Use it through the `qscope` crate:
//! `qscope::explore`, `qscope::plot`.

pub use qscope_kernels::{nn, quant};

pub mod explore;
pub mod plot;
