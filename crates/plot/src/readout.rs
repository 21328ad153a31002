//! Reading curves at one x: what a crosshair shows, for the figure, the CLI and the UI.

use super::curves::Curve;

/// A vertical line at `x` across both panels, with every visible curve's value marked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Crosshair {
    pub x: f32,
}

/// One curve's numbers at a crosshair.
#[derive(Clone, Debug, PartialEq)]
pub struct Reading {
    /// The curve's index in the slice (its colour).
    pub index: usize,
    pub label: String,
    /// `y = q(x)`.
    pub y: f32,
    /// `dy/dx` (the estimator's gradient).
    pub dydx: f32,
}

/// The value and gradient of every visible curve at `x` (curves whose samples do not reach
/// `x` are left out). See [`Curve::at`].
pub fn read_at(curves: &[Curve], x: f32) -> Vec<Reading> {
    curves
        .iter()
        .enumerate()
        .filter(|(_, c)| !c.hidden)
        .filter_map(|(index, c)| c.at(x).map(|(y, dydx)| Reading { index, label: c.label.clone(), y, dydx }))
        .collect()
}

impl Curve {
    /// `(y, dy/dx)` at `x`, from the samples: exact at a sample and at a located jump (the
    /// owner's value); across a flat or linear piece beside a jump, interpolated up to the
    /// jump's last float on that side (exact for a staircase); elsewhere interpolated linearly
    /// when the curve is known to be continuous there, else the nearest sample's. The gradient
    /// is the nearest sample's on the same side of any jump. None outside the sampled range.
    pub fn at(&self, x: f32) -> Option<(f32, f32)> {
        let n = self.x.len().min(self.y.len()).min(self.dydx.len());
        if n == 0 || !x.is_finite() || x < self.x[0] || x > self.x[n - 1] {
            return None;
        }
        // The interval [x[i], x[i+1]] holding x.
        let i = self.x[..n].partition_point(|&v| v <= x).saturating_sub(1).min(n - 1);
        if self.x[i] == x || i + 1 == n {
            return Some((self.y[i], self.dydx[i]));
        }
        let (x0, x1) = (self.x[i], self.x[i + 1]);
        let lerp = |xa: f32, ya: f32, xb: f32, yb: f32| -> f32 {
            if xb == xa || ya == yb {
                return ya;
            }
            let t = (x as f64 - xa as f64) / (xb as f64 - xa as f64);
            (ya as f64 + t * (yb as f64 - ya as f64)) as f32
        };
        if let Some(j) = self.jump_after(i) {
            return Some(if x == j.x {
                (j.value(), if j.owner == super::Side::Left { self.dydx[i] } else { self.dydx[i + 1] })
            } else if x <= j.a {
                (lerp(x0, self.y[i], j.a, j.left), self.dydx[i])
            } else {
                (lerp(j.b, j.right, x1, self.y[i + 1]), self.dydx[i + 1])
            });
        }
        let nearest = if x - x0 <= x1 - x { i } else { i + 1 };
        let continuous = !self.true_dydx.is_empty() || self.y[i] == self.y[i + 1];
        let y = if continuous { lerp(x0, self.y[i], x1, self.y[i + 1]) } else { self.y[nearest] };
        Some((y, self.dydx[nearest]))
    }
}
