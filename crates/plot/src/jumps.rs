//! Exact jumps of a sampled function, and its true derivative.
//!
//! Between two neighbouring samples whose values differ, [`find_jumps`] bisects on the bit
//! patterns of f32 (not on the real line) until it holds two *adjacent* floats `a < b` with
//! `q(a) ≠ q(b)`. A discontinuity keeps a gap of at least half the samples' difference all the
//! way down; a continuous function's difference halves with the interval and the search stops
//! early. The jump is placed at whichever of `a`, `b` is the rounder number (fewer significant
//! mantissa bits: `0.5` rather than `0.49999997`), and the side containing that number owns it:
//! round-half-to-even gives `q(0.5) = 0` (the left owns the jump at 0.5) and `q(1.5) = 2` (the
//! right owns it), `sign(0) = +1` owns the top of the jump at 0.
//!
//! The function must be evaluated point by point — its value at `x` may not depend on which
//! other points share the call. A data-dependent quantizer (`alpha='auto'`) qualifies once its
//! scale is frozen.

/// Which side of a jump owns the boundary point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// `q(x)` is the limit from the left (drawn as the filled dot below/above the gap's left end).
    Left,
    /// `q(x)` is the limit from the right.
    Right,
}

/// A discontinuity of `q`, located to the float.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Jump {
    /// Where the value changes: the rounder of `a` and `b`.
    pub x: f32,
    /// `q(a)`: the value just left of the jump.
    pub left: f32,
    /// `q(b)`: the value just right of the jump.
    pub right: f32,
    /// The side whose value `q(x)` takes.
    pub owner: Side,
    /// The two adjacent floats `a < b` with `q(a) ≠ q(b)`.
    pub a: f32,
    pub b: f32,
    /// The sample interval the jump lies in: `x[interval] ≤ a < b ≤ x[interval + 1]`.
    pub interval: usize,
}

impl Jump {
    /// `q(x)` at the jump: the owner's value.
    pub fn value(&self) -> f32 {
        match self.owner {
            Side::Left => self.left,
            Side::Right => self.right,
        }
    }

    /// The value the jump's owner does not take (drawn as the open dot).
    pub fn excluded(&self) -> f32 {
        match self.owner {
            Side::Left => self.right,
            Side::Right => self.left,
        }
    }
}

/// An order-preserving integer key of a float: consecutive floats have consecutive keys, and
/// −0 and +0 share key 0.
pub fn key(v: f32) -> i64 {
    let bits = (v.to_bits() & 0x7FFF_FFFF) as i64;
    if v.is_sign_negative() { -bits } else { bits }
}

/// The float with key `k` (the inverse of [`key`]; key 0 is +0).
pub fn from_key(k: i64) -> f32 {
    let v = f32::from_bits(k.unsigned_abs() as u32);
    if k < 0 { -v } else { v }
}

/// How many significant bits the binary significand of `v` has: 0 for zero, 1 for a power of
/// two, 24 for a float whose last mantissa bit is set.
pub fn significant_bits(v: f32) -> u32 {
    let bits = v.to_bits() & 0x7FFF_FFFF;
    if bits == 0 {
        return 0;
    }
    let (exp, mant) = (bits >> 23, bits & 0x7F_FFFF);
    let m = if exp == 0 { mant } else { mant | 0x80_0000 };
    (32 - m.leading_zeros()) - m.trailing_zeros()
}

/// One bisection in progress: keys `lo < hi` of the bracket and `q` at both ends.
struct Bracket {
    interval: usize,
    lo: i64,
    hi: i64,
    q_lo: f32,
    q_hi: f32,
    /// The samples' difference `|y[i+1] − y[i]|`.
    span: f32,
}

impl Bracket {
    fn finish(&self) -> Jump {
        let (a, b) = (from_key(self.lo), from_key(self.hi));
        // The rounder number carries the jump (on a tie, which adjacent floats never have
        // except across ±0, the left one).
        let owner = if significant_bits(b) < significant_bits(a) { Side::Right } else { Side::Left };
        let x = if owner == Side::Left { a } else { b };
        Jump { x, left: self.q_lo, right: self.q_hi, owner, a, b, interval: self.interval }
    }
}

/// Whether two outputs differ by more than float rounding (16 ulps): a continuous function's
/// outputs step by ulps where it is flat (tanh near ±1), which is no jump.
fn visible(a: f32, b: f32) -> bool {
    (b - a).abs() > 16.0 * f32::EPSILON * a.abs().max(b.abs())
}

/// The discontinuities of `q` between neighbouring samples `(x, y)` (`x` increasing, `y = q(x)`),
/// in x order, ignoring differences of a few ulps. `q` evaluates a batch of points (each on its own, see the module docs); the
/// bisections of all intervals run side by side, one call per halving (at most 32 calls).
pub fn find_jumps(x: &[f32], y: &[f32], q: &mut dyn FnMut(&[f32]) -> Vec<f32>) -> Vec<Jump> {
    let n = x.len().min(y.len());
    let finite = |i: usize| x[i].is_finite() && y[i].is_finite();
    let mut active: Vec<Bracket> = (0..n.saturating_sub(1))
        .filter(|&i| finite(i) && finite(i + 1) && key(x[i]) < key(x[i + 1]) && visible(y[i], y[i + 1]))
        .map(|i| Bracket {
            interval: i,
            lo: key(x[i]),
            hi: key(x[i + 1]),
            q_lo: y[i],
            q_hi: y[i + 1],
            span: (y[i + 1] - y[i]).abs(),
        })
        .collect();
    let mut jumps: Vec<Jump> = active.iter().filter(|b| b.hi - b.lo == 1).map(Bracket::finish).collect();
    active.retain(|b| b.hi - b.lo > 1);
    let mut mids: Vec<f32> = Vec::with_capacity(active.len());
    while !active.is_empty() {
        mids.clear();
        mids.extend(active.iter().map(|b| from_key(b.lo + (b.hi - b.lo) / 2)));
        let q_mid = q(&mids);
        let mut next = Vec::with_capacity(active.len());
        for (mut b, qm) in active.into_iter().zip(q_mid) {
            if !qm.is_finite() {
                continue;
            }
            let mid = b.lo + (b.hi - b.lo) / 2;
            let (left, right) = ((qm - b.q_lo).abs(), (b.q_hi - qm).abs());
            // Follow the half that changes more: it holds the jump if there is one.
            if left >= right {
                (b.hi, b.q_hi) = (mid, qm);
            } else {
                (b.lo, b.q_lo) = (mid, qm);
            }
            // A continuous function's change halves with the bracket: not a jump.
            if 2.0 * left.max(right) <= b.span {
                continue;
            }
            if b.hi - b.lo == 1 {
                jumps.push(b.finish());
            } else {
                next.push(b);
            }
        }
        active = next;
    }
    jumps.sort_by_key(|j| j.interval);
    jumps
}

/// The derivative of the sampled function itself at every sample: central differences within
/// the continuous pieces between `jumps` (0 on a staircase's flat runs), one-sided next to a
/// jump, NaN where both neighbouring intervals hold a jump or a value is not finite.
pub fn true_derivative(x: &[f32], y: &[f32], jumps: &[Jump]) -> Vec<f32> {
    let n = x.len().min(y.len());
    let mut broken = vec![false; n.saturating_sub(1)];
    for j in jumps.iter().filter(|j| j.interval + 1 < n) {
        broken[j.interval] = true;
    }
    let finite = |i: usize| x[i].is_finite() && y[i].is_finite();
    let smooth = |i: usize| i + 1 < n && !broken[i] && finite(i) && finite(i + 1) && x[i + 1] > x[i];
    (0..n)
        .map(|i| {
            let before = i > 0 && smooth(i - 1);
            let after = smooth(i);
            let (l, r) = match (before, after) {
                (true, true) => (i - 1, i + 1),
                (true, false) => (i - 1, i),
                (false, true) => (i, i + 1),
                (false, false) => return f32::NAN,
            };
            ((y[r] as f64 - y[l] as f64) / (x[r] as f64 - x[l] as f64)) as f32
        })
        .collect()
}
