//! Distinct float32 values and how often each occurs, in one pass without sorting: the levels a
//! quantizer's outputs use, and the stems of the histogram, on tensors of millions of elements.
//!
//! An open-addressing table keyed by the value's bits (−0 and +0 as one key, NaN and ±inf left
//! out), grown at half full. A quantizer uses a few hundred levels at most, so the table stays in
//! the cache; a continuous output would fill it with every element, so it stops growing at
//! [`Distinct::LIMIT`] values and says so ([`Distinct::saturated`]).

/// The key no value has: a NaN's bits, and NaN is never added.
const EMPTY: u32 = u32::MAX;

/// Distinct finite values with their counts.
#[derive(Clone, Debug)]
pub struct Distinct {
    keys: Vec<u32>,
    counts: Vec<u32>,
    len: usize,
    saturated: bool,
}

impl Default for Distinct {
    fn default() -> Self {
        Distinct { keys: vec![EMPTY; 64], counts: vec![0; 64], len: 0, saturated: false }
    }
}

impl Distinct {
    /// The most distinct values counted one by one; beyond, only "more than this many".
    pub const LIMIT: usize = 1 << 20;

    /// The distinct finite values of `values`.
    pub fn of(values: &[f32]) -> Distinct {
        let mut d = Distinct::default();
        values.iter().for_each(|&v| d.add(v));
        d
    }

    /// Counts `v` (NaN and ±inf are left out; −0 counts as +0).
    #[inline]
    pub fn add(&mut self, v: f32) {
        if !v.is_finite() {
            return;
        }
        let key = if v == 0.0 { 0 } else { v.to_bits() };
        let mask = self.keys.len() - 1;
        let mut i = slot(key) & mask;
        loop {
            match self.keys[i] {
                k if k == key => {
                    self.counts[i] = self.counts[i].saturating_add(1);
                    return;
                }
                EMPTY => break,
                _ => i = (i + 1) & mask,
            }
        }
        if self.len >= Self::LIMIT {
            self.saturated = true;
            return;
        }
        self.keys[i] = key;
        self.counts[i] = 1;
        self.len += 1;
        if 2 * self.len > self.keys.len() {
            self.grow();
        }
    }

    /// Distinct values counted (at most [`Distinct::LIMIT`]).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no value was counted.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether there were more distinct values than [`Distinct::LIMIT`].
    pub fn saturated(&self) -> bool {
        self.saturated
    }

    /// Forgets every value, keeping the table's memory.
    pub fn clear(&mut self) {
        self.keys.fill(EMPTY);
        self.len = 0;
        self.saturated = false;
    }

    /// The values, ascending, each with its count (zero as +0).
    pub fn sorted(&self) -> Vec<(f32, u32)> {
        let mut out: Vec<(f32, u32)> = self
            .keys
            .iter()
            .zip(&self.counts)
            .filter(|(k, _)| **k != EMPTY)
            .map(|(&k, &c)| (f32::from_bits(k), c))
            .collect();
        out.sort_by(|a, b| a.0.total_cmp(&b.0));
        out
    }

    fn grow(&mut self) {
        let size = self.keys.len() * 2;
        let grown =
            Distinct { keys: vec![EMPTY; size], counts: vec![0; size], len: self.len, saturated: self.saturated };
        let old = std::mem::replace(self, grown);
        let mask = self.keys.len() - 1;
        for (k, c) in old.keys.into_iter().zip(old.counts).filter(|(k, _)| *k != EMPTY) {
            let mut i = slot(k) & mask;
            while self.keys[i] != EMPTY {
                i = (i + 1) & mask;
            }
            self.keys[i] = k;
            self.counts[i] = c;
        }
    }
}

/// A key's home slot: Fibonacci hashing, so levels that differ only in their low bits spread.
#[inline]
fn slot(key: u32) -> usize {
    ((u64::from(key).wrapping_mul(0x9E37_79B9_7F4A_7C15)) >> 40) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_distinct_value_is_counted_with_both_zeros_as_one() {
        let d = Distinct::of(&[0.5, -0.0, 0.0, 0.5, f32::NAN, f32::INFINITY, -1.25, 0.5]);
        assert_eq!(d.len(), 3);
        assert_eq!(d.sorted(), vec![(-1.25, 1), (0.0, 2), (0.5, 3)]);
    }

    #[test]
    fn it_agrees_with_sorting_on_many_values_through_growth() {
        let v: Vec<f32> = (0..100_000).map(|i| ((i * 7919) % 3001) as f32 * 0.125 - 100.0).collect();
        let mut sorted = v.clone();
        sorted.sort_by(f32::total_cmp);
        sorted.dedup();
        let d = Distinct::of(&v);
        assert_eq!(d.len(), 3001);
        assert_eq!(d.sorted().iter().map(|s| s.0).collect::<Vec<_>>(), sorted);
        assert_eq!(d.sorted().iter().map(|s| s.1 as usize).sum::<usize>(), v.len());
    }

    #[test]
    fn it_stops_growing_at_its_limit_and_says_so() {
        let mut d = Distinct::default();
        (0..Distinct::LIMIT + 10).for_each(|i| d.add(i as f32));
        assert_eq!(d.len(), Distinct::LIMIT);
        assert!(d.saturated());
        d.clear();
        assert!(d.is_empty() && !d.saturated());
    }
}
