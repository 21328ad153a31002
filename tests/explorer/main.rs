//! The explorer's model: its state and link, the sample tensor's settings, the page's keys, the reference, figures and code that agrees with the libraries.

#[allow(dead_code)]
#[path = "../common/mod.rs"]
mod common;

mod explore;
mod page;
#[cfg(not(target_arch = "wasm32"))]
mod reference;
mod settings;
mod snippets;
mod state;
mod state_block;
#[cfg(not(target_arch = "wasm32"))]
mod svg;
mod torch_snippets;
