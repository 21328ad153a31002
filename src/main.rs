//! The browser app's entry point: it only mounts (see `qscope::app`).

#[cfg(all(target_arch = "wasm32", feature = "web"))]
fn main() {
    qscope::app::start();
}

#[cfg(not(all(target_arch = "wasm32", feature = "web")))]
fn main() {
    eprintln!("qscope-web runs in the browser: build and serve it with `scripts/dev serve`.");
    eprintln!("The native command line is `qscope` (cargo run --release --bin qscope -- --help).");
}
