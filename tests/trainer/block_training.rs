//! Block formats in the trainer: a layer cuts along its input dimension (each output's column
//! of weights, each row of activations is a tensor of its own, cut into blocks), and nets with
//! block-format weights learn.

use qscope_nn::{Act, Config, DatasetKind, Hidden, Optimizer, QuantizedTensor, Trainer};
use qscope_quant::{Ctx, Quantizer, parse};

fn q(spec: &str) -> Quantizer {
    parse(spec).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

/// Rows of `row_len` with magnitudes that differ from row to row (so per-row scales differ).
fn matrix(rows: usize, row_len: usize) -> Vec<f32> {
    (0..rows * row_len).map(|i| ((i as f32 * 0.61).sin() * (1 + i / row_len) as f32).powi(3)).collect()
}

#[test]
fn apply_rows_quantizes_each_row_as_its_own_tensor_for_a_block_format() {
    let (rows, len) = (3, 40);
    let x = matrix(rows, len);
    for spec in
        ["torchao.mx(elem_dtype='fp4_e2m1')", "torchao.affine(group_size=16)", "torchao.nvfp4", "bnb.nf4(blocksize=32)"]
    {
        let fmt = q(spec);
        let (mut y, mut g) = (vec![0.0; x.len()], vec![0.0; x.len()]);
        let report = fmt.apply_rows(&x, len, &mut y, Some(&mut g), &mut Ctx::training(0));
        let mut blocks = Vec::new();
        for r in 0..rows {
            let (want, want_g, rep) = fmt.eval(&x[r * len..(r + 1) * len], &mut Ctx::training(0));
            assert_eq!(y[r * len..(r + 1) * len], want[..], "{spec}: row {r}");
            assert_eq!(g[r * len..(r + 1) * len], want_g[..], "{spec}: row {r} gradient");
            blocks.extend(rep.blocks);
        }
        assert_eq!(report.blocks, blocks, "{spec}: every row's blocks, in order");
        let size = fmt.block_size().unwrap();
        assert_eq!(report.blocks[len.div_ceil(size) - 1].len, len % size, "{spec}: each row ends with its tail");
    }
}

#[test]
fn apply_rows_is_apply_for_a_quantizer_without_blocks() {
    let x = matrix(3, 40);
    let per_tensor = q("qkeras.quantized_bits(4,0,1,alpha='auto_po2')");
    assert_eq!(per_tensor.block_size(), None);
    let mut y = vec![0.0; x.len()];
    let report = per_tensor.apply_rows(&x, 40, &mut y, None, &mut Ctx::training(0));
    let (want, _, want_report) = per_tensor.eval(&x, &mut Ctx::training(0));
    assert_eq!((y, report), (want, want_report));
}

#[test]
fn nvfp4_auto_takes_its_per_tensor_scale_from_the_whole_matrix_in_rows() {
    let x = matrix(4, 32);
    let nv = q("torchao.nvfp4(per_tensor_scale='auto')");
    let mut y = vec![0.0; x.len()];
    let report = nv.apply_rows(&x, 32, &mut y, None, &mut Ctx::training(0));
    let (whole, _, whole_report) = nv.eval(&x, &mut Ctx::training(0));
    // 32 is a whole number of blocks of 16: the rows' blocks are the matrix's blocks.
    assert_eq!((y, report.scale), (whole, whole_report.scale));
    let first_row = nv.eval(&x[..32], &mut Ctx::training(0)).2;
    assert_ne!(report.scale, first_row.scale, "not the first row's amax");
}

fn block_net(wq: &str) -> Trainer {
    let mut c = Config::new(DatasetKind::Xor);
    c.hidden = Hidden::uniform(&[40, 3], Act::parse("tanh").unwrap(), Some(q(wq)), None);
    c.optimizer = Optimizer::ADAM;
    c.learning_rate = 0.02;
    Trainer::new(c).unwrap()
}

#[test]
fn a_layer_quantizes_each_outputs_weights_along_the_input_dimension() {
    let mut t = block_net("torchao.mx(elem_dtype='fp4_e2m1')");
    t.step().unwrap();
    let layer = &t.layers()[1];
    let (n_in, n_out) = layer.shape();
    assert_eq!((n_in, n_out), (40, 3));
    let fmt = layer.quantizer(QuantizedTensor::Weights).unwrap();
    for j in 0..n_out {
        let column: Vec<f32> = (0..n_in).map(|i| layer.weights()[i * n_out + j]).collect();
        let want = fmt.eval(&column, &mut Ctx::training(0)).0;
        let got: Vec<f32> = (0..n_in).map(|i| layer.quantized()[i * n_out + j]).collect();
        assert_eq!(got, want, "output {j}: its 40 weights are blocks of 32 and 8");
    }
}

#[test]
fn nets_with_mxfp4_or_nvfp4_or_int4_group_or_nf4_weights_learn_xor() {
    for wq in
        ["torchao.mx(elem_dtype='fp4_e2m1')", "torchao.nvfp4", "torchao.affine(group_size=8)", "bnb.nf4(blocksize=32)"]
    {
        let mut t = block_net(wq);
        for _ in 0..60 {
            t.step_epoch().unwrap();
        }
        let m = t.history().last().unwrap();
        assert!(m.test_acc.unwrap() >= 0.9, "{wq}: {m:?}");
    }
}
