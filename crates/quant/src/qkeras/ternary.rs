//! Ternary quantizers: `ternary`, `stochastic_ternary`.

use super::super::lane::{self, Lane};
use super::super::random::{DrawOp, run_drawn};
use super::super::round::{Terms, max_abs, sgn_plus, sgn0, ste_blend, stochastic_round, sums_f32};
use super::super::schema::{Alpha, Kind, quantizer};
use super::super::{Ctx, Kernel, Levels, Report, elementwise};
use super::binary::{SignOp, std_eps};
use super::{least_squares_of_sums, least_squares_scale, po2_round, sigmoid_q};
use crate::Layout;
use crate::round::EPS;
use crate::simd::{self, Op};
use crate::{Facts, Fixed, Frozen, Quantizer};

const UNROLLS: Kind = Kind::Int { min: 1, max: 100 };

/// The 'auto' / 'auto_po2' scale: start at `2·max|x|/3`, then alternate thresholding at
/// half the scale and a least-squares refit, `unrolls` times. Returns the final scale and
/// writes the codes of the last round (computed with the scale before the last refit).
fn auto_scale(alpha: Alpha, x: &[f32], unrolls: i32, k: &mut [f32], mut round: impl FnMut(f32) -> f32) -> (f32, f32) {
    let mut scale = 2.0 * max_abs(x) / 3.0;
    if alpha == Alpha::AutoPo2 {
        scale = po2_round(scale);
    }
    let mut thres = scale / 2.0;
    for _ in 0..unrolls {
        thres = scale / 2.0;
        for (ki, &v) in k.iter_mut().zip(x) {
            let q = scale * round(v / scale);
            *ki = if q.abs() >= thres { sgn0(v) } else { 0.0 };
        }
        scale = least_squares_scale(alpha, x, k, None, None);
    }
    (scale, thres)
}

/// [`auto_scale`] with round-half-even codes, each refit one fused pass over `x`, stopping at
/// a fixed point (the same bits): returns the scale the last codes were computed with, the
/// final scale and threshold, and `max|x|`.
fn auto_scale_rhe(alpha: Alpha, x: &[f32], unrolls: i32) -> (f32, f32, f32, f32) {
    let top = max_abs(x);
    let mut scale = 2.0 * top / 3.0;
    if alpha == Alpha::AutoPo2 {
        scale = po2_round(scale);
    }
    let (mut coded, mut thres) = (scale, scale / 2.0);
    for _ in 0..unrolls {
        (coded, thres) = (scale, scale / 2.0);
        let sums = Codes::new(coded, thres).sums(x, top.is_finite());
        scale = least_squares_of_sums(alpha, sums, x.len(), None, None);
        if scale.to_bits() == coded.to_bits() {
            break; // a fixed point: every further round repeats this one
        }
    }
    (coded, scale, thres, top)
}

/// [`ternary_code`] for one scale and threshold; its least-squares terms `x·k` and `k·k`.
struct Codes {
    coded: f32,
    thres: f32,
    /// The smallest magnitude with a nonzero code: the code is nonzero exactly from there up
    /// (`|scale·round(|v|/scale)|` rises with |v| and is even in v). None where the scale or the
    /// threshold is not positive and finite.
    from: Option<f32>,
}

impl Codes {
    fn new(coded: f32, thres: f32) -> Codes {
        let nonzero = |b: u32| ternary_code(f32::from_bits(b), coded, thres) != 0.0;
        let usable = coded > 0.0 && coded < f32::INFINITY && thres > 0.0 && thres < f32::INFINITY;
        let from = (usable && !nonzero(0) && nonzero(0x7f80_0000)).then(|| {
            // Bisection on the bits of the non-negative floats, ordered as their values.
            let (mut lo, mut hi) = (0u32, 0x7f80_0000u32);
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                if nonzero(mid) { hi = mid } else { lo = mid }
            }
            f32::from_bits(hi)
        });
        Codes { coded, thres, from }
    }

    /// The code of `v`: with [`Codes::from`] one comparison (a nonzero code's v is neither 0
    /// nor NaN, so sgn0(v) is ±1).
    #[inline(always)]
    fn code<V: Lane>(&self, v: V) -> V {
        match self.from {
            Some(f) => V::select(v.abs().ge(V::splat(f)), V::splat(1.0).copysign(v), V::splat(0.0)),
            None => ternary_code(v, V::splat(self.coded), V::splat(self.thres)),
        }
    }
}

impl Codes {
    /// `[Σ x·k, Σ k·k]` in Eigen's order ([`sums_f32`]). Where every x is finite (`finite`:
    /// `max|x|` is), the codes are one comparison and there are fewer than 2^24 elements, by
    /// [`Magnitudes`]: the same bits.
    fn sums(&self, x: &[f32], finite: bool) -> [f32; 2] {
        match (self.from, finite && x.len() < 1 << 24) {
            (Some(from), true) => sums_f32(x, &Magnitudes { from }),
            _ => sums_f32(x, self),
        }
    }
}

impl Terms<2> for Codes {
    #[inline(always)]
    fn terms<V: Lane>(&self, v: V) -> [V; 2] {
        let k = self.code(v);
        [v * k, k * k]
    }
}

/// [`Codes`]' terms for finite x whose code is nonzero exactly where `|x| ≥ from`: `|x|` there,
/// +0 elsewhere, and a count of the codes — an `and` and the comparison's own bits instead of
/// the code's sign and two products. Where the code is ±1 (same sign as x), `x·k = |x|` and
/// `k·k = 1`; where it is +0, `k·k = +0` and `x·k` is ±0, and a sum that starts at +0 is never
/// −0 (+0 + −0 = +0), so adding −0 or +0 leaves every partial sum's bits alone; `Σ k·k` is a
/// sum of ones and zeros, the count exactly below 2^24 elements ([`Terms::COUNTS`]).
struct Magnitudes {
    from: f32,
}

impl Terms<2> for Magnitudes {
    const COUNTS: bool = true;
    #[inline(always)]
    fn terms<V: Lane>(&self, v: V) -> [V; 2] {
        let a = v.abs();
        let coded = a.ge(V::splat(self.from));
        [V::select(coded, a, V::splat(0.0)), V::mask_bits(coded)]
    }
}

/// The code of [`auto_scale`] with `round` = round half to even: `sign(v)` where
/// `|scale·round(v/scale)| ≥ thres`, else 0.
#[inline(always)]
fn ternary_code<V: Lane>(v: V, scale: V, thres: V) -> V {
    let q = scale * (v / scale).nearest();
    V::select(q.abs().ge(thres), lane::sgn0(v), V::splat(0.0))
}

/// ternary 'auto' after the fit: the last codes (for the scale `coded`) times the fitted
/// scale, through the identity STE.
struct AutoTernaryOp {
    codes: Codes,
    scale: f32,
}

impl Op for AutoTernaryOp {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        let k = self.codes.code(x);
        (lane::ste_blend(x, V::splat(self.scale) * k, 1.0), V::splat(1.0))
    }
}

impl AutoTernaryOp {
    /// Runs the op over `x` (whose `max|x|` is `top`): [`NearTernaryOp`] where it gives the
    /// same bits, this op elsewhere.
    fn run(self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, top: f32) {
        match self.codes.from {
            Some(from) if top <= 1_048_576.0 && self.scale >= 0.0 && self.scale < f32::INFINITY => {
                simd::run(&NearTernaryOp { from, scale: self.scale }, x, y, dydx)
            }
            _ => simd::run(&self, x, y, dydx),
        }
    }
}

/// [`AutoTernaryOp`] for a tensor with `max|x| ≤ 2^20`, a finite scale ≥ 0 and codes that are
/// one comparison (`|x| ≥ from`): `scale·k` is `±scale` with x's sign or +0 (a finite
/// non-negative scale times ±1 or +0), and `ste_blend` is its library expression everywhere.
struct NearTernaryOp {
    from: f32,
    scale: f32,
}

impl Op for NearTernaryOp {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        let xq = V::select(x.abs().ge(V::splat(self.from)), V::splat(self.scale).copysign(x), V::splat(0.0));
        (lane::ste_lib(x, xq, 1.0), V::splat(1.0))
    }
}

quantizer! {
    /// Ternary quantizer, codes ∈ {−1, 0, 1}. Fixed mode (alpha None or a number): threshold
    /// 0.33 by default, scale = alpha (1 for None). 'auto'/'auto_po2': the scale starts at
    /// `2·max|x|/3` and is refit by least squares `number_of_unrolls` times, thresholding at
    /// half the scale (strictly: |x| > s/2).
    pub struct Ternary: QKeras "ternary" {
        summary: "ternary {−s, 0, s}; fixed threshold or least-squares 'auto' scale",
        forward: "q(x) = scale·sign(x)·1[|x| ≥ threshold]",
        backward: "∂q/∂x = 1 − tanh²(x) (alpha None);  1 otherwise",
        figure: {
            args: "",
            x: (-2.0, 2.0),
            why: "the library default: {−1, 0, 1} at the threshold 0.33, with the tanh-derivative gradient",
        },
        /// Scale: None (1, tanh gradient), a number, 'auto' or 'auto_po2'.
        alpha: Alpha = Alpha::None, Kind::Alpha;
        /// Threshold for fixed alpha (None: 0.33); must be None for 'auto'.
        threshold: Option<f64> = None, Kind::OptFloat { min: 0.0, max: 1e30 };
        /// Stochastic rounding (to thirds of the scale) in the 'auto' fit, in training.
        use_stochastic_rounding: bool = false, Kind::Bool;
        /// Rounds of least-squares refitting ('auto').
        number_of_unrolls: i32 = 5, UNROLLS;
    }
}

impl Kernel for Ternary {
    fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.alpha.is_auto() && self.threshold.is_some() {
            return Err((
                "threshold",
                "must be None with alpha='auto' or 'auto_po2' (the threshold is half the fitted scale)".into(),
            ));
        }
        if !self.alpha.is_auto() && self.use_stochastic_rounding {
            return Err(("use_stochastic_rounding", "needs alpha='auto' or 'auto_po2'".into()));
        }
        Ok(())
    }

    fn is_stochastic(&self, training: bool) -> bool {
        training && self.use_stochastic_rounding
    }

    fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, ctx: &mut Ctx) -> Report {
        if !self.alpha.is_auto() {
            let t = self.threshold.unwrap_or(0.33) as f32;
            let a = if let Alpha::Value(a) = self.alpha { a as f32 } else { 1.0 };
            let op = SignOp { scale: a, threshold: Some(t), use_01: false, tanh_path: self.alpha == Alpha::None };
            op.run(x, y, dydx);
            return Report { scale: Some(a), threshold: Some(t), ..Report::default() };
        }
        let stochastic = self.is_stochastic(ctx.training);
        if !stochastic {
            let (coded, scale, thres, top) = auto_scale_rhe(self.alpha, x, self.number_of_unrolls);
            AutoTernaryOp { codes: Codes::new(coded, thres), scale }.run(x, y, dydx, top);
            return Report { scale: Some(scale), threshold: Some(thres), ..Report::default() };
        }
        let rng = &mut ctx.rng;
        let mut k = vec![0.0f32; x.len()];
        let (scale, thres) = auto_scale(self.alpha, x, self.number_of_unrolls, &mut k, |v| {
            stochastic_round(v, 1.0 / 3.0, rng.uniform())
        });
        let mut i = 0;
        elementwise(x, y, dydx, |v| {
            let r = (ste_blend(v, scale * k[i], 1.0), 1.0);
            i += 1;
            r
        });
        Report { scale: Some(scale), threshold: Some(thres), ..Report::default() }
    }

    fn levels(&self, report: &Report) -> Levels {
        let s = report.scale.unwrap_or(1.0);
        Levels::set(vec![-s, 0.0, s])
    }
}

quantizer! {
    /// Stochastic ternary: in training the scale s is fit as in `ternary(alpha='auto')`, then
    /// two random signs b₀, b₁ give the code `(b₀ + b₁)/2` ∈ {−1, 0, 1}. In inference it is
    /// `ternary(alpha)`. QKeras asserts a string alpha in training (its default None only works
    /// in inference); qscope reports that as an error.
    pub struct StochasticTernary: QKeras "stochastic_ternary" {
        summary: "ternary with random codes around the fitted threshold; ternary in inference",
        forward: "q(x) = s·(b₀ + b₁)/2,  P(bᵢ = +1) = σ(T·(x ∓ s/2)/sd)",
        backward: "∂q/∂x = 1",
        figure: {
            args: "alpha='auto'",
            x: (-2.0, 2.0),
            why: "alpha='auto', which QKeras requires in training: threshold and scale fitted to the sample tensor, \
                  codes drawn around them",
        },
        /// Scale: 'auto' or 'auto_po2' in training (QKeras asserts it); any in inference.
        alpha: Alpha = Alpha::None, Kind::Alpha;
        /// Threshold in inference (None: 0.33); unused in training.
        threshold: Option<f64> = None, Kind::OptFloat { min: 0.0, max: 1e30 };
        /// Sharpness T of the sigmoids.
        temperature: f64 = 8.0, Kind::Float { min: 1e-6, max: 1e6, log: true };
        /// Real sigmoid (True) or QKeras' hard sigmoid.
        use_real_sigmoid: bool = true, Kind::Bool;
        /// Rounds of least-squares refitting.
        number_of_unrolls: i32 = 5, UNROLLS;
    }
}

/// stochastic_ternary's training draws: two signs, `+1` where `u < σ(T·(x/sd ∓ t))`, averaged
/// and scaled, through the identity STE.
struct DrawnTernary {
    scale: f32,
    t: f32,
    sd_eps: f32,
    temperature: f32,
    real: bool,
}

impl DrawOp for DrawnTernary {
    const DRAWS: usize = 2;
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V, u: V, u2: V) -> (V, V) {
        let sig = |z: V| if self.real { lane::sigmoid(z) } else { sigmoid_q(z).0 };
        let (temp, t) = (V::splat(self.temperature), V::splat(self.t));
        let xn = x / V::splat(self.sd_eps);
        let (p0, p1) = (sig(temp * (xn - t)), sig(temp * (xn + t)));
        let q0 = sgn_plus(sgn0(p0 - u));
        let q1 = sgn_plus(sgn0(p1 - u2));
        (ste_blend(x, V::splat(self.scale) * ((q0 + q1) / V::splat(2.0)), 1.0), V::splat(1.0))
    }
}

impl Kernel for StochasticTernary {
    fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.alpha.is_auto() && self.threshold.is_some() {
            return Err(("threshold", "must be None with alpha='auto' or 'auto_po2'".into()));
        }
        Ok(())
    }

    fn unsupported(&self, training: bool) -> Option<String> {
        (training && !self.alpha.is_auto()).then(|| {
            "qkeras.stochastic_ternary needs alpha='auto' or 'auto_po2' in training (QKeras asserts it); \
             set alpha or use inference mode"
                .to_string()
        })
    }

    fn is_stochastic(&self, training: bool) -> bool {
        training && self.alpha.is_auto()
    }

    fn apply(&self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>, ctx: &mut Ctx) -> Report {
        if !self.is_stochastic(ctx.training) {
            let t = Ternary {
                alpha: self.alpha,
                threshold: self.threshold,
                number_of_unrolls: self.number_of_unrolls,
                ..Ternary::default()
            };
            return t.apply(x, y, dydx, ctx);
        }
        let sd = std_eps(x) - EPS;
        let mut k = vec![0.0f32; x.len()];
        // Deterministic fit: thresholds on |x| itself.
        let mut scale = 2.0 * max_abs(x) / 3.0;
        if self.alpha == Alpha::AutoPo2 {
            scale = po2_round(scale);
        }
        for _ in 0..self.number_of_unrolls {
            let t = scale / 2.0;
            for (ki, &v) in k.iter_mut().zip(x) {
                *ki = if v.abs() >= t { sgn0(v) } else { 0.0 };
            }
            scale = least_squares_scale(self.alpha, x, &k, None, None);
        }
        let t = scale / (2.0 * (sd + EPS));
        let op = DrawnTernary {
            scale,
            t,
            sd_eps: sd + EPS,
            temperature: self.temperature as f32,
            real: self.use_real_sigmoid,
        };
        run_drawn(&op, x, y, dydx, &mut ctx.rng);
        Report { scale: Some(scale), threshold: Some(scale / 2.0), ..Report::default() }
    }

    fn levels(&self, report: &Report) -> Levels {
        let s = report.scale.unwrap_or(1.0);
        Levels::set(vec![-s, 0.0, s])
    }
}

impl Facts for Ternary {
    fn layout(&self) -> Layout {
        if self.alpha.is_auto() { Layout::Channels } else { Layout::Elementwise }
    }

    /// 'auto'/'auto_po2' freezes to the codes of the last fitting round, which no fixed
    /// alpha expresses ([`Fixed::AutoTernary`]).
    fn freeze(&self, report: &Report) -> Option<Frozen> {
        self.alpha.is_auto().then(|| {
            Frozen::Fixed(Fixed::AutoTernary {
                threshold: report.threshold.unwrap_or(f32::NAN),
                scale: report.scale.unwrap_or(f32::NAN),
                stochastic: self.use_stochastic_rounding,
            })
        })
    }

    fn inert(&self) -> Vec<&'static str> {
        Vec::new()
    }
}

impl Facts for StochasticTernary {
    fn layout(&self) -> Layout {
        if self.alpha.is_auto() { Layout::Channels } else { Layout::Elementwise }
    }

    /// String alpha: in training the draws need the tensor's std ([`Frozen::Live`]); in
    /// inference it is `ternary(alpha)` with the fitted scale and threshold.
    fn freeze(&self, report: &Report) -> Option<Frozen> {
        self.alpha.is_auto().then(|| {
            if report.stochastic {
                Frozen::Live(Quantizer::StochasticTernary(self.clone()))
            } else {
                Frozen::Fixed(Fixed::AutoTernary {
                    threshold: report.threshold.unwrap_or(f32::NAN),
                    scale: report.scale.unwrap_or(f32::NAN),
                    stochastic: false,
                })
            }
        })
    }

    fn inert(&self) -> Vec<&'static str> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lane::Wide;
    use crate::round::{rhe, sums_lanes};

    #[test]
    fn the_fused_auto_fit_gives_the_reference_fits_scale_threshold_and_codes() {
        let lcg = crate::inputs::spread(4099);
        let steps: Vec<f32> = (-300..=300).map(|i| i as f32 / 64.0).collect();
        let specials = vec![0.0, -0.0, 3.0, -1.5, 1e-30, f32::INFINITY, 0.75];
        for x in [lcg, steps, specials, vec![0.4f32; 5]] {
            for alpha in [Alpha::Auto, Alpha::AutoPo2] {
                for unrolls in [1, 2, 5] {
                    let mut k = vec![0.0f32; x.len()];
                    let (scale, thres) = auto_scale(alpha, &x, unrolls, &mut k, rhe);
                    let (coded, fused, fused_thres, _) = auto_scale_rhe(alpha, &x, unrolls);
                    assert_eq!([fused, fused_thres].map(f32::to_bits), [scale, thres].map(f32::to_bits));
                    for (&v, &ki) in x.iter().zip(&k) {
                        assert_eq!(ternary_code(v, coded, fused_thres).to_bits(), ki.to_bits(), "x = {v}");
                        assert_eq!(Codes::new(coded, fused_thres).code(v).to_bits(), ki.to_bits(), "x = {v}");
                    }
                }
            }
        }
    }

    /// Finite tensors (signed zeros, negatives, subnormals, huge values, lengths with a tail) and
    /// scales from the fit's start down, on one lane and four.
    fn finite_cases() -> impl Iterator<Item = (Vec<f32>, Codes)> {
        let lcg = crate::inputs::spread(4099);
        let steps: Vec<f32> = (-300..=300).map(|i| i as f32 / 64.0).collect();
        let zeros = vec![-0.0, 0.0, -0.0, -0.0, 1.0, -0.0, -2.0, 0.0, -0.0];
        let wide: Vec<f32> = (0..=u32::MAX).step_by(1_048_573).map(f32::from_bits).filter(|v| v.is_finite()).collect();
        [lcg, steps, zeros, wide].into_iter().flat_map(|x| {
            let top = x.iter().fold(0.0f32, |m, v| m.max(v.abs()));
            [2.0 * top / 3.0, top / 5.0, 1.0, 0.013, top].map(move |s| (x.clone(), Codes::new(s, s / 2.0)))
        })
    }

    #[test]
    fn magnitude_terms_sum_to_the_codes_sums_on_finite_tensors() {
        for (x, codes) in finite_cases() {
            let Some(from) = codes.from else { continue };
            let m = Magnitudes { from };
            let one = (sums_lanes::<f32, 2, _>(&x, &codes), sums_lanes::<f32, 2, _>(&x, &m));
            let four = (sums_lanes::<Wide<f32, 4>, 2, _>(&x, &codes), sums_lanes::<Wide<f32, 4>, 2, _>(&x, &m));
            for (old, new) in [one, four] {
                assert_eq!(new.map(f32::to_bits), old.map(f32::to_bits), "scale {:e}", codes.coded);
            }
        }
    }

    #[test]
    fn the_near_op_gives_the_blended_codes_bits_within_two_to_the_twenty() {
        for (x, codes) in finite_cases() {
            let Some(from) = codes.from else { continue };
            for scale in [codes.coded, 0.0, 0.37, 3e30] {
                let (near, op) = (NearTernaryOp { from, scale }, AutoTernaryOp { codes: Codes { ..codes }, scale });
                for &v in x.iter().filter(|v| v.abs() <= 1_048_576.0) {
                    let (a, b) = (near.eval(v), op.eval(v));
                    assert_eq!(
                        (a.0.to_bits(), a.1.to_bits()),
                        (b.0.to_bits(), b.1.to_bits()),
                        "scale {scale:e}, x {v:e}"
                    );
                }
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2_000))]
        /// On random finite tensors (lengths with and without a tail, values of every magnitude
        /// and both zeros) and scales, the terms with the codes counted as integers sum to the
        /// codes' own float32 sums, on one lane and four.
        #[test]
        fn counted_magnitude_terms_sum_to_the_codes_sums(
            x in proptest::collection::vec(
                proptest::prop_oneof![-4.0f32..4.0, proptest::num::f32::NORMAL | proptest::num::f32::SUBNORMAL | proptest::num::f32::ZERO],
                0..300,
            ),
            scale in proptest::prop_oneof![0.01f32..3.0, proptest::num::f32::POSITIVE | proptest::num::f32::NORMAL],
        ) {
            let codes = Codes::new(scale, scale / 2.0);
            if let Some(from) = codes.from {
                let m = Magnitudes { from };
                let one = (sums_lanes::<f32, 2, _>(&x, &codes), sums_lanes::<f32, 2, _>(&x, &m));
                let four = (sums_lanes::<Wide<f32, 4>, 2, _>(&x, &codes), sums_lanes::<Wide<f32, 4>, 2, _>(&x, &m));
                for (old, new) in [one, four] {
                    proptest::prop_assert_eq!(new.map(f32::to_bits), old.map(f32::to_bits));
                }
            }
        }
    }

    /// The one-comparison codes equal the division's for scales from subnormal to huge, their
    /// threshold and one ulp either side, every 65 521st float32 bit pattern and the specials.
    #[test]
    fn codes_by_comparison_equal_codes_by_division() {
        let scales = [1e-40f32, 1e-30, 0.013, 0.5, 1.0, 4.0 / 3.0, 2.0, 1.3e5, 3e37, f32::MAX];
        for &scale in &scales {
            for thres in [scale / 2.0, scale / 3.0, scale * 0.75, scale] {
                let codes = Codes::new(scale, thres);
                let f = codes.from.expect("a positive finite scale has a threshold");
                let near = [f, f32::from_bits(f.to_bits() - 1), f32::from_bits(f.to_bits() + 1), thres, scale / 2.0];
                let specials = [0.0, -0.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, f32::MAX];
                let all = (0..=u32::MAX).step_by(65_521).map(f32::from_bits).chain(near).chain(near.map(|v| -v));
                for v in all.chain(specials) {
                    let (got, want) = (codes.code(v), ternary_code(v, scale, thres));
                    assert_eq!(got.to_bits(), want.to_bits(), "scale {scale:e}, thres {thres:e}, v {v:e}");
                }
            }
        }
        for (scale, thres) in [(0.0, 0.0), (f32::NAN, f32::NAN), (f32::INFINITY, f32::INFINITY), (1e-45, 0.0)] {
            assert!(Codes::new(scale, thres).from.is_none());
        }
    }
}
