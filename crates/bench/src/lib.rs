//! Benchmark workloads shared by the native CLI (`qscope bench`) and the WASM build
//! (`scripts/dev bench`): the same kernels over the same inputs, next to a plain copy of
//! the same bytes (the memory-bandwidth limit).

use qscope_quant::{Ctx, Quantizer, parse};

pub mod train;

/// Specs benched besides the catalogue's defaults: the configurations TensorFlow.js has too
/// (tests/bench/harness.mjs `tfjsKernels`, named as there) and the data-dependent variants
/// (least-squares and power-of-two 'auto' scales, ternary weight networks' threshold).
pub const EXTRA: &[&str] = &[
    "qkeras.quantized_bits(4,0,1)",
    "qkeras.quantized_bits(4,0,1,alpha='auto')",
    "qkeras.quantized_bits(4,0,1,alpha='auto_po2')",
    "qkeras.quantized_po2(4)",
    "qkeras.ternary()",
    "qkeras.ternary(alpha='auto')",
    "larq.ste_sign",
    "larq.approx_sign",
    "larq.SteTern(ternary_weight_networks=True)",
    "qkeras.quantized_bits(4,0,1,use_stochastic_rounding=True)",
    "qkeras.stochastic_ternary(alpha='auto')",
];

/// The kernels the benchmarks measure: every catalogue entry at its library defaults, in
/// catalogue order, each followed by its [`EXTRA`] specs (an extra equal to the default
/// stands for it), so a new quantizer gets a row of its own.
pub fn kernels() -> Vec<String> {
    let extras: Vec<Quantizer> = EXTRA.iter().map(|s| parse(s).expect("EXTRA specs parse")).collect();
    let mut out = Vec::new();
    for e in qscope_quant::ENTRIES {
        let default = (e.default)();
        let mine = || EXTRA.iter().zip(&extras).filter(|(_, q)| std::ptr::eq(q.info(), e.info));
        if !mine().any(|(_, q)| *q == default) {
            out.push(default.to_string());
        }
        out.extend(mine().map(|(s, _)| s.to_string()));
    }
    out
}

/// Whether `spec` draws random numbers in training (the bench marks those rows: the aims
/// for a copy's time are the deterministic kernels').
pub fn stochastic(spec: &str) -> bool {
    parse(spec).is_ok_and(|q| q.is_stochastic(true))
}

/// One workload: a quantizer and its buffers.
pub struct Workload {
    q: Quantizer,
    x: Vec<f32>,
    y: Vec<f32>,
    g: Vec<f32>,
    ctx: Ctx,
}

impl Workload {
    pub fn new(spec: &str, n: usize) -> Result<Workload, String> {
        let q = parse(spec).map_err(|e| e.message)?;
        Ok(Workload { q, x: qscope_quant::inputs::spread(n), y: vec![0.0; n], g: vec![0.0; n], ctx: Ctx::training(0) })
    }

    /// `y = q(x)`.
    pub fn forward(&mut self) {
        self.q.apply(&self.x, &mut self.y, None, &mut self.ctx);
    }

    /// `y = q(x)` and `dydx`.
    pub fn forward_backward(&mut self) {
        self.q.apply(&self.x, &mut self.y, Some(&mut self.g), &mut self.ctx);
    }

    /// A plain copy of the input bytes to the output (the bandwidth limit).
    pub fn copy(&mut self) {
        self.y.copy_from_slice(&self.x);
    }

    /// A checksum of the outputs, so no work can be optimized away.
    pub fn checksum(&self) -> f64 {
        self.y.iter().chain(&self.g).map(|v| *v as f64).sum()
    }
}

/// Median of a set of measurements.
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

// The JavaScript harness's exports (tests/bench/): this package is never part of the page.
#[cfg(target_arch = "wasm32")]
mod wasm {
    use wasm_bindgen::prelude::*;

    /// The benchmark kernels' specs ([`super::kernels`]), for the JavaScript harness.
    #[wasm_bindgen]
    pub fn bench_kernels() -> Vec<String> {
        super::kernels()
    }

    /// Whether a benchmark kernel is stochastic in training ([`super::stochastic`]).
    #[wasm_bindgen]
    pub fn bench_stochastic(spec: &str) -> bool {
        super::stochastic(spec)
    }

    /// A benchmark workload driven from JavaScript (timing happens there).
    #[wasm_bindgen]
    pub struct WasmWorkload(super::Workload);

    #[wasm_bindgen]
    impl WasmWorkload {
        #[wasm_bindgen(constructor)]
        pub fn new(spec: &str, n: usize) -> Result<WasmWorkload, JsError> {
            super::Workload::new(spec, n).map(WasmWorkload).map_err(|e| JsError::new(&e))
        }
        pub fn forward(&mut self) {
            self.0.forward()
        }
        pub fn forward_backward(&mut self) {
            self.0.forward_backward()
        }
        pub fn copy(&mut self) {
            self.0.copy()
        }
        pub fn checksum(&self) -> f64 {
            self.0.checksum()
        }
    }

    /// A benchmark training run ([`crate::train::trainer`]) driven from JavaScript.
    #[wasm_bindgen]
    pub struct WasmTrainer(qscope_nn::Trainer);

    #[wasm_bindgen]
    impl WasmTrainer {
        /// `arch` as widths from input to output, e.g. `"2-8-8-1"`; `quantized`: 4-bit
        /// weights and activations in the hidden layers (the `:q4` rows).
        #[wasm_bindgen(constructor)]
        pub fn new(arch: &str, batch: usize, quantized: bool) -> Result<WasmTrainer, JsError> {
            let widths: Vec<usize> = arch
                .split('-')
                .map(|w| w.trim().parse())
                .collect::<Result<_, _>>()
                .map_err(|_| JsError::new(&format!("architecture {arch}: expected widths like 2-8-8-1")))?;
            crate::train::trainer(&widths, batch, quantized).map(WasmTrainer).map_err(|e| JsError::new(&e))
        }

        /// `n` training steps (forward, backward, update, re-quantize), without the
        /// end-of-epoch evaluation, as [`crate::train::measure`] natively.
        pub fn steps(&mut self, n: u32) -> Result<(), JsError> {
            for _ in 0..n {
                self.0.train_step().map_err(|e| JsError::new(&e))?;
            }
            Ok(())
        }

        /// Mean loss of the last training batch.
        pub fn loss(&self) -> f64 {
            self.0.last_loss()
        }

        /// Σ of every latent weight and bias, so no work can be optimized away.
        pub fn checksum(&self) -> f64 {
            self.0.layers().iter().flat_map(|l| l.weights().iter().chain(l.bias())).map(|&v| v as f64).sum()
        }

        /// Hidden layers plus the output layer.
        pub fn layers(&self) -> usize {
            self.0.layers().len()
        }

        /// Latent weights of a layer, `n_in × n_out` row-major.
        pub fn weights(&self, layer: usize) -> Vec<f32> {
            self.0.layers().get(layer).map_or_else(Vec::new, |l| l.weights().to_vec())
        }

        pub fn bias(&self, layer: usize) -> Vec<f32> {
            self.0.layers().get(layer).map_or_else(Vec::new, |l| l.bias().to_vec())
        }

        /// The training points' features, row-major (`points × inputs`).
        pub fn train_x(&self) -> Vec<f32> {
            qscope_nn::data::feature_matrix(&self.0.config().features, &self.0.dataset().train)
        }

        /// The training points' labels (±1).
        pub fn train_y(&self) -> Vec<f32> {
            self.0.dataset().train.iter().map(|p| p.label).collect()
        }

        /// Forward and backward without an update on the given training rows: the mean
        /// loss; [`WasmTrainer::grad_checksum`] then sums the gradients.
        pub fn loss_and_gradients(&mut self, rows: Vec<u32>) -> Result<f64, JsError> {
            let rows: Vec<usize> = rows.into_iter().map(|r| r as usize).collect();
            self.0.loss_and_gradients(&rows).map_err(|e| JsError::new(&e))
        }

        /// Σ ∂L/∂W + Σ ∂L/∂b over every layer, of the last backward pass.
        pub fn grad_checksum(&self) -> f64 {
            self.0.layers().iter().flat_map(|l| l.weight_grad().iter().chain(l.bias_grad())).map(|&v| v as f64).sum()
        }
    }

    /// Takes the scalar loop instead of SIMD (for the scalar figures of the same build).
    #[wasm_bindgen]
    pub fn set_scalar(on: bool) {
        qscope_quant::simd::force_scalar(on);
    }

    /// Whether this build has the f32x4 path.
    #[wasm_bindgen]
    pub fn simd_enabled() -> bool {
        qscope_quant::simd::SIMD
    }
}
