//! The browser explorer (wasm32 with the `web` feature): a Leptos app that parses a spec,
//! evaluates the quantizer with the kernels in [`crate::quant`] and draws the forward and
//! backward curves with [`crate::plot`] on HiDPI canvases.
//!
//! State flows one way: the committed spec text (a signal) → the parse result → the last good
//! quantizer → its evaluation over the x sweep (memos) → the canvases (the only effects) and
//! the readout.

mod canvas;
mod panic;
mod view;

/// Installs the panic hook (a visible banner and `console.error`) and mounts the app.
pub fn start() {
    panic::install();
    leptos::mount::mount_to_body(view::App);
}
