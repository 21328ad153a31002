//! PyTorch for QKeras' fixed-point and power-of-two classes: `quantized_bits`,
//! `quantized_linear`, `quantized_hswish`, `quantized_po2`, `quantized_relu_po2`,
//! `quantized_relu`. Data-dependent scales ('auto', 'auto_po2') are per tensor: a 1-D `x` is
//! one channel.

use super::{PO2, PO2_TIE, RNG, STOCHASTIC_ROUND, Torch, f, p2, po2_bounded, qkeras_blend};
use crate::code::Agreement;
use qscope_quant::qkeras::{
    QuantizedBits, QuantizedHswish, QuantizedLinear, QuantizedPo2, QuantizedRelu, QuantizedReluPo2,
};
use qscope_quant::schema::{Alpha, Literal, Schema};

/// `quantized_bits`' pieces of text (a trait of this file's: the type is the kernels').
trait BitsText {
    fn codes(&self, v: &str) -> String;
    fn is_stochastic_text(&self) -> bool;
}

impl BitsText for QuantizedBits {
    /// Lines computing the detached `xq` from `v` (a tensor name), before QKeras' blend.
    fn codes(&self, v: &str) -> String {
        let kn = self.keep_negative as i32;
        let m = 2f64.powi(self.bits - kn);
        let mi = p2(self.integer);
        if self.alpha.is_auto() {
            let half = format!("{}.0", (1i64 << (self.bits - 1)) - 1);
            let code = format!("torch.sign(u) * (u.abs() / s + 0.5).floor().clamp(max={half})");
            let mut s = match self.post_training_scale {
                Some(pts) => format!("s = {} / {}  # post_training_scale / m\n", f(pts), f(m)),
                None => format!(
                    "s = {v}.detach().abs().max() / {mi} * 2 / {}  # 'auto': max |x| on the top code\n",
                    2 * ((1i64 << (self.bits - 1)) - 1)
                ),
            };
            let mut prelude = String::new();
            if self.alpha == Alpha::AutoPo2 && self.post_training_scale.is_none() {
                let ls = po2_bounded(
                    "(u * z).mean() / ((z * z).mean() + 1e-7)",
                    self.min_po2_exponent,
                    self.max_po2_exponent,
                );
                prelude = format!("import math\n{PO2}");
                s.push_str(&format!(
                    "s = po2(s)\nfor _ in range(5):  # least-squares refinement\n    z = {code}\n    s = {ls}\n"
                ));
            }
            return format!(
                "{prelude}u = {v}.detach() / {mi}\n{s}z = {code}  # codes, half away from zero\nxq = (s * {}) * ({mi} * z / {})",
                f(m),
                f(m)
            );
        }
        let a = match self.alpha {
            Alpha::Value(a) => format!("{} * ", f(a)),
            _ => String::new(),
        };
        if self.bits - kn <= 0 {
            return format!("xq = {a}torch.where({v}.detach() >= 0, 1.0, -1.0)  # one bit: sign, 0 -> +1");
        }
        let lo = if self.keep_negative { -m + self.symmetric as i32 as f64 } else { 0.0 };
        let scaled = format!("{v}.detach() * {}", f(m / 2f64.powi(self.integer)));
        let (setup, k) = if self.use_stochastic_rounding {
            (STOCHASTIC_ROUND.to_string(), format!("stochastic_round({scaled}, 1.0)"))
        } else {
            (String::new(), format!("torch.round({scaled})"))
        };
        format!(
            "{setup}k = {k}  # round half to even, as tf.round\nxq = {a}(k.clamp({}, {}) * {})",
            f(lo),
            f(m - 1.0),
            f(2f64.powi(self.integer) / m)
        )
    }

    /// Whether the snippet draws (stochastic rounding of a fixed-scale code).
    fn is_stochastic_text(&self) -> bool {
        self.use_stochastic_rounding && !self.alpha.is_auto() && self.bits > self.keep_negative as i32
    }
}

impl Torch for QuantizedBits {
    fn torch(&self) -> String {
        format!("{}\n{}", self.codes("x"), qkeras_blend("x", self.qnoise_factor, self.use_ste))
    }

    fn agreement(&self) -> Agreement {
        if self.is_stochastic_text() { RNG } else { Agreement::Exact }
    }
}

impl Torch for QuantizedLinear {
    fn torch(&self) -> String {
        let sign_mode = self.bits == 1 && self.keep_negative;
        let (lo, hi) = if sign_mode {
            (-0.5, 0.5)
        } else {
            let u = 2f64.powi(self.bits - self.keep_negative as i32);
            (if self.keep_negative { -u + self.symmetric as i32 as f64 } else { 0.0 }, u - 1.0)
        };
        let (lo, hi) = (f(lo), f(hi));
        let dts = 2f64.powi(self.integer - self.bits + self.keep_negative as i32);
        let shift = if sign_mode { " - 0.5" } else { "" };
        let unshift = if sign_mode { " + 0.5" } else { "" };
        let mut setup = String::new();
        let round = if self.use_stochastic_rounding {
            setup.push_str(STOCHASTIC_ROUND);
            "stochastic_round(c, 1.0)"
        } else {
            "torch.round(c)"
        };
        let qs = match self.alpha {
            Alpha::None => f(dts),
            Alpha::Value(a) => f(a * dts),
            Alpha::Auto | Alpha::AutoPo2 => {
                let max = if self.keep_negative { "x.detach().abs().max() * 2" } else { "x.detach().max()" };
                setup.push_str(&format!("qs = ({max} / ({hi} - {lo})).clamp(min=1e-7)  # 'auto'\n"));
                if self.alpha == Alpha::AutoPo2 {
                    let rounds = if sign_mode { 1 } else { 5 };
                    setup = format!(
                        "import math\n{PO2}{setup}cur, last = po2(qs), -1.0\nfor _ in range({rounds}):  # least squares until it settles\n    \
                         if last == cur:\n        break\n    \
                         c = (x.detach() / cur).clamp({lo}, {hi}){shift}\n    \
                         k = {round}{unshift}\n    \
                         last, cur = cur, po2((x.detach() * k).mean() / ((k * k).mean() + 1e-7))\nqs = cur\n"
                    );
                }
                "qs".into()
            }
        };
        let blend = if self.qnoise_factor == 1.0 {
            "xw = torch.where(w, x, x.detach())\ny = xw + (xq - xw).detach()".to_string()
        } else {
            format!("y = x + {} * (xq + (x - x.detach()) * w - x)", f(self.qnoise_factor))
        };
        format!(
            "{setup}u = x.detach() / {qs}\nc = u.clamp({lo}, {hi}){shift}\nxq = ({round}{unshift}) * {qs}\n\
             w = (u >= {lo}) & (u <= {hi})  # QKeras' clipped STE, both ends inclusive\n{blend}"
        )
    }

    fn agreement(&self) -> Agreement {
        if self.use_stochastic_rounding { RNG } else { Agreement::Exact }
    }
}

impl Torch for QuantizedHswish {
    fn torch(&self) -> String {
        let inner = self.inner();
        let (s, u) = (f(self.relu_shift), f(self.relu_upper_bound));
        format!(
            "r = torch.where(x + {s} <= {u}, torch.where(x + {s} > 0, x + {s}, 0.0), {u})  # min(relu(x + shift), upper)\n\
             h = x * r / {u}  # hard swish\n{}\n{}",
            inner.codes("h"),
            qkeras_blend("h", self.qnoise_factor, true)
        )
    }

    fn agreement(&self) -> Agreement {
        self.inner().agreement()
    }
}

/// A power-of-two exponent rule as Python: `e` from the magnitude `a` (detached).
struct Po2Text {
    bits: i32,
    max_value: Option<f64>,
    quadratic: bool,
    floor: bool,
    stochastic: bool,
}

impl Po2Text {
    /// `(min_exp, max_exp)` as QKeras derives them from the bits left for the exponent.
    fn range(&self) -> (f64, f64) {
        let span = 2f64.powi(self.bits);
        let mut max_exp = span - 1.0;
        if self.quadratic {
            max_exp = 2.0 * (max_exp / 2.0).floor();
        }
        (-span, max_exp.max(-span))
    }

    /// Lines defining `exponent(a)`.
    fn def(&self) -> String {
        let (lo, hi) = self.range();
        let (lo, hi) = (f(lo), f(hi));
        let cap = self
            .max_value
            .map_or(String::new(), |m| format!("    t = torch.where(a >= {0}, {0}, a)  # max_value\n", f(m)));
        let t = if cap.is_empty() { "a" } else { "t" };
        let (t, k) = if self.quadratic { (format!("{t}.sqrt()"), "2 * ") } else { (t.to_string(), "") };
        let rule = if self.floor { "floor" } else { "round" };
        let mut out = format!(
            "def exponent(a):  # {rule}(log2 a) within [{lo}, {hi}]; {lo} below 1e-7\n{cap}    \
             t = {t}\n    e = {k}torch.{rule}(torch.log(t) / math.log(2)).clamp({lo}, {hi})\n"
        );
        if self.stochastic {
            out.push_str(&format!(
                "    e0 = torch.round(torch.log(t + 1e-7) / math.log(2))  # stochastic: 2^e has mean t\n    \
                 b = torch.where(torch.exp2(e0) > t, e0 - 1, e0)\n    \
                 v = torch.exp2(b) + (torch.exp2(b + 1) - torch.exp2(b)) * torch.rand_like(t)\n    \
                 e = torch.where(a < 1e-7, e, {k}torch.where(t < v, b, b + 1).clamp({lo}, {hi}))\n"
            ));
        }
        out.push_str(&format!("    return torch.where(a < 1e-7, {lo}, e)\n"));
        if self.range().0 < -126.0 {
            out.push_str("def exp2(e):  # 2^e, flushed to 0 below 2^-126 as TensorFlow's float32 arithmetic does\n    return torch.where(e < -126, 0.0, torch.exp2(e))\n");
        }
        out
    }

    /// The Python function raising 2 to an exponent: flushed below 2^-126 where the range reaches there.
    fn exp2(&self) -> &'static str {
        if self.range().0 < -126.0 { "exp2" } else { "torch.exp2" }
    }

    fn agreement(&self) -> Agreement {
        if self.stochastic {
            RNG
        } else if self.quadratic {
            PO2_TIE
        } else {
            Agreement::Exact
        }
    }
}

/// Whether a `log2_rounding` value is 'floor'.
fn floor(v: Option<Literal>) -> bool {
    v == Some(Literal::Str("floor".into()))
}

/// A power-of-two quantizer's text (a trait of this file's: the types are the kernels').
trait Po2Source {
    fn po2_text(&self) -> Po2Text;
}

impl Po2Source for QuantizedPo2 {
    fn po2_text(&self) -> Po2Text {
        let need = if self.max_value.is_some_and(|v| v <= 1.0) { 0 } else { 1 };
        Po2Text {
            bits: self.bits - 1 - need,
            max_value: self.max_value,
            quadratic: self.quadratic_approximation,
            floor: floor(self.get("log2_rounding")),
            stochastic: self.use_stochastic_rounding && !floor(self.get("log2_rounding")),
        }
    }
}

impl Torch for QuantizedPo2 {
    fn torch(&self) -> String {
        format!(
            "import math\n{}xq = torch.where(x.detach() >= 0, 1.0, -1.0) * {}(exponent(x.detach().abs()))\n{}",
            self.po2_text().def(),
            self.po2_text().exp2(),
            qkeras_blend("x", self.qnoise_factor, self.use_ste)
        )
    }

    fn agreement(&self) -> Agreement {
        self.po2_text().agreement()
    }
}

impl Po2Source for QuantizedReluPo2 {
    fn po2_text(&self) -> Po2Text {
        let need = if self.max_value.is_some_and(|v| v <= 1.0) { 0 } else { 1 };
        Po2Text {
            bits: self.bits - need,
            max_value: self.max_value,
            quadratic: self.quadratic_approximation,
            floor: floor(self.get("log2_rounding")),
            stochastic: self.use_stochastic_rounding && !floor(self.get("log2_rounding")),
        }
    }
}

impl Torch for QuantizedReluPo2 {
    fn torch(&self) -> String {
        let ns = self.negative_slope;
        // NaN stays NaN with the negative side's gradient (0 for the relu), as QKeras' where does.
        let relu = if ns == 0.0 {
            "torch.where(x > 0, x, torch.where(x.isnan(), x.detach(), 0.0))".to_string()
        } else {
            format!("torch.where(x > 0, x, {} * x)", f(ns))
        };
        let cap = self
            .max_value
            .map_or(String::new(), |m| format!("xu = torch.where(x <= {0}, xu, {0})  # capped at max_value\n", f(m)));
        let xd = "x.detach()";
        let exp2 = self.po2_text().exp2();
        let pos = format!("{exp2}(exponent(torch.where({xd} > 0, {xd}, 0.0)))");
        let xq = if ns == 0.0 {
            pos
        } else {
            format!("torch.where({xd} >= 0, {pos}, -{exp2}(exponent(torch.where({xd} < 0, -{xd}, 0.0) * {})))", f(ns))
        };
        format!(
            "import math\n{}xu = {relu}  # the relu the STE passes through\n{cap}xq = {xq}\n{}",
            self.po2_text().def(),
            qkeras_blend("xu", self.qnoise_factor, self.use_ste)
        )
    }

    fn agreement(&self) -> Agreement {
        self.po2_text().agreement()
    }
}

impl Torch for QuantizedRelu {
    fn torch(&self) -> String {
        let nb = self.bits - (self.negative_slope != 0.0) as i32;
        let (m, mi) = (2f64.powi(nb), 2f64.powi(self.integer));
        if self.enable_fast_inference {
            let down = p2(-self.bits);
            return format!(
                "q = {} * (torch.round(x.detach() * {}) * {down}).clamp(0, 1 - {down})  # no STE: gradient 0\ny = q + 0 * x",
                f(mi),
                p2(self.bits - self.integer)
            );
        }
        let ns = self.negative_slope;
        let mut setup = String::new();
        let round: fn(&str) -> String = if self.use_stochastic_rounding {
            setup.push_str(STOCHASTIC_ROUND);
            |p| format!("stochastic_round({p}, 0.5)")
        } else {
            |p| format!("torch.round({p})")
        };
        let (sm, smi) = (f(m), f(mi));
        let top = f(1.0 - 1.0 / m);
        let mut xq = if self.use_sigmoid {
            format!(
                "p = (0.5 * (x.detach() / {smi}) + 0.5).clamp(0, 1) * {sm}  # codes of the hard sigmoid\n\
                 xq = {smi} * (2 * ({} / {sm}) - 1).clamp(0, {top})\n",
                round("p")
            )
        } else {
            format!("p = x.detach() * {sm} / {smi}\nxq = {smi} * ({} / {sm}).clamp(0, {top})\n", round("p"))
        };
        if ns > 0.0 {
            let nf = f((1.0 / (ns * m)) as f32 as f64);
            let mins = f((mi as f32 * ns as f32) as f64);
            let r = round(&format!("p * {}", f(ns)));
            let part = if self.use_sigmoid { format!("(2 * ({r} * {nf}) - 1)") } else { format!("({r} * {nf})") };
            xq.push_str(&format!("xq = xq + {mins} * {part}.clamp(-1, 0)  # the negative part\n"));
        }
        if let Some(u) = self.relu_upper_bound
            && u != 0.0
            && !self.is_quantized_clip
        {
            xq.push_str(&format!("xq = torch.where(xq <= {0}, xq, {0})\n", f(u)));
        }
        let neg = if ns == 0.0 { "0.0".to_string() } else { format!("{} * x", f(ns)) };
        let bound =
            if self.is_quantized_clip { Some(mi - 2f64.powi(self.integer - nb)) } else { self.relu_upper_bound };
        let cap = bound
            .map_or(String::new(), |b| format!("xu = torch.where(x <= {0}, xu, {0})  # the STE stops at {0}\n", f(b)));
        format!(
            "{setup}{xq}xu = torch.where(x > 0, x, {neg})  # the relu the STE passes through\n{cap}{}",
            qkeras_blend("xu", self.qnoise_factor, self.use_ste)
        )
    }

    fn agreement(&self) -> Agreement {
        if self.use_stochastic_rounding && !self.enable_fast_inference { RNG } else { Agreement::Exact }
    }
}
