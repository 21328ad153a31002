//! The datasets of the trainer, generated from a seed, and the input features.
//!
//! `circle`, `xor`, `gaussian` and `spiral` follow TensorFlow Playground's generators
//! (`dataset.ts`): the same shapes, scales and noise model over the domain [−6, 6]², labels ±1,
//! noise from 0 to 0.5 (Playground's 0–50 %). `moons` and `checkerboard` add two classic
//! shapes on the same scale; `sine` is a 1-D regression. Coordinates are computed in f64 (as
//! JavaScript does, with [`super::detmath`]'s platform-independent `sin`/`cos`/`ln`) and
//! stored as f32; the draws come from `rand`'s seeded StdRng, so the same
//! seed gives the same points (not Playground's points: its stream is `Math.random`).

use std::f64::consts::PI;

use super::detmath::{cos, ln, sin};

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// Which dataset: one generated from the seed, or a table read from a file — a bundled real
/// dataset or the user's CSV ([`super::table::Table`], given in the config).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DatasetKind {
    Circle,
    Xor,
    Gaussian,
    Spiral,
    Moons,
    Checkerboard,
    Sine,
    /// scikit-learn's copies of UCI datasets, bundled: 8×8 handwritten digits (64 features, 10
    /// classes), iris (4, 3), wine (13, 3), breast cancer (30, 2).
    Digits,
    Iris,
    Wine,
    BreastCancer,
    /// The user's CSV file.
    Csv,
}

impl DatasetKind {
    pub const ALL: [DatasetKind; 12] = [
        DatasetKind::Circle,
        DatasetKind::Xor,
        DatasetKind::Gaussian,
        DatasetKind::Spiral,
        DatasetKind::Moons,
        DatasetKind::Checkerboard,
        DatasetKind::Sine,
        DatasetKind::Digits,
        DatasetKind::Iris,
        DatasetKind::Wine,
        DatasetKind::BreastCancer,
        DatasetKind::Csv,
    ];

    /// The bundled real datasets, in the order the page lists them.
    pub const BUNDLED: [DatasetKind; 4] =
        [DatasetKind::Digits, DatasetKind::Iris, DatasetKind::Wine, DatasetKind::BreastCancer];

    /// The name used by the CLI and the URL.
    pub fn name(self) -> &'static str {
        match self {
            DatasetKind::Circle => "circle",
            DatasetKind::Xor => "xor",
            DatasetKind::Gaussian => "gaussian",
            DatasetKind::Spiral => "spiral",
            DatasetKind::Moons => "moons",
            DatasetKind::Checkerboard => "checkerboard",
            DatasetKind::Sine => "sine",
            DatasetKind::Digits => "digits",
            DatasetKind::Iris => "iris",
            DatasetKind::Wine => "wine",
            DatasetKind::BreastCancer => "breast_cancer",
            DatasetKind::Csv => "csv",
        }
    }

    pub fn parse(name: &str) -> Result<DatasetKind, String> {
        let lower = name.trim().to_ascii_lowercase();
        DatasetKind::ALL.into_iter().find(|k| k.name() == lower).ok_or_else(|| {
            let names: Vec<&str> = DatasetKind::ALL.iter().map(|k| k.name()).collect();
            format!("unknown dataset '{name}'; expected one of {}", names.join(", "))
        })
    }

    /// Classes, where the kind alone says: two for the generated classifiers, the bundled
    /// datasets' own; None for regression and a CSV (its file says).
    pub fn classes(self) -> Option<usize> {
        match self {
            DatasetKind::Sine | DatasetKind::Csv => None,
            DatasetKind::Digits => Some(10),
            DatasetKind::Iris | DatasetKind::Wine => Some(3),
            DatasetKind::Circle
            | DatasetKind::Xor
            | DatasetKind::Gaussian
            | DatasetKind::Spiral
            | DatasetKind::Moons
            | DatasetKind::Checkerboard
            | DatasetKind::BreastCancer => Some(2),
        }
    }

    /// Read from a table (bundled or CSV) rather than generated.
    pub fn is_table(self) -> bool {
        DatasetKind::BUNDLED.contains(&self) || self == DatasetKind::Csv
    }

    /// A regression (real targets) rather than two classes (labels ±1).
    pub fn is_regression(self) -> bool {
        self == DatasetKind::Sine
    }

    /// A generated dataset's input dimensions: 2, or 1 for `sine` (its points have `x2 = 0`);
    /// 0 for a table (its columns are its own: [`super::table::Table::dims`]).
    pub fn dims(self) -> usize {
        match self {
            DatasetKind::Sine => 1,
            k if k.is_table() => 0,
            _ => 2,
        }
    }
}

/// One example: a point and its label (±1 for the two classes, the target for regression).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    pub x1: f32,
    pub x2: f32,
    pub label: f32,
}

/// A generated dataset, split into training and test points.
#[derive(Clone, Debug, PartialEq)]
pub struct Dataset {
    pub kind: DatasetKind,
    pub train: Vec<Point>,
    pub test: Vec<Point>,
}

impl Dataset {
    /// `samples` points with the given noise, shuffled and split as Playground does: the first
    /// ⌊samples·train_ratio⌋ points train, the rest test. A table kind has no points here.
    pub fn generate(kind: DatasetKind, samples: usize, noise: f32, train_ratio: f32, seed: u64) -> Dataset {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut all = points(kind, samples, noise as f64, &mut rng);
        shuffle(&mut all, &mut rng);
        let split = (all.len() as f64 * train_ratio as f64).floor() as usize;
        let test = all.split_off(split.min(all.len()));
        Dataset { kind, train: all, test }
    }
}

/// Fisher–Yates, from the back (as d3.shuffle).
pub fn shuffle<T>(v: &mut [T], rng: &mut StdRng) {
    for i in (1..v.len()).rev() {
        let j = rng.random_range(0..=i);
        v.swap(i, j);
    }
}

fn uniform(rng: &mut StdRng, lo: f64, hi: f64) -> f64 {
    lo + rng.random_range(0.0..1.0) * (hi - lo)
}

/// Playground's `normalRandom`: Marsaglia's polar method, `mean + √variance·N(0, 1)`.
fn normal(rng: &mut StdRng, mean: f64, variance: f64) -> f64 {
    loop {
        let v1 = 2.0 * rng.random_range(0.0..1.0) - 1.0;
        let v2 = 2.0 * rng.random_range(0.0..1.0) - 1.0;
        let s: f64 = v1 * v1 + v2 * v2;
        if s <= 1.0 && s > 0.0 {
            return mean + variance.sqrt() * (-2.0 * ln(s) / s).sqrt() * v1;
        }
    }
}

fn point(x1: f64, x2: f64, label: f64) -> Point {
    Point { x1: x1 as f32, x2: x2 as f32, label: label as f32 }
}

fn sign_label(positive: bool) -> f64 {
    if positive { 1.0 } else { -1.0 }
}

/// `n` points of the dataset, in generation order (positives first where Playground does so).
pub fn points(kind: DatasetKind, n: usize, noise: f64, rng: &mut StdRng) -> Vec<Point> {
    let mut out = Vec::with_capacity(n);
    let half = n / 2;
    match kind {
        DatasetKind::Circle => {
            // Inside r < 2.5 (positives), a ring 3.5 < r < 5 (negatives); the label is taken at
            // the point moved by uniform noise of ±5·noise, so noise blurs the boundary.
            let radius = 5.0;
            for (count, lo, hi) in [(half, 0.0, radius * 0.5), (n - half, radius * 0.7, radius)] {
                for _ in 0..count {
                    let r = uniform(rng, lo, hi);
                    let angle = uniform(rng, 0.0, 2.0 * PI);
                    let (x, y) = (r * sin(angle), r * cos(angle));
                    let nx = uniform(rng, -radius, radius) * noise;
                    let ny = uniform(rng, -radius, radius) * noise;
                    let d = ((x + nx) * (x + nx) + (y + ny) * (y + ny)).sqrt();
                    out.push(point(x, y, sign_label(d < radius * 0.5)));
                }
            }
        }
        DatasetKind::Xor => {
            // Uniform in [−5, 5]², pushed 0.3 away from both axes; label sign(x·y) of the
            // noisy point.
            for _ in 0..n {
                let pad = |v: f64| if v > 0.0 { v + 0.3 } else { v - 0.3 };
                let x = pad(uniform(rng, -5.0, 5.0));
                let y = pad(uniform(rng, -5.0, 5.0));
                let nx = uniform(rng, -5.0, 5.0) * noise;
                let ny = uniform(rng, -5.0, 5.0) * noise;
                out.push(point(x, y, sign_label((x + nx) * (y + ny) >= 0.0)));
            }
        }
        DatasetKind::Gaussian => {
            // Two Gaussians at (2, 2) and (−2, −2); the variance grows from 0.5 to 4 with noise.
            let variance = 0.5 + noise / 0.5 * 3.5;
            for (count, c, label) in [(half, 2.0, 1.0), (n - half, -2.0, -1.0)] {
                for _ in 0..count {
                    let x = normal(rng, c, variance);
                    let y = normal(rng, c, variance);
                    out.push(point(x, y, label));
                }
            }
        }
        DatasetKind::Spiral => {
            // Two arms, 1.75 turns out to radius 5, the second rotated by π; uniform noise ±noise.
            for (count, delta, label) in [(half, 0.0, 1.0), (n - half, PI, -1.0)] {
                for i in 0..count {
                    let r = i as f64 / count as f64 * 5.0;
                    let t = 1.75 * i as f64 / count as f64 * 2.0 * PI + delta;
                    let x = r * sin(t) + uniform(rng, -1.0, 1.0) * noise;
                    let y = r * cos(t) + uniform(rng, -1.0, 1.0) * noise;
                    out.push(point(x, y, label));
                }
            }
        }
        DatasetKind::Moons => {
            // scikit-learn's two moons (outer positive, inner negative), scaled ×3 and centred:
            // x ∈ [−4.5, 4.5], y ∈ [−2.25, 2.25]; Gaussian noise of standard deviation 3·noise.
            for (count, outer) in [(half, true), (n - half, false)] {
                for _ in 0..count {
                    let t = uniform(rng, 0.0, PI);
                    let (u, v) = if outer { (cos(t), sin(t)) } else { (1.0 - cos(t), 0.5 - sin(t)) };
                    let x = 3.0 * (u - 0.5) + normal(rng, 0.0, 1.0) * 3.0 * noise;
                    let y = 3.0 * (v - 0.25) + normal(rng, 0.0, 1.0) * 3.0 * noise;
                    out.push(point(x, y, sign_label(outer)));
                }
            }
        }
        DatasetKind::Checkerboard => {
            // Uniform in [−6, 6]², 4×4 tiles of side 3, positive where ⌊x/3⌋ + ⌊y/3⌋ is even;
            // the label is taken at the point moved by ±3·noise (as xor's).
            for _ in 0..n {
                let x = uniform(rng, -6.0, 6.0);
                let y = uniform(rng, -6.0, 6.0);
                let nx = uniform(rng, -3.0, 3.0) * noise;
                let ny = uniform(rng, -3.0, 3.0) * noise;
                let parity = ((x + nx) / 3.0).floor() as i64 + ((y + ny) / 3.0).floor() as i64;
                out.push(point(x, y, sign_label(parity.rem_euclid(2) == 0)));
            }
        }
        DatasetKind::Sine => {
            // y = sin x on x ∈ [−6, 6], plus Gaussian noise of standard deviation `noise`.
            for _ in 0..n {
                let x = uniform(rng, -6.0, 6.0);
                let y = sin(x) + normal(rng, 0.0, 1.0) * noise;
                out.push(point(x, 0.0, y));
            }
        }
        DatasetKind::Digits | DatasetKind::Iris | DatasetKind::Wine | DatasetKind::BreastCancer | DatasetKind::Csv => {}
    }
    out
}

/// An input feature, as TensorFlow Playground offers them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    X1,
    X2,
    X1Squared,
    X2Squared,
    X1X2,
    SinX1,
    SinX2,
}

impl Feature {
    pub const ALL: [Feature; 7] = [
        Feature::X1,
        Feature::X2,
        Feature::X1Squared,
        Feature::X2Squared,
        Feature::X1X2,
        Feature::SinX1,
        Feature::SinX2,
    ];

    /// The canonical name (shell-safe): x1, x2, x1sq, x2sq, x1x2, sinx1, sinx2.
    pub fn name(self) -> &'static str {
        match self {
            Feature::X1 => "x1",
            Feature::X2 => "x2",
            Feature::X1Squared => "x1sq",
            Feature::X2Squared => "x2sq",
            Feature::X1X2 => "x1x2",
            Feature::SinX1 => "sinx1",
            Feature::SinX2 => "sinx2",
        }
    }

    /// A canonical name or a written form: `x1^2`, `x1²`, `x1*x2`, `x1·x2`, `sin(x1)`, `sin_x1`.
    pub fn parse(name: &str) -> Result<Feature, String> {
        let compact: String =
            name.trim().to_ascii_lowercase().chars().filter(|c| !matches!(c, ' ' | '_' | '(' | ')' | '*')).collect();
        let canonical = compact.replace("^2", "sq").replace('²', "sq").replace('·', "");
        Feature::ALL.into_iter().find(|f| f.name() == canonical).ok_or_else(|| {
            let names: Vec<&str> = Feature::ALL.iter().map(|f| f.name()).collect();
            format!("unknown feature '{name}'; expected one of {}", names.join(", "))
        })
    }

    /// Whether the feature reads `x2` (so a 1-D dataset cannot use it).
    pub fn uses_x2(self) -> bool {
        matches!(self, Feature::X2 | Feature::X2Squared | Feature::X1X2 | Feature::SinX2)
    }

    /// The feature's value at a point (f32 arithmetic).
    pub fn eval(self, x1: f32, x2: f32) -> f32 {
        match self {
            Feature::X1 => x1,
            Feature::X2 => x2,
            Feature::X1Squared => x1 * x1,
            Feature::X2Squared => x2 * x2,
            Feature::X1X2 => x1 * x2,
            Feature::SinX1 => sin(x1 as f64) as f32,
            Feature::SinX2 => sin(x2 as f64) as f32,
        }
    }
}

/// Writes the features of `x` into `row` (one value per feature, in order).
pub fn feature_row(features: &[Feature], x1: f32, x2: f32, row: &mut [f32]) {
    for (v, f) in row.iter_mut().zip(features) {
        *v = f.eval(x1, x2);
    }
}

/// The row-major feature matrix of the points (`points.len() × features.len()`).
pub fn feature_matrix(features: &[Feature], points: &[Point]) -> Vec<f32> {
    let mut out = vec![0.0; points.len() * features.len()];
    if !features.is_empty() {
        for (row, p) in out.chunks_exact_mut(features.len()).zip(points) {
            feature_row(features, p.x1, p.x2, row);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_and_written_forms_are_accepted() {
        for k in DatasetKind::ALL {
            assert_eq!(DatasetKind::parse(k.name()), Ok(k));
        }
        for f in Feature::ALL {
            assert_eq!(Feature::parse(f.name()), Ok(f));
        }
        assert_eq!(Feature::parse("x1^2"), Ok(Feature::X1Squared));
        assert_eq!(Feature::parse("x1*x2"), Ok(Feature::X1X2));
        assert_eq!(Feature::parse("sin(x2)"), Ok(Feature::SinX2));
        assert!(Feature::parse("x3").unwrap_err().contains("expected one of x1, x2"));
        assert!(DatasetKind::parse("spirals").unwrap_err().contains("unknown dataset 'spirals'"));
    }

    #[test]
    fn shapes_and_labels_follow_playground() {
        let mut rng = StdRng::seed_from_u64(1);
        let circle = points(DatasetKind::Circle, 200, 0.0, &mut rng);
        for p in &circle {
            let r = (p.x1 * p.x1 + p.x2 * p.x2).sqrt();
            assert!(if p.label > 0.0 { r < 2.5 } else { (3.5..=5.0).contains(&r) }, "{p:?}");
        }
        for p in points(DatasetKind::Xor, 200, 0.0, &mut rng) {
            assert!(p.x1.abs() >= 0.3 && p.x1.abs() <= 5.3 && p.x2.abs() >= 0.3);
            assert_eq!(p.label, if p.x1 * p.x2 >= 0.0 { 1.0 } else { -1.0 });
        }
        let spiral = points(DatasetKind::Spiral, 100, 0.0, &mut rng);
        assert_eq!(spiral[0], Point { x1: 0.0, x2: 0.0, label: 1.0 });
        assert_eq!((spiral[50].x1, spiral[50].label), (0.0, -1.0));
        assert!(spiral.iter().all(|p| p.x1.hypot(p.x2) < 5.0 + 1e-4));
        let g = points(DatasetKind::Gaussian, 400, 0.0, &mut rng);
        let mean = g[..200].iter().map(|p| p.x1 as f64).sum::<f64>() / 200.0;
        assert!((mean - 2.0).abs() < 0.2, "{mean}");
        assert!(points(DatasetKind::Sine, 50, 0.0, &mut rng).iter().all(|p| (p.label - p.x1.sin()).abs() < 1e-6));
    }

    #[test]
    fn the_same_seed_gives_the_same_split() {
        let a = Dataset::generate(DatasetKind::Moons, 101, 0.1, 0.5, 7);
        assert_eq!(a, Dataset::generate(DatasetKind::Moons, 101, 0.1, 0.5, 7));
        assert_ne!(a, Dataset::generate(DatasetKind::Moons, 101, 0.1, 0.5, 8));
        assert_eq!((a.train.len(), a.test.len()), (50, 51));
    }

    #[test]
    fn features_are_evaluated_in_order() {
        let pts = [Point { x1: 2.0, x2: -3.0, label: 1.0 }];
        let m = feature_matrix(&[Feature::X1X2, Feature::X1Squared, Feature::X2], &pts);
        assert_eq!(m, [-6.0, 4.0, -3.0]);
    }
}
