//! Step-by-step explanation of bitsandbytes' 4-bit formats: the block's absmax, the scaling
//! (a reciprocal for a full block, a division for the tail), the bucket between two midpoints
//! and the table value times the absmax.

use super::{At, Explain, Trace, n};
use qscope_quant::bnb::{BlockCode, Fp4, MIN_ABSMAX, Nf4};

/// The steps of one block's work at `at.x`; `at.y` is the kernel's result.
fn block_steps(op: &BlockCode, amax: Option<f32>, at: &At, t: &mut Trace) -> Option<String> {
    let name = op.table.name();
    if let Some(a) = amax {
        t.add("absmax = max|x| of the block (float32; NaN if any element is)", n(a));
    }
    let scaled = op.scaled(at.x);
    if op.full {
        t.add(format!("full block: x · (1 / max(absmax, {MIN_ABSMAX:e})), both in float32"), n(scaled));
    } else {
        t.add(format!("tail block: x / max(absmax, {MIN_ABSMAX:e}) (stored as its absmax)"), n(scaled));
    }
    t.clip("clamp to [−1, 1] (NaN passes)", scaled, -1.0, 1.0);
    let (values, bounds) = (op.table.values(), op.table.bounds());
    let i = op.bucket(at.x);
    let between = match i {
        _ if scaled.is_nan() => "NaN lands above every bound".to_string(),
        0 => format!("≤ {}", n(bounds[0])),
        15 => format!("> {}", n(bounds[14])),
        _ => format!("in ({}, {}]", n(bounds[i - 1]), n(bounds[i])),
    };
    t.add(
        format!("{name} value: the midpoints of the sorted table bound the buckets, a tie goes to the lower value"),
        format!("{between} → {}", n(values[i])),
    );
    t.add(format!("{} · absmax (float32)", n(values[i])), format!("{} · {} = {}", n(values[i]), n(op.absmax), n(at.y)));
    Some("bitsandbytes' 4-bit functions have no gradient; qscope passes it straight through".into())
}

macro_rules! explain {
    ($($ty:ident),*) => {$(
        impl Explain for $ty {
            fn steps(&self, at: &At, t: &mut Trace) -> Option<String> {
                block_steps(&self.first_block(at.report), at.report.blocks.first().map(|b| b.amax), at, t)
            }
        }
    )*};
}
explain!(Nf4, Fp4);
