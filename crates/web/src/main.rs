//! The browser app's entry point, `qscope-web`: it only mounts the explorer (`qscope-app`,
//! crates/app/). See crates/web/Cargo.toml for why the entry point and the UI are packages of their own.

#[cfg(target_arch = "wasm32")]
fn main() {
    qscope_app::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("qscope-web runs in the browser: build and serve it with `scripts/dev serve`.");
    eprintln!("The native command line is `qscope` (cargo run --release --bin qscope -- --help).");
}
