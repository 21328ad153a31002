//! A per-epoch record that stays small however long a run goes: it keeps every epoch until it
//! holds [`CAP`] entries, then every 2nd epoch, then every 4th, … (the step doubles each time
//! it fills again), and always the latest epoch. A run of a few thousand epochs keeps them
//! all; a page left training for an hour keeps a few thousand, evenly spread, in bounded
//! memory (the Train view's curves draw at most one point per pixel column anyway).

/// Entries kept before the record thins (the latest epoch may add one).
pub const CAP: usize = 4096;

/// Values by epoch, thinned as the module says.
#[derive(Clone, Debug)]
pub struct Thinned<T> {
    values: Vec<T>,
    epochs: Vec<usize>,
    every: usize,
}

impl<T> Default for Thinned<T> {
    fn default() -> Self {
        Thinned::new()
    }
}

impl<T> Thinned<T> {
    pub fn new() -> Self {
        Thinned { values: Vec::new(), epochs: Vec::new(), every: 1 }
    }

    /// Records `value` for `epoch` (epochs come in increasing order).
    pub fn push(&mut self, epoch: usize, value: T) {
        // Every entry is on the grid of `every` except perhaps the latest, kept for being it.
        if self.epochs.last().is_some_and(|&e| e % self.every != 0) {
            self.values.pop();
            self.epochs.pop();
        }
        self.values.push(value);
        self.epochs.push(epoch);
        if self.values.len() > CAP {
            self.every *= 2;
            let (every, last) = (self.every, self.epochs.len() - 1);
            let keep: Vec<bool> = self.epochs.iter().enumerate().map(|(i, &e)| e % every == 0 || i == last).collect();
            let mut k = keep.iter().copied();
            self.values.retain(|_| k.next().unwrap_or(true));
            let mut k = keep.iter().copied();
            self.epochs.retain(|_| k.next().unwrap_or(true));
        }
    }

    /// The values kept, oldest first.
    pub fn values(&self) -> &[T] {
        &self.values
    }

    /// The epoch of each value kept.
    pub fn epochs(&self) -> &[usize] {
        &self.epochs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_run_keeps_every_epoch() {
        let mut t = Thinned::new();
        for e in 1..=CAP {
            t.push(e, e * 10);
        }
        assert_eq!(t.epochs(), (1..=CAP).collect::<Vec<_>>());
        assert_eq!(t.values()[CAP - 1], CAP * 10);
    }

    #[test]
    fn a_long_run_keeps_at_most_cap_and_one_entries_evenly_spread_and_the_latest() {
        let mut t = Thinned::new();
        for e in 1..=100 * CAP + 7 {
            t.push(e, e as u64);
            assert!(t.values().len() <= CAP + 1, "epoch {e}: {} entries", t.values().len());
            assert_eq!(*t.epochs().last().unwrap(), e, "the latest epoch is always kept");
        }
        let (epochs, values) = (t.epochs(), t.values());
        assert!(epochs.len() > CAP / 2, "{} entries", epochs.len());
        let step = epochs[1] - epochs[0];
        assert!(step.is_power_of_two() && step >= 64, "step {step}");
        for (w, (&e, &v)) in epochs.windows(2).zip(epochs.iter().zip(values)) {
            assert_eq!(v, e as u64, "each value stays with its epoch");
            assert!(w[1] - w[0] == step || w[1] == *epochs.last().unwrap(), "{w:?}");
        }
    }
}
