//! The sample tensor that data-dependent quantizers see, and histograms of it (and of any
//! tensor: the Train view's weights), with an output's levels as stems.
//!
//! A quantizer such as `quantized_bits(alpha='auto')` picks its scale from the whole tensor it
//! quantizes; its transfer curve only means something for a given tensor. The explorer feeds
//! it a [`SampleSpec`] tensor (a weight-like distribution, seeded, so a shared link shows the
//! same numbers), reports the scale or threshold the kernel chose, and draws the curve for
//! that scale (see [`Quantizer::freeze`](qscope_quant::Quantizer::freeze)).
//!
//! Heavy tails and outliers are where number formats differ (an FP4 grid against int4, a block
//! scale against a tensor scale), so besides the weight-like shapes the sample can be
//! Student-t with ν degrees of freedom, and any shape can have a share of its elements replaced
//! by outliers. [`settings`] is the one table of the sample's settings: hash keys, CLI flags,
//! ranges and help.

pub mod settings;

/// The explorer's sample tensor's size.
pub const SAMPLE_N: usize = 1000;

/// The largest sample spread accepted.
pub const MAX_SPREAD: f32 = 1e3;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use qscope_quant::lane;

/// Shape of the sample distribution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dist {
    /// Gaussian N(0, σ²), σ = spread.
    Normal,
    /// Uniform on [−w, w], w = spread.
    Uniform,
    /// Laplace with scale b = spread (density ∝ e^(−|x|/b)), heavy-tailed like trained weights.
    Laplace,
    /// Student-t with ν = [`SampleSpec::df`] degrees of freedom, times s = spread: tails that
    /// fall off as |x|^−(ν+1) (ν = 1 is Cauchy; large ν approaches the Gaussian).
    StudentT,
}

impl Dist {
    /// Every distribution, for a selector.
    pub const ALL: [Dist; 4] = [Dist::Normal, Dist::Uniform, Dist::Laplace, Dist::StudentT];

    /// The name shown in the UI and accepted on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Dist::Normal => "normal",
            Dist::Uniform => "uniform",
            Dist::Laplace => "laplace",
            Dist::StudentT => "student_t",
        }
    }

    /// What `spread` means for this distribution.
    pub fn spread_name(self) -> &'static str {
        match self {
            Dist::Normal => "σ",
            Dist::Uniform => "half-width",
            Dist::Laplace => "scale b",
            Dist::StudentT => "scale s",
        }
    }
}

/// Outliers lie this many spreads from 0, at least (and at most twice as far).
pub const OUTLIER_GAIN: f32 = 10.0;

/// A deterministic sample tensor: distribution, spread, outliers, size and seed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SampleSpec {
    pub dist: Dist,
    /// σ (normal), half-width (uniform), scale b (Laplace) or scale s (Student-t); 0 gives all zeros.
    pub spread: f32,
    /// Student-t's degrees of freedom ν (other distributions ignore it).
    pub df: f32,
    /// The share of elements replaced by outliers: `round(outliers·n)` of them, at places and
    /// with signs drawn from their own stream, each `±spread·OUTLIER_GAIN·(1 + u)`, u uniform
    /// on [0, 1). With none, the tensor is the distribution's draws alone.
    pub outliers: f32,
    /// Number of elements.
    pub n: usize,
    /// Seed of the random stream (same seed, same tensor).
    pub seed: u64,
}

impl Default for SampleSpec {
    /// 1000 draws of N(0, 0.5²), seed 0: weight-like values mostly inside (−1, 1).
    fn default() -> Self {
        SampleSpec { dist: Dist::Normal, spread: 0.5, df: 3.0, outliers: 0.0, n: 1000, seed: 0 }
    }
}

impl SampleSpec {
    /// The tensor. Draws come from `rand`'s seeded `StdRng` and are shaped with float32
    /// arithmetic and TensorFlow's float32 `log` ([`lane::log`]), never the platform's libm,
    /// so the native CLI and the browser produce the same bits. Outliers come from a second
    /// stream, so the other elements stay the draws of the tensor without them.
    pub fn generate(&self) -> Vec<f32> {
        let mut out = self.draws();
        self.add_outliers(&mut out);
        out
    }

    /// The distribution's `n` draws.
    fn draws(&self) -> Vec<f32> {
        let mut rng = StdRng::seed_from_u64(self.seed);
        let s = self.spread;
        let mut out = Vec::with_capacity(self.n);
        match self.dist {
            Dist::Uniform => out.extend((0..self.n).map(|_| rng.random_range(-1.0f32..=1.0) * s)),
            Dist::Laplace => {
                while out.len() < self.n {
                    // Inverse CDF: x = −b·sign(u)·ln(1 − 2|u|), u uniform on (−½, ½).
                    let u = rng.random_range(-0.5f32..0.5);
                    let t = 1.0 - 2.0 * u.abs();
                    if t > 0.0 {
                        out.push(-s * u.signum() * lane::log(t));
                    }
                }
            }
            Dist::Normal => {
                // Marsaglia's polar method: two Gaussians per accepted point of the unit disc.
                while out.len() < self.n {
                    let (u, v) = (rng.random_range(-1.0f32..1.0), rng.random_range(-1.0f32..1.0));
                    let r2 = u * u + v * v;
                    if r2 >= 1.0 || r2 == 0.0 {
                        continue;
                    }
                    let f = (-2.0 * lane::log(r2) / r2).sqrt() * s;
                    out.push(u * f);
                    if out.len() < self.n {
                        out.push(v * f);
                    }
                }
            }
            Dist::StudentT => {
                // Bailey's polar method: t = u·√(ν(w^(−2/ν) − 1)/w) for (u, v) uniform in the
                // unit disc, w = u² + v² (one t per point: u·f and v·f are not independent).
                let nu = self.df;
                while out.len() < self.n {
                    let (u, v) = (rng.random_range(-1.0f32..1.0), rng.random_range(-1.0f32..1.0));
                    let w = u * u + v * v;
                    if w >= 1.0 || w == 0.0 {
                        continue;
                    }
                    let r2 = nu * (lane::exp(-2.0 / nu * lane::log(w)) - 1.0);
                    out.push(u * (r2 / w).sqrt() * s);
                }
            }
        }
        out
    }

    /// Replaces `round(outliers·n)` elements, chosen without repetition (a partial
    /// Fisher–Yates shuffle of the places), by outliers.
    fn add_outliers(&self, out: &mut [f32]) {
        let count = ((self.outliers.clamp(0.0, 1.0) as f64) * out.len() as f64).round() as usize;
        if count == 0 {
            return;
        }
        // Its own stream: "outliers" in ASCII, mixed into the seed.
        let mut rng = StdRng::seed_from_u64(self.seed ^ 0x6f75_746c_6965_7273);
        let mut places: Vec<u32> = (0..out.len() as u32).collect();
        for i in 0..count {
            let j = rng.random_range(i as u32..places.len() as u32) as usize;
            places.swap(i, j);
            let magnitude = self.spread * OUTLIER_GAIN * (1.0 + rng.random_range(0.0f32..1.0));
            let sign = if rng.random_range(0u32..2) == 0 { -1.0 } else { 1.0 };
            out[places[i] as usize] = sign * magnitude;
        }
    }
}

/// Counts of values in equal-width bins over `[lo, hi]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Histogram {
    pub lo: f32,
    pub hi: f32,
    /// `counts[i]` holds `edges[i] ≤ v < edges[i+1]`; the last bin also holds `v = hi`.
    pub counts: Vec<u32>,
    /// Values below `lo`.
    pub below: u32,
    /// Values above `hi`.
    pub above: u32,
}

impl Histogram {
    /// The `bins + 1` bin edges, `lo` first and `hi` last.
    pub fn edges(&self) -> Vec<f32> {
        edges(self.lo, self.hi, self.counts.len())
    }
}

fn edges(lo: f32, hi: f32, bins: usize) -> Vec<f32> {
    (0..=bins).map(|i| if i == bins { hi } else { lo + (hi - lo) * (i as f32 / bins as f32) }).collect()
}

/// Histogram of `values` in `bins` equal bins over `[lo, hi]`; NaN is not counted, values
/// outside the range are counted in `below` / `above`. `bins = 0` or `hi ≤ lo` gives no bins.
pub fn histogram(values: &[f32], lo: f32, hi: f32, bins: usize) -> Histogram {
    if hi > lo && bins > 0 {
        let (counts, below, above) = qscope_tensors::stats::bin_counts(values, &edges(lo, hi, bins));
        return Histogram { lo, hi, counts, below, above };
    }
    let count = |f: &dyn Fn(f32) -> bool| values.iter().filter(|v| f(**v)).count() as u32;
    Histogram { lo, hi, counts: Vec::new(), below: count(&|v| v < lo), above: count(&|v| v > hi) }
}

/// The largest finite magnitude among `values` (0 when there is none): what a histogram
/// symmetric about 0 must reach.
pub fn largest_magnitude(values: &[f32]) -> f32 {
    qscope_tensors::stats::amax(values)
}

/// The distinct finite values of `values`, ascending, each with how often it occurs (−0 and
/// +0 as one stem at 0).
pub fn stems(values: &[f32]) -> Vec<(f32, u32)> {
    qscope_tensors::distinct::Distinct::of(values).sorted()
}

/// A quantized tensor's histogram: a stem per output level when there are few, else bins.
#[derive(Clone, Debug, PartialEq)]
pub enum Outputs {
    /// Each distinct output with its count.
    Stems(Vec<(f32, u32)>),
    /// A nearly continuous output, in bins.
    Bins(Histogram),
}

/// The histogram of outputs `y`: [`stems`] when there are at most `max_stems` distinct values,
/// else `bins` equal bins over `[lo, hi]`.
pub fn outputs(y: &[f32], max_stems: usize, lo: f32, hi: f32, bins: usize) -> Outputs {
    let mut d = qscope_tensors::distinct::Distinct::default();
    for &v in y {
        d.add(v);
        if d.len() > max_stems {
            return Outputs::Bins(histogram(y, lo, hi, bins));
        }
    }
    Outputs::Stems(d.sorted())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_spec_gives_the_same_tensor() {
        let s = SampleSpec { n: 257, ..SampleSpec::default() };
        assert_eq!(s.generate(), s.generate());
    }

    #[test]
    fn a_different_seed_gives_a_different_tensor() {
        let a = SampleSpec::default().generate();
        let b = SampleSpec { seed: 1, ..SampleSpec::default() }.generate();
        assert_ne!(a, b);
    }

    #[test]
    fn every_distribution_gives_n_finite_values() {
        for dist in Dist::ALL {
            let v = SampleSpec { dist, n: 101, ..SampleSpec::default() }.generate();
            assert_eq!(v.len(), 101, "{dist:?}");
            assert!(v.iter().all(|x| x.is_finite()), "{dist:?}");
        }
    }

    #[test]
    fn student_t_with_three_degrees_of_freedom_has_mean_absolute_value_2_sqrt3_over_pi() {
        // E|t₃| = 2√3/π ≈ 1.1027 (times the scale).
        let spec =
            SampleSpec { dist: Dist::StudentT, spread: 0.5, df: 3.0, n: 40_000, seed: 2, ..SampleSpec::default() };
        let x = spec.generate();
        let mean_abs = x.iter().map(|v| v.abs() as f64).sum::<f64>() / x.len() as f64;
        let expected = 0.5 * 2.0 * 3f64.sqrt() / std::f64::consts::PI;
        assert!((mean_abs - expected).abs() < 0.02, "mean |x| {mean_abs}, expected {expected}");
    }

    #[test]
    fn student_t_with_one_degree_of_freedom_is_cauchy_with_median_absolute_value_s() {
        let spec =
            SampleSpec { dist: Dist::StudentT, spread: 2.0, df: 1.0, n: 20_001, seed: 4, ..SampleSpec::default() };
        let mut a: Vec<f32> = spec.generate().iter().map(|v| v.abs()).collect();
        a.sort_by(f32::total_cmp);
        let median = a[a.len() / 2];
        assert!((median - 2.0).abs() < 0.1, "median |x| {median}");
    }

    #[test]
    fn fewer_degrees_of_freedom_give_heavier_tails() {
        let beyond = |df: f32| {
            let spec = SampleSpec { dist: Dist::StudentT, df, n: 20_000, ..SampleSpec::default() };
            spec.generate().iter().filter(|v| v.abs() > 5.0 * spec.spread).count()
        };
        assert!(
            beyond(1.0) > beyond(3.0) && beyond(3.0) > beyond(30.0),
            "{} {} {}",
            beyond(1.0),
            beyond(3.0),
            beyond(30.0)
        );
    }

    #[test]
    fn outliers_replace_their_share_of_elements_and_leave_the_rest_alone() {
        let plain = SampleSpec::default();
        let spec = SampleSpec { outliers: 0.01, ..plain };
        let (a, b) = (plain.generate(), spec.generate());
        let changed: Vec<usize> = (0..a.len()).filter(|&i| a[i] != b[i]).collect();
        assert_eq!(changed.len(), 10);
        for i in changed {
            let m = b[i].abs();
            assert!((5.0..10.0).contains(&m), "outlier {} at {i}", b[i]);
        }
        assert!(b.iter().any(|&v| v > 0.0 && v.abs() >= 5.0) && b.iter().any(|&v| v < 0.0 && v.abs() >= 5.0));
    }

    #[test]
    fn no_outliers_give_the_tensor_the_seed_always_gave() {
        // The first draws of the default tensor (N(0, 0.5²), seed 0), as links have shown them.
        let x = SampleSpec::default().generate();
        assert_eq!(x[..3].iter().map(|v| v.to_bits()).collect::<Vec<_>>(), [1054147169, 1050889638, 1041956913]);
        assert_eq!(x, SampleSpec { df: 30.0, ..SampleSpec::default() }.generate());
        let laplace = SampleSpec { dist: Dist::Laplace, outliers: 0.0004, ..SampleSpec::default() };
        assert_eq!(laplace.generate(), SampleSpec { outliers: 0.0, ..laplace }.generate());
    }

    #[test]
    fn edges_span_the_range() {
        let h = histogram(&[], -1.0, 1.0, 4);
        assert_eq!(h.edges(), vec![-1.0, -0.5, 0.0, 0.5, 1.0]);
    }

    #[test]
    fn the_normal_sample_has_the_requested_standard_deviation() {
        let x = SampleSpec { dist: Dist::Normal, spread: 0.5, n: 20_000, seed: 3, ..SampleSpec::default() }.generate();
        let mean = x.iter().map(|&v| v as f64).sum::<f64>() / x.len() as f64;
        let var = x.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / x.len() as f64;
        assert!(mean.abs() < 0.02, "mean {mean}");
        assert!((var.sqrt() - 0.5).abs() < 0.01, "std {}", var.sqrt());
    }

    #[test]
    fn the_uniform_sample_stays_within_its_half_width() {
        let x = SampleSpec { dist: Dist::Uniform, spread: 0.3, n: 5000, seed: 1, ..SampleSpec::default() }.generate();
        assert!(x.iter().all(|v| v.abs() <= 0.3));
        assert!(x.iter().any(|&v| v > 0.29) && x.iter().any(|&v| v < -0.29));
    }

    #[test]
    fn the_laplace_sample_has_mean_absolute_value_b() {
        let x = SampleSpec { dist: Dist::Laplace, spread: 0.2, n: 20_000, seed: 5, ..SampleSpec::default() }.generate();
        let mean_abs = x.iter().map(|v| v.abs() as f64).sum::<f64>() / x.len() as f64;
        assert!((mean_abs - 0.2).abs() < 0.006, "mean |x| {mean_abs}");
    }

    #[test]
    fn histogram_counts_every_value_once_and_reports_outliers() {
        let h = histogram(&[-2.0, -1.0, -0.2, 0.0, 0.99, 3.0, f32::NAN], -1.0, 1.0, 4);
        assert_eq!(h.counts, vec![1, 1, 1, 1]);
        assert_eq!((h.below, h.above), (1, 1));
    }

    #[test]
    fn stems_count_each_distinct_output_in_order() {
        assert_eq!(stems(&[0.5, -0.5, 0.5, f32::NAN, 0.0, 0.5]), vec![(-0.5, 1), (0.0, 1), (0.5, 3)]);
        assert_eq!(stems(&[]), vec![]);
    }

    #[test]
    fn few_output_levels_are_stems_and_many_are_bins() {
        let y = [-1.0, 1.0, 1.0];
        assert_eq!(outputs(&y, 2, -1.0, 1.0, 4), Outputs::Stems(vec![(-1.0, 1), (1.0, 2)]));
        assert_eq!(outputs(&y, 1, -1.0, 1.0, 4), Outputs::Bins(histogram(&y, -1.0, 1.0, 4)));
    }

    #[test]
    fn the_largest_magnitude_ignores_what_is_not_finite() {
        assert_eq!(largest_magnitude(&[0.5, -2.0, f32::INFINITY, f32::NAN]), 2.0);
        assert_eq!(largest_magnitude(&[]), 0.0);
    }

    #[test]
    fn a_value_on_an_edge_falls_in_the_bin_above_and_the_top_edge_in_the_last_bin() {
        let h = histogram(&[-0.5, 0.0, 1.0], -1.0, 1.0, 4);
        assert_eq!(h.counts, vec![0, 1, 1, 1]);
    }
}
