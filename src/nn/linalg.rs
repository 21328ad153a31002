//! The dense-layer loops of a small MLP: row-major matrix products and elementwise
//! activations, with an f32x4 path where WASM SIMD is compiled in.
//!
//! Each output element is summed in the same order on both paths (k from 0 upward), so the
//! SIMD and scalar results are bit-identical (tests/wasm.rs checks it in the browser).

use crate::quant::lane::{self, Lane};
use crate::quant::simd::{self, Op};

/// `c = a·b` for row-major `a` (m×k), `b` (k×n), `c` (m×n); `c` is overwritten.
pub fn matmul(a: &[f32], b: &[f32], c: &mut [f32], m: usize, k: usize, n: usize) {
    assert!(a.len() == m * k && b.len() == k * n && c.len() == m * n, "matmul: shapes");
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    if simd::enabled() {
        return simd128::matmul(a, b, c, m, k, n);
    }
    matmul_scalar(a, b, c, m, k, n);
}

/// The plain loop of [`matmul`]: for each row, accumulate `a[i][p]·b[p][·]` over p in order.
pub fn matmul_scalar(a: &[f32], b: &[f32], c: &mut [f32], m: usize, k: usize, n: usize) {
    assert!(a.len() == m * k && b.len() == k * n && c.len() == m * n, "matmul: shapes");
    for i in 0..m {
        let row = &mut c[i * n..(i + 1) * n];
        row.fill(0.0);
        for p in 0..k {
            let aip = a[i * k + p];
            for (cj, bj) in row.iter_mut().zip(&b[p * n..(p + 1) * n]) {
                *cj += aip * bj;
            }
        }
    }
}

/// `c = aᵀ·b` for row-major `a` (k×m), `b` (k×n): the weight gradient `xᵀ·δ` of a layer.
pub fn matmul_at_b(a: &[f32], b: &[f32], c: &mut [f32], k: usize, m: usize, n: usize) {
    assert!(a.len() == k * m && b.len() == k * n && c.len() == m * n, "matmul_at_b: shapes");
    c.fill(0.0);
    for p in 0..k {
        for i in 0..m {
            axpy(a[p * m + i], &b[p * n..(p + 1) * n], &mut c[i * n..(i + 1) * n]);
        }
    }
}

/// `c = a·bᵀ` for row-major `a` (m×k), `b` (n×k): the input gradient `δ·Wᵀ` of a layer.
/// Each element is a dot product summed in order.
pub fn matmul_a_bt(a: &[f32], b: &[f32], c: &mut [f32], m: usize, k: usize, n: usize) {
    assert!(a.len() == m * k && b.len() == n * k && c.len() == m * n, "matmul_a_bt: shapes");
    for i in 0..m {
        for j in 0..n {
            c[i * n + j] = a[i * k..(i + 1) * k].iter().zip(&b[j * k..(j + 1) * k]).fold(0.0, |s, (x, y)| s + x * y);
        }
    }
}

/// `t = aᵀ` for row-major `a` (m×n); `t` (n×m) is overwritten.
pub fn transpose(a: &[f32], t: &mut [f32], m: usize, n: usize) {
    assert!(a.len() == m * n && t.len() == m * n, "transpose: shapes");
    for (i, row) in a.chunks_exact(n).enumerate() {
        for (j, &v) in row.iter().enumerate() {
            t[j * m + i] = v;
        }
    }
}

/// `y += a·x` over a row.
#[inline]
pub fn axpy(a: f32, x: &[f32], y: &mut [f32]) {
    assert_eq!(x.len(), y.len());
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    if simd::enabled() {
        return simd128::axpy(a, x, y);
    }
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += a * xi;
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

impl Op for Activation {
    #[inline(always)]
    fn eval<V: Lane>(&self, x: V) -> (V, V) {
        let (zero, one) = (V::splat(0.0), V::splat(1.0));
        match self {
            Activation::Linear => (x, one),
            // relu'(0) = 0, as TensorFlow.
            Activation::Relu => {
                let pos = x.gt(zero);
                (V::select(pos, x, zero), V::select(pos, one, zero))
            }
            Activation::Tanh => {
                let t = lane::tanh(x);
                (t, one - t * t)
            }
            Activation::Sigmoid => {
                let s = lane::sigmoid(x);
                (s, s * (one - s))
            }
        }
    }
}

impl Activation {
    /// `y = f(x)` and, if asked, `f'(x)`, over a slice.
    pub fn apply(self, x: &[f32], y: &mut [f32], dydx: Option<&mut [f32]>) {
        simd::run(&self, x, y, dydx);
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128 {
    use core::arch::wasm32::{f32x4_add, f32x4_mul, f32x4_splat, v128, v128_load, v128_store};

    /// `y += a·x`, four lanes at a time, then the tail; the same two roundings per element as
    /// the scalar loop.
    #[inline]
    pub fn axpy(a: f32, x: &[f32], y: &mut [f32]) {
        let n = x.len();
        assert_eq!(n, y.len());
        let body = n / 4 * 4;
        let va = f32x4_splat(a);
        let (xp, yp) = (x.as_ptr(), y.as_mut_ptr());
        let mut j = 0;
        while j < body {
            // SAFETY: j + 4 ≤ body ≤ n = len of x and y; v128 access needs no alignment.
            unsafe {
                let prod = f32x4_mul(va, v128_load(xp.add(j) as *const v128));
                v128_store(yp.add(j) as *mut v128, f32x4_add(v128_load(yp.add(j) as *const v128), prod));
            }
            j += 4;
        }
        for j in body..n {
            y[j] += a * x[j];
        }
    }

    pub fn matmul(a: &[f32], b: &[f32], c: &mut [f32], m: usize, k: usize, n: usize) {
        for i in 0..m {
            let row = &mut c[i * n..(i + 1) * n];
            row.fill(0.0);
            for p in 0..k {
                axpy(a[i * k + p], &b[p * n..(p + 1) * n], row);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let (m, k, n) = (3, 5, 7);
        let (a, b) = (data(m * k, 1), data(k * n, 2));
        let mut c = vec![9.0; m * n];
        matmul(&a, &b, &mut c, m, k, n);
        assert_eq!(c, naive(&a, &b, m, k, n));
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
    }
}
