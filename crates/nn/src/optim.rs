//! Optimizers over flat parameter slices, with Keras' update rules, and L1/L2 penalties
//! folded into the gradient (`l1·sign(w) + 2·l2·w`, Keras' `l1_l2` regularizer).

use super::named::Named;

/// Which optimizer, with its hyper-parameters (the learning rate is passed per step).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Optimizer {
    /// `v ← μ·v − lr·g; w ← w + v` (plain SGD for μ = 0).
    Sgd { momentum: f32 },
    /// Kingma & Ba with Keras' bias correction: `w ← w − lr·√(1−β₂ᵗ)/(1−β₁ᵗ) · m/(√v + ε)`.
    Adam { beta1: f32, beta2: f32, epsilon: f32 },
}

impl Optimizer {
    /// Adam with Keras' defaults (β₁ 0.9, β₂ 0.999, ε 10⁻⁷).
    pub const ADAM: Optimizer = Optimizer::Adam { beta1: 0.9, beta2: 0.999, epsilon: 1e-7 };

    /// `sgd` or `adam` (the CLI's names); momentum applies to SGD.
    pub fn parse(name: &str, momentum: f32) -> Result<Optimizer, String> {
        OptimizerKind::parse(name).map(|k| k.with_momentum(momentum))
    }

    pub fn kind(&self) -> OptimizerKind {
        match self {
            Optimizer::Sgd { .. } => OptimizerKind::Sgd,
            Optimizer::Adam { .. } => OptimizerKind::Adam,
        }
    }
}

/// Which optimizer, by name: what the CLI and the page choose (Adam with Keras' defaults).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptimizerKind {
    Sgd,
    Adam,
}

impl Named for OptimizerKind {
    const WHAT: &'static str = "optimizer";
    const ALL: &'static [OptimizerKind] = &[OptimizerKind::Sgd, OptimizerKind::Adam];

    fn name(self) -> &'static str {
        match self {
            OptimizerKind::Sgd => "sgd",
            OptimizerKind::Adam => "adam",
        }
    }
}

impl OptimizerKind {
    /// The optimizer: SGD with this momentum, or Adam (which has its own).
    pub fn with_momentum(self, momentum: f32) -> Optimizer {
        match self {
            OptimizerKind::Sgd => Optimizer::Sgd { momentum },
            OptimizerKind::Adam => Optimizer::ADAM,
        }
    }
}

/// One tensor's optimizer state (SGD's velocity, or Adam's two moments; Keras' "slots"),
/// allocated once.
#[derive(Clone, Debug, Default)]
pub struct OptimizerState {
    m: Vec<f32>,
    v: Vec<f32>,
}

impl OptimizerState {
    pub fn new(len: usize) -> OptimizerState {
        OptimizerState { m: vec![0.0; len], v: vec![0.0; len] }
    }
}

/// One training step's optimizer settings: built once per step, applied to every tensor.
#[derive(Clone, Copy, Debug)]
pub struct Update {
    rule: Optimizer,
    /// SGD: the learning rate; Adam: the bias-corrected rate.
    rate: f32,
    l1: f32,
    l2: f32,
}

/// Running powers β₁ᵗ, β₂ᵗ of Adam (exact products, no `powf`, so every platform agrees).
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    pub t: u64,
    b1t: f32,
    b2t: f32,
}

impl Default for Clock {
    fn default() -> Self {
        Clock { t: 0, b1t: 1.0, b2t: 1.0 }
    }
}

impl Clock {
    /// Advances to the next step and returns its settings.
    pub fn tick(&mut self, rule: Optimizer, lr: f32, l1: f32, l2: f32) -> Update {
        self.t += 1;
        let rate = match rule {
            Optimizer::Sgd { .. } => lr,
            Optimizer::Adam { beta1, beta2, .. } => {
                self.b1t *= beta1;
                self.b2t *= beta2;
                lr * (1.0 - self.b2t).sqrt() / (1.0 - self.b1t)
            }
        };
        Update { rule, rate, l1, l2 }
    }
}

impl Update {
    /// This step without regularization (biases, quantizer parameters).
    pub fn unregularized(self) -> Update {
        Update { l1: 0.0, l2: 0.0, ..self }
    }

    /// The gradient the optimizer follows for weight `w` with data gradient `g`: `g` plus the
    /// penalties' `l1·sign(w) + 2·l2·w`.
    pub fn gradient(&self, w: f32, g: f32) -> f32 {
        let (l1, l2x2) = (self.l1, 2.0 * self.l2);
        if l1 != 0.0 || l2x2 != 0.0 { penalized(w, g, l1, l2x2) } else { g }
    }

    /// What [`Update::apply`] added to element `i` of its tensor, read back from the state it left
    /// in `s`: exactly, so `w_before + delta == w_after` in float32.
    pub fn delta(&self, s: &OptimizerState, i: usize) -> f32 {
        match self.rule {
            Optimizer::Sgd { .. } => s.m[i],
            Optimizer::Adam { epsilon, .. } => -(self.rate * s.m[i] / (s.v[i].sqrt() + epsilon)),
        }
    }

    /// Updates `w` in place from the data gradient `g` (plus the penalties' gradient).
    pub fn apply(&self, w: &mut [f32], g: &[f32], s: &mut OptimizerState) {
        assert!(w.len() == g.len() && s.m.len() == w.len(), "optimizer: shapes");
        let (l1, l2x2) = (self.l1, 2.0 * self.l2);
        let reg = l1 != 0.0 || l2x2 != 0.0;
        let grad = |wi: f32, gi: f32| if reg { penalized(wi, gi, l1, l2x2) } else { gi };
        match self.rule {
            Optimizer::Sgd { momentum } => {
                for ((wi, &gi), vi) in w.iter_mut().zip(g).zip(s.m.iter_mut()) {
                    *vi = momentum * *vi - self.rate * grad(*wi, gi);
                    *wi += *vi;
                }
            }
            Optimizer::Adam { beta1, beta2, epsilon } => {
                for (((wi, &gi), mi), vi) in w.iter_mut().zip(g).zip(s.m.iter_mut()).zip(s.v.iter_mut()) {
                    let gi = grad(*wi, gi);
                    *mi = beta1 * *mi + (1.0 - beta1) * gi;
                    *vi = beta2 * *vi + (1.0 - beta2) * gi * gi;
                    *wi -= self.rate * *mi / (vi.sqrt() + epsilon);
                }
            }
        }
    }
}

/// Larq's `WeightClip(c)`, `tf.clip_by_value(w, −c, c)`, in place: values beyond ±c become ±c
/// (infinities too), a NaN stays NaN; for `c > 0`.
pub fn clip_weights(w: &mut [f32], c: f32) {
    for x in w {
        // Comparisons, not `clamp`: a NaN fails both and stays (as TensorFlow's min/max keep it).
        if *x > c {
            *x = c;
        } else if *x < -c {
            *x = -c;
        }
    }
}

/// `g + l1·sign(w) + 2·l2·w` (one expression for [`Update::apply`] and [`Update::gradient`]).
#[inline(always)]
fn penalized(w: f32, g: f32, l1: f32, l2x2: f32) -> f32 {
    g + l1 * sign(w) + l2x2 * w
}

/// sign(w) with sign(0) = 0 (the subgradient of |w| the L1 penalty uses).
fn sign(w: f32) -> f32 {
    if w > 0.0 {
        1.0
    } else if w < 0.0 {
        -1.0
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sgd_with_momentum_accumulates_velocity() {
        let mut clock = Clock::default();
        let (mut w, mut s) = (vec![1.0f32], OptimizerState::new(1));
        let rule = Optimizer::Sgd { momentum: 0.5 };
        clock.tick(rule, 0.1, 0.0, 0.0).apply(&mut w, &[2.0], &mut s);
        assert_eq!(w, [0.8]);
        clock.tick(rule, 0.1, 0.0, 0.0).apply(&mut w, &[2.0], &mut s);
        assert!((w[0] - (0.8 - 0.1 - 0.2)).abs() < 1e-7);
    }

    #[test]
    fn adam_takes_steps_of_the_learning_rate_at_first() {
        let mut clock = Clock::default();
        let (mut w, mut s) = (vec![0.0f32, 0.0], OptimizerState::new(2));
        clock.tick(Optimizer::ADAM, 0.01, 0.0, 0.0).apply(&mut w, &[3.0, -1e-3], &mut s);
        assert!((w[0] + 0.01).abs() < 1e-6 && (w[1] - 0.01).abs() < 1e-4, "{w:?}");
        assert_eq!(clock.t, 1);
    }

    #[test]
    fn penalties_add_their_gradients() {
        let mut clock = Clock::default();
        let (mut w, mut s) = (vec![2.0f32, -2.0, 0.0], OptimizerState::new(3));
        clock.tick(Optimizer::Sgd { momentum: 0.0 }, 1.0, 0.1, 0.25).apply(&mut w, &[0.0; 3], &mut s);
        assert_eq!(w, [2.0 - 0.1 - 1.0, -2.0 + 0.1 + 1.0, 0.0]);
        assert_eq!(Optimizer::parse("Adam", 0.0), Ok(Optimizer::ADAM));
        assert!(Optimizer::parse("rmsprop", 0.0).is_err());
    }
}
