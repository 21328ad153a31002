//! The casts' formulas on |x| before [`Format::cast`] was rewritten for fewer f32x4 operations
//! (a magic-number rounding of |x|, then a select and a copysign), kept as its oracle: the tests
//! check that both give the same bits — on a dense sample of float32 here, on every one of the
//! 2^32 bit patterns in the ignored `every_float32_casts_as_the_reference_does` (a release run:
//! `cargo test --release --lib ml_dtypes::reference -- --ignored`).

use super::{Format, Specials, pow2};
use crate::lane::{Lane, Wide};
use crate::ml_dtypes::*;

/// `float32(dtype(x))` as first written.
fn cast<V: Lane>(f: Format, x: V) -> V {
    let (max, nan) = (V::splat(f.max()), V::splat(f32::NAN));
    let a = x.abs();
    match f.specials {
        Specials::Ieee => {
            let q = round(f, a);
            V::select(q.le(max), q, a * V::splat(f32::INFINITY)).copysign(x)
        }
        Specials::Fn => {
            let q = round(f, a);
            V::select(q.le(max), q, nan).copysign(x)
        }
        Specials::Fnuz => {
            let q = round(f, a);
            V::select(q.le(max), q, nan).copysign(x) + V::splat(0.0)
        }
        Specials::Saturating => round(f, V::splat(0.0).pmax(a).pmin(max)).copysign_nan_flipped(x),
        Specials::PowerOfTwo => {
            let smallest = V::splat(f.min_positive());
            let half = (x.binade() * V::splat(0.5)).pmax(V::splat(pow2(-127) - pow2(-149)));
            let q = (x + half).binade().pmax(smallest);
            V::select(x.gt(V::splat(0.0)) & q.le(V::splat(f.max())), q, V::splat(f32::NAN))
        }
    }
}

/// torchao's fp6/fp4 cast (a NaN to `±nan_as`) as first written.
fn cast_nan_as<V: Lane>(f: Format, x: V, nan_as: f32) -> V {
    let a = x.abs();
    let q = round(f, a.pmin(V::splat(f.max())));
    V::select(a.le(V::splat(f32::INFINITY)), q, V::splat(nan_as)).copysign(x)
}

/// Non-negative `a` rounded to the format's step at its exponent: `(a + M) − M` with
/// `M = 2^(e−m+23)`.
fn round<V: Lane>(f: Format, a: V) -> V {
    let (lo, m) = (f.min_exponent(), f.mantissa_bits as i32);
    let magic = a.binade().pmax(V::splat(pow2(lo))) * V::splat(pow2(23 - m));
    (a + magic) - magic
}

const FORMATS: [Format; 10] = [
    Float8E4M3Fn::FORMAT,
    Float8E5M2::FORMAT,
    Float8E4M3Fnuz::FORMAT,
    Float8E5M2Fnuz::FORMAT,
    Float8E4M3::FORMAT,
    Float8E3M4::FORMAT,
    Float8E8M0Fnu::FORMAT,
    Float6E2M3Fn::FORMAT,
    Float6E3M2Fn::FORMAT,
    Float4E2M1Fn::FORMAT,
];

/// The first input among `xs` where a cast and its reference differ in any bit, for every
/// format (and torchao's NaN rule for the saturating ones): one element at a time, and with
/// `lanes` also four lanes at a time.
fn first_difference(xs: impl Iterator<Item = u32> + Clone, lanes: bool) -> Option<(&'static str, u32)> {
    let four = |f: &dyn Fn(Wide<f32, 4>) -> Wide<f32, 4>, x: f32| f(Wide::splat(x)).0[3];
    for f in FORMATS {
        let nan_as = (f.specials == Specials::Saturating).then_some(1.5);
        let differs = |b: u32| {
            let x = f32::from_bits(b);
            let same = |new: f32, old: f32| new.to_bits() == old.to_bits();
            let mut differ = !same(f.cast(x), cast(f, x));
            if let Some(n) = nan_as {
                differ |= !same(f.cast_nan_as(x, n), cast_nan_as(f, x, n));
            }
            if lanes {
                differ |= !same(four(&|v| f.cast(v), x), four(&|v| cast(f, v), x));
                if let Some(n) = nan_as {
                    differ |= !same(four(&|v| f.cast_nan_as(v, n), x), four(&|v| cast_nan_as(f, v, n), x));
                }
            }
            differ
        };
        if let Some(b) = xs.clone().find(|&b| differs(b)) {
            return Some((f.name, b));
        }
    }
    None
}

#[test]
fn casts_give_the_reference_formulas_bits_on_a_dense_sample() {
    // Every 65,537th bit pattern, each format's levels and the midpoints between them with their
    // ±4-ulp neighbours (both signs), every NaN payload class, ±inf, zeros and subnormals.
    let stride = (0..=u32::MAX / 65_537).map(|k| k * 65_537);
    let mut edges: Vec<u32> = Vec::new();
    for f in FORMATS {
        let levels = f.levels();
        let mids = levels.windows(2).map(|w| ((w[0] as f64 + w[1] as f64) / 2.0) as f32);
        for v in levels.iter().copied().chain(mids).chain([f.max() * 1.03125, f.max() * 1.0625, pow2(-127)]) {
            for d in 0..=8u32 {
                let b = v.abs().to_bits().wrapping_add(d).wrapping_sub(4);
                edges.extend([b, b | 0x8000_0000]);
            }
        }
    }
    let specials =
        [0, 1, 0x3f_ffff, 0x40_0000, 0x40_0001, 0x7f_ffff, 0x7f80_0000, 0x7f80_0001, 0x7fc0_0000, 0x7fff_ffff];
    let specials = specials.into_iter().flat_map(|b: u32| [b, b | 0x8000_0000]);
    let all: Vec<u32> = stride.chain(edges).chain(specials).collect();
    assert_eq!(first_difference(all.iter().copied(), true), None);
}

/// Float32 bit patterns across the whole range, all 2^32 with `QSCOPE_EXHAUSTIVE=1 cargo test
/// --release --lib ml_dtypes::reference::the_cast_of` (a few minutes).
#[test]
fn the_cast_of_a_clamped_value_gives_the_casts_bits_on_every_float_but_nan() {
    for f in FORMATS.into_iter().filter(|f| !matches!(f.specials, Specials::Fnuz | Specials::PowerOfTwo)) {
        let max = f.max();
        for bits in (0..=u32::MAX).step_by(crate::every_float_step()).chain([0x7f80_0000, 0xff80_0000]) {
            let t = f32::from_bits(bits).pmin(max).pmax(-max);
            let (new, four) = (f.cast_clamped(t), f.cast_clamped(Wide::<f32, 4>::splat(t)).0[2]);
            if t.is_nan() {
                assert!(new.is_nan() && four.is_nan(), "{} {t:e}", f.name);
            } else {
                assert_eq!([new, four].map(f32::to_bits), [f.cast(t).to_bits(); 2], "{} {t:e}", f.name);
            }
        }
    }
}

#[test]
#[ignore = "2^32 inputs × 10 formats: minutes in a release build"]
fn every_float32_casts_as_the_reference_does() {
    // One element at a time (`Wide` computes each lane as `f32` does), in a thread per core.
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    let part = (1u64 << 32).div_ceil(threads);
    let found: Vec<_> = std::thread::scope(|s| {
        let runs: Vec<_> = (0..threads)
            .map(|t| {
                let (lo, hi) = (t * part, ((t + 1) * part).min(1 << 32));
                s.spawn(move || first_difference(lo as u32..=(hi - 1) as u32, false))
            })
            .collect();
        runs.into_iter().filter_map(|r| r.join().unwrap()).collect()
    });
    assert_eq!(found, []);
}
