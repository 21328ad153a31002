//! The estimators beyond QKeras and Larq, checked against their definitions
//! (../shared/QUANTIZERS.md §5–7); they have no Python reference in our vectors.

use qscope_quant::{Ctx, parse};

fn eval(spec: &str, x: &[f32]) -> (Vec<f32>, Vec<f32>, qscope_quant::Report) {
    parse(spec).unwrap_or_else(|e| panic!("{spec}: {e}")).eval(x, &mut Ctx::training(0))
}

#[test]
fn softround_scales_the_gradient_by_x_over_round_x() {
    let (y, g, _) = eval("softround", &[1.5, 2.5, 0.3, 0.5, -0.7, 3.0]);
    assert_eq!(y, vec![2.0, 2.0, 0.0, 0.0, -1.0, 3.0]);
    assert_eq!(g, vec![0.75, 1.25, 0.0, 0.0, 0.7, 1.0]);
}

#[test]
fn softround_passes_gradient_one_at_zero_and_nan_at_infinity() {
    let (_, g, _) = eval("softround", &[0.0, -0.0, f32::INFINITY]);
    assert_eq!(&g[..2], &[1.0, 1.0]);
    assert!(g[2].is_nan());
}

#[test]
fn soft_round_is_exact_at_integers_and_steepest_at_half_integers() {
    let a = 5.0f32;
    let (y, g, _) = eval("soft_round(alpha=5.0)", &[-2.0, 0.0, 1.0, 0.5, 1.0001]);
    assert_eq!(&y[..3], &[-2.0, 0.0, 1.0]);
    let peak = a / (2.0 * (a / 2.0).tanh());
    assert!((g[3] - peak).abs() < 1e-5, "{} vs {peak}", g[3]);
    assert!((g[2] - a / a.sinh()).abs() < 1e-5, "{} vs {}", g[2], a / a.sinh());
}

#[test]
fn soft_round_is_the_identity_below_alpha_one_thousandth() {
    let (y, g, _) = eval("soft_round(alpha=0.0001)", &[0.3, -1.7]);
    assert_eq!(y, vec![0.3, -1.7]);
    assert_eq!(g, vec![1.0, 1.0]);
}

#[test]
fn soft_round_hard_rounds_forward_and_keeps_the_smooth_gradient() {
    let (y, g, _) = eval("soft_round(alpha=5.0, hard=True)", &[0.4, 0.5]);
    let (_, gs, _) = eval("soft_round(alpha=5.0)", &[0.4, 0.5]);
    assert_eq!(y, vec![0.0, 0.0]);
    assert_eq!(g, gs);
}

#[test]
fn identity_ste_rounds_ties_to_even_and_passes_gradient() {
    let (y, g, _) = eval("ste(step=0.25)", &[0.3, 0.375, 0.125, -0.625]);
    assert_eq!(y, vec![0.25, 0.5, 0.0, -0.5]);
    assert_eq!(g, vec![1.0; 4]);
}

#[test]
fn clipped_ste_cuts_the_gradient_outside_inclusive_bounds() {
    let (y, g, _) = eval("clipped_ste(step=0.5, min_value=-1.0, max_value=1.0)", &[-3.0, -1.0, 0.3, 1.0, 1.2]);
    assert_eq!(y, vec![-1.0, -1.0, 0.5, 1.0, 1.0]);
    assert_eq!(g, vec![0.0, 1.0, 1.0, 1.0, 0.0]);
}

#[test]
fn lsq_forward_clips_codes_and_backward_gives_the_step_gradient() {
    let x = [1.0f32, -1.0, 0.26, 0.0];
    let (y, g, r) = eval("lsq(bits=4, step=0.1, grad_scale=False)", &x);
    assert_eq!(y, vec![0.1f32 * 7.0, 0.1 * -8.0, 0.1 * 3.0, 0.0]);
    assert_eq!(g, vec![0.0, 0.0, 1.0, 1.0]);
    let u = 0.26f32 / 0.1;
    let expected = 7.0 - 8.0 + (3.0 - u) + 0.0;
    assert_eq!(r.param_grads, vec![("step", expected)]);
}

#[test]
fn lsq_scales_the_step_gradient_by_one_over_sqrt_n_qp() {
    let x = [1.0f32, -1.0, 0.26, 0.0];
    let (_, _, plain) = eval("lsq(bits=4, step=0.1, grad_scale=False)", &x);
    let (_, _, scaled) = eval("lsq(bits=4, step=0.1)", &x);
    let g = 1.0 / (4.0f32 * 7.0).sqrt();
    assert!((scaled.param_grads[0].1 - plain.param_grads[0].1 * g).abs() < 1e-6);
}

#[test]
fn lsq_initialises_the_step_from_the_data() {
    let x = [0.5f32, -1.5, 1.0, 0.0];
    let (_, _, r) = eval("lsq(bits=3)", &x);
    assert_eq!(r.scale, Some(2.0 * 0.75 / 3.0f32.sqrt()));
}

#[test]
fn pact_clips_to_alpha_and_sends_the_clipped_part_to_alpha() {
    let (y, g, r) = eval("pact(bits=2, alpha=3.0)", &[-1.0, 0.0, 1.4, 3.0, 7.0]);
    assert_eq!(y, vec![0.0, 0.0, 1.0, 3.0, 3.0]);
    assert_eq!(g, vec![0.0, 1.0, 1.0, 0.0, 0.0]);
    assert_eq!(r.param_grads, vec![("alpha", 2.0)]);
}

#[test]
fn fake_quantize_masks_on_the_unclamped_code() {
    let (y, g, _) =
        eval("fake_quantize(scale=0.1, zero_point=3, quant_min=0, quant_max=15)", &[1.25, 1.27, -0.3, -0.36]);
    assert_eq!(y[0], (15.0f32 - 3.0) * 0.1);
    assert_eq!(g, vec![1.0, 0.0, 1.0, 0.0]);
}

#[test]
fn fake_quantize_saturates_infinities_and_sends_nan_to_quant_min() {
    let (y, g, _) = eval("fake_quantize(0.1, 3, 0, 15)", &[f32::NAN, f32::INFINITY, f32::NEG_INFINITY]);
    assert_eq!(y, vec![(0.0f32 - 3.0) * 0.1, (15.0f32 - 3.0) * 0.1, (0.0f32 - 3.0) * 0.1]);
    assert_eq!(g, vec![0.0, 0.0, 0.0]);
}
