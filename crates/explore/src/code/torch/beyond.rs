//! PyTorch for the quantizers beyond QKeras and Larq: shok's SoftRound and torch's fake
//! quantization in their own terms, the papers' STEs in plain torch.

use super::{Torch, custom_grad, f, mean, tanh};
use crate::code::Agreement;
use qscope_quant::beyond::{ClippedSte, FakeQuantize, IdentitySte, Lsq, Pact, SoftRound, SoftRoundAT};

impl Torch for SoftRound {
    fn torch(&self) -> String {
        "from shok.utils.functions.soft_round import SoftRound\ny = SoftRound.apply(x)  # round; gradient x/round(x)"
            .into()
    }

    fn agreement(&self) -> Agreement {
        Agreement::Exact
    }
}

impl Torch for SoftRoundAT {
    fn torch(&self) -> String {
        if self.alpha < 1e-3 {
            // Below α = 10⁻³ the soft rounding is the identity (hard: rounding) with gradient 1.
            let q = if self.hard { "torch.round(x.detach())" } else { "x.detach()" };
            return format!("q = {q}\n{}", custom_grad("1"));
        }
        let a = f(self.alpha);
        let out = if self.hard { "q = torch.round(x.detach())" } else { "q = m + t.detach() / z" };
        format!(
            "import math\nz = torch.tanh(torch.tensor({a} / 2)) * 2\nm = torch.floor(x.detach()) + 0.5\n\
             t = torch.tanh({a} * (x.detach() - m))\n{out}\ng = {a} * (1 - t * t) / z  # the soft staircase's slope\n{}",
            custom_grad("g")
        )
    }

    fn agreement(&self) -> Agreement {
        if self.alpha < 1e-3 { Agreement::Exact } else { tanh(512) }
    }
}

impl Torch for IdentitySte {
    fn torch(&self) -> String {
        format!("q = {0} * torch.round(x.detach() / {0})\n{1}", f(self.step), custom_grad("1"))
    }

    fn agreement(&self) -> Agreement {
        Agreement::Exact
    }
}

impl Torch for ClippedSte {
    fn torch(&self) -> String {
        let (lo, hi) = (f(self.min_value), f(self.max_value));
        format!(
            "q = ({0} * torch.round(x.detach() / {0})).clamp({lo}, {hi})\n\
             w = ((x >= {lo}) & (x <= {hi})).float()  # gradient window, closed: {lo} <= x <= {hi}\n{1}",
            f(self.step),
            custom_grad("w")
        )
    }

    fn agreement(&self) -> Agreement {
        Agreement::Exact
    }
}

impl Torch for Lsq {
    fn torch(&self) -> String {
        let (qn, qp) = self.range();
        let init = match self.step {
            Some(s) => f(s),
            None => format!("(2 * x.detach().abs().mean() / {}).item()", f((qp as f64).sqrt() as f32 as f64)),
        };
        let g = if self.grad_scale { format!("1 / torch.tensor(u.numel() * {qp:.1}).sqrt()") } else { "1.0".into() };
        format!(
            "# LSQ as the paper defines it; torch._fake_quantize_learnable_per_tensor_affine differs\n\
             # (it decides the window from the rounded code and scales the step gradient per element).\n\
             class LSQ(torch.autograd.Function):\n    \
             @staticmethod\n    \
             def forward(ctx, x, s):\n        \
             u = x / s\n        \
             ctx.save_for_backward(u)\n        \
             return s * torch.round(u.clamp({mqn:.1}, {qp:.1}))\n\n    \
             @staticmethod\n    \
             def backward(ctx, gy):\n        \
             u, = ctx.saved_tensors\n        \
             w = (u > {mqn:.1}) & (u < {qp:.1})  # open window on v/s\n        \
             d = torch.where(u <= {mqn:.1}, {mqn:.1}, torch.where(u >= {qp:.1}, {qp:.1}, torch.round(u) - u))\n        \
             g = {g}  # the paper's gradient scale\n        \
             return gy * w, ((gy.double() * d).sum().float() * g)\n\n\
             s = torch.tensor({init}, requires_grad=True)\ny = LSQ.apply(x, s)",
            mqn = -qn,
        )
    }

    fn agreement(&self) -> Agreement {
        if self.step.is_some() { Agreement::Exact } else { mean(1) }
    }
}

impl Torch for Pact {
    fn torch(&self) -> String {
        let n = (1i64 << self.bits) - 1;
        let a = f(self.alpha);
        format!(
            "alpha = torch.tensor({a}, requires_grad=True)\nk = {n}.0 / alpha.detach()\n\
             q = torch.round(x.detach().clamp(0, {a}) * k) / k\n\
             w = ((x >= 0) & (x < {a})).float()  # gradient to x on 0 <= x < alpha\n\
             c = (x.detach() >= {a}).float()  # gradient to alpha where x >= alpha\n\
             y = q - (x.detach() - x) * w - (alpha.detach() - alpha) * c"
        )
    }

    fn agreement(&self) -> Agreement {
        Agreement::Exact
    }
}

impl Torch for FakeQuantize {
    fn torch(&self) -> String {
        format!(
            "y = torch.fake_quantize_per_tensor_affine(x, {}, {}, {}, {})",
            f(self.scale),
            self.zero_point,
            self.quant_min,
            self.quant_max
        )
    }

    fn agreement(&self) -> Agreement {
        Agreement::Exact
    }
}
