//! Small multilayer perceptrons with quantized weights and activations, trained live (pure
//! Rust, shared by the browser trainer and `qscope train`).
//!
//! - [`data`]: TF Playground's datasets (and moons, checkerboard, sine) and input features;
//! - [`config`]: what to train ([`Config`]), checked before training;
//! - [`layer`]: a dense layer whose weights and activations pass through any [`qscope_quant`]
//!   quantizer, gradients through its straight-through estimator;
//! - [`batchnorm`]: Keras' batch normalization after a hidden layer's product;
//! - [`learnable`]: LSQ's step and PACT's clip as parameters the optimizer steps;
//! - [`loss`], [`optim`]: squared error / cross-entropies; SGD with momentum, Adam, Larq's Bop;
//! - [`named`]: the loss, optimizer, activation and init chosen by name, parsed and printed
//!   from one list each;
//! - [`trainer`]: the training loop in slices ([`Trainer`]);
//! - [`trace`]: one training step seen from one weight ([`Trainer::step_traced`]);
//! - [`linalg`]: the dense-layer loops (f32x4 in WASM); [`detmath`]: `sin`/`cos`/`ln` with the
//!   same bits natively and in WASM, so both generate the same datasets.

pub mod batchnorm;
pub mod config;
pub mod data;
pub mod detmath;
pub mod layer;
pub mod learnable;
pub mod linalg;
pub mod loss;
pub mod named;
mod network;
pub mod optim;
pub mod table;
pub mod thinned;
pub mod trace;
pub mod trainer;

pub use config::{Act, Config, Hidden, Init};
pub use data::{Dataset, DatasetKind, Feature, Point};
pub use layer::{Layer, Learned, QuantizedTensor, Site};
pub use linalg::Activation;
pub use loss::Loss;
pub use named::Named;
pub use optim::{Optimizer, OptimizerKind};
pub use trace::{Pick, WeightTrace};
pub use trainer::{Metrics, Trainer};
