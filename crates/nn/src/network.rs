//! The stack of dense layers: seeded initialisation, forward and backward over a batch, the
//! update, and the batch buffers (input rows and labels), all allocated once.

use rand::RngExt;
use rand::rngs::StdRng;

use super::batchnorm::BatchNorm;
use super::config::{Act, Config, Init};
use super::layer::{Layer, QuantizedTensor};
use super::linalg::Activation;
use super::loss::Loss;
use super::optim::Update;
use qscope_quant::Ctx;

pub(crate) struct Network {
    pub(crate) layers: Vec<Layer>,
    /// Up to `batch` input rows (`batch × inputs`) and their labels.
    pub(crate) x: Vec<f32>,
    pub(crate) labels: Vec<f32>,
    pub(crate) inputs: usize,
    pub(crate) batch: usize,
    loss: Loss,
    regression: bool,
}

/// The bound of the uniform initialisation of a layer.
fn init_limit(init: Init, act: Option<&Act>, fan_in: usize, fan_out: usize) -> f32 {
    let he = match init {
        Init::He => true,
        Init::Glorot => false,
        Init::Auto => matches!(act, Some(Act::Float(Activation::Relu))),
    };
    if he { (6.0 / fan_in as f32).sqrt() } else { (6.0 / (fan_in + fan_out) as f32).sqrt() }
}

impl Network {
    /// Layers from the config with weights drawn from `rng`; quantizers are set but the weights
    /// are not yet quantized ([`Network::quantize`]).
    pub(crate) fn new(config: &Config, rng: &mut StdRng) -> Network {
        let widths = config.widths();
        let last = widths.len() - 2;
        let layers = (0..=last)
            .map(|l| {
                let (n_in, n_out) = (widths[l], widths[l + 1]);
                let act = config.hidden.get(l).map(|h| h.activation.clone());
                let lim = init_limit(config.init, act.as_ref(), n_in, n_out);
                let w = (0..n_in * n_out).map(|_| rng.random_range(-lim..lim)).collect();
                let mut layer = Layer::new(n_in, n_out, w, act, config.batch);
                layer.weight_clip = config.weight_clip;
                if config.batchnorm && l < last {
                    layer.bn = Some(BatchNorm::new(n_out, config.batch));
                }
                match config.hidden.get(l) {
                    Some(h) => {
                        layer.set_quantizer(QuantizedTensor::Weights, h.weights.clone());
                        layer.set_quantizer(QuantizedTensor::Activation, h.output.clone());
                    }
                    None => layer.set_quantizer(QuantizedTensor::Weights, config.output_weights.clone()),
                }
                layer
            })
            .collect();
        Network {
            layers,
            x: vec![0.0; config.batch * widths[0]],
            labels: vec![0.0; config.batch],
            inputs: widths[0],
            batch: config.batch,
            loss: config.loss,
            regression: config.dataset.is_regression(),
        }
    }

    /// Quantizes every layer's weights for the next training step (see [`Layer::quantize`]).
    pub(crate) fn quantize(&mut self, ctx: &mut Ctx, count: bool) {
        for l in &mut self.layers {
            l.quantize(ctx, count);
        }
    }

    /// Quantizes every layer's weights in inference mode, for evaluation.
    pub(crate) fn quantize_eval(&mut self, ctx: &mut Ctx) {
        for l in &mut self.layers {
            l.quantize_eval(ctx);
        }
    }

    /// Forward pass over the first `m` rows of `self.x`; returns the output layer's `z`.
    pub(crate) fn forward(&mut self, m: usize, training: bool, ctx: &mut Ctx) -> &[f32] {
        for i in 0..self.layers.len() {
            let (before, rest) = self.layers.split_at_mut(i);
            let input = match before.last() {
                Some(prev) => prev.output(m),
                None => &self.x[..m * self.inputs],
            };
            rest[0].forward(input, m, training, ctx);
        }
        self.layers.last().expect("an output layer").output(m)
    }

    /// Forward and backward over the first `m` rows of `self.x` and `self.labels` (training
    /// mode); returns the mean loss and leaves every gradient in the layers.
    pub(crate) fn train_batch(&mut self, m: usize, ctx: &mut Ctx) -> f64 {
        let loss = self.backprop(m, ctx);
        self.weight_ste();
        loss
    }

    /// Every layer's weight STE: `∂L/∂Wq` becomes `∂L/∂W` (see [`Layer::weight_ste`]).
    pub(crate) fn weight_ste(&mut self) {
        self.layers.iter_mut().for_each(Layer::weight_ste);
    }

    /// [`Network::train_batch`] up to the weight quantizers' STEs: the layers hold `∂L/∂Wq`.
    pub(crate) fn backprop(&mut self, m: usize, ctx: &mut Ctx) -> f64 {
        self.forward(m, true, ctx);
        let (loss, regression) = (self.loss, self.regression);
        let out = self.layers.last_mut().expect("an output layer");
        // The output layer's z is its output; the loss writes ∂L/∂z into its delta.
        let (z, delta) = out.output_and_delta(m);
        let (sum, _) = loss.eval(z, &self.labels[..m], regression, Some(delta));
        for i in (0..self.layers.len()).rev() {
            let (before, rest) = self.layers.split_at_mut(i);
            let layer = &mut rest[0];
            match before.last_mut() {
                Some(prev) => {
                    let (input, dx) = prev.output_and_delta(m);
                    layer.backward(input, m, Some(dx));
                }
                None => layer.backward(&self.x[..m * self.inputs], m, None),
            }
        }
        sum / m as f64
    }

    /// Forward over the first `m` rows of `self.x` in evaluation mode: the summed loss against
    /// `self.labels` and the number classified right.
    pub(crate) fn eval_batch(&mut self, m: usize, ctx: &mut Ctx) -> (f64, usize) {
        let (loss, regression) = (self.loss, self.regression);
        self.forward(m, false, ctx);
        let z = self.layers.last().expect("an output layer").output(m);
        loss.eval(z, &self.labels[..m], regression, None)
    }

    /// The output layer's `z` of the last forward pass over `m` rows.
    pub(crate) fn output(&self, m: usize) -> &[f32] {
        self.layers.last().expect("an output layer").output(m)
    }

    /// One optimizer step on every layer.
    pub(crate) fn update(&mut self, step: &Update) -> Result<(), String> {
        self.layers.iter_mut().try_for_each(|l| l.update(step))
    }
}
