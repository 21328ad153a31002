//! A block format (MX, NVFP4, int-k groups, NF4…) on the sample tensor, block by block: which
//! block its curve is drawn at, and the block view's rows (scale, code, zero point, codes used,
//! error per block).
//!
//! The curve of a block format is one block's scale applied over the x sweep. By default that
//! block is "the sweep's own block" ([`basis`](super::drawn::basis)); the explorer's `block=k`
//! draws it at the sample's block k instead: the freeze of the sample run's report holding
//! block k alone, with the run's tensor-level numbers (NVFP4's per-tensor scale, a tensor amax).
//!
//! "Levels used" of a block format is counted per block: each block has its own levels (its
//! scale times the element codes), so distinct outputs over the whole tensor would mix the
//! levels of every block. The Quality panel shows the median over blocks of the distinct
//! outputs a block uses, out of the levels one block has ([`median_codes`]).

use super::drawn::{SampleRun, context};
use super::metrics::{Quality, measure};
use qscope_quant::{Block, Frozen, Levels, Quantizer, Report};

/// How many blocks `q` cuts a tensor of `n` elements into (0 for a quantizer without blocks).
pub fn count(q: &Quantizer, n: usize) -> usize {
    q.block_size().map_or(0, |b| n.div_ceil(b.max(1)))
}

/// The report `report` would be for its block `k` (from 1) alone: that block, with the
/// tensor-level numbers kept; `None` when there is no block `k`.
pub fn sample_block(report: &Report, k: usize) -> Option<Report> {
    let block = *report.blocks.get(k.checked_sub(1)?)?;
    Some(Report { blocks: vec![block], ..report.clone() })
}

/// `q` frozen at block `k` (from 1) of its run on `sample` (in the given mode and seed), with
/// that block's report; `None` when `q` is not a block format or the run has no block `k`.
pub fn frozen_at_block(q: &Quantizer, training: bool, seed: u64, sample: &[f32], k: usize) -> Option<(Frozen, Report)> {
    q.block_size()?;
    let run = q.eval(sample, &mut context(training, seed)).2;
    let report = sample_block(&run, k)?;
    Some((q.freeze(&report), report))
}

/// One row of the block view.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockRow {
    /// From 1, as `block=k` names it.
    pub index: usize,
    pub block: Block,
    /// Distinct outputs in the block (−0 and +0 as one).
    pub codes_used: usize,
    /// The levels one block has (the format's codes at this block's scale), when finite.
    pub codes: Option<u64>,
    /// The block's error against its inputs.
    pub quality: Quality,
}

/// The rows of the block view: `run` (of `q` on `values`) cut into its blocks, in order.
pub fn rows(q: &Quantizer, values: &[f32], run: &SampleRun) -> Vec<BlockRow> {
    let mut start = 0;
    let mut out = Vec::with_capacity(run.report.blocks.len());
    // The tensor-level numbers without the blocks, copied once: copying every block into each
    // block's report would take time quadratic in the blocks (a 16 M tensor has 500 000).
    let tensor_level = Report { blocks: Vec::new(), ..run.report.clone() };
    for (i, block) in run.report.blocks.iter().enumerate() {
        let end = (start + block.len).min(values.len()).min(run.y.len());
        let (x, y) = (&values[start.min(end)..end], &run.y[start.min(end)..end]);
        let quality = measure(x, y, &Levels::Continuous);
        let one = Report { blocks: vec![*block], ..tensor_level.clone() };
        let codes = q.freeze(&one).levels(&one).count();
        out.push(BlockRow { index: i + 1, block: *block, codes_used: quality.levels_used, codes, quality });
        start = end;
    }
    out
}

/// The median of the codes used per block and the levels a block has (the most over blocks),
/// for the Quality panel; `None` with no blocks.
pub fn median_codes(rows: &[BlockRow]) -> Option<(usize, Option<u64>)> {
    let mut used: Vec<usize> = rows.iter().map(|r| r.codes_used).collect();
    used.sort_unstable();
    let median = *used.get(used.len().checked_sub(1)? / 2)?;
    Some((median, rows.iter().filter_map(|r| r.codes).max()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drawn::run_on_sample;
    use qscope_quant::parse;

    fn q(spec: &str) -> Quantizer {
        parse(spec).unwrap()
    }

    #[test]
    fn a_tensor_is_cut_into_blocks_with_a_shorter_tail() {
        assert_eq!(count(&q("torchao.mx(elem_dtype='fp4_e2m1')"), 1000), 32);
        assert_eq!(count(&q("bnb.nf4(blocksize=64)"), 1000), 16);
        assert_eq!(count(&q("qkeras.quantized_bits(4,0,1)"), 1000), 0);
    }

    #[test]
    fn a_sample_block_keeps_that_block_and_the_tensor_level_numbers() {
        let values: Vec<f32> = (0..40).map(|i| i as f32 / 10.0).collect();
        let nv = q("torchao.nvfp4(per_tensor_scale='auto')");
        let run = nv.eval(&values, &mut context(true, 0)).2;
        let second = sample_block(&run, 2).unwrap();
        assert_eq!((second.blocks, second.scale, second.amax), (vec![run.blocks[1]], run.scale, run.amax));
        assert!(sample_block(&run, 0).is_none() && sample_block(&run, 4).is_none());
    }

    #[test]
    fn a_curve_frozen_at_block_k_gives_that_blocks_outputs() {
        // Block 2 of [0.1…, 8, …] has amax 8: its curve at 8 is 8 (MX scales keep the amax exact here).
        let mut values = vec![0.1f32; 64];
        values[40] = 8.0;
        let mx = q("torchao.mx(elem_dtype='fp4_e2m1')");
        let (form, report) = frozen_at_block(&mx, true, 0, &values, 2).unwrap();
        assert_eq!(report.blocks[0].amax, 8.0);
        let y = form.eval(&[8.0, 0.1], &mut context(true, 0)).0;
        let run = mx.eval(&values, &mut context(true, 0)).0;
        assert_eq!((y[0], y[1]), (run[40], run[41]));
        assert!(frozen_at_block(&mx, true, 0, &values, 3).is_none());
        assert!(frozen_at_block(&q("qkeras.quantized_bits(4,0,1)"), true, 0, &values, 1).is_none());
    }

    #[test]
    fn each_row_measures_its_own_block() {
        let values: Vec<f32> = (0..70).map(|i| (i as f32 * 0.37).sin()).collect();
        let nf4 = q("bnb.nf4(blocksize=32)");
        let run = run_on_sample(&nf4, true, 0, &values);
        let rows = rows(&nf4, &values, &run);
        assert_eq!(rows.iter().map(|r| r.block.len).collect::<Vec<_>>(), [32, 32, 6]);
        let tail = measure(&values[64..], &run.y[64..], &Levels::Continuous);
        assert_eq!((rows[2].index, rows[2].quality.mse, rows[2].codes_used), (3, tail.mse, tail.levels_used));
        assert!(rows.iter().all(|r| r.codes == Some(16) && r.codes_used <= 16), "{rows:?}");
    }

    #[test]
    fn levels_used_of_a_block_format_is_the_median_per_block() {
        let values: Vec<f32> = (0..1000).map(|i| (i as f32 * 0.37).sin() * (1.0 + i as f32 / 100.0)).collect();
        let mx = q("torchao.mx(elem_dtype='fp4_e2m1')");
        let run = run_on_sample(&mx, true, 0, &values);
        let rows = rows(&mx, &values, &run);
        let (median, of) = median_codes(&rows).unwrap();
        assert!(run.metrics.levels_used > 16, "the whole tensor mixes blocks: {}", run.metrics.levels_used);
        assert!(median <= 15 && of == Some(15), "{median} of {of:?}");
        assert_eq!(median_codes(&[]), None);
    }
}
