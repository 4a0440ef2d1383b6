//! The glue between designs and controllers: a design's [`DMatrix`] as the fixed-size
//! block a controller computes with, and a gain split by blocks of states.

use super::ControlError;
use nalgebra::{DMatrix, SMatrix};
use std::ops::Range;

/// `matrix` as a fixed-size R × C matrix, for a controller that computes with
/// [`SMatrix`]es (which do not allocate): the designs return [`DMatrix`]es, sized at run
/// time.
///
/// # Errors
/// [`ControlError::DimensionMismatch`] naming `name` when `matrix` is not R × C.
///
/// # Example
/// ```
/// use lagrange_runtime::control::{dlqr, fixed};
/// use lagrange_runtime::nalgebra::{DMatrix, SMatrix};
///
/// let a = DMatrix::from_row_slice(2, 2, &[1.0, 0.1, 0.0, 1.0]);
/// let b = DMatrix::from_row_slice(2, 1, &[0.005, 0.1]);
/// let (k, _) = dlqr(&a, &b, &DMatrix::identity(2, 2), &DMatrix::identity(1, 1)).unwrap();
/// let k: SMatrix<f64, 1, 2> = fixed(&k, "K").unwrap();
/// assert!(fixed::<2, 2>(&b, "B").is_err()); // B is 2 × 1
/// # let _ = k;
/// ```
pub fn fixed<const R: usize, const C: usize>(
    matrix: &DMatrix<f64>,
    name: &'static str,
) -> Result<SMatrix<f64, R, C>, ControlError> {
    if matrix.shape() != (R, C) {
        return Err(ControlError::DimensionMismatch {
            matrix: name,
            expected: (R, C),
            found: matrix.shape(),
        });
    }
    Ok(SMatrix::from_fn(|i, j| matrix[(i, j)]))
}

/// The column blocks of a gain K by ranges of state indices: `split_columns(&k, &[0..n,
/// n..n + p])` gives K_x and K_ξ of an [`lqi`](super::lqi)/[`dlqi`](super::dlqi) gain
/// [K_x K_ξ] on (x, ξ); `&[0..N, N..2 * N]` the gains on the coordinates and on the
/// velocities of x = (q, q̇). The ranges may be in any order and may overlap or leave
/// columns out; each block has K's rows.
///
/// # Errors
/// [`ControlError::DimensionMismatch`] naming `"K"` (with the columns the range needs)
/// for a range that ends beyond K's columns, [`ControlError::InvalidSetting`] for one
/// whose start is past its end.
///
/// # Example
/// ```
/// use lagrange_runtime::control::{dlqi, split_columns};
/// use lagrange_runtime::nalgebra::DMatrix;
///
/// // The double integrator at 10 Hz, holding its position: K = [K_x K_ξ], 1 × (2 + 1).
/// let a = DMatrix::from_row_slice(2, 2, &[1.0, 0.1, 0.0, 1.0]);
/// let b = DMatrix::from_row_slice(2, 1, &[0.005, 0.1]);
/// let c = DMatrix::from_row_slice(1, 2, &[1.0, 0.0]);
/// let (k, _) = dlqi(&a, &b, &c, &DMatrix::identity(3, 3), &DMatrix::identity(1, 1), 0.1).unwrap();
/// let blocks = split_columns(&k, &[0..2, 2..3]).unwrap();
/// assert_eq!((blocks[0].shape(), blocks[1].shape()), ((1, 2), (1, 1)));
/// assert_eq!(blocks[1][(0, 0)], k[(0, 2)]);
/// ```
pub fn split_columns(
    k: &DMatrix<f64>,
    ranges: &[Range<usize>],
) -> Result<Vec<DMatrix<f64>>, ControlError> {
    ranges
        .iter()
        .map(|range| {
            if range.start > range.end {
                return Err(ControlError::InvalidSetting(
                    "a block of columns must not start after it ends",
                ));
            }
            if range.end > k.ncols() {
                return Err(ControlError::DimensionMismatch {
                    matrix: "K",
                    expected: (k.nrows(), range.end),
                    found: k.shape(),
                });
            }
            Ok(k.columns(range.start, range.len()).into_owned())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_blocks_keep_every_entry_and_refuse_other_shapes() {
        let m = DMatrix::from_fn(2, 3, |i, j| (10 * i + j) as f64);
        let s: SMatrix<f64, 2, 3> = fixed(&m, "M").unwrap();
        assert_eq!(s.as_slice(), m.as_slice());
        assert_eq!(
            fixed::<3, 2>(&m, "M"),
            Err(ControlError::DimensionMismatch {
                matrix: "M",
                expected: (3, 2),
                found: (2, 3)
            })
        );
    }

    #[test]
    fn split_columns_gives_each_block_and_checks_the_ranges() {
        let k = DMatrix::from_fn(2, 5, |i, j| (10 * i + j) as f64);
        let blocks = split_columns(&k, &[3..5, 0..3, 1..1]).unwrap();
        assert_eq!(blocks[0], k.columns(3, 2));
        assert_eq!(blocks[1], k.columns(0, 3));
        assert_eq!(blocks[2].shape(), (2, 0));
        assert_eq!(
            split_columns(&k, &[0..1, 4..6]),
            Err(ControlError::DimensionMismatch {
                matrix: "K",
                expected: (2, 6),
                found: (2, 5)
            })
        );
        #[allow(clippy::reversed_empty_ranges)]
        let backwards = split_columns(&k, &[0..1, 3..2]);
        assert!(matches!(backwards, Err(ControlError::InvalidSetting(_))));
    }
}
