//! Jumps are located to the float, and the side that owns each is the side of the rounder
//! number: round-half-to-even alternates, `sign(0) = +1` owns the top.

use super::super::*;
use qscope_quant::{Ctx, parse};

/// A spec's curve sampled point by point (its jumps located).
fn sampled(spec: &str) -> Curve {
    let q = parse(spec).expect("spec parses");
    Curve::sample(q.to_string(), -2.0, 2.0, SAMPLES, |x| {
        let (y, g, _) = q.eval(x, &mut Ctx::training(0));
        (y, g)
    })
}

/// `q` at one point.
fn at(spec: &str, x: f32) -> f32 {
    parse(spec).unwrap().eval(&[x], &mut Ctx::training(0)).0[0]
}

fn next_up(v: f32) -> f32 {
    from_key(key(v) + 1)
}

#[test]
fn keys_order_floats_and_step_one_float_at_a_time() {
    for v in [-1.5f32, -1e-45, 0.0, 1e-45, 0.1, 0.5, 3.0e38] {
        assert_eq!(from_key(key(v)), v);
        assert!(next_up(v) > v, "{v}");
    }
    assert_eq!(key(-0.0), key(0.0));
    assert_eq!(next_up(-1e-45), 0.0);
    assert_eq!(next_up(0.0), 1e-45);
    assert_eq!(next_up(0.5), 0.5 + f32::EPSILON / 2.0);
}

#[test]
fn rounder_numbers_have_fewer_significant_bits() {
    assert_eq!(significant_bits(0.0), 0);
    assert_eq!(significant_bits(0.5), 1);
    assert_eq!(significant_bits(-4.0), 1);
    assert_eq!(significant_bits(0.1875), 2); // 0.0011₂
    assert_eq!(significant_bits(0.75), 2);
    assert_eq!(significant_bits(from_key(key(0.5) - 1)), 24); // 0.49999997
    assert_eq!(significant_bits(1e-45), 1); // the smallest subnormal
}

#[test]
fn quantized_bits_jumps_sit_on_the_ties_and_alternate_owners() {
    let spec = "qkeras.quantized_bits(4,0,1)";
    let c = sampled(spec);
    // 15 levels: 14 jumps, at ±(k + ½)/8 for k = 0…6.
    let xs: Vec<f32> = c.jumps.iter().map(|j| j.x).collect();
    let mut ties: Vec<f32> = (0..7).flat_map(|k| [-(k as f32 + 0.5) / 8.0, (k as f32 + 0.5) / 8.0]).collect();
    ties.sort_by(f32::total_cmp);
    assert_eq!(xs, ties);
    for j in &c.jumps {
        // a and b are adjacent floats, the jump is on one of them, and the values are q's.
        assert_eq!(key(j.b), key(j.a) + 1);
        assert!(j.x == j.a || j.x == j.b);
        assert_eq!((j.left, j.right), (at(spec, j.a), at(spec, j.b)));
        assert_eq!(j.value(), at(spec, j.x), "q at the jump {}", j.x);
        assert_ne!(j.value(), j.excluded());
        assert!(c.x[j.interval] <= j.a && j.b <= c.x[j.interval + 1]);
    }
    let jump = |x: f32| *c.jumps.iter().find(|j| j.x == x).unwrap();
    // 0.0625 = ½Δ rounds to even 0: the left owns it. 0.1875 = 1.5Δ rounds to 2Δ: the right.
    assert_eq!((jump(0.0625).owner, jump(0.0625).value(), jump(0.0625).excluded()), (Side::Left, 0.0, 0.125));
    assert_eq!((jump(0.1875).owner, jump(0.1875).value()), (Side::Right, 0.25));
    assert_eq!((jump(0.3125).owner, jump(0.3125).value()), (Side::Left, 0.25));
    // −0.0625 = −½Δ rounds to 0, the level on its right.
    assert_eq!((jump(-0.0625).owner, jump(-0.0625).value()), (Side::Right, 0.0));
    assert_eq!((jump(-0.1875).owner, jump(-0.1875).value()), (Side::Left, -0.25));
}

#[test]
fn signs_differ_in_who_owns_zero() {
    // (spec, where the jump is, its owner, q there, the other value)
    for (spec, x, owner, value, other) in [
        ("larq.ste_sign", 0.0, Side::Right, 1.0, -1.0),
        ("larq.SteHeaviside", 0.0, Side::Left, 0.0, 1.0),
        // binary_tanh rounds 0.5 + 0.5·x in float32: up to x = 2⁻²⁴ that is still 0.5, which
        // rounds to even 0, so −1 holds from 0 up to and including 2⁻²⁴.
        ("qkeras.binary_tanh", 2f32.powi(-24), Side::Left, -1.0, 1.0),
    ] {
        let c = sampled(spec);
        assert_eq!(c.jumps.len(), 1, "{spec}: {:?}", c.jumps);
        let j = c.jumps[0];
        assert_eq!(j.x, x, "{spec}");
        assert_eq!((j.owner, j.value(), j.excluded()), (owner, value, other), "{spec}");
        let beside = if owner == Side::Left { next_up(x) } else { from_key(key(x) - 1) };
        assert_eq!((at(spec, x), at(spec, beside)), (value, other), "{spec}");
    }
    assert_eq!(at("qkeras.binary_tanh", 0.0), -1.0);
}

#[test]
fn continuous_curves_have_no_jumps() {
    for spec in ["qkeras.hard_tanh", "soft_round(alpha=8)", "larq.NoOp", "qkeras.smooth_sigmoid"] {
        let c = sampled(spec);
        assert!(c.jumps.is_empty(), "{spec}: {:?}", &c.jumps[..c.jumps.len().min(3)]);
    }
    let c = Curve::sample("tanh(40x)", -2.0, 2.0, SAMPLES, |x| {
        (x.iter().map(|v| (40.0 * v).tanh()).collect(), vec![0.0; x.len()])
    });
    assert!(c.jumps.is_empty());
}

#[test]
fn a_jump_on_a_slope_is_found_and_the_slope_is_not() {
    // x + [x ≥ 0.3]: a unit jump at the float nearest 0.3, on a line of slope 1.
    let f = |x: &[f32]| -> (Vec<f32>, Vec<f32>) {
        (x.iter().map(|&v| v + if v >= 0.3 { 1.0 } else { 0.0 }).collect(), vec![1.0; x.len()])
    };
    let c = Curve::sample("step on a ramp", -2.0, 2.0, SAMPLES, f);
    assert_eq!(c.jumps.len(), 1, "{:?}", c.jumps);
    let j = c.jumps[0];
    assert_eq!(j.b, 0.3f32);
    assert_eq!((j.left, j.right), (j.a, 1.3f32));
    // The true derivative is the slope, 1, except where the jump sits.
    let off = c.true_dydx.iter().enumerate().filter(|(_, d)| (**d - 1.0).abs() > 1e-3).count();
    assert_eq!(off, 0, "{:?}", &c.true_dydx[j.interval - 1..j.interval + 3]);
}

#[test]
fn bisections_run_side_by_side() {
    // Every interval of a fine staircase is bisected in the same calls: at most 32 of them.
    let x = linspace(-2.0, 2.0, SAMPLES);
    let y: Vec<f32> = x.iter().map(|v| (v * 64.0).round_ties_even()).collect();
    let mut calls = 0;
    let jumps = find_jumps(&x, &y, &mut |p: &[f32]| {
        calls += 1;
        p.iter().map(|v| (v * 64.0).round_ties_even()).collect()
    });
    assert_eq!(jumps.len(), 256);
    assert!(calls <= 32, "{calls} calls");
    // Ties at (k + ½)/64 belong to the even neighbour.
    assert!(jumps.iter().all(|j| j.value() == (j.x * 64.0).round_ties_even()));
}

#[test]
fn the_true_derivative_of_a_staircase_is_zero_between_its_jumps() {
    let c = sampled("qkeras.quantized_bits(4,0,1)");
    assert_eq!(c.true_dydx.len(), c.x.len());
    assert!(c.true_dydx.iter().all(|&d| d == 0.0));
    let t = sampled("qkeras.hard_tanh");
    let d = |x: f32| t.true_dydx[t.x.iter().position(|&v| v == x).unwrap()];
    assert_eq!((d(-1.5), d(1.5)), (0.0, 0.0));
    assert!((d(0.0) - 1.0).abs() < 1e-4, "{}", d(0.0));
}

#[test]
fn data_dependent_quantizers_get_jumps_only_once_frozen() {
    // Evaluated as one tensor, alpha='auto' takes its scale from the sweep: no point-by-point
    // evaluation, no located jumps.
    let q = parse("qkeras.quantized_bits(4,0,1,alpha='auto')").unwrap();
    let (c, report) = Curve::evaluate(&q, -2.0, 2.0, SAMPLES, &mut Ctx::training(0));
    assert!(c.jumps.is_empty() && c.true_dydx.is_empty());
    // The same scale frozen as QKeras' post_training_scale computes point by point.
    let frozen = format!("qkeras.quantized_bits(4,0,1,alpha='auto',post_training_scale={})", report.scale.unwrap());
    let q = parse(&frozen).unwrap();
    let (f, _) = Curve::evaluate(&q, -2.0, 2.0, SAMPLES, &mut Ctx::training(0));
    assert_eq!(f.y, c.y);
    assert_eq!(f.jumps.len(), 14);
}
