//! The closed set of quantizers qscope knows, as one enum with exhaustive matches.

use super::beyond::*;
use super::bnb::{Fp4, Nf4};
use super::larq::*;
use super::ml_dtypes::*;
use super::qkeras::*;
use super::schema::{Info, Literal, ParamDef, Schema};
use super::torchao::*;
use super::{Ctx, Kernel, Levels, Report};

/// A catalogue entry: identity, schema and a default instance.
pub struct Entry {
    pub info: &'static Info,
    pub params: &'static [ParamDef],
    pub default: fn() -> Quantizer,
}

/// One parameter as `qscope list` and the gallery's reference pages show it.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamRow {
    pub name: &'static str,
    /// The library default, as a spec writes it.
    pub default: String,
    /// What the parameter's kind allows ([`Kind::describe`](super::Kind::describe)).
    pub allowed: String,
    /// Its one line of documentation, trimmed.
    pub meaning: &'static str,
}

impl Entry {
    /// Every parameter in constructor order, with its default, what it allows and its meaning.
    pub fn param_rows(&self) -> Vec<ParamRow> {
        let default = (self.default)();
        self.params
            .iter()
            .map(|p| ParamRow {
                name: p.name,
                default: default.get(p.name).map(|l| l.to_string()).unwrap_or_default(),
                allowed: p.kind.describe(),
                meaning: p.doc.trim(),
            })
            .collect()
    }
}

macro_rules! catalogue {
    ($d:tt $($ty:ident),* $(,)?) => {
        /// `each_quantizer!(q, k => body)`: an exhaustive match over the catalogue that runs
        /// `body` with `k` bound to the concrete quantizer inside `q` (a `Quantizer`, `&Quantizer`
        /// or `&mut Quantizer`). Dispatching a per-quantizer trait through it makes a quantizer
        /// that lacks the trait's impl a compile error; the catalogue list below is the only
        /// place the variants are named.
        #[doc(hidden)]
        #[macro_export]
        macro_rules! each_quantizer {
            ($d q:expr, $d k:ident => $d body:expr) => {
                match $d q { $( $crate::Quantizer::$ty($d k) => $d body, )* }
            };
        }
        pub use each_quantizer;

        /// Any configured quantizer of the catalogue.
        #[derive(Clone, Debug, PartialEq)]
        pub enum Quantizer { $( $ty($ty), )* }

        /// Every quantizer, in catalogue order (QKeras, Larq, beyond, ml_dtypes, torchao, bitsandbytes).
        pub static ENTRIES: &[Entry] = &[
            $( Entry {
                info: &<$ty as Schema>::INFO,
                params: <$ty as Schema>::PARAMS,
                default: || Quantizer::$ty(<$ty>::default()),
            }, )*
        ];

        impl Quantizer {
            pub fn info(&self) -> &'static Info {
                match self { $( Quantizer::$ty(_) => &<$ty as Schema>::INFO, )* }
            }
            pub fn params(&self) -> &'static [ParamDef] {
                match self { $( Quantizer::$ty(_) => <$ty as Schema>::PARAMS, )* }
            }
            /// A parameter's current value.
            pub fn get(&self, name: &str) -> Option<Literal> {
                each_quantizer!(self, q => q.get(name))
            }
            /// Sets a parameter (checked against its kind); see [`Quantizer::validate`].
            pub fn set(&mut self, name: &str, lit: &Literal) -> Result<(), String> {
                each_quantizer!(self, q => q.set(name, lit))
            }
            /// Cross-parameter checks: `Err((parameter, message))`.
            pub fn validate(&self) -> Result<(), (&'static str, String)> {
                each_quantizer!(self, q => q.validate())
            }
            /// Why this configuration cannot run in this mode (the library raises), if so.
            pub fn unsupported(&self, training: bool) -> Option<String> {
                each_quantizer!(self, q => q.unsupported(training))
            }
            /// Whether outputs are random draws in this mode.
            pub fn is_stochastic(&self, training: bool) -> bool {
                each_quantizer!(self, q => q.is_stochastic(training))
            }
            /// Quantizes a whole tensor; see [`Kernel::apply`].
            pub fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, ctx: &mut Ctx) -> Report {
                assert_eq!(x.len(), y.len(), "x and y differ in length");
                let mut report = each_quantizer!(self, q => q.apply(x, y, dydx, ctx));
                report.stochastic = self.is_stochastic(ctx.training);
                report
            }
            /// Quantizes a row-major matrix of rows of `row_len`: a block format
            /// ([`Facts::block_size`](crate::Facts::block_size)) cuts each row into its
            /// blocks ([`Kernel::apply_rows`]); every other quantizer sees one tensor, as `apply`.
            pub fn apply_rows(
                &self,
                x: &[f32],
                row_len: usize,
                y: &mut [f32],
                dydx: Option<&mut [f32]>,
                ctx: &mut Ctx,
            ) -> Report {
                assert_eq!(x.len(), y.len(), "x and y differ in length");
                if self.block_size().is_none() {
                    return self.apply(x, y, dydx, ctx);
                }
                let mut report = each_quantizer!(self, q => q.apply_rows(x, row_len, y, dydx, ctx));
                report.stochastic = self.is_stochastic(ctx.training);
                report
            }
            /// Representable outputs; see [`Kernel::levels`].
            pub fn levels(&self, report: &Report) -> Levels {
                each_quantizer!(self, q => q.levels(report))
            }
        }
    };
}

catalogue! { $
    // QKeras classes
    QuantizedBits, QuantizedLinear, QuantizedPo2, QuantizedReluPo2, QuantizedRelu, QuantizedTanh,
    QuantizedSigmoid, QuantizedUlaw, QuantizedHswish, Binary, StochasticBinary, Ternary,
    StochasticTernary, Bernoulli,
    // QKeras functions
    RoundThrough, StochasticRound, StochasticRoundPo2, HardSigmoid, HardTanh, SmoothSigmoid,
    SmoothTanh, BinarySigmoid, BinaryTanh,
    // Larq
    SteSign, ApproxSign, SwishSign, SteHeaviside, MagnitudeAwareSign, SteTern, DoReFa, NoOp,
    // Beyond
    SoftRound, SoftRoundAT, IdentitySte, ClippedSte, Lsq, Pact, FakeQuantize,
    // ml_dtypes
    Float8E4M3Fn, Float8E5M2, Float8E4M3Fnuz, Float8E5M2Fnuz, Float8E4M3, Float8E3M4, Float8E8M0Fnu,
    Float6E2M3Fn, Float6E3M2Fn, Float4E2M1Fn,
    // torchao
    Float8, Affine, IntxFakeQuantize, Mx, Nvfp4,
    // bitsandbytes
    Nf4, Fp4,
}
