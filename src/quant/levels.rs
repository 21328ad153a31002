//! The set of values a quantizer can output.

/// The most levels an explicit [`Levels::Set`] is built with: a quantizer whose set would be
/// larger (a 32-bit µ-law, a sigmoid ReLU with a negative slope at 28 bits) reports
/// [`Levels::Continuous`] instead of enumerating billions of floats.
pub const MAX_SET: i64 = 1 << 20;

/// Representable output values.
#[derive(Clone, Debug, PartialEq)]
pub enum Levels {
    /// `(lo + k)·step` for `k = 0..count`: integer codes from `lo` times a step.
    Uniform { lo: i64, step: f32, count: u64 },
    /// An explicit, sorted set (power-of-two, µ-law, ternary…).
    Set(Vec<f32>),
    /// Every integer multiple of `step` (unbounded rounding).
    Grid { step: f32 },
    /// Not a staircase (identity, smooth functions, data-dependent per-element outputs).
    Continuous,
}

impl Levels {
    /// Uniform levels from integer codes `lo..=hi` times `step`.
    pub fn codes(lo: i64, hi: i64, step: f32) -> Levels {
        if hi < lo {
            return Levels::Set(vec![]);
        }
        Levels::Uniform { lo, step, count: (hi - lo + 1) as u64 }
    }

    /// An explicit set, sorted and deduplicated.
    pub fn set(mut v: Vec<f32>) -> Levels {
        v.retain(|x| !x.is_nan());
        v.sort_by(f32::total_cmp);
        v.dedup_by(|a, b| a == b);
        Levels::Set(v)
    }

    /// How many levels (None when continuous).
    pub fn count(&self) -> Option<u64> {
        match self {
            Levels::Uniform { count, .. } => Some(*count),
            Levels::Set(v) => Some(v.len() as u64),
            Levels::Grid { .. } | Levels::Continuous => None,
        }
    }

    /// Smallest and largest level.
    pub fn bounds(&self) -> Option<(f32, f32)> {
        match self {
            Levels::Uniform { lo, step, count } if *count > 0 => {
                Some((*lo as f32 * step, (*lo + *count as i64 - 1) as f32 * step))
            }
            Levels::Set(v) if !v.is_empty() => Some((v[0], v[v.len() - 1])),
            _ => None,
        }
    }

    /// The levels as a list, when there are at most `limit` of them.
    pub fn list(&self, limit: usize) -> Option<Vec<f32>> {
        match self {
            Levels::Uniform { lo, step, count } if *count as usize <= limit => {
                Some((0..*count as i64).map(|k| (lo + k) as f32 * step).collect())
            }
            Levels::Set(v) if v.len() <= limit => Some(v.clone()),
            _ => None,
        }
    }

    /// The level nearest to `v` (None when continuous or empty).
    pub fn nearest(&self, v: f32) -> Option<f32> {
        match self {
            Levels::Uniform { lo, step, count } if *count > 0 => {
                let hi = *lo + *count as i64 - 1;
                let k = ((v / step).round_ties_even() as i64).clamp(*lo, hi);
                Some(k as f32 * step)
            }
            Levels::Set(s) => s.iter().copied().min_by(|a, b| (a - v).abs().total_cmp(&(b - v).abs())),
            Levels::Grid { step } => Some((v / step).round_ties_even() * step),
            _ => None,
        }
    }

    /// Whether `v` is one of the levels, up to `tol` (absolute).
    pub fn contains_within(&self, v: f32, tol: f32) -> bool {
        match self {
            Levels::Continuous => !v.is_nan(),
            _ => self.nearest(v).is_some_and(|l| (l - v).abs() <= tol),
        }
    }

    /// Whether `v` is one of the levels (up to four ulps of the level).
    pub fn contains(&self, v: f32) -> bool {
        let tol = self.nearest(v).map_or(0.0, |l| 4.0 * f32::EPSILON * l.abs().max(f32::MIN_POSITIVE));
        self.contains_within(v, tol)
    }
}
