//! PyTorch for QKeras' bounded quantizers and functions: quantized tanh, sigmoid and µ-law,
//! the binary, ternary and stochastic classes, and the functions (`_round_through`, the hard,
//! smooth and binary sigmoids and tanhs, stochastic rounding).

use super::{PO2, RNG, STOCHASTIC_ROUND, Torch, custom_grad, exp, f, log, mean, p2, po2_bounded, tanh};
use crate::code::Agreement;
use qscope_quant::qkeras::{
    Bernoulli, Binary, BinarySigmoid, BinaryTanh, HardSigmoid, HardTanh, QuantizedSigmoid, QuantizedTanh,
    QuantizedUlaw, RoundThrough, SmoothSigmoid, SmoothTanh, StochasticBinary, StochasticRound, StochasticRoundPo2,
    StochasticTernary, Ternary,
};
use qscope_quant::schema::Alpha;

/// `clip(round(m·p(x))/m, lo, hi)` with gradient `p'(x)` inside the clip range; `p` and `dp`
/// are defined by `squash` (detached tensors).
fn squash(squash: &str, m: f64, lo: f64, hi: f64, stochastic: bool) -> String {
    let (setup, rounded) = if stochastic {
        (STOCHASTIC_ROUND, format!("stochastic_round(p * {}, 0.5)", f(m)))
    } else {
        ("", format!("torch.round(p * {})", f(m)))
    };
    let (lo, hi) = (f(lo), f(hi));
    format!(
        "{setup}{squash}\nr = {rounded} / {}\nq = r.clamp({lo}, {hi})\n\
         g = dp * ((r >= {lo}) & (r <= {hi}))  # the squash's slope inside the clip range\n{}",
        f(m),
        custom_grad("g")
    )
}

/// `p = hard_sigmoid(x)` and its slope `dp`, ½ on the closed window.
const HARD_SIGMOID: &str =
    "u = 0.5 * x.detach() + 0.5\np = u.clamp(0, 1)  # hard sigmoid\ndp = 0.5 * ((u >= 0) & (u <= 1))";

impl Torch for QuantizedTanh {
    fn torch(&self) -> String {
        let m = 2f64.powi(self.bits - 1);
        let p = if self.use_real_tanh {
            "p = torch.tanh(x.detach())\ndp = 1 - p * p".to_string()
        } else {
            format!("{HARD_SIGMOID}\np = 2 * p - 1  # hard tanh\ndp = 2 * dp")
        };
        squash(&p, m, -1.0 + self.symmetric as i32 as f64 / m, 1.0 - 1.0 / m, self.use_stochastic_rounding)
    }

    fn agreement(&self) -> Agreement {
        match (self.use_stochastic_rounding, self.use_real_tanh) {
            (true, _) => RNG,
            (false, true) => tanh(16),
            (false, false) => Agreement::Exact,
        }
    }
}

impl Torch for QuantizedSigmoid {
    fn torch(&self) -> String {
        let m = 2f64.powi(self.bits);
        let p = if self.use_real_sigmoid {
            "e = torch.exp(x.detach().clamp(max=16.635532))\np = e / (1 + e)  # sigmoid, as TensorFlow writes it\ndp = p * (1 - p)"
                .to_string()
        } else {
            HARD_SIGMOID.to_string()
        };
        squash(&p, m, self.symmetric as i32 as f64 / m, 1.0 - 1.0 / m, self.use_stochastic_rounding)
    }

    fn agreement(&self) -> Agreement {
        match (self.use_stochastic_rounding, self.use_real_sigmoid) {
            (true, _) => RNG,
            (false, true) => exp(2),
            (false, false) => Agreement::Exact,
        }
    }
}

impl Torch for QuantizedUlaw {
    fn torch(&self) -> String {
        let m = 2f64.powi(self.bits - 1);
        let (sm, mi, u) = (f(m), p2(self.integer), f(self.u));
        let (lo, hi) = (f(-1.0 + self.symmetric as i32 as f64 / m), f(1.0 - 1.0 / m));
        format!(
            "v = 0.5 * (x.detach() / {mi}) + 0.5\nds = 0.5 * ((v >= 0) & (v <= 1))\n\
             rp = 2 * (torch.round(v.clamp(0, 1) * {sm}) / {sm}) - 1\n\
             l = torch.log(torch.tensor(1 + {u}))\nsg = torch.sign(rp)\n\
             c = sg * torch.log(1 + {u} * rp.abs()) / l  # mu-law\nq = {mi} * c.clamp({lo}, {hi})\n\
             g = {mi} * ((c >= {lo}) & (c <= {hi})) / l * sg * (1 / (1 + {u} * rp.abs())) * {u} * sg * 2 / {sm} * {sm} * ds / {mi}\n\
             g = torch.where(ds > 0, g, 0.0)  # 0 outside the window, NaN included\n{}",
            custom_grad("g")
        )
    }

    fn agreement(&self) -> Agreement {
        log(2)
    }
}

/// `s = least squares scale of codes k against t` (auto, auto_po2), as QKeras fits it.
fn least_squares(alpha: Alpha, t: &str, min_exp: Option<i32>, max_exp: Option<i32>) -> String {
    let s = format!("({t} * k).mean() / ((k * k).mean() + 1e-7)");
    if alpha != Alpha::AutoPo2 {
        return s;
    }
    po2_bounded(&s, min_exp, max_exp)
}

/// The Python prelude a least-squares fit needs.
fn ls_prelude(alpha: Alpha) -> String {
    if alpha == Alpha::AutoPo2 { format!("import math\n{PO2}") } else { String::new() }
}

/// The scale as Python: the fitted `s` for auto alphas, the number, or nothing (1).
fn scale(alpha: Alpha) -> String {
    match alpha {
        Alpha::Value(a) => format!("{} * ", f(a)),
        Alpha::None => String::new(),
        Alpha::Auto | Alpha::AutoPo2 => "s * ".into(),
    }
}

/// QKeras' binary/ternary output: through tanh when alpha is None (gradient 1 − tanh²), else
/// the identity STE; `xq` holds the codes times the scale.
fn tanh_or_identity(alpha: Alpha, through: &str) -> String {
    if alpha == Alpha::None {
        format!(
            "t = torch.tanh({through})\ny = xq - ({through}.detach() - {through}) * (1 - t.detach() * t.detach())  # gradient 1 - tanh^2"
        )
    } else {
        format!("y = {through} + (xq - {through}).detach()  # QKeras' STE")
    }
}

impl Torch for Binary {
    fn torch(&self) -> String {
        let code = |v: &str| {
            let sign = format!("torch.where({v} >= 0, 1.0, -1.0)");
            if self.use_01 { format!("k = ({sign} + 1) / 2  # 0 or 1") } else { format!("k = {sign}  # sign, 0 -> +1") }
        };
        if !self.use_stochastic_rounding {
            let s = if self.alpha.is_auto() {
                let ls = least_squares(self.alpha, "x.detach()", self.min_po2_exponent, self.max_po2_exponent);
                format!("{}s = {ls}\n", ls_prelude(self.alpha))
            } else {
                String::new()
            };
            return format!(
                "{}\n{s}xq = {}k\n{}",
                code("x.detach()"),
                scale(self.alpha),
                tanh_or_identity(self.alpha, "x")
            );
        }
        let t = if self.alpha == Alpha::None { "torch.tanh(v.detach())" } else { "v.detach()" };
        let s = if self.alpha.is_auto() {
            format!("s = {}\n", least_squares(self.alpha, t, self.min_po2_exponent, self.max_po2_exponent))
        } else {
            String::new()
        };
        format!(
            "{}{STOCHASTIC_ROUND}f = 2 * x.detach().abs().max().clamp(max=1)\n\
             v = x + (f * stochastic_round(x.detach() / f, 0.125) - x).detach()  # gradient 1\n\
             sv = torch.sign(v.detach())\n\
             sv = torch.where(sv == 0, 2 * torch.round(torch.rand_like(sv)) - 1, sv)  # a random sign at 0\n\
             {}\n{s}xq = {}k\n{}",
            ls_prelude(self.alpha),
            code("sv"),
            scale(self.alpha),
            tanh_or_identity(self.alpha, "v")
        )
    }

    fn agreement(&self) -> Agreement {
        if self.use_stochastic_rounding {
            RNG
        } else if self.alpha == Alpha::None {
            tanh(384)
        } else if self.alpha == Alpha::Auto {
            mean(2)
        } else {
            Agreement::Exact
        }
    }
}

/// QKeras' ternary codes: the fixed-threshold form.
fn ternary_fixed(alpha: Alpha, threshold: Option<f64>) -> String {
    let t = f(threshold.unwrap_or(0.33));
    format!(
        "k = torch.where(x.detach().abs() >= {t}, torch.sign(x.detach()), 0.0)\nxq = {}k\n{}",
        scale(alpha),
        tanh_or_identity(alpha, "x")
    )
}

/// QKeras' ternary 'auto' fit: `s` from max |x|, then `unrolls` least-squares rounds of the
/// codes `sign(x)·1[|q| ≥ s/2]`, `q` the value compared (a Python expression of `s`).
fn ternary_auto(alpha: Alpha, unrolls: i32, q: &str) -> String {
    let start =
        if alpha == Alpha::AutoPo2 { "po2(2 * x.detach().abs().max() / 3)" } else { "2 * x.detach().abs().max() / 3" };
    format!(
        "{}s = {start}\nfor _ in range({unrolls}):  # least-squares rounds\n    \
         k = torch.where(({q}).abs() >= s / 2, torch.sign(x.detach()), 0.0)\n    \
         s = {}\n",
        ls_prelude(alpha),
        least_squares(alpha, "x.detach()", None, None)
    )
}

impl Torch for Ternary {
    fn torch(&self) -> String {
        if !self.alpha.is_auto() {
            return ternary_fixed(self.alpha, self.threshold);
        }
        let (setup, round) = if self.use_stochastic_rounding {
            (STOCHASTIC_ROUND, "s * stochastic_round(x.detach() / s, 1 / 3)")
        } else {
            ("", "s * torch.round(x.detach() / s)")
        };
        format!(
            "{setup}{}xq = s * k\ny = x + (xq - x).detach()  # QKeras' STE",
            ternary_auto(self.alpha, self.number_of_unrolls, round)
        )
    }

    fn agreement(&self) -> Agreement {
        match self.alpha {
            _ if self.use_stochastic_rounding => RNG,
            Alpha::None => tanh(384),
            Alpha::Auto => mean(2),
            _ => Agreement::Exact,
        }
    }
}

/// `sig(z)`: the real or the hard sigmoid the stochastic quantizers draw with.
fn sigmoid(real: bool) -> &'static str {
    if real {
        "def sig(z):  # sigmoid, as TensorFlow writes it\n    e = torch.exp(z.clamp(max=16.635532))\n    return e / (1 + e)\n"
    } else {
        "def sig(z):  # hard sigmoid\n    return (0.5 * z + 0.5).clamp(0, 1)\n"
    }
}

/// `sd`: the standard deviation plus Keras' ε for 'auto', else 1.
fn std_eps(alpha: Alpha) -> &'static str {
    if alpha.is_auto() { "sd = ((x.detach() - x.detach().mean()) ** 2).mean().sqrt() + 1e-7\n" } else { "sd = 1.0\n" }
}

/// `+1` with probability `p`, else `-1`.
const DRAW: &str = "torch.where(p - torch.rand_like(p) >= 0, 1.0, -1.0)";

/// QKeras' stochastic binary draws: `+1` (or 1 with `to01`) with probability σ(T·x/sd),
/// scaled by the least-squares fit of the sign codes for 'auto'.
fn draw_binary(alpha: Alpha, real: bool, temperature: f64, to01: bool) -> String {
    let sign = "torch.where(x.detach() >= 0, 1.0, -1.0)";
    let (k, q, what) = if to01 {
        (format!("({sign} + 1) / 2"), format!("({DRAW} + 1) / 2"), "1")
    } else {
        (sign.to_string(), DRAW.to_string(), "+1")
    };
    let s = if alpha.is_auto() {
        format!("{}k = {k}\ns = {}\n", ls_prelude(alpha), least_squares(alpha, "x.detach()", None, None))
    } else {
        String::new()
    };
    format!(
        "{}{}{s}p = sig({} * x.detach() / sd)\nxq = {}{q}  # {what} with probability p\n\
         y = x + (xq - x).detach()  # QKeras' STE",
        sigmoid(real),
        std_eps(alpha),
        f(temperature),
        scale(alpha)
    )
}

impl Torch for StochasticBinary {
    fn torch(&self) -> String {
        draw_binary(self.alpha, self.use_real_sigmoid, self.temperature, false)
    }

    fn agreement(&self) -> Agreement {
        RNG
    }
}

impl Torch for Bernoulli {
    fn torch(&self) -> String {
        draw_binary(self.alpha, self.use_real_sigmoid, self.temperature, true)
    }

    fn agreement(&self) -> Agreement {
        RNG
    }
}

impl Torch for StochasticTernary {
    fn torch(&self) -> String {
        if !self.alpha.is_auto() {
            let t = ternary_fixed(self.alpha, self.threshold);
            return format!("# inference: the ternary quantizer (QKeras asserts alpha='auto' in training)\n{t}");
        }
        format!(
            "{}{}{}t = s / (2 * sd)\nxn = x.detach() / sd\n\
             p = sig({temp} * (xn - t))\nq0 = {DRAW}\np = sig({temp} * (xn + t))\nq1 = {DRAW}\n\
             xq = s * ((q0 + q1) / 2)\ny = x + (xq - x).detach()  # QKeras' STE",
            sigmoid(self.use_real_sigmoid),
            std_eps(Alpha::Auto),
            ternary_auto(self.alpha, self.number_of_unrolls, "x.detach()"),
            temp = f(self.temperature),
        )
    }

    fn agreement(&self) -> Agreement {
        if self.alpha.is_auto() { RNG } else { Ternary { alpha: self.alpha, ..Ternary::default() }.agreement() }
    }
}

impl Torch for RoundThrough {
    fn torch(&self) -> String {
        if self.use_stochastic_rounding {
            format!("{STOCHASTIC_ROUND}y = x + (stochastic_round(x.detach(), {}) - x).detach()", f(self.precision))
        } else {
            "y = x + (torch.round(x.detach()) - x).detach()  # QKeras' STE".into()
        }
    }

    fn agreement(&self) -> Agreement {
        if self.use_stochastic_rounding { RNG } else { Agreement::Exact }
    }
}

impl Torch for StochasticRound {
    fn torch(&self) -> String {
        format!("{STOCHASTIC_ROUND}y = stochastic_round(x.detach(), {}) + 0 * x  # no gradient", f(self.precision))
    }

    fn agreement(&self) -> Agreement {
        RNG
    }
}

impl Torch for StochasticRoundPo2 {
    fn torch(&self) -> String {
        "import math\na = x.detach().abs()\ne0 = torch.round(torch.log(a + 1e-7) / math.log(2))\n\
         lo = torch.where(torch.exp2(e0) > a, e0 - 1, e0)  # the exponents around log2 |x|\n\
         v = torch.exp2(lo) + (torch.exp2(lo + 1) - torch.exp2(lo)) * torch.rand_like(a)\n\
         y = torch.where(a < v, lo, lo + 1) + 0 * x  # an exponent with E[2^e] = |x|; no gradient"
            .into()
    }

    fn agreement(&self) -> Agreement {
        RNG
    }
}

/// `s·clip(a·x + ½, 0, 1) + o` with the slope `s·a` on the closed window.
fn clipped_linear(a: &str, s: &str, o: &str) -> String {
    format!(
        "u = {a} * x + 0.5\nuw = torch.where((u >= 0) & (u <= 1), u, u.detach().clamp(0, 1))  # slope only on 0 <= u <= 1\n\
         y = {s} * uw + {o}"
    )
}

/// QKeras' `binary_sigmoid`: `_round_through(hard_sigmoid(x))`.
const BINARY_SIGMOID: &str = "u = 0.5 * x + 0.5\nh = torch.where((u >= 0) & (u <= 1), u, u.detach().clamp(0, 1))  # hard sigmoid, slope on 0 <= u <= 1\n\
     b = h + (torch.round(h.detach()) - h).detach()  # _round_through";

macro_rules! exact {
    ($($ty:ident => $body:expr;)*) => {
        $(impl Torch for $ty {
            fn torch(&self) -> String {
                $body
            }

            fn agreement(&self) -> Agreement {
                Agreement::Exact
            }
        })*
    };
}

exact! {
    HardSigmoid => clipped_linear("0.5", "1.0", "0.0");
    HardTanh => clipped_linear("0.5", "2.0", "-1.0");
    SmoothSigmoid => clipped_linear("0.1875", "1.0", "0.0");
    SmoothTanh => clipped_linear("0.1875", "2.0", "-1.0");
    BinarySigmoid => format!("{BINARY_SIGMOID}\ny = b");
    BinaryTanh => format!("{BINARY_SIGMOID}\ny = 2 * b - 1");
}
