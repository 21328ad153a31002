//! The dense-layer loops of a small MLP: row-major matrix products and elementwise
//! activations, on the kernels' one SIMD abstraction ([`Lane`]): an f32x4 path where WASM
//! SIMD is compiled in, four `f32` lanes elsewhere.
//!
//! The products are register-blocked: the output is computed in tiles of 4, 2 or 1 rows × 8,
//! 4 or 1 columns, the tile's running sums staying in registers while the inner loop runs over
//! the summed index (one loaded row of the right-hand matrix serves every row of the tile).
//! Accumulating into the output in memory instead chains every addition through a store and a
//! reload, which costs more than the arithmetic at these sizes (batches of 10, layers of 8).
//! Each output element is still summed in one fixed order on every path — from 0, over the
//! summed index upward, then `+ bias` — with one rounding per `×` and per `+`, so the f32x4
//! path, the scalar path (`Scalar4`: four `f32` lanes, which LLVM keeps in SSE registers
//! natively) and every tile shape give the same bits (tests/wasm.rs checks SIMD = scalar in
//! Node and in the browser, for the loops and for whole training runs).

use std::ops::Range;

use qscope_quant::lane::{self, Lane, Wide};
use qscope_quant::simd::{self, Op};

/// The lanes of the scalar path: four `f32` side by side (SSE natively, four plain operations
/// in a WASM build without `simd128`).
type Scalar4 = Wide<f32, 4>;

/// Where the coefficients of a product's output rows come from: output row `i` is
/// `Σ_p coef(i, p)·b[p]` over the `k` rows of `b`.
trait Coefs: Copy {
    /// The coefficients of rows `i..i + R`, for p = 0, 1, … k − 1.
    fn rows<const R: usize>(self, i: usize) -> impl ExactSizeIterator<Item = [f32; R]> + Clone;
}

/// `coef(i, p) = a[i][p]` for row-major `a` (m × k): the plain product `a·b`.
#[derive(Clone, Copy)]
struct Rows<'a> {
    a: &'a [f32],
    k: usize,
}

impl Coefs for Rows<'_> {
    #[inline(always)]
    fn rows<const R: usize>(self, i: usize) -> impl ExactSizeIterator<Item = [f32; R]> + Clone {
        // R slices of length k: indexing them by p < k needs no check inside the loop.
        let rows: [&[f32]; R] = std::array::from_fn(|r| &self.a[(i + r) * self.k..][..self.k]);
        (0..self.k).map(move |p| std::array::from_fn(|r| rows[r][p]))
    }
}

/// `coef(i, p) = a[p][i]` for row-major `a` (k × m): the product `aᵀ·b`, whose R rows take
/// R neighbouring values of each row of `a`.
#[derive(Clone, Copy)]
struct Columns<'a> {
    a: &'a [f32],
    m: usize,
}

impl Coefs for Columns<'_> {
    #[inline(always)]
    fn rows<const R: usize>(self, i: usize) -> impl ExactSizeIterator<Item = [f32; R]> + Clone {
        let m = self.m;
        assert!(i + R <= m, "columns: tile past the last row");
        self.a.chunks_exact(m).map(move |row| {
            // SAFETY: i + R ≤ m = row.len(), checked above.
            let row = unsafe { row.get_unchecked(i..i + R) };
            std::array::from_fn(|r| row[r])
        })
    }
}

/// `coef(i, p) = 1` for p < k: column sums.
#[derive(Clone, Copy)]
struct Ones {
    k: usize,
}

impl Coefs for Ones {
    #[inline(always)]
    fn rows<const R: usize>(self, _: usize) -> impl ExactSizeIterator<Item = [f32; R]> + Clone {
        std::iter::repeat_n([1.0; R], self.k)
    }
}

/// One tile: `R` output rows × `P::WIDTH` columns from column `j`, `Σ_p coef_p[r]·b[p][j..]`
/// (+ `bias[j..]`), each sum from 0 in order of p, kept in registers. `b` is row-major with
/// rows of `n`.
#[inline(always)]
fn tile<P: Lane, const R: usize>(
    coefs: impl ExactSizeIterator<Item = [f32; R]>,
    b: &[f32],
    n: usize,
    j: usize,
    bias: Option<&[f32]>,
) -> [P; R] {
    let mut acc = [P::splat(0.0); R];
    // b[p][j] is b[p·n + j]: an offset rather than `chunks_exact`, whose length costs an
    // integer division per tile.
    assert!(j + P::WIDTH <= n && coefs.len() * n <= b.len(), "tile: shapes");
    let mut at = j;
    for c in coefs {
        // SAFETY: at + WIDTH ≤ p·n + n ≤ (number of coefficient rows)·n ≤ b.len(), checked
        // above: no bounds check per loaded row.
        let bp = P::load(unsafe { b.get_unchecked(at..at + P::WIDTH) });
        for r in 0..R {
            acc[r] = acc[r] + P::splat(c[r]) * bp;
        }
        at += n;
    }
    if let Some(bias) = bias {
        let bv = P::load(&bias[j..]);
        acc = acc.map(|a| a + bv);
    }
    acc
}

/// Tiles of `R` rows × `P::WIDTH` columns across `out` (rows `i..i + R` of the product, `n`
/// wide) from column `j` while they fit; returns the first column not done.
#[inline(always)]
fn tiles<P: Lane, const R: usize>(
    coefs: impl Coefs,
    i: usize,
    b: &[f32],
    bias: Option<&[f32]>,
    out: &mut [f32],
    n: usize,
    mut j: usize,
) -> usize {
    assert!(out.len() >= R * n, "tiles: shapes");
    while j + P::WIDTH <= n {
        let acc = tile::<P, R>(coefs.rows::<R>(i), b, n, j, bias);
        for (r, a) in acc.into_iter().enumerate() {
            let at = r * n + j;
            // SAFETY: at + WIDTH ≤ r·n + n ≤ R·n ≤ out.len(), checked above.
            a.store(unsafe { out.get_unchecked_mut(at..at + P::WIDTH) });
        }
        j += P::WIDTH;
    }
    j
}

/// Output rows `i..` of `c = coef·b (+ bias)` (`c` is `m × n`), `R` at a time while they fit:
/// columns in tiles of two `P` and of one (8 and 4 lanes), then one by one (the same sums in
/// the same order in every tile). Returns the first row not done.
#[inline(always)]
fn row_blocks<P: Lane, const R: usize>(
    coefs: impl Coefs,
    b: &[f32],
    bias: Option<&[f32]>,
    c: &mut [f32],
    m: usize,
    n: usize,
    mut i: usize,
) -> usize {
    while i + R <= m {
        let out = &mut c[i * n..(i + R) * n];
        let j = tiles::<Wide<P, 2>, R>(coefs, i, b, bias, out, n, 0);
        let j = tiles::<P, R>(coefs, i, b, bias, out, n, j);
        tiles::<f32, R>(coefs, i, b, bias, out, n, j);
        i += R;
    }
    i
}

/// `c = coef·b (+ bias on every row)` on lanes `P`, for `c` of `m × n`: four rows at a
/// time (each loaded row of `b` serves four), then two, then one (a batch of 10 is 4 + 4 + 2).
#[inline(always)]
fn product<P: Lane>(coefs: impl Coefs, b: &[f32], bias: Option<&[f32]>, c: &mut [f32], m: usize, n: usize) {
    let i = row_blocks::<P, 4>(coefs, b, bias, c, m, n, 0);
    let i = row_blocks::<P, 2>(coefs, b, bias, c, m, n, i);
    row_blocks::<P, 1>(coefs, b, bias, c, m, n, i);
}

/// [`product`] on the f32x4 path where it runs, else on the scalar path.
fn product_dispatch(coefs: impl Coefs, b: &[f32], bias: Option<&[f32]>, c: &mut [f32], m: usize, n: usize) {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    if simd::enabled() {
        return product::<lane::F32x4>(coefs, b, bias, c, m, n);
    }
    product::<Scalar4>(coefs, b, bias, c, m, n);
}

/// Checks the shapes of `c = a·b (+ bias)` (`a` m×k, `b` k×n, `c` m×n).
fn check_product(a: &[f32], b: &[f32], bias: Option<&[f32]>, c: &[f32], m: usize, k: usize, n: usize) {
    assert!(a.len() == m * k && b.len() == k * n && c.len() == m * n, "matmul: shapes");
    assert!(bias.is_none_or(|v| v.len() == n), "matmul: bias shape");
}

/// `c = a·b` for row-major `a` (m×k), `b` (k×n), `c` (m×n); `c` is overwritten. Each element
/// is `((0 + a₀b₀) + a₁b₁) + …`, p from 0 upward.
pub fn matmul(a: &[f32], b: &[f32], c: &mut [f32], m: usize, k: usize, n: usize) {
    check_product(a, b, None, c, m, k, n);
    product_dispatch(Rows { a, k }, b, None, c, m, n);
}

/// `c = a·b + bias` (the bias added to every row, after the sum): a dense layer's
/// pre-activation `x·W + b` in one pass.
pub fn affine(a: &[f32], b: &[f32], bias: &[f32], c: &mut [f32], m: usize, k: usize, n: usize) {
    check_product(a, b, Some(bias), c, m, k, n);
    product_dispatch(Rows { a, k }, b, Some(bias), c, m, n);
}

/// `c = aᵀ·b` for row-major `a` (k×m), `b` (k×n): the weight gradient `xᵀ·δ` of a layer.
/// Each element is summed over the k rows in order, from 0.
pub fn matmul_at_b(a: &[f32], b: &[f32], c: &mut [f32], k: usize, m: usize, n: usize) {
    assert!(a.len() == k * m && b.len() == k * n && c.len() == m * n, "matmul_at_b: shapes");
    if n == 1 {
        // One column (an output layer's weights): as the row bᵀ·a, across lanes. The same
        // products (`×` commutes exactly) summed in the same order.
        product_dispatch(Rows { a: b, k }, a, None, c, 1, m);
    } else if m > 0 {
        product_dispatch(Columns { a, m }, b, None, c, m, n);
    }
}

/// `sums[j] = Σᵢ a[i][j]` for row-major `a` (m×n), over the rows in order from 0: a layer's
/// bias gradient. (Each term is `1·a[i][j]`, which is `a[i][j]`.)
pub fn column_sums(a: &[f32], sums: &mut [f32], m: usize, n: usize) {
    assert!(a.len() == m * n && sums.len() == n, "column_sums: shapes");
    product_dispatch(Ones { k: m }, a, None, sums, 1, n);
}

/// `c = a·bᵀ` for row-major `a` (m×k), `b` (n×k): the input gradient `δ·Wᵀ` of a layer.
/// Each element is a dot product summed in order (the reference the layer's transpose and
/// product are tested against).
#[cfg(test)]
pub fn matmul_a_bt(a: &[f32], b: &[f32], c: &mut [f32], m: usize, k: usize, n: usize) {
    assert!(a.len() == m * k && b.len() == n * k && c.len() == m * n, "matmul_a_bt: shapes");
    for i in 0..m {
        for j in 0..n {
            c[i * n + j] = a[i * k..(i + 1) * k].iter().zip(&b[j * k..(j + 1) * k]).fold(0.0, |s, (x, y)| s + x * y);
        }
    }
}

/// `t = aᵀ` for row-major `a` (m×n); `t` (n×m) is overwritten. With WASM SIMD, in 4×4 blocks
/// of four loads, eight shuffles and four stores; the edges (and the scalar path) element by
/// element. (Moves only: the same bits on every path.)
pub fn transpose(a: &[f32], t: &mut [f32], m: usize, n: usize) {
    assert!(a.len() == m * n && t.len() == m * n, "transpose: shapes");
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    if simd::enabled() {
        let (m4, n4) = (m / 4 * 4, n / 4 * 4);
        simd128::transpose_blocks(a, t, m, n, m4, n4);
        transpose_part(a, t, m, n, 0..m, n4..n);
        transpose_part(a, t, m, n, m4..m, 0..n4);
        return;
    }
    transpose_part(a, t, m, n, 0..m, 0..n);
}

/// `t[j][i] = a[i][j]` over the given rows and columns of `a` (m×n), one element at a time.
fn transpose_part(a: &[f32], t: &mut [f32], m: usize, n: usize, rows: Range<usize>, cols: Range<usize>) {
    for i in rows {
        let row = &a[i * n..(i + 1) * n];
        for j in cols.clone() {
            t[j * m + i] = row[j];
        }
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128 {
    use core::arch::wasm32::i32x4_shuffle;

    use qscope_quant::lane::{F32x4, Lane};

    /// The 4×4 blocks of [`super::transpose`]: rows `0..m4`, columns `0..n4` of `a` (m×n).
    pub fn transpose_blocks(a: &[f32], t: &mut [f32], m: usize, n: usize, m4: usize, n4: usize) {
        for i in (0..m4).step_by(4) {
            for j in (0..n4).step_by(4) {
                let rows: [F32x4; 4] = std::array::from_fn(|r| F32x4::load(&a[(i + r) * n + j..]));
                for (c, column) in transpose4(rows).into_iter().enumerate() {
                    column.store(&mut t[(j + c) * m + i..]);
                }
            }
        }
    }

    /// The columns of four rows of four.
    #[inline(always)]
    fn transpose4([r0, r1, r2, r3]: [F32x4; 4]) -> [F32x4; 4] {
        let lo01 = i32x4_shuffle::<0, 4, 1, 5>(r0.0, r1.0); // a0 b0 a1 b1
        let hi01 = i32x4_shuffle::<2, 6, 3, 7>(r0.0, r1.0); // a2 b2 a3 b3
        let lo23 = i32x4_shuffle::<0, 4, 1, 5>(r2.0, r3.0); // c0 d0 c1 d1
        let hi23 = i32x4_shuffle::<2, 6, 3, 7>(r2.0, r3.0); // c2 d2 c3 d3
        [
            F32x4(i32x4_shuffle::<0, 1, 4, 5>(lo01, lo23)),
            F32x4(i32x4_shuffle::<2, 3, 6, 7>(lo01, lo23)),
            F32x4(i32x4_shuffle::<0, 1, 4, 5>(hi01, hi23)),
            F32x4(i32x4_shuffle::<2, 3, 6, 7>(hi01, hi23)),
        ]
    }
}

/// Activations of a dense layer, with their derivatives (TensorFlow's float32 tanh and sigmoid).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    Linear,
    Relu,
    Tanh,
    Sigmoid,
}

/// Each activation as its own [`Op`], so a slice loop runs one function's code without
/// matching on the variant per element.
mod ops {
    use super::{Lane, Op, lane};

    pub struct Linear;
    pub struct Relu;
    pub struct Tanh;
    pub struct Sigmoid;

    impl Op for Linear {
        #[inline(always)]
        fn eval<V: Lane>(&self, x: V) -> (V, V) {
            (x, V::splat(1.0))
        }
    }

    impl Op for Relu {
        /// relu'(0) = 0, as TensorFlow.
        #[inline(always)]
        fn eval<V: Lane>(&self, x: V) -> (V, V) {
            let (zero, one) = (V::splat(0.0), V::splat(1.0));
            let pos = x.gt(zero);
            (V::select(pos, x, zero), V::select(pos, one, zero))
        }
    }

    impl Op for Tanh {
        #[inline(always)]
        fn eval<V: Lane>(&self, x: V) -> (V, V) {
            let t = lane::tanh(x);
            (t, V::splat(1.0) - t * t)
        }
    }

    impl Op for Sigmoid {
        #[inline(always)]
        fn eval<V: Lane>(&self, x: V) -> (V, V) {
            let s = lane::sigmoid(x);
            (s, s * (V::splat(1.0) - s))
        }
    }
}

impl Activation {
    /// `y = f(x)` and, if asked, `f'(x)`, over a slice.
    pub fn apply(self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>) {
        match self {
            Activation::Linear => simd::run(&ops::Linear, x, y, dydx),
            Activation::Relu => simd::run(&ops::Relu, x, y, dydx),
            Activation::Tanh => simd::run(&ops::Tanh, x, y, dydx),
            Activation::Sigmoid => simd::run(&ops::Sigmoid, x, y, dydx),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`matmul`] on the scalar path, whatever the build (the reference the SIMD path is
    /// tested against).
    fn matmul_scalar(a: &[f32], b: &[f32], c: &mut [f32], m: usize, k: usize, n: usize) {
        check_product(a, b, None, c, m, k, n);
        product::<Scalar4>(Rows { a, k }, b, None, c, m, n);
    }

    fn naive(a: &[f32], b: &[f32], m: usize, k: usize, n: usize) -> Vec<f32> {
        let mut c = vec![0.0f32; m * n];
        for i in 0..m {
            for j in 0..n {
                for p in 0..k {
                    c[i * n + j] += a[i * k + p] * b[p * n + j];
                }
            }
        }
        c
    }

    fn data(len: usize, seed: u32) -> Vec<f32> {
        (0..len).map(|i| ((i as u32).wrapping_mul(2_654_435_761).wrapping_add(seed) >> 8) as f32 / 8e6 - 1.0).collect()
    }

    #[test]
    fn matmul_sums_each_element_in_order() {
        // Widths that take every block (16, 8, 4, single columns) and none.
        for (m, k, n) in [(3, 5, 7), (2, 9, 31), (4, 1, 16), (1, 3, 1), (3, 8, 8)] {
            let (a, b) = (data(m * k, 1), data(k * n, 2));
            let mut c = vec![9.0; m * n];
            matmul(&a, &b, &mut c, m, k, n);
            assert_eq!(c, naive(&a, &b, m, k, n), "{m}×{k}×{n}");
            c.fill(9.0);
            matmul_scalar(&a, &b, &mut c, m, k, n);
            assert_eq!(c, naive(&a, &b, m, k, n), "{m}×{k}×{n}");
            let bias = data(n, 7);
            affine(&a, &b, &bias, &mut c, m, k, n);
            let mut want = naive(&a, &b, m, k, n);
            want.chunks_exact_mut(n).for_each(|r| r.iter_mut().zip(&bias).for_each(|(w, b)| *w += b));
            assert_eq!(c, want, "{m}×{k}×{n} + bias");
        }
    }

    #[test]
    fn transpose_moves_every_element_once() {
        for (m, n) in [(1, 1), (8, 1), (1, 8), (8, 8), (5, 7), (64, 64), (9, 12)] {
            let a = data(m * n, 11);
            let mut t = vec![f32::NAN; m * n];
            transpose(&a, &mut t, m, n);
            for i in 0..m {
                for j in 0..n {
                    assert_eq!(t[j * m + i].to_bits(), a[i * n + j].to_bits(), "{m}×{n} at {i},{j}");
                }
            }
        }
    }

    #[test]
    fn column_sums_add_the_rows_in_order() {
        let (m, n) = (7, 21);
        let a = data(m * n, 8);
        let mut s = vec![5.0; n];
        column_sums(&a, &mut s, m, n);
        let want: Vec<f32> = (0..n).map(|j| (0..m).fold(0.0, |acc, i| acc + a[i * n + j])).collect();
        assert_eq!(s, want);
    }

    #[test]
    fn transposed_products_match_the_plain_definition() {
        let (m, k, n) = (4, 6, 3);
        let a = data(k * m, 3); // k×m
        let b = data(k * n, 4); // k×n
        let mut c = vec![0.0; m * n];
        matmul_at_b(&a, &b, &mut c, k, m, n);
        let at: Vec<f32> = (0..m * k).map(|idx| a[(idx % k) * m + idx / k]).collect();
        assert_eq!(c, naive(&at, &b, m, k, n));
        let a2 = data(m * k, 5);
        let b2 = data(n * k, 6); // n×k
        let mut c2 = vec![0.0; m * n];
        matmul_a_bt(&a2, &b2, &mut c2, m, k, n);
        let bt: Vec<f32> = (0..k * n).map(|idx| b2[(idx % n) * k + idx / n]).collect();
        assert_eq!(c2, naive(&a2, &bt, m, k, n));
        let mut t = vec![0.0; k * n];
        transpose(&b2, &mut t, n, k);
        assert_eq!(t, bt);
        // a·bᵀ as a plain product with the transpose: the same bits.
        matmul(&a2, &t, &mut c, m, k, n);
        assert_eq!(c, c2);
        // Wide enough for the 16- and 8-column blocks; and one column (computed as a row).
        for (m, k, n) in [(10, 5, 29), (8, 10, 1), (13, 3, 1)] {
            let (a, b) = (data(k * m, 9), data(k * n, 10));
            let mut c = vec![0.0; m * n];
            matmul_at_b(&a, &b, &mut c, k, m, n);
            let at: Vec<f32> = (0..m * k).map(|idx| a[(idx % k) * m + idx / k]).collect();
            assert_eq!(c, naive(&at, &b, m, k, n), "{m}×{k}×{n}");
        }
    }

    #[test]
    fn activations_and_their_derivatives() {
        let x = [-2.0f32, -0.0, 0.0, 0.5, 3.0];
        let (mut y, mut d) = ([0.0; 5], [0.0; 5]);
        Activation::Relu.apply(&x, &mut y, Some(&mut d));
        assert_eq!((y, d), ([0.0, 0.0, 0.0, 0.5, 3.0], [0.0, 0.0, 0.0, 1.0, 1.0]));
        Activation::Tanh.apply(&x, &mut y, Some(&mut d));
        assert!((y[3] - 0.5f32.tanh()).abs() < 1e-6 && (d[3] - (1.0 - y[3] * y[3])).abs() == 0.0);
        Activation::Sigmoid.apply(&x, &mut y, Some(&mut d));
        assert_eq!(y[2], 0.5);
        assert_eq!(d[2], 0.25);
        Activation::Linear.apply(&x, &mut y, Some(&mut d));
        assert_eq!((y, d), (x, [1.0; 5]));
    }
}
