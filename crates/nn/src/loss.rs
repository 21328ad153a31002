//! Losses over the output layer's pre-activations `z`, with their link functions folded in
//! (so the gradient is the stable `p − t` form): squared error after tanh (TF Playground's
//! classifier; linear for regression), binary cross-entropy after a sigmoid, softmax
//! cross-entropy over two classes. `exp`, `log`, `tanh` and `sigmoid` are TensorFlow's float32
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
    /// `−log softmax(z)_c` over two outputs (class 0 for label −1, class 1 for +1).
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

    /// Width of the output layer.
    pub fn outputs(self) -> usize {
        if self == Loss::SoftmaxCrossEntropy { 2 } else { 1 }
    }

    /// Over `m = labels.len()` rows of `z` (`m × outputs`): the summed loss, the number of rows
    /// classified right (0 for regression), and, if asked, `∂L/∂z` of the **mean** loss.
    pub fn eval(self, z: &[f32], labels: &[f32], regression: bool, grad: Option<&mut [f32]>) -> (f64, usize) {
        let (m, k) = (labels.len(), self.outputs());
        assert_eq!(z.len(), m * k, "loss: shapes");
        match grad {
            Some(grad) if self == Loss::SquaredError && !regression => tanh_squared_error(z, labels, grad),
            grad => self.eval_rows(z, labels, regression, grad),
        }
    }

    /// [`Loss::eval`] row by row.
    fn eval_rows(self, z: &[f32], labels: &[f32], regression: bool, grad: Option<&mut [f32]>) -> (f64, usize) {
        let (m, k) = (labels.len(), self.outputs());
        let inv_m = 1.0 / m as f32;
        let (mut sum, mut correct) = (0.0f64, 0usize);
        let mut grad = grad;
        for (r, &t) in labels.iter().enumerate() {
            let zr = &z[r * k..(r + 1) * k];
            let (loss, right, g) = self.row(zr, t, regression);
            sum += loss as f64;
            correct += right as usize;
            if let Some(gr) = grad.as_deref_mut() {
                for (gi, v) in gr[r * k..(r + 1) * k].iter_mut().zip(g) {
                    *gi = v * inv_m;
                }
            }
        }
        (sum, correct)
    }

    /// One row: (loss, classified right, ∂loss/∂z).
    fn row(self, z: &[f32], t: f32, regression: bool) -> (f32, bool, [f32; 2]) {
        match self {
            Loss::SquaredError if regression => {
                let d = z[0] - t;
                (0.5 * d * d, false, [d, 0.0])
            }
            Loss::SquaredError => {
                let (loss, right, g) = tanh_squared_error_terms(lane::tanh(z[0]), t);
                (loss, right, [g, 0.0])
            }
            Loss::BinaryCrossEntropy => {
                let t01 = if t > 0.0 { 1.0 } else { 0.0 };
                let z0 = z[0];
                // max(z, 0) − z·t + log(1 + e^−|z|): no overflow for any z.
                let loss = z0.max(0.0) - z0 * t01 + lane::log(1.0 + lane::exp(-z0.abs()));
                (loss, (z0 >= 0.0) == (t > 0.0), [lane::sigmoid(z0) - t01, 0.0])
            }
            Loss::SoftmaxCrossEntropy => {
                let c = usize::from(t > 0.0);
                let mx = z[0].max(z[1]);
                let e = [lane::exp(z[0] - mx), lane::exp(z[1] - mx)];
                let s = e[0] + e[1];
                let loss = lane::log(s) + mx - z[c];
                let p = [e[0] / s, e[1] / s];
                let onehot = |i: usize| if i == c { 1.0 } else { 0.0 };
                let predicted = usize::from(z[1] > z[0]);
                (loss, predicted == c, [p[0] - onehot(0), p[1] - onehot(1)])
            }
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
                let z: Vec<f32> = (0..labels.len() * loss.outputs()).map(|i| 0.7 * i as f32 - 1.1).collect();
                let mut g = vec![0.0; z.len()];
                loss.eval(&z, &labels, regression, Some(&mut g));
                for (a, n) in g.iter().zip(numeric(loss, &z, &labels, regression)) {
                    assert!((*a as f64 - n).abs() < 2e-3, "{loss:?}: {a} vs {n}");
                }
            }
        }
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
