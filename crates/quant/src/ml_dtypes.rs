//! Element casts as ml_dtypes 0.6 computes them: `np.float32 → dtype → np.float32`, bit for bit
//! (tests/conformance/ml_dtypes.txt holds every representable value, every tie and its float32
//! neighbours, subnormals, overflow and the specials from the real package).
//!
//! One cast is written once over [`Lane`] ([`Format::cast`]); each of the ten dtypes is a
//! [`Format`] — exponent and mantissa bits, bias, and its [`Specials`] (what inf, NaN, −0 and an
//! overflow become) — declared in `casts!` at the bottom. ml_dtypes has no gradient: qscope's is
//! the identity (straight-through), as the casts are used in quantization-aware training.

use super::lane::Lane;
use super::schema::quantizer;
use super::simd::{self, Op};
use super::{Facts, Frozen, Kernel, Levels, Report};

/// `2^k` as float32 from its bits (normal and subnormal `k`, −149 ≤ k ≤ 127): a few integer
/// operations, so a format known only at run time (MX's element dtype) costs no `powi` per call.
#[inline(always)]
pub const fn pow2(k: i32) -> f32 {
    if k >= -126 { f32::from_bits(((k + 127) as u32) << 23) } else { f32::from_bits(1 << (k + 149)) }
}

/// What a format holds besides finite numbers, and so where an overflow goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Specials {
    /// IEEE 754: the top exponent holds ±inf and NaN; an overflow rounds to ±inf (e5m2, e4m3, e3m4).
    Ieee,
    /// Finite, one NaN per sign (all ones), no inf: the top exponent holds numbers up to its
    /// second-largest mantissa; an overflow and ±inf become NaN (e4m3fn).
    Fn,
    /// Finite, unsigned zero: NaN takes −0's code; −0 becomes +0, overflow and ±inf NaN (fnuz).
    Fnuz,
    /// Finite only, no NaN: an overflow and ±inf saturate to ±max, and NaN becomes a zero with
    /// the NaN's sign bit flipped — ml_dtypes 0.6 does that (float6, float4).
    Saturating,
    /// Powers of two only (E8M0, the MX block scale): no sign, no zero, one NaN; a mantissa of
    /// ½ or more rounds up (ties up), and a float32 subnormal above 2^−127 rounds up to 2^−126;
    /// zero, negatives, overflow, ±inf and NaN become NaN.
    PowerOfTwo,
}

/// A small float format: `1 + exponent_bits + mantissa_bits` bits (no sign bit for
/// [`Specials::PowerOfTwo`]), value `±2^(e − bias)·1.m`, subnormals at the lowest exponent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    /// The ml_dtypes name (`float8_e4m3fn`).
    pub name: &'static str,
    pub exponent_bits: u32,
    pub mantissa_bits: u32,
    pub bias: i32,
    pub specials: Specials,
}

impl Format {
    /// Bits per element.
    pub fn bits(self) -> u32 {
        self.exponent_bits + self.mantissa_bits + u32::from(self.signed())
    }

    /// Whether there is a sign bit.
    pub fn signed(self) -> bool {
        self.specials != Specials::PowerOfTwo
    }

    /// The exponent of the smallest normal number (of the smallest value, for E8M0).
    pub fn min_exponent(self) -> i32 {
        if self.specials == Specials::PowerOfTwo { -self.bias } else { 1 - self.bias }
    }

    /// The exponent of the largest finite number.
    pub fn max_exponent(self) -> i32 {
        let top = (1 << self.exponent_bits) - 1 - self.bias;
        if matches!(self.specials, Specials::Ieee | Specials::PowerOfTwo) { top - 1 } else { top }
    }

    /// The largest finite value.
    pub fn max(self) -> f32 {
        let m = self.mantissa_bits as i32;
        let codes = (1i64 << (m + 1)) - if self.specials == Specials::Fn { 2 } else { 1 };
        codes as f32 * pow2(self.max_exponent() - m)
    }

    /// The smallest positive value (a subnormal where the format has them).
    pub fn min_positive(self) -> f32 {
        pow2(self.min_exponent() - self.mantissa_bits as i32)
    }

    /// The smallest positive normal value (ml_dtypes' `finfo.smallest_normal`; for E8M0, which
    /// has no subnormals, its smallest value).
    pub fn min_normal(self) -> f32 {
        2f64.powi(self.min_exponent()) as f32
    }

    /// The code with sign bit `sign`, exponent field `exponent` and mantissa field `mantissa`.
    pub fn code(self, sign: bool, exponent: u32, mantissa: u32) -> u32 {
        let sign = if sign && self.signed() { 1 << (self.exponent_bits + self.mantissa_bits) } else { 0 };
        sign | exponent << self.mantissa_bits | mantissa
    }

    /// The code of a finite value the format holds exactly, sign included (`None` for any other
    /// value, such as −0 in a format without it).
    pub fn code_of(self, v: f32) -> Option<u32> {
        if !v.is_finite() || self.cast(v).to_bits() != v.to_bits() {
            return None;
        }
        let (a, m) = (v.abs(), self.mantissa_bits as i32);
        let negative = v.is_sign_negative();
        let e = a.log2().floor() as i32;
        let (field, mantissa) = if a == 0.0 || e < self.min_exponent() {
            (0, (a as f64 / 2f64.powi(self.min_exponent() - m)) as u32)
        } else {
            (e + self.bias, (a as f64 / 2f64.powi(e - m)) as u32 - (1 << m))
        };
        Some(self.code(negative, field as u32, mantissa))
    }

    /// Whether −0 has a code of its own (not in FNUZ formats, where it is NaN, nor in E8M0).
    pub fn negative_zero(self) -> bool {
        !matches!(self.specials, Specials::Fnuz | Specials::PowerOfTwo)
    }

    /// The codes that decode to NaN, ascending.
    pub fn nan_codes(self) -> Vec<u32> {
        let (all_e, all_m) = ((1 << self.exponent_bits) - 1, (1 << self.mantissa_bits) - 1);
        let both = |e: u32, ms: std::ops::RangeInclusive<u32>| {
            let codes = |sign| ms.clone().map(move |m| self.code(sign, e, m));
            codes(false).chain(codes(true)).collect()
        };
        match self.specials {
            Specials::Ieee => both(all_e, 1..=all_m),
            Specials::Fn => both(all_e, all_m..=all_m),
            Specials::Fnuz => vec![self.code(true, 0, 0)],
            Specials::PowerOfTwo => vec![all_e],
            Specials::Saturating => Vec::new(),
        }
    }

    /// The codes of +inf and −inf, where the format has them (IEEE-style ones only).
    pub fn inf_codes(self) -> Vec<u32> {
        let all_e = (1 << self.exponent_bits) - 1;
        match self.specials {
            Specials::Ieee => vec![self.code(false, all_e, 0), self.code(true, all_e, 0)],
            _ => Vec::new(),
        }
    }

    /// Every finite value, ascending (−0 where the format has it is listed as 0).
    pub fn levels(self) -> Vec<f32> {
        let m = self.mantissa_bits as i32;
        let (lo, hi) = (self.min_exponent(), self.max_exponent());
        let step = |e: i32| 2f64.powi(e - m);
        // Subnormals 0..2^m at the lowest exponent's step, then 2^m..2^(m+1) at each exponent.
        let subnormals = (0..1i64 << m).map(|k| k as f64 * step(lo));
        let normals = (lo..=hi).flat_map(|e| ((1i64 << m)..(2i64 << m)).map(move |k| k as f64 * step(e)));
        let positive: Vec<f32> = if self.specials == Specials::PowerOfTwo {
            (lo..=hi).map(|e| 2f64.powi(e) as f32).collect()
        } else {
            subnormals.chain(normals).map(|v| v as f32).filter(|&v| v <= self.max()).collect()
        };
        let negative = positive.iter().filter(|&&v| v > 0.0 && self.signed()).map(|v| -v);
        let mut all: Vec<f32> = negative.chain(positive.iter().copied()).collect();
        all.sort_by(f32::total_cmp);
        all
    }

    /// `float32(dtype(x))`: round to nearest even ([`Format::round`]), then the format's
    /// overflow and special rules.
    ///
    /// Written for few f32x4 operations (the formulas on |x| it replaced are kept in
    /// `reference.rs`, whose tests check that both agree on every float32): the rounding keeps
    /// x's sign, so no `abs` is needed, and x's sign bit is or-ed in at the end (the rounding
    /// gives +0 for a small negative x) — an `and` and an `or`, where a copysign is three
    /// operations in V8.
    #[inline(always)]
    pub fn cast<V: Lane>(self, x: V) -> V {
        let (max, nan) = (V::splat(self.max()), V::splat(f32::NAN));
        let sign = x.iand(V::splat(-0.0));
        // Whether x rounds to a number: NaN, ±inf and overflow all fail it (two operations,
        // where |x| would take three more in V8).
        let finite = (x * x).le(V::splat(self.last_square()));
        match self.specials {
            // Overflow and ±inf to ±inf, NaN stays NaN: x·inf is both.
            Specials::Ieee => V::select(finite, self.round(x), x * V::splat(f32::INFINITY)).ior(sign),
            Specials::Fn => V::select(finite, self.round(x), nan).ior(sign),
            // −0 + 0 = +0: no negative zero.
            Specials::Fnuz => V::select(finite, self.round(x), nan).ior(sign) + V::splat(0.0),
            // Saturate before rounding (max is representable and rounding is monotone, so it
            // is the same as after; a NaN passes the clamp); a NaN becomes 0 with its sign bit
            // flipped, as ml_dtypes 0.6 does.
            Specials::Saturating => {
                let number = x.ge(V::splat(f32::NEG_INFINITY));
                let q = V::select(number, self.round(x.pmax(-max).pmin(max)), V::splat(0.0));
                let flipped = x.ixor(V::select(number, V::splat(0.0), V::splat(-0.0)));
                q.ior(flipped.iand(V::splat(-0.0)))
            }
            Specials::PowerOfTwo => self.cast_power_of_two(x),
        }
    }

    /// [`Format::cast`] of a `t` already clamped to ±max (`pmin`/`pmax`, so a NaN stays NaN) in a
    /// format with a sign and −0 (IEEE, `fn` or saturating): `t` rounded with its sign bit or-ed
    /// in — nothing overflows, so there is no overflow test. The same bits as `cast` on every
    /// such `t` but NaN, which stays a NaN (`cast` gives the saturating formats ∓0 there).
    #[inline(always)]
    pub fn cast_clamped<V: Lane>(self, t: V) -> V {
        debug_assert!(matches!(self.specials, Specials::Ieee | Specials::Fn | Specials::Saturating));
        self.round(t).ior(t.iand(V::splat(-0.0)))
    }

    /// `T²` in float32, where `T` is the largest float32 that rounds to at most [`Format::max`]
    /// (the midpoint above max, or the float below it where the tie rounds up): `x·x ≤ T²`
    /// exactly when `|x| ≤ T`, as squaring a float32 is monotone and the squares of `T` and the
    /// next float32 round more than an ulp apart (`2T·ulp(T) ≥ √2·ulp(T²)`); NaN fails it.
    #[inline(always)]
    fn last_square(self) -> f32 {
        let (bits, m) = (self.max().to_bits(), self.mantissa_bits);
        let midpoint = bits + (1 << (22 - m));
        let t = f32::from_bits(if (bits >> (23 - m)) & 1 == 1 { midpoint - 1 } else { midpoint });
        t * t
    }

    /// A saturating format's [`Format::cast`] with a NaN cast to `±nan_as` (the NaN's sign)
    /// instead of ∓0 — torchao's fp6/fp4 cast. x is clamped and rounded, and replaced where NaN,
    /// before its sign bit is or-ed in.
    #[inline(always)]
    pub fn cast_nan_as<V: Lane>(self, x: V, nan_as: f32) -> V {
        debug_assert!(self.specials == Specials::Saturating);
        let max = V::splat(self.max());
        let q = self.round(x.pmax(-max).pmin(max));
        V::select(x.ge(V::splat(f32::NEG_INFINITY)), q, V::splat(nan_as)).ior(x.iand(V::splat(-0.0)))
    }

    /// `x` rounded to the format's step at its exponent, half to even, unbounded above; a
    /// negative x gives the negative of |x|'s rounding, except that one rounding to zero gives
    /// +0. With `M = 1.5·2^(e−m+23)` for |x|'s exponent `e` (clamped to the format's lowest, so
    /// subnormals share its step), `M ± |x|` stays in M's binade, whose ulp is the step at x,
    /// and `(x + M) − M` is x rounded to it (M's last bits are even, so ties go to even; a carry
    /// reaches the next exponent exactly). NaN stays NaN, and ±inf and `|x| ≥ 2^(104+m)`
    /// (where M is +inf) become ±inf or NaN: beyond any format's max.
    #[inline(always)]
    fn round<V: Lane>(self, x: V) -> V {
        self.round_above(x, V::splat(pow2(self.min_exponent())))
    }

    /// [`Format::round`] with the lowest binade given: `lowest = 2^lo·S` rounds on the format's
    /// grid scaled by the power of two `S` (as long as `M` stays a normal float32).
    #[inline(always)]
    pub(crate) fn round_above<V: Lane>(self, x: V, lowest: V) -> V {
        let magic = x.binade().pmax(lowest) * V::splat(1.5 * pow2(23 - self.mantissa_bits as i32));
        (x + magic) - magic
    }

    /// E8M0: `2^⌊log2 x⌋`, doubled when the float32 mantissa is ≥ 1.5 (ties up); float32
    /// subnormals go to 2^−127 up to it and to 2^−126 above; NaN for everything without a
    /// power of two (zero, negatives, overflow, ±inf, NaN).
    ///
    /// On x's bits as integers: adding half a mantissa (`0x40_0000`) carries into the next
    /// binade exactly when the mantissa is ≥ ½; a subnormal gets one less, which carries exactly
    /// above 2^−127, and the binade of what is left below is raised to 2^−127. Bits outside the
    /// positive ones below those of 1.5·2^127 get the NaN's bits or-ed in (a binade has no
    /// mantissa bits but 2^−127's, which NaN's include).
    #[inline(always)]
    fn cast_power_of_two<V: Lane>(self, x: V) -> V {
        let bits = |b: u32| V::splat(f32::from_bits(b));
        let subnormal = V::select(V::splat(f32::MIN_POSITIVE).igt(x), bits(u32::MAX), V::splat(0.0));
        let q = x.iadd(bits(0x40_0000)).iadd(subnormal).binade().imax(bits(0x40_0000));
        let valid = x.igt(V::splat(0.0)) & bits(0x7f40_0000).igt(x);
        q.ior(V::select(valid, V::splat(0.0), V::splat(f32::NAN)))
    }
}

/// `casts! { Type "name" = (exponent bits, mantissa bits, bias, Specials) "summary" "forward",
/// x: (lo, hi), why: "its figure"; … }`:
/// one catalogue type per format, its own `Op` (the cast, gradient 1) and levels, and
/// `each_cast!(m)`, which invokes `m!` with every type: the explorer's impls come from it.
macro_rules! casts {
    ($d:tt $($(#[doc = $doc:literal])* $ty:ident $name:literal = ($e:literal, $m:literal, $bias:literal, $sp:ident)
        $summary:literal $forward:literal, x: $x:expr, why: $why:literal;)*) => {
        $(
            quantizer! {
                $(#[doc = $doc])*
                pub struct $ty: MlDtypes $name {
                    summary: $summary,
                    forward: $forward,
                    backward: "∂q/∂x = 1 (straight-through: ml_dtypes defines no gradient)",
                    figure: { args: "", x: $x, why: $why },
                }
            }

            impl $ty {
                /// The format this type casts to.
                pub const FORMAT: Format =
                    Format { name: $name, exponent_bits: $e, mantissa_bits: $m, bias: $bias, specials: Specials::$sp };
            }

            impl Op for $ty {
                #[inline(always)]
                fn eval<V: Lane>(&self, x: V) -> (V, V) {
                    (Self::FORMAT.cast(x), V::splat(1.0))
                }
            }

            impl Kernel for $ty {
                simd::op_apply!();

                fn levels(&self, _: &Report) -> Levels {
                    Levels::set(Self::FORMAT.levels())
                }
            }

            impl Facts for $ty {
                fn freeze(&self, _: &Report) -> Option<Frozen> {
                    None
                }

                fn layout(&self) -> $crate::Layout {
                    $crate::Layout::Elementwise
                }

                fn inert(&self) -> Vec<&'static str> {
                    Vec::new()
                }

                fn element_format(&self) -> Option<Format> {
                    Some(Self::FORMAT)
                }
            }
        )*

        /// `each_cast!(m)`: `m!(Float8E4M3Fn, …)` with every cast type, for per-type impls.
        #[doc(hidden)]
        #[macro_export]
        macro_rules! each_cast {
            ($d m:ident) => { $d m!($($ty),*); };
        }
        pub use each_cast;
    };
}

casts! { $
    /// OCP FP8 E4M3 (NVIDIA/AMD MI300+ "E4M3"): no inf, NaN at S.1111.111, max 448.
    Float8E4M3Fn "float8_e4m3fn" = (4, 3, 7, Fn)
        "FP8 E4M3: finite, max 448; beyond 464 (and ±inf) NaN"
        "q(x) = x to the nearest even of ±k·2^(e−3), e ∈ [−6, 8], |q| ≤ 448;  |x| > 464, ±inf → NaN",
        x: (-4.0, 4.0), why: "over [−4, 4]: 8 steps per binade, 0.25 apart from 2 to 4 and finer towards 0";
    /// OCP FP8 E5M2: IEEE-like, with ±inf and NaN, max 57344.
    Float8E5M2 "float8_e5m2" = (5, 2, 15, Ieee)
        "FP8 E5M2: IEEE-like with inf, max 57344; from 61440 on ±inf"
        "q(x) = x to the nearest even of ±k·2^(e−2), e ∈ [−14, 15], |q| ≤ 57344;  |x| ≥ 61440 → ±inf",
        x: (-4.0, 4.0), why: "over [−4, 4]: 4 steps per binade, 0.5 apart from 2 to 4 and finer towards 0";
    /// Graphcore/AMD FP8 E4M3 FNUZ: bias 8, no inf, no −0, NaN at 0x80, max 240.
    Float8E4M3Fnuz "float8_e4m3fnuz" = (4, 3, 8, Fnuz)
        "FP8 E4M3 FNUZ: bias 8, max 240, no −0; from 248 on (and ±inf) NaN"
        "q(x) = x to the nearest even of ±k·2^(e−3), e ∈ [−7, 7], |q| ≤ 240, −0 → 0;  |x| ≥ 248, ±inf → NaN",
        x: (-4.0, 4.0), why: "over [−4, 4]: 8 steps per binade, finer towards 0";
    /// Graphcore/AMD FP8 E5M2 FNUZ: bias 16, no inf, no −0, NaN at 0x80, max 57344.
    Float8E5M2Fnuz "float8_e5m2fnuz" = (5, 2, 16, Fnuz)
        "FP8 E5M2 FNUZ: bias 16, max 57344, no −0; from 61440 on (and ±inf) NaN"
        "q(x) = x to the nearest even of ±k·2^(e−2), e ∈ [−15, 15], |q| ≤ 57344, −0 → 0;  |x| ≥ 61440, ±inf → NaN",
        x: (-4.0, 4.0), why: "over [−4, 4]: 4 steps per binade, finer towards 0";
    /// IEEE 754-style FP8 E4M3: with ±inf and NaN, max 240.
    Float8E4M3 "float8_e4m3" = (4, 3, 7, Ieee)
        "FP8 E4M3, IEEE-style with inf: max 240; from 248 on ±inf"
        "q(x) = x to the nearest even of ±k·2^(e−3), e ∈ [−6, 7], |q| ≤ 240;  |x| ≥ 248 → ±inf",
        x: (-4.0, 4.0), why: "over [−4, 4]: 8 steps per binade, finer towards 0";
    /// IEEE 754-style FP8 E3M4: with ±inf and NaN, max 15.5.
    Float8E3M4 "float8_e3m4" = (3, 4, 3, Ieee)
        "FP8 E3M4, IEEE-style with inf: max 15.5; from 15.75 on ±inf"
        "q(x) = x to the nearest even of ±k·2^(e−4), e ∈ [−2, 3], |q| ≤ 15.5;  |x| ≥ 15.75 → ±inf",
        x: (-2.0, 2.0), why: "over [−2, 2]: 16 steps per binade, 1/16 apart from 1 to 2 and finer towards 0";
    /// OCP E8M0 (the MX block scale): unsigned powers of two 2^−127 … 2^127, NaN at 0xff.
    Float8E8M0Fnu "float8_e8m0fnu" = (8, 0, 127, PowerOfTwo)
        "E8M0 scale: powers of two 2^−127…2^127, ties up; 0, x < 0 and overflow NaN"
        "q(x) = 2^⌊log2 x⌋, doubled if x/2^⌊log2 x⌋ ≥ 1.5;  x ≤ 0, x ≥ 1.5·2^127, ±inf → NaN",
        x: (0.0, 6.0), why: "over [0, 6]: the powers of two 0.25 … 4 with ties rounding up; 0 and below are NaN (not \
            drawn)";
    /// OCP FP6 E2M3 (MX element): finite only, saturating, max 7.5.
    Float6E2M3Fn "float6_e2m3fn" = (2, 3, 1, Saturating)
        "FP6 E2M3: finite, saturates at ±7.5; NaN → ∓0"
        "q(x) = clip(x to the nearest even of ±k·2^(e−3), e ∈ [0, 2], ±7.5);  NaN → 0 with the sign flipped",
        x: (-10.0, 10.0), why: "over [−10, 10]: 8 steps per binade and the saturation at ±7.5";
    /// OCP FP6 E3M2 (MX element): finite only, saturating, max 28.
    Float6E3M2Fn "float6_e3m2fn" = (3, 2, 3, Saturating)
        "FP6 E3M2: finite, saturates at ±28; NaN → ∓0"
        "q(x) = clip(x to the nearest even of ±k·2^(e−2), e ∈ [−2, 4], ±28);  NaN → 0 with the sign flipped",
        x: (-32.0, 32.0), why: "over [−32, 32]: 4 steps per binade and the saturation at ±28";
    /// OCP FP4 E2M1 (MXFP4/NVFP4 element): ±{0, 0.5, 1, 1.5, 2, 3, 4, 6}, saturating.
    Float4E2M1Fn "float4_e2m1fn" = (2, 1, 1, Saturating)
        "FP4 E2M1: ±{0, 0.5, 1, 1.5, 2, 3, 4, 6}, saturating; NaN → ∓0"
        "q(x) = clip(x to the nearest even of ±k·2^(e−1), e ∈ [0, 2], ±6);  NaN → 0 with the sign flipped",
        x: (-8.0, 8.0), why: "over [−8, 8]: all 15 values ±{0, 0.5, 1, 1.5, 2, 3, 4, 6} and the saturation at ±6";
}

#[cfg(test)]
mod reference;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_have_the_ranges_ml_dtypes_reports() {
        // (max, smallest positive, levels) as ml_dtypes.finfo and the code count give them.
        let cases = [
            (Float8E4M3Fn::FORMAT, 448.0, 2f32.powi(-9), 253),
            (Float8E5M2::FORMAT, 57344.0, 2f32.powi(-16), 247),
            (Float8E4M3Fnuz::FORMAT, 240.0, 2f32.powi(-10), 255),
            (Float8E5M2Fnuz::FORMAT, 57344.0, 2f32.powi(-17), 255),
            (Float8E4M3::FORMAT, 240.0, 2f32.powi(-9), 239),
            (Float8E3M4::FORMAT, 15.5, 2f32.powi(-6), 223),
            (Float8E8M0Fnu::FORMAT, 2f32.powi(127), f32::from_bits(0x0040_0000), 255),
            (Float6E2M3Fn::FORMAT, 7.5, 0.125, 63),
            (Float6E3M2Fn::FORMAT, 28.0, 0.0625, 63),
            (Float4E2M1Fn::FORMAT, 6.0, 0.5, 15),
        ];
        for (f, max, min, count) in cases {
            assert_eq!((f.max(), f.min_positive(), f.levels().len()), (max, min, count), "{}", f.name);
        }
    }

    #[test]
    fn formats_have_the_finfo_of_ml_dtypes() {
        // ml_dtypes 0.6 `finfo(t)`: (bits, nexp, nmant, minexp, maxexp, max, smallest_normal,
        // smallest_subnormal), printed by ml_dtypes 0.6.0; maxexp is one past the
        // largest exponent, minexp the smallest normal one.
        let finfo = [
            (Float8E4M3Fn::FORMAT, 8, 4, 3, -6, 9, 448.0f64, 0.015625f64, 0.001953125f64),
            (Float8E5M2::FORMAT, 8, 5, 2, -14, 16, 57344.0, 6.103515625e-05, 1.52587890625e-05),
            (Float8E4M3Fnuz::FORMAT, 8, 4, 3, -7, 8, 240.0, 0.0078125, 0.0009765625),
            (Float8E5M2Fnuz::FORMAT, 8, 5, 2, -15, 16, 57344.0, 3.0517578125e-05, 7.62939453125e-06),
            (Float8E4M3::FORMAT, 8, 4, 3, -6, 8, 240.0, 0.015625, 0.001953125),
            (Float8E3M4::FORMAT, 8, 3, 4, -2, 4, 15.5, 0.25, 0.015625),
            (
                Float8E8M0Fnu::FORMAT,
                8,
                8,
                0,
                -127,
                128,
                1.7014118346046923e+38,
                5.877471754111438e-39,
                5.877471754111438e-39,
            ),
            (Float6E2M3Fn::FORMAT, 6, 2, 3, 0, 3, 7.5, 1.0, 0.125),
            (Float6E3M2Fn::FORMAT, 6, 3, 2, -2, 5, 28.0, 0.25, 0.0625),
            (Float4E2M1Fn::FORMAT, 4, 2, 1, 0, 3, 6.0, 1.0, 0.5),
        ];
        for (f, bits, nexp, nmant, minexp, maxexp, max, normal, subnormal) in finfo {
            let shape = (f.bits(), f.exponent_bits, f.mantissa_bits, f.min_exponent(), f.max_exponent() + 1);
            assert_eq!(shape, (bits, nexp, nmant, minexp, maxexp), "{}", f.name);
            let values = (f.max() as f64, f.min_normal() as f64, f.min_positive() as f64);
            assert_eq!(values, (max, normal, subnormal), "{}", f.name);
        }
    }

    #[test]
    fn nan_inf_and_negative_zero_codes_are_those_of_ml_dtypes() {
        // Every code of each dtype viewed as the dtype and classified by ml_dtypes 0.6.
        let run = |a: u32, b: u32| (a..=b).collect::<Vec<u32>>();
        let cases: [(Format, Vec<u32>, Vec<u32>, bool); 10] = [
            (Float8E4M3Fn::FORMAT, vec![0x7f, 0xff], vec![], true),
            (Float8E5M2::FORMAT, [run(0x7d, 0x7f), run(0xfd, 0xff)].concat(), vec![0x7c, 0xfc], true),
            (Float8E4M3Fnuz::FORMAT, vec![0x80], vec![], false),
            (Float8E5M2Fnuz::FORMAT, vec![0x80], vec![], false),
            (Float8E4M3::FORMAT, [run(0x79, 0x7f), run(0xf9, 0xff)].concat(), vec![0x78, 0xf8], true),
            (Float8E3M4::FORMAT, [run(0x71, 0x7f), run(0xf1, 0xff)].concat(), vec![0x70, 0xf0], true),
            (Float8E8M0Fnu::FORMAT, vec![0xff], vec![], false),
            (Float6E2M3Fn::FORMAT, vec![], vec![], true),
            (Float6E3M2Fn::FORMAT, vec![], vec![], true),
            (Float4E2M1Fn::FORMAT, vec![], vec![], true),
        ];
        for (f, nan, inf, negative_zero) in cases {
            assert_eq!((f.nan_codes(), f.inf_codes(), f.negative_zero()), (nan, inf, negative_zero), "{}", f.name);
        }
    }

    #[test]
    fn the_edge_values_have_their_codes() {
        let f = Float8E4M3Fn::FORMAT;
        assert_eq!(
            [f.code_of(448.0), f.code_of(-448.0), f.code_of(f.min_normal())],
            [Some(0x7e), Some(0xfe), Some(0x08)]
        );
        assert_eq!(
            [f.code_of(f.min_positive()), f.code_of(0.0), f.code_of(-0.0)],
            [Some(0x01), Some(0x00), Some(0x80)]
        );
        assert_eq!(f.code_of(449.0), None);
        assert_eq!([Float8E4M3Fnuz::FORMAT.code_of(-0.0), Float8E4M3Fnuz::FORMAT.code_of(0.0)], [None, Some(0x00)]);
        assert_eq!(Float8E8M0Fnu::FORMAT.code_of(1.0), Some(127));
        assert_eq!(Float4E2M1Fn::FORMAT.code_of(-6.0), Some(0xf));
        for f in [Float8E5M2::FORMAT, Float6E3M2Fn::FORMAT, Float8E3M4::FORMAT] {
            let codes: Vec<u32> = f.levels().iter().map(|&v| f.code_of(v).unwrap()).collect();
            assert!(codes.iter().all(|&c| c < 1 << f.bits()), "{}", f.name);
            let mut unique = codes.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(unique.len(), codes.len(), "{}", f.name);
        }
    }

    #[test]
    fn e4m3fn_rounds_464_to_448_and_anything_above_to_nan() {
        let f = Float8E4M3Fn::FORMAT;
        assert_eq!(f.cast(464.0f32), 448.0);
        assert!(f.cast(464.0f32.next_up()).is_nan());
        assert!(f.cast(f32::INFINITY).is_nan());
    }

    #[test]
    fn float4_saturates_and_turns_nan_into_a_zero_of_the_other_sign() {
        let f = Float4E2M1Fn::FORMAT;
        assert_eq!(f.cast(f32::NEG_INFINITY), -6.0);
        assert_eq!(f.cast(f32::NAN).to_bits(), (-0.0f32).to_bits());
        assert_eq!(f.cast(-f32::NAN).to_bits(), 0.0f32.to_bits());
    }

    #[test]
    fn e8m0_rounds_ties_up_and_has_no_zero() {
        let f = Float8E8M0Fnu::FORMAT;
        assert_eq!([f.cast(3.0f32), f.cast(1.5), f.cast(1.4999999), f.cast(2.5)], [4.0, 2.0, 1.0, 2.0]);
        assert!(f.cast(0.0f32).is_nan() && f.cast(-1.0f32).is_nan());
        assert_eq!(f.cast(1.25 * 2f32.powi(-127)), f32::MIN_POSITIVE);
    }

    #[test]
    fn e8m0_sends_subnormals_to_2_pow_minus_127_up_to_it_and_to_2_pow_minus_126_above() {
        let f = Float8E8M0Fnu::FORMAT;
        let (tiny, half_normal) = (f32::from_bits(1), pow2(-127));
        assert_eq!([f.cast(tiny), f.cast(half_normal)], [half_normal, half_normal]);
        assert_eq!(f.cast(f32::from_bits(half_normal.to_bits() + 1)), f32::MIN_POSITIVE);
        assert_eq!(f.cast(f32::from_bits(f32::MIN_POSITIVE.to_bits() - 1)), f32::MIN_POSITIVE);
    }

    #[test]
    fn e8m0_overflows_to_nan_from_one_and_a_half_times_its_max() {
        let f = Float8E8M0Fnu::FORMAT;
        let top = pow2(127);
        assert_eq!(f.cast(f32::from_bits((1.5 * top).to_bits() - 1)), top);
        assert!(f.cast(1.5 * top).is_nan() && f.cast(f32::INFINITY).is_nan() && f.cast(f32::NAN).is_nan());
    }
}
