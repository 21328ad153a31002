//! The hardware facts of the Larq quantizers.

use super::{Hardware, Warnings};
use qscope_quant::larq::{ApproxSign, DoReFa, MagnitudeAwareSign, NoOp, SteHeaviside, SteSign, SteTern, SwishSign};

impl Hardware for SteSign {}
impl Hardware for ApproxSign {}

impl Hardware for SwishSign {
    fn warnings(&self, w: &mut Warnings) {
        w.push(format!("SwishSign's gradient turns negative for |x| > 2.3994/β = {:.4}.", 2.3994 / self.beta));
    }
}

impl Hardware for SteHeaviside {}
impl Hardware for MagnitudeAwareSign {}
impl Hardware for SteTern {}
impl Hardware for DoReFa {}
impl Hardware for NoOp {}
