//! Faster twins of [`super`]'s TensorFlow functions on a restricted range, where they give the
//! same bits (a kernel takes them when every lane of a vector is in range).

use super::Lane;

/// [`super::exp`] where `|x| ≤ 87`, every lane (NaN excluded): the same polynomial times `2^m` in one
/// product. There `m ∈ [−125, 126]` and the polynomial lies in [0.7, 1.42], so `y·2^m` is a
/// normal float and both products of [`super::exp`] are exact, and none of its range selects fires.
#[inline(always)]
pub fn exp_in_range<V: Lane>(x: V) -> V {
    let (m, y) = super::exp_reduced(x);
    y * m.pow2()
}

#[cfg(test)]
mod tests {
    use super::super::exp;
    use super::*;

    /// exp_in_range is exp on [−87, 87]: every 61st float there (both signs, every binade
    /// down to the subnormals), the bounds, and the integers' neighbours (where m changes).
    #[test]
    fn exp_in_range_is_exp_within_its_range() {
        let bound = 87.0f32.to_bits();
        let magnitudes = (0..=bound).step_by(61).chain([bound, 1, 0]).map(f32::from_bits);
        let near_steps = (-125..=125).flat_map(|k| {
            let c = k as f32 * std::f32::consts::LN_2 * 0.5;
            (-4i32..=4).map(move |d| f32::from_bits(c.to_bits().wrapping_add_signed(d)))
        });
        for v in magnitudes.chain(near_steps).filter(|v| v.abs() <= 87.0) {
            for x in [v, -v] {
                assert_eq!(exp_in_range(x).to_bits(), exp(x).to_bits(), "x = {x:e}");
            }
        }
    }
}
