//! Batch normalization after a hidden layer's dense product, as Keras' `BatchNormalization()`
//! (momentum 0.99, ε = 10⁻³, γ = 1, β = 0, moving mean 0 and variance 1 at the start) on a
//! rank-2 input — binary nets rarely train without it.
//!
//! Forward over a batch of `m` rows, per unit: training mode takes the batch's mean `μ` and
//! variance `σ² = mean((z − μ)²)` (`tf.nn.moments`), evaluation mode the moving ones; both
//! then compute `tf.nn.batch_normalization`'s `y = z·s + (β − μ·s)` with `s = γ/√(σ² + ε)`.
//! Training also moves the statistics as Keras' `assign_moving_average`:
//! `v ← v − (v − batch)·(1 − momentum)`.
//! Backward, from `g = ∂L/∂y` and `ẑ = (z − μ)/√(σ² + ε)`: `∂L/∂β = Σ g`, `∂L/∂γ = Σ g·ẑ`, and
//! through the batch statistics `∂L/∂z = (s/m)·(m·g − ∂L/∂β − ẑ·∂L/∂γ)`.

use super::optim::{OptimizerState, Update};

/// Keras' defaults.
pub const MOMENTUM: f32 = 0.99;
pub const EPSILON: f32 = 1e-3;

/// One batch-normalization layer over `n` units, its parameters, statistics and buffers.
#[derive(Clone, Debug)]
pub struct BatchNorm {
    gamma: Vec<f32>,
    beta: Vec<f32>,
    moving_mean: Vec<f32>,
    moving_var: Vec<f32>,
    /// `ẑ` of the last training batch (`batch × n`).
    zhat: Vec<f32>,
    /// Per unit, of the last forward pass: the mean and variance used, `1/√(σ² + ε)`, the scale
    /// `s = γ/√(σ² + ε)` and the shift `β − μ·s`.
    mean: Vec<f32>,
    var: Vec<f32>,
    inv: Vec<f32>,
    scale: Vec<f32>,
    shift: Vec<f32>,
    g_gamma: Vec<f32>,
    g_beta: Vec<f32>,
    s_gamma: OptimizerState,
    s_beta: OptimizerState,
}

impl BatchNorm {
    /// Keras' starting point, with buffers for batches of up to `batch` rows.
    pub fn new(n: usize, batch: usize) -> BatchNorm {
        BatchNorm {
            gamma: vec![1.0; n],
            beta: vec![0.0; n],
            moving_mean: vec![0.0; n],
            moving_var: vec![1.0; n],
            zhat: vec![0.0; batch * n],
            mean: vec![0.0; n],
            var: vec![0.0; n],
            inv: vec![0.0; n],
            scale: vec![0.0; n],
            shift: vec![0.0; n],
            g_gamma: vec![0.0; n],
            g_beta: vec![0.0; n],
            s_gamma: OptimizerState::new(n),
            s_beta: OptimizerState::new(n),
        }
    }

    pub fn gamma(&self) -> &[f32] {
        &self.gamma
    }

    pub fn beta(&self) -> &[f32] {
        &self.beta
    }

    pub fn moving_mean(&self) -> &[f32] {
        &self.moving_mean
    }

    pub fn moving_variance(&self) -> &[f32] {
        &self.moving_var
    }

    /// `∂L/∂γ` and `∂L/∂β` of the last backward pass.
    pub fn grads(&self) -> (&[f32], &[f32]) {
        (&self.g_gamma, &self.g_beta)
    }

    /// Sets γ, β and the moving statistics (from another library's model).
    pub fn set(&mut self, gamma: &[f32], beta: &[f32], mean: &[f32], var: &[f32]) {
        self.gamma.copy_from_slice(gamma);
        self.beta.copy_from_slice(beta);
        self.moving_mean.copy_from_slice(mean);
        self.moving_var.copy_from_slice(var);
    }

    /// Normalizes the `m` rows of `z` (`m × n`) in place; in training, from the batch's own
    /// statistics, which then move the moving ones.
    pub fn forward(&mut self, z: &mut [f32], m: usize, training: bool) {
        let n = self.gamma.len();
        let z = &mut z[..m * n];
        if training {
            batch_moments(z, m, &mut self.mean, &mut self.var);
            let decay = 1.0 - MOMENTUM;
            for j in 0..n {
                self.moving_mean[j] -= (self.moving_mean[j] - self.mean[j]) * decay;
                self.moving_var[j] -= (self.moving_var[j] - self.var[j]) * decay;
            }
        } else {
            self.mean.copy_from_slice(&self.moving_mean);
            self.var.copy_from_slice(&self.moving_var);
        }
        for j in 0..n {
            self.inv[j] = 1.0 / (self.var[j] + EPSILON).sqrt();
            self.scale[j] = self.inv[j] * self.gamma[j];
            self.shift[j] = self.beta[j] - self.mean[j] * self.scale[j];
        }
        for (r, row) in z.chunks_exact_mut(n).enumerate() {
            if training {
                let zhat = &mut self.zhat[r * n..(r + 1) * n];
                for (((h, &v), mu), inv) in zhat.iter_mut().zip(row.iter()).zip(&self.mean).zip(&self.inv) {
                    *h = (v - mu) * inv;
                }
            }
            for ((v, s), c) in row.iter_mut().zip(&self.scale).zip(&self.shift) {
                *v = *v * s + c;
            }
        }
    }

    /// Turns `g = ∂L/∂y` (`m × n`, in place) into `∂L/∂z` through the last training batch's
    /// statistics, keeping `∂L/∂γ` and `∂L/∂β`.
    pub fn backward(&mut self, g: &mut [f32], m: usize) {
        let n = self.gamma.len();
        let g = &mut g[..m * n];
        self.g_gamma.fill(0.0);
        self.g_beta.fill(0.0);
        for (row, zhat) in g.chunks_exact(n).zip(self.zhat.chunks_exact(n)) {
            for j in 0..n {
                self.g_beta[j] += row[j];
                self.g_gamma[j] += row[j] * zhat[j];
            }
        }
        let count = m as f32;
        for (row, zhat) in g.chunks_exact_mut(n).zip(self.zhat.chunks_exact(n)) {
            for j in 0..n {
                let k = self.scale[j] / count;
                row[j] = k * (count * row[j] - self.g_beta[j] - zhat[j] * self.g_gamma[j]);
            }
        }
    }

    /// One optimizer step on γ and β (no penalties, as on biases).
    pub fn update(&mut self, step: &Update) {
        step.apply(&mut self.gamma, &self.g_gamma, &mut self.s_gamma);
        step.apply(&mut self.beta, &self.g_beta, &mut self.s_beta);
    }
}

/// Each column's mean and variance over the `m` rows of `z` (`m × n`): `tf.nn.moments`, the
/// variance as the mean of squared deviations from the mean.
fn batch_moments(z: &[f32], m: usize, mean: &mut [f32], var: &mut [f32]) {
    let n = mean.len();
    mean.fill(0.0);
    var.fill(0.0);
    for row in z.chunks_exact(n) {
        for (s, v) in mean.iter_mut().zip(row) {
            *s += v;
        }
    }
    let count = m as f32;
    mean.iter_mut().for_each(|s| *s /= count);
    for row in z.chunks_exact(n) {
        for ((s, v), mu) in var.iter_mut().zip(row).zip(mean.iter()) {
            let d = v - mu;
            *s += d * d;
        }
    }
    var.iter_mut().for_each(|s| *s /= count);
}
