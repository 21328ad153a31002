//! A tensor channel by channel (along its channel axis): each channel's largest magnitude, its SQNR
//! under the selected quantizer and, for a per-channel quantizer, its scale; the worst channels
//! and the outlier channels named — where a per-tensor scale loses, and why.

use qscope_quant::Report;
use qscope_quant::shaped::Shape;

/// A channel is an outlier when its largest magnitude is at least this many times the median
/// channel's.
pub const OUTLIER_RATIO: f32 = 4.0;

/// One channel's numbers.
#[derive(Clone, Debug, PartialEq)]
pub struct ChannelStat {
    pub index: usize,
    /// `max |x|` over the channel's finite values.
    pub amax: f32,
    /// The channel's SQNR in dB (+∞ where it is exact).
    pub sqnr_db: f64,
    /// The channel's own scale, for a per-channel quantizer.
    pub scale: Option<f32>,
}

/// Every channel of `values` (of `shape`) and its quantized `y`; `reports` are a per-channel
/// quantizer's (one per channel), or empty. One row-major pass with an accumulator per channel
/// (no channel is gathered): a 4096 × 4096 weight in one sweep of memory.
pub fn stats(values: &[f32], y: &[f32], shape: &Shape, reports: &[Report]) -> Vec<ChannelStat> {
    let n = shape.channels();
    let (_, _, inner) = shape.split(values.len());
    let sums = qscope_tensors::stats::channel_sums(values, y, n, inner);
    (0..n)
        .map(|c| {
            let (signal, noise, amax) = sums[c];
            let sqnr_db = if noise == 0.0 { f64::INFINITY } else { 10.0 * (signal / noise).log10() };
            let scale = if reports.len() == n { reports[c].scale } else { None };
            ChannelStat { index: c, amax, sqnr_db, scale }
        })
        .collect()
}

/// The `k` channels of lowest SQNR, worst first.
pub fn worst(stats: &[ChannelStat], k: usize) -> Vec<&ChannelStat> {
    let mut v: Vec<&ChannelStat> = stats.iter().filter(|s| !s.sqnr_db.is_nan()).collect();
    v.sort_by(|a, b| a.sqnr_db.total_cmp(&b.sqnr_db).then(a.index.cmp(&b.index)));
    v.truncate(k);
    v
}

/// The median channel's largest magnitude.
pub fn median_amax(stats: &[ChannelStat]) -> f32 {
    let mut a: Vec<f32> = stats.iter().map(|s| s.amax).collect();
    a.sort_by(f32::total_cmp);
    a.get(a.len() / 2).copied().unwrap_or(0.0)
}

/// The channels whose largest magnitude is at least [`OUTLIER_RATIO`] times the median's, with
/// that ratio, largest first.
pub fn outliers(stats: &[ChannelStat]) -> Vec<(usize, f32)> {
    let median = median_amax(stats);
    if median <= 0.0 {
        return Vec::new();
    }
    let mut v: Vec<(usize, f32)> =
        stats.iter().map(|s| (s.index, s.amax / median)).filter(|(_, r)| *r >= OUTLIER_RATIO).collect();
    v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    v
}

/// Channels per bar of a strip `w` pixels wide: one, or several when there are more channels than
/// half the pixels (the bar then shows its worst).
pub fn per_bar(channels: usize, w: f64) -> usize {
    let bins = channels.min((w / 2.0).max(1.0) as usize).max(1);
    channels.div_ceil(bins).max(1)
}

/// The channel under pixel `x` of a strip `w` wide: its bar's own, or the worst of its bar's.
pub fn channel_at(stats: &[ChannelStat], w: f64, x: f64) -> Option<usize> {
    let per = per_bar(stats.len(), w);
    let bar = w / stats.len().div_ceil(per).max(1) as f64;
    let chunk = stats.chunks(per).nth((x.max(0.0) / bar) as usize)?;
    worst(chunk, 1).first().copied().or(chunk.first()).map(|c| c.index)
}

#[cfg(test)]
mod tests {
    use super::*;
    use qscope_quant::{Ctx, parse};

    /// 16 rows × 6 channels, channel 4 ten times larger.
    fn tensor() -> (Vec<f32>, Shape) {
        let x = (0..96).map(|i| (((i * 13) % 11) as f32 - 5.0) * 0.05 * if i % 6 == 4 { 10.0 } else { 1.0 }).collect();
        (x, Shape::new(vec![16, 6]))
    }

    #[test]
    fn an_outlier_channel_is_named_with_its_ratio_to_the_median() {
        let (x, shape) = tensor();
        let s = stats(&x, &x, &shape, &[]);
        assert_eq!(s.len(), 6);
        let o = outliers(&s);
        assert_eq!(o.len(), 1);
        assert_eq!(o[0].0, 4);
        assert!((o[0].1 - 10.0).abs() < 1e-4, "{o:?}");
    }

    fn stat(index: usize, sqnr_db: f64) -> ChannelStat {
        ChannelStat { index, amax: 1.0, sqnr_db, scale: None }
    }

    #[test]
    fn a_click_on_the_strip_picks_the_channel_under_it() {
        let s: Vec<ChannelStat> = (0..6).map(|i| stat(i, 20.0 + i as f64)).collect();
        // 6 channels on 120 px: 20 px each.
        assert_eq!(per_bar(6, 120.0), 1);
        assert_eq!(channel_at(&s, 120.0, 0.0), Some(0));
        assert_eq!(channel_at(&s, 120.0, 45.0), Some(2));
        assert_eq!(channel_at(&s, 120.0, 119.9), Some(5));
        assert_eq!(channel_at(&s, 120.0, 130.0), None);
    }

    #[test]
    fn a_bar_of_many_channels_picks_its_worst() {
        // 4096 channels on 400 px: 196 bars of 21 channels (the last shorter).
        let s: Vec<ChannelStat> = (0..4096).map(|i| stat(i, if i == 30 { 3.0 } else { 40.0 })).collect();
        assert_eq!(per_bar(4096, 400.0), 21);
        assert_eq!(channel_at(&s, 400.0, 3.0), Some(30), "bar 1 holds channels 21 to 41");
        assert_eq!(channel_at(&s, 400.0, 0.5), Some(0), "a tie is the first channel");
    }

    #[test]
    fn a_per_tensor_scale_hurts_the_small_channels_most() {
        let (x, shape) = tensor();
        let q = parse("qkeras.quantized_bits(4,0,1,alpha='auto')").unwrap();
        // Per tensor (as one channel): the outlier channel sets the scale.
        let (y, _, _) = q.eval(&x, &mut Ctx::training(0));
        let s = stats(&x, &y, &shape, &[]);
        let w = worst(&s, 2);
        assert!(w.iter().all(|c| c.index != 4), "{w:?}");
        assert!(s[4].sqnr_db > w[0].sqnr_db);
        // Per channel: every channel gets its own scale, reported.
        let mut yc = vec![0.0; 96];
        let reports = q.apply_shaped(&x, &shape, &mut yc, None, &mut Ctx::training(0));
        let s = stats(&x, &yc, &shape, &reports);
        assert!(s.iter().all(|c| c.scale.is_some()));
        assert!(worst(&s, 1)[0].sqnr_db > w[0].sqnr_db, "per-channel scales lift the worst channel");
    }
}
