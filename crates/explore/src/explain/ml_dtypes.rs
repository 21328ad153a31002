//! Step-by-step explanations of ml_dtypes' element casts: sign, exponent, mantissa, the
//! rounding at that exponent's step, and the format's overflow rule.

use super::{At, Explain, Trace, n};
use qscope_quant::ml_dtypes::*;

/// The straight-through reason every cast gives.
const STE: &str = "the cast passes the gradient straight through (ml_dtypes defines none)";

/// What the format does with a NaN input, a value past its largest one, or ±inf.
fn overflow_rule(f: Format) -> String {
    let max = n(f.max());
    match f.specials {
        Specials::Ieee => format!("past ±{max} the value rounds to ±inf"),
        Specials::Fn | Specials::Fnuz => format!("past ±{max} (and at ±inf) the value becomes NaN: no inf"),
        Specials::Saturating => format!("past ±{max} (and at ±inf) the value saturates; NaN becomes 0"),
        Specials::PowerOfTwo => format!("above {max} (and for x ≤ 0, ±inf, NaN) the value is NaN"),
    }
}

/// The steps of `f`'s cast at `at.x`; `at.y` is the kernel's result.
pub(super) fn cast_steps(f: Format, at: &At, t: &mut Trace) {
    let x = at.x;
    t.add(
        format!("{}: {} bits", f.name, f.bits()),
        format!(
            "{}{} exponent, {} mantissa bits, bias {}",
            if f.signed() { "1 sign, " } else { "no sign, " },
            f.exponent_bits,
            f.mantissa_bits,
            f.bias
        ),
    );
    if !x.is_finite() || (f.specials == Specials::PowerOfTwo && x <= 0.0) {
        t.add("special input", format!("{} → {}; {}", n(x), n(at.y), overflow_rule(f)));
        return;
    }
    if f.signed() {
        t.add("sign", if x.is_sign_negative() { "−" } else { "+" });
    }
    let a = x.abs();
    let (lo, hi) = (f.min_exponent(), f.max_exponent());
    let e = if a == 0.0 { lo } else { (a.log2().floor() as i32).clamp(lo, hi + 1) };
    if f.specials == Specials::PowerOfTwo {
        let m = a / 2f32.powi(e);
        t.add("e = ⌊log2 x⌋ (at least −127)", e.to_string());
        t.add("x/2^e ≥ 1.5 rounds up (a tie goes up)", format!("{} → 2^{}", n(m), e + i32::from(m >= 1.5)));
    } else {
        let what = if a < 2f32.powi(lo) {
            format!("below 2^{lo}: a subnormal, so the lowest exponent's step")
        } else {
            "e = ⌊log2 |x|⌋".to_string()
        };
        t.add(what, format!("e = {e}"));
        let step = 2f32.powi(e - f.mantissa_bits as i32);
        t.add(format!("step at this exponent: 2^(e − {})", f.mantissa_bits), n(step));
        t.add("|x|/step", n(a / step));
        let k = t.round(a / step);
        t.add("k·step", n(k * step));
    }
    t.add("overflow rule", overflow_rule(f));
}

macro_rules! explain {
    ($($ty:ident),*) => {$(
        impl Explain for $ty {
            fn steps(&self, at: &At, t: &mut Trace) -> Option<String> {
                cast_steps(Self::FORMAT, at, t);
                Some(STE.into())
            }
        }
    )*};
}
each_cast!(explain);
