//! A tensor of several dimensions given to a quantizer as its library gives a weight of that
//! shape ([`Layout`]): per channel of the channel axis (QKeras' `alpha='auto'`), in rows along it
//! (torchao's groups, MX and NVFP4 blocks), or flattened (a per-tensor scale). The channel axis is
//! the last by default, the libraries' convention; another axis is a transpose before it.

use crate::{Ctx, Layout, Quantizer, Report};

/// How a tensor is cut into pieces quantized one after the other ([`Quantizer::pieces`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pieces {
    /// Elements per piece: a multiple of the granule and of 8 (the lanes of the sums measured over it).
    pub len: usize,
    /// [`Quantizer::piece`]: the elements whose outputs depend on each other.
    pub granule: usize,
    /// Whether the granule is a row, quantized as the library quantizes a weight's rows.
    pub rows: bool,
}

/// A row-major tensor's dimensions and its channel axis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    pub dims: Vec<usize>,
    /// The channel axis (`dims.len() − 1` by convention).
    pub axis: usize,
}

impl Shape {
    /// A shape whose channel axis is the last (a 1-D tensor is one channel, as QKeras sees an
    /// `(N, 1)` tensor).
    pub fn new(dims: Vec<usize>) -> Shape {
        let axis = dims.len().saturating_sub(1);
        Shape { dims, axis }
    }

    /// The same shape with channel axis `axis`, if it has one.
    pub fn with_axis(mut self, axis: usize) -> Result<Shape, String> {
        if axis >= self.dims.len().max(1) {
            return Err(format!(
                "axis {axis}: the tensor has {} axes (0 to {})",
                self.dims.len(),
                self.dims.len().max(1) - 1
            ));
        }
        self.axis = axis;
        Ok(self)
    }

    /// `(outer, channels, inner)`: element `(o, c, i)` is at `(o·channels + c)·inner + i`.
    pub fn split(&self, len: usize) -> (usize, usize, usize) {
        if self.dims.len() < 2 {
            return (1, 1, len);
        }
        let outer: usize = self.dims[..self.axis].iter().product();
        let inner: usize = self.dims[self.axis + 1..].iter().product();
        (outer, self.dims[self.axis], inner)
    }

    /// The number of channels (1 for a tensor of fewer than two dimensions).
    pub fn channels(&self) -> usize {
        if self.dims.len() < 2 { 1 } else { self.dims[self.axis] }
    }

    /// The flat indices of channel `c`, in row-major order.
    pub fn channel_indices(&self, len: usize, c: usize) -> impl Iterator<Item = usize> {
        let (outer, channels, inner) = self.split(len);
        let whole = self.dims.len() < 2;
        (0..outer).flat_map(move |o| {
            let start = if whole { 0 } else { (o * channels + c) * inner };
            start..start + inner
        })
    }
}

impl Quantizer {
    /// `shape` as this quantizer sees it: with the channel axis its own parameter names (QKeras'
    /// `scale_axis`, for a per-channel scale), else as given.
    pub fn seen_shape(&self, shape: &Shape) -> Shape {
        let named = self.scale_axis().filter(|_| self.layout() == Layout::Channels && shape.dims.len() >= 2);
        let axis = named.and_then(|a| {
            let a = if a < 0 { shape.dims.len() as i64 + a } else { a };
            usize::try_from(a).ok().and_then(|a| shape.clone().with_axis(a).ok())
        });
        axis.unwrap_or_else(|| shape.clone())
    }

    /// Writes `y = q(x)` and, if asked, `dydx` for a row-major tensor of `shape`, as the library
    /// gives a weight of that shape to the quantizer ([`Quantizer::layout`]). Returns one report
    /// per channel for [`Layout::Channels`] (in channel order), else one.
    pub fn apply_shaped(
        &self,
        x: &[f32],
        shape: &Shape,
        y: &mut [f32],
        dydx: Option<&mut [f32]>,
        ctx: &mut Ctx,
    ) -> Vec<Report> {
        let layout = self.layout();
        let seen = self.seen_shape(shape);
        let shape = &seen;
        if layout == Layout::Channels && shape.channels() > 1 && shape.dims.len() >= 2 {
            return self.apply_channels(x, shape, y, dydx, ctx);
        }
        let (outer, channels, inner) = shape.split(x.len());
        match layout {
            Layout::Rows if shape.dims.len() >= 2 && inner > 1 && outer * channels * inner == x.len() => {
                self.apply_rows_along(x, (outer, channels, inner), y, dydx, ctx)
            }
            Layout::Rows if shape.dims.len() >= 2 => vec![self.apply_rows(x, channels, y, dydx, ctx)],
            _ => vec![self.apply(x, y, dydx, ctx)],
        }
    }

    /// The length of the pieces a tensor of `shape` may be cut into and quantized one after the
    /// other with exactly the outputs [`Quantizer::apply_shaped`] gives the whole: 1 element by
    /// element, a block for independent blocks over the flattened tensor, a row for independent
    /// blocks in rows along the last axis. `None` where an output depends on more of the tensor
    /// (a per-tensor or per-channel statistic, rows along another axis, a random draw).
    pub fn piece(&self, shape: &Shape, training: bool) -> Option<usize> {
        if self.is_stochastic(training) || self.is_data_dependent() && !self.blocks_independent() {
            return None;
        }
        let shape = self.seen_shape(shape);
        match (self.layout(), self.block_size()) {
            (Layout::Elementwise, _) => Some(1),
            (Layout::Flat, Some(b)) => Some(b),
            (Layout::Rows, Some(b)) if shape.dims.len() < 2 => Some(b),
            (Layout::Rows, Some(_)) => match shape.split(usize::MAX) {
                (_, row, 1) => Some(row),
                _ => None,
            },
            (Layout::Flat | Layout::Rows | Layout::Channels, _) => None,
        }
    }

    /// [`Quantizer::apply_shaped`] (forward only) with the outputs handed to `each` beside their
    /// inputs, in order: in pieces of about `target` elements (a multiple of [`Quantizer::piece`]
    /// and of 8, the last piece excepted) where the quantizer allows it, so that the outputs and
    /// whatever `each` computes from them stay in the cache; else once for the whole tensor.
    /// `y` is scratch space. Returns the first piece's reports.
    pub fn apply_pieces(
        &self,
        x: &[f32],
        shape: &Shape,
        ctx: &mut Ctx,
        target: usize,
        y: &mut Vec<f32>,
        mut each: impl FnMut(&[f32], &[f32]),
    ) -> Vec<Report> {
        let Some(pieces) = self.pieces(shape, ctx.training, target).filter(|_| x.len() > target) else {
            y.resize(x.len(), 0.0);
            let reports = self.apply_shaped(x, shape, &mut y[..x.len()], None, ctx);
            each(x, &y[..x.len()]);
            return reports;
        };
        y.resize(pieces.len.min(x.len()), 0.0);
        let mut first = None;
        for xp in x.chunks(pieces.len) {
            let yp = &mut y[..xp.len()];
            let report = self.apply_piece(&pieces, xp, yp, ctx);
            first.get_or_insert(report);
            each(xp, yp);
        }
        first.into_iter().collect()
    }

    /// How [`Quantizer::apply_pieces`] cuts a tensor of `shape` into pieces of about `target`
    /// elements, or `None` where the quantizer needs the whole tensor at once.
    pub fn pieces(&self, shape: &Shape, training: bool, target: usize) -> Option<Pieces> {
        let granule = self.piece(shape, training).filter(|&g| g > 0)?;
        let unit = granule.saturating_mul(8);
        let rows = self.seen_shape(shape).dims.len() >= 2 && self.layout() == Layout::Rows;
        Some(Pieces { len: unit.saturating_mul((target / unit).max(1)), granule, rows })
    }

    /// One piece of [`Quantizer::pieces`] (`x` a whole number of its granules, the last piece
    /// excepted), forward only: what the whole tensor's outputs are over these elements.
    pub fn apply_piece(&self, pieces: &Pieces, x: &[f32], y: &mut [f32], ctx: &mut Ctx) -> Report {
        if pieces.rows { self.apply_rows(x, pieces.granule, y, None, ctx) } else { self.apply(x, y, None, ctx) }
    }

    /// Rows along a channel axis that is not the last: each `(channels × inner)` slab transposed
    /// so the axis runs last, the rows quantized, the outputs transposed back.
    fn apply_rows_along(
        &self,
        x: &[f32],
        (outer, channels, inner): (usize, usize, usize),
        y: &mut [f32],
        dydx: Option<&mut [f32]>,
        ctx: &mut Ctx,
    ) -> Vec<Report> {
        let slab = channels * inner;
        let mut xs = vec![0.0; x.len()];
        for o in 0..outer {
            transpose(&x[o * slab..(o + 1) * slab], &mut xs[o * slab..(o + 1) * slab], (channels, inner), 1);
        }
        let mut ys = vec![0.0; x.len()];
        let mut ds = dydx.as_ref().map(|_| vec![0.0; x.len()]);
        let report = self.apply_rows(&xs, channels, &mut ys, ds.as_deref_mut(), ctx);
        for o in 0..outer {
            transpose(&ys[o * slab..(o + 1) * slab], &mut y[o * slab..(o + 1) * slab], (inner, channels), 1);
        }
        if let (Some(d), Some(ds)) = (dydx, ds) {
            for o in 0..outer {
                transpose(&ds[o * slab..(o + 1) * slab], &mut d[o * slab..(o + 1) * slab], (inner, channels), 1);
            }
        }
        vec![report]
    }

    /// Each channel of `shape` quantized as a tensor of its own, in channel order: the tensor
    /// transposed channel-major (in tiles, so a 4096 × 4096 weight's columns are gathered at
    /// memory speed rather than one cache miss per element), each channel's contiguous slice
    /// quantized, the outputs transposed back.
    fn apply_channels(
        &self,
        x: &[f32],
        shape: &Shape,
        y: &mut [f32],
        dydx: Option<&mut [f32]>,
        ctx: &mut Ctx,
    ) -> Vec<Report> {
        let (outer, channels, inner) = shape.split(x.len());
        if outer * channels * inner != x.len() {
            return vec![self.apply(x, y, dydx, ctx)];
        }
        let per = outer * inner;
        let mut xs = vec![0.0; x.len()];
        transpose(x, &mut xs, (outer, channels), inner);
        let mut ys = vec![0.0; x.len()];
        let mut ds = dydx.as_ref().map(|_| vec![0.0; x.len()]);
        let reports = (0..channels)
            .map(|c| {
                let range = c * per..(c + 1) * per;
                let d = ds.as_mut().map(|d| &mut d[range.clone()]);
                self.apply(&xs[range.clone()], &mut ys[range], d, ctx)
            })
            .collect();
        transpose(&ys, y, (channels, outer), inner);
        if let (Some(d), Some(ds)) = (dydx, ds) {
            transpose(&ds, d, (channels, outer), inner);
        }
        reports
    }
}

/// `src` as a `rows × cols` matrix of cells of `cell` values each, written transposed to `dst`
/// (`cols × rows`), tile by tile so that both sides stay in the cache.
fn transpose(src: &[f32], dst: &mut [f32], (rows, cols): (usize, usize), cell: usize) {
    const TILE: usize = 32;
    if cell == 1 {
        // One value per cell: a plain tiled transpose (no copy call per element).
        for r0 in (0..rows).step_by(TILE) {
            for c0 in (0..cols).step_by(TILE) {
                for r in r0..(r0 + TILE).min(rows) {
                    let row = &src[r * cols..(r + 1) * cols];
                    for c in c0..(c0 + TILE).min(cols) {
                        dst[c * rows + r] = row[c];
                    }
                }
            }
        }
        return;
    }
    for r0 in (0..rows).step_by(TILE) {
        for c0 in (0..cols).step_by(TILE) {
            for r in r0..(r0 + TILE).min(rows) {
                for c in c0..(c0 + TILE).min(cols) {
                    let (from, to) = ((r * cols + c) * cell, (c * rows + r) * cell);
                    dst[to..to + cell].copy_from_slice(&src[from..from + cell]);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    fn run(spec: &str, x: &[f32], shape: &Shape) -> (Vec<f32>, Vec<f32>, Vec<Report>) {
        let q = parse(spec).unwrap();
        let (mut y, mut d) = (vec![0.0; x.len()], vec![0.0; x.len()]);
        let r = q.apply_shaped(x, shape, &mut y, Some(&mut d), &mut Ctx::training(0));
        (y, d, r)
    }

    fn ramp(n: usize) -> Vec<f32> {
        (0..n).map(|i| ((i * 37 % 23) as f32 - 11.0) * 0.1 * (1.0 + (i % 4) as f32)).collect()
    }

    #[test]
    fn a_channel_of_the_last_axis_is_every_k_th_element() {
        let s = Shape::new(vec![3, 4]);
        assert_eq!(s.channel_indices(12, 1).collect::<Vec<_>>(), [1, 5, 9]);
        let s = Shape::new(vec![3, 4]).with_axis(0).unwrap();
        assert_eq!(s.channel_indices(12, 2).collect::<Vec<_>>(), [8, 9, 10, 11]);
        assert!(Shape::new(vec![3, 4]).with_axis(2).is_err());
    }

    #[test]
    fn a_per_channel_scale_is_each_channels_own() {
        let x = ramp(32);
        let shape = Shape::new(vec![8, 4]);
        let (y, _, reports) = run("qkeras.quantized_bits(4,0,1,alpha='auto')", &x, &shape);
        assert_eq!(reports.len(), 4);
        for (c, report) in reports.iter().enumerate() {
            let xc: Vec<f32> = shape.channel_indices(32, c).map(|i| x[i]).collect();
            let (yc, _, rc) =
                parse("qkeras.quantized_bits(4,0,1,alpha='auto')").unwrap().eval(&xc, &mut Ctx::training(0));
            assert_eq!(rc.scale, report.scale, "channel {c}");
            let got: Vec<f32> = shape.channel_indices(32, c).map(|i| y[i]).collect();
            assert_eq!(got, yc, "channel {c}");
        }
    }

    #[test]
    fn a_middle_axis_channel_is_quantized_alone_outputs_and_gradients_in_place() {
        // 3 × 4 × 5, channels along axis 1: channel c is x[o][c][i] for every o and i.
        let x = ramp(60);
        let shape = Shape::new(vec![3, 4, 5]).with_axis(1).unwrap();
        let spec = "larq.MagnitudeAwareSign";
        let (y, d, reports) = run(spec, &x, &shape);
        assert_eq!(reports.len(), 4);
        for (c, report) in reports.iter().enumerate() {
            let idx: Vec<usize> = shape.channel_indices(60, c).collect();
            let xc: Vec<f32> = idx.iter().map(|&i| x[i]).collect();
            let (yc, dc, rc) = parse(spec).unwrap().eval(&xc, &mut Ctx::training(0));
            assert_eq!(idx.iter().map(|&i| y[i]).collect::<Vec<_>>(), yc, "channel {c}");
            assert_eq!(idx.iter().map(|&i| d[i]).collect::<Vec<_>>(), dc, "channel {c}");
            assert_eq!(*report, rc, "channel {c}");
        }
    }

    #[test]
    fn a_1d_tensor_is_one_row_and_one_channel() {
        let x = ramp(100);
        for spec in ["torchao.mx(elem_dtype='fp4_e2m1')", "qkeras.quantized_bits(4,0,1,alpha='auto')", "torchao.nvfp4"]
        {
            let (y, d, r) = run(spec, &x, &Shape::new(vec![100]));
            let (want_y, want_d, want_r) = parse(spec).unwrap().eval(&x, &mut Ctx::training(0));
            assert_eq!((y, d), (want_y, want_d), "{spec}");
            assert_eq!(r, [want_r], "{spec}");
        }
    }

    #[test]
    fn elementwise_and_flat_quantizers_ignore_the_shape() {
        let x = ramp(24);
        for spec in ["ml_dtypes.float8_e4m3fn", "torchao.float8", "bnb.nf4(blocksize=64)"] {
            let flat = run(spec, &x, &Shape::new(vec![24]));
            let shaped = run(spec, &x, &Shape::new(vec![2, 3, 4]).with_axis(1).unwrap());
            assert_eq!(flat.0, shaped.0, "{spec}");
            assert_eq!(flat.1, shaped.1, "{spec}");
        }
    }

    #[test]
    fn groups_run_along_the_channel_axis_row_by_row() {
        // 4 rows of 6 along the last axis, groups of 2: the same as rows of the transpose along axis 0.
        let x = ramp(24);
        let spec = "torchao.affine(group_size=2)";
        let (y, _, _) = run(spec, &x, &Shape::new(vec![4, 6]));
        let q = parse(spec).unwrap();
        let mut want = vec![0.0; 24];
        q.apply_rows(&x, 6, &mut want, None, &mut Ctx::training(0));
        assert_eq!(y, want);
        // Along axis 0: the columns are the rows.
        let t: Vec<f32> = (0..24).map(|k| x[(k % 4) * 6 + k / 4]).collect();
        let (yt, _, _) = run(spec, &t, &Shape::new(vec![6, 4]).with_axis(0).unwrap());
        let back: Vec<f32> = (0..24).map(|k| yt[(k % 6) * 4 + k / 6]).collect();
        assert_eq!(back, want);
    }

    /// Every quantizer at its defaults, and the block formats and per-channel scales at the
    /// settings that decide whether they may be cut.
    fn cut_specs() -> Vec<String> {
        let mut specs: Vec<String> = crate::ENTRIES.iter().map(|e| (e.default)().to_string()).collect();
        specs.extend(
            [
                "bnb.nf4(blocksize=64)",
                "torchao.mx(elem_dtype='fp4_e2m1',block_size=16)",
                "torchao.nvfp4(per_tensor_scale='auto')",
                "torchao.affine(group_size=16)",
                "torchao.intx_fake_quantize(group_size=16)",
                "quantized_bits(4,0,alpha='auto')",
                "ternary(alpha='auto')",
            ]
            .map(String::from),
        );
        specs
    }

    #[test]
    fn pieces_give_the_outputs_of_the_whole_tensor_for_every_quantizer() {
        let x: Vec<f32> = ramp(48 * 96).iter().enumerate().map(|(i, v)| v * (1.0 + (i / 96) as f32)).collect();
        for spec in cut_specs() {
            let q = parse(&spec).unwrap();
            for shape in
                [Shape::new(vec![48, 96]), Shape::new(vec![48 * 96]), Shape::new(vec![48, 96]).with_axis(0).unwrap()]
            {
                for training in [false, true] {
                    let ctx = || if training { Ctx::training(3) } else { Ctx::inference(3) };
                    let mut whole = vec![0.0; x.len()];
                    q.apply_shaped(&x, &shape, &mut whole, None, &mut ctx());
                    let (mut pieces, mut cuts, mut scratch) = (Vec::new(), 0, Vec::new());
                    q.apply_pieces(&x, &shape, &mut ctx(), 700, &mut scratch, |xp, yp| {
                        assert_eq!(xp, &x[pieces.len()..pieces.len() + xp.len()]);
                        pieces.extend_from_slice(yp);
                        cuts += 1;
                    });
                    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
                    let at = format!("{spec} on {:?} axis {}, training {training}", shape.dims, shape.axis);
                    assert_eq!(bits(&pieces), bits(&whole), "{at}");
                    if q.piece(&shape, training).is_some() {
                        assert!(cuts > 1, "{at}: cut");
                    }
                }
            }
        }
    }

    #[test]
    fn whatever_depends_on_the_whole_tensor_is_not_cut() {
        let s = Shape::new(vec![48, 96]);
        let piece = |spec: &str, shape: &Shape, training| parse(spec).unwrap().piece(shape, training);
        assert_eq!(piece("ml_dtypes.float8_e4m3fn", &s, true), Some(1));
        assert_eq!(piece("bnb.nf4(blocksize=64)", &s, true), Some(64), "flattened blocks");
        assert_eq!(piece("torchao.mx(elem_dtype='fp4_e2m1')", &s, true), Some(96), "a row along the last axis");
        assert_eq!(piece("torchao.mx(elem_dtype='fp4_e2m1')", &s.clone().with_axis(0).unwrap(), true), None);
        assert_eq!(piece("torchao.nvfp4(per_tensor_scale='auto')", &s, true), None, "per-tensor amax");
        assert_eq!(piece("quantized_bits(4,0,alpha='auto')", &s, true), None, "per-channel scale");
        assert_eq!(piece("quantized_bits(4,0,alpha=1)", &s, true), Some(1));
    }
}
