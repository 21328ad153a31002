//! The training loop, in slices a UI can drive: [`Trainer::steps`] a few mini-batches per
//! frame, [`Trainer::step_epoch`] a whole epoch; metrics after every epoch, layer weights
//! (latent and quantized), flip counts, the decision surface over a grid, and quantizers that
//! can be swapped mid-run.
//!
//! Determinism: the data, the initial weights, the shuffling, the training draws of stochastic
//! quantizers and the evaluation draws come from five streams seeded from `Config::seed`, so
//! the same config and the same calls give the same numbers, bit for bit. Evaluation (metrics,
//! [`Trainer::predict_grid`]) runs the quantizers in inference mode on weights quantized for
//! the occasion, in chunks of `batch` rows (data-dependent activation scales see batches of the
//! training size), with a freshly seeded stream each time: it never changes the training run.
//! Nothing is allocated per training step (LSQ and PACT kernels report their parameter
//! gradients in a small vector).

use rand::SeedableRng;
use rand::rngs::StdRng;

use super::config::{Act, Config, check_quantizer};
use super::data::{Dataset, feature_matrix, feature_row, shuffle};
use super::layer::{Layer, QuantizedTensor};
use super::network::Network;
use super::optim::Clock;
use super::table::{Split, split_table};
use super::thinned::Thinned;
use super::trace::Probe;
use qscope_quant::{Ctx, Quantizer};

mod evaluation;
use evaluation::Pending;

/// Losses (mean over the split) and accuracies (share in [0, 1]; None for regression) after
/// an epoch, in evaluation mode.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Metrics {
    pub epoch: usize,
    pub train_loss: f64,
    pub test_loss: f64,
    pub train_acc: Option<f64>,
    pub test_acc: Option<f64>,
}

/// A training run in progress.
pub struct Trainer {
    config: Config,
    data: Dataset,
    train_x: Vec<f32>,
    train_y: Vec<f32>,
    test_x: Vec<f32>,
    test_y: Vec<f32>,
    net: Network,
    clock: Clock,
    order: Vec<usize>,
    cursor: usize,
    epoch: usize,
    shuffler: StdRng,
    ctx: Ctx,
    /// Metrics by epoch, thinned on a long run (every epoch up to 4096, then evenly spread).
    history: Thinned<Metrics>,
    /// Flips per layer in the current epoch, and steps taken in it.
    epoch_flips: Vec<u64>,
    epoch_steps: u64,
    /// Per completed epoch (thinned as `history`), per layer: the share of its weights that
    /// changed level per step.
    flip_history: Thinned<Vec<f32>>,
    last_loss: f64,
    error: Option<String>,
    /// A table's rows that test, in test order (empty for generated data).
    test_rows: Vec<usize>,
    /// Classes (1 for regression).
    classes: usize,
    /// The last evaluation's confusion matrices (train, test): `classes × classes` counts,
    /// row = the true class, column = the predicted one; empty for regression.
    confusion: [Vec<u32>; 2],
    /// The last evaluation's predicted class of each test example.
    predicted: Vec<u8>,
    /// An evaluation under way ([`Trainer::continue_evaluation`]), and the buffers the next
    /// one counts into.
    pending: Option<Box<Pending>>,
    spare_confusion: [Vec<u32>; 2],
    spare_predicted: Vec<u8>,
}

/// The `k`-th random stream of a seed.
fn stream(seed: u64, k: u64) -> u64 {
    seed ^ k.wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

const DATA: u64 = 0;
const INIT: u64 = 1;
const SHUFFLE: u64 = 2;
const TRAIN: u64 = 3;
const EVAL: u64 = 4;

/// Copies the training rows `rows` (`d` features each, and the labels) into the batch buffers:
/// row by row as fixed-size arrays for the feature counts there are (1 to 7, each copy a few
/// loads and stores), column by column otherwise. Never a `copy_from_slice` of `d` elements
/// per row: that is a `memcpy` call per row (in WASM a `memory.copy`, which V8 runs as a
/// call out of the module: slow for a few bytes).
fn gather_rows(rows: &[usize], xs: &[f32], ys: &[f32], d: usize, x: &mut [f32], labels: &mut [f32]) {
    match d {
        1 => gather_fixed::<1>(rows, xs, ys, x, labels),
        2 => gather_fixed::<2>(rows, xs, ys, x, labels),
        3 => gather_fixed::<3>(rows, xs, ys, x, labels),
        4 => gather_fixed::<4>(rows, xs, ys, x, labels),
        5 => gather_fixed::<5>(rows, xs, ys, x, labels),
        6 => gather_fixed::<6>(rows, xs, ys, x, labels),
        7 => gather_fixed::<7>(rows, xs, ys, x, labels),
        _ => gather_columns(rows, xs, ys, d, x, labels),
    }
}

/// [`gather_rows`] for any `d`, column by column.
fn gather_columns(rows: &[usize], xs: &[f32], ys: &[f32], d: usize, x: &mut [f32], labels: &mut [f32]) {
    for c in 0..d {
        for (r, &i) in rows.iter().enumerate() {
            x[r * d + c] = xs[i * d + c];
        }
    }
    for (label, &i) in labels.iter_mut().zip(rows) {
        *label = ys[i];
    }
}

/// [`gather_rows`] for `D` features: one bounds check and one fixed-size copy per row.
#[inline(always)]
fn gather_fixed<const D: usize>(rows: &[usize], xs: &[f32], ys: &[f32], x: &mut [f32], labels: &mut [f32]) {
    assert!(x.len() >= rows.len() * D && labels.len() >= rows.len(), "gather: batch buffers");
    for ((dst, &i), label) in x.chunks_exact_mut(D).zip(rows).zip(labels.iter_mut()) {
        let src: &[f32; D] = xs[i * D..].first_chunk().expect("gather: a training row");
        let dst: &mut [f32; D] = dst.try_into().expect("chunks of D");
        *dst = *src;
        *label = ys[i];
    }
}

impl Trainer {
    /// Generates the data, initialises the network and quantizes its weights.
    pub fn new(config: Config) -> Result<Trainer, String> {
        Trainer::build(config, None)
    }

    /// [`Trainer::new`] for a twin of `other`: when both configs ask for the same data (dataset
    /// or table, split, scaling, features and seed), its split is copied rather than made again
    /// — the same numbers, without shuffling and standardizing a large table twice.
    pub fn sharing_data(config: Config, other: &Trainer) -> Result<Trainer, String> {
        let (a, b) = (&config, &other.config);
        let same = a.dataset == b.dataset
            && a.table == b.table
            && a.standardize == b.standardize
            && a.samples == b.samples
            && a.noise.to_bits() == b.noise.to_bits()
            && a.train_ratio.to_bits() == b.train_ratio.to_bits()
            && a.features == b.features
            && a.seed == b.seed;
        let split = same.then(|| {
            let split = Split {
                train_x: other.train_x.clone(),
                train_y: other.train_y.clone(),
                test_x: other.test_x.clone(),
                test_y: other.test_y.clone(),
                test_rows: other.test_rows.clone(),
            };
            (other.data.clone(), split)
        });
        Trainer::build(config, split)
    }

    fn build(config: Config, made: Option<(Dataset, Split)>) -> Result<Trainer, String> {
        config.check()?;
        let c = &config;
        let mut rng = StdRng::seed_from_u64(stream(c.seed, DATA));
        let (data, split) = match (made, &c.table) {
            (Some(made), _) => made,
            (None, Some(t)) => (
                Dataset { kind: c.dataset, train: Vec::new(), test: Vec::new() },
                split_table(t, c.train_ratio, c.standardize, &mut rng),
            ),
            (None, None) => {
                let data = Dataset::generate(c.dataset, c.samples, c.noise, c.train_ratio, stream(c.seed, DATA));
                let split = Split {
                    train_x: feature_matrix(&c.features, &data.train),
                    train_y: data.train.iter().map(|p| p.label).collect(),
                    test_x: feature_matrix(&c.features, &data.test),
                    test_y: data.test.iter().map(|p| p.label).collect(),
                    test_rows: Vec::new(),
                };
                (data, split)
            }
        };
        let net = Network::new(c, &mut StdRng::seed_from_u64(stream(c.seed, INIT)));
        let classes = c.classes();
        let mut t = Trainer {
            order: (0..split.train_y.len()).collect(),
            train_x: split.train_x,
            train_y: split.train_y,
            test_x: split.test_x,
            test_y: split.test_y,
            test_rows: split.test_rows,
            classes,
            confusion: [Vec::new(), Vec::new()],
            predicted: Vec::new(),
            pending: None,
            spare_confusion: [Vec::new(), Vec::new()],
            spare_predicted: Vec::new(),
            net,
            clock: Clock::default(),
            cursor: 0,
            epoch: 0,
            shuffler: StdRng::seed_from_u64(stream(c.seed, SHUFFLE)),
            ctx: Ctx::training(stream(c.seed, TRAIN)),
            history: Thinned::new(),
            epoch_flips: vec![0; c.hidden.len() + 1],
            epoch_steps: 0,
            flip_history: Thinned::new(),
            last_loss: f64::NAN,
            error: None,
            data,
            config,
        };
        t.net.quantize(&mut t.ctx, false);
        Ok(t)
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn dataset(&self) -> &Dataset {
        &self.data
    }

    /// Hidden layers, then the output layer.
    pub fn layers(&self) -> &[Layer] {
        &self.net.layers
    }

    /// Completed epochs.
    pub fn epoch(&self) -> usize {
        self.epoch
    }

    /// Optimizer steps taken.
    pub fn step_count(&self) -> u64 {
        self.clock.t
    }

    /// Mini-batches in an epoch.
    pub fn batches_per_epoch(&self) -> usize {
        self.order.len().div_ceil(self.config.batch)
    }

    /// Mini-batches taken in the current (unfinished) epoch.
    pub fn batch_in_epoch(&self) -> usize {
        self.epoch_steps as usize
    }

    /// Metrics of every completed epoch, oldest first (each names its epoch); on a run longer
    /// than 4096 epochs, of evenly spread epochs and the latest ([`Thinned`]).
    pub fn history(&self) -> &[Metrics] {
        self.history.values()
    }

    /// For every completed epoch (thinned as [`Trainer::history`]; their numbers in
    /// [`Trainer::flip_epochs`]), for every layer (hidden layers, then the output layer): the
    /// mean share of the layer's weights that changed quantization level per step (0 for float
    /// weights).
    pub fn flip_history(&self) -> &[Vec<f32>] {
        self.flip_history.values()
    }

    /// The epoch of each row of [`Trainer::flip_history`].
    pub fn flip_epochs(&self) -> &[usize] {
        self.flip_history.epochs()
    }

    /// Mean loss of the last training batch (NaN before the first).
    pub fn last_loss(&self) -> f64 {
        self.last_loss
    }

    /// Why training stopped (a non-finite loss or parameter), if it did.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// Quantized weights that changed level in the last step, over all layers.
    pub fn flips(&self) -> usize {
        self.net.layers.iter().map(Layer::flips).sum()
    }

    fn fail(&mut self, why: String) -> String {
        let msg = format!("training stopped at epoch {}, step {}: {why}", self.epoch + 1, self.clock.t);
        self.error = Some(msg.clone());
        msg
    }

    /// One mini-batch: forward, backward, update, re-quantize. Returns the epoch's metrics when
    /// this step completed an epoch. After a non-finite loss, every call returns the error.
    pub fn step(&mut self) -> Result<Option<Metrics>, String> {
        self.step_probed(&mut ())
    }

    /// [`Trainer::step`] with a [`Probe`] looking on.
    pub(crate) fn step_probed(&mut self, probe: &mut impl Probe) -> Result<Option<Metrics>, String> {
        if !self.train_step_probed(probe)? {
            return Ok(None);
        }
        self.begin_epoch_evaluation();
        self.continue_evaluation(usize::MAX)
    }

    /// [`Trainer::step`] without the evaluation at the end of an epoch; whether it ended one
    /// (then [`Trainer::begin_epoch_evaluation`] evaluates it, or not).
    pub fn train_step(&mut self) -> Result<bool, String> {
        self.train_step_probed(&mut ())
    }

    /// [`Trainer::train_step`] with a [`Probe`] looking on (`()` looks at nothing and costs
    /// nothing).
    fn train_step_probed(&mut self, probe: &mut impl Probe) -> Result<bool, String> {
        self.settle()?;
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        let n = self.order.len();
        if self.cursor == 0 {
            shuffle(&mut self.order, &mut self.shuffler);
        }
        let m = self.config.batch.min(n - self.cursor);
        let rows = &self.order[self.cursor..self.cursor + m];
        gather_rows(rows, &self.train_x, &self.train_y, self.net.inputs, &mut self.net.x, &mut self.net.labels);
        self.learn(m, probe)?;
        for (sum, layer) in self.epoch_flips.iter_mut().zip(&self.net.layers) {
            *sum += layer.flips() as u64;
        }
        self.epoch_steps += 1;
        self.cursor += m;
        if self.cursor < n {
            return Ok(false);
        }
        self.cursor = 0;
        self.epoch += 1;
        self.end_epoch_flips();
        Ok(true)
    }

    /// Forward, backward, update and re-quantization on the first `m` rows of the batch buffers.
    fn learn(&mut self, m: usize, probe: &mut impl Probe) -> Result<(), String> {
        let loss = self.net.backprop(m, &mut self.ctx);
        probe.gradients(&self.net.layers);
        self.net.weight_ste();
        self.last_loss = loss;
        if !loss.is_finite() {
            return Err(self.fail(format!("the loss is {loss} (lower the learning rate?)")));
        }
        let c = &self.config;
        let step = self.clock.tick(c.optimizer, c.learning_rate, c.l1, c.l2);
        if let Err(e) = self.net.update(&step) {
            return Err(self.fail(e));
        }
        self.net.quantize(&mut self.ctx, true);
        probe.stepped(&self.net.layers, &step);
        Ok(())
    }

    /// One training step, as [`Trainer::step`] takes it, on a batch given here rather than the
    /// next of the shuffled training split: `x` holds `labels.len()` rows of the network's inputs
    /// (1 to `batch` rows), labels as the trainer's (±1 for two classes, else the class). Outside
    /// the epochs: no shuffle, no epoch ends, nothing added to the flip ratios. For replaying
    /// another library's run batch by batch (`tests/trainer/bop.rs`). The batch's mean loss.
    pub fn step_batch(&mut self, x: &[f32], labels: &[f32]) -> Result<f64, String> {
        self.settle()?;
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        let (d, m) = (self.net.inputs, labels.len());
        if m == 0 || m > self.net.batch || x.len() != m * d {
            return Err(format!("expected 1 to {} rows of {d} inputs and a label each", self.net.batch));
        }
        self.net.x[..m * d].copy_from_slice(x);
        self.net.labels[..m].copy_from_slice(labels);
        self.learn(m, &mut ())?;
        Ok(self.last_loss)
    }

    /// Closes the epoch's flip counts into [`Trainer::flip_history`] (one small allocation per
    /// epoch, none per step).
    fn end_epoch_flips(&mut self) {
        let steps = self.epoch_steps.max(1) as f32;
        let ratios = self.epoch_flips.iter().zip(&self.net.layers);
        let row = ratios.map(|(&f, l)| f as f32 / (steps * l.weights().len().max(1) as f32)).collect();
        self.flip_history.push(self.epoch, row);
        self.epoch_flips.iter_mut().for_each(|f| *f = 0);
        self.epoch_steps = 0;
    }

    /// Up to `n` steps (fewer if training stops); the number of epochs completed.
    pub fn steps(&mut self, n: usize) -> Result<usize, String> {
        let mut epochs = 0;
        for _ in 0..n {
            epochs += usize::from(self.step()?.is_some());
        }
        Ok(epochs)
    }

    /// Steps to the end of the current epoch; its metrics.
    pub fn step_epoch(&mut self) -> Result<Metrics, String> {
        loop {
            if let Some(m) = self.step()? {
                return Ok(m);
            }
        }
    }

    /// Training and test examples.
    pub fn split_sizes(&self) -> (usize, usize) {
        (self.train_y.len(), self.test_y.len())
    }

    /// Classes the network tells apart (1 for regression).
    pub fn classes(&self) -> usize {
        self.classes
    }

    /// The last evaluation's confusion matrix on the test split (`test`) or the training split:
    /// `classes × classes` counts, row-major, row = the true class, column = the predicted one
    /// (class 0 is label −1 on generated data); empty for regression and before the first
    /// evaluation.
    pub fn confusion(&self, test: bool) -> &[u32] {
        &self.confusion[usize::from(test)]
    }

    /// The last evaluation's predicted class of each test example, in test order.
    pub fn test_predictions(&self) -> &[u8] {
        &self.predicted
    }

    /// A table's row of each test example, in test order (empty for generated data).
    pub fn test_rows(&self) -> &[usize] {
        &self.test_rows
    }

    /// The test labels, in test order (±1 for two classes, the class index for more).
    pub fn test_labels(&self) -> &[f32] {
        &self.test_y
    }

    /// The network's answer (see [`super::loss::Loss::score`]: in [−1, 1] for the classifiers,
    /// the output for regression) at `res` points per axis from `lo` to `hi` inclusive. For a
    /// 2-D dataset `res²` values, row-major with `x2` rising by row and `x1` along each row
    /// (index `j·res + i` is at `x1 = lo + i·(hi − lo)/(res − 1)`, `x2` likewise with `j`); for
    /// a 1-D dataset `res` values along `x1`. `res` is at least 2. Empty for a table.
    pub fn predict_grid(&mut self, lo: f32, hi: f32, res: usize) -> Vec<f32> {
        if self.config.table.is_some() {
            return Vec::new(); // a table's inputs are not a plane
        }
        let res = res.max(2);
        let at = |i: usize| lo + (hi - lo) * i as f32 / (res - 1) as f32;
        let two_d = self.config.dataset.dims() == 2;
        let count = if two_d { res * res } else { res };
        self.predict(count, |k| if two_d { (at(k % res), at(k / res)) } else { (at(k), 0.0) })
    }

    /// Scores at `count` points given by `point(k) = (x1, x2)`, in evaluation mode.
    pub fn predict(&mut self, count: usize, point: impl Fn(usize) -> (f32, f32)) -> Vec<f32> {
        let _ = self.settle(); // (an error stays in `error`)
        let mut ctx = Ctx::inference(stream(self.config.seed, EVAL));
        self.net.quantize_eval(&mut ctx);
        let (d, b) = (self.net.inputs, self.net.batch);
        let (loss, regression) = (self.config.loss, self.config.dataset.is_regression());
        let mut out = Vec::with_capacity(count);
        for start in (0..count).step_by(b) {
            let m = b.min(count - start);
            for r in 0..m {
                let (x1, x2) = point(start + r);
                feature_row(&self.config.features, x1, x2, &mut self.net.x[r * d..(r + 1) * d]);
            }
            let z = self.net.forward(m, false, &mut ctx);
            let k = z.len() / m;
            out.extend(z.chunks_exact(k).map(|row| loss.score(row, regression)));
        }
        out
    }

    /// Replaces (or removes, with None) a quantizer of layer `layer` (hidden layers from 0, the
    /// output layer last) without resetting anything else: the next step trains through the new
    /// estimator. Weights are re-quantized at once (no flips are counted for the swap).
    pub fn set_quantizer(&mut self, layer: usize, tensor: QuantizedTensor, q: Option<Quantizer>) -> Result<(), String> {
        let hidden = self.config.hidden.len();
        if layer > hidden {
            return Err(format!("layer {layer}: the network has {} layers (0 to {hidden})", hidden + 1));
        }
        if layer == hidden && tensor == QuantizedTensor::Activation {
            return Err("the output layer has no activation quantizer (its link function belongs to the loss)".into());
        }
        if let Some(q) = &q {
            check_quantizer(q)?;
        }
        self.settle()?;
        match (tensor, self.config.hidden.get_mut(layer)) {
            (QuantizedTensor::Weights, Some(h)) => h.weights = q.clone(),
            (QuantizedTensor::Activation, Some(h)) => h.output = q.clone(),
            (_, None) => self.config.output_weights = q.clone(),
        }
        let l = &mut self.net.layers[layer];
        l.set_quantizer(tensor, q);
        l.quantize(&mut self.ctx, false);
        Ok(())
    }

    /// Replaces a hidden layer's activation (a function or a quantizer).
    pub fn set_activation(&mut self, layer: usize, act: Act) -> Result<(), String> {
        let hidden = self.config.hidden.len();
        if layer >= hidden {
            return Err(format!("layer {layer}: hidden layers are 0 to {}", hidden as isize - 1));
        }
        if let Act::Quantizer(q) = &act {
            check_quantizer(q)?;
        }
        self.settle()?;
        self.config.hidden[layer].activation = act.clone();
        self.net.layers[layer].set_activation(act);
        Ok(())
    }

    /// Changes the learning rate from the next step on.
    pub fn set_learning_rate(&mut self, lr: f32) -> Result<(), String> {
        if !(lr.is_finite() && lr > 0.0) {
            return Err(format!("learning rate {lr}: expected a positive number"));
        }
        self.config.learning_rate = lr;
        Ok(())
    }

    /// Sets a layer's latent weights and biases (and re-quantizes them).
    pub fn set_params(&mut self, layer: usize, w: &[f32], b: &[f32]) -> Result<(), String> {
        let l = self.net.layers.get_mut(layer).ok_or_else(|| format!("no layer {layer}"))?;
        let (n_in, n_out) = l.shape();
        if w.len() != n_in * n_out || b.len() != n_out {
            return Err(format!("layer {layer} has {n_in}×{n_out} weights and {n_out} biases"));
        }
        self.settle()?;
        let l = &mut self.net.layers[layer];
        l.set_params(w, b);
        l.quantize(&mut self.ctx, false);
        Ok(())
    }

    /// Forward and backward (training mode, no update) on the given training points; the
    /// mean loss. The gradients are then in [`Layer::weight_grad`], [`Layer::bias_grad`] and
    /// [`Layer::learned`]. Stochastic quantizers draw from the training stream, as a step does.
    pub fn loss_and_gradients(&mut self, rows: &[usize]) -> Result<f64, String> {
        let (d, n) = (self.net.inputs, self.train_y.len());
        if rows.is_empty() || rows.len() > self.net.batch || rows.iter().any(|&i| i >= n) {
            return Err(format!("expected 1 to {} training rows below {n}", self.net.batch));
        }
        self.settle()?;
        for (r, &i) in rows.iter().enumerate() {
            self.net.x[r * d..(r + 1) * d].copy_from_slice(&self.train_x[i * d..(i + 1) * d]);
            self.net.labels[r] = self.train_y[i];
        }
        Ok(self.net.train_batch(rows.len(), &mut self.ctx))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gathering_rows_as_fixed_arrays_copies_what_the_column_loop_copies() {
        let (points, batch) = (37, 10);
        for d in 1..=9 {
            let xs: Vec<f32> = (0..points * d).map(|i| i as f32 * 0.37 - 5.0).collect();
            let ys: Vec<f32> = (0..points).map(|i| if i % 3 == 0 { -1.0 } else { 1.0 }).collect();
            // A full batch and a last, shorter one, rows in any order and repeated.
            for rows in [vec![36, 0, 5, 5, 17, 2, 30, 9, 11, 1], vec![4, 35, 8]] {
                let (mut x, mut labels) = (vec![f32::NAN; batch * d], vec![f32::NAN; batch]);
                let (mut want_x, mut want_labels) = (x.clone(), labels.clone());
                gather_rows(&rows, &xs, &ys, d, &mut x, &mut labels);
                gather_columns(&rows, &xs, &ys, d, &mut want_x, &mut want_labels);
                let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&x), bits(&want_x), "d = {d}, rows {rows:?}");
                assert_eq!(bits(&labels), bits(&want_labels), "d = {d}, rows {rows:?}");
            }
        }
    }
}
