//! Deterministic test and benchmark inputs: the same numbers on every target.

/// `n` numbers spread over [−2, 2) by a fixed LCG, so every runtime (native, Node, the browser)
/// sees the same: the benchmarks' inputs and the kernels' tests' sweeps.
pub fn spread(n: usize) -> Vec<f32> {
    let mut s = 0x2545_f491_4f6c_dd1du64;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 4.0 - 2.0
        })
        .collect()
}
