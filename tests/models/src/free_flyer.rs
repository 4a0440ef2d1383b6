//! lagrange's floating base against Pinocchio's free flyer, shared by the tests of the
//! floating robots (`tests/urdf_robots.rs`, `tests/g1.rs`) and `benches/robots.rs`
//! (`tests/robots/README.md`, "Floating base").

use lagrange_runtime::prelude::*;

/// The map between lagrange's floating base and Pinocchio's free flyer at one
/// configuration. lagrange's coordinates are (p, n, joints), n = (w, x, y, z) the base's
/// unit quaternion, and its velocities their rates: N = 7 + joints. Pinocchio's are q =
/// (p, x, y, z, w, joints) and v = (Rᵀ ṗ, ω_b, joint rates): V = 6 + joints = N − 1. With
/// r = (x, y, z) and G = 2 [−r, w I − \[r\]×] (ω_b = G ṅ, G n = 0, G Gᵀ = 4 I on the unit
/// sphere), v = J q̇ for J = blockdiag(Rᵀ, G, I), and q̇ = L v for L = blockdiag(R, Gᵀ/4, I),
/// with J L = I.
pub struct FreeFlyer<const N: usize, const V: usize> {
    /// lagrange's coordinates.
    q: SVector<f64, N>,
    rotation: SMatrix<f64, 3, 3>,
    g: SMatrix<f64, 3, 4>,
}

impl<const N: usize, const V: usize> FreeFlyer<N, V> {
    /// At Pinocchio's configuration q (x y z qx qy qz qw, joints).
    pub fn at(pinocchio: &SVector<f64, N>) -> Self {
        Self::at_lagrange(&SVector::from_fn(|i, _| match i {
            3 => pinocchio[6],
            4..=6 => pinocchio[i - 1],
            _ => pinocchio[i],
        }))
    }

    /// At lagrange's coordinates q (x y z qw qx qy qz, joints).
    pub fn at_lagrange(q: &SVector<f64, N>) -> Self {
        assert_eq!(
            N,
            V + 1,
            "a free flyer has one coordinate more than velocities"
        );
        let (w, x, y, z) = (q[3], q[4], q[5], q[6]);
        // lagrange's quat(w, x, y, z), the homogeneous form.
        let rotation = SMatrix::<f64, 3, 3>::new(
            w * w + x * x - y * y - z * z,
            2.0 * (x * y - w * z),
            2.0 * (x * z + w * y),
            2.0 * (x * y + w * z),
            w * w - x * x + y * y - z * z,
            2.0 * (y * z - w * x),
            2.0 * (x * z - w * y),
            2.0 * (y * z + w * x),
            w * w - x * x - y * y + z * z,
        );
        let g = 2.0 * SMatrix::<f64, 3, 4>::new(-x, w, z, -y, -y, -z, w, x, -z, y, -x, w);
        FreeFlyer { q: *q, rotation, g }
    }

    /// Pinocchio's configuration: the quaternion's scalar last.
    pub fn pinocchio_q(&self) -> SVector<f64, N> {
        SVector::from_fn(|i, _| match i {
            3..=5 => self.q[i + 1],
            6 => self.q[3],
            _ => self.q[i],
        })
    }

    /// ∂v/∂q̇.
    pub fn j(&self) -> SMatrix<f64, V, N> {
        let mut j = SMatrix::<f64, V, N>::zeros();
        j.fixed_view_mut::<3, 3>(0, 0)
            .copy_from(&self.rotation.transpose());
        j.fixed_view_mut::<3, 4>(3, 3).copy_from(&self.g);
        for k in 6..V {
            j[(k, k + 1)] = 1.0;
        }
        j
    }

    /// The right inverse of J: q̇ = L v on the constraint's tangent space.
    pub fn l(&self) -> SMatrix<f64, N, V> {
        let mut l = SMatrix::<f64, N, V>::zeros();
        l.fixed_view_mut::<3, 3>(0, 0).copy_from(&self.rotation);
        l.fixed_view_mut::<4, 3>(3, 3)
            .copy_from(&(self.g.transpose() / 4.0));
        for k in 6..V {
            l[(k + 1, k)] = 1.0;
        }
        l
    }

    /// The projection onto the tangent space of |n| = 1: L J.
    pub fn tangent(&self) -> SMatrix<f64, N, N> {
        self.l() * self.j()
    }

    /// lagrange's state for Pinocchio's velocity v.
    pub fn state(&self, v: &SVector<f64, V>) -> State<N> {
        State::new(0.0, self.q, self.l() * v)
    }

    /// lagrange's q̈ for Pinocchio's a = v̇ at velocity v: p̈ = R (a_lin + ω × v_lin),
    /// n̈ = Gᵀ ω̇ / 4 − |ω|² n / 4.
    pub fn qdd(&self, v: &SVector<f64, V>, a: &SVector<f64, V>) -> SVector<f64, N> {
        let (lin, w) = (v.fixed_rows::<3>(0), v.fixed_rows::<3>(3));
        let mut qdd = self.l() * a;
        let mut p = qdd.fixed_rows_mut::<3>(0);
        p += self.rotation * w.cross(&lin);
        let n = self.q.fixed_rows::<4>(3) * (-w.norm_squared() / 4.0);
        let mut quaternion = qdd.fixed_rows_mut::<4>(3);
        quaternion += n;
        qdd
    }

    /// Pinocchio's a = v̇ for lagrange's q̈ at the state s: a_lin = Rᵀ p̈ − ω × v_lin,
    /// ω̇ = G n̈.
    pub fn a(&self, s: &State<N>, qdd: &SVector<f64, N>) -> SVector<f64, V> {
        let v = self.j() * s.qd;
        let (lin, w) = (v.fixed_rows::<3>(0), v.fixed_rows::<3>(3));
        let mut a = self.j() * qdd;
        let mut linear = a.fixed_rows_mut::<3>(0);
        linear -= w.cross(&lin);
        a
    }
}
