//! Evaluation: the losses, accuracies and confusion matrices of the current weights on both
//! splits, in evaluation mode — at once ([`Trainer::evaluate`], and at the end of every epoch
//! of [`Trainer::step`]) or a few rows at a time ([`Trainer::begin_epoch_evaluation`],
//! [`Trainer::continue_evaluation`]), so that a page can spread a 100,000-row table's
//! evaluation over several frames. Both walk the same batches with the same freshly seeded
//! stream: the numbers are the same, bit for bit.
//!
//! While an evaluation is under way the weights must not change: every other call that uses
//! the network finishes it first ([`Trainer::settle`]).

use super::{EVAL, Metrics, Trainer, stream};
use crate::loss::class_of;
use qscope_quant::Ctx;

/// An evaluation under way: the split and row it has reached and what it has summed.
pub(super) struct Pending {
    ctx: Ctx,
    /// Reading the test split (after the training one).
    test: bool,
    next: usize,
    sum: f64,
    correct: usize,
    /// The training split's loss and accuracy, once read.
    train: (f64, Option<f64>),
    /// Confusion matrices (train, test) and test predictions being counted.
    confusion: [Vec<u32>; 2],
    predicted: Vec<u8>,
    /// An epoch's evaluation: its metrics go into the history (else: [`Trainer::evaluate`]).
    record: bool,
}

impl Trainer {
    /// Losses and accuracies of the current weights on both splits (evaluation mode); the
    /// confusion matrices ([`Trainer::confusion`]) and test predictions are kept.
    pub fn evaluate(&mut self) -> Metrics {
        // An epoch's evaluation under way ends first (its metrics recorded); an error is kept.
        let _ = self.settle();
        self.begin(false);
        self.run(usize::MAX).expect("an evaluation to the end")
    }

    /// Starts evaluating the current weights as the epoch just ended (after
    /// [`Trainer::train_step`] ended one); [`Trainer::continue_evaluation`] reads the rows.
    pub fn begin_epoch_evaluation(&mut self) {
        let _ = self.settle();
        self.begin(true);
    }

    /// Whether an evaluation is under way.
    pub fn is_evaluating(&self) -> bool {
        self.pending.is_some()
    }

    /// Up to `rows` more rows (whole batches, at least one) of the evaluation under way; when
    /// it ends, the epoch's metrics, recorded as [`Trainer::step`] records them (an error if its
    /// loss is not finite). None while rows remain, or when no evaluation is under way.
    pub fn continue_evaluation(&mut self, rows: usize) -> Result<Option<Metrics>, String> {
        let Some(m) = self.run(rows) else { return Ok(None) };
        if !(m.train_loss.is_finite() && m.test_loss.is_finite()) {
            return Err(self.fail(format!("the evaluation loss is {} (lower the learning rate?)", m.train_loss)));
        }
        self.history.push(m.epoch, m);
        Ok(Some(m))
    }

    /// Ends the evaluation under way, if any (its metrics recorded).
    pub fn settle(&mut self) -> Result<(), String> {
        match &self.pending {
            Some(p) if p.record => self.continue_evaluation(usize::MAX).map(|_| ()),
            Some(_) => {
                self.run(usize::MAX);
                Ok(())
            }
            None => Ok(()),
        }
    }

    /// A new evaluation from the first training row, the weights quantized for it.
    fn begin(&mut self, record: bool) {
        let mut ctx = Ctx::inference(stream(self.config.seed, EVAL));
        self.net.quantize_eval(&mut ctx);
        let cells = if self.config.dataset.is_regression() { 0 } else { self.classes * self.classes };
        let mut confusion = std::mem::take(&mut self.spare_confusion);
        for c in &mut confusion {
            c.clear();
            c.resize(cells, 0);
        }
        let mut predicted = std::mem::take(&mut self.spare_predicted);
        predicted.clear();
        let pending = Pending {
            ctx,
            test: false,
            next: 0,
            sum: 0.0,
            correct: 0,
            train: (0.0, None),
            confusion,
            predicted,
            record,
        };
        self.pending = Some(Box::new(pending));
    }

    /// Reads up to `rows` rows (whole batches, at least one) of the evaluation under way; its
    /// metrics when it ended (the matrices and predictions then swapped in).
    fn run(&mut self, rows: usize) -> Option<Metrics> {
        let mut p = self.pending.take()?;
        let (d, b) = (self.net.inputs, self.net.batch);
        let regression = self.config.dataset.is_regression();
        let k = self.classes;
        let mut budget = rows.max(1);
        loop {
            let (x, y) = if p.test { (&self.test_x, &self.test_y) } else { (&self.train_x, &self.train_y) };
            let n = y.len();
            if p.next >= n {
                let acc = (!regression).then(|| p.correct as f64 / n as f64);
                let result = (p.sum / n as f64, acc);
                if p.test {
                    let (train_loss, train_acc) = p.train;
                    let (test_loss, test_acc) = result;
                    std::mem::swap(&mut self.confusion, &mut p.confusion);
                    std::mem::swap(&mut self.predicted, &mut p.predicted);
                    self.spare_confusion = p.confusion;
                    self.spare_predicted = p.predicted;
                    return Some(Metrics { epoch: self.epoch, train_loss, test_loss, train_acc, test_acc });
                }
                (p.train, p.test, p.next, p.sum, p.correct) = (result, true, 0, 0.0, 0);
                continue;
            }
            if budget == 0 {
                self.pending = Some(p);
                return None;
            }
            let (start, m) = (p.next, b.min(n - p.next));
            self.net.x[..m * d].copy_from_slice(&x[start * d..(start + m) * d]);
            self.net.labels[..m].copy_from_slice(&y[start..start + m]);
            let (s, c) = self.net.eval_batch(m, &mut p.ctx);
            p.sum += s;
            p.correct += c;
            if !regression {
                let z = self.net.output(m);
                let outputs = z.len() / m;
                let confusion = &mut p.confusion[usize::from(p.test)];
                for (row, &t) in z.chunks_exact(outputs).zip(&y[start..start + m]) {
                    let predicted = self.config.loss.class(row);
                    confusion[class_of(t, outputs.max(k)) * k + predicted] += 1;
                    if p.test {
                        p.predicted.push(predicted as u8);
                    }
                }
            }
            p.next += m;
            budget = budget.saturating_sub(m);
        }
    }
}
