//! The hardware facts of the estimators beyond QKeras and Larq.

use super::{Hardware, Warnings};
use crate::quant::beyond::{ClippedSte, FakeQuantize, IdentitySte, Lsq, Pact, SoftRound, SoftRoundAT};

impl Hardware for SoftRound {
    fn not_fixed_point(&self) -> Option<&'static str> {
        None
    }

    fn warnings(&self, _: &mut Warnings) {}
}

impl Hardware for SoftRoundAT {
    fn not_fixed_point(&self) -> Option<&'static str> {
        None
    }

    fn warnings(&self, _: &mut Warnings) {}
}

impl Hardware for IdentitySte {
    fn not_fixed_point(&self) -> Option<&'static str> {
        None
    }

    fn warnings(&self, _: &mut Warnings) {}
}

impl Hardware for ClippedSte {
    fn not_fixed_point(&self) -> Option<&'static str> {
        None
    }

    fn warnings(&self, _: &mut Warnings) {}
}

impl Hardware for Lsq {
    fn not_fixed_point(&self) -> Option<&'static str> {
        None
    }

    fn warnings(&self, _: &mut Warnings) {}
}

impl Hardware for Pact {
    fn not_fixed_point(&self) -> Option<&'static str> {
        None
    }

    fn warnings(&self, _: &mut Warnings) {}
}

impl Hardware for FakeQuantize {
    fn not_fixed_point(&self) -> Option<&'static str> {
        None
    }

    fn warnings(&self, _: &mut Warnings) {}
}
