//! The hardware facts of ml_dtypes' element casts: floating-point formats, not fixed point,
//! and what each does with a value it cannot hold.

use super::{Hardware, Warnings};
use qscope_quant::ml_dtypes::*;

/// The one surprise of a format: where an out-of-range input or a NaN goes.
fn warning(f: Format) -> String {
    let (name, max) = (f.name, f.max());
    match f.specials {
        Specials::Ieee => format!("{name} rounds |x| past its largest value {max} to ±inf."),
        Specials::Fn | Specials::Fnuz => format!(
            "{name} has no inf: |x| past its largest value {max} (and ±inf) becomes NaN, not ±{max}; clip \
             before casting to saturate."
        ),
        Specials::Saturating => format!(
            "{name} has no inf and no NaN: it saturates at ±{max}, and a NaN input becomes 0 (ml_dtypes gives \
             it the NaN's sign bit flipped), silently."
        ),
        Specials::PowerOfTwo => format!(
            "{name} is unsigned with no zero: 0, negative inputs and overflow become NaN, and a tie rounds up \
             (1.5·2^k → 2^(k+1)), unlike the other casts."
        ),
    }
}

macro_rules! hardware {
    ($($ty:ident),*) => {$(
        impl Hardware for $ty {
            fn not_fixed_point(&self) -> Option<&'static str> {
                Some("a floating-point format: each element stores a sign, an exponent and a mantissa, so the \
                      levels are not equally spaced and no fixed-point type holds them")
            }

            fn warnings(&self, w: &mut Warnings) {
                w.push(warning(Self::FORMAT));
            }
        }
    )*};
}
each_cast!(hardware);
