//! The 3×3 maths of reading a robot: the rotation of an `rpy`, a matrix times a vector,
//! a unit vector, the eigenvalues of a symmetric matrix (to refuse an inertia that is not
//! positive semidefinite) and its L D Lᵀ factorization (to write a link's rotational
//! energy as three squares). All in `f64`, at compile time.

/// A 3×3 matrix, row by row.
pub type Matrix = [[f64; 3]; 3];

/// The eigenvalues of a symmetric 3×3 matrix whose entries are at most 1 in magnitude,
/// by cyclic Jacobi rotations: each is accurate to a few ε of the matrix's norm, which
/// the closed form (the roots of the characteristic cubic) is not near a double root.
pub fn symmetric_eigenvalues(mut a: Matrix) -> [f64; 3] {
    for _sweep in 0..64 {
        let off = a[0][1].abs() + a[0][2].abs() + a[1][2].abs();
        let diagonal = a[0][0].abs() + a[1][1].abs() + a[2][2].abs();
        if off <= f64::EPSILON * f64::EPSILON * diagonal || off == 0.0 {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            if a[p][q] == 0.0 {
                continue;
            }
            // The rotation that zeroes a[p][q]: t = tan of its angle, the smaller root of
            // t² + 2θt − 1 = 0 (Golub and Van Loan, algorithm 8.4.1).
            let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
            let t = if theta.abs() > 1e150 {
                0.5 / theta
            } else {
                theta.signum() / (theta.abs() + theta.mul_add(theta, 1.0).sqrt())
            };
            let c = 1.0 / t.mul_add(t, 1.0).sqrt();
            let s = t * c;
            // A ← Jᵀ A J: the columns p and q, then the rows.
            for row in &mut a {
                let (kp, kq) = (row[p], row[q]);
                row[p] = c * kp - s * kq;
                row[q] = s * kp + c * kq;
            }
            let (rp, rq) = (a[p], a[q]);
            a[p] = std::array::from_fn(|k| c * rp[k] - s * rq[k]);
            a[q] = std::array::from_fn(|k| s * rp[k] + c * rq[k]);
            a[p][q] = 0.0;
            a[q][p] = 0.0;
        }
    }
    [a[0][0], a[1][1], a[2][2]]
}

/// The rotation of a URDF `rpy`: about the fixed x, y then z axes.
pub fn rpy_matrix([r, p, y]: [f64; 3]) -> Matrix {
    let (sr, cr, sp, cp, sy, cy) = (r.sin(), r.cos(), p.sin(), p.cos(), y.sin(), y.cos());
    // rot_z(y) rot_y(p) rot_x(r).
    [
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ]
}

/// I = L D Lᵀ of a symmetric 3×3 matrix, L unit lower triangular: each pivot d_k with
/// the column l_k of L. `None` where a zero pivot stands over a nonzero entry.
pub fn unit_ldlt(m: &Matrix) -> Option<[(f64, [f64; 3]); 3]> {
    let ratio = |x: f64, d: f64| {
        if x == 0.0 {
            Some(0.0)
        } else {
            (d != 0.0).then(|| x / d)
        }
    };
    let [[d0, _, _], [t10, t11, _], [t20, t21, t22]] = *m;
    let (l10, l20) = (ratio(t10, d0)?, ratio(t20, d0)?);
    let d1 = t11 - l10 * l10 * d0;
    let l21 = ratio(t21 - l20 * l10 * d0, d1)?;
    let d2 = t22 - l20 * l20 * d0 - l21 * l21 * d1;
    Some([
        (d0, [1.0, l10, l20]),
        (d1, [0.0, 1.0, l21]),
        (d2, [0.0, 0.0, 1.0]),
    ])
}

/// `v / |v|`, `None` for the zero vector. Scaled by its largest component first, so that
/// no square overflows or underflows: `0 0 1e200` and `1e-200 0 0` are the unit axes they
/// point along (their squared norms, 1e400 and 1e-400, are beyond `f64`).
pub fn unit_vector(v: [f64; 3]) -> Option<[f64; 3]> {
    let largest = v.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
    if largest == 0.0 || !largest.is_finite() {
        return None;
    }
    let scaled = v.map(|x| x / largest);
    let norm = scaled.iter().map(|x| x * x).sum::<f64>().sqrt();
    Some(scaled.map(|x| x / norm))
}

/// `m v`.
pub fn apply(m: &Matrix, v: [f64; 3]) -> [f64; 3] {
    [0, 1, 2].map(|i| (0..3).map(|k| m[i][k] * v[k]).sum())
}
