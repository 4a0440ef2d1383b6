//! Robust pole placement by state feedback (Kautsky, Nichols and Van Dooren; Tits and
//! Yang), a port of SciPy's `place_poles`.

use super::linear_system::{ctrb, numerical_rank};
use super::{check_system, ControlError};
use crate::tolerances::{PLACE_CONVERGED, PLACE_SWEEPS};
use nalgebra::{Complex, DMatrix, DVector};

/// The method of [`place_with`]: how the eigenvectors of the closed loop are chosen among
/// those the poles allow when B has several columns (with one input the gain is unique
/// and both give it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PlaceMethod {
    /// Tits and Yang's method, SciPy's default: updates the eigenvectors two at a time to
    /// maximize |det X| (X the matrix of unit eigenvectors), which bounds the sensitivity
    /// of the poles; handles complex poles.
    #[default]
    Yt,
    /// Method 0 of Kautsky, Nichols and Van Dooren: one eigenvector at a time, made as
    /// orthogonal to the others as its pole allows; real poles only.
    Knv0,
}

/// A pole placement: the gain and what the iterations reached.
#[derive(Debug, Clone, PartialEq)]
pub struct Placement {
    /// K (m × n) of u = −K x: A − B K has the requested poles.
    pub gain: DMatrix<f64>,
    /// The eigenvalues of A − B K as computed, in no particular order: how accurately the
    /// poles were placed.
    pub poles: Vec<Complex<f64>>,
    /// The eigenvector matrix X of the closed loop chosen (unit columns; a complex pair as
    /// its real and imaginary parts); the larger |det X|, the less sensitive the poles.
    pub eigenvectors: DMatrix<f64>,
    /// Sweeps of the iterative methods made (0 when the gain is unique: one input, or B
    /// of rank n).
    pub iterations: usize,
    /// Whether the relative change of |det X| in the last sweep fell below 10⁻³ (SciPy's
    /// `rtol`) within 30 sweeps; `true` when there was nothing to iterate.
    pub converged: bool,
}

/// The state feedback gain K of u = −K x that gives A − B K the eigenvalues `poles`
/// (MATLAB's `place`, SciPy's `place_poles`), with the robust method of Tits and Yang
/// ([`PlaceMethod::Yt`]): [`place_with`] with that method, its gain.
///
/// # Errors
/// As [`place_with`].
///
/// # Example
/// ```
/// use lagrange_runtime::control::place;
/// use lagrange_runtime::nalgebra::{Complex, DMatrix};
///
/// // The double integrator with poles at −1 ± i: s² + 2s + 2, so K = [2, 2].
/// let a = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, 0.0, 0.0]);
/// let b = DMatrix::from_row_slice(2, 1, &[0.0, 1.0]);
/// let k = place(&a, &b, &[Complex::new(-1.0, 1.0), Complex::new(-1.0, -1.0)]).unwrap();
/// assert!((&k - DMatrix::from_row_slice(1, 2, &[2.0, 2.0])).amax() < 1e-14);
/// ```
pub fn place(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    poles: &[Complex<f64>],
) -> Result<DMatrix<f64>, ControlError> {
    place_with(a, b, poles, PlaceMethod::Yt).map(|placement| placement.gain)
}

/// Pole placement by state feedback with a chosen method: K (m × n) such that the
/// eigenvalues of A − B K are `poles` (n of them, complex ones in conjugate pairs), for a
/// continuous (s) or a sampled (z) system alike. A port of SciPy's `place_poles`, whose
/// steps and defaults it keeps:
///
/// - B = [U₀ U₁] [Z; 0] (QR). If B has rank n the gain is read off directly
///   (K = B⁺(A − Λ), Λ the poles as a real block diagonal).
/// - Otherwise each pole λ's admissible eigenvectors are the null space of U₁ᵀ(A − λI);
///   the method picks one per pole (unit length) so that the eigenvector matrix X is as
///   well conditioned as it can be made, maximizing |det X| (Kautsky, Nichols and Van
///   Dooren 1985, method 0; Tits and Yang 1996, two at a time, complex pairs as their real
///   and imaginary parts), sweeping until |det X| changes by less than 10⁻³ relative or 30
///   sweeps. With one input the eigenvectors, and the gain, are unique and no sweep is
///   made.
/// - Then A − BK = X Λ X⁻¹ gives K = Z⁻¹ U₀ᵀ (A − X Λ X⁻¹).
///
/// The robustness is that of the eigenvectors: the closed loop's poles move least under
/// perturbations of A, B and K when X is well conditioned, and with several inputs this
/// choice is the one free part of the design. Poles computed back from A − BK are returned
/// in the [`Placement`].
///
/// # Errors
/// [`ControlError::NotSquare`], [`ControlError::DimensionMismatch`] (B with n rows;
/// `"poles"` when there are not n of them) and [`ControlError::NonFinite`] (also naming
/// `"poles"`); [`ControlError::InvalidSetting`] for complex poles without their conjugates
/// (compared exactly, as SciPy does), for a B whose columns are dependent (fewer than n
/// independent ones: drop the redundant inputs) or complex poles with
/// [`PlaceMethod::Knv0`]; [`ControlError::Uncontrollable`] when the controllability
/// matrix is rank deficient ([`ctrb`]'s test, made first: it is also the cause when B has
/// no columns); [`ControlError::RepeatedPole`] for a pole asked for more times than
/// rank(B); [`ControlError::InvalidSetting`] when the chosen
/// eigenvectors are dependent (the poles cannot be placed with a diagonalizable closed
/// loop).
///
/// References: J. Kautsky, N. K. Nichols and P. Van Dooren, "Robust pole assignment in
/// linear state feedback", Int. J. Control 41 (1985) 1129–1155; A. L. Tits and Y. Yang,
/// "Globally convergent algorithms for robust pole assignment by state feedback", IEEE
/// Trans. Autom. Control 41 (1996) 1432–1452.
///
/// # Example
/// Two inputs on three states: the gain is not unique, the poles are.
/// ```
/// use lagrange_runtime::control::{place_with, PlaceMethod};
/// use lagrange_runtime::nalgebra::{Complex, DMatrix};
///
/// let a = DMatrix::from_row_slice(3, 3, &[0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, -2.0, 0.5]);
/// let b = DMatrix::from_row_slice(3, 2, &[0.0, 1.0, 1.0, 0.0, 0.0, 1.0]);
/// let poles = [Complex::new(-1.0, 0.0), Complex::new(-2.0, 1.0), Complex::new(-2.0, -1.0)];
/// let placement = place_with(&a, &b, &poles, PlaceMethod::Yt).unwrap();
/// let mut placed = (&a - &b * &placement.gain).complex_eigenvalues().as_slice().to_vec();
/// placed.sort_by(|p, q| p.re.total_cmp(&q.re).then(p.im.total_cmp(&q.im)));
/// for (p, want) in placed.iter().zip([poles[2], poles[1], poles[0]]) {
///     assert!((p - want).norm() < 1e-12);
/// }
/// ```
pub fn place_with(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    poles: &[Complex<f64>],
    method: PlaceMethod,
) -> Result<Placement, ControlError> {
    check_system(a, b)?;
    let (n, m) = (a.nrows(), b.ncols());
    if poles.len() != n {
        return Err(ControlError::DimensionMismatch {
            matrix: "poles",
            expected: (n, 1),
            found: (poles.len(), 1),
        });
    }
    if !poles.iter().all(|p| p.re.is_finite() && p.im.is_finite()) {
        return Err(ControlError::NonFinite { matrix: "poles" });
    }
    let poles = ordered(poles)?;
    if method == PlaceMethod::Knv0 && poles.iter().any(|p| p.im != 0.0) {
        return Err(ControlError::InvalidSetting(
            "the KNV0 method places real poles only: use PlaceMethod::Yt for complex ones",
        ));
    }
    let controllability = ctrb(a, b)?;
    if !controllability.full() {
        return Err(ControlError::Uncontrollable {
            rank: controllability.rank,
            states: n,
        });
    }
    let rank = if b.is_empty() {
        0
    } else {
        numerical_rank(&b.clone().svd(false, false).singular_values, n.max(m))
    };
    for p in &poles {
        let multiplicity = poles.iter().filter(|q| *q == p).count();
        if multiplicity > rank {
            return Err(ControlError::RepeatedPole {
                pole: *p,
                multiplicity,
                rank,
            });
        }
    }
    if n == 0 {
        return Ok(Placement {
            gain: DMatrix::zeros(m, 0),
            poles: Vec::new(),
            eigenvectors: DMatrix::zeros(0, 0),
            iterations: 0,
            converged: true,
        });
    }

    let (gain, eigenvectors, iterations, converged) = if rank == n {
        // K = B⁺ (A − Λ), Λ the poles as real 2 × 2 blocks [[a, −b], [b, a]].
        let mut lambda = DMatrix::zeros(n, n);
        let mut i = 0;
        while i < n {
            let p = poles[i];
            lambda[(i, i)] = p.re;
            if p.im != 0.0 {
                lambda[(i, i + 1)] = -p.im;
                lambda[(i + 1, i + 1)] = p.re;
                lambda[(i + 1, i)] = p.im;
                i += 1;
            }
            i += 1;
        }
        let gain = b
            .clone()
            .svd(true, true)
            .solve(&(a - lambda), 0.0)
            .map_err(|_| ControlError::InvalidSetting("the SVD of B failed"))?;
        (gain, DMatrix::identity(n, n), 0, true)
    } else {
        if rank < m {
            return Err(ControlError::InvalidSetting(
                "place needs the columns of B independent (rank(B) = m): drop the redundant inputs",
            ));
        }
        iterative(a, b, &poles, method)?
    };
    let poles = crate::linalg::eigenvalues(&(a - b * &gain))
        .ok_or(ControlError::EigenvaluesDidNotConverge)?;
    if !gain.iter().all(|v| v.is_finite()) {
        return Err(ControlError::BadlyScaled { matrix: "K" });
    }
    Ok(Placement {
        gain,
        poles,
        eigenvectors,
        iterations,
        converged,
    })
}

/// The poles in SciPy's order: the real ones ascending, then each complex pair as
/// (p, p̄) with Im p < 0, ordered by real then imaginary part; an error when a complex
/// pole lacks its conjugate.
fn ordered(poles: &[Complex<f64>]) -> Result<Vec<Complex<f64>>, ControlError> {
    let lexicographic =
        |p: &Complex<f64>, q: &Complex<f64>| p.re.total_cmp(&q.re).then(p.im.total_cmp(&q.im));
    let mut real: Vec<Complex<f64>> = poles.iter().copied().filter(|p| p.im == 0.0).collect();
    real.sort_by(lexicographic);
    let mut lower: Vec<Complex<f64>> = poles.iter().copied().filter(|p| p.im < 0.0).collect();
    lower.sort_by(lexicographic);
    let mut ordered = real;
    for p in lower {
        if poles.contains(&p.conj()) {
            ordered.push(p);
            ordered.push(p.conj());
        }
    }
    if ordered.len() != poles.len() {
        return Err(ControlError::InvalidSetting(
            "complex poles must come with their conjugates (exactly equal real parts and opposite imaginary parts)",
        ));
    }
    Ok(ordered)
}

/// The complete Q (n × n) of the QR factorization of the n × k matrix `x` (k ≤ n): its
/// first k columns span the range of `x` (when of full rank), the rest its orthogonal
/// complement. The columns are padded with zeros to a square matrix, whose Householder
/// reflections complete the basis.
fn complete_q<T: nalgebra::ComplexField>(x: &DMatrix<T>) -> DMatrix<T> {
    let n = x.nrows();
    let mut square = DMatrix::zeros(n, n);
    let k = x.ncols().min(n);
    square.columns_mut(0, k).copy_from(&x.columns(0, k));
    square.qr().q()
}

/// NumPy's `allclose(a, b)` for one pair: |a − b| ≤ 10⁻⁸ + 10⁻⁵ |b|.
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-8 + 1e-5 * b.abs()
}

/// Whether every entry is within 10⁻⁸ of zero (`allclose(x, 0)`).
fn all_small<T: nalgebra::ComplexField<RealField = f64>>(x: &[T]) -> bool {
    x.iter().all(|v| v.clone().modulus() <= 1e-8)
}

/// The iterative branch (rank B = m < n): (K, X, sweeps, converged).
fn iterative(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    poles: &[Complex<f64>],
    method: PlaceMethod,
) -> Result<(DMatrix<f64>, DMatrix<f64>, usize, bool), ControlError> {
    let (n, m) = (a.nrows(), b.ncols());
    let qr = {
        let mut square = DMatrix::zeros(n, n);
        square.columns_mut(0, m).copy_from(b);
        square.qr()
    };
    let (u, r) = (qr.q(), qr.r());
    let u0 = u.columns(0, m).into_owned();
    let u1 = u.columns(m, n - m).into_owned();
    let z = r.view((0, 0), (m, m)).into_owned();

    // The admissible eigenvectors of each pole, and a first eigenvector matrix: the sum of
    // each basis, normalized (a complex pair as the real and imaginary parts).
    let complex = |x: &DMatrix<f64>| x.map(|v| Complex::new(v, 0.0));
    let mut kernels: Vec<DMatrix<Complex<f64>>> = Vec::with_capacity(n);
    let mut x = DMatrix::<f64>::zeros(n, n);
    let mut j = 0;
    while j < n {
        let p = poles[j];
        let mut shifted = complex(a);
        for i in 0..n {
            shifted[(i, i)] -= p;
        }
        let space = (complex(&u1).transpose() * shifted).transpose(); // n × (n − m)
        let q = complete_q(&space);
        let kernel = q.columns(n - m, m).into_owned();
        let sum: DVector<Complex<f64>> = kernel.column_sum();
        let sum = &sum / Complex::new(sum.norm(), 0.0);
        if p.im != 0.0 {
            x.set_column(j, &sum.map(|c| c.re));
            x.set_column(j + 1, &sum.map(|c| c.im));
            kernels.push(kernel.clone());
            kernels.push(kernel);
            j += 2;
        } else {
            x.set_column(j, &sum.map(|c| c.re));
            kernels.push(kernel);
            j += 1;
        }
    }

    let (mut sweeps, mut converged) = (0, true);
    if m > 1 {
        let real_kernels: Vec<DMatrix<f64>> = kernels.iter().map(|k| k.map(|c| c.re)).collect();
        let order = match method {
            PlaceMethod::Yt => yt_order(poles),
            PlaceMethod::Knv0 => (0..n).map(|j| (j, j)).collect(),
        };
        converged = false;
        while sweeps < PLACE_SWEEPS && !converged {
            let before = x.determinant().abs();
            for &(i, j) in &order {
                if i == j {
                    knv0(&real_kernels, &mut x, i);
                } else {
                    let mut rest = Vec::with_capacity(n - 2);
                    for c in 0..n {
                        if c != i && c != j {
                            rest.push(x.column(c).into_owned());
                        }
                    }
                    let rest = DMatrix::from_columns(&rest);
                    let q = complete_q(&rest);
                    if poles[i].im == 0.0 {
                        yt_real(&real_kernels, &q, &mut x, i, j);
                    } else {
                        yt_complex(&kernels, &q, &mut x, i, j);
                    }
                }
            }
            let floor = f64::EPSILON.sqrt();
            let after = x.determinant().abs().max(floor);
            let change = ((after - before) / after).abs();
            converged = change < PLACE_CONVERGED && after > floor;
            sweeps += 1;
        }
    }

    // X with the complex pairs as conjugate eigenvectors; A − BK = X Λ X⁻¹.
    let mut eigenvectors = complex(&x);
    let mut i = 0;
    while i + 1 < n {
        if poles[i].im != 0.0 {
            for row in 0..n {
                let (re, im) = (x[(row, i)], x[(row, i + 1)]);
                eigenvectors[(row, i)] = Complex::new(re, -im);
                eigenvectors[(row, i + 1)] = Complex::new(re, im);
            }
            i += 1;
        }
        i += 1;
    }
    let dependent = || {
        ControlError::InvalidSetting(
            "the eigenvectors chosen for these poles are dependent: they cannot be placed with a diagonalizable closed loop",
        )
    };
    let inverse = eigenvectors.clone().try_inverse().ok_or_else(dependent)?;
    let lambda = DMatrix::from_diagonal(&DVector::from_column_slice(poles));
    let closed = (&eigenvectors * lambda * inverse).map(|c| c.re);
    let gain = z
        .lu()
        .solve(&(u0.transpose() * (a - closed)))
        .ok_or_else(dependent)?;
    if !gain.iter().all(|v| v.is_finite()) {
        return Err(dependent());
    }
    Ok((gain, x, sweeps, converged))
}

/// SciPy's order of the updates of Tits and Yang (0-based pairs; (i, i) is a KNV0 update
/// of a lone real pole), from their paper's section 6 and its IEEE edition, p. 1442.
fn yt_order(poles: &[Complex<f64>]) -> Vec<(usize, usize)> {
    let n = poles.len();
    let nb_real = poles.iter().filter(|p| p.im == 0.0).count();
    let hnb = nb_real / 2;
    let odd = nb_real % 2;
    let mut order: Vec<(usize, usize)> = Vec::new();
    if nb_real > 0 {
        order.push((nb_real, 1));
    }
    let r_comp: Vec<usize> = (nb_real + 1..=n).step_by(2).collect();
    let lone = hnb == 0 && poles[0].im == 0.0;
    let push_comp = |order: &mut Vec<(usize, usize)>| {
        for &c in &r_comp {
            order.push((c, c + 1));
        }
    };
    // 1.a
    for p in 1..(hnb + odd) {
        order.push((2 * p, 2 * p + 1));
    }
    // 1.b
    push_comp(&mut order);
    // 1.c
    for p in 1..=hnb {
        order.push((2 * p - 1, 2 * p));
    }
    // 1.d
    if lone {
        order.push((1, 1));
    }
    push_comp(&mut order);
    // 2.a
    for j in 2..(hnb + odd) {
        for i in 1..=hnb {
            order.push((i, i + j));
        }
    }
    // 2.b
    if lone {
        order.push((1, 1));
    }
    push_comp(&mut order);
    // 2.c
    for j in 2..(hnb + odd) {
        for i in hnb + 1..=nb_real {
            let mut k = i + j;
            if k > nb_real {
                k -= nb_real;
            }
            order.push((i, k));
        }
    }
    // 2.d
    if lone {
        order.push((1, 1));
    }
    push_comp(&mut order);
    // 3.a
    for i in 1..=hnb {
        order.push((i, i + hnb));
    }
    // 3.b
    if lone {
        order.push((1, 1));
    }
    push_comp(&mut order);
    order.into_iter().map(|(i, j)| (i - 1, j - 1)).collect()
}

/// KNV method 0 for column `j` (a real pole): the projection onto the pole's admissible
/// eigenvectors of the direction orthogonal to the other columns, normalized.
fn knv0(kernels: &[DMatrix<f64>], x: &mut DMatrix<f64>, j: usize) {
    let n = x.nrows();
    let rest: Vec<_> = (0..n)
        .filter(|&c| c != j)
        .map(|c| x.column(c).into_owned())
        .collect();
    let q = if rest.is_empty() {
        DMatrix::identity(n, n)
    } else {
        complete_q(&DMatrix::from_columns(&rest))
    };
    let kernel = &kernels[j];
    let y = kernel * (kernel.transpose() * q.column(n - 1));
    if !all_small(y.as_slice()) {
        let norm = y.norm();
        x.set_column(j, &(y / norm));
    }
}

/// Tits and Yang's update of two real poles' columns i and j (section 6.1).
fn yt_real(kernels: &[DMatrix<f64>], q: &DMatrix<f64>, x: &mut DMatrix<f64>, i: usize, j: usize) {
    let n = x.nrows();
    let (u, v) = (q.column(n - 2), q.column(n - 1));
    let plane = u * v.transpose() - v * u.transpose();
    let m = kernels[i].transpose() * plane * &kernels[j];
    let svd = m.svd(true, true);
    let (left, right) = (
        svd.u.expect("U was asked for"),
        svd.v_t.expect("Vᵀ was asked for"),
    );
    let s = &svd.singular_values;
    let (mu1, mu2) = (left.column(0), left.column(1));
    let (nu1, nu2) = (right.row(0).transpose(), right.row(1).transpose());
    let mut stacked = DVector::zeros(2 * n);
    stacked.rows_mut(0, n).copy_from(&x.column(i));
    stacked.rows_mut(n, n).copy_from(&x.column(j));
    let basis = if !close(s[0], s[1]) {
        let mut basis = DMatrix::zeros(2 * n, 1);
        basis
            .view_mut((0, 0), (n, 1))
            .copy_from(&(&kernels[i] * mu1));
        basis
            .view_mut((n, 0), (n, 1))
            .copy_from(&(&kernels[j] * nu1));
        basis
    } else {
        let mut basis = DMatrix::zeros(2 * n, 2);
        basis
            .view_mut((0, 0), (n, 1))
            .copy_from(&(&kernels[i] * mu1));
        basis
            .view_mut((0, 1), (n, 1))
            .copy_from(&(&kernels[i] * mu2));
        basis
            .view_mut((n, 0), (n, 1))
            .copy_from(&(&kernels[j] * &nu1));
        basis
            .view_mut((n, 1), (n, 1))
            .copy_from(&(&kernels[j] * &nu2));
        basis
    };
    let projected = &basis * (basis.transpose() * stacked);
    if !all_small(projected.as_slice()) {
        let norm = projected.norm();
        let scaled = projected * (2f64.sqrt() / norm);
        x.set_column(i, &scaled.rows(0, n));
        x.set_column(j, &scaled.rows(n, n));
    } else {
        x.set_column(i, &basis.column(0).rows(0, n));
        x.set_column(j, &basis.column(0).rows(n, n));
    }
}

/// Tits and Yang's update of a complex pair's columns i (real part) and j (imaginary
/// part) (section 6.2).
fn yt_complex(
    kernels: &[DMatrix<Complex<f64>>],
    q: &DMatrix<f64>,
    x: &mut DMatrix<f64>,
    i: usize,
    j: usize,
) {
    let n = x.nrows();
    let sqrt2 = 2f64.sqrt();
    let u: DVector<Complex<f64>> = DVector::from_fn(n, |r, _| {
        Complex::new(sqrt2 * q[(r, n - 2)], sqrt2 * q[(r, n - 1)])
    });
    let kernel = &kernels[i];
    let plane = &u * u.adjoint() - u.conjugate() * u.transpose();
    let m = kernel.adjoint() * plane * kernel;
    // m is Hermitian: its eigenvalues are real.
    let eigen = m.symmetric_eigen();
    let mut index: Vec<usize> = (0..eigen.eigenvalues.len()).collect();
    index.sort_by(|&a, &b| {
        eigen.eigenvalues[a]
            .abs()
            .total_cmp(&eigen.eigenvalues[b].abs())
    });
    let last = index[index.len() - 1];
    let second = index[index.len() - 2];
    let current: DVector<Complex<f64>> =
        DVector::from_fn(n, |r, _| Complex::new(x[(r, i)], x[(r, j)]));
    let largest = eigen.eigenvalues[last].abs();
    let next = eigen.eigenvalues[second].abs();
    let basis = if !close(largest, next) {
        DMatrix::from_columns(&[kernel * eigen.eigenvectors.column(last)])
    } else {
        let pair = DMatrix::from_columns(&[
            eigen.eigenvectors.column(last).into_owned(),
            eigen.eigenvectors.column(second).into_owned(),
        ]);
        kernel * pair
    };
    let projected = &basis * (basis.adjoint() * current);
    if !all_small(projected.as_slice()) {
        let norm = projected.norm();
        let unit = projected / Complex::new(norm, 0.0);
        x.set_column(i, &unit.map(|c| c.re));
        x.set_column(j, &unit.map(|c| c.im));
    } else {
        x.set_column(i, &basis.column(0).map(|c| c.re));
        x.set_column(j, &basis.column(0).map(|c| c.im));
    }
}
