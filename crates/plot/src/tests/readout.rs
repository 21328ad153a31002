//! Reading curves at one x (the crosshair), and the mean and spread of random curves.

use super::super::*;
use super::curve;
use qscope_quant::{Ctx, parse};

#[test]
fn readings_are_exact_at_ties_and_between_samples_of_a_staircase() {
    let curves = [curve("qkeras.quantized_bits(4,0,1)"), curve("larq.ste_sign"), curve("qkeras.binary_tanh")];
    let y = |x: f32| read_at(&curves, x).iter().map(|r| r.y).collect::<Vec<f32>>();
    // Ties, owned as the quantizers own them.
    assert_eq!(y(0.0625), [0.0, 1.0, 1.0]);
    assert_eq!(y(0.1875), [0.25, 1.0, 1.0]);
    assert_eq!(y(0.0), [0.0, 1.0, -1.0]);
    // Just beside a jump, between two samples: the level on that side.
    assert_eq!(y(0.18749999)[0], 0.125);
    assert_eq!(y(-0.0001), [0.0, -1.0, -1.0]);
    assert_eq!(y(0.0001), [0.0, 1.0, 1.0]);
    // The gradient of the estimator.
    assert_eq!(read_at(&curves, 1.5).iter().map(|r| r.dydx).collect::<Vec<_>>(), [1.0, 0.0, 0.0]);
}

#[test]
fn readings_interpolate_continuous_curves_and_skip_hidden_and_out_of_range_ones() {
    let mut curves = [curve("qkeras.hard_tanh"), curve("larq.ste_sign")];
    let r = read_at(&curves, 0.3001);
    assert!((r[0].y - 0.3001).abs() < 1e-5, "{r:?}");
    curves[1].hidden = true;
    let r = read_at(&curves, 0.5);
    assert_eq!(r.len(), 1);
    assert_eq!((r[0].index, r[0].label.as_str()), (0, curves[0].label.as_str()));
    assert!(read_at(&curves, 2.5).is_empty());
    assert!(read_at(&curves, f32::NAN).is_empty());
}

#[test]
fn random_curves_are_means_with_a_percentile_band() {
    let q = parse("qkeras.stochastic_round").unwrap();
    let (c, report) = Curve::evaluate(&q, -2.0, 2.0, SAMPLES, &mut Ctx::training(0));
    assert!(report.stochastic);
    let s = c.spread.as_ref().expect("a band");
    assert_eq!(s.draws, DRAWS);
    // Stochastic rounding to halves is unbiased: the mean follows x within 6 standard errors
    // (a draw's spread is at most ¼, the mean's ¼/√DRAWS).
    let se = 0.25 / (DRAWS as f32).sqrt();
    assert!(c.x.iter().zip(&c.y).all(|(x, y)| (y - x).abs() <= 6.0 * se));
    // The band spans the levels around x (rare draws outside it move the mean a little) …
    for i in 0..c.x.len() {
        assert!(s.lo[i] - 6.0 * se <= c.y[i] && c.y[i] <= s.hi[i] + 6.0 * se, "x = {}", c.x[i]);
    }
    // … both of them where x is inside (0.1, 0.9) of a step.
    let i = c.x.iter().position(|&x| x == 0.25).unwrap();
    assert_eq!((s.lo[i], s.hi[i]), (0.0, 0.5));
    // The same seed gives the same curve.
    let (again, _) = Curve::evaluate(&q, -2.0, 2.0, SAMPLES, &mut Ctx::training(0));
    assert_eq!(again, c);
}

#[test]
fn a_random_evaluator_can_be_sampled_directly() {
    // A fair coin between 0 and 1 at every x: mean ½, band [0, 1].
    let mut state = 1u64;
    let c = Curve::sample_draws("coin", 0.0, 1.0, 11, 64, |x| {
        let y = x
            .iter()
            .map(|_| {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (state >> 63) as f32
            })
            .collect();
        (y, vec![1.0; x.len()])
    });
    let s = c.spread.unwrap();
    assert!(c.y.iter().all(|m| (m - 0.5).abs() < 0.3));
    assert!(s.lo.iter().all(|&v| v == 0.0) && s.hi.iter().all(|&v| v == 1.0));
    assert!(c.dydx.iter().all(|&g| g == 1.0));
}
