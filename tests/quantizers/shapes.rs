//! Shaped tensors: every quantizer of the catalogue, in its default and its data-dependent
//! configurations, gives a weight of several dimensions exactly what its layout says — elementwise
//! and per-tensor quantizers as the flattened tensor, per-channel ones each channel as a tensor of
//! its own, block and group formats row by row along the channel axis.

use qscope_quant::shaped::Shape;
use qscope_quant::{Ctx, ENTRIES, Layout, Quantizer, parse};

/// Deterministic weight-like values, each output channel (last axis of 5) with its own spread.
fn weight(n: usize) -> Vec<f32> {
    (0..n).map(|i| ((i * 7919 % 97) as f32 / 48.0 - 1.0) * (1.0 + (i % 5) as f32)).collect()
}

fn shaped(q: &Quantizer, x: &[f32], shape: &Shape) -> (Vec<f32>, Vec<f32>) {
    let (mut y, mut g) = (vec![0.0; x.len()], vec![0.0; x.len()]);
    q.apply_shaped(x, shape, &mut y, Some(&mut g), &mut Ctx::inference(3));
    (y, g)
}

/// What the layout says the shaped run gives, computed without `apply_shaped`.
fn by_layout(q: &Quantizer, x: &[f32], shape: &Shape) -> (Vec<f32>, Vec<f32>) {
    let n = x.len();
    let (mut y, mut g) = (vec![0.0; n], vec![0.0; n]);
    match q.layout() {
        Layout::Elementwise | Layout::Flat => {
            q.apply(x, &mut y, Some(&mut g), &mut Ctx::inference(3));
        }
        Layout::Rows => {
            q.apply_rows(x, shape.channels(), &mut y, Some(&mut g), &mut Ctx::inference(3));
        }
        Layout::Channels => {
            let mut ctx = Ctx::inference(3);
            for c in 0..shape.channels() {
                let idx: Vec<usize> = shape.channel_indices(n, c).collect();
                let xc: Vec<f32> = idx.iter().map(|&i| x[i]).collect();
                let (yc, gc, _) = q.eval(&xc, &mut ctx);
                for (k, &i) in idx.iter().enumerate() {
                    y[i] = yc[k];
                    g[i] = gc[k];
                }
            }
        }
    }
    (y, g)
}

fn same(a: &[f32], b: &[f32]) -> bool {
    a.iter().zip(b).all(|(a, b)| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()))
}

#[test]
fn every_catalogue_default_follows_its_layout_on_a_weight() {
    let x = weight(4 * 8 * 5);
    let shape = Shape::new(vec![4, 8, 5]);
    for e in ENTRIES.iter() {
        let q = (e.default)();
        if q.is_stochastic(false) {
            continue;
        }
        let (got, want) = (shaped(&q, &x, &shape), by_layout(&q, &x, &shape));
        assert!(same(&got.0, &want.0) && same(&got.1, &want.1), "{q}: {:?}", q.layout());
    }
}

#[test]
fn the_data_dependent_configurations_have_the_layout_of_their_library() {
    for (spec, layout) in [
        ("qkeras.quantized_bits(4,0,1,alpha='auto')", Layout::Channels),
        ("qkeras.quantized_bits(4,0,1,alpha='auto_po2')", Layout::Channels),
        ("qkeras.quantized_bits(4,0,1,alpha=1)", Layout::Elementwise),
        ("qkeras.binary(alpha='auto')", Layout::Channels),
        ("qkeras.ternary(alpha='auto')", Layout::Channels),
        ("larq.MagnitudeAwareSign", Layout::Channels),
        ("larq.SteTern(ternary_weight_networks=True)", Layout::Flat),
        ("larq.DoReFa(k_bit=2, mode='weights')", Layout::Flat),
        ("torchao.float8", Layout::Flat),
        ("bnb.nf4", Layout::Flat),
        ("torchao.mx(elem_dtype='fp4_e2m1')", Layout::Rows),
        ("torchao.nvfp4", Layout::Rows),
        ("torchao.affine(group_size=8)", Layout::Rows),
        ("lsq(bits=4)", Layout::Flat),
    ] {
        let q = parse(spec).unwrap();
        assert_eq!(q.layout(), layout, "{spec}");
        let x = weight(6 * 40);
        let shape = Shape::new(vec![6, 40]);
        let (got, want) = (shaped(&q, &x, &shape), by_layout(&q, &x, &shape));
        assert!(same(&got.0, &want.0) && same(&got.1, &want.1), "{spec}");
    }
}

#[test]
fn another_channel_axis_is_a_transpose_before_the_library() {
    // A (6, 40) weight with axis 0 is its (40, 6) transpose with the last axis.
    let x = weight(240);
    let t: Vec<f32> = (0..240).map(|k| x[(k % 6) * 40 + k / 6]).collect();
    for spec in ["qkeras.quantized_bits(4,0,1,alpha='auto')", "torchao.affine(group_size=8)", "larq.MagnitudeAwareSign"]
    {
        let q = parse(spec).unwrap();
        let (y0, g0) = shaped(&q, &x, &Shape::new(vec![6, 40]).with_axis(0).unwrap());
        let (yt, gt) = shaped(&q, &t, &Shape::new(vec![40, 6]));
        let back = |v: &[f32]| -> Vec<f32> { (0..240).map(|k| v[(k % 40) * 6 + k / 40]).collect() };
        assert!(same(&y0, &back(&yt)) && same(&g0, &back(&gt)), "{spec}");
    }
}

#[test]
fn qkeras_scale_axis_names_the_channel_axis_itself() {
    let x = weight(6 * 40);
    let named = parse("qkeras.quantized_bits(4,0,1,alpha='auto',scale_axis=0)").unwrap();
    let plain = parse("qkeras.quantized_bits(4,0,1,alpha='auto')").unwrap();
    let a = shaped(&named, &x, &Shape::new(vec![6, 40]));
    let b = shaped(&plain, &x, &Shape::new(vec![6, 40]).with_axis(0).unwrap());
    assert!(same(&a.0, &b.0), "scale_axis=0 keeps axis 0");
    let c = shaped(&plain, &x, &Shape::new(vec![6, 40]));
    assert!(!same(&a.0, &c.0), "and differs from the last axis on this tensor");
}
