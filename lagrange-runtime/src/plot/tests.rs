//! The tests of the plots and animations.

use super::*;

#[test]
fn a_fitted_logarithmic_axis_has_positive_ends_of_finite_ratio() {
    // Whole decades around ordinary data.
    assert_eq!(decades([0.5, 20.0].into_iter()), 0.1..100.0);
    for values in [
        vec![5e-324],
        vec![5e-324, 1e300],
        vec![1e-310, 2e-310],
        vec![f64::MIN_POSITIVE, f64::MAX],
    ] {
        let r = decades(values.iter().copied());
        assert!(r.start > 0.0 && r.start < r.end, "{values:?}: {r:?}");
        assert!((r.end / r.start).is_finite(), "{values:?}: {r:?}");
        // The highest value is always on the axis.
        let top = values.iter().copied().fold(0.0, f64::max);
        assert!(top <= r.end && top >= r.start, "{values:?}: {r:?}");
    }
}

#[test]
fn lines_are_cut_at_the_edges_of_the_region() {
    let region = (0.0..10.0, 0.0..1.0, false, false);
    // A dip to −1e10 between two points inside: two pieces, each ending on y = 0.
    let pieces = clip(&[(0.0, 0.5), (1.0, -1e10), (2.0, 0.5)], &region);
    assert_eq!(pieces.len(), 2);
    let (first, second) = (&pieces[0], &pieces[1]);
    assert_eq!(first[0], (0.0, 0.5));
    assert!(first[1].1.abs() < 1e-9 && (first[1].0 - 0.5e-10).abs() < 1e-12);
    assert!(second[0].1.abs() < 1e-9 && second[1] == (2.0, 0.5));
    // Inside: unchanged, one piece.
    let line = [(1.0, 0.1), (2.0, 0.2), (3.0, 0.3)];
    assert_eq!(clip(&line, &region), vec![line.to_vec()]);
    // Wholly outside, or broken by a NaN: nothing of it.
    assert!(clip(&[(1.0, 2.0), (2.0, 3.0)], &region).is_empty());
    assert_eq!(
        clip(&[(1.0, 0.5), (f64::NAN, 0.5), (3.0, 0.5)], &region).len(),
        0
    );
    // A segment across the whole region, from far outside to far outside.
    let across = clip(&[(-1e10, 0.5), (1e10, 0.5)], &region);
    assert_eq!(across, vec![vec![(0.0, 0.5), (10.0, 0.5)]]);
    // On a logarithmic axis the cut is in log y: from 10 to 1e-10 (log y from 1 to −10)
    // across y = 1 at 1/11 of the way.
    let log = (0.0..10.0, 1.0..100.0, false, true);
    let pieces = clip(&[(0.0, 10.0), (10.0, 1e-10)], &log);
    let cut = pieces[0][1];
    assert!(
        (cut.0 - 10.0 / 11.0).abs() < 1e-12 && (cut.1 - 1.0).abs() < 1e-12,
        "{cut:?}"
    );
}

#[test]
fn lines_on_a_logarithmic_x_axis_are_cut_in_log_x() {
    // From x = 0.1 to x = 1000 (log x from −1 to 3) across the right edge x = 100 at 3/4 of
    // the way, y linear.
    let region = (1.0..100.0, 0.0..10.0, true, false);
    let pieces = clip(&[(0.1, 2.0), (1000.0, 6.0)], &region);
    assert_eq!(pieces.len(), 1);
    let (start, end) = (pieces[0][0], pieces[0][1]);
    // Entering at x = 1 (a quarter of the way, y = 3), leaving at x = 100 (y = 5).
    assert!(
        (start.0 - 1.0).abs() < 1e-12 && (start.1 - 3.0).abs() < 1e-12,
        "{start:?}"
    );
    assert!(
        (end.0 - 100.0).abs() < 1e-10 && (end.1 - 5.0).abs() < 1e-12,
        "{end:?}"
    );
    // Inside: the points come back as they were, to rounding.
    let inside = clip(&[(2.0, 1.0), (50.0, 9.0)], &region);
    assert!((inside[0][0].0 - 2.0).abs() < 1e-14 && (inside[0][1].0 - 50.0).abs() < 1e-12);
}
