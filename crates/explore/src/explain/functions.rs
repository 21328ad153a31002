//! Step-by-step explanations of QKeras' quantizing helper functions.

use super::{At, Explain, Trace};
use qscope_quant::qkeras::{
    BinarySigmoid, BinaryTanh, HardSigmoid, HardTanh, RoundThrough, SmoothSigmoid, SmoothTanh, StochasticRound,
    StochasticRoundPo2,
};

impl Explain for RoundThrough {
    fn steps(&self, at: &At, t: &mut Trace) -> Option<String> {
        if !at.deterministic(self.use_stochastic_rounding) {
            return None;
        }
        let v = t.round(at.x);
        t.qkeras_ste(v, at.y);
        Some("the identity STE passes the gradient unchanged".into())
    }
}

impl Explain for StochasticRound {
    fn steps(&self, _: &At, _: &mut Trace) -> Option<String> {
        None
    }
}

impl Explain for StochasticRoundPo2 {
    fn steps(&self, _: &At, _: &mut Trace) -> Option<String> {
        None
    }
}

impl Explain for HardSigmoid {
    fn steps(&self, _: &At, _: &mut Trace) -> Option<String> {
        None
    }
}

impl Explain for HardTanh {
    fn steps(&self, _: &At, _: &mut Trace) -> Option<String> {
        None
    }
}

impl Explain for SmoothSigmoid {
    fn steps(&self, _: &At, _: &mut Trace) -> Option<String> {
        None
    }
}

impl Explain for SmoothTanh {
    fn steps(&self, _: &At, _: &mut Trace) -> Option<String> {
        None
    }
}

impl Explain for BinarySigmoid {
    fn steps(&self, _: &At, _: &mut Trace) -> Option<String> {
        None
    }
}

impl Explain for BinaryTanh {
    fn steps(&self, _: &At, _: &mut Trace) -> Option<String> {
        None
    }
}
