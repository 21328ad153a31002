//! A trained net's learned quantizer parameters (LSQ's step, PACT's clip), named once for the
//! Train view's weight histograms and `qscope train`'s lines.

use qscope_nn::{Layer, Site};

/// One learned parameter of one layer's quantizer, at the latest step.
#[derive(Clone, Debug, PartialEq)]
pub struct LearnedRow {
    /// The layer, from 0 (the last is the output layer).
    pub layer: usize,
    /// Whose quantizer: `weights`, `activation` (a quantizer used as the activation function)
    /// or `activations` (the activation quantizer).
    pub site: &'static str,
    /// The parameter (`step`, `alpha`).
    pub name: &'static str,
    pub value: f32,
    /// `∂L/∂θ` of the last backward pass.
    pub grad: f32,
}

impl LearnedRow {
    /// `hidden1_weights_step`: the key of `qscope train --json`'s `learned` object.
    pub fn key(&self, layers: usize) -> String {
        let layer = if self.layer + 1 >= layers { "output".into() } else { format!("hidden{}", self.layer + 1) };
        format!("{layer}_{}_{}", self.site, self.name)
    }

    /// `weights step 0.2312` as a histogram caption shows it (four significant digits).
    pub fn caption(&self) -> String {
        format!("{} {} {}", self.site, self.name, significant(self.value, 4))
    }
}

/// Every learned parameter of `layers`, layer by layer.
pub fn learned_rows(layers: &[Layer]) -> Vec<LearnedRow> {
    let site = |s: Site| match s {
        Site::Weights => "weights",
        Site::ActivationFn => "activation",
        Site::Output => "activations",
    };
    let rows = layers.iter().enumerate().flat_map(|(layer, l)| {
        l.learned().into_iter().map(move |p| LearnedRow {
            layer,
            site: site(p.site),
            name: p.name,
            value: p.value,
            grad: p.grad,
        })
    });
    rows.collect()
}

/// `v` to `digits` significant digits (trailing zeros kept: `0.5000`).
fn significant(v: f32, digits: usize) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let decimals = (digits as i32 - 1 - v.abs().log10().floor() as i32).max(0) as usize;
    format!("{v:.decimals$}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use qscope_nn::{Config, DatasetKind, Trainer};
    use qscope_quant::parse;

    fn trainer(wq: &str) -> Trainer {
        let mut c = Config::new(DatasetKind::Circle);
        for h in &mut c.hidden {
            h.weights = Some(parse(wq).unwrap());
        }
        Trainer::new(c).unwrap()
    }

    #[test]
    fn an_lsq_net_names_one_learned_step_per_hidden_layer() {
        let t = trainer("lsq(2)");
        let rows = learned_rows(t.layers());
        let keys: Vec<String> = rows.iter().map(|r| r.key(t.layers().len())).collect();
        let expected: Vec<String> = (1..=t.config().hidden.len()).map(|h| format!("hidden{h}_weights_step")).collect();
        assert_eq!(keys, expected);
    }

    #[test]
    fn the_step_starts_set_and_moves_as_the_net_trains() {
        let mut t = trainer("lsq(2)");
        let first = learned_rows(t.layers())[0].value;
        assert!(first.is_finite() && first > 0.0, "{first}");
        for _ in 0..5 {
            t.step_epoch().unwrap();
        }
        assert_ne!(learned_rows(t.layers())[0].value, first);
    }

    #[test]
    fn a_net_without_learnable_quantizers_has_no_rows() {
        assert!(learned_rows(trainer("larq.ste_sign").layers()).is_empty());
    }

    #[test]
    fn captions_round_to_four_significant_digits() {
        let row = LearnedRow { layer: 0, site: "weights", name: "step", value: 0.30119923, grad: 0.0 };
        assert_eq!(row.caption(), "weights step 0.3012");
        assert_eq!(significant(12.3456, 4), "12.35");
        assert_eq!(significant(f32::NAN, 4), "NaN");
    }
}
