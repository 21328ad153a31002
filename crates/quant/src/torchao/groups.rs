//! Group-wise integer codes as torchao 0.18's affine quant primitives compute them, shared by
//! [`super::Affine`] (`choose_qparams_affine` → `quantize_affine` → `dequantize_affine`) and
//! [`super::IntxFakeQuantize`] (the QAT fake quantizer, the same arithmetic without the integer
//! cast, with autograd's gradient).
//!
//! A 1-D tensor is one row cut into groups of `group_size` along its length; where the length
//! is not a multiple of the group torchao asserts, and qscope makes the tail a shorter group of
//! its own (README, "Where qscope deliberately differs").
//!
//! Per group (torchao/quantization/quant_primitives.py, every step in float32):
//! 1. `min_val = amin(x)`, `max_val = amax(x)` (NaN if any element is NaN) — [`min_max`], through
//!    [`Lane`]; `min_neg = min(min_val, 0)`, `max_pos = max(max_val, 0)`;
//! 2. [`choose_qparams`]: the scale `s` (clamped below at float32's smallest normal) and the int32
//!    zero point `z`;
//! 3. `c = clamp(round(x·(1/s)) + z, quant_min, quant_max)` — `1/s` is one float32 reciprocal
//!    (`1.0 / scale` is `scale.reciprocal() * 1.0` in torch), round is half to even;
//! 4. `quantize_affine` casts `c` to its int8/uint8 dtype (a NaN code becomes 0, as torch's CPU
//!    cast gives); the fake quantizer keeps `c` in float32 (NaN stays NaN);
//! 5. `y = (c − z)·s`.

use crate::blocks::{self, Statistic};
use crate::lane::{Lane, clip};
use crate::levels::MAX_SET;
use crate::round::rhe;
use crate::schema::choice;
use crate::simd::{self, OnLanes, Op};
use crate::{Block, Levels, Report};

choice! {
    /// torchao's `MappingType`: how a group's min and max become a scale and zero point.
    MappingType {
        /// `s = (max_pos − min_neg)/(quant_max − quant_min)`, `z = quant_min − round(min_neg/s)`.
        Asymmetric = "asymmetric",
        /// `s = max(−min_neg, max_pos)/((quant_max − quant_min)/2)`, `z` the range's middle.
        Symmetric = "symmetric",
        /// `s = max(min_neg/quant_min, max_pos/quant_max)`: no value is clipped.
        SymmetricNoClippingErr = "symmetric_no_clipping_err",
    }
}

/// `torch.finfo(torch.float32).smallest_normal`: `choose_qparams_affine`'s default `eps`, the
/// smallest scale (the intx fake quantizer's default too).
pub const EPS: f32 = f32::MIN_POSITIVE;

/// One group's quantization parameters: the float32 scale and the int32 zero point (as f32).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QParams {
    pub scale: f32,
    pub zero_point: f32,
}

/// `torch.minimum` / `torch.maximum` against 0: NaN propagates.
fn toward_zero(v: f32, pick: bool) -> f32 {
    if v.is_nan() || pick { v } else { 0.0 }
}

/// `float → int32` as torch's x86-64 CPU cast (`cvttps2dq`): a NaN zero point becomes −2³¹.
/// Every other zero point reaching it is an integer already clamped to the code range.
pub fn to_int32(v: f32) -> f32 {
    if v.is_nan() { i32::MIN as f32 } else { v }
}

/// torchao's `_choose_qparams_affine` for one group with `min_val`/`max_val`, float32 throughout.
pub fn choose_qparams(mapping: MappingType, min_val: f32, max_val: f32, quant_min: i32, quant_max: i32) -> QParams {
    let min_neg = toward_zero(min_val, min_val < 0.0);
    let max_pos = toward_zero(max_val, max_val > 0.0);
    let (lo, hi) = (quant_min as f32, quant_max as f32);
    let clamp_eps = |s: f32| if s < EPS { EPS } else { s };
    let scale = match mapping {
        MappingType::Symmetric => {
            // The larger of two non-negative numbers by one comparison (`f32::max` is a call in
            // wasm); where both are zeros of either sign the scale is clamped to eps alike.
            let m = if min_neg.is_nan() || max_pos.is_nan() {
                f32::NAN
            } else if -min_neg > max_pos {
                -min_neg
            } else {
                max_pos
            };
            m / ((quant_max - quant_min) as f32 / 2.0)
        }
        MappingType::SymmetricNoClippingErr => {
            let (smin, smax) = (min_neg / lo, max_pos / hi);
            if smin > smax { smin } else { smax }
        }
        MappingType::Asymmetric => (max_pos - min_neg) / (quant_max - quant_min) as f32,
    };
    let scale = clamp_eps(scale);
    let zero_point = match mapping {
        // int((quant_max + quant_min + 1) / 2): Python's true division, truncated.
        MappingType::Symmetric | MappingType::SymmetricNoClippingErr => {
            ((quant_max + quant_min + 1) as f64 / 2.0).trunc() as f32
        }
        MappingType::Asymmetric => to_int32(clip(lo - rhe(min_neg / scale), lo, hi)),
    };
    QParams { scale, zero_point }
}

/// Where the codes go after rounding: the affine primitives' integer cast with an identity
/// gradient (qscope's definition), or the QAT fake quantizer's float codes with autograd's
/// gradient through `torch.clamp`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Path {
    /// `quantize_affine` → `dequantize_affine`: codes cast to int8/uint8; gradient 1.
    Dequantize,
    /// `_fake_quantize_affine`: float codes; gradient `s·(1/s)` where the code before the
    /// clamp lies strictly inside (quant_min, quant_max) — torch 2.15's clamp, 0 at the bounds —
    /// and `0·(1/s)` elsewhere (NaN where 1/s is).
    FakeQuantize,
}

/// The elementwise part at fixed parameters: `(clamp(round(x·(1/s)) + z, qmin, qmax) − z)·s`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroupCodes {
    pub params: QParams,
    pub quant_min: i32,
    pub quant_max: i32,
    pub path: Path,
}

impl Op for GroupCodes {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        let QParams { scale, zero_point } = self.params;
        let recip = 1.0 / scale;
        let (lo, hi) = (V::splat(self.quant_min as f32), V::splat(self.quant_max as f32));
        let z = V::splat(zero_point);
        let v = (x * V::splat(recip)).nearest() + z;
        let c = clip(v, lo, hi);
        match self.path {
            Path::Dequantize => {
                // The int8/uint8 cast: a NaN code (±inf times 1/inf) becomes 0.
                let c = V::select(c.ge(c), c, V::splat(0.0));
                ((c - z) * V::splat(scale), V::splat(1.0))
            }
            Path::FakeQuantize => {
                let g = V::select(v.gt(lo) & v.lt(hi), V::splat(scale * recip), V::splat(0.0 * recip));
                ((c - z) * V::splat(scale), g)
            }
        }
    }
}

impl GroupCodes {
    /// `(c − z)·s` for every code c (one group's levels).
    pub fn levels(&self) -> Levels {
        let z = self.params.zero_point as i64;
        Levels::codes(self.quant_min as i64 - z, self.quant_max as i64 - z, self.params.scale)
    }

    /// Evaluates a slice at these parameters.
    pub fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>) -> Report {
        simd::run(self, x, y, dydx);
        Report { scale: Some(self.params.scale), ..Report::default() }
    }
}

/// Cuts `x` into groups of `group_size` (the tail shorter), gives each `codes` at the parameters
/// [`choose_qparams`] (`mapping`, `codes`' range) finds for its `torch.amin`/`torch.amax`, and
/// reports one [`Block`] per group ([`blocks::run_chunked`]: a chunk's parameters on lanes,
/// [`QParamsOf`]).
pub fn run_groups(
    x: &[f32],
    y: &mut [f32],
    dydx: Option<&mut [f32]>,
    group_size: usize,
    mapping: MappingType,
    codes: GroupCodes,
) -> Report {
    let mut params = Vec::new();
    let blocks = blocks::run_chunked(x, y, dydx, group_size.max(1), |stats: &[GroupMinMax], len, ops, blocks| {
        params.clear();
        simd::on_lanes(QParamsOf { stats, mapping, codes, out: &mut params });
        for &(params, amax) in &params {
            ops.push(GroupCodes { params, ..codes });
            blocks.push(Block { len, amax, scale: params.scale, code: None, zero_point: Some(params.zero_point) });
        }
    });
    Report { blocks, ..Report::default() }
}

/// The parameters and amax of a chunk's groups from their min and max, [`choose_qparams_lanes`]
/// on `V` lanes, the groups that do not fill a vector one at a time.
struct QParamsOf<'a> {
    stats: &'a [GroupMinMax],
    mapping: MappingType,
    codes: GroupCodes,
    out: &'a mut Vec<(QParams, f32)>,
}

impl OnLanes for QParamsOf<'_> {
    type Output = ();
    #[inline(always)]
    fn on<V: Lane>(self) {
        const MAX_WIDTH: usize = 16;
        assert!(V::WIDTH <= MAX_WIDTH, "lanes wider than {MAX_WIDTH}");
        let QParamsOf { stats, mapping, codes, out } = self;
        let (qmin, qmax) = (codes.quant_min, codes.quant_max);
        let body = stats.len() - stats.len() % V::WIDTH;
        let (mut lo, mut hi) = ([0.0f32; MAX_WIDTH], [0.0f32; MAX_WIDTH]);
        let (mut s, mut z, mut a) = ([0.0f32; MAX_WIDTH], [0.0f32; MAX_WIDTH], [0.0f32; MAX_WIDTH]);
        for group in stats[..body].chunks_exact(V::WIDTH) {
            for (l, &GroupMinMax(min, max)) in group.iter().enumerate() {
                (lo[l], hi[l]) = (min, max);
            }
            let (lo, hi) = (V::load(&lo), V::load(&hi));
            let (scale, zero_point) = choose_qparams_lanes(mapping, lo, hi, qmin, qmax);
            scale.store(&mut s);
            zero_point.store(&mut z);
            group_amax(lo, hi).store(&mut a);
            out.extend((0..V::WIDTH).map(|l| (QParams { scale: s[l], zero_point: z[l] }, a[l])));
        }
        for &GroupMinMax(lo, hi) in &stats[body..] {
            let (scale, zero_point) = choose_qparams_lanes(mapping, lo, hi, qmin, qmax);
            out.push((QParams { scale, zero_point }, group_amax(lo, hi)));
        }
    }
}

/// A group's `max|x|` from its min and max (NaN where they are).
#[inline(always)]
fn group_amax<V: Lane>(lo: V, hi: V) -> V {
    let (a, b) = (lo.abs(), hi.abs());
    V::select(lo.le(lo), V::select(a.gt(b), a, b), V::splat(f32::NAN))
}

/// [`choose_qparams`] on lanes: `(scale, zero_point)` of groups whose min and max are `min_val`
/// and `max_val`, lane by lane the same IEEE operations (its branches as selects).
#[inline(always)]
pub fn choose_qparams_lanes<V: Lane>(
    mapping: MappingType,
    min_val: V,
    max_val: V,
    quant_min: i32,
    quant_max: i32,
) -> (V, V) {
    let zero = V::splat(0.0);
    // torch.minimum/maximum against 0, NaN propagating: `!(v ≥ 0)` is `v < 0` or NaN.
    let min_neg = V::select(!min_val.ge(zero), min_val, zero);
    let max_pos = V::select(!max_val.le(zero), max_val, zero);
    let (lo, hi) = (V::splat(quant_min as f32), V::splat(quant_max as f32));
    let scale = match mapping {
        MappingType::Symmetric => {
            let (a, b) = (-min_neg, max_pos);
            let nan = !(min_neg.le(min_neg) & max_pos.le(max_pos));
            let m = V::select(nan, V::splat(f32::NAN), V::select(a.gt(b), a, b));
            m / V::splat((quant_max - quant_min) as f32 / 2.0)
        }
        MappingType::SymmetricNoClippingErr => {
            let (smin, smax) = (min_neg / lo, max_pos / hi);
            V::select(smin.gt(smax), smin, smax)
        }
        MappingType::Asymmetric => (max_pos - min_neg) / V::splat((quant_max - quant_min) as f32),
    };
    let scale = V::select(scale.lt(V::splat(EPS)), V::splat(EPS), scale);
    let zero_point = match mapping {
        MappingType::Symmetric | MappingType::SymmetricNoClippingErr => {
            V::splat(((quant_max + quant_min + 1) as f64 / 2.0).trunc() as f32)
        }
        MappingType::Asymmetric => {
            let z = clip(lo - (min_neg / scale).nearest(), lo, hi);
            V::select(z.le(z), z, V::splat(i32::MIN as f32))
        }
    };
    (scale, zero_point)
}

/// The union of every reported group's levels (one group: its uniform codes); `fallback` without
/// any group. Groups of the same parameters count once; when the distinct groups' codes add up
/// to more than [`MAX_SET`] (a large tensor in small groups), the union is
/// [`Levels::Continuous`] rather than enumerated.
pub fn union_levels(report: &Report, codes: impl Fn(QParams) -> GroupCodes, fallback: QParams) -> Levels {
    let params = |b: &Block| QParams { scale: b.scale, zero_point: b.zero_point.unwrap_or(0.0) };
    match report.blocks.as_slice() {
        [] => codes(fallback).levels(),
        [b] => codes(params(b)).levels(),
        blocks => {
            let mut distinct: Vec<(u32, u32)> =
                blocks.iter().map(|b| (b.scale.to_bits(), b.zero_point.unwrap_or(0.0).to_bits())).collect();
            distinct.sort_unstable();
            distinct.dedup();
            let groups: Vec<Levels> = distinct
                .into_iter()
                .map(|(s, z)| codes(QParams { scale: f32::from_bits(s), zero_point: f32::from_bits(z) }).levels())
                .collect();
            let total = groups.iter().map(|l| l.count().unwrap_or(0)).fold(0u64, u64::saturating_add);
            if total > MAX_SET as u64 {
                return Levels::Continuous;
            }
            Levels::set(groups.iter().flat_map(|l| l.list(usize::MAX).unwrap_or_default()).collect())
        }
    }
}

/// A group's `(torch.amin(x), torch.amax(x))` ([`min_max_lanes`]), the statistic its codes
/// come from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroupMinMax(pub f32, pub f32);

impl Statistic for GroupMinMax {
    #[inline(always)]
    fn of<V: Lane>(x: &[f32]) -> Self {
        let (lo, hi) = min_max_lanes::<V>(x);
        GroupMinMax(lo, hi)
    }
}

/// `(torch.amin(x), torch.amax(x))` of one group: NaN for both if any element is NaN; `(inf,
/// −inf)` for no elements. `V::WIDTH` elements at a time ([`Lane`]: f32x4 where SIMD runs), the
/// lanes and the tail then folded one at a time; [`min_max_scalar`] is the scalar twin.
pub fn min_max(x: &[f32]) -> (f32, f32) {
    simd::on_lanes(MinMaxOf(x))
}

/// [`min_max_lanes`] as an [`OnLanes`] computation.
struct MinMaxOf<'a>(&'a [f32]);

impl OnLanes for MinMaxOf<'_> {
    type Output = (f32, f32);
    fn on<V: Lane>(self) -> (f32, f32) {
        min_max_lanes::<V>(self.0)
    }
}

/// [`min_max`] one element at a time.
pub fn min_max_scalar(x: &[f32]) -> (f32, f32) {
    min_max_lanes::<f32>(x)
}

/// A running `amin`/`amax` over lanes, with a NaN seen anywhere kept apart.
#[derive(Clone, Copy)]
struct MinMax<V: Lane> {
    lo: V,
    hi: V,
    /// Per lane, whether every element so far was ordered (`v ≤ v` fails only for NaN).
    ordered: V::Mask,
}

impl<V: Lane> MinMax<V> {
    fn new() -> Self {
        let zero = V::splat(0.0);
        MinMax { lo: V::splat(f32::INFINITY), hi: V::splat(f32::NEG_INFINITY), ordered: zero.le(zero) }
    }

    /// Folds in `v`: `v < lo` replaces lo and `v > hi` replaces hi (`pmin`/`pmax`: a NaN `v`
    /// replaces neither), and a NaN `v` clears `ordered` (a comparison and an `and`, where the
    /// largest |v| bits took an abs and an integer max).
    #[inline(always)]
    fn merge(self, v: V) -> Self {
        MinMax { lo: self.lo.pmin(v), hi: self.hi.pmax(v), ordered: self.ordered & v.le(v) }
    }
}

/// [`min_max`] on lanes of `V`.
#[inline(always)]
pub fn min_max_lanes<V: Lane>(x: &[f32]) -> (f32, f32) {
    let body = x.len() - x.len() % V::WIDTH;
    let mut acc = MinMax::<V>::new();
    for c in x[..body].chunks_exact(V::WIDTH) {
        acc = acc.merge(V::load(c));
    }
    // Across the lanes as a tree ([`Lane::reduce`]): the first lane holding the min (max), as
    // folding them in order from +inf (−inf) gives — `acc.lo`/`acc.hi` hold no NaN (`pmin`/`pmax`
    // never take one in).
    let mut one =
        MinMax::<f32> { lo: acc.lo.reduce(V::pmin), hi: acc.hi.reduce(V::pmax), ordered: !V::any(!acc.ordered) };
    for &v in &x[body..] {
        one = one.merge(v);
    }
    if one.ordered { (one.lo, one.hi) } else { (f32::NAN, f32::NAN) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lane::Wide;

    #[test]
    fn four_lanes_and_the_scalar_twin_reduce_to_the_same_min_and_max() {
        let specials = [0.0, -0.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1e-40, -3e38, 7.5];
        for len in 0..40 {
            for s in 0..specials.len() + 1 {
                let mut x: Vec<f32> = (0..len).map(|i| ((i * 37 % 11) as f32 - 5.0) * 0.3).collect();
                if let (Some(&v), true) = (specials.get(s), len > 0) {
                    x[(s * 7) % len] = v;
                }
                let (a, b) = (min_max_lanes::<Wide<f32, 4>>(&x), min_max_scalar(&x));
                assert_eq!((a.0.to_bits(), a.1.to_bits()), (b.0.to_bits(), b.1.to_bits()), "{x:?}");
            }
        }
    }

    #[test]
    fn the_ordered_mask_finds_a_nan_where_the_largest_magnitude_bits_did() {
        // The formula before: the largest |v| bits (Lane::imax), NaN once any element is NaN.
        let old = |x: &[f32]| x.iter().fold(0.0f32, |m, v| m.imax(v.abs())).is_nan();
        let nans = [f32::NAN, -f32::NAN, f32::from_bits(0x7f80_0001), f32::from_bits(0xffc0_1234)];
        for len in 0..24 {
            for at in 0..len.max(1) {
                for nan in nans.into_iter().map(Some).chain([None]) {
                    let mut x: Vec<f32> = (0..len).map(|i| ((i * 29 % 13) as f32 - 6.0) * 0.7).collect();
                    if let (Some(v), true) = (nan, len > 0) {
                        x[at] = v;
                    }
                    for (lo, hi) in [min_max_lanes::<Wide<f32, 4>>(&x), min_max_scalar(&x)] {
                        assert_eq!(lo.is_nan() && hi.is_nan(), old(&x), "{x:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_nan_anywhere_makes_min_and_max_nan_and_inf_is_an_extreme() {
        let (lo, hi) = min_max_scalar(&[1.0, 2.0, 3.0, 4.0, f32::NAN, 0.5]);
        assert!(lo.is_nan() && hi.is_nan());
        assert_eq!(min_max_lanes::<Wide<f32, 4>>(&[1.0, -2.0, f32::INFINITY, 0.0, 3.0]), (-2.0, f32::INFINITY));
    }

    #[test]
    fn symmetric_int4_maps_the_amax_to_seven_and_a_half_steps() {
        let p = choose_qparams(MappingType::Symmetric, -3.0, 7.5, -8, 7);
        assert_eq!(p, QParams { scale: 1.0, zero_point: 0.0 });
        // uint4 with a symmetric mapping: the zero point is the middle code, int(16/2).
        assert_eq!(choose_qparams(MappingType::Symmetric, -3.0, 7.5, 0, 15).zero_point, 8.0);
        // int((0 + 14 + 1)/2) truncates 7.5 to 7.
        assert_eq!(choose_qparams(MappingType::SymmetricNoClippingErr, -3.0, 7.5, 0, 14).zero_point, 7.0);
    }

    #[test]
    fn asymmetric_zero_point_is_quant_min_minus_the_rounded_min_over_the_scale() {
        // [−1, 2] over 15 steps: s = 0.2, z = −8 − round(−1/0.2) = −3.
        let p = choose_qparams(MappingType::Asymmetric, -1.0, 2.0, -8, 7);
        assert_eq!(p, QParams { scale: 3.0f32 / 15.0, zero_point: -3.0 });
        // An all-positive group keeps 0 in range: min_neg = 0, z = quant_min.
        assert_eq!(choose_qparams(MappingType::Asymmetric, 10.0, 20.0, -8, 7).zero_point, -8.0);
    }

    #[test]
    fn the_symmetric_scale_by_one_comparison_is_the_f32_max_formulas() {
        // The formula before: `(−min_neg).max(max_pos)` over (qmax − qmin)/2, clamped at eps.
        let old = |lo: f32, hi: f32, qmin: i32, qmax: i32| {
            let (min_neg, max_pos) = (toward_zero(lo, lo < 0.0), toward_zero(hi, hi > 0.0));
            let m = if min_neg.is_nan() || max_pos.is_nan() { f32::NAN } else { (-min_neg).max(max_pos) };
            let s = m / ((qmax - qmin) as f32 / 2.0);
            if s < EPS { EPS } else { s }
        };
        let vals = [0.0f32, -0.0, 1e-40, -1e-40, 0.3, -0.3, 7.5, -7.5, 3e38, -3e38, f32::INFINITY, f32::NEG_INFINITY];
        for lo in vals.into_iter().chain([f32::NAN]) {
            for hi in vals.into_iter().chain([f32::NAN]) {
                for (qmin, qmax) in [(-8, 7), (0, 15), (-128, 127)] {
                    let new = choose_qparams(MappingType::Symmetric, lo, hi, qmin, qmax).scale;
                    let want = old(lo, hi, qmin, qmax);
                    assert!(new.to_bits() == want.to_bits() || new.is_nan() && want.is_nan(), "{lo} {hi}");
                }
            }
        }
    }

    #[test]
    fn the_parameters_on_lanes_are_the_scalar_choose_qparams_bits() {
        let vals = [0.0f32, -0.0, 1e-40, -1e-40, 1e-30, 0.3, -0.3, 2.0, -2.0, 7.5, -7.5, 3e38, -3e38, 1.0 / 3.0];
        let specials = [f32::INFINITY, f32::NEG_INFINITY, f32::NAN, -f32::NAN];
        let all: Vec<f32> = vals.into_iter().chain(specials).chain(mx_sweep().step_by(97)).collect();
        let mappings = [MappingType::Asymmetric, MappingType::Symmetric, MappingType::SymmetricNoClippingErr];
        for mapping in mappings {
            for (qmin, qmax) in [(-8, 7), (0, 15), (-128, 127), (0, 255), (-2, 1)] {
                for lo in all.iter().copied() {
                    let his: Vec<f32> = all.iter().copied().step_by(7).chain([lo, -lo]).collect();
                    for hi in his.iter().copied() {
                        let want = choose_qparams(mapping, lo, hi, qmin, qmax);
                        let (s, z) = choose_qparams_lanes(mapping, lo, hi, qmin, qmax);
                        assert_eq!(
                            [s, z].map(f32::to_bits),
                            [want.scale, want.zero_point].map(f32::to_bits),
                            "{mapping:?} {lo} {hi}"
                        );
                        let four =
                            choose_qparams_lanes(mapping, Wide([lo, hi, 0.5, lo]), Wide([hi, lo, 1.0, hi]), qmin, qmax);
                        assert_eq!(
                            [four.0.0[0], four.1.0[0]].map(f32::to_bits),
                            [s, z].map(f32::to_bits),
                            "{mapping:?} {lo} {hi}"
                        );
                    }
                }
            }
        }
    }

    fn mx_sweep() -> impl Iterator<Item = f32> {
        crate::torchao::mx::tests::sweep()
    }

    #[test]
    fn a_constant_zero_group_gets_the_smallest_normal_scale() {
        for m in [MappingType::Asymmetric, MappingType::Symmetric, MappingType::SymmetricNoClippingErr] {
            assert_eq!(choose_qparams(m, 0.0, 0.0, -8, 7).scale, EPS, "{m:?}");
        }
    }

    #[test]
    fn a_nan_zero_point_becomes_the_smallest_int32() {
        // min −inf: −inf/inf is NaN, and torch's float→int32 cast makes it −2³¹.
        let p = choose_qparams(MappingType::Asymmetric, f32::NEG_INFINITY, 1.0, -8, 7);
        assert_eq!((p.scale, p.zero_point), (f32::INFINITY, -2147483648.0));
    }

    #[test]
    fn the_integer_cast_turns_a_nan_code_into_zero_and_the_fake_quantizer_keeps_it() {
        let p = QParams { scale: f32::INFINITY, zero_point: -8.0 };
        let at = |path| GroupCodes { params: p, quant_min: -8, quant_max: 7, path }.eval(f32::INFINITY);
        // (0 − (−8))·inf = inf after the cast; NaN without it.
        assert_eq!(at(Path::Dequantize), (f32::INFINITY, 1.0));
        assert!(at(Path::FakeQuantize).0.is_nan());
    }

    #[test]
    fn the_fake_quantizer_gradient_is_zero_on_the_bounds_and_s_times_its_reciprocal_inside() {
        let c = GroupCodes {
            params: QParams { scale: 0.3, zero_point: 0.0 },
            quant_min: -8,
            quant_max: 7,
            path: Path::FakeQuantize,
        };
        assert_eq!(c.eval(0.9f32).1, 0.3f32 * (1.0 / 0.3f32));
        assert_eq!(c.eval(-2.4f32).1, 0.0, "code −8 = quant_min");
        assert_eq!(c.eval(2.1f32).1, 0.0, "code 7 = quant_max");
        assert_eq!(c.eval(f32::NAN).1, 0.0);
    }
}
