//! "Copy as code": the configured quantizer as QKeras, Larq, PyTorch and `qscope` CLI text.
//!
//! The quantizer's schema (parameters in constructor order, defaults) drives the QKeras and
//! Larq text: only parameters that differ from the library default are written. QKeras
//! snippets use the positional style QKeras users write (`quantized_bits(4, 0, 1, alpha=1)`):
//! the leading numeric and boolean parameters (at most three, stopping at the first None) up to
//! the last one that differs from its default are positional, booleans as 0/1; the rest are
//! keywords.

mod torch;

use qscope_quant::schema::{Family, Kind, Literal};
use qscope_quant::{ENTRIES, Quantizer, spec};

/// Where a snippet runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Framework {
    QKeras,
    Larq,
    PyTorch,
    /// The `qscope` command line.
    Cli,
}

impl Framework {
    /// Every framework, in the order the explorer offers them.
    pub const ALL: [Framework; 4] = [Framework::QKeras, Framework::Larq, Framework::PyTorch, Framework::Cli];

    /// The name shown on a copy button.
    pub fn name(self) -> &'static str {
        match self {
            Framework::QKeras => "QKeras",
            Framework::Larq => "Larq",
            Framework::PyTorch => "PyTorch",
            Framework::Cli => "qscope CLI",
        }
    }

    /// The key `qscope code --lang` takes: `pytorch`, `qkeras`, `larq`, `cli`.
    pub fn key(self) -> &'static str {
        match self {
            Framework::QKeras => "qkeras",
            Framework::Larq => "larq",
            Framework::PyTorch => "pytorch",
            Framework::Cli => "cli",
        }
    }

    /// The framework with this [`key`](Framework::key), if any.
    pub fn parse(key: &str) -> Option<Framework> {
        Framework::ALL.into_iter().find(|f| f.key() == key)
    }

    /// The spec's own library: QKeras or Larq for their quantizers, PyTorch for the rest
    /// (shok, torch's fake quantization and the papers' STEs are PyTorch code; ml_dtypes'
    /// casts are numpy, wrapped in torch for the gradient; torchao and bitsandbytes are PyTorch).
    pub fn native(q: &Quantizer) -> Framework {
        match q.info().family {
            Family::QKeras => Framework::QKeras,
            Family::Larq => Framework::Larq,
            Family::Beyond | Family::MlDtypes | Family::Torchao | Family::Bnb => Framework::PyTorch,
        }
    }
}

/// How a snippet's numbers relate to qscope's on the same input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Agreement {
    /// Bit for bit: values, input gradient and learnable-parameter gradients.
    Exact,
    /// Within `ulps` units in the last place, or [`NEAR_ZERO`] where a value cancels towards 0:
    /// the framework's transcendental function or reduction (`why`) is not the one qscope follows.
    Ulps { ulps: u32, why: &'static str },
    /// Bit for bit except at ties of a rounding the framework computes differently (`why`),
    /// where a value may land on the neighbouring level; gradients bit for bit.
    Level { why: &'static str },
    /// The same distribution from another random stream (`why`): means agree, draws do not.
    Distribution { why: &'static str },
}

/// The absolute difference an [`Agreement::Ulps`] also allows: where a gradient such as
/// 1 − tanh² cancels towards 0, a last-bit difference in tanh is many ulps of the result.
pub const NEAR_ZERO: f32 = 5e-7;

/// How `framework`'s snippet of `q` agrees with qscope; None where there is no snippet.
/// PyTorch's comes from the quantizer's own [`torch::Torch`] impl; QKeras and Larq snippets run
/// the library qscope follows: their random draws differ, and autodiff through a transcendental
/// function may round a gradient's last bits differently from qscope's closed form.
pub fn agreement(q: &Quantizer, framework: Framework) -> Option<Agreement> {
    snippet_in(q, framework).ok()?;
    Some(match framework {
        Framework::PyTorch => torch::agreement(q),
        Framework::Cli => Agreement::Exact,
        _ if q.is_stochastic(true) => Agreement::Distribution { why: "the framework's random stream is not qscope's" },
        _ if torch::transcendental(q) => {
            Agreement::Ulps { ulps: 4, why: "TensorFlow's autodiff through tanh, exp or log" }
        }
        _ => Agreement::Exact,
    })
}

impl Agreement {
    /// The comment a snippet carries for a non-exact agreement (None when exact).
    pub fn note(self) -> Option<String> {
        self.sentence().map(|s| format!("# {s}"))
    }

    /// How the snippet differs from qscope, in words (None when exact): the note without `#`.
    pub fn sentence(self) -> Option<String> {
        match self {
            Agreement::Exact => None,
            Agreement::Ulps { ulps, why } => {
                Some(format!("{why}: agrees with qscope to {ulps} ulp ({NEAR_ZERO:e} near 0)"))
            }
            Agreement::Level { why } => {
                Some(format!("{why}: agrees with qscope bit for bit, but at such a tie it can land one level over"))
            }
            Agreement::Distribution { why } => {
                Some(format!("{why}: the same distribution as qscope's draws, not the same draws"))
            }
        }
    }
}

/// The snippet of `q` in `framework`, or a one-line reason why that framework cannot
/// express it.
pub fn snippet_in(q: &Quantizer, framework: Framework) -> Result<String, String> {
    snippet(q).into_iter().find(|(f, _)| *f == framework).map(|(_, t)| t).ok_or_else(|| match framework {
        Framework::QKeras | Framework::Larq => {
            format!(
                "{} is not a {} quantizer; try --lang {}",
                q.info().qualified(),
                framework.name(),
                Framework::native(q).key()
            )
        }
        _ => format!("{} cannot express {} yet", framework.name(), spec::print(q)),
    })
}

/// Every snippet that expresses `q`: its library's (QKeras or Larq), PyTorch, and the CLI line.
pub fn snippet(q: &Quantizer) -> Vec<(Framework, String)> {
    let mut out = Vec::new();
    let name = q.info().name;
    if let Some(call) = qkeras_call(q) {
        let text = if q.info().function {
            let args = call.strip_prefix(name).unwrap_or("()");
            let args = if args == "()" { "(x)".to_string() } else { format!("(x, {}", &args[1..]) };
            format!("from qkeras.quantizers import {name}\ny = {name}{args}")
        } else {
            format!("from qkeras import {name}\nq = {call}")
        };
        out.push((Framework::QKeras, text));
    }
    if let Some(call) = larq_call(q) {
        let note = if matches!(q, Quantizer::NoOp(n) if n.precision.is_none()) {
            "  # Larq requires precision; it only tags the variable"
        } else {
            ""
        };
        out.push((Framework::Larq, format!("import larq as lq\nq = lq.quantizers.{call}{note}")));
    }
    let note = torch::agreement(q).note().map_or(String::new(), |n| n + "\n");
    out.push((Framework::PyTorch, format!("import torch\n# {}\n{note}{}", spec::print(q), torch::snippet(q))));
    out.push((Framework::Cli, cli_line(q)));
    out
}

/// The QKeras constructor (or function) call, e.g. `quantized_bits(4, 0, 1, alpha=1)`;
/// None for quantizers outside QKeras. With `qkeras.` in front it parses back to `q`.
pub fn qkeras_call(q: &Quantizer) -> Option<String> {
    if q.info().family != Family::QKeras {
        return None;
    }
    let changed = changed_params(q);
    // The positional run: leading numeric/boolean parameters, at most three.
    let run = q
        .params()
        .iter()
        .take(3)
        .take_while(|d| match d.kind {
            Kind::Int { .. } | Kind::Float { .. } | Kind::Bool => true,
            Kind::OptFloat { .. } | Kind::OptInt { .. } => q.get(d.name).is_some_and(|v| v != Literal::None),
            _ => false,
        })
        .count();
    let positional = (0..run).rev().find(|&i| changed[i].is_some()).map_or(0, |i| i + 1);
    let mut args = Vec::new();
    for (i, def) in q.params().iter().enumerate() {
        let value = q.get(def.name).unwrap_or_default();
        if i < positional {
            args.push(match value {
                Literal::Bool(b) => (b as i32).to_string(),
                v => v.to_string(),
            });
        } else if changed[i].is_some() {
            args.push(format!("{}={}", def.name, python(def.name, &value)));
        }
    }
    Some(call(q.info().name, &args))
}

/// The Larq constructor call with keyword arguments, e.g. `SteTern(threshold_value=0.1)`;
/// None outside Larq. `NoOp` without a precision gets Larq's required `precision=32`.
pub fn larq_call(q: &Quantizer) -> Option<String> {
    if q.info().family != Family::Larq {
        return None;
    }
    let mut args: Vec<String> = changed_params(q)
        .into_iter()
        .zip(q.params())
        .filter_map(|(v, d)| v.map(|v| format!("{}={}", d.name, python(d.name, &v))))
        .collect();
    if matches!(q, Quantizer::NoOp(n) if n.precision.is_none()) {
        args.push("precision=32".into());
    }
    Some(call(q.info().name, &args))
}

/// `qscope eval '<spec>' <<< '…'`: the canonical spec, quoted for a POSIX shell.
pub fn cli_line(q: &Quantizer) -> String {
    let spec = spec::print(q).replace('\'', r"'\''");
    format!("qscope eval '{spec}' <<< '-1 -0.5 -0.25 0 0.25 0.5 1'")
}

/// Each parameter's value where it differs from the library default, else None.
fn changed_params(q: &Quantizer) -> Vec<Option<Literal>> {
    let default = ENTRIES.iter().find(|e| std::ptr::eq(e.info, q.info())).map(|e| (e.default)());
    q.params()
        .iter()
        .map(|d| {
            let v = q.get(d.name).unwrap_or_default();
            let dv = default.as_ref().and_then(|e| e.get(d.name));
            (dv.as_ref() != Some(&v)).then_some(v)
        })
        .collect()
}

/// A value as Python text; QKeras writes an integral alpha as an int (`alpha=1`).
fn python(name: &str, v: &Literal) -> String {
    match v {
        Literal::Float(f) if name == "alpha" && f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", *f as i64),
        v => v.to_string(),
    }
}

fn call(name: &str, args: &[String]) -> String {
    format!("{name}({})", args.join(", "))
}
