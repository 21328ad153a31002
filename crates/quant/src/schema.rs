//! One schema per quantizer: parameter names in the library's constructor order, types,
//! documented defaults and allowed ranges. The same schema drives parsing, printing,
//! `qscope list`, the UI controls and the URL.

use std::fmt;

use super::text::shorten;

/// A literal value as written in a spec (the parser's output).
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Literal {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
    #[default]
    None,
    List(Vec<f64>),
}

impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Literal::Int(v) => write!(f, "{v}"),
            Literal::Float(v) => write!(f, "{}", fmt_float(*v)),
            Literal::Bool(true) => f.write_str("True"),
            Literal::Bool(false) => f.write_str("False"),
            Literal::Str(s) => write!(f, "'{}'", escape(s)),
            Literal::None => f.write_str("None"),
            Literal::List(v) => {
                f.write_str("[")?;
                for (i, x) in v.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    f.write_str(&fmt_float(*x))?;
                }
                f.write_str("]")
            }
        }
    }
}

/// A string's characters as the spec parser reads them between quotes: `\\`, `\'`, `\n` and
/// `\t` escaped, so a printed string literal parses back to itself.
fn escape(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains(['\\', '\'', '\n', '\t']) {
        return s.into();
    }
    let mut out = String::with_capacity(s.len() + 2);
    for c in s.chars() {
        match c {
            '\\' | '\'' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            _ => out.push(c),
        }
    }
    out.into()
}

/// Shortest text that reads back as the same f64, always with a decimal point or exponent
/// so it stays a float when parsed again.
pub fn fmt_float(v: f64) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let s = format!("{v}");
    if s.contains(['.', 'e', 'E']) || s.contains("inf") { s } else { format!("{s}.0") }
}

impl Literal {
    /// The literal's type, as named in error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Literal::Int(_) => "an integer",
            Literal::Float(_) => "a float",
            Literal::Bool(_) => "a boolean",
            Literal::Str(_) => "a string",
            Literal::None => "None",
            Literal::List(_) => "a list",
        }
    }

    fn as_f64(&self) -> Option<f64> {
        match self {
            Literal::Int(v) => Some(*v as f64),
            Literal::Float(v) => Some(*v),
            _ => None,
        }
    }
}

/// What kind of value a parameter takes; drives validation and the UI control.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// An integer in `[min, max]` (a slider).
    Int { min: i64, max: i64 },
    /// A finite float in `[min, max]` (a slider; `log` when it spans decades).
    Float { min: f64, max: f64, log: bool },
    /// `None` or a float in `[min, max]`.
    OptFloat { min: f64, max: f64 },
    /// `None` or an integer in `[min, max]`.
    OptInt { min: i64, max: i64 },
    /// True/False (0/1 accepted, as QKeras configs write them).
    Bool,
    /// One of a closed set of strings.
    Choice(&'static [&'static str]),
    /// QKeras `alpha`: None, a positive number, `'auto'` or `'auto_po2'`.
    Alpha,
    /// `None`, `'auto'` or a number in `[min, max]` (NVFP4's `per_tensor_scale`).
    AutoScale { min: f64, max: f64 },
    /// An axis argument (None, an int or a list); recorded, no effect on a 1-D tensor.
    Axis,
    /// A free-form name (e.g. `var_name`); recorded, no effect.
    Text,
}

impl Kind {
    /// What the kind allows, for error messages and `qscope list`.
    pub fn describe(&self) -> String {
        match *self {
            Kind::Int { min, max } => format!("an integer from {min} to {max}"),
            Kind::Float { min, max, .. } => {
                format!("a number from {} to {}", fmt_num(min), fmt_num(max))
            }
            Kind::OptFloat { min, max } => {
                format!("None or a number from {} to {}", fmt_num(min), fmt_num(max))
            }
            Kind::OptInt { min, max } => format!("None or an integer from {min} to {max}"),
            Kind::Bool => "True or False".into(),
            Kind::Choice(c) => {
                let q: Vec<String> = c.iter().map(|s| format!("'{s}'")).collect();
                format!("one of {}", q.join(", "))
            }
            Kind::Alpha => "None, a positive number, 'auto' or 'auto_po2'".into(),
            Kind::AutoScale { min, max } => {
                format!("None, 'auto' or a number from {} to {}", fmt_num(min), fmt_num(max))
            }
            Kind::Axis => "None, an integer or a list of integers".into(),
            Kind::Text => "None or a string".into(),
        }
    }
}

fn fmt_num(v: f64) -> String {
    if v == f64::INFINITY {
        "inf".into()
    } else if v == f64::NEG_INFINITY {
        "-inf".into()
    } else if v != 0.0 && (v.abs() >= 1e6 || v.abs() < 1e-4) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// One parameter of a quantizer's schema.
#[derive(Clone, Copy, Debug)]
pub struct ParamDef {
    pub name: &'static str,
    pub kind: Kind,
    pub doc: &'static str,
}

/// Families of the catalogue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    QKeras,
    Larq,
    Beyond,
    /// ml_dtypes' element casts (FP8, FP6, FP4, E8M0).
    MlDtypes,
    /// torchao's scaled low-precision formats (tensorwise FP8 training casts).
    Torchao,
    /// bitsandbytes' 4-bit block formats (NF4, FP4).
    Bnb,
}

impl Family {
    /// Every family, in catalogue order.
    pub const ALL: [Family; 6] =
        [Family::QKeras, Family::Larq, Family::Beyond, Family::MlDtypes, Family::Torchao, Family::Bnb];

    /// The namespace written before a name in a spec (`qkeras.`, `larq.`); beyond has none.
    pub fn namespace(self) -> &'static str {
        match self {
            Family::QKeras => "qkeras",
            Family::Larq => "larq",
            Family::Beyond => "",
            Family::MlDtypes => "ml_dtypes",
            Family::Torchao => "torchao",
            Family::Bnb => "bnb",
        }
    }

    /// The key a user types for the family (`qscope list KEY`, a spec's namespace): the
    /// namespace, and `beyond` for the family without one.
    pub fn key(self) -> &'static str {
        match self {
            Family::Beyond => "beyond",
            f => f.namespace(),
        }
    }

    /// The family with this [`key`](Family::key) (any case).
    pub fn parse(key: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.key().eq_ignore_ascii_case(key))
    }

    pub fn title(self) -> &'static str {
        match self {
            Family::QKeras => "QKeras",
            Family::Larq => "Larq",
            Family::Beyond => "Beyond",
            Family::MlDtypes => "ml_dtypes",
            Family::Torchao => "torchao",
            Family::Bnb => "bitsandbytes",
        }
    }
}

/// Identity of a catalogue entry.
#[derive(Clone, Copy, Debug)]
pub struct Info {
    pub family: Family,
    /// Canonical name (the library's class or function name).
    pub name: &'static str,
    /// Other accepted names (Larq string aliases, old names).
    pub aliases: &'static [&'static str],
    /// A function of x in the library, not a class to construct (QKeras' `_round_through`,
    /// `hard_sigmoid`…): code calls it on the tensor.
    pub function: bool,
    /// One line of meaning.
    pub summary: &'static str,
    /// Forward formula (clean Unicode).
    pub forward: &'static str,
    /// Pseudo-gradient (clean Unicode).
    pub backward: &'static str,
    /// The configuration its reference figure shows (native only: the reference is written by
    /// `qscope gallery`, and the page never draws it, so its text stays out of the wasm).
    #[cfg(not(target_arch = "wasm32"))]
    pub figure: Illustration,
}

/// The configuration a quantizer's reference figure shows (`qscope gallery`): where its
/// character is visible — a few bits, a clip or a saturation inside the x range — rather than
/// the library default (8-bit `quantized_bits` is a plain line over [−2, 2]). Declared with the
/// quantizer (`figure:` of `quantizer!`), so a quantizer without one does not compile.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Illustration {
    /// The spec's arguments as written between its parentheses (`bits=3, alpha=1`); empty:
    /// the library defaults.
    pub args: &'static str,
    /// The x range drawn.
    pub x: (f32, f32),
    /// Why this configuration, in one sentence (the reference page prints it).
    pub why: &'static str,
}

impl Info {
    /// `qkeras.quantized_bits`, `larq.SteSign`, `softround`.
    pub fn qualified(&self) -> String {
        match self.family.namespace() {
            "" => self.name.to_string(),
            ns => format!("{ns}.{}", self.name),
        }
    }

    /// The spec of the configuration its reference figure shows ([`Info::figure`]).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn figure_spec(&self) -> String {
        format!("{}({})", self.qualified(), self.figure.args)
    }
}

/// A typed parameter value: converts from and to spec literals under its [`Kind`].
pub trait Param: Sized {
    fn from_literal(lit: &Literal, kind: &Kind) -> Result<Self, String>;
    fn to_literal(&self) -> Literal;
}

fn check_range(v: f64, lo: f64, hi: f64, kind: &Kind) -> Result<f64, String> {
    if v.is_nan() {
        return Err(format!("NaN is not allowed; expected {}", kind.describe()));
    }
    if v < lo || v > hi {
        return Err(format!("{} is out of range; expected {}", fmt_num(v), kind.describe()));
    }
    Ok(v)
}

fn int_in(lit: &Literal, min: i64, max: i64, kind: &Kind) -> Result<i64, String> {
    let v = match lit {
        Literal::Int(v) => *v,
        Literal::Float(f) if f.fract() == 0.0 && f.is_finite() => *f as i64,
        Literal::Bool(b) => *b as i64,
        other => {
            return Err(format!("got {}; expected {}", other.type_name(), kind.describe()));
        }
    };
    if v < min || v > max {
        return Err(format!("{v} is out of range; expected {}", kind.describe()));
    }
    Ok(v)
}

impl Param for i32 {
    fn from_literal(lit: &Literal, kind: &Kind) -> Result<Self, String> {
        match *kind {
            Kind::Int { min, max } => int_in(lit, min, max, kind).map(|v| v as i32),
            _ => unreachable!("i32 parameters are Kind::Int"),
        }
    }
    fn to_literal(&self) -> Literal {
        Literal::Int(*self as i64)
    }
}

impl Param for f64 {
    fn from_literal(lit: &Literal, kind: &Kind) -> Result<Self, String> {
        let Kind::Float { min, max, .. } = *kind else { unreachable!("f64 parameters are Kind::Float") };
        match lit.as_f64() {
            Some(v) => check_range(v, min, max, kind),
            None => Err(format!("got {}; expected {}", lit.type_name(), kind.describe())),
        }
    }
    fn to_literal(&self) -> Literal {
        Literal::Float(*self)
    }
}

impl Param for Option<f64> {
    fn from_literal(lit: &Literal, kind: &Kind) -> Result<Self, String> {
        let Kind::OptFloat { min, max } = *kind else { unreachable!("Option<f64> is Kind::OptFloat") };
        match lit {
            Literal::None => Ok(None),
            _ => match lit.as_f64() {
                Some(v) => check_range(v, min, max, kind).map(Some),
                None => Err(format!("got {}; expected {}", lit.type_name(), kind.describe())),
            },
        }
    }
    fn to_literal(&self) -> Literal {
        self.map_or(Literal::None, Literal::Float)
    }
}

impl Param for Option<i32> {
    fn from_literal(lit: &Literal, kind: &Kind) -> Result<Self, String> {
        let Kind::OptInt { min, max } = *kind else { unreachable!("Option<i32> is Kind::OptInt") };
        match lit {
            Literal::None => Ok(None),
            _ => int_in(lit, min, max, kind).map(|v| Some(v as i32)),
        }
    }
    fn to_literal(&self) -> Literal {
        self.map_or(Literal::None, |v| Literal::Int(v as i64))
    }
}

impl Param for bool {
    fn from_literal(lit: &Literal, kind: &Kind) -> Result<Self, String> {
        match lit {
            Literal::Bool(b) => Ok(*b),
            Literal::Int(0) => Ok(false),
            Literal::Int(1) => Ok(true),
            Literal::Float(f) if *f == 0.0 => Ok(false),
            Literal::Float(f) if *f == 1.0 => Ok(true),
            other => Err(format!("got {}; expected {}", shorten(&other.to_string(), 60), kind.describe())),
        }
    }
    fn to_literal(&self) -> Literal {
        Literal::Bool(*self)
    }
}

/// A recorded string parameter (`var_name`) or axis argument; no effect on computation.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Opaque(pub Literal);

impl Opaque {
    /// The whole number it holds (an axis such as QKeras' `scale_axis=0`), if it is one.
    pub fn int(&self) -> Option<i64> {
        match self.0 {
            Literal::Int(a) => Some(a),
            _ => None,
        }
    }
}

impl Param for Opaque {
    fn from_literal(lit: &Literal, kind: &Kind) -> Result<Self, String> {
        let ok = match kind {
            // Axes are whole numbers (a list's NaN or 1.5 could not be printed back as a spec).
            Kind::Axis => match lit {
                Literal::None | Literal::Int(_) => true,
                Literal::List(v) => v.iter().all(|a| a.is_finite() && a.fract() == 0.0),
                _ => false,
            },
            Kind::Text => matches!(lit, Literal::None | Literal::Str(_)),
            _ => false,
        };
        if ok { Ok(Opaque(lit.clone())) } else { Err(format!("got {}; expected {}", lit.type_name(), kind.describe())) }
    }
    fn to_literal(&self) -> Literal {
        self.0.clone()
    }
}

/// QKeras' `alpha`: a fixed scale or a data-dependent one.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum Alpha {
    /// Scale 1 (and, for binary/ternary, a tanh gradient path).
    #[default]
    None,
    /// A fixed scale.
    Value(f64),
    /// Per-channel least-squares / max-based scale.
    Auto,
    /// As `Auto`, rounded to a power of two.
    AutoPo2,
}

impl Alpha {
    pub fn is_auto(self) -> bool {
        matches!(self, Alpha::Auto | Alpha::AutoPo2)
    }
}

impl Param for Alpha {
    fn from_literal(lit: &Literal, kind: &Kind) -> Result<Self, String> {
        match lit {
            Literal::None => Ok(Alpha::None),
            Literal::Str(s) if s == "auto" => Ok(Alpha::Auto),
            Literal::Str(s) if s == "auto_po2" => Ok(Alpha::AutoPo2),
            Literal::Int(_) | Literal::Float(_) => {
                let v = lit.as_f64().unwrap_or(f64::NAN);
                if v.is_finite() && v > 0.0 {
                    Ok(Alpha::Value(v))
                } else {
                    Err(format!("{} is not allowed; expected {}", shorten(&lit.to_string(), 60), kind.describe()))
                }
            }
            other => Err(format!("got {}; expected {}", shorten(&other.to_string(), 60), kind.describe())),
        }
    }
    fn to_literal(&self) -> Literal {
        match self {
            Alpha::None => Literal::None,
            Alpha::Value(v) => Literal::Float(*v),
            Alpha::Auto => Literal::Str("auto".into()),
            Alpha::AutoPo2 => Literal::Str("auto_po2".into()),
        }
    }
}

/// A scale that is absent, taken from the tensor (`'auto'`) or given (NVFP4's per-tensor scale).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum AutoScale {
    #[default]
    None,
    Auto,
    Value(f64),
}

impl Param for AutoScale {
    fn from_literal(lit: &Literal, kind: &Kind) -> Result<Self, String> {
        let Kind::AutoScale { min, max } = *kind else { unreachable!("AutoScale parameters are Kind::AutoScale") };
        match lit {
            Literal::None => Ok(AutoScale::None),
            Literal::Str(s) if s == "auto" => Ok(AutoScale::Auto),
            _ => match lit.as_f64() {
                Some(v) => check_range(v, min, max, kind).map(AutoScale::Value),
                None => Err(format!("got {}; expected {}", shorten(&lit.to_string(), 60), kind.describe())),
            },
        }
    }
    fn to_literal(&self) -> Literal {
        match self {
            AutoScale::None => Literal::None,
            AutoScale::Auto => Literal::Str("auto".into()),
            AutoScale::Value(v) => Literal::Float(*v),
        }
    }
}

/// Defines a closed set of string choices as an enum with exhaustive matches.
macro_rules! choice {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $name { $($(#[$vm])* $variant),+ }
        impl $name {
            pub const CHOICES: &'static [&'static str] = &[$($text),+];
            pub fn as_str(self) -> &'static str { match self { $($name::$variant => $text),+ } }
        }
        impl $crate::schema::Param for $name {
            fn from_literal(lit: &$crate::schema::Literal, kind: &$crate::schema::Kind) -> Result<Self, String> {
                match lit {
                    $( $crate::schema::Literal::Str(s) if s == $text => Ok($name::$variant), )+
                    other => Err(format!("got {}; expected {}", $crate::text::shorten(&other.to_string(), 60), kind.describe())),
                }
            }
            fn to_literal(&self) -> $crate::schema::Literal {
                $crate::schema::Literal::Str(self.as_str().to_string())
            }
        }
    };
}
pub(crate) use choice;

/// Access to a quantizer's parameters by name, generated from its schema.
pub trait Schema: Default + Clone + PartialEq {
    const INFO: Info;
    const PARAMS: &'static [ParamDef];
    fn get(&self, name: &str) -> Option<Literal>;
    /// Sets one parameter; `Err` carries what is allowed.
    fn set(&mut self, name: &str, lit: &Literal) -> Result<(), String>;
}

/// Declares a quantizer struct together with its schema: fields in the library's
/// constructor order, each with its default, kind and one line of documentation. `fn` before
/// the name marks a library function rather than a class. The `forward:` and `backward:`
/// formulas end the struct's doc comment, so they are written once; `figure:` is the
/// configuration its reference figure shows ([`Illustration`]).
macro_rules! quantizer {
    (@function) => { false };
    (@function fn) => { true };
    (
        $(#[doc = $doc:expr])*
        pub struct $ty:ident : $family:ident $($function:ident)? $name:literal $([$($alias:literal),*])? {
            summary: $summary:expr,
            forward: $fwd:expr,
            backward: $bwd:expr,
            figure: { args: $fargs:expr, x: $fx:expr, why: $fwhy:expr $(,)? },
            $( $(#[doc = $fdoc:expr])+ $field:ident : $fty:ty = $default:expr, $kind:expr; )*
        }
    ) => {
        $(#[doc = $doc])*
        #[doc = ""]
        #[doc = concat!("Forward: `", $fwd, "`")]
        #[doc = ""]
        #[doc = concat!("Backward: `", $bwd, "`")]
        #[derive(Clone, Debug, PartialEq)]
        pub struct $ty { $( $(#[doc = $fdoc])+ pub $field: $fty, )* }

        impl Default for $ty {
            fn default() -> Self { Self { $( $field: $default, )* } }
        }

        impl $crate::schema::Schema for $ty {
            const INFO: $crate::schema::Info = $crate::schema::Info {
                family: $crate::schema::Family::$family,
                name: $name,
                aliases: &[$($($alias),*)?],
                function: $crate::schema::quantizer!(@function $($function)?),
                summary: $summary,
                forward: $fwd,
                backward: $bwd,
                #[cfg(not(target_arch = "wasm32"))]
                figure: $crate::schema::Illustration { args: $fargs, x: $fx, why: $fwhy },
            };
            const PARAMS: &'static [$crate::schema::ParamDef] = &[
                $( $crate::schema::ParamDef {
                    name: stringify!($field),
                    kind: $kind,
                    doc: concat!($($fdoc),+),
                }, )*
            ];
            #[allow(unused_variables)]
            fn get(&self, name: &str) -> Option<$crate::schema::Literal> {
                match name {
                    $( stringify!($field) => Some($crate::schema::Param::to_literal(&self.$field)), )*
                    _ => None,
                }
            }
            #[allow(unused_variables, unreachable_patterns)]
            fn set(&mut self, name: &str, lit: &$crate::schema::Literal) -> Result<(), String> {
                match name {
                    $( stringify!($field) => {
                        self.$field = $crate::schema::Param::from_literal(lit, &$kind)?;
                        Ok(())
                    } )*
                    _ => Err(format!("unknown parameter '{name}'")),
                }
            }
        }
    };
}
pub(crate) use quantizer;
