//! Pixel geometry (clipping, dashes, collapsing to backend points).

use super::super::geometry::{Frame, clip, dash, to_backend};

fn length(line: &[(f64, f64)]) -> f64 {
    line.windows(2).map(|w| (w[1].0 - w[0].0).hypot(w[1].1 - w[0].1)).sum()
}

#[test]
fn a_frame_maps_data_corners_to_pixel_corners() {
    let f = Frame { px_x: (10.0, 110.0), px_y: (200.0, 100.0), x: (-1.0, 1.0), y: (0.0, 2.0) };
    assert_eq!(f.map(-1.0, 0.0), (10.0, 200.0));
    assert_eq!(f.map(1.0, 2.0), (110.0, 100.0));
    assert_eq!(f.map(0.0, 1.0), (60.0, 150.0));
    assert_eq!(f.rect(), (10.0, 100.0, 110.0, 200.0));
}

#[test]
fn clipping_keeps_the_inside_and_splits_where_a_line_leaves() {
    let rect = (0.0, 0.0, 10.0, 10.0);
    assert_eq!(clip(&[(-5.0, 5.0), (15.0, 5.0)], rect), vec![vec![(0.0, 5.0), (10.0, 5.0)]]);
    // Out through the top and back in: two pieces.
    let pieces = clip(&[(1.0, 5.0), (3.0, -5.0), (5.0, 5.0)], rect);
    assert_eq!(pieces.len(), 2);
    assert_eq!(pieces[0], vec![(1.0, 5.0), (2.0, 0.0)]);
    assert_eq!(pieces[1], vec![(4.0, 0.0), (5.0, 5.0)]);
    assert!(clip(&[(20.0, 20.0), (30.0, 30.0)], rect).is_empty());
    // A NaN breaks the line.
    assert_eq!(clip(&[(1.0, 1.0), (2.0, 2.0), (f64::NAN, 3.0), (4.0, 4.0), (5.0, 5.0)], rect).len(), 2);
}

#[test]
fn dashes_follow_the_pattern_along_the_line() {
    let line = [(0.0, 0.0), (10.0, 0.0), (10.0, 10.0)];
    let d = dash(&line, &[3.0, 2.0]);
    // 20 pixels of 3-on-2-off: dashes start at 0, 5, 10 and 15.
    assert_eq!(d.len(), 4);
    assert!(d.iter().all(|p| (length(p) - 3.0).abs() < 1e-9), "{d:?}");
    // The third dash turns the corner.
    assert_eq!(d[2], vec![(10.0, 0.0), (10.0, 3.0)]);
    assert_eq!(d[1], vec![(5.0, 0.0), (8.0, 0.0)]);
    assert_eq!(dash(&line, &[]), vec![line.to_vec()]);
}

#[test]
fn backend_points_are_whole_pixels_with_straight_stretches_merged() {
    let line = [(0.2, 5.0), (1.0, 5.0), (2.0, 5.1), (3.0, 5.0), (3.0, 8.0), (3.0, 9.0), (4.4, 10.0)];
    assert_eq!(to_backend(&line), vec![(0, 5), (3, 5), (3, 9), (4, 10)]);
    // A flat run of a staircase becomes its two ends.
    let run: Vec<(f64, f64)> = (0..500).map(|i| (i as f64 * 0.7, 42.0)).collect();
    assert_eq!(to_backend(&run), vec![(0, 42), (349, 42)]);
}
