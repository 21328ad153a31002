//! A trainer's decision boundary as the handout's figure draws it ([`qscope_plot::boundary`]).

use qscope_nn::Trainer;
use qscope_plot::boundary::{Boundary, HI, LO, Point};

/// The trainer's current answer on a `res × res` grid over [`LO`, `HI`]² (along x1 for a 1-D
/// dataset), and its data.
pub fn boundary(trainer: &mut Trainer, res: usize) -> Boundary {
    let res = res.max(2);
    let scores = trainer.predict_grid(LO, HI, res);
    let two_d = trainer.config().dataset.dims() == 2;
    let data = trainer.dataset();
    let points = |ps: &[qscope_nn::Point]| ps.iter().map(|p| Point { x1: p.x1, x2: p.x2, label: p.label }).collect();
    Boundary { res, scores, two_d, train: points(&data.train), test: points(&data.test) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use qscope_nn::{Config, DatasetKind};

    fn trained(kind: DatasetKind) -> Trainer {
        let mut c = Config::new(kind);
        c.samples = 100;
        let mut t = Trainer::new(c).unwrap();
        t.step_epoch().unwrap();
        t
    }

    #[test]
    fn a_2d_dataset_gives_a_score_per_grid_point_and_every_point() {
        let mut t = trained(DatasetKind::Circle);
        let b = boundary(&mut t, 12);
        assert!(b.two_d);
        assert_eq!(b.scores.len(), 144);
        assert_eq!(b.train.len() + b.test.len(), 100);
        assert_eq!(b.train[0].label, t.dataset().train[0].label);
    }

    #[test]
    fn a_1d_dataset_gives_a_score_per_step_along_x1() {
        let mut t = trained(DatasetKind::Sine);
        let b = boundary(&mut t, 20);
        assert!(!b.two_d);
        assert_eq!(b.scores.len(), 20);
    }
}
