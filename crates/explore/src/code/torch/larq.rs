//! PyTorch for Larq's quantizers: Larq defines each with a custom gradient, so the snippets
//! return the codes exactly and write the gradient beside them.

use super::{Torch, custom_grad, exp, f, mean, tanh};
use crate::code::Agreement;
use qscope_quant::larq::{
    ApproxSign, DoReFa, DoReFaMode, MagnitudeAwareSign, NoOp, SteHeaviside, SteSign, SteTern, SwishSign,
};

/// `q = sign(x)` with `sign(0) = +1`, as Larq's `sign`.
const SIGN: &str = "q = torch.where(x.detach() >= 0, 1.0, -1.0)  # sign, 0 -> +1";

/// Larq's clipped STE: `w`, gradient 1 on `|x| ≤ clip_value` (closed), and its name; `1` without a clip.
fn window(clip_value: Option<f64>) -> (String, &'static str) {
    match clip_value {
        None => (String::new(), "1"),
        Some(c) => (format!("w = (x.abs() <= {0}).float()  # Larq's clipped STE: 1 on |x| <= {0}\n", f(c)), "w"),
    }
}

impl Torch for SteSign {
    fn torch(&self) -> String {
        let (w, g) = window(self.clip_value);
        format!("{SIGN}\n{w}{}", custom_grad(g))
    }

    fn agreement(&self) -> Agreement {
        Agreement::Exact
    }
}

impl Torch for ApproxSign {
    fn torch(&self) -> String {
        format!(
            "{SIGN}\ng = torch.where(x.abs() <= 1, (1 - x.abs()) * 2, 0.0)  # Bi-Real's 2 - 2|x| on |x| <= 1\n{}",
            custom_grad("g").replace("gradient g", "gradient 2 - 2|x|")
        )
    }

    fn agreement(&self) -> Agreement {
        Agreement::Exact
    }
}

impl Torch for SwishSign {
    fn torch(&self) -> String {
        format!(
            "{SIGN}\nbx = {} * x.detach()\ncosh = (torch.exp(bx) + torch.exp(-bx)) * 0.5\n\
             g = {0} * (2 - bx * torch.tanh(bx * 0.5)) / (1 + cosh)  # SwishSign's derivative\n{}",
            f(self.beta),
            custom_grad("g")
        )
    }

    fn agreement(&self) -> Agreement {
        exp(160)
    }
}

impl Torch for SteHeaviside {
    fn torch(&self) -> String {
        let (w, g) = window(self.clip_value);
        format!("q = (x.detach() > 0).float()  # step, 0 -> 0\n{w}{}", custom_grad(g))
    }

    fn agreement(&self) -> Agreement {
        Agreement::Exact
    }
}

impl Torch for MagnitudeAwareSign {
    fn torch(&self) -> String {
        let (w, g) = window(self.clip_value);
        let g = if g == "1" { "a".to_string() } else { format!("a * {g}") };
        format!(
            "a = x.detach().abs().mean()  # mean |x| per output channel (a 1-D x is one)\n\
             q = a * torch.where(x.detach() >= 0, 1.0, -1.0)\n{w}{}",
            custom_grad(&g)
        )
    }

    fn agreement(&self) -> Agreement {
        mean(1)
    }
}

impl Torch for SteTern {
    fn torch(&self) -> String {
        let t = if self.ternary_weight_networks {
            "0.7 * x.detach().abs().sum() / x.numel()  # TWN threshold".to_string()
        } else {
            f(self.threshold_value)
        };
        let (w, g) = window(self.clip_value);
        format!(
            "t = {t}\nq = torch.sign(torch.sign(x.detach() + t) + torch.sign(x.detach() - t))\n{w}{}",
            custom_grad(g)
        )
    }

    fn agreement(&self) -> Agreement {
        if self.ternary_weight_networks { mean(1) } else { Agreement::Exact }
    }
}

impl Torch for DoReFa {
    fn torch(&self) -> String {
        let n = format!("{}.0", (1u64 << self.k_bit) - 1);
        match self.mode {
            DoReFaMode::Activations => format!(
                "q = torch.round(x.detach().clamp(0, 1) * {n}) / {n}\n\
                 w = ((x >= 0) & (x <= 1)).float()  # gradient 1 on 0 <= x <= 1\n{}",
                custom_grad("w")
            ),
            DoReFaMode::Weights => format!(
                "t = torch.tanh(x.detach())\nd2 = 2 * t.abs().max()\n\
                 q = 2 * torch.round((t / d2 + 0.5) * {n}) / {n} - 1\n\
                 g = 2 / d2 * (1 - t * t)  # tanh normalised by max|tanh|\n{}",
                custom_grad("g")
            ),
        }
    }

    fn agreement(&self) -> Agreement {
        match self.mode {
            DoReFaMode::Activations => Agreement::Exact,
            DoReFaMode::Weights => tanh(384),
        }
    }
}

impl Torch for NoOp {
    fn torch(&self) -> String {
        "y = x.clone()  # the identity".into()
    }

    fn agreement(&self) -> Agreement {
        Agreement::Exact
    }
}
