//! What the tensor-file targets check of every tensor they read.

use qscope_tensors::Tensor;

/// The most elements read per tensor (keeps each input fast; for a deflated `.npz` member,
/// whose sizes are the directory's word, it also bounds what is inflated).
pub const MAX_ELEMENTS: u64 = 1 << 20;

/// The tensor's NaN and ±inf counts match its values, and there are `n` of them.
pub fn check(t: &Tensor, n: u64, what: &str) {
    assert_eq!(t.values.len() as u64, n, "{what}: {} values for {n} elements", t.values.len());
    let nan = t.values.iter().filter(|v| v.is_nan()).count();
    let pos = t.values.iter().filter(|&&v| v == f32::INFINITY).count();
    let neg = t.values.iter().filter(|&&v| v == f32::NEG_INFINITY).count();
    assert_eq!((t.nan, t.pos_inf, t.neg_inf), (nan, pos, neg), "{what}: NaN, +inf, -inf miscounted");
    assert!(t.rounded as u64 <= n, "{what}: {} rounded of {n}", t.rounded);
}
