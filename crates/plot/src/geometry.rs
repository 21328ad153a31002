//! Curve geometry in device pixels: mapping data into a plot rectangle, clipping polylines to
//! it, cutting them into dashes, and rounding them to few backend points. Doing this ourselves
//! (rather than through plotters' coordinate system) lets every backend get the same dashes —
//! plotters' backends know no dash patterns — and keeps lines inside the plot when zoomed.

/// A point on the backend: whole device pixels.
pub type BackendCoord = (i32, i32);

/// A point in device pixels (sub-pixel precision until it reaches the backend).
pub type Px = (f64, f64);

/// The linear map from data coordinates into a plot rectangle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    /// Pixels of `x_lo` and `x_hi`.
    pub px_x: (f64, f64),
    /// Pixels of `y_lo` and `y_hi` (the first is the larger: device y grows downwards).
    pub px_y: (f64, f64),
    pub x: (f32, f32),
    pub y: (f32, f32),
}

impl Frame {
    /// The pixel position of `(x, y)`; non-finite inputs give non-finite pixels.
    pub fn map(&self, x: f32, y: f32) -> Px {
        let t = |v: f32, (lo, hi): (f32, f32), (p0, p1): (f64, f64)| {
            p0 + (v as f64 - lo as f64) / (hi as f64 - lo as f64) * (p1 - p0)
        };
        (t(x, self.x, self.px_x), t(y, self.y, self.px_y))
    }

    /// The pixel x of data `x`.
    pub fn map_x(&self, x: f32) -> f64 {
        self.map(x, self.y.0).0
    }

    /// The plot rectangle: `(left, top, right, bottom)`.
    pub fn rect(&self) -> (f64, f64, f64, f64) {
        let (l, r) = (self.px_x.0.min(self.px_x.1), self.px_x.0.max(self.px_x.1));
        let (t, b) = (self.px_y.0.min(self.px_y.1), self.px_y.0.max(self.px_y.1));
        (l, t, r, b)
    }

    /// Whether a pixel lies inside the plot rectangle (borders included).
    pub fn contains(&self, (x, y): Px) -> bool {
        let (l, t, r, b) = self.rect();
        (l..=r).contains(&x) && (t..=b).contains(&y)
    }
}

/// The part of segment `p → q` inside `rect` (Liang–Barsky), as parameters `0 ≤ t0 ≤ t1 ≤ 1`.
fn clip_segment(p: Px, q: Px, (l, t, r, b): (f64, f64, f64, f64)) -> Option<(f64, f64)> {
    let (dx, dy) = (q.0 - p.0, q.1 - p.1);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (den, num) in [(-dx, p.0 - l), (dx, r - p.0), (-dy, p.1 - t), (dy, b - p.1)] {
        if den == 0.0 {
            if num < 0.0 {
                return None;
            }
        } else {
            let s = num / den;
            if den < 0.0 {
                t0 = t0.max(s);
            } else {
                t1 = t1.min(s);
            }
        }
    }
    (t0 <= t1).then_some((t0, t1))
}

/// The pieces of a polyline inside `rect`. Non-finite points break the line.
pub fn clip(line: &[Px], rect: (f64, f64, f64, f64)) -> Vec<Vec<Px>> {
    let mut out: Vec<Vec<Px>> = Vec::new();
    let mut cur: Vec<Px> = Vec::new();
    let lerp = |p: Px, q: Px, t: f64| (p.0 + t * (q.0 - p.0), p.1 + t * (q.1 - p.1));
    for w in line.windows(2) {
        let (p, q) = (w[0], w[1]);
        let ok = p.0.is_finite() && p.1.is_finite() && q.0.is_finite() && q.1.is_finite();
        match clip_segment(p, q, rect).filter(|_| ok) {
            Some((t0, t1)) => {
                let (a, b) = (lerp(p, q, t0), lerp(p, q, t1));
                if cur.last() != Some(&a) {
                    if !cur.is_empty() {
                        out.push(std::mem::take(&mut cur));
                    }
                    cur.push(a);
                }
                cur.push(b);
                if t1 < 1.0 {
                    out.push(std::mem::take(&mut cur));
                }
            }
            None => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Drops the points of a polyline that lie within `eps` pixels of the line through their
/// neighbours (Ramer–Douglas–Peucker): a straight stretch sampled 2000 times becomes one
/// segment, a curve keeps what shows.
pub fn simplify(line: &[Px], eps: f64) -> Vec<Px> {
    if line.len() < 3 {
        return line.to_vec();
    }
    let mut keep = vec![false; line.len()];
    keep[0] = true;
    keep[line.len() - 1] = true;
    let mut stack = vec![(0usize, line.len() - 1)];
    while let Some((a, b)) = stack.pop() {
        let (p, q) = (line[a], line[b]);
        let (dx, dy) = (q.0 - p.0, q.1 - p.1);
        let len = dx.hypot(dy);
        let dist = |r: Px| {
            if len == 0.0 { (r.0 - p.0).hypot(r.1 - p.1) } else { ((r.0 - p.0) * dy - (r.1 - p.1) * dx).abs() / len }
        };
        let far =
            (a + 1..b).map(|k| (k, dist(line[k]))).fold((a, 0.0f64), |m, (k, d)| if d > m.1 { (k, d) } else { m });
        if far.1 > eps {
            keep[far.0] = true;
            stack.push((a, far.0));
            stack.push((far.0, b));
        }
    }
    line.iter().zip(keep).filter(|(_, k)| *k).map(|(p, _)| *p).collect()
}

/// Cuts a polyline into dashes: `pattern` alternates drawn and skipped lengths in pixels,
/// starting with a drawn one; an empty pattern keeps the line whole.
pub fn dash(line: &[Px], pattern: &[f64]) -> Vec<Vec<Px>> {
    if pattern.is_empty() || pattern.iter().sum::<f64>() <= 0.0 || line.len() < 2 {
        return vec![line.to_vec()];
    }
    let mut out = Vec::new();
    let (mut k, mut left) = (0usize, pattern[0]);
    let mut cur: Vec<Px> = vec![line[0]];
    for w in line.windows(2) {
        let (mut p, q) = (w[0], w[1]);
        let mut len = ((q.0 - p.0).powi(2) + (q.1 - p.1).powi(2)).sqrt();
        while len > left {
            let t = left / len;
            p = (p.0 + t * (q.0 - p.0), p.1 + t * (q.1 - p.1));
            len -= left;
            if k % 2 == 0 {
                cur.push(p);
                out.push(std::mem::take(&mut cur));
            } else {
                cur.push(p);
            }
            k = (k + 1) % pattern.len();
            left = pattern[k];
            if k % 2 == 1 {
                cur.clear();
            }
        }
        left -= len;
        if k % 2 == 0 {
            cur.push(q);
        }
    }
    if k % 2 == 0 && cur.len() > 1 {
        out.push(cur);
    }
    out
}

/// A polyline as backend points: rounded to whole pixels, repeated points dropped, and the
/// inner points of horizontal or vertical stretches merged (a flat run of a staircase becomes
/// two points).
pub fn to_backend(line: &[Px]) -> Vec<BackendCoord> {
    let mut out: Vec<BackendCoord> = Vec::with_capacity(line.len().min(4096));
    for &(x, y) in line {
        let p = (x.round() as i32, y.round() as i32);
        if out.last() == Some(&p) {
            continue;
        }
        if let [.., a, b] = out[..] {
            let straight = (a.1 == b.1 && b.1 == p.1 && (a.0 < b.0) == (b.0 < p.0))
                || (a.0 == b.0 && b.0 == p.0 && (a.1 < b.1) == (b.1 < p.1));
            if straight {
                *out.last_mut().expect("two points") = p;
                continue;
            }
        }
        out.push(p);
    }
    out
}
