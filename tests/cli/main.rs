//! The command line: every subcommand, its figures, and its limits on hostile input.

#[allow(dead_code)]
#[path = "../common/mod.rs"]
mod common;

mod cli;
mod docs;
mod examples;
mod limits;
#[cfg(not(target_arch = "wasm32"))]
mod plot_cli;
#[cfg(not(target_arch = "wasm32"))]
mod sample_cli;
#[cfg(not(target_arch = "wasm32"))]
mod tensor_files;
