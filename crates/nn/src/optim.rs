//! Optimizers over flat parameter slices, with Keras' update rules and Larq's Bop for binary
//! weights, and L1/L2 penalties folded into the gradient (`l1·sign(w) + 2·l2·w`, Keras'
//! `l1_l2` regularizer).

use super::named::Named;
use qscope_quant::{Quantizer, Report};

/// Which optimizer, with its hyper-parameters (the learning rate is passed per step).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Optimizer {
    /// `v ← μ·v − lr·g; w ← w + v` (plain SGD for μ = 0).
    Sgd { momentum: f32 },
    /// Kingma & Ba with Keras' bias correction: `w ← w − lr·√(1−β₂ᵗ)/(1−β₁ᵗ) · m/(√v + ε)`.
    Adam { beta1: f32, beta2: f32, epsilon: f32 },
    /// Larq's recipe for binary nets, `CaseOptimizer((Bop.is_binary_variable, Bop(threshold,
    /// gamma)), default_optimizer=Adam(lr))`: Bop (Helwegen et al. 2019, "Latent weights do not
    /// exist") on the weights of every layer whose weight quantizer is binary ([`is_binary`]),
    /// [`Optimizer::ADAM`] at the learning rate on everything else (biases, other layers'
    /// weights, learnable quantizer parameters). Bop per weight, as Larq 0.14's
    /// `Bop._resource_apply_dense` computes it in float32, `g` the gradient through the STE:
    ///
    /// ```text
    /// m ← m + γ·(g − m)              m_t = m.assign_add(gamma * (grad - m)); m starts at 0
    /// w ← sign(−tf.sign(w·m − τ)·w)  var_t = lq.math.sign(-tf.sign(var * m_t - threshold) * var)
    /// ```
    ///
    /// `lq.math.sign` is `tf.sign(tf.sign(x) + 0.1)`: −1 below 0, else +1. So `w·m > τ` (m has
    /// w's sign and |m| > τ/|w|) flips w to −sign(w), `w·m < τ` sets it to sign(w) (sign(0) =
    /// +1), and exactly `w·m = τ` sets +1 whatever w was (tf.sign(0) = 0); a NaN stays NaN. The
    /// weight itself becomes ±1 at the first step (no latent magnitude is kept: its magnitude
    /// only weighs that first comparison); the weight clip, a constraint, still applies after.
    /// (Adam here is qscope's, whose float32 form differs from Keras' legacy kernel in the last
    /// bits: `tests/trainer/bop.rs` says where.)
    Bop { threshold: f32, gamma: f32 },
}

impl Optimizer {
    /// Adam with Keras' defaults (β₁ 0.9, β₂ 0.999, ε 10⁻⁷).
    pub const ADAM: Optimizer = Optimizer::Adam { beta1: 0.9, beta2: 0.999, epsilon: 1e-7 };
    /// Larq's default threshold, `Bop(threshold=1e-8)`.
    pub const BOP_THRESHOLD: f32 = 1e-8;
    /// Larq's default adaptivity rate, `Bop(gamma=1e-4)`.
    pub const BOP_GAMMA: f32 = 1e-4;
    /// Bop with Larq's defaults.
    pub const BOP: Optimizer = Optimizer::Bop { threshold: Self::BOP_THRESHOLD, gamma: Self::BOP_GAMMA };

    /// `sgd`, `adam` or `bop` (the CLI's names); momentum applies to SGD.
    pub fn parse(name: &str, momentum: f32) -> Result<Optimizer, String> {
        OptimizerKind::parse(name).map(|k| k.with_momentum(momentum))
    }

    pub fn kind(&self) -> OptimizerKind {
        match self {
            Optimizer::Sgd { .. } => OptimizerKind::Sgd,
            Optimizer::Adam { .. } => OptimizerKind::Adam,
            Optimizer::Bop { .. } => OptimizerKind::Bop,
        }
    }

    /// Bop with this threshold and γ; any other optimizer unchanged.
    pub fn with_bop(self, threshold: f32, gamma: f32) -> Optimizer {
        match self {
            Optimizer::Bop { .. } => Optimizer::Bop { threshold, gamma },
            other => other,
        }
    }

    /// The rule of every tensor but a binary layer's weights: this one, or under Bop its
    /// default optimizer, Adam with Keras' defaults.
    fn default_rule(self) -> Optimizer {
        if let Optimizer::Bop { .. } = self { Optimizer::ADAM } else { self }
    }
}

/// Whether Bop trains the weights this quantizer quantizes: Larq's `Bop.is_binary_variable`,
/// `getattr(var, "precision", 32) == 1`, where a quantized kernel's precision is its quantizer's
/// (`SteSign`, `ApproxSign`, `SwishSign`, `SteHeaviside`, `MagnitudeAwareSign`: 1; `SteTern`: 2;
/// `DoReFa`: `k_bit`; `NoOp`: its `precision` tag, unset by default). qscope reads that off the
/// levels — two levels, or `NoOp(precision=1)` — which gives Larq's answer for every Larq
/// quantizer and extends it to the others (QKeras' `binary`, `quantized_bits(1,0,1)`, …).
/// Where no layer is binary Larq's `CaseOptimizer` raises ("did not claim any variables");
/// qscope trains such a net (the float twin) with the default optimizer alone.
pub fn is_binary(q: &Quantizer) -> bool {
    match q {
        Quantizer::NoOp(n) => n.precision == Some(1),
        q => q.levels(&Report::default()).count() == Some(2),
    }
}

/// Which optimizer, by name: what the CLI and the page choose (Adam with Keras' defaults; Bop
/// with Adam, as [`Optimizer::Bop`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptimizerKind {
    Sgd,
    Adam,
    Bop,
}

impl Named for OptimizerKind {
    const WHAT: &'static str = "optimizer";
    const ALL: &'static [OptimizerKind] = &[OptimizerKind::Sgd, OptimizerKind::Adam, OptimizerKind::Bop];

    fn name(self) -> &'static str {
        match self {
            OptimizerKind::Sgd => "sgd",
            OptimizerKind::Adam => "adam",
            OptimizerKind::Bop => "bop",
        }
    }
}

impl OptimizerKind {
    /// The optimizer: SGD with this momentum, Adam (which has its own), or Bop with Larq's
    /// defaults ([`Optimizer::with_bop`] sets others).
    pub fn with_momentum(self, momentum: f32) -> Optimizer {
        match self {
            OptimizerKind::Sgd => Optimizer::Sgd { momentum },
            OptimizerKind::Adam => Optimizer::ADAM,
            OptimizerKind::Bop => Optimizer::BOP,
        }
    }
}

/// One tensor's optimizer state (SGD's velocity, Adam's two moments, Bop's moving average of
/// the gradient; Keras' "slots"), allocated once.
#[derive(Clone, Debug, Default)]
pub struct OptimizerState {
    m: Vec<f32>,
    v: Vec<f32>,
}

impl OptimizerState {
    pub fn new(len: usize) -> OptimizerState {
        OptimizerState { m: vec![0.0; len], v: vec![0.0; len] }
    }

    /// The first slot: SGD's velocity, Adam's `m`, Bop's `m`.
    pub fn first(&self) -> &[f32] {
        &self.m
    }
}

/// One training step's optimizer settings: built once per step, applied to every tensor.
#[derive(Clone, Copy, Debug)]
pub struct Update {
    rule: Optimizer,
    /// SGD: the learning rate; Adam (Bop's default optimizer too): the bias-corrected rate.
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
        let rate = match rule.default_rule() {
            Optimizer::Adam { beta1, beta2, .. } => {
                self.b1t *= beta1;
                self.b2t *= beta2;
                lr * (1.0 - self.b2t).sqrt() / (1.0 - self.b1t)
            }
            // SGD (the default rule is never Bop).
            _ => lr,
        };
        Update { rule, rate, l1, l2 }
    }
}

impl Update {
    /// This step without regularization (biases, quantizer parameters).
    pub fn unregularized(self) -> Update {
        Update { l1: 0.0, l2: 0.0, ..self }
    }

    /// The optimizer this step follows.
    pub fn rule(&self) -> Optimizer {
        self.rule
    }

    /// Whether [`Update::apply_binary`] runs Bop.
    pub fn is_bop(&self) -> bool {
        matches!(self.rule, Optimizer::Bop { .. })
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
        match self.rule.default_rule() {
            Optimizer::Adam { epsilon, .. } => -(self.rate * s.m[i] / (s.v[i].sqrt() + epsilon)),
            _ => s.m[i],
        }
    }

    /// Updates `w` in place from the data gradient `g` (plus the penalties' gradient), for every
    /// tensor but a binary layer's weights: SGD, Adam, or under Bop its default optimizer (Adam).
    pub fn apply(&self, w: &mut [f32], g: &[f32], s: &mut OptimizerState) {
        assert!(w.len() == g.len() && s.m.len() == w.len(), "optimizer: shapes");
        let (l1, l2x2) = (self.l1, 2.0 * self.l2);
        let reg = l1 != 0.0 || l2x2 != 0.0;
        let grad = |wi: f32, gi: f32| if reg { penalized(wi, gi, l1, l2x2) } else { gi };
        match self.rule.default_rule() {
            Optimizer::Adam { beta1, beta2, epsilon } => {
                for (((wi, &gi), mi), vi) in w.iter_mut().zip(g).zip(s.m.iter_mut()).zip(s.v.iter_mut()) {
                    let gi = grad(*wi, gi);
                    *mi = beta1 * *mi + (1.0 - beta1) * gi;
                    *vi = beta2 * *vi + (1.0 - beta2) * gi * gi;
                    *wi -= self.rate * *mi / (vi.sqrt() + epsilon);
                }
            }
            Optimizer::Sgd { momentum } => {
                for ((wi, &gi), vi) in w.iter_mut().zip(g).zip(s.m.iter_mut()) {
                    *vi = momentum * *vi - self.rate * grad(*wi, gi);
                    *wi += *vi;
                }
            }
            Optimizer::Bop { .. } => unreachable!("Bop's default optimizer is Adam"),
        }
    }

    /// Updates the weights of a layer whose weight quantizer is binary ([`is_binary`]): Bop
    /// under [`Optimizer::Bop`] (see there; `s` keeps its `m`), else as [`Update::apply`].
    pub fn apply_binary(&self, w: &mut [f32], g: &[f32], s: &mut OptimizerState) {
        let Optimizer::Bop { threshold, gamma } = self.rule else {
            return self.apply(w, g, s);
        };
        assert!(w.len() == g.len() && s.m.len() == w.len(), "optimizer: shapes");
        for ((wi, &gi), mi) in w.iter_mut().zip(g).zip(s.m.iter_mut()) {
            let gi = self.gradient(*wi, gi);
            *mi += gamma * (gi - *mi);
            *wi = bop(*wi, *mi, threshold);
        }
    }
}

/// Bop's new weight from weight `w` and moving average `m`: Larq's
/// `lq.math.sign(-tf.sign(w * m - threshold) * w)`, operation by operation (see
/// [`Optimizer::Bop`]).
pub fn bop(w: f32, m: f32, threshold: f32) -> f32 {
    larq_sign(-tf_sign(w * m - threshold) * w)
}

/// `tf.sign`: −1, +1, a zero as it is, NaN for NaN.
fn tf_sign(x: f32) -> f32 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        x
    }
}

/// Larq's `lq.math.sign(x) = tf.sign(tf.sign(x) + 0.1)`: −1 below 0, +1 at or above (either
/// zero), NaN for NaN.
fn larq_sign(x: f32) -> f32 {
    tf_sign(tf_sign(x) + 0.1)
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
        assert_eq!(Optimizer::parse("bop", 0.9), Ok(Optimizer::Bop { threshold: 1e-8, gamma: 1e-4 }));
        assert!(Optimizer::parse("rmsprop", 0.0).is_err());
    }

    #[test]
    fn bop_flips_a_weight_whose_gradient_average_agrees_with_it_beyond_the_threshold() {
        // (w, m, τ) → w after: w·m > τ flips, w·m < τ keeps (or binarizes) the sign, w·m = τ is +1.
        let cases = [
            (1.0, 0.6, 0.5, -1.0),
            (1.0, 0.4, 0.5, 1.0),
            (-1.0, -0.6, 0.5, 1.0),
            (-1.0, -0.4, 0.5, -1.0),
            (1.0, -0.6, 0.5, 1.0), // m against w: no flip however large
            (-1.0, 0.6, 0.5, -1.0),
            (1.0, 0.5, 0.5, 1.0),   // a tie: tf.sign(0) = 0, so sign(−0·w) = +1
            (-1.0, -0.5, 0.5, 1.0), // the same tie turns −1 into +1
            (-1.0, 0.0, 0.0, 1.0),  // τ = 0 and no gradient yet: a tie too
            (0.3, 2.0, 0.5, -1.0),  // a latent weight: its magnitude weighs the first comparison
            (0.3, 1.0, 0.5, 1.0),
            (-0.2, 1.0, 0.5, -1.0),
            (0.0, 1.0, 0.5, 1.0), // Larq's sign(0) = +1
            (-0.0, -1.0, 0.5, 1.0),
        ];
        for (w, m, t, want) in cases {
            assert_eq!(bop(w, m, t).to_bits(), f32::to_bits(want), "w {w}, m {m}, τ {t}");
        }
        assert!(bop(f32::NAN, 1.0, 0.5).is_nan() && bop(1.0, f32::NAN, 0.5).is_nan());
        // Just past the threshold in float32 flips, the threshold itself does not.
        let t = 1e-8f32;
        assert_eq!(bop(1.0, t, t), 1.0);
        assert_eq!(bop(1.0, f32::from_bits(t.to_bits() + 1), t), -1.0);
        assert_eq!(bop(-1.0, -f32::from_bits(t.to_bits() - 1), t), -1.0);
    }

    #[test]
    fn bop_keeps_a_moving_average_of_the_gradient_and_adam_trains_the_rest() {
        let rule = Optimizer::Bop { threshold: 0.15, gamma: 0.5 };
        let mut clock = Clock::default();
        let (mut w, mut s) = (vec![1.0f32, -1.0], OptimizerState::new(2));
        // m = 0.5·0.25 = 0.125 < 0.15: kept; then m = 0.125 + 0.5·(0.25 − 0.125) = 0.1875 flips
        // the +1 (m agrees with it), not the −1.
        clock.tick(rule, 0.01, 0.0, 0.0).apply_binary(&mut w, &[0.25, 0.25], &mut s);
        assert_eq!((w.as_slice(), s.first()), ([1.0, -1.0].as_slice(), [0.125, 0.125].as_slice()));
        clock.tick(rule, 0.01, 0.0, 0.0).apply_binary(&mut w, &[0.25, 0.25], &mut s);
        assert_eq!((w.as_slice(), s.first()), ([-1.0, -1.0].as_slice(), [0.1875, 0.1875].as_slice()));
        // Everything else follows Adam with Keras' defaults, at the learning rate.
        let (mut bop_clock, mut adam_clock) = (Clock::default(), Clock::default());
        let (mut a, mut b) = (vec![0.5f32, -0.25], vec![0.5f32, -0.25]);
        let (mut sa, mut sb) = (OptimizerState::new(2), OptimizerState::new(2));
        for g in [[0.3, -2.0], [0.1, 0.5]] {
            bop_clock.tick(rule, 0.01, 0.0, 0.0).apply(&mut a, &g, &mut sa);
            adam_clock.tick(Optimizer::ADAM, 0.01, 0.0, 0.0).apply(&mut b, &g, &mut sb);
        }
        assert_eq!(a, b);
        // Under SGD or Adam, a binary layer's weights are updated as any other tensor.
        let (mut c, mut sc) = (vec![0.5f32, -0.25], OptimizerState::new(2));
        Clock::default().tick(Optimizer::ADAM, 0.01, 0.0, 0.0).apply_binary(&mut c, &[0.3, -2.0], &mut sc);
        assert!((c[0] - 0.49).abs() < 1e-6 && (c[1] + 0.24).abs() < 1e-6, "{c:?}");
    }

    #[test]
    fn binary_weights_are_those_of_two_levels_as_larqs_precision_one() {
        let binary = |spec: &str| is_binary(&qscope_quant::parse(spec).unwrap());
        for spec in ["larq.ste_sign", "larq.approx_sign", "larq.magnitude_aware_sign", "larq.ste_heaviside"] {
            assert!(binary(spec), "{spec}");
        }
        assert!(binary("larq.DoReFa(k_bit=1)") && !binary("larq.DoReFa(k_bit=2)"));
        assert!(binary("larq.NoOp(precision=1)") && !binary("larq.NoOp") && !binary("larq.NoOp(precision=2)"));
        assert!(binary("qkeras.binary") && binary("qkeras.quantized_bits(1,0,1)"));
        for spec in ["larq.ste_tern", "qkeras.ternary", "qkeras.quantized_bits(4,0,1)", "qkeras.quantized_tanh(2)"] {
            assert!(!binary(spec), "{spec}");
        }
    }
}
