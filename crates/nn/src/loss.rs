//! Losses over the output layer's pre-activations `z`, with their link functions folded in
//! (so the gradient is the stable `p − t` form): squared error after tanh (TF Playground's
//! classifier; linear for regression), binary cross-entropy after a sigmoid, softmax
//! cross-entropy over two to ten classes. `exp`, `log`, `tanh` and `sigmoid` are TensorFlow's float32
//! approximations from [`qscope_quant::lane`], identical natively and in WASM.

use super::linalg::Activation;
use super::named::Named;
use qscope_quant::lane;

/// The training loss (and with it the output layer's width and link function).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loss {
    /// `½(o − t)²` with `o = tanh z` and labels ±1 (Playground), or `o = z` for regression.
    SquaredError,
    /// `−t·log σ(z) − (1 − t)·log(1 − σ(z))` with `t = 0/1`, one output.
    BinaryCrossEntropy,
    /// `−log softmax(z)_c` over one output per class (two classes: class 0 for label −1,
    /// class 1 for +1).
    SoftmaxCrossEntropy,
}

impl Named for Loss {
    const WHAT: &'static str = "loss";
    const ALL: &'static [Loss] = &Loss::ALL;

    fn name(self) -> &'static str {
        match self {
            Loss::SquaredError => "mse",
            Loss::BinaryCrossEntropy => "bce",
            Loss::SoftmaxCrossEntropy => "softmax",
        }
    }

    fn aliases(self) -> &'static [&'static str] {
        match self {
            Loss::SquaredError => &["squared", "squared_error", "mean_squared_error"],
            Loss::BinaryCrossEntropy => &["binary_crossentropy", "binary_cross_entropy", "sigmoid"],
            Loss::SoftmaxCrossEntropy => {
                &["cce", "categorical_crossentropy", "softmax_cross_entropy", "softmax_crossentropy"]
            }
        }
    }
}

impl Loss {
    pub const ALL: [Loss; 3] = [Loss::SquaredError, Loss::BinaryCrossEntropy, Loss::SoftmaxCrossEntropy];

    /// Width of the output layer for `classes` classes: one for the squared error and the
    /// binary cross-entropy, one per class (at least two) for softmax.
    pub fn outputs(self, classes: usize) -> usize {
        if self == Loss::SoftmaxCrossEntropy { classes.max(2) } else { 1 }
    }

    /// Over `m = labels.len()` rows of `z` (`m × k` for `k` outputs): the summed loss, the number
    /// of rows classified right (0 for regression), and, if asked, `∂L/∂z` of the **mean** loss.
    /// Labels are ±1 with one or two outputs, the class index with more.
    pub fn eval(self, z: &[f32], labels: &[f32], regression: bool, grad: Option<&mut [f32]>) -> (f64, usize) {
        let m = labels.len();
        assert!(m > 0 && z.len().is_multiple_of(m), "loss: shapes");
        match grad {
            Some(grad) if self == Loss::SquaredError && !regression => tanh_squared_error(z, labels, grad),
            grad => self.eval_rows(z, labels, regression, grad),
        }
    }

    /// [`Loss::eval`] row by row.
    fn eval_rows(self, z: &[f32], labels: &[f32], regression: bool, grad: Option<&mut [f32]>) -> (f64, usize) {
        let (m, k) = (labels.len(), z.len() / labels.len());
        let inv_m = 1.0 / m as f32;
        let (mut sum, mut correct) = (0.0f64, 0usize);
        let mut grad = grad;
        let mut scratch = [0.0f32; MAX_OUTPUTS];
        for (r, &t) in labels.iter().enumerate() {
            let zr = &z[r * k..(r + 1) * k];
            let g = &mut scratch[..k];
            let (loss, right) = self.row(zr, t, regression, g);
            sum += loss as f64;
            correct += right as usize;
            if let Some(gr) = grad.as_deref_mut() {
                for (gi, v) in gr[r * k..(r + 1) * k].iter_mut().zip(g.iter()) {
                    *gi = v * inv_m;
                }
            }
        }
        (sum, correct)
    }

    /// One row: (loss, classified right), and ∂loss/∂z into `g`.
    fn row(self, z: &[f32], t: f32, regression: bool, g: &mut [f32]) -> (f32, bool) {
        match self {
            Loss::SquaredError if regression => {
                let d = z[0] - t;
                g[0] = d;
                (0.5 * d * d, false)
            }
            Loss::SquaredError => {
                let (loss, right, dz) = tanh_squared_error_terms(lane::tanh(z[0]), t);
                g[0] = dz;
                (loss, right)
            }
            Loss::BinaryCrossEntropy => {
                let t01 = if t > 0.0 { 1.0 } else { 0.0 };
                let z0 = z[0];
                // max(z, 0) − z·t + log(1 + e^−|z|): no overflow for any z.
                let loss = z0.max(0.0) - z0 * t01 + lane::log(1.0 + lane::exp(-z0.abs()));
                g[0] = lane::sigmoid(z0) - t01;
                (loss, (z0 >= 0.0) == (t > 0.0))
            }
            Loss::SoftmaxCrossEntropy => {
                // `log Σ e^(z − max) + max − z_c`, `∂/∂z_i = p_i − [i = c]`.
                let c = class_of(t, z.len());
                let mx = z.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                for (gi, &zi) in g.iter_mut().zip(z) {
                    *gi = lane::exp(zi - mx);
                }
                let s = g.iter().sum::<f32>();
                let loss = lane::log(s) + mx - z[c];
                for (i, gi) in g.iter_mut().enumerate() {
                    *gi = *gi / s - if i == c { 1.0 } else { 0.0 };
                }
                (loss, argmax(z) == c)
            }
        }
    }

    /// The class the network picks for one row of `z`: the largest output under softmax (the
    /// first of equals), else class 1 (label +1) where the output is ≥ 0. Not for regression.
    pub fn class(self, z: &[f32]) -> usize {
        match self {
            Loss::SoftmaxCrossEntropy => argmax(z),
            Loss::SquaredError | Loss::BinaryCrossEntropy => usize::from(z[0] >= 0.0),
        }
    }

    /// The network's answer for one row of `z`, on the labels' scale: in [−1, 1] for the
    /// classifiers (tanh output, `2σ(z) − 1`, `p₁ − p₀`), the output itself for regression.
    pub fn score(self, z: &[f32], regression: bool) -> f32 {
        match self {
            Loss::SquaredError if regression => z[0],
            Loss::SquaredError => lane::tanh(z[0]),
            Loss::BinaryCrossEntropy => 2.0 * lane::sigmoid(z[0]) - 1.0,
            Loss::SoftmaxCrossEntropy => {
                let e = lane::exp(z[0] - z[1]);
                (1.0 - e) / (1.0 + e)
            }
        }
    }
}

/// Most outputs a network has (softmax over [`crate::table::MAX_CLASSES`] classes).
pub const MAX_OUTPUTS: usize = crate::table::MAX_CLASSES;

/// The class of label `t` for `k` outputs: ±1 is class 1 / 0 with one or two outputs (the
/// generated datasets' and two-class tables' labels); with more, `t` is the class index.
pub fn class_of(t: f32, k: usize) -> usize {
    if k <= 2 { usize::from(t > 0.0) } else { t as usize }
}

/// The index of the largest value, the first of equals; a NaN is passed over (0 if all are).
fn argmax(z: &[f32]) -> usize {
    let mut best: Option<usize> = None;
    for (i, &v) in z.iter().enumerate() {
        if !v.is_nan() && best.is_none_or(|b| v > z[b]) {
            best = Some(i);
        }
    }
    best.unwrap_or(0)
}

/// Squared error after tanh for one row, from `o = tanh z` and the label `t = ±1`: (loss,
/// classified right, ∂loss/∂z).
#[inline(always)]
fn tanh_squared_error_terms(o: f32, t: f32) -> (f32, bool, f32) {
    let d = o - t;
    (0.5 * d * d, (o >= 0.0) == (t > 0.0), d * (1.0 - o * o))
}

/// [`Loss::eval`] of the squared error after tanh with its gradient, in two passes: the tanh
/// of the whole batch on the lane path (f32x4 in WASM), into `grad`, then the rows'
/// terms — the same numbers as row by row, with the tanh vectorized.
fn tanh_squared_error(z: &[f32], labels: &[f32], grad: &mut [f32]) -> (f64, usize) {
    assert_eq!(grad.len(), z.len(), "loss: gradient shape");
    Activation::Tanh.apply(z, grad, None);
    let inv_m = 1.0 / labels.len() as f32;
    let (mut sum, mut correct) = (0.0f64, 0usize);
    for (g, &t) in grad.iter_mut().zip(labels) {
        let (loss, right, dz) = tanh_squared_error_terms(*g, t);
        sum += loss as f64;
        correct += right as usize;
        *g = dz * inv_m;
    }
    (sum, correct)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Central differences of the mean loss, in f64 around f32 inputs.
    fn numeric(loss: Loss, z: &[f32], labels: &[f32], regression: bool) -> Vec<f64> {
        (0..z.len())
            .map(|i| {
                let h = 1e-2f32;
                let mut zp = z.to_vec();
                zp[i] += h;
                let mut zm = z.to_vec();
                zm[i] -= h;
                let m = labels.len() as f64;
                (loss.eval(&zp, labels, regression, None).0 - loss.eval(&zm, labels, regression, None).0) / m / 0.02
            })
            .collect()
    }

    #[test]
    fn gradients_are_the_derivatives_of_the_mean_loss() {
        let labels = [1.0, -1.0, 1.0];
        for loss in Loss::ALL {
            for regression in [false, true] {
                if regression && loss != Loss::SquaredError {
                    continue;
                }
                let z: Vec<f32> = (0..labels.len() * loss.outputs(2)).map(|i| 0.7 * i as f32 - 1.1).collect();
                let mut g = vec![0.0; z.len()];
                loss.eval(&z, &labels, regression, Some(&mut g));
                for (a, n) in g.iter().zip(numeric(loss, &z, &labels, regression)) {
                    assert!((*a as f64 - n).abs() < 2e-3, "{loss:?}: {a} vs {n}");
                }
            }
        }
    }

    #[test]
    fn softmax_over_many_classes_has_the_derivatives_of_its_mean_loss() {
        for k in [3, 10] {
            let labels: Vec<f32> = (0..4).map(|r| ((r * 7) % k) as f32).collect();
            let z: Vec<f32> = (0..labels.len() * k).map(|i| ((i * 13) % 17) as f32 * 0.3 - 2.0).collect();
            let mut g = vec![0.0; z.len()];
            Loss::SoftmaxCrossEntropy.eval(&z, &labels, false, Some(&mut g));
            for (a, n) in g.iter().zip(numeric(Loss::SoftmaxCrossEntropy, &z, &labels, false)) {
                assert!((*a as f64 - n).abs() < 2e-3, "{k} classes: {a} vs {n}");
            }
            // Each row's gradient sums to 0 (the probabilities sum to 1).
            for row in g.chunks(k) {
                assert!(row.iter().sum::<f32>().abs() < 1e-6);
            }
        }
    }

    #[test]
    fn the_predicted_class_is_the_first_largest_output() {
        let softmax = Loss::SoftmaxCrossEntropy;
        assert_eq!(softmax.class(&[0.1, 2.0, 2.0, -1.0]), 1);
        assert_eq!(softmax.class(&[f32::NAN, 1.0, 0.0]), 1);
        assert_eq!(Loss::SquaredError.class(&[-0.0]), 1);
        assert_eq!(Loss::BinaryCrossEntropy.class(&[-0.5]), 0);
        let (_, right) = softmax.eval(&[0.0, 3.0, 1.0, 5.0, 0.0, 0.0], &[1.0, 2.0], false, None);
        assert_eq!(right, 1);
        assert_eq!((class_of(-1.0, 2), class_of(1.0, 1), class_of(7.0, 10)), (0, 1, 7));
    }

    #[test]
    fn the_vectorized_squared_error_equals_the_row_by_row_one() {
        // Enough rows for the f32x4 path and its tail, ties at 0, saturation, and NaN.
        let z: Vec<f32> = (0..23).map(|i| (i as f32 - 11.0) * 0.83).chain([0.0, -0.0, 9.0, f32::NAN]).collect();
        let labels: Vec<f32> = (0..z.len()).map(|i| if i % 3 == 0 { -1.0 } else { 1.0 }).collect();
        let (mut fast, mut rows) = (vec![0.0; z.len()], vec![0.0; z.len()]);
        let a = Loss::SquaredError.eval(&z, &labels, false, Some(&mut fast));
        let b = Loss::SquaredError.eval_rows(&z, &labels, false, Some(&mut rows));
        assert_eq!(a.0.to_bits(), b.0.to_bits());
        assert_eq!(a.1, b.1);
        assert!(fast.iter().zip(&rows).all(|(x, y)| x.to_bits() == y.to_bits()), "{fast:?} vs {rows:?}");
        let finite = &z[..z.len() - 1];
        let sum = Loss::SquaredError.eval(finite, &labels[..finite.len()], false, None);
        let grad_sum = Loss::SquaredError.eval(finite, &labels[..finite.len()], false, Some(&mut fast[..finite.len()]));
        assert_eq!(sum, grad_sum);
    }

    #[test]
    fn values_accuracy_and_scores() {
        let (l, right) = Loss::BinaryCrossEntropy.eval(&[0.0, 100.0, -100.0], &[1.0, 1.0, 1.0], false, None);
        assert!((l - (2f64.ln() + 100.0)).abs() < 1e-4, "{l}");
        assert_eq!(right, 2);
        let (l, right) = Loss::SoftmaxCrossEntropy.eval(&[0.0, 0.0, 3.0, -1.0], &[1.0, -1.0], false, None);
        assert!((l - (2f64.ln() + (1.0 + (-4f64).exp()).ln())).abs() < 1e-5, "{l}");
        assert_eq!(right, 1); // a tie is class 0
        assert_eq!(Loss::SquaredError.eval(&[0.5], &[1.5], true, None), (0.5, 0));
        assert_eq!(Loss::BinaryCrossEntropy.score(&[0.0], false), 0.0);
        assert!((Loss::SoftmaxCrossEntropy.score(&[0.0, 2.0], false) - 1f32.tanh()).abs() < 1e-5); // tanh((z₁ − z₀)/2)
        assert_eq!(Loss::parse("binary_crossentropy"), Ok(Loss::BinaryCrossEntropy));
        assert!(Loss::parse("hinge").is_err());
    }
}
