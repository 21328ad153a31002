//! Small multilayer perceptrons with quantized weights and activations (pure Rust, shared by
//! the browser trainer and the CLI). [`linalg`] holds the dense-layer loops (f32x4 in WASM).

pub mod linalg;
