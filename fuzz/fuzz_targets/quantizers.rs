//! Every quantizer of the catalogue, configured with arbitrary parameter values (NaN, ±inf,
//! huge, out of range, wrong types: `set` and `validate` must refuse them with a message), on
//! arbitrary floats (NaN, ±inf, subnormals, huge), in training and inference: forward,
//! gradient, forward-only, row-wise, levels, the frozen form and the parameter gradients must
//! never panic. Laws checked: a configuration that validates prints to a spec that parses
//! back to it; the forward-only pass gives the forward values of the forward+gradient pass
//! bit for bit; every output has a gradient.
#![no_main]

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use qscope_quant::{Ctx, ENTRIES, Kind, Literal, Quantizer, parse};

/// The most elements evaluated (a few blocks of every block format).
const MAX_N: usize = 300;

/// Floats a quantizer finds hard, besides arbitrary bit patterns.
const EDGES: [f64; 14] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    1e-45,
    1e-300,
    1e38,
    3.5e38,
    1e300,
    f64::MAX,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
];

fn float(u: &mut Unstructured) -> Result<f64> {
    Ok(match u.int_in_range(0..=3)? {
        0 => EDGES[u.choose_index(EDGES.len())?] * if u.arbitrary()? { -1.0 } else { 1.0 },
        1 => f64::from(u.int_in_range(-64i32..=64)?) / 8.0,
        2 => f64::from(f32::from_bits(u.arbitrary()?)),
        _ => f64::from_bits(u.arbitrary()?),
    })
}

fn int(u: &mut Unstructured) -> Result<i64> {
    Ok(match u.int_in_range(0..=2)? {
        0 => u.int_in_range(-3..=40)?,
        1 => [i64::MIN, i64::MAX, i64::from(i32::MIN), i64::from(i32::MAX), 1 << 40][u.choose_index(5)?],
        _ => u.arbitrary()?,
    })
}

/// A value for a parameter of `kind`: mostly of its kind, sometimes of another.
fn literal(kind: &Kind, u: &mut Unstructured) -> Result<Literal> {
    Ok(match (u.int_in_range(0..=9)?, kind) {
        (0, _) => Literal::Int(int(u)?),
        (1, _) => Literal::Float(float(u)?),
        (2, _) => Literal::Bool(u.arbitrary()?),
        (3, _) => Literal::None,
        (4, _) => Literal::Str(u.arbitrary::<&str>()?.to_string()),
        (5, _) => Literal::List((0..u.int_in_range(0..=3)?).map(|_| float(u)).collect::<Result<_>>()?),
        (_, Kind::Choice(c)) => Literal::Str(c[u.choose_index(c.len())?].to_string()),
        (_, Kind::Alpha | Kind::AutoScale { .. }) => Literal::Str(["auto", "auto_po2"][u.choose_index(2)?].to_string()),
        (_, Kind::Bool) => Literal::Bool(u.arbitrary()?),
        (_, Kind::Int { min, max } | Kind::OptInt { min, max }) => {
            Literal::Int(u.int_in_range(*min.max(&-1000)..=*max.min(&1000))?)
        }
        (_, Kind::Float { min, max, .. } | Kind::OptFloat { min, max }) => {
            let t: f64 = f64::from(u.int_in_range(0u16..=1024)?) / 1024.0;
            Literal::Float(min.max(-1e6) + t * (max.min(1e6) - min.max(-1e6)))
        }
        _ => Literal::Float(float(u)?),
    })
}

fn quantizer(u: &mut Unstructured) -> Result<Quantizer> {
    let entry = &ENTRIES[u.choose_index(ENTRIES.len())?];
    let mut q = (entry.default)();
    for p in entry.params {
        if u.arbitrary()? {
            // A refused value leaves the parameter as it was.
            let _ = q.set(p.name, &literal(&p.kind, u)?);
        }
    }
    Ok(q)
}

fn same_bits(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
}

fn run(u: &mut Unstructured) -> Result<()> {
    let q = quantizer(u)?;
    if q.validate().is_err() {
        return Ok(());
    }
    let printed = q.to_string();
    match parse(&printed) {
        Ok(again) => assert_eq!(again, q, "{q:?} prints as {printed:?}, which parses to another quantizer"),
        Err(e) => panic!("{q:?} prints as {printed:?}, which does not parse: {}", e.message),
    }
    let training: bool = u.arbitrary()?;
    if q.unsupported(training).is_some() {
        return Ok(());
    }
    let seed: u64 = u.arbitrary()?;
    let n = u.int_in_range(0..=MAX_N)?;
    let mut x = Vec::with_capacity(n);
    for _ in 0..n {
        if u.is_empty() {
            break;
        }
        x.push(float(u)? as f32);
    }
    let ctx = || if training { Ctx::training(seed) } else { Ctx::inference(seed) };
    let (y, g, report) = q.eval(&x, &mut ctx());
    assert_eq!((y.len(), g.len()), (x.len(), x.len()));
    let mut y_only = vec![0.0; x.len()];
    q.apply(&x, &mut y_only, None, &mut ctx());
    assert!(same_bits(&y, &y_only), "{printed}: the forward-only pass differs on {x:?}: {y:?} vs {y_only:?}");

    let levels = q.levels(&report);
    let _ = (levels.count(), levels.bounds(), levels.list(64), q.bits_per_element(&report));
    for &v in y.iter().take(8) {
        let _ = (levels.nearest(v), levels.contains(v));
    }
    for name in q.learnable() {
        let _ = q.weighted_grad(name, &x, &g);
    }
    let frozen = q.freeze(&report);
    let (fy, fg) = frozen.eval(&x, &mut ctx());
    assert_eq!((fy.len(), fg.len()), (x.len(), x.len()));
    let _ = (frozen.levels(&report), frozen.describe());

    if !x.is_empty() {
        let row_len = u.int_in_range(1..=x.len())?;
        let rows = x.len() / row_len * row_len;
        let mut ry = vec![0.0; rows];
        let mut rg = vec![0.0; rows];
        q.apply_rows(&x[..rows], row_len, &mut ry, Some(&mut rg), &mut ctx());
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let _ = run(&mut Unstructured::new(data));
});
