//! One training step seen from one weight: its latent value, the level the quantizer gives
//! it, the gradient reaching that level `∂L/∂q`, the STE's factor `∂q/∂w`, the gradient on the
//! latent weight `∂L/∂w`, the optimizer's update, and the value and level after — the numbers
//! the trainer computes, read while it computes them.
//!
//! [`Trainer::step_traced`] is [`Trainer::step`] with a [`Probe`] looking on between the
//! phases of the step (after the backward pass, before the weight STE; after the update and
//! the re-quantization). The ordinary step runs the same code with `()` as its probe, which
//! does nothing, so it pays nothing and allocates nothing.

use super::layer::Layer;
use super::optim::Update;
use super::trainer::Trainer;

/// Looks at a training step from inside (see the module docs).
pub(crate) trait Probe {
    /// After the backward pass: every layer holds `∂L/∂Wq` in [`Layer::weight_grad`], its STE
    /// factors, and the latent and quantized weights the forward pass used.
    fn gradients(&mut self, layers: &[Layer]);
    /// After the update and the re-quantization: `∂L/∂W` in [`Layer::weight_grad`], the new
    /// latent and quantized weights.
    fn stepped(&mut self, layers: &[Layer], step: &Update);
}

/// The ordinary step's probe: looks at nothing.
impl Probe for () {
    #[inline(always)]
    fn gradients(&mut self, _: &[Layer]) {}
    #[inline(always)]
    fn stepped(&mut self, _: &[Layer], _: &Update) {}
}

/// Which weight to follow through a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    /// The weight of layer `layer` (hidden layers from 0, the output layer last) with the
    /// largest `|∂L/∂w|` in this step (the first of equals).
    Largest { layer: usize },
    /// Weight `index` of layer `layer` (row-major `n_in × n_out`: input `index / n_out`,
    /// output `index % n_out`).
    At { layer: usize, index: usize },
}

impl Pick {
    pub fn layer(self) -> usize {
        match self {
            Pick::Largest { layer } | Pick::At { layer, .. } => layer,
        }
    }
}

/// What one training step did to one latent weight `w` of a layer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WeightTrace {
    /// The layer (hidden layers from 0, the output layer last) and the weight's index in it.
    pub layer: usize,
    pub index: usize,
    /// The input and output neuron the weight connects.
    pub from: usize,
    pub to: usize,
    /// Whether the layer's weights pass through a quantizer (else `q(w) = w`, `∂q/∂w = 1`).
    pub quantized: bool,
    /// `w` and `q(w)` in the forward pass of this step.
    pub latent_before: f32,
    pub q_before: f32,
    /// `∂L/∂q`: the loss gradient reaching the quantized weight (mean over the batch).
    pub grad_q: f32,
    /// `∂q/∂w`: the straight-through estimator's factor at `latent_before`.
    pub ste: f32,
    /// `∂L/∂w = ∂L/∂q · ∂q/∂w`: the data loss's gradient on the latent weight.
    pub grad_w: f32,
    /// The gradient the optimizer followed: `∂L/∂w` plus the L1/L2 penalties' (equal to
    /// `grad_w` without penalties).
    pub grad_total: f32,
    /// Whether Bop updated the weight ([`Optimizer::Bop`](super::Optimizer::Bop) on a binary
    /// layer) rather than SGD or Adam.
    pub bop: bool,
    /// The optimizer's update `Δw`: `latent_after == latent_before + update` in float32, unless
    /// the weight clip bound it ([`WeightTrace::clipped`]). Under Bop, `fl(±1 − latent_before)`
    /// for the ±1 it set (exact once the weight is ±1, from the second step on).
    pub update: f32,
    /// Whether the weight clip ([`Config::weight_clip`](super::Config::weight_clip)) moved
    /// the value the optimizer set back to its bound.
    pub clipped: bool,
    /// `w` and `q(w)` after the update, as the next step's forward pass sees them.
    pub latent_after: f32,
    pub q_after: f32,
    /// Whether `q(w)` changed level (bit for bit, as the flip counts count; never for float
    /// weights, which have no levels).
    pub flipped: bool,
}

/// Records the picked weight's numbers as a step runs.
struct Recorder {
    pick: Pick,
    trace: Option<WeightTrace>,
}

/// `fl(g·f)`: the product [`Layer::weight_ste`] computes.
fn through_ste(layer: &Layer, i: usize) -> f32 {
    let g = layer.weight_grad()[i];
    if layer.quantizer(super::QuantizedTensor::Weights).is_some() { g * layer.ste_factors()[i] } else { g }
}

impl Probe for Recorder {
    fn gradients(&mut self, layers: &[Layer]) {
        let layer_index = self.pick.layer();
        let layer = &layers[layer_index];
        let index = match self.pick {
            Pick::At { index, .. } => index,
            Pick::Largest { .. } => {
                let mut best = (0, -1.0f32);
                for i in 0..layer.weights().len() {
                    let g = through_ste(layer, i).abs();
                    if g > best.1 {
                        best = (i, g);
                    }
                }
                best.0
            }
        };
        let quantized = layer.quantizer(super::QuantizedTensor::Weights).is_some();
        let n_out = layer.shape().1;
        self.trace = Some(WeightTrace {
            layer: layer_index,
            index,
            from: index / n_out,
            to: index % n_out,
            quantized,
            latent_before: layer.weights()[index],
            q_before: layer.quantized()[index],
            grad_q: layer.weight_grad()[index],
            ste: if quantized { layer.ste_factors()[index] } else { 1.0 },
            grad_w: f32::NAN,
            grad_total: f32::NAN,
            bop: false,
            update: f32::NAN,
            latent_after: f32::NAN,
            q_after: f32::NAN,
            flipped: false,
            clipped: false,
        });
    }

    fn stepped(&mut self, layers: &[Layer], step: &Update) {
        let Some(t) = &mut self.trace else { return };
        let layer = &layers[t.layer];
        t.grad_w = layer.weight_grad()[t.index];
        t.grad_total = step.gradient(t.latent_before, t.grad_w);
        t.bop = layer.bop(step);
        let stepped;
        (t.update, stepped) = layer.weight_update(step, t.index, t.latent_before);
        t.latent_after = layer.weights()[t.index];
        t.clipped = stepped.to_bits() != t.latent_after.to_bits() && !(stepped.is_nan() && t.latent_after.is_nan());
        t.q_after = layer.quantized()[t.index];
        t.flipped = t.quantized && t.q_before.to_bits() != t.q_after.to_bits();
    }
}

impl Trainer {
    /// One mini-batch, exactly as [`Trainer::step`] takes it (the same numbers after it, the
    /// epoch's metrics recorded when it ends one), and what it did to the picked weight.
    pub fn step_traced(&mut self, pick: Pick) -> Result<WeightTrace, String> {
        let layers = self.layers();
        let layer = layers.get(pick.layer()).ok_or_else(|| {
            format!("layer {}: the network has {} layers (0 to {})", pick.layer(), layers.len(), layers.len() - 1)
        })?;
        if let Pick::At { index, .. } = pick
            && index >= layer.weights().len()
        {
            return Err(format!("weight {index}: layer {} has {} weights", pick.layer(), layer.weights().len()));
        }
        let mut recorder = Recorder { pick, trace: None };
        self.step_probed(&mut recorder)?;
        recorder.trace.ok_or_else(|| "the step recorded nothing".to_string())
    }
}
