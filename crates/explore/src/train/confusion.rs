//! What the Train view shows of a classifier on a table instead of its decision boundary (a
//! table's inputs are not a plane): the test split's confusion matrix, each cell with its share
//! of its row, and for `digits` the test images the net gets wrong, with what it answered.

use qscope_nn::{DatasetKind, Trainer};

/// A confusion matrix ready to draw: row = the true class, column = the predicted one.
#[derive(Clone, Debug, PartialEq)]
pub struct Confusion {
    /// The classes' names, in class order.
    pub classes: Vec<String>,
    /// Counts, row-major (`classes × classes`).
    pub counts: Vec<u32>,
    /// The epoch of the evaluation it comes from.
    pub epoch: usize,
}

impl Confusion {
    /// The trainer's latest test confusion; None before its first evaluation or for generated
    /// data (their boundaries show more).
    pub fn of(t: &Trainer) -> Option<Confusion> {
        let table = t.config().table.as_ref()?;
        let k = table.classes.len();
        let counts = t.confusion(true);
        // The epoch evaluated last: while an epoch's evaluation is under way, the one before.
        let epoch = t.history().last().map_or(0, |m| m.epoch);
        (counts.len() == k * k).then(|| Confusion { classes: table.classes.clone(), counts: counts.to_vec(), epoch })
    }

    /// As comment lines (`qscope train`'s text): a row per true class, a column per predicted
    /// one, headed by the classes' names.
    pub fn text_lines(&self) -> Vec<String> {
        let k = self.k();
        let names = &self.classes;
        let width = names
            .iter()
            .map(|n| n.chars().count())
            .chain(self.counts.iter().map(|c| c.to_string().len()))
            .max()
            .unwrap_or(1);
        let mut lines =
            vec![format!("# test confusion after epoch {} (rows: true class, columns: predicted)", self.epoch)];
        let head: Vec<String> = names.iter().map(|n| format!("{n:>width$}")).collect();
        lines.push(format!("# {:>width$}  {}", "", head.join(" ")));
        for (name, row) in names.iter().zip(self.counts.chunks(k)) {
            let cells: Vec<String> = row.iter().map(|c| format!("{c:>width$}")).collect();
            lines.push(format!("# {name:>width$}  {}", cells.join(" ")));
        }
        lines
    }

    /// As JSON rows (`[12,0,1]`), for `qscope train --json`.
    pub fn json_rows(&self) -> Vec<String> {
        let row = |r: &[u32]| format!("[{}]", r.iter().map(u32::to_string).collect::<Vec<_>>().join(","));
        self.counts.chunks(self.k()).map(row).collect()
    }

    pub fn k(&self) -> usize {
        self.classes.len()
    }

    /// The count at (true `row`, predicted `col`) and its share of the row (0 for an empty row).
    pub fn cell(&self, row: usize, col: usize) -> (u32, f64) {
        let k = self.k();
        let total: u32 = self.counts[row * k..(row + 1) * k].iter().sum();
        let c = self.counts[row * k + col];
        (c, if total == 0 { 0.0 } else { f64::from(c) / f64::from(total) })
    }

    /// Examples counted, and those on the diagonal (right).
    pub fn totals(&self) -> (u32, u32) {
        let k = self.k();
        (self.counts.iter().sum(), (0..k).map(|i| self.counts[i * k + i]).sum())
    }
}

/// A test example the net got wrong: its table row, true and predicted class names, and its
/// values as stored (a digit's 64 pixels, 0 to 16, row by row).
#[derive(Clone, Debug, PartialEq)]
pub struct Miss {
    pub row: usize,
    pub truth: String,
    pub predicted: String,
    pub pixels: Vec<f32>,
}

/// Side of a `digits` image.
pub const DIGIT_SIDE: usize = 8;

/// Up to `max` of the test images the latest evaluation got wrong, in test order; empty but for
/// `digits` (the only table whose rows are pictures).
pub fn misclassified(t: &Trainer, max: usize) -> Vec<Miss> {
    let Some(table) = t.config().table.as_ref().filter(|_| t.config().dataset == DatasetKind::Digits) else {
        return Vec::new();
    };
    let predicted = t.test_predictions();
    t.test_rows()
        .iter()
        .zip(predicted)
        .filter(|&(&row, &p)| table.y[row] != p)
        .take(max)
        .map(|(&row, &p)| Miss {
            row,
            truth: table.classes[usize::from(table.y[row])].clone(),
            predicted: table.classes.get(usize::from(p)).cloned().unwrap_or_default(),
            pixels: table.row(row).to_vec(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::bundled;
    use crate::train::{Net, TrainParams};
    use std::sync::Arc;

    fn trainer(hash: &str, epochs: usize) -> Trainer {
        let (mut p, problems) = TrainParams::parse(hash);
        assert!(problems.is_empty(), "{problems:?}");
        p.table = Some(Arc::new(bundled::load(p.dataset).unwrap()));
        let mut t = Trainer::new(p.config(Net::Quantized).unwrap()).unwrap();
        for _ in 0..epochs {
            t.step_epoch().unwrap();
        }
        t
    }

    #[test]
    fn the_confusion_names_its_classes_and_shares_each_row() {
        let t = trainer("#view=train&dataset=iris&hidden=4&optimizer=adam&lr=0.01&wq=&aq=", 2);
        let c = Confusion::of(&t).unwrap();
        assert_eq!((c.k(), c.epoch), (3, 2));
        assert_eq!(c.classes[0], "setosa");
        let (n, right) = c.totals();
        assert_eq!(n as usize, t.split_sizes().1);
        assert_eq!(f64::from(right) / f64::from(n), t.history().last().unwrap().test_acc.unwrap());
        for row in 0..3 {
            let shares: f64 = (0..3).map(|col| c.cell(row, col).1).sum();
            assert!((shares - 1.0).abs() < 1e-12 || shares == 0.0);
        }
    }

    #[test]
    fn generated_data_has_no_confusion_view_and_no_images() {
        let (p, _) = TrainParams::parse("#view=train&dataset=xor");
        let mut t = Trainer::new(p.config(Net::Quantized).unwrap()).unwrap();
        t.step_epoch().unwrap();
        assert_eq!(Confusion::of(&t), None);
        assert!(misclassified(&t, 10).is_empty());
    }

    #[test]
    fn the_misclassified_digits_are_the_test_images_whose_answer_differs() {
        let t = trainer("#view=train&dataset=digits&hidden=8&wq=&aq=", 1);
        let misses = misclassified(&t, 1000);
        let c = Confusion::of(&t).unwrap();
        let (n, right) = c.totals();
        assert_eq!(misses.len() as u32, n - right);
        assert!(!misses.is_empty());
        let m = &misses[0];
        assert_ne!(m.truth, m.predicted);
        assert_eq!(m.pixels.len(), DIGIT_SIDE * DIGIT_SIDE);
        assert_eq!(misclassified(&t, 3).len(), 3.min(misses.len()));
    }
}
