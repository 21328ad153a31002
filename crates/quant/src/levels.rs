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
            Levels::Set(s) => nearest_in(s, v),
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

/// The first level of the sorted set `s` at the least distance `|l − v|` (f32, compared with
/// `total_cmp`): the first minimum of a linear scan ([`tests`] keeps it as the oracle), found by
/// binary search. For a finite `v` the distance, `fl(l − v)` in absolute value, falls and then
/// rises along the set (rounding is monotone): the answer is the level just above `v` or the
/// first of the equally near levels below it. A NaN `v` is equally far (NaN) from every level,
/// +∞ infinitely far from every level (NaN from +∞ itself, the largest), −∞ likewise but NaN
/// from −∞.
fn nearest_in(s: &[f32], v: f32) -> Option<f32> {
    let (&first, rest) = s.split_first()?;
    if v.is_nan() || v == f32::INFINITY {
        return Some(first);
    }
    if v == f32::NEG_INFINITY {
        return Some(if first == f32::NEG_INFINITY { rest.first().copied().unwrap_or(first) } else { first });
    }
    let d = |l: f32| (l - v).abs();
    let above = s.partition_point(|&l| l < v);
    if above > 0 {
        let below = d(s[above - 1]);
        if above == s.len() || below <= d(s[above]) {
            return Some(s[s[..above].partition_point(|&l| d(l) > below)]);
        }
    }
    Some(s[above])
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::{Levels, nearest_in};

    /// The definition: the first level at the least distance, by a linear scan.
    fn nearest_by_scan(s: &[f32], v: f32) -> Option<f32> {
        s.iter().copied().min_by(|a, b| (a - v).abs().total_cmp(&(b - v).abs()))
    }

    fn same(a: Option<f32>, b: Option<f32>) -> bool {
        a.map(f32::to_bits) == b.map(f32::to_bits)
    }

    const SPECIAL: [f32; 12] = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        f32::MIN_POSITIVE,
        1e-45,
        f32::MAX,
        f32::MIN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        3e38,
    ];

    /// A float from a few bits: mostly special values and small grids, where ties happen.
    fn float() -> impl Strategy<Value = f32> {
        prop_oneof![
            proptest::sample::select(SPECIAL.to_vec()),
            (-64i32..=64).prop_map(|k| k as f32 / 8.0),
            (-64i32..=64).prop_map(|k| k as f32 * 1e37),
            any::<u32>().prop_map(f32::from_bits),
        ]
    }

    #[test]
    fn nearest_of_a_set_is_the_first_nearest_level_of_a_scan_on_special_values() {
        let sets: Vec<Vec<f32>> = (0..1u32 << SPECIAL.len())
            .map(|mask| SPECIAL.iter().enumerate().filter(|(i, _)| mask >> i & 1 == 1).map(|(_, &f)| f).collect())
            .collect();
        for set in sets {
            let Levels::Set(s) = Levels::set(set) else { unreachable!() };
            for v in SPECIAL.into_iter().chain([0.5, -0.5, 1e30, -3e38, 2e-45]) {
                assert!(same(nearest_in(&s, v), nearest_by_scan(&s, v)), "{s:?} near {v}");
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]
        #[test]
        fn nearest_of_a_set_is_the_first_nearest_level_of_a_scan(
            set in proptest::collection::vec(float(), 0..24),
            v in float(),
        ) {
            let Levels::Set(s) = Levels::set(set) else { unreachable!() };
            prop_assert!(same(nearest_in(&s, v), nearest_by_scan(&s, v)), "{:?} near {}", s, v);
        }
    }
}
