//! A URDF robot's mass matrix ([`mass_matrix`], the composite-rigid-body algorithm,
//! floating bases included), its accelerations ([`accelerations`], the articulated-body
//! algorithm) and the derivatives of its inverse dynamics ([`derivatives`]) from its
//! tree. The derivatives, in one pass up and one down the tree: ∂τ/∂q, ∂τ/∂q̇
//! and the mass matrix M = ∂τ/∂q̈ at (q, q̇, q̈), the
//! analytical derivatives of the recursive Newton–Euler algorithm (Carpentier & Mansard,
//! "Analytical derivatives of rigid body dynamics algorithms", RSS 2018), in O(links ·
//! depth) arithmetic instead of one evaluation in dual numbers per coordinate. The
//! generated `Model::eval_inverse_dynamics_derivatives` calls it for a robot whose model
//! is its URDF's and nothing else ([`Robot`]: `kinetic = urdf_kinetic;`, `potential =
//! urdf_potential;` or none, `dissipation = urdf_dissipation;` or none; a fixed or a
//! floating base; forces of any kind, whose derivatives along the state, when they have
//! any, come from the code `lagrangian!` unrolls for them, or from dual numbers over the
//! forces alone where that would be large, [`forces_along_state`]). Not part of
//! the public API.
//!
//! # The algorithm
//! Spatial vectors in the world's axes, at a reference point o fixed in the world: the
//! origin of the link that does not move above the moving part of the tree (as
//! `crate::frames` measures positions, so that a wrist 1 km from the world's origin keeps
//! its digits). A motion is (ω, v), v the velocity of the body point at o; a force (n, f),
//! n the moment about o. A joint's column is S = (a, x × a) for a revolute joint of unit
//! axis a through x, (0, a) for a prismatic one. Down the tree: v_i = v_λ + S q̇,
//! a_i = a_λ + S q̈ + v_i × S q̇ with a = (0, g ẑ) above the moving part (gravity as an
//! upward acceleration of the ground), f_i = I_i a_i + v_i ×* I_i v_i. Up the tree: the
//! composite inertia Y_i and force F_i of the subtree at i, and τ_i = S_i · F_i.
//!
//! Moving q_j displaces the subtree below joint j rigidly by S_j, except for the motion
//! of j's parent, which does not move with it: with α_j = S_j × v_λ(j) and
//! γ_j = S_j × a_λ(j) − α_j × v_λ(j), each body's force changes by S_j ×* f_k (rigidly)
//! minus I_k γ_j + Γ_k α_j, where Γ_k α = I_k (α × v_k) + α ×* (I_k v_k) + v_k ×* (I_k α).
//! Γ_k is zero on translations and its force's linear part is −2 (m v + ω × h) × α_ω
//! (h the first moment), so a subtree's Γ is one 3 × 3 block and its linear momentum.
//! With Y_i, Γ_i and F_i summed over the subtree at i, for j an ancestor of i or i itself
//! (the rigid parts cancel against the displaced column S_i):
//!
//! ```text
//! ∂τ_i/∂q_j = −S_i · (Y_i γ_j + Γ_i α_j)     ∂τ_i/∂q̇_j = S_i · (Γ_i S_j − 2 Y_i α_j)
//! ∂τ_j/∂q_i = S_j · (S_i ×* F_i − Y_i γ_i − Γ_i α_i)
//! ∂τ_j/∂q̇_i = S_j · (Γ_i S_i − 2 Y_i α_i)    M_ij = S_i · Y_i S_j
//! ```
//!
//! (the last two lines for j a strict ancestor). The URDF's damping adds its diagonal to
//! ∂τ/∂q̇. These are the derivatives of the same function of (q, q̇, q̈) as the model's
//! own inverse dynamics, so they agree with its dual-number derivatives to rounding.
//!
//! # A floating base
//! The URDF writer turns the base by the normalized quaternion, so the robot is a rigid
//! tree for every n ≠ 0, and its Lagrangian is the rigid tree's at the base's pose
//! (p, R̂(n)) and spatial velocity V = (ω, ṗ) at o = p, ω = C ṅ with C = W(n) / |n|²
//! (`FloatingBase`). The generalized forces are then the rigid tree's mapped back:
//! τ_p = f and τ_n = Cᵀ n for the base force F = (n, f), the joints' own. The base is a
//! joint of six columns fixed in the world (S = 1): moving along a twist ξ moves the whole
//! tree rigidly while V and the base's acceleration a stay, which is the rule above with
//! the base itself as the parent (α = ξ × V, γ = ξ × a − α × V); a change δV of the base's
//! velocity changes the bodies' accelerations by δV × (v_k − V) (no term of the base's
//! own, whose acceleration A = (ω̇, p̈ − ω × ṗ) is held). Each of the seven coordinates
//! changes (ξ, V, A) and the map C: the chain rule through them gives its column.

use crate::centroidal::{
    add, apply, cross, dot, product, rotated, scale, sub, unit, Body, Inertia, Joint, Robot, M3, V3,
};
use crate::model::{Model, Point};
use crate::tolerances;
use nalgebra::{Const, SMatrix, U1};
use num_dual::{Dual64, DualVec};

/// A spatial vector, (ω, v) for a motion, (n, f) for a force.
type Spatial = [f64; 6];

#[inline]
fn angular(s: &Spatial) -> V3 {
    [s[0], s[1], s[2]]
}

#[inline]
fn linear(s: &Spatial) -> V3 {
    [s[3], s[4], s[5]]
}

#[inline]
fn join(a: V3, b: V3) -> Spatial {
    [a[0], a[1], a[2], b[0], b[1], b[2]]
}

#[inline]
fn pair(a: &Spatial, b: &Spatial) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// m × s, both motions.
#[inline]
fn cross_motion(m: &Spatial, s: &Spatial) -> Spatial {
    let (w, v) = (angular(m), linear(m));
    join(
        cross(w, angular(s)),
        add(cross(w, linear(s)), cross(v, angular(s))),
    )
}

/// m ×* f, m a motion and f a force.
#[inline]
fn cross_force(m: &Spatial, f: &Spatial) -> Spatial {
    let (w, v) = (angular(m), linear(m));
    join(
        add(cross(w, angular(f)), cross(v, linear(f))),
        cross(w, linear(f)),
    )
}

#[inline]
fn transposed(m: &M3) -> M3 {
    std::array::from_fn(|i| std::array::from_fn(|j| m[j][i]))
}

#[inline]
fn add_matrix(a: &mut M3, b: &M3) {
    for (ra, rb) in a.iter_mut().zip(b) {
        for (x, y) in ra.iter_mut().zip(rb) {
            *x += y;
        }
    }
}

/// W(n), the 3 × 4 matrix with W(n) ṅ = 2 Im(ṅ n*): a floating base turned by the
/// normalized quaternion turns at W(n) ṅ / |n|². W is linear in n and W(a) b = −W(b) a.
#[inline]
fn quaternion_rate([w, a, b, c]: [f64; 4]) -> [[f64; 4]; 3] {
    [
        [-2.0 * a, 2.0 * w, -2.0 * c, 2.0 * b],
        [-2.0 * b, 2.0 * c, 2.0 * w, -2.0 * a],
        [-2.0 * c, -2.0 * b, 2.0 * a, 2.0 * w],
    ]
}

/// Column k of a 3 × 4 matrix.
#[inline]
fn column(m: &[[f64; 4]; 3], k: usize) -> V3 {
    [m[0][k], m[1][k], m[2][k]]
}

/// mᵀ v, m 3 × 4.
#[inline]
fn transposed_apply(m: &[[f64; 4]; 3], v: V3) -> [f64; 4] {
    std::array::from_fn(|k| dot(column(m, k), v))
}

/// A floating base at a point, the rigid tree's base seen from its coordinates (p, n):
/// it turns by R̂ = B(n, n) / s (s = |n|²) at ω = C ṅ, C = W(n) / s, and its spatial
/// velocity at o = p is V = (ω, ṗ), its acceleration A = (ω̇, p̈ − ω × ṗ) with ω̇ = C n̈ −
/// ω ṡ / s. The generalized forces are the rigid tree's base force F = (n, f) (at o)
/// mapped back, τ_p = f and τ_n = Cᵀ n, and the joints' own.
///
/// A change of a coordinate of the base moves the rigid tree by a twist ξ, changes V and
/// A by δV and δA (o stays where it was), and changes the map itself; `directions` holds
/// (ξ, δV, δA) for each of the seven coordinates, along q, along q̇ and along q̈, and
/// `effects` what each does to every body's force (`effect`).
struct FloatingBase {
    r: M3,
    /// C = W(n) / s.
    c: [[f64; 4]; 3],
    v: Spatial,
    a: Spatial,
    /// Along q, q̇ and q̈, for the coordinates p₀ p₁ p₂ n₀ … n₃: (ξ, δV, δA).
    directions: [[[Spatial; 3]; 7]; 3],
    /// (acc, gam) of each direction, the same for every body.
    effects: [[(Spatial, Spatial); 7]; 3],
    /// For the rows of n along q: ∂C/∂n_k (for δ(Cᵀ) n).
    dc: [[[f64; 4]; 3]; 4],
}

impl FloatingBase {
    fn at<const N: usize, const M: usize>(
        x: &Point<f64, N, M>,
        qdd: &[f64; N],
        ground: &Spatial,
    ) -> Self {
        let quaternion = |v: &[f64]| [v[3], v[4], v[5], v[6]];
        let (n, nd, ndd) = (quaternion(&x.q), quaternion(&x.qd), quaternion(qdd));
        let (pd, pdd) = ([x.qd[0], x.qd[1], x.qd[2]], [qdd[0], qdd[1], qdd[2]]);
        let s = n.iter().map(|v| v * v).sum::<f64>();
        let sd = 2.0 * n.iter().zip(&nd).map(|(a, b)| a * b).sum::<f64>();
        let c = quaternion_rate(n).map(|row| row.map(|e| e / s));
        let omega = apply4(&c, nd);
        let omega_d = sub(apply4(&c, ndd), scale(sd / s, omega));
        let r = crate::centroidal::normalized_rotation(n);
        let (w_nd, w_ndd) = (quaternion_rate(nd), quaternion_rate(ndd));
        let zero = [0.0; 6];
        let linear_only = |v: V3| join([0.0; 3], v);
        // p_k: a translation; the velocity and acceleration of the body point at o change
        // by −ω × e and −ω̇ × e. Then ṗ_k and p̈_k.
        let translation = |k: usize| -> [[Spatial; 3]; 3] {
            let e: V3 = unit(k);
            let turning = linear_only(scale(-1.0, cross(omega, e)));
            [
                [
                    linear_only(e),
                    turning,
                    linear_only(scale(-1.0, cross(omega_d, e))),
                ],
                [zero, linear_only(e), turning],
                [zero, zero, linear_only(e)],
            ]
        };
        let turn = |k: usize| -> [[Spatial; 3]; 3] {
            let ck = column(&c, k);
            // n_k: a turn by C e_k about p; ∂ω/∂n_k = −W(ṅ) e_k / s − 2 n_k ω / s, and
            // ∂ω̇/∂n_k = −W(n̈) e_k / s − 2 n_k ω̇ / s − ṡ / s ∂ω/∂n_k − 2 ṅ_k ω / s.
            let dw = sub(
                scale(-1.0 / s, column(&w_nd, k)),
                scale(2.0 * n[k] / s, omega),
            );
            let dwd = sub(
                sub(
                    scale(-1.0 / s, column(&w_ndd, k)),
                    scale(2.0 * n[k] / s, omega_d),
                ),
                add(scale(sd / s, dw), scale(2.0 * nd[k] / s, omega)),
            );
            // ṅ_k: ∂ω/∂ṅ_k = C e_k, ∂ω̇/∂ṅ_k = −ṡ / s C e_k − 2 n_k ω / s.
            let dwd_rate = sub(scale(-sd / s, ck), scale(2.0 * n[k] / s, omega));
            [
                [
                    join(ck, [0.0; 3]),
                    join(dw, [0.0; 3]),
                    join(dwd, scale(-1.0, cross(dw, pd))),
                ],
                [
                    zero,
                    join(ck, [0.0; 3]),
                    join(dwd_rate, scale(-1.0, cross(ck, pd))),
                ],
                [zero, zero, join(ck, [0.0; 3])],
            ]
        };
        let each: [[[Spatial; 3]; 3]; 7] =
            std::array::from_fn(|k| if k < 3 { translation(k) } else { turn(k - 3) });
        let directions = std::array::from_fn(|order| std::array::from_fn(|k| each[k][order]));
        let dc = std::array::from_fn(|k| {
            let we = quaternion_rate(unit(k));
            std::array::from_fn(|i| {
                std::array::from_fn(|j| we[i][j] / s - 2.0 * n[k] / s * c[i][j])
            })
        });
        let (v, a) = (join(omega, pd), join(omega_d, sub(pdd, cross(omega, pd))));
        let total: Spatial = std::array::from_fn(|k| ground[k] + a[k]);
        let effects: [[(Spatial, Spatial); 7]; 3] = std::array::from_fn(|order| {
            std::array::from_fn(|k| effect(&v, &total, &directions[order][k]))
        });
        FloatingBase {
            r,
            c,
            v,
            a,
            directions,
            effects,
            dc,
        }
    }
}

/// What a direction (ξ, δV, δA) does to every body's force, beside the rigid turn
/// ξ ×* f of the base's own rows: the subtree moves rigidly with ξ but the base's
/// velocity V and acceleration a (gravity's included) stay, α = ξ × V and γ = ξ × a −
/// α × V, as for a joint whose parent is the base itself; δV changes the bodies'
/// accelerations by δV × (v_k − V); δA changes them by δA. So δf_k = I_k acc + Γ_k gam,
/// returned as (acc, gam) = (δA − γ − δV × V, δV − α).
fn effect(v: &Spatial, a: &Spatial, [xi, dv, da]: &[Spatial; 3]) -> (Spatial, Spatial) {
    let alpha = cross_motion(xi, v);
    let (xa, av, dvv) = (
        cross_motion(xi, a),
        cross_motion(&alpha, v),
        cross_motion(dv, v),
    );
    (
        std::array::from_fn(|k| da[k] - (xa[k] - av[k]) - dvv[k]),
        std::array::from_fn(|k| dv[k] - alpha[k]),
    )
}

/// m v, m 3 × 4.
#[inline]
fn apply4(m: &[[f64; 4]; 3], v: [f64; 4]) -> V3 {
    std::array::from_fn(|i| (0..4).map(|k| m[i][k] * v[k]).sum())
}

/// A spatial inertia at o: mass m, first moment h = m c, rotational inertia J about o.
#[derive(Clone, Copy)]
struct SpatialInertia {
    m: f64,
    h: V3,
    j: M3,
}

impl SpatialInertia {
    const ZERO: Self = SpatialInertia {
        m: 0.0,
        h: [0.0; 3],
        j: [[0.0; 3]; 3],
    };

    /// A body's, its link turned by `r` with its origin at `x` from o.
    #[inline]
    fn of(body: &Body, r: &M3, x: V3) -> Self {
        let c = add(x, apply(r, body.com));
        let mut j = match body.inertia {
            Inertia::Zero => [[0.0; 3]; 3],
            Inertia::Plain(tensor) => product(&product(r, &tensor), &transposed(r)),
            Inertia::Factored(factors) => {
                let mut j = [[0.0; 3]; 3];
                for (d, l) in factors {
                    let l = apply(r, *l);
                    for (row, li) in j.iter_mut().zip(l) {
                        for (e, lj) in row.iter_mut().zip(l) {
                            *e += d * li * lj;
                        }
                    }
                }
                j
            }
        };
        // About o: J = I_c + m (|c|² 1 − c cᵀ).
        let cc = dot(c, c);
        for (i, row) in j.iter_mut().enumerate() {
            for (k, e) in row.iter_mut().enumerate() {
                *e += body.mass * (if i == k { cc } else { 0.0 } - c[i] * c[k]);
            }
        }
        SpatialInertia {
            m: body.mass,
            h: scale(body.mass, c),
            j,
        }
    }

    /// Y (ω, v) = (J ω + h × v, m v − h × ω).
    #[inline]
    fn apply(&self, s: &Spatial) -> Spatial {
        let (w, v) = (angular(s), linear(s));
        join(
            add(apply(&self.j, w), cross(self.h, v)),
            sub(scale(self.m, v), cross(self.h, w)),
        )
    }

    #[inline]
    fn add(&mut self, other: &Self) {
        self.m += other.m;
        self.h = add(self.h, other.h);
        add_matrix(&mut self.j, &other.j);
    }
}

/// Where a link is at a point: whether it moves, its rotation, its origin from o, its
/// joint's column and coordinate (for a joint that has one).
#[derive(Clone, Copy)]
struct Place {
    moves: bool,
    r: M3,
    x: V3,
    column: Spatial,
    coordinate: Option<usize>,
}

/// Every link's place at `q`, down the tree: the root turned by `root`, moving with a
/// floating base; below it, each link from its parent's, as the URDF writer places it
/// (its origin from o, the origin of the nearest link above that does not move).
fn places<const L: usize, const B: usize, const N: usize>(
    robot: &Robot<L, B>,
    root: M3,
    q: &[f64; N],
) -> [Place; L] {
    let still = Place {
        moves: false,
        r: root,
        x: [0.0; 3],
        column: [0.0; 6],
        coordinate: None,
    };
    let mut links = [still; L];
    for (l, link) in robot.links.iter().enumerate() {
        if let Joint::Root = link.joint {
            links[l].moves = robot.floating;
            continue;
        }
        let parent = &links[link.parent];
        let from = if parent.moves { parent.x } else { [0.0; 3] };
        let r = match &link.rpy {
            Some(rpy) => product(&parent.r, rpy),
            None => parent.r,
        };
        let mut m = Place {
            moves: parent.moves,
            r,
            x: add(from, apply(&parent.r, link.xyz)),
            ..still
        };
        match link.joint {
            Joint::Revolute {
                coordinate,
                axis,
                along,
            } => {
                let a = apply(&parent.r, along);
                m.r = rotated(&r, axis, q[coordinate]);
                m.column = join(a, cross(m.x, a));
                m.coordinate = Some(coordinate);
                m.moves = true;
            }
            Joint::Prismatic { coordinate, along } => {
                let a = apply(&parent.r, along);
                m.x = add(m.x, scale(q[coordinate], a));
                m.column = join([0.0; 3], a);
                m.coordinate = Some(coordinate);
                m.moves = true;
            }
            Joint::Root | Joint::Fixed => {}
        }
        links[l] = m;
    }
    links
}

/// Link `i` and its ancestors, up to the last that moves (the part of the tree where o is
/// shared).
fn line<'a, const L: usize, const B: usize>(
    robot: &'a Robot<L, B>,
    places: &'a [Place; L],
    i: usize,
) -> impl Iterator<Item = usize> + 'a {
    std::iter::successors(Some(i), move |&a| {
        let up = robot.links[a].parent;
        (up != a && places[up].moves).then_some(up)
    })
}

/// Adds each link's sum over its subtree into its parent's, up the tree, within the part
/// that moves.
fn sum_up<T: Copy, const L: usize, const B: usize>(
    robot: &Robot<L, B>,
    places: &[Place; L],
    sums: &mut [T; L],
    add: impl Fn(&mut T, &T),
) {
    for l in (0..L).rev() {
        let parent = robot.links[l].parent;
        if parent != l && places[l].moves && places[parent].moves {
            let child = sums[l];
            add(&mut sums[parent], &child);
        }
    }
}

/// A link's motion at a point, beside its [`Place`].
#[derive(Clone, Copy)]
struct Motion {
    /// Its velocity and its acceleration (gravity's included).
    v: Spatial,
    a: Spatial,
    /// α = S × v_λ and γ = S × a_λ − α × v_λ, λ its parent.
    alpha: Spatial,
    gamma: Spatial,
}

/// The sums over the subtree at a link: inertia, force, Γ's block and linear momentum.
#[derive(Clone, Copy)]
struct Subtree {
    inertia: SpatialInertia,
    force: Spatial,
    gamma: M3,
    momentum: V3,
}

impl Subtree {
    const ZERO: Self = Subtree {
        inertia: SpatialInertia::ZERO,
        force: [0.0; 6],
        gamma: [[0.0; 3]; 3],
        momentum: [0.0; 3],
    };

    #[inline]
    fn add(&mut self, other: &Self) {
        self.inertia.add(&other.inertia);
        for (a, b) in self.force.iter_mut().zip(other.force) {
            *a += b;
        }
        add_matrix(&mut self.gamma, &other.gamma);
        self.momentum = add(self.momentum, other.momentum);
    }

    /// Γ s: (G s_ω, −2 p × s_ω).
    #[inline]
    fn gamma(&self, s: &Spatial) -> Spatial {
        let w = angular(s);
        join(apply(&self.gamma, w), scale(-2.0, cross(self.momentum, w)))
    }

    /// Γᵀ s = (Gᵀ s_ω + 2 p × s_v, 0): its angular part.
    #[inline]
    fn gamma_transposed(&self, s: &Spatial) -> V3 {
        let (w, g) = (angular(s), &self.gamma);
        let gw: V3 = std::array::from_fn(|k| g[0][k] * w[0] + g[1][k] * w[1] + g[2][k] * w[2]);
        add(gw, scale(2.0, cross(self.momentum, linear(s))))
    }
}

/// ∂τ/∂q, ∂τ/∂q̇ and M of the inverse dynamics of `robot` at `x` and `qdd`, gravity `g`
/// along −z and `damping[k]` the damping of coordinate k, written into `d_q`, `d_qd` and
/// `mass` (every entry: the coordinates no joint moves get zeros), and the tree's τ itself
/// (its generalized forces, the damping's included, before any applied force) into `tau`.
#[doc(hidden)]
#[allow(clippy::too_many_arguments)]
pub fn derivatives<const L: usize, const B: usize, const N: usize, const M: usize>(
    robot: &Robot<L, B>,
    g: f64,
    damping: &[f64; N],
    x: &Point<f64, N, M>,
    qdd: &[f64; N],
    d_q: &mut SMatrix<f64, N, N>,
    d_qd: &mut SMatrix<f64, N, N>,
    mass: &mut SMatrix<f64, N, N>,
    tau: &mut [f64; N],
) {
    let ground: Spatial = [0.0, 0.0, 0.0, 0.0, 0.0, g];
    let base = robot.floating.then(|| FloatingBase::at(x, qdd, &ground));
    let root = base.as_ref().map_or(crate::centroidal::IDENTITY, |b| b.r);
    let places = places(robot, root, &x.q);
    let still = Motion {
        v: [0.0; 6],
        a: ground,
        alpha: [0.0; 6],
        gamma: [0.0; 6],
    };
    let mut links = [still; L];
    // Down the tree: each link's velocity and acceleration.
    for (l, link) in robot.links.iter().enumerate() {
        if let Joint::Root = link.joint {
            if let Some(b) = &base {
                links[l].v = b.v;
                links[l].a = std::array::from_fn(|k| ground[k] + b.a[k]);
            }
            continue;
        }
        let parent = &links[link.parent];
        let mut m = Motion {
            v: parent.v,
            a: parent.a,
            ..still
        };
        if let Some(c) = places[l].coordinate {
            let column = places[l].column;
            m.alpha = cross_motion(&column, &m.v);
            let sa = cross_motion(&column, &m.a);
            let av = cross_motion(&m.alpha, &m.v);
            m.gamma = std::array::from_fn(|k| sa[k] - av[k]);
            let (qd, qdd) = (x.qd[c], qdd[c]);
            for (v, s) in m.v.iter_mut().zip(column) {
                *v += s * qd;
            }
            let turning = cross_motion(&m.v, &column);
            for ((a, s), t) in m.a.iter_mut().zip(column).zip(turning) {
                *a += s * qdd + t * qd;
            }
        }
        links[l] = m;
    }
    // Each body's inertia, force and Γ at its link.
    let mut sums = [Subtree::ZERO; L];
    for body in &robot.bodies {
        let (place, m) = (&places[body.link], &links[body.link]);
        if !place.moves {
            continue;
        }
        let inertia = SpatialInertia::of(body, &place.r, place.x);
        let momentum = inertia.apply(&m.v);
        let inertial = inertia.apply(&m.a);
        let turning = cross_force(&m.v, &momentum);
        // Γ's block: [ω×] J − J [ω×] − [v×][h×] − [h×][v×] − [n×], n the moment of the
        // momentum; with X = [ω×] J (column k: ω × J's k-th, J symmetric), J [ω×] = −Xᵀ,
        // and [v×][h×] + [h×][v×] = h vᵀ + v hᵀ − 2 (v · h) 1.
        let (w, v, h) = (angular(&m.v), linear(&m.v), inertia.h);
        let x: [V3; 3] = std::array::from_fn(|k| cross(w, inertia.j[k]));
        let vh = 2.0 * dot(v, h);
        let n = angular(&momentum);
        let gamma: M3 = std::array::from_fn(|i| {
            std::array::from_fn(|k| {
                let spin = match (i, k) {
                    (0, 1) => -n[2],
                    (1, 0) => n[2],
                    (0, 2) => n[1],
                    (2, 0) => -n[1],
                    (1, 2) => -n[0],
                    (2, 1) => n[0],
                    _ => 0.0,
                };
                x[k][i] + x[i][k] - (h[i] * v[k] + v[i] * h[k]) + if i == k { vh } else { 0.0 }
                    - spin
            })
        });
        sums[body.link].add(&Subtree {
            inertia,
            force: std::array::from_fn(|k| inertial[k] + turning[k]),
            gamma,
            momentum: linear(&momentum),
        });
    }
    // Up the tree: the sums over each subtree (within the part that moves, where o is
    // shared).
    sum_up(robot, &places, &mut sums, Subtree::add);
    // Through the slices: `fill` on a matrix steps an iterator per entry.
    for matrix in [&mut *d_q, &mut *d_qd, &mut *mass] {
        matrix.as_mut_slice().fill(0.0);
    }
    tau.fill(0.0);
    for (i, place) in places.iter().enumerate() {
        let Some(ci) = place.coordinate else {
            continue;
        };
        let (s, sum, link) = (&place.column, &sums[i], &links[i]);
        tau[ci] = pair(s, &sum.force);
        // Y_i S_i and Γ_iᵀ S_i (its angular part: the linear one is zero).
        let y = sum.inertia.apply(s);
        let gt = sum.gamma_transposed(s);
        // The vectors its ancestors' rows take.
        let (alpha, gamma) = (&link.alpha, &link.gamma);
        let yg = sum.inertia.apply(gamma);
        let ga = sum.gamma(alpha);
        let sf = cross_force(s, &sum.force);
        let ya = sum.inertia.apply(alpha);
        let gs = sum.gamma(s);
        let w: Spatial = std::array::from_fn(|k| sf[k] - yg[k] - ga[k]);
        let u: Spatial = std::array::from_fn(|k| gs[k] - 2.0 * ya[k]);
        // Down its own line of ancestors (itself first).
        for a in line(robot, &places, i) {
            let Some(cj) = places[a].coordinate else {
                continue;
            };
            let (sj, alpha_j, gamma_j) = (&places[a].column, &links[a].alpha, &links[a].gamma);
            d_q[(ci, cj)] = -(pair(&y, gamma_j) + dot(gt, angular(alpha_j)));
            d_qd[(ci, cj)] = dot(gt, angular(sj)) - 2.0 * pair(&y, alpha_j);
            let mij = pair(&y, sj);
            mass[(ci, cj)] = mij;
            mass[(cj, ci)] = mij;
            if a != i {
                d_q[(cj, ci)] = pair(sj, &w);
                d_qd[(cj, ci)] = pair(sj, &u);
            }
        }
        if let Some(b) = &base {
            // The base's rows along the joint (S_j = e_k for the base's six), mapped to
            // (p, n); the joint's row along the base's coordinates, (ξ, δV, δA) each:
            // ∂τ_i = Y_i S_i · (δA − ξ × a₀) + Γ_iᵀ S_i · δV (α = 0 for the base).
            for (matrix, along) in [(&mut *d_q, &w), (&mut *d_qd, &u), (&mut *mass, &y)] {
                let (torque, force) = (transposed_apply(&b.c, angular(along)), linear(along));
                for k in 0..3 {
                    matrix[(k, ci)] = force[k];
                }
                for k in 0..4 {
                    matrix[(3 + k, ci)] = torque[k];
                }
            }
            for (matrix, effects) in [
                (&mut *d_q, &b.effects[0]),
                (&mut *d_qd, &b.effects[1]),
                (&mut *mass, &b.effects[2]),
            ] {
                for (k, (acc, gam)) in effects.iter().enumerate() {
                    matrix[(ci, k)] = pair(&y, acc) + dot(gt, angular(gam));
                }
            }
        }
    }
    if let Some(b) = &base {
        // The base's own block: the rigid tree's base force F changes by
        // ξ ×* F + Y (δA − ξ × a₀) + Γ δV, and its map (p, n) by δτ_n = δCᵀ n − Cᵀ (δp × f).
        let root = robot
            .links
            .iter()
            .position(|l| matches!(l.joint, Joint::Root))
            .unwrap_or(0);
        let whole = &sums[root];
        let (n, f) = (angular(&whole.force), linear(&whole.force));
        let torque = transposed_apply(&b.c, n);
        tau[..3].copy_from_slice(&f);
        tau[3..7].copy_from_slice(&torque);
        for (q, (matrix, directions)) in [
            (&mut *d_q, &b.directions[0]),
            (&mut *d_qd, &b.directions[1]),
            (&mut *mass, &b.directions[2]),
        ]
        .into_iter()
        .enumerate()
        {
            for (k, direction) in directions.iter().enumerate() {
                let (acc, gam) = &b.effects[q][k];
                let (turned, inertial, gamma) = (
                    cross_force(&direction[0], &whole.force),
                    whole.inertia.apply(acc),
                    whole.gamma(gam),
                );
                let df: Spatial = std::array::from_fn(|i| turned[i] + inertial[i] + gamma[i]);
                let mut torque = transposed_apply(&b.c, angular(&df));
                if q == 0 {
                    let extra = if k < 3 {
                        transposed_apply(&b.c, scale(-1.0, cross(unit(k), f)))
                    } else {
                        transposed_apply(&b.dc[k - 3], n)
                    };
                    torque = std::array::from_fn(|i| torque[i] + extra[i]);
                }
                for i in 0..3 {
                    matrix[(i, k)] = df[3 + i];
                }
                for i in 0..4 {
                    matrix[(3 + i, k)] = torque[i];
                }
            }
        }
    }
    for (k, d) in damping.iter().enumerate() {
        d_qd[(k, k)] += d;
        tau[k] += d * x.qd[k];
    }
}

/// Subtracts the derivatives of the generalized forces Q along q (the coordinates in
/// `read`, those the forces that move with the state read: Q does not change along the
/// others) and with `velocities` along q̇ from `d_q` (and `d_qd`), for a robot whose
/// forces move with its state (a wrench in the base's axes): ∂τ/∂x = ∂(tree)/∂x − ∂Q/∂x.
/// Q_k = Σ F ∂v/∂q̇_k, in dual numbers along each direction over a pass of the forces
/// alone, with only the rates of `read` seeded (the velocities of those forces read no
/// others; the other forces keep Q constant); the point is built once, on the heap, and
/// only its seed moves.
#[doc(hidden)]
pub fn forces_along_state<T: Model<N, M>, const N: usize, const M: usize, const D: usize>(
    model: &T,
    x: &Point<f64, N, M>,
    read: &[usize; D],
    velocities: bool,
    d_q: &mut SMatrix<f64, N, N>,
    d_qd: &mut SMatrix<f64, N, N>,
) {
    let mut seeded = crate::dual_passes::seeded_boxed::<_, N, M, D>(&x.map(Dual64::from_re), |i| {
        read.iter().position(|&r| r == i)
    });
    let along_qd = (0..N).filter(|_| velocities).map(|k| N + k);
    for j in read.iter().copied().chain(along_qd) {
        let seed = |point: &mut Point<_, N, M>, eps: f64| {
            let value: &mut DualVec<Dual64, Const<D>> = if j < N {
                &mut point.q[j]
            } else {
                &mut point.qd[j - N]
            };
            value.re.eps = eps;
        };
        seed(&mut seeded, 1.0);
        let mut column = [0.0; N];
        model.eval_forces(&*seeded, |f, v| {
            let rows = v.eps.unwrap_generic(Const::<D>, U1);
            for (&k, row) in read.iter().zip(rows.iter()) {
                column[k] += (f.re * *row).eps;
            }
        });
        seed(&mut seeded, 0.0);
        let matrix = if j < N { &mut *d_q } else { &mut *d_qd };
        for (k, c) in column.iter().enumerate() {
            matrix[(k, j % N)] -= c;
        }
    }
}

/// The mass matrix M = ∂²T/∂q̇² of a robot whose kinetic energy is its tree's
/// (`urdf_kinetic`): the composite-rigid-body algorithm
/// over the tree, M_ij = S_i · Y_i S_j for j an ancestor of i or i itself.
///
/// A floating base (coordinates p, then the quaternion n): the URDF writer turns it by the
/// normalized quaternion, R̂ = B(n, n) / s with s = |n|², which turns at ω = W(n) ṅ / s,
/// W(n) ṅ = 2 Im(ṅ n*); so T = T_rigid(ṗ, ω, θ̇) and M = Dᵀ M_rigid D, D = diag(1, W(n) /
/// s, 1), M_rigid that of the rigid tree with the base's spatial velocity at its origin.
#[doc(hidden)]
pub fn mass_matrix<const L: usize, const B: usize, const N: usize, const M: usize>(
    robot: &Robot<L, B>,
    x: &Point<f64, N, M>,
) -> SMatrix<f64, N, N> {
    let mut mass = SMatrix::zeros();
    let base = robot.floating.then(|| {
        let n = [x.q[3], x.q[4], x.q[5], x.q[6]];
        let s = n.iter().map(|v| v * v).sum::<f64>();
        (n, s)
    });
    let root = match base {
        Some((n, _)) => crate::centroidal::normalized_rotation(n),
        None => crate::centroidal::IDENTITY,
    };
    let links = places(robot, root, &x.q);
    let mut sums = [SpatialInertia::ZERO; L];
    for body in &robot.bodies {
        let m = &links[body.link];
        if m.moves {
            sums[body.link].add(&SpatialInertia::of(body, &m.r, m.x));
        }
    }
    sum_up(robot, &links, &mut sums, SpatialInertia::add);
    // The rigid tree's entries (the joints' block), and its base's with the joints (rows
    // ω, v of Y_i S_i). W(n) / s, with W(n) ṅ = 2 Im(ṅ n*).
    let wn = base.map(|(n, s)| quaternion_rate(n).map(|row| row.map(|e| e / s)));
    for (i, link) in links.iter().enumerate() {
        let Some(ci) = link.coordinate else {
            continue;
        };
        let y = sums[i].apply(&link.column);
        for a in line(robot, &links, i) {
            if let Some(cj) = links[a].coordinate {
                let mij = pair(&y, &links[a].column);
                mass[(ci, cj)] = mij;
                mass[(cj, ci)] = mij;
            }
        }
        if let Some(wn) = &wn {
            // M_pθ = f, M_nθ = (W / s)ᵀ n_moment.
            for k in 0..3 {
                let e = y[3 + k];
                mass[(k, ci)] = e;
                mass[(ci, k)] = e;
            }
            for k in 0..4 {
                let e = wn[0][k] * y[0] + wn[1][k] * y[1] + wn[2][k] * y[2];
                mass[(3 + k, ci)] = e;
                mass[(ci, 3 + k)] = e;
            }
        }
    }
    if let Some(wn) = &wn {
        // The base's own block from the whole tree's inertia at its origin:
        // T = ½ ωᵀ J ω + ωᵀ [h×] v + ½ m |v|², v = ṗ, ω = W(n) ṅ / s.
        let whole = &sums[0];
        for k in 0..3 {
            mass[(k, k)] = whole.m;
        }
        // M_pn = ∂²T/∂v∂ω W / s = −[h×] W / s; M_nn = (W / s)ᵀ J (W / s).
        let h = whole.h;
        let hx = [[0.0, -h[2], h[1]], [h[2], 0.0, -h[0]], [-h[1], h[0], 0.0]];
        for r in 0..3 {
            for c in 0..4 {
                let e = -(0..3).map(|k| hx[r][k] * wn[k][c]).sum::<f64>();
                mass[(r, 3 + c)] = e;
                mass[(3 + c, r)] = e;
            }
        }
        for a in 0..4 {
            for b in 0..4 {
                let jw: V3 =
                    std::array::from_fn(|k| (0..3).map(|l| whole.j[k][l] * wn[l][b]).sum::<f64>());
                mass[(3 + a, 3 + b)] = (0..3).map(|k| wn[k][a] * jw[k]).sum::<f64>();
            }
        }
    }
    mass
}

/// A 6 × 6 spatial inertia at o in the world's axes, (ω, v) to (n, f): a body's, or the
/// articulated inertia of a subtree as the articulated-body algorithm reduces it.
type Inertia6 = [[f64; 6]; 6];

impl SpatialInertia {
    /// As a 6 × 6 matrix: `[[J, [h×]], [[h×]ᵀ, m 1]]` (see [`SpatialInertia::apply`]).
    #[inline]
    fn matrix(&self) -> Inertia6 {
        let (j, [x, y, z], m) = (&self.j, self.h, self.m);
        [
            [j[0][0], j[0][1], j[0][2], 0.0, -z, y],
            [j[1][0], j[1][1], j[1][2], z, 0.0, -x],
            [j[2][0], j[2][1], j[2][2], -y, x, 0.0],
            [0.0, z, -y, m, 0.0, 0.0],
            [-z, 0.0, x, 0.0, m, 0.0],
            [y, -x, 0.0, 0.0, 0.0, m],
        ]
    }
}

#[inline]
fn apply6(a: &Inertia6, s: &Spatial) -> Spatial {
    // A loop, not `array::from_fn`, whose closure an optimized build did not inline here.
    let mut out = [0.0; 6];
    for (o, row) in out.iter_mut().zip(a) {
        *o = pair(row, s);
    }
    out
}

#[inline]
fn add6(a: &mut Inertia6, b: &Inertia6) {
    for (ra, rb) in a.iter_mut().zip(b) {
        for (x, y) in ra.iter_mut().zip(rb) {
            *x += y;
        }
    }
}

/// x with `a x = b` for a symmetric positive definite 6 × 6 `a`, by L D Lᵀ with symmetric
/// pivoting: each step eliminates the coordinate whose pivot (its entry of what is left of
/// `a`) is the largest fraction of its `scale`; `None` where that pivot fails `clear`,
/// given its index. Pivoting, not the fixed order (ω, v): where `a` is singular to
/// rounding, with a null vector v in the coordinates scaled by √scale, the last pivot is
/// a's rounding divided by v_k², k the coordinate eliminated last, so that a null vector
/// with a small last component passes any test relative to the diagonal (a tilted base
/// whose turn about a shoulder's axis the shoulder repeats: pivots up to 1e-11 of their
/// diagonal entries where the rounding is 1e-16). Pivoted, v_k² ≥ 1/342 (Higham,
/// *Accuracy and Stability of Numerical Algorithms*, Lemma 10.13, rank 5 of 6), near 1 in
/// practice.
fn solve6(
    a: &Inertia6,
    b: &Spatial,
    scale: &[f64; 6],
    clear: impl Fn(usize, f64) -> bool,
) -> Option<Spatial> {
    let mut m = *a;
    let mut order = [0, 1, 2, 3, 4, 5];
    let mut d = [0.0; 6];
    for k in 0..6 {
        let ratio = |i: usize| m[i][i] / scale[i];
        let p = (k..6)
            .max_by(|&x, &y| ratio(order[x]).total_cmp(&ratio(order[y])))
            .expect("k < 6");
        order.swap(k, p);
        let i = order[k];
        if !clear(i, m[i][i]) {
            return None;
        }
        d[i] = m[i][i];
        // What is left: m[r][c] -= m[r][i] m[i][c] / d_i; m[r][i] = L_ri d_i is kept.
        for &r in &order[k + 1..] {
            let f = m[r][i] / d[i];
            for &c in &order[k + 1..] {
                m[r][c] -= f * m[i][c];
            }
        }
    }
    let mut y = *b;
    for k in 0..6 {
        let i = order[k];
        for &r in &order[k + 1..] {
            y[r] -= m[r][i] / d[i] * y[i];
        }
    }
    let mut x = [0.0; 6];
    for k in (0..6).rev() {
        let i = order[k];
        x[i] = y[i] / d[i]
            - order[k + 1..]
                .iter()
                .map(|&r| m[r][i] / d[i] * x[r])
                .sum::<f64>();
    }
    Some(x)
}

/// What the articulated-body algorithm keeps of a joint between its passes up and down
/// the tree: U = I^A S, 1 / D = 1 / (S · U) and u = τ − S · p^A.
#[derive(Clone, Copy)]
struct Articulated {
    u_vector: Spatial,
    inverse_d: f64,
    u: f64,
}

/// The accelerations q̈ of a robot whose model is its tree's
/// (the same robots as [`derivatives`]), gravity `g` along −z, `damping[k]` the damping of
/// coordinate k, `forces` the applied generalized forces Q: Featherstone's
/// articulated-body algorithm, in O(links) arithmetic, in the world's axes at o (so no
/// transforms between links: their articulated inertias add as they are). Into `qdd`;
/// `false`, with `qdd` unspecified, where it does not apply or fails (a joint whose
/// articulated inertia along it is not positive, a non-finite result): the caller then
/// solves the model's equations as for any model, which also says why they fail.
///
/// A floating base is the rigid tree's, under the base force that the generalized
/// forces on (p, n) are the image of (τ_p = f, τ_n = Cᵀ n, C = W(n) / |n|²: see
/// `FloatingBase`), less the multiplier λ of its one constraint, `constraint` = (its row
/// j, its target γ: j q̈ = γ). The mass matrix has n as its null vector (the turn does not
/// change with |n|), so λ = nᵀ Q_n / (j · n) makes Q − jᵀλ such an image, and the base
/// force is then f = (Q − jᵀλ)_p, n = W(n) (Q − jᵀλ)_n / 4 (W Wᵀ = 4 |n|²). From the
/// base's spatial acceleration A = (ω̇, p̈ − ω × ṗ): p̈, and n̈ = Wᵀ (ω̇ + ω ṡ / s) / 4 +
/// β n with β from j q̈ = γ.
#[doc(hidden)]
#[allow(clippy::too_many_arguments)]
pub fn accelerations<const L: usize, const B: usize, const N: usize, const M: usize>(
    robot: &Robot<L, B>,
    g: f64,
    damping: &[f64; N],
    x: &Point<f64, N, M>,
    forces: &[f64; N],
    constraint: Option<(&[f64; N], f64)>,
    qdd: &mut [f64; N],
) -> bool {
    let ground: Spatial = [0.0, 0.0, 0.0, 0.0, 0.0, g];
    qdd.fill(0.0);
    // The generalized forces the tree feels, g = Q − jᵀλ (the damping's below).
    let mut applied = *forces;
    let base = if robot.floating {
        let Some((j, _)) = constraint else {
            return false;
        };
        let n = [x.q[3], x.q[4], x.q[5], x.q[6]];
        let along = (0..4).map(|k| j[3 + k] * n[k]).sum::<f64>();
        let lambda = (0..4).map(|k| forces[3 + k] * n[k]).sum::<f64>() / along;
        for (a, j) in applied.iter_mut().zip(j) {
            *a -= j * lambda;
        }
        let s = n.iter().map(|v| v * v).sum::<f64>();
        let w = quaternion_rate(n);
        let omega = apply4(&w, [x.qd[3], x.qd[4], x.qd[5], x.qd[6]]).map(|e| e / s);
        let moment = apply4(&w, [applied[3], applied[4], applied[5], applied[6]]).map(|e| e / 4.0);
        let force = [applied[0], applied[1], applied[2]];
        Some((n, s, w, omega, join(moment, force)))
    } else {
        None
    };
    let root = base.map_or(crate::centroidal::IDENTITY, |(n, ..)| {
        crate::centroidal::normalized_rotation(n)
    });
    let places = places(robot, root, &x.q);
    // Down the tree: each link's velocity and the acceleration its joint's rate adds,
    // c = v × S q̇.
    let mut velocities = [[0.0; 6]; L];
    let mut bias = [[0.0; 6]; L];
    for (l, link) in robot.links.iter().enumerate() {
        if !places[l].moves {
            continue;
        }
        if let Joint::Root = link.joint {
            if let Some((.., omega, _)) = base {
                velocities[l] = join(omega, [x.qd[0], x.qd[1], x.qd[2]]);
            }
            continue;
        }
        let mut v = velocities[link.parent];
        if let Some(c) = places[l].coordinate {
            let column = places[l].column;
            for (v, s) in v.iter_mut().zip(column) {
                *v += s * x.qd[c];
            }
            bias[l] = cross_motion(&v, &column).map(|e| e * x.qd[c]);
        }
        velocities[l] = v;
    }
    // Each link's bodies: I^A = I and p^A = v ×* I v; and the composite inertias of the
    // subtrees, whose mass matrix's diagonal the pivots are measured against.
    let mut inertias = [[[0.0; 6]; 6]; L];
    let mut composites = [SpatialInertia::ZERO; L];
    for body in &robot.bodies {
        let place = &places[body.link];
        if place.moves {
            let inertia = SpatialInertia::of(body, &place.r, place.x);
            add6(&mut inertias[body.link], &inertia.matrix());
            composites[body.link].add(&inertia);
        }
    }
    let mut momenta = [[0.0; 6]; L];
    for l in (0..L).filter(|&l| places[l].moves) {
        let v = &velocities[l];
        momenta[l] = cross_force(v, &apply6(&inertias[l], v));
    }
    // Up the tree: each joint's articulated inertia along it, and what its subtree passes
    // to its parent; the composite inertia of its subtree, for the pivot's test.
    let mut joints = [Articulated {
        u_vector: [0.0; 6],
        inverse_d: 0.0,
        u: 0.0,
    }; L];
    // D and the mass matrix's diagonal entry at each joint's coordinate.
    let mut pivots: [Option<(f64, f64)>; L] = [None; L];
    for l in (0..L).rev() {
        let parent = robot.links[l].parent;
        if !places[l].moves {
            continue;
        }
        let (mut inertia, mut momentum) = (inertias[l], momenta[l]);
        if let Some(c) = places[l].coordinate {
            let column = &places[l].column;
            let u_vector = apply6(&inertia, column);
            let d = pair(column, &u_vector);
            pivots[l] = Some((d, pair(column, &composites[l].apply(column))));
            let inverse_d = 1.0 / d;
            let u = applied[c] - damping[c] * x.qd[c] - pair(column, &momentum);
            for (r, row) in inertia.iter_mut().enumerate() {
                for (e, uc) in row.iter_mut().zip(u_vector) {
                    *e -= u_vector[r] * uc * inverse_d;
                }
            }
            let inertial = apply6(&inertia, &bias[l]);
            for k in 0..6 {
                momentum[k] += inertial[k] + u_vector[k] * u * inverse_d;
            }
            joints[l] = Articulated {
                u_vector,
                inverse_d,
                u,
            };
        }
        if parent != l && places[parent].moves {
            add6(&mut inertias[parent], &inertia);
            for (p, m) in momenta[parent].iter_mut().zip(momentum) {
                *p += m;
            }
            let composite = composites[l];
            composites[parent].add(&composite);
        } else {
            // The root of a moving part: the base's solve reads it.
            inertias[l] = inertia;
            momenta[l] = momentum;
        }
    }
    // Each D is the pivot the factorization of M along the tree meets at that coordinate:
    // held to the same test (against M's diagonal entry there and its largest, a floating
    // base's included: its mass on p, (W e_k / s)ᵀ J (W e_k / s) on n_k, J the whole
    // tree's about o), so that where that one finds M singular (a joint whose motion its
    // subtree's joints repeat, to rounding), so does this, rather than having divided by
    // rounding noise.
    // A floating base's six pivots, those of its articulated inertia (the joints
    // eliminated), are held to the same test in its spatial velocity's coordinates, against
    // the whole tree's inertia's diagonal: so that a base whose motion a joint repeats (a
    // root without mass at a shoulder's axis) or that carries next to nothing gives the
    // KKT solve's error, not a solution picked by rounding.
    let whole = composites[0].matrix();
    let mut largest = pivots
        .iter()
        .flatten()
        .fold(0.0, |m: f64, &(_, diagonal)| m.max(diagonal));
    if let Some((_, s, w, ..)) = base {
        let inertia = &composites[0];
        largest = (0..6).fold(largest.max(inertia.m), |m, i| m.max(whole[i][i]));
        for k in 0..4 {
            let c = scale(1.0 / s, column(&w, k));
            largest = largest.max(dot(c, apply(&inertia.j, c)));
        }
    }
    let singular = tolerances::SINGULAR_MASS;
    if !pivots
        .iter()
        .flatten()
        .all(|&(d, diagonal)| crate::linalg::clear_pivot(d, diagonal, singular, largest))
    {
        return false;
    }
    // Down the tree: the base's acceleration from its force, then each joint's.
    let mut accelerations = [ground; L];
    for (l, link) in robot.links.iter().enumerate() {
        if !places[l].moves {
            continue;
        }
        if let Joint::Root = link.joint {
            if let Some((.., wrench)) = base {
                let rhs: Spatial = std::array::from_fn(|k| wrench[k] - momenta[l][k]);
                let clear = |i: usize, pivot: f64| {
                    crate::linalg::clear_pivot(pivot, whole[i][i], singular, largest)
                };
                let scale = std::array::from_fn(|i| whole[i][i]);
                let Some(total) = solve6(&inertias[l], &rhs, &scale, clear) else {
                    return false;
                };
                accelerations[l] = total;
            }
            continue;
        }
        let mut a = accelerations[link.parent];
        for (a, c) in a.iter_mut().zip(bias[l]) {
            *a += c;
        }
        if let Some(c) = places[l].coordinate {
            let joint = &joints[l];
            let acceleration = (joint.u - pair(&joint.u_vector, &a)) * joint.inverse_d;
            qdd[c] = acceleration;
            for (a, s) in a.iter_mut().zip(places[l].column) {
                *a += s * acceleration;
            }
        }
        accelerations[l] = a;
    }
    if let (Some((n, s, w, omega, _)), Some((j, gamma))) = (base, constraint) {
        // The root is the first link.
        let a: Spatial = std::array::from_fn(|k| accelerations[0][k] - ground[k]);
        let (omega_d, pd) = (angular(&a), [x.qd[0], x.qd[1], x.qd[2]]);
        let pdd = add(linear(&a), cross(omega, pd));
        let sd = 2.0 * (0..4).map(|k| n[k] * x.qd[3 + k]).sum::<f64>();
        let turn = add(omega_d, scale(sd / s, omega));
        let ndd = transposed_apply(&w, turn).map(|e| e / 4.0);
        qdd[..3].copy_from_slice(&pdd);
        qdd[3..7].copy_from_slice(&ndd);
        let along = (0..4).map(|k| j[3 + k] * n[k]).sum::<f64>();
        let beta = (gamma - j.iter().zip(qdd.iter()).map(|(j, a)| j * a).sum::<f64>()) / along;
        for k in 0..4 {
            qdd[3 + k] += beta * n[k];
        }
    }
    qdd.iter().all(|a| a.is_finite())
}

/// The inverse dynamics τ = M q̈ − (the equations' other terms) of a robot whose model is
/// its tree's (the same robots as [`derivatives`]), gravity `g` along −z, `damping[k]` the
/// damping of coordinate k, `forces` the applied generalized forces Q: the recursive
/// Newton–Euler algorithm over its tree, in the world's axes at o, into `tau`; a floating
/// base's rows the rigid tree's base force F = (n, f) mapped back, τ_p = f and τ_n = Cᵀ n
/// (see `FloatingBase`). What [`derivatives`] writes as τ, without the derivatives.
#[doc(hidden)]
#[allow(clippy::too_many_arguments)]
pub fn inverse_dynamics<const L: usize, const B: usize, const N: usize, const M: usize>(
    robot: &Robot<L, B>,
    g: f64,
    damping: &[f64; N],
    x: &Point<f64, N, M>,
    qdd: &[f64; N],
    forces: &[f64; N],
    tau: &mut [f64; N],
) {
    let ground: Spatial = [0.0, 0.0, 0.0, 0.0, 0.0, g];
    // A floating base: its velocity V = (ω, ṗ) and acceleration A = (ω̇, p̈ − ω × ṗ) at
    // o = p, with ω = C ṅ and ω̇ = C n̈ − ω ṡ / s, and C itself.
    let base = robot.floating.then(|| {
        let quaternion = |v: &[f64]| [v[3], v[4], v[5], v[6]];
        let (n, nd, ndd) = (quaternion(&x.q), quaternion(&x.qd), quaternion(qdd));
        let pd = [x.qd[0], x.qd[1], x.qd[2]];
        let s = n.iter().map(|v| v * v).sum::<f64>();
        let sd = 2.0 * n.iter().zip(&nd).map(|(a, b)| a * b).sum::<f64>();
        let c = quaternion_rate(n).map(|row| row.map(|e| e / s));
        let omega = apply4(&c, nd);
        let omega_d = sub(apply4(&c, ndd), scale(sd / s, omega));
        let pdd = [qdd[0], qdd[1], qdd[2]];
        let acceleration = join(omega_d, sub(pdd, cross(omega, pd)));
        (n, c, join(omega, pd), acceleration)
    });
    let root = base.map_or(crate::centroidal::IDENTITY, |(n, ..)| {
        crate::centroidal::normalized_rotation(n)
    });
    let places = places(robot, root, &x.q);
    // Down the tree: each link's velocity and acceleration (gravity's included).
    let mut velocities = [[0.0; 6]; L];
    let mut accelerations = [ground; L];
    for (l, link) in robot.links.iter().enumerate() {
        if !places[l].moves {
            continue;
        }
        if let Joint::Root = link.joint {
            if let Some((.., v, a)) = base {
                velocities[l] = v;
                accelerations[l] = std::array::from_fn(|k| ground[k] + a[k]);
            }
            continue;
        }
        let (mut v, mut a) = (velocities[link.parent], accelerations[link.parent]);
        if let Some(c) = places[l].coordinate {
            let column = places[l].column;
            for (v, s) in v.iter_mut().zip(column) {
                *v += s * x.qd[c];
            }
            let turning = cross_motion(&v, &column);
            for ((a, s), t) in a.iter_mut().zip(column).zip(turning) {
                *a += s * qdd[c] + t * x.qd[c];
            }
        }
        velocities[l] = v;
        accelerations[l] = a;
    }
    // Each body's force f = I a + v ×* I v, summed up the tree.
    let mut sums = [[0.0; 6]; L];
    for body in &robot.bodies {
        let place = &places[body.link];
        if !place.moves {
            continue;
        }
        let (v, a) = (&velocities[body.link], &accelerations[body.link]);
        let inertia = SpatialInertia::of(body, &place.r, place.x);
        let (inertial, turning) = (inertia.apply(a), cross_force(v, &inertia.apply(v)));
        for (f, (i, t)) in sums[body.link].iter_mut().zip(inertial.iter().zip(turning)) {
            *f += i + t;
        }
    }
    sum_up(robot, &places, &mut sums, |a: &mut Spatial, b: &Spatial| {
        for (x, y) in a.iter_mut().zip(b) {
            *x += y;
        }
    });
    tau.fill(0.0);
    for (place, sum) in places.iter().zip(&sums) {
        if let Some(c) = place.coordinate {
            tau[c] = pair(&place.column, sum);
        }
    }
    if let Some((_, c, ..)) = base {
        // The root is the first link.
        let whole = &sums[0];
        tau[..3].copy_from_slice(&linear(whole));
        tau[3..7].copy_from_slice(&transposed_apply(&c, angular(whole)));
    }
    for (k, t) in tau.iter_mut().enumerate() {
        *t += damping[k] * x.qd[k] - forces[k];
    }
}
