//! qscope's kernels, the `qscope-kernels` package: [`quant`] (every quantizer and
//! straight-through estimator, exact forward values and gradients, parsed from and printed to
//! one spec syntax) and [`nn`] (the MLP engine the Train view and `qscope train` run), and
//! [`bench`], the benchmark workloads.
//!
//! A package of its own so that the page's `web` profile compiles these hot loops at
//! opt-level 3 while the analysis model and the drawing (`qscope-explore`) and the UI are
//! compiled for size. Use them through the `qscope` crate: `qscope::quant`, `qscope::nn`.

pub mod bench;
pub mod nn;
pub mod quant;
