//! One dense layer with quantized weights and activations: forward, backward (straight-through
//! estimators from the kernels' `dydx`), update, and its preallocated buffers.
//!
//! Forward over a batch of `m` rows: `z = x·Wq + b`, `h = act(z)`, `a = q_a(h)`, where
//! `Wq = q_w(W)` is the quantized copy of the latent float weights `W` (quantized once after
//! every update, as one tensor). A block format ([`Quantizer::block_size`]) cuts along the input
//! dimension instead: each output's column of `W` and each row of `h` is a tensor of its own.
//! Backward, from `δ = ∂L/∂a`: `∂L/∂h = δ ⊙ q_a'(h)`, `∂L/∂z = ∂L/∂h ⊙ act'(z)`,
//! `∂L/∂Wq = xᵀ·∂L/∂z`, `∂L/∂W = ∂L/∂Wq ⊙ q_w'(W)` and `∂L/∂x = ∂L/∂z·Wqᵀ`; `q'` is each
//! quantizer's pseudo-gradient. Learnable quantizer parameters get `Σᵢ gᵢ·∂yᵢ/∂θ` with the
//! upstream gradient `g` at their site ([`Quantizer::weighted_grad`]).

use super::batchnorm::BatchNorm;
use super::config::Act;
use super::learnable;
use super::linalg::{affine, column_sums, matmul, matmul_at_b, transpose};
use super::optim::{OptimizerState, Update, clip_weights, is_binary};
use qscope_quant::{Ctx, Levels, Quantizer, Report};

/// Which of a layer's two quantizers: the one on its weights or the one on its activations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuantizedTensor {
    /// The weight quantizer `q_w`.
    Weights,
    /// The activation quantizer `q_a` after the activation function.
    Activation,
}

/// Which quantizer a learnable parameter belongs to (so: its input, and the upstream gradient
/// it is trained from).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Site {
    /// The weight quantizer (input `W`, upstream `∂L/∂Wq`).
    Weights,
    /// A quantizer used as the activation function (input `z`, upstream `∂L/∂h`).
    ActivationFn,
    /// The activation quantizer (input `h`, upstream `∂L/∂a`).
    Output,
}

/// A learnable quantizer parameter's value and its gradient from the last backward pass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Learned {
    pub site: Site,
    pub name: &'static str,
    pub value: f32,
    /// `∂L/∂θ = Σᵢ gᵢ·∂yᵢ/∂θ` (see [`Quantizer::weighted_grad`]).
    pub grad: f32,
}

/// A learnable quantizer parameter and its optimizer state.
#[derive(Clone, Debug)]
struct Learnable {
    site: Site,
    name: &'static str,
    grad: f32,
    state: OptimizerState,
}

/// A dense layer `n_in → n_out`, its parameters, gradients and batch buffers.
pub struct Layer {
    pub(crate) n_in: usize,
    pub(crate) n_out: usize,
    w: Vec<f32>,
    b: Vec<f32>,
    /// `q_w(W)` and `∂q_w/∂W` for the training forward pass; `wq_next` receives the next one.
    wq: Vec<f32>,
    wq_next: Vec<f32>,
    dwq: Vec<f32>,
    /// Whether every factor in `dwq` is exactly 1 (an identity STE, as quantized_bits'): the
    /// weight STE then has nothing to multiply.
    unit_ste: bool,
    /// `q_w(W)` in inference mode, for evaluation.
    wq_eval: Vec<f32>,
    /// The forward weights transposed (`n_out × n_in`), for `∂L/∂x`.
    wt: Vec<f32>,
    /// A block format's rows along the input dimension (`n_out × n_in`): its values and
    /// derivatives before they are transposed back.
    wrows: Vec<f32>,
    drows: Vec<f32>,
    gw: Vec<f32>,
    gb: Vec<f32>,
    /// None for the output layer (the loss applies its link function).
    act: Option<Act>,
    wquant: Option<Quantizer>,
    aquant: Option<Quantizer>,
    /// Whether the weight quantizer is binary ([`is_binary`]): Bop's variables, under Bop.
    binary: bool,
    // batch × n_out: pre-activation, activation, quantized activation, the activation's and
    // the activation quantizer's derivatives, and ∂L/∂(output) (overwritten going backward).
    z: Vec<f32>,
    h: Vec<f32>,
    a: Vec<f32>,
    dh: Vec<f32>,
    da: Vec<f32>,
    delta: Vec<f32>,
    sw: OptimizerState,
    sb: OptimizerState,
    learn: Vec<Learnable>,
    flips: usize,
    /// What the weight quantizer reported last (its scale sets the levels).
    wreport: Report,
    /// [`Config::weight_clip`](super::Config::weight_clip): the bound of the latent weights
    /// after each update, while the weights are quantized.
    pub(crate) weight_clip: Option<f32>,
    /// Batch normalization between the product and the activation ([`Config::batchnorm`](super::Config::batchnorm));
    /// the bias then stays 0 (Keras' `use_bias=False`: the normalization's β is the shift).
    pub(crate) bn: Option<BatchNorm>,
}

impl Layer {
    /// A layer with the given latent weights (`n_in × n_out`, row-major) and zero biases,
    /// buffers for batches of up to `batch` rows. Call [`Layer::quantize`] before use.
    pub(crate) fn new(n_in: usize, n_out: usize, w: Vec<f32>, act: Option<Act>, batch: usize) -> Layer {
        let (nw, nb) = (n_in * n_out, batch * n_out);
        assert_eq!(w.len(), nw, "layer: weight shape");
        let mut layer = Layer {
            n_in,
            n_out,
            wq: w.clone(),
            wq_next: vec![0.0; nw],
            dwq: vec![1.0; nw],
            unit_ste: true,
            wq_eval: w.clone(),
            w,
            b: vec![0.0; n_out],
            wt: vec![0.0; nw],
            wrows: vec![0.0; nw],
            drows: vec![0.0; nw],
            gw: vec![0.0; nw],
            gb: vec![0.0; n_out],
            act,
            wquant: None,
            aquant: None,
            binary: false,
            z: vec![0.0; nb],
            h: vec![0.0; nb],
            a: vec![0.0; nb],
            dh: vec![0.0; nb],
            da: vec![0.0; nb],
            delta: vec![0.0; nb],
            sw: OptimizerState::new(nw),
            sb: OptimizerState::new(n_out),
            learn: Vec::new(),
            flips: 0,
            wreport: Report::default(),
            weight_clip: None,
            bn: None,
        };
        layer.relearn();
        layer
    }

    /// `(inputs, outputs)`.
    pub fn shape(&self) -> (usize, usize) {
        (self.n_in, self.n_out)
    }

    /// Latent float weights, `n_in × n_out` row-major.
    pub fn weights(&self) -> &[f32] {
        &self.w
    }

    /// The weights the training forward pass uses: `q_w(W)`, or `W` when float.
    pub fn quantized(&self) -> &[f32] {
        if self.wquant.is_some() { &self.wq } else { &self.w }
    }

    pub fn bias(&self) -> &[f32] {
        &self.b
    }

    /// `∂L/∂W` (data loss, through the weight quantizer's STE) of the last backward pass.
    pub fn weight_grad(&self) -> &[f32] {
        &self.gw
    }

    pub fn bias_grad(&self) -> &[f32] {
        &self.gb
    }

    /// How many quantized weights changed value in the last update (0 for float weights; for
    /// a stochastic quantizer, re-drawn values count too).
    pub fn flips(&self) -> usize {
        self.flips
    }

    /// The values the quantized weights can take, at the scale of the last quantization
    /// (None for float weights).
    pub fn weight_levels(&self) -> Option<Levels> {
        self.wquant.as_ref().map(|q| q.levels(&self.wreport))
    }

    /// The batch normalization after the product, when on.
    pub fn batch_norm(&self) -> Option<&BatchNorm> {
        self.bn.as_ref()
    }

    /// The hidden activation (None for the output layer).
    pub fn activation(&self) -> Option<&Act> {
        self.act.as_ref()
    }

    pub fn quantizer(&self, tensor: QuantizedTensor) -> Option<&Quantizer> {
        match tensor {
            QuantizedTensor::Weights => self.wquant.as_ref(),
            QuantizedTensor::Activation => self.aquant.as_ref(),
        }
    }

    /// The layer's learnable quantizer parameters (LSQ steps, PACT clips).
    pub fn learned(&self) -> Vec<Learned> {
        let learned = |l: &Learnable| {
            let q = self.site(l.site)?;
            Some(Learned { site: l.site, name: l.name, value: learnable::value(q, l.name), grad: l.grad })
        };
        self.learn.iter().filter_map(learned).collect()
    }

    fn site(&self, site: Site) -> Option<&Quantizer> {
        match site {
            Site::Weights => self.wquant.as_ref(),
            Site::Output => self.aquant.as_ref(),
            Site::ActivationFn => match &self.act {
                Some(Act::Quantizer(q)) => Some(q),
                _ => None,
            },
        }
    }

    fn site_mut(&mut self, site: Site) -> Option<&mut Quantizer> {
        match site {
            Site::Weights => self.wquant.as_mut(),
            Site::Output => self.aquant.as_mut(),
            Site::ActivationFn => match &mut self.act {
                Some(Act::Quantizer(q)) => Some(q),
                _ => None,
            },
        }
    }

    /// Whether the quantizer at `site` has learnable parameters.
    fn learns(&self, site: Site) -> bool {
        self.learn.iter().any(|l| l.site == site)
    }

    /// Rebuilds the list of learnable parameters after a quantizer changed.
    fn relearn(&mut self) {
        self.learn.clear();
        for site in [Site::Weights, Site::ActivationFn, Site::Output] {
            if let Some(q) = self.site(site) {
                for &name in q.learnable() {
                    self.learn.push(Learnable { site, name, grad: 0.0, state: OptimizerState::new(1) });
                }
            }
        }
    }

    pub(crate) fn set_quantizer(&mut self, tensor: QuantizedTensor, q: Option<Quantizer>) {
        match tensor {
            QuantizedTensor::Weights => {
                self.binary = q.as_ref().is_some_and(is_binary);
                self.wquant = q;
            }
            QuantizedTensor::Activation => self.aquant = q,
        }
        self.relearn();
    }

    pub(crate) fn set_activation(&mut self, act: Act) {
        self.act = Some(act);
        self.relearn();
    }

    pub(crate) fn set_params(&mut self, w: &[f32], b: &[f32]) {
        self.w.copy_from_slice(w);
        self.b.copy_from_slice(b);
    }

    /// `Wq = q_w(W)` and `∂Wq/∂W` for the next training step (training mode); with `count`,
    /// counts the weights whose quantized value changed (else the count is 0). LSQ without a
    /// step gets its step here.
    pub(crate) fn quantize(&mut self, ctx: &mut Ctx, count: bool) {
        self.flips = 0;
        let learns_w = self.learns(Site::Weights);
        if let Some(q) = &mut self.wquant {
            let report = if q.block_size().is_some() {
                let (n_in, n_out) = (self.n_in, self.n_out);
                transpose(&self.w, &mut self.wt, n_in, n_out);
                let report = q.apply_rows(&self.wt, n_in, &mut self.wrows, Some(&mut self.drows), ctx);
                transpose(&self.wrows, &mut self.wq_next, n_out, n_in);
                transpose(&self.drows, &mut self.dwq, n_out, n_in);
                report
            } else {
                q.apply(&self.w, &mut self.wq_next, Some(&mut self.dwq), ctx)
            };
            if learns_w {
                q.init_learnable(&report);
            }
            self.wreport.scale = report.scale;
            self.wreport.threshold = report.threshold;
            self.wreport.blocks = report.blocks;
            if count {
                (self.flips, self.unit_ste) = flips_and_unit(&self.wq_next, &self.wq, &self.dwq);
            } else {
                self.unit_ste = all_ones(&self.dwq);
            }
            std::mem::swap(&mut self.wq, &mut self.wq_next);
        }
    }

    /// `q_w(W)` in inference mode, for [`Layer::forward`] with `training = false`.
    pub(crate) fn quantize_eval(&mut self, ctx: &mut Ctx) {
        if let Some(q) = &self.wquant {
            if q.block_size().is_some() {
                transpose(&self.w, &mut self.wt, self.n_in, self.n_out);
                q.apply_rows(&self.wt, self.n_in, &mut self.wrows, None, ctx);
                transpose(&self.wrows, &mut self.wq_eval, self.n_out, self.n_in);
            } else {
                q.apply(&self.w, &mut self.wq_eval, None, ctx);
            }
        }
    }

    /// Forward pass over `m` rows of `x` (`m × n_in`); derivatives are kept in training.
    pub(crate) fn forward(&mut self, x: &[f32], m: usize, training: bool, ctx: &mut Ctx) {
        let n = m * self.n_out;
        let w = match (&self.wquant, training) {
            (None, _) => &self.w,
            (Some(_), true) => &self.wq,
            (Some(_), false) => &self.wq_eval,
        };
        // Only a learnable parameter is ever fixed from a report (LSQ's step): no call else.
        let (learns_act, learns_out) = (self.learns(Site::ActivationFn), self.learns(Site::Output));
        let z = &mut self.z[..n];
        affine(&x[..m * self.n_in], w, &self.b, z, m, self.n_in, self.n_out);
        if let Some(bn) = &mut self.bn {
            bn.forward(z, m, training);
        }
        let (h, dh) = (&mut self.h[..n], training.then_some(&mut self.dh[..n]));
        match &mut self.act {
            None => return,
            Some(Act::Float(f)) => f.apply(z, h, dh),
            Some(Act::Quantizer(q)) => {
                let report = q.apply_rows(z, self.n_out, h, dh, ctx);
                if training && learns_act {
                    q.init_learnable(&report);
                }
            }
        }
        if let Some(q) = &mut self.aquant {
            let report = q.apply_rows(h, self.n_out, &mut self.a[..n], training.then_some(&mut self.da[..n]), ctx);
            if training && learns_out {
                q.init_learnable(&report);
            }
        }
    }

    /// The layer's output for `m` rows: `a`, `h` or (output layer) `z`.
    pub fn output(&self, m: usize) -> &[f32] {
        let n = m * self.n_out;
        match (&self.act, &self.aquant) {
            (None, _) => &self.z[..n],
            (Some(_), None) => &self.h[..n],
            (Some(_), Some(_)) => &self.a[..n],
        }
    }

    /// The output for `m` rows and the buffer for `∂L/∂(output)` beside it.
    pub(crate) fn output_and_delta(&mut self, m: usize) -> (&[f32], &mut [f32]) {
        let n = m * self.n_out;
        let out = match (&self.act, &self.aquant) {
            (None, _) => &self.z[..n],
            (Some(_), None) => &self.h[..n],
            (Some(_), Some(_)) => &self.a[..n],
        };
        (out, &mut self.delta[..n])
    }

    /// Backward pass for `m` rows from `self.delta = ∂L/∂(output)` (overwritten with `∂L/∂z`):
    /// `∂L/∂Wq` (the weight STE follows in [`Layer::weight_ste`]), bias and activation
    /// quantizer-parameter gradients, and `∂L/∂x` into `dx` if given.
    pub(crate) fn backward(&mut self, x: &[f32], m: usize, dx: Option<&mut [f32]>) {
        let n = m * self.n_out;
        // With nothing learned at the activation function in between, both factors in one
        // pass: `(δ·q_a')·act'`, the same two roundings in the same order.
        let fused = !self.learns(Site::ActivationFn);
        let delta = &mut self.delta[..n];
        for l in &mut self.learn {
            l.grad = 0.0;
        }
        if self.act.is_some() {
            if let Some(q) = &self.aquant {
                for l in self.learn.iter_mut().filter(|l| l.site == Site::Output) {
                    l.grad = q.weighted_grad(l.name, &self.h[..n], delta);
                }
                if fused {
                    mul2_into(delta, &self.da[..n], &self.dh[..n]);
                } else {
                    mul_into(delta, &self.da[..n]);
                }
            }
            if let Some(Act::Quantizer(q)) = &self.act {
                for l in self.learn.iter_mut().filter(|l| l.site == Site::ActivationFn) {
                    l.grad = q.weighted_grad(l.name, &self.z[..n], delta);
                }
            }
            if !(fused && self.aquant.is_some()) {
                mul_into(delta, &self.dh[..n]);
            }
        }
        let (n_in, n_out) = (self.n_in, self.n_out);
        match &mut self.bn {
            Some(bn) => bn.backward(delta, m),
            None => column_sums(delta, &mut self.gb, m, n_out),
        }
        matmul_at_b(&x[..m * n_in], delta, &mut self.gw, m, n_in, n_out);
        if let Some(dx) = dx {
            let w = if self.wquant.is_some() { &self.wq } else { &self.w };
            // δ·Wᵀ as a plain product with Wᵀ: the same sums in the same order as
            // `matmul_a_bt`, but the inner loop runs along rows (vectorized). A single row or
            // column is its own transpose in memory (the output layer's weights).
            let wt = if n_in == 1 || n_out == 1 {
                w
            } else {
                transpose(w, &mut self.wt, n_in, n_out);
                &self.wt
            };
            matmul(delta, wt, &mut dx[..m * n_in], m, n_out, n_in);
        }
    }

    /// The weight quantizer's STE after [`Layer::backward`]: its learnable parameters'
    /// gradients from `∂L/∂Wq`, then `∂L/∂W = ∂L/∂Wq ⊙ ∂Wq/∂W` in place. (Apart from
    /// `backward` so that `∂L/∂Wq` can be looked at in between, see [`super::trace`].)
    pub(crate) fn weight_ste(&mut self) {
        if let Some(q) = &self.wquant {
            for l in self.learn.iter_mut().filter(|l| l.site == Site::Weights) {
                l.grad = q.weighted_grad(l.name, &self.w, &self.gw);
            }
            // `g·1 = g` for every float but NaN (which stays a NaN): nothing to multiply.
            if !self.unit_ste {
                mul_into(&mut self.gw, &self.dwq);
            }
        }
    }

    /// `∂Wq/∂W`, the weight quantizer's STE factors at the current latent weights (meaningful
    /// only with a weight quantizer).
    pub(crate) fn ste_factors(&self) -> &[f32] {
        &self.dwq
    }

    /// Whether `step` updates this layer's weights with Bop (under Bop, binary weights).
    pub(crate) fn bop(&self, step: &Update) -> bool {
        self.binary && step.is_bop()
    }

    /// What the last [`Layer::update`] did to latent weight `i`, which was `before`: the update
    /// `Δw` and the value the optimizer set before the weight clip. SGD and Adam: `Δw` from the
    /// state ([`Update::delta`]), the value `before + Δw` exactly. Bop: the value ±1 (the clip
    /// keeps the sign), `Δw = fl(±1 − before)`.
    pub(crate) fn weight_update(&self, step: &Update, i: usize, before: f32) -> (f32, f32) {
        if self.bop(step) {
            let w = self.w[i];
            let set = if w.is_nan() { w } else { 1f32.copysign(w) };
            (set - before, set)
        } else {
            let delta = step.delta(&self.sw, i);
            (delta, before + delta)
        }
    }

    /// One optimizer step on weights (with penalties; Bop's for binary weights under Bop; then
    /// the weight clip, when the weights are quantized), biases and learnable parameters.
    pub(crate) fn update(&mut self, step: &Update) -> Result<(), String> {
        if self.binary {
            step.apply_binary(&mut self.w, &self.gw, &mut self.sw);
        } else {
            step.apply(&mut self.w, &self.gw, &mut self.sw);
        }
        if let (Some(c), Some(_)) = (self.weight_clip, &self.wquant) {
            clip_weights(&mut self.w, c);
        }
        let plain = step.unregularized();
        match &mut self.bn {
            Some(bn) => bn.update(&plain),
            None => plain.apply(&mut self.b, &self.gb, &mut self.sb),
        }
        for i in 0..self.learn.len() {
            let (site, name, grad) = (self.learn[i].site, self.learn[i].name, self.learn[i].grad);
            let mut state = std::mem::take(&mut self.learn[i].state);
            if let Some(q) = self.site_mut(site) {
                let mut v = [learnable::value(q, name)];
                plain.apply(&mut v, &[grad], &mut state);
                learnable::set_value(q, name, v[0])?;
            }
            self.learn[i].state = state;
        }
        Ok(())
    }
}

/// Whether every element is exactly 1.0.
fn all_ones(f: &[f32]) -> bool {
    // An OR of bit differences rather than `all()`: no early exit, so LLVM vectorizes it.
    f.iter().fold(0, |acc, x| acc | (x.to_bits() ^ 1f32.to_bits())) == 0
}

/// How many of `new` differ from `old` in their bits (quantized weights that changed level),
/// and [`all_ones`] of `f`, in one pass.
fn flips_and_unit(new: &[f32], old: &[f32], f: &[f32]) -> (usize, bool) {
    // A sum of 0/1 and an OR rather than `filter().count()` and `all()`: LLVM vectorizes it.
    let (mut changed, mut differ) = (0u32, 0u32);
    for ((n, o), f) in new.iter().zip(old).zip(f) {
        changed += u32::from(n.to_bits() != o.to_bits());
        differ |= f.to_bits() ^ 1f32.to_bits();
    }
    (changed as usize, differ == 0)
}

/// `d ← d ⊙ f`.
fn mul_into(d: &mut [f32], f: &[f32]) {
    for (di, fi) in d.iter_mut().zip(f) {
        *di *= fi;
    }
}

/// `d ← (d ⊙ f) ⊙ g`: [`mul_into`] by `f`, then by `g`, in one pass.
fn mul2_into(d: &mut [f32], f: &[f32], g: &[f32]) {
    for ((di, fi), gi) in d.iter_mut().zip(f).zip(g) {
        *di = *di * fi * gi;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_backward_factors_in_one_pass_equal_two_passes() {
        let v = |seed: f32| (0..83).map(|i| ((i as f32 + seed) * 0.731).sin() * 3.0).collect::<Vec<f32>>();
        let (d, f, g) = (v(0.0), v(1.0), v(2.0));
        let mut fused = d.clone();
        mul2_into(&mut fused, &f, &g);
        let mut two = d;
        mul_into(&mut two, &f);
        mul_into(&mut two, &g);
        assert_eq!(
            fused.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            two.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
    }

    #[test]
    fn only_factors_that_are_all_exactly_one_skip_the_weight_ste() {
        assert!(all_ones(&[1.0; 83]) && all_ones(&[]));
        let (new, old) = ([0.5, -0.0, 1.0, f32::NAN], [0.5, 0.0, 1.0, f32::NAN]);
        assert_eq!(flips_and_unit(&new, &old, &[1.0; 4]), (1, true));
        assert_eq!(flips_and_unit(&new, &old, &[1.0, 1.0, 0.0, 1.0]), (1, false));
        for other in [0.0, -1.0, 1.0 + f32::EPSILON, 1.0 - f32::EPSILON / 2.0, f32::NAN, f32::INFINITY] {
            let mut f = vec![1.0; 83];
            f[82] = other;
            assert!(!all_ones(&f), "{other}");
        }
        // An identity STE (quantized_bits) skips the product, a clipping one (ste_sign) does not;
        // both end with ∂L/∂W = ∂L/∂Wq ⊙ ∂Wq/∂W.
        let w: Vec<f32> = (0..24).map(|i| (i as f32 * 0.77).sin() * 1.5).collect();
        for (spec, unit) in [("qkeras.quantized_bits(4,0,1)", true), ("larq.ste_sign", false)] {
            let mut layer = Layer::new(3, 8, w.clone(), None, 4);
            layer.set_quantizer(QuantizedTensor::Weights, Some(qscope_quant::parse(spec).unwrap()));
            layer.quantize(&mut Ctx::training(0), false);
            assert_eq!(layer.unit_ste, unit, "{spec}");
            let g: Vec<f32> = (0..24).map(|i| (i as f32 * 1.31).cos()).collect();
            layer.gw.copy_from_slice(&g);
            layer.weight_ste();
            let want: Vec<f32> = g.iter().zip(layer.ste_factors()).map(|(g, f)| g * f).collect();
            assert_eq!(layer.weight_grad(), want, "{spec}");
        }
    }
}
