//! What the test binaries share: running the CLI, reading SVG figures, reference vectors.

#[cfg(not(target_arch = "wasm32"))]
pub mod cli;
#[cfg(not(target_arch = "wasm32"))]
pub mod svg;
pub mod vectors;
