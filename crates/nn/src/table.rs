//! A dataset given as a table rather than generated: rows of numeric features and one class
//! per row — a bundled real dataset (`digits`, `iris`, `wine`, `breast_cancer`) or the user's
//! CSV. [`Table::new`] checks it once; the trainer splits it with the seed, standardizes it by
//! the training split if asked, and trains a classifier over its classes.

use rand::rngs::StdRng;

use super::data::shuffle;

/// Most classes a table may have (the output layer's width under softmax).
pub const MAX_CLASSES: usize = 10;

/// Most feature columns (the input layer's width; the page draws every input).
pub const MAX_FEATURES: usize = 64;

/// Fewest and most rows (the trainer's range of points).
pub const MIN_ROWS: usize = 10;
pub const MAX_ROWS: usize = 100_000;

/// A checked table: `rows × features` finite values, row-major, and a class index per row.
#[derive(Clone, Debug)]
pub struct Table {
    /// Where it came from: the bundled dataset's name or the CSV's file name.
    pub name: String,
    /// The feature columns' names, in order.
    pub features: Vec<String>,
    /// The classes' names, in label order (class `k` is `classes[k]`).
    pub classes: Vec<String>,
    /// The values, row-major.
    pub x: Vec<f32>,
    /// The class of each row, below `classes.len()`.
    pub y: Vec<u8>,
    /// A hash of the contents: two tables are equal when their names, columns, classes and
    /// contents are ([`PartialEq`] without comparing every value each time).
    fingerprint: u64,
}

impl PartialEq for Table {
    fn eq(&self, other: &Table) -> bool {
        self.fingerprint == other.fingerprint
            && self.name == other.name
            && self.features == other.features
            && self.classes == other.classes
            && self.y.len() == other.y.len()
    }
}

/// FNV-1a over bytes, continued from `h`.
fn fnv(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

impl Table {
    /// A table, checked: at least one feature and at most [`MAX_FEATURES`], [`MIN_ROWS`] to
    /// [`MAX_ROWS`] rows, 2 to [`MAX_CLASSES`] classes each with a row, every value finite.
    pub fn new(
        name: &str,
        features: Vec<String>,
        classes: Vec<String>,
        x: Vec<f32>,
        y: Vec<u8>,
    ) -> Result<Table, String> {
        let (d, n, k) = (features.len(), y.len(), classes.len());
        if d == 0 || d > MAX_FEATURES {
            return Err(format!("{name}: {d} feature columns; expected 1 to {MAX_FEATURES}"));
        }
        if !(MIN_ROWS..=MAX_ROWS).contains(&n) {
            return Err(format!("{name}: {n} rows; expected {MIN_ROWS} to {MAX_ROWS}"));
        }
        if x.len() != n * d {
            return Err(format!("{name}: {} values for {n} rows of {d} features", x.len()));
        }
        if !(2..=MAX_CLASSES).contains(&k) {
            return Err(format!("{name}: {k} classes; expected 2 to {MAX_CLASSES}"));
        }
        if let Some(r) = y.iter().position(|&c| usize::from(c) >= k) {
            return Err(format!("{name}: row {} has class {} of {k}", r + 1, y[r]));
        }
        let mut counts = vec![0usize; k];
        y.iter().for_each(|&c| counts[usize::from(c)] += 1);
        if let Some(c) = counts.iter().position(|&m| m == 0) {
            return Err(format!("{name}: class '{}' has no row", classes[c]));
        }
        if let Some(i) = x.iter().position(|v| !v.is_finite()) {
            return Err(format!("{name}: row {}, column '{}' is {}", i / d + 1, features[i % d], x[i]));
        }
        let mut h = fnv(0xcbf2_9ce4_8422_2325, &(n as u64).to_le_bytes());
        h = x.iter().fold(h, |h, v| fnv(h, &v.to_bits().to_le_bytes()));
        h = fnv(h, &y);
        Ok(Table { name: name.into(), features, classes, x, y, fingerprint: h })
    }

    pub fn rows(&self) -> usize {
        self.y.len()
    }

    /// Feature columns.
    pub fn dims(&self) -> usize {
        self.features.len()
    }

    /// Row `r`'s values.
    pub fn row(&self, r: usize) -> &[f32] {
        let d = self.dims();
        &self.x[r * d..(r + 1) * d]
    }

    /// Rows per class, in class order.
    pub fn class_counts(&self) -> Vec<usize> {
        let mut counts = vec![0; self.classes.len()];
        self.y.iter().for_each(|&c| counts[usize::from(c)] += 1);
        counts
    }
}

/// Per-column mean and standard deviation (population, as scikit-learn's `StandardScaler`) of
/// the rows `rows` of `x` (`d` columns), in f64; a column of one value gets a deviation of 1
/// (as the scaler does), so it becomes 0 rather than NaN.
pub fn moments(x: &[f32], d: usize, rows: &[usize]) -> Vec<(f64, f64)> {
    let n = rows.len().max(1) as f64;
    // Row by row, every column's sum at once: each column still sums its rows in `rows`' order
    // (the same numbers as a pass per column), but memory is read a row at a time. Sums start
    // at −0.0, as `Iterator::sum`'s do: the additive identity even for a column of −0.0s.
    let mut sum = vec![-0.0f64; d];
    for &r in rows {
        for (s, &v) in sum.iter_mut().zip(&x[r * d..(r + 1) * d]) {
            *s += f64::from(v);
        }
    }
    let mean: Vec<f64> = sum.iter().map(|s| s / n).collect();
    let mut squares = vec![-0.0f64; d];
    for &r in rows {
        for ((s, &v), m) in squares.iter_mut().zip(&x[r * d..(r + 1) * d]).zip(&mean) {
            *s += (f64::from(v) - m).powi(2);
        }
    }
    mean.into_iter()
        .zip(squares)
        .map(|(mean, sq)| {
            let sd = (sq / n).sqrt();
            (mean, if sd > 0.0 { sd } else { 1.0 })
        })
        .collect()
}

/// A split of the data: features row-major and labels, for training and for test; a table's
/// test rows in test order.
pub(crate) struct Split {
    pub(crate) train_x: Vec<f32>,
    pub(crate) train_y: Vec<f32>,
    pub(crate) test_x: Vec<f32>,
    pub(crate) test_y: Vec<f32>,
    pub(crate) test_rows: Vec<usize>,
}

/// A table split as generated data is (its rows shuffled with the data stream, the first
/// ⌊n·train_ratio⌋ train), standardized by the training rows' mean and deviation if asked
/// (`(x − mean) / sd` in f64, stored as f32). Labels are ±1 for two classes (class 1 is +1, as
/// the generated data's), the class index for more.
pub(crate) fn split_table(t: &Table, ratio: f32, standardize: bool, rng: &mut StdRng) -> Split {
    let mut rows: Vec<usize> = (0..t.rows()).collect();
    shuffle(&mut rows, rng);
    let cut = (rows.len() as f64 * ratio as f64).floor() as usize;
    let (train, test) = rows.split_at(cut.min(rows.len()));
    let d = t.dims();
    let scale = if standardize { moments(&t.x, d, train) } else { vec![(0.0, 1.0); d] };
    let features = |rows: &[usize]| -> Vec<f32> {
        let mut out = Vec::with_capacity(rows.len() * d);
        for &r in rows {
            out.extend(t.row(r).iter().zip(&scale).map(|(&v, &(mean, sd))| ((f64::from(v) - mean) / sd) as f32));
        }
        out
    };
    let two = t.classes.len() == 2;
    let labels = |rows: &[usize]| -> Vec<f32> {
        rows.iter()
            .map(|&r| match (two, t.y[r]) {
                (true, 0) => -1.0,
                (true, _) => 1.0,
                (false, c) => f32::from(c),
            })
            .collect()
    };
    Split {
        train_x: features(train),
        train_y: labels(train),
        test_x: features(test),
        test_y: labels(test),
        test_rows: test.to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(x: Vec<f32>, y: Vec<u8>) -> Result<Table, String> {
        Table::new("t", vec!["a".into(), "b".into()], vec!["no".into(), "yes".into()], x, y)
    }

    fn rows(n: usize) -> (Vec<f32>, Vec<u8>) {
        ((0..2 * n).map(|i| i as f32).collect(), (0..n).map(|i| (i % 2) as u8).collect())
    }

    #[test]
    fn a_table_is_checked_and_each_problem_named() {
        let (x, y) = rows(12);
        let t = table(x.clone(), y.clone()).unwrap();
        assert_eq!((t.rows(), t.dims(), t.row(3)), (12, 2, &[6.0, 7.0][..]));
        assert_eq!(t.class_counts(), [6, 6]);
        let mut bad = x.clone();
        bad[5] = f32::NAN;
        assert_eq!(table(bad, y.clone()).unwrap_err(), "t: row 3, column 'b' is NaN");
        assert_eq!(table(x.clone(), vec![0; 12]).unwrap_err(), "t: class 'yes' has no row");
        let mut three = y.clone();
        three[0] = 2;
        assert_eq!(table(x.clone(), three).unwrap_err(), "t: row 1 has class 2 of 2");
        assert!(table(x[..6].to_vec(), y[..3].to_vec()).unwrap_err().contains("3 rows; expected 10"));
        assert!(table(x[..20].to_vec(), y).unwrap_err().contains("20 values for 12 rows"));
    }

    #[test]
    fn tables_are_equal_by_contents() {
        let (x, y) = rows(12);
        let a = table(x.clone(), y.clone()).unwrap();
        assert_eq!(a, table(x.clone(), y.clone()).unwrap());
        let mut other = x;
        other[0] = 0.5;
        assert_ne!(a, table(other, y).unwrap());
    }

    #[test]
    fn moments_row_by_row_are_a_pass_per_column_to_the_bit() {
        let (n, d) = (1000, 7);
        let mut x: Vec<f32> = (0..n * d).map(|i| ((i * 7919) % 1013) as f32 * 0.37 - 150.0).collect();
        (0..n).for_each(|r| x[r * d + 3] = -0.0); // a column of negative zeros
        let rows: Vec<usize> = (0..n).map(|i| (i * 389) % n).collect();
        let per_column: Vec<(f64, f64)> = (0..d)
            .map(|c| {
                let k = rows.len() as f64;
                let mean = rows.iter().map(|&r| f64::from(x[r * d + c])).sum::<f64>() / k;
                let var = rows.iter().map(|&r| (f64::from(x[r * d + c]) - mean).powi(2)).sum::<f64>() / k;
                (mean, var.sqrt())
            })
            .collect();
        let bits = |m: Vec<(f64, f64)>| m.iter().map(|(a, b)| (a.to_bits(), b.to_bits())).collect::<Vec<_>>();
        let mut per_column = per_column;
        per_column[3].1 = 1.0; // a column of one value: deviation 1
        assert_eq!(bits(moments(&x, d, &rows)), bits(per_column));
    }

    #[test]
    fn moments_are_the_population_mean_and_deviation() {
        let x = [1.0, 5.0, 3.0, 5.0, 5.0, 5.0];
        let m = moments(&x, 2, &[0, 1, 2]);
        assert_eq!(m[0].0, 3.0);
        assert!((m[0].1 - (8.0f64 / 3.0).sqrt()).abs() < 1e-12);
        assert_eq!(m[1], (5.0, 1.0));
    }
}
