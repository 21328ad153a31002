//! PyTorch text for every quantizer: torch's own fake quantization and shok's SoftRound where
//! a PyTorch library defines the quantizer, plain torch otherwise.
//!
//! Codes are computed on detached tensors; the gradient is written separately, always as an
//! explicit window or slope (`torch.where` on the interval the library defines, closed or open
//! as its kernel decides at the bound). `torch.clamp` only ever clips detached values: its
//! gradient at a scalar bound changed between torch releases (1 up to 2.10, 0 from 2.15), so a
//! snippet that relied on it would agree with qscope in one torch and not the other.
//!
//! Two straight-through forms recur:
//! - QKeras' `x + stop_gradient(xq − x)` is written as QKeras writes it (`x + (xq - x).detach()`),
//!   so values carry the same float rounding as QKeras'.
//! - A custom-gradient quantizer (Larq, the papers' STEs) returns its codes exactly:
//!   `y = q - (x.detach() - x) * g` is q in value (its sign of zero kept) and g in gradient.
//!
//! One [`Torch`] impl per catalogue type: [`qkeras`] (fixed-point and power-of-two classes),
//! [`squash`] (QKeras' sign, ternary and activation quantizers and functions), [`larq`],
//! [`beyond`].

mod beyond;
mod bnb;
mod larq;
mod ml_dtypes;
mod qkeras;
mod squash;
mod torchao;
mod torchao_int;

use super::Agreement;
use qscope_quant::{Quantizer, each_quantizer};

/// A quantizer as PyTorch code.
pub(super) trait Torch {
    /// The body of a snippet computing `y` from `x` (a float32 1-D tensor with
    /// requires_grad), with every learnable parameter a leaf tensor named as qscope names it.
    fn torch(&self) -> String;
    /// How that body's numbers agree with qscope's on the same input.
    fn agreement(&self) -> Agreement;
}

/// The PyTorch body for `q`.
pub(super) fn snippet(q: &Quantizer) -> String {
    each_quantizer!(q, k => k.torch())
}

/// How [`snippet`]'s numbers agree with qscope's.
pub(super) fn agreement(q: &Quantizer) -> Agreement {
    each_quantizer!(q, k => k.agreement())
}

/// Draws from torch's generator: the same distribution as qscope's draws, not the same draws.
pub(super) const RNG: Agreement = Agreement::Distribution { why: "torch's random stream is not qscope's" };

const TANH: &str = "torch.tanh is not Eigen's tanh";
const EXP: &str = "torch.exp is not Eigen's exp";
const LOG: &str = "torch.log is not Eigen's log";

/// torch's tanh against Eigen's rational tanh (TensorFlow's, which qscope follows).
const fn tanh(ulps: u32) -> Agreement {
    Agreement::Ulps { ulps, why: TANH }
}

/// torch's exp/sigmoid against Eigen's (TensorFlow's, which qscope follows).
const fn exp(ulps: u32) -> Agreement {
    Agreement::Ulps { ulps, why: EXP }
}

/// torch's log against Eigen's (TensorFlow's, which qscope follows).
const fn log(ulps: u32) -> Agreement {
    Agreement::Ulps { ulps, why: LOG }
}

/// Whether `q`'s value or gradient goes through tanh, exp or log (so even TensorFlow's own
/// gradient, composed by autodiff, can round a last bit differently from qscope's closed form).
pub(super) fn transcendental(q: &Quantizer) -> bool {
    matches!(agreement(q), Agreement::Ulps { why, .. } if [TANH, EXP, LOG].contains(&why))
}

/// A power-of-two exponent rounded from torch's log: where log2 lands on a tie (√2·2^k under
/// quadratic_approximation) torch's log can round it the other way than Eigen's, one level off.
const PO2_TIE: Agreement = Agreement::Level {
    why: "torch.log is not Eigen's log: where log2 lands on a tie, the exponent can round the other way",
};

/// torch's mean sums in another order than Eigen's reducer (TensorFlow's, which qscope follows).
pub(super) const fn mean(ulps: u32) -> Agreement {
    Agreement::Ulps { ulps, why: "torch.mean sums in another order than TensorFlow" }
}

/// `stochastic_round(v, p)`: QKeras' unbiased stochastic rounding as a Python function.
const STOCHASTIC_ROUND: &str = "def stochastic_round(v, p):  # down w.p. 1 - frac(v/p), up w.p. frac(v/p)\n    \
     v = v * (1 / p)\n    \
     return torch.where(v - v.floor() < torch.rand_like(v), v.floor(), v.ceil()) / (1 / p)\n";

/// `po2(s)`: the power of two nearest `s` on a log scale, as QKeras' auto_po2 rounds scales.
const PO2: &str = "def po2(s):  # 2^round(log2 s), as QKeras rounds an auto_po2 scale\n    \
     return torch.exp2(torch.round(torch.log(s + 1e-7) / math.log(2)))\n";

/// QKeras' blend of the quantized value `xq` (detached) with `x`: `x + stop_gradient(q·(xq − x))`
/// with the STE, `(1 − q)·x + q·xq` without; `xu` is the float value the STE passes through.
fn qkeras_blend(xu: &str, qnoise: f64, use_ste: bool) -> String {
    match (use_ste, qnoise == 1.0) {
        (true, true) => format!("y = {xu} + (xq - {xu}).detach()  # QKeras' STE"),
        (true, false) => format!("y = {xu} + ({} * (xq - {xu})).detach()  # QKeras' STE, qnoise_factor", f(qnoise)),
        (false, true) => {
            format!("y = xq - ({xu}.detach() - {xu}) * 0.0  # use_ste=False: gradient 1 - qnoise_factor = 0")
        }
        (false, false) => format!(
            "y = {} * {xu} + {} * xq  # use_ste=False: gradient 1 - qnoise_factor",
            f((1.0 - qnoise) as f32 as f64),
            f(qnoise)
        ),
    }
}

/// The custom-gradient form: value `q` exactly, gradient `g` (a detached tensor or number).
fn custom_grad(g: &str) -> String {
    if g == "1" {
        "y = q - (x.detach() - x)  # value q, gradient 1".into()
    } else {
        format!("y = q - (x.detach() - x) * {g}  # value q, gradient {g}")
    }
}

/// `s = po2(s)` bounded by the optional exponents (auto_po2's least-squares refinement).
pub(super) fn po2_bounded(s: &str, min_exp: Option<i32>, max_exp: Option<i32>) -> String {
    let mut out = format!("po2({s})");
    if let Some(lo) = min_exp {
        out = format!("{out}.clamp(min={})", p2(lo));
    }
    if let Some(hi) = max_exp {
        out = format!("{out}.clamp(max={})", p2(hi));
    }
    out
}

/// A float as Python text (shortest round trip).
fn f(v: f64) -> String {
    qscope_quant::schema::fmt_float(v)
}

/// `2^e` as Python text.
fn p2(e: i32) -> String {
    f(2f64.powi(e))
}
