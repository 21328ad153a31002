//! Reference-vector files (`tests/conformance/*.txt`, `tests/snippets/*.txt`): parsing and
//! float comparison, shared by the native conformance and snippet tests and the browser tests.
#![allow(dead_code)]

/// The conformance files, as build.rs finds them in `tests/conformance/`: `(name, text)`.
pub mod files {
    include!(concat!(env!("OUT_DIR"), "/conformance.rs"));
}

/// Whether a file's cases are compared bit for bit (`# compare: bits` in its header) rather than
/// within the libraries' tolerances (transcendental functions: 1 ulp forward, 4 ulp or 5e−7
/// for gradients; stochastic cases as means).
pub fn bit_exact(text: &str) -> bool {
    text.lines().take_while(|l| l.starts_with('#')).any(|l| l.starts_with("# compare: bits"))
}

#[derive(Debug, Default)]
pub struct Case {
    pub spec: String,
    pub training: bool,
    pub stochastic: bool,
    pub samples: usize,
    pub x: Vec<f32>,
    pub y: Vec<f32>,
    pub yvar: Vec<f32>,
    pub dydx: Vec<f32>,
    /// The tensor's shape (`shaped.txt`); empty: a 1-D tensor given as `(N, 1)`.
    pub shape: Vec<usize>,
    /// Snippet files: the language, framework version and hash of the snippet text…
    pub lang: String,
    pub version: String,
    pub hash: String,
    /// …what the snippet raised, if it did…
    pub error: String,
    /// …and d(Σy)/dθ per learnable parameter θ (means for a stochastic case).
    pub grads: Vec<(String, Vec<f32>)>,
    pub line: usize,
}

fn numbers(rest: &str, line: usize) -> Vec<f32> {
    rest.split_whitespace()
        .map(|t| match t {
            "nan" => f32::NAN,
            "-nan" => -f32::NAN,
            "inf" => f32::INFINITY,
            "-inf" => f32::NEG_INFINITY,
            _ => t.parse().unwrap_or_else(|_| panic!("line {line}: bad number '{t}'")),
        })
        .collect()
}

/// Parses a vector file's text.
pub fn parse_cases(text: &str) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut cur: Option<Case> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        if raw.starts_with('#') || raw.trim().is_empty() {
            continue;
        }
        let (key, rest) = raw.split_once(' ').unwrap_or((raw, ""));
        match key {
            "case" => cur = Some(Case { spec: rest.to_string(), line, ..Case::default() }),
            "end" => cases.push(cur.take().unwrap_or_else(|| panic!("line {line}: 'end' without 'case'"))),
            _ => {
                let c = cur.as_mut().unwrap_or_else(|| panic!("line {line}: '{key}' outside a case"));
                match key {
                    "mode" => c.training = rest == "train",
                    "kind" => c.stochastic = rest == "stochastic",
                    "samples" => c.samples = rest.parse().expect("samples"),
                    "x" => c.x = numbers(rest, line),
                    "y" => c.y = numbers(rest, line),
                    "yvar" => c.yvar = numbers(rest, line),
                    "dydx" => c.dydx = numbers(rest, line),
                    "shape" => c.shape = rest.split_whitespace().map(|d| d.parse().expect("shape")).collect(),
                    "lang" => c.lang = rest.to_string(),
                    "version" => c.version = rest.to_string(),
                    "hash" => c.hash = rest.to_string(),
                    "error" => c.error = rest.to_string(),
                    "grad" => {
                        let (name, values) = rest.split_once(' ').unwrap_or((rest, ""));
                        c.grads.push((name.to_string(), numbers(values, line)));
                    }
                    _ => panic!("line {line}: unknown key '{key}'"),
                }
            }
        }
    }
    assert!(!cases.is_empty(), "no cases");
    cases
}

/// Distance in units in the last place (±0 are equal, NaN only matches NaN).
pub fn ulps(a: f32, b: f32) -> u64 {
    if a.is_nan() || b.is_nan() {
        return if a.is_nan() && b.is_nan() { 0 } else { u64::MAX };
    }
    let key = |v: f32| {
        let i = v.to_bits() as i32;
        if i < 0 { i64::from(i32::MIN) - i64::from(i) } else { i64::from(i) }
    };
    key(a).abs_diff(key(b))
}

/// Gradients agree up to the libraries' transcendental functions.
pub fn grad_close(a: f32, b: f32) -> bool {
    ulps(a, b) <= 4 || (a - b).abs() <= 5e-7
}

/// The same bits, or both NaN (SIMD and scalar NaN payloads may differ).
pub fn same_bits(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// How many ulps a forward value may differ from the library's. Data-dependent means
/// (least-squares scales, mean|x|, TWN thresholds) are summed by TensorFlow's threaded
/// Eigen reduction in an order qscope does not always replicate: those outputs agree
/// within 8 ulp.
pub fn forward_tolerance(spec: &str) -> u64 {
    let data_dependent_mean = ["'auto", "MagnitudeAwareSign", "ternary_weight_networks=True", "stochastic_ternary"];
    if data_dependent_mean.iter().any(|p| spec.contains(p)) { 8 } else { 1 }
}

/// `q` on a case's tensor: of its shape, as the library gives a weight of that shape, or 1-D.
pub fn eval_case(q: &qscope_quant::Quantizer, c: &Case, ctx: &mut qscope_quant::Ctx) -> (Vec<f32>, Vec<f32>) {
    if c.shape.len() < 2 {
        let (y, g, _) = q.eval(&c.x, ctx);
        return (y, g);
    }
    let (mut y, mut g) = (vec![0.0; c.x.len()], vec![0.0; c.x.len()]);
    q.apply_shaped(&c.x, &qscope_quant::shaped::Shape::new(c.shape.clone()), &mut y, Some(&mut g), ctx);
    (y, g)
}

/// Checks one deterministic case; returns one message per disagreement.
///
/// Two documented allowances, each checked, not assumed:
/// - at ±inf qscope returns the saturated value (its own value at ±f32::MAX) where the
///   library's `x + (q − x)` arithmetic produces NaN or an artefact;
/// - TensorFlow's float32 sigmoid is not the one qscope evaluates: with
///   `use_real_sigmoid=True` a rounding tie may fall one or two ulps of x away, so the
///   library's value must be qscope's value at a neighbouring float.
pub fn check_case(q: &qscope_quant::Quantizer, c: &Case) -> Vec<String> {
    use qscope_quant::Ctx;
    let ctx = || if c.training { Ctx::training(1) } else { Ctx::inference(1) };
    let (y, g) = eval_case(q, c, &mut ctx());
    let tol = forward_tolerance(&c.spec);
    let single = |x: f32| q.eval(&[x], &mut ctx()).0[0];
    let mut errs = Vec::new();
    for i in 0..c.x.len() {
        let x = c.x[i];
        let mut ok = ulps(y[i], c.y[i]) <= tol;
        if !ok && x.is_infinite() {
            ok = same_bits(y[i], single(f32::MAX.copysign(x)));
        }
        if !ok && c.spec.contains("use_real_sigmoid=True") {
            let near = [x.next_up(), x.next_down(), x.next_up().next_up(), x.next_down().next_down()];
            ok = near.iter().any(|&n| same_bits(single(n), c.y[i]));
        }
        if !ok {
            errs.push(format!("line {}: {}: x={} y={} expected {}", c.line, c.spec, x, y[i], c.y[i]));
        }
        // At ±inf the saturated value was accepted above; its gradient is the saturated one too.
        let grad_ok = grad_close(g[i], c.dydx[i]) || (x.is_infinite() && ok);
        if !grad_ok {
            errs.push(format!("line {}: {}: x={} dydx={} expected {}", c.line, c.spec, x, g[i], c.dydx[i]));
        }
    }
    errs
}

/// Checks one stochastic case: qscope's means over at least 1000 draws (seed 7) of y, dydx
/// and each parameter gradient (by qscope's name) within six standard errors of the library's
/// means over `samples` draws; returns one message per disagreement.
pub fn check_stochastic(q: &qscope_quant::Quantizer, c: &Case) -> Vec<String> {
    use qscope_quant::Ctx;
    let mut ctx = if c.training { Ctx::training(7) } else { Ctx::inference(7) };
    let m = c.samples.max(1000);
    let n = c.x.len();
    // Running sums of value and square: y, dydx, then each parameter gradient.
    let mut sums = vec![(0.0f64, 0.0f64); 2 * n + c.grads.len()];
    for _ in 0..m {
        let (y, g, report) = q.eval(&c.x, &mut ctx);
        let params = c
            .grads
            .iter()
            .map(|(name, _)| report.param_grads.iter().find(|(p, _)| p == name).map_or(f32::NAN, |(_, v)| *v));
        for (s, v) in sums.iter_mut().zip(y.into_iter().chain(g).chain(params)) {
            s.0 += v as f64;
            s.1 += (v as f64).powi(2);
        }
    }
    let moments = |i: usize| {
        let mean = sums[i].0 / m as f64;
        (mean, (sums[i].1 / m as f64 - mean * mean).max(0.0))
    };
    let s = c.samples.max(1) as f64;
    let mut errs = Vec::new();
    for i in 0..n {
        let ((my, var_y), (mg, var_g)) = (moments(i), moments(n + i));
        let lib_var = c.yvar.get(i).copied().unwrap_or(0.0) as f64;
        let tol_y = 6.0 * (lib_var / s + var_y / m as f64).sqrt() + 1e-5 * (1.0 + my.abs());
        let tol_g = 6.0 * (2.0 * var_g / m as f64).sqrt() + 1e-5 * (1.0 + mg.abs());
        if (my - c.y[i] as f64).abs() > tol_y {
            errs.push(format!("line {}: {}: x={} mean y={my} expected {} (±{tol_y})", c.line, c.spec, c.x[i], c.y[i]));
        }
        if (mg - c.dydx[i] as f64).abs() > tol_g {
            errs.push(format!("line {}: {}: x={} mean dydx={mg} expected {}", c.line, c.spec, c.x[i], c.dydx[i]));
        }
    }
    for (k, (name, want)) in c.grads.iter().enumerate() {
        let (mean, var) = moments(2 * n + k);
        let tol = 6.0 * (2.0 * var / m as f64).sqrt() + 1e-5 * (1.0 + mean.abs());
        // A NaN mean or gradient is never within.
        let within = want.len() == 1 && (mean - want[0] as f64).abs() <= tol;
        if !within {
            errs.push(format!("line {}: {}: mean d(sum y)/d{name}={mean} expected {want:?}", c.line, c.spec));
        }
    }
    errs
}
