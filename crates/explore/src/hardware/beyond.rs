//! The hardware facts of the estimators beyond QKeras and Larq.

use super::Hardware;
use qscope_quant::beyond::{ClippedSte, FakeQuantize, IdentitySte, Lsq, Pact, SoftRound, SoftRoundAT};

impl Hardware for SoftRound {}
impl Hardware for SoftRoundAT {}
impl Hardware for IdentitySte {}
impl Hardware for ClippedSte {}
impl Hardware for Lsq {}
impl Hardware for Pact {}
impl Hardware for FakeQuantize {}
