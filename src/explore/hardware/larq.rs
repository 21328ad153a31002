//! The hardware facts of the Larq quantizers.

use super::{Hardware, Warnings};
use crate::quant::larq::{ApproxSign, DoReFa, MagnitudeAwareSign, NoOp, SteHeaviside, SteSign, SteTern, SwishSign};

impl Hardware for SteSign {
    fn not_fixed_point(&self) -> Option<&'static str> {
        None
    }

    fn warnings(&self, _: &mut Warnings) {}
}

impl Hardware for ApproxSign {
    fn not_fixed_point(&self) -> Option<&'static str> {
        None
    }

    fn warnings(&self, _: &mut Warnings) {}
}

impl Hardware for SwishSign {
    fn not_fixed_point(&self) -> Option<&'static str> {
        None
    }

    fn warnings(&self, w: &mut Warnings) {
        w.push(format!("SwishSign's gradient turns negative for |x| > 2.3994/β = {:.4}.", 2.3994 / self.beta));
    }
}

impl Hardware for SteHeaviside {
    fn not_fixed_point(&self) -> Option<&'static str> {
        None
    }

    fn warnings(&self, _: &mut Warnings) {}
}

impl Hardware for MagnitudeAwareSign {
    fn not_fixed_point(&self) -> Option<&'static str> {
        None
    }

    fn warnings(&self, _: &mut Warnings) {}
}

impl Hardware for SteTern {
    fn not_fixed_point(&self) -> Option<&'static str> {
        None
    }

    fn warnings(&self, _: &mut Warnings) {}
}

impl Hardware for DoReFa {
    fn not_fixed_point(&self) -> Option<&'static str> {
        None
    }

    fn warnings(&self, _: &mut Warnings) {}
}

impl Hardware for NoOp {
    fn not_fixed_point(&self) -> Option<&'static str> {
        None
    }

    fn warnings(&self, _: &mut Warnings) {}
}
