//! The browser explorer (wasm32): a Leptos app that compares up to six
//! quantizers, forward and backward, with controls generated from their schemas.
//!
//! A package of its own, compiled for size by Cargo.toml's `web` profile (the kernels it calls,
//! in `qscope-quant` and `qscope-nn`, stay at opt-level 3); the page's entry point is the `qscope-web` binary (crates/web/).
//! wasm32 only: natively this crate is empty.
//!
//! State flows one way: the URL hash ⇄ one [`State`](qscope_explore::state::State) signal →
//! memos (the curves, the selected quantizer's report, its run on the sample tensor…) → the
//! panels; effects sit only at the edges (canvas drawing, the URL, the clipboard, downloads).
//! Every call into [`qscope_plot`] goes through [`figure`].
//!
//! - [`shell`] — the page: title bar, banner, the three columns and the sample tensor;
//!   [`route`] — which view is mounted (switching views remounts, never reloads).
//! - left: [`picker`], [`compare`] (the list, with [`controls`] / [`widgets`] for the selected
//!   quantizer, and the [`spec_field`]);
//! - middle: [`plots`] (toolbar, canvases, crosshair readout) with [`interact`];
//! - right: [`selected`], [`quality`], [`explain`], [`code`]; bottom: [`sample`], [`blocks`]
//!   (a block format's blocks and the block its curves are drawn at) and [`formats`] (the format comparison, "which format?");
//! - [`offline`] (the service worker that keeps the site for the next visit), [`model`] (signals and memos), [`offpage`] and [`worker`] (a large tensor quantized in the
//!   page's worker, the same module started by `assets/worker.js`; [`busy`] its status line), [`hash`] (URL sync), [`export`] (PNG/SVG), [`canvas`] (the
//!   plotters backend, text measured on the canvas), [`dom`] (browser helpers), [`panic`] (a panic shows a banner).
//! - [`train`] — the Train view (`#view=train`): a small quantized MLP trained live beside its
//!   float twin.

#![cfg(target_arch = "wasm32")]

mod blocks;
mod busy;
mod canvas;
mod channels;
mod code;
mod compare;
mod controls;
mod dom;
mod explain;
mod export;
mod figure;
mod follow;
mod formats;
mod hash;
mod interact;
mod lesson;
mod model;
mod modes;
mod offline;
mod offpage;
mod panic;
mod picker;
mod plots;
mod quality;
mod route;
mod sample;
mod scan;
mod selected;
mod shell;
mod spec_field;
mod tensor;
mod train;
mod widgets;
mod worker;

pub use worker::worker_start;

/// Installs the panic hook (a visible banner and `console.error`) and mounts the app.
///
/// Never inlined: the entry point (`qscope-web`) is compiled at opt-level 3, and the app's
/// mounting code inlined there would be compiled for speed instead of size.
#[inline(never)]
pub fn start() {
    // The same module runs in the page's worker (assets/worker.js), where there is no page to
    // mount: the worker starts it with `worker_start`.
    if web_sys::window().is_none() {
        return;
    }
    panic::install();
    leptos::mount::mount_to_body(shell::App);
    offline::register();
}
