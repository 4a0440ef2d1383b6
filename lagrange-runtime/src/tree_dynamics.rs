//! A URDF robot's mass matrix ([`mass_matrix`], the composite-rigid-body algorithm,
//! floating bases included) and the derivatives of its inverse dynamics ([`derivatives`])
//! from its tree. The derivatives, in one pass up and one down the tree: ∂τ/∂q, ∂τ/∂q̇
//! and the mass matrix M = ∂τ/∂q̈ at (q, q̇, q̈), the
//! analytical derivatives of the recursive Newton–Euler algorithm (Carpentier & Mansard,
//! "Analytical derivatives of rigid body dynamics algorithms", RSS 2018), in O(links ·
//! depth) arithmetic instead of one evaluation in dual numbers per coordinate. The
//! generated `Model::eval_inverse_dynamics_derivatives` calls it for a robot whose model
//! is its URDF's and nothing else ([`Robot`]: `kinetic = urdf_kinetic;`, `potential =
//! urdf_potential;` or none, `dissipation = urdf_dissipation;` or none, forces that do not
//! depend on the state, a fixed base). Not part of the public API.
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

use crate::centroidal::{
    add, apply, cross, dot, product, rotated, scale, sub, Body, Inertia, Joint, Robot, M3, V3,
};
use crate::model::Point;
use nalgebra::SMatrix;

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

/// ∂τ/∂q, ∂τ/∂q̇ and M of the inverse dynamics of `robot` (a fixed base) at `x` and
/// `qdd`, gravity `g` along −z and `damping[k]` the damping of coordinate k, written into
/// `d_q`, `d_qd` and `mass` (every entry: the coordinates no joint moves get zeros).
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
) {
    debug_assert!(!robot.floating, "a floating base has its own derivatives");
    let ground: Spatial = [0.0, 0.0, 0.0, 0.0, 0.0, g];
    let places = places(robot, crate::centroidal::IDENTITY, &x.q);
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
    d_q.fill(0.0);
    d_qd.fill(0.0);
    mass.fill(0.0);
    for (i, place) in places.iter().enumerate() {
        let Some(ci) = place.coordinate else {
            continue;
        };
        let (s, sum, link) = (&place.column, &sums[i], &links[i]);
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
    }
    for (k, d) in damping.iter().enumerate() {
        d_qd[(k, k)] += d;
    }
}

/// The mass matrix M = ∂²T/∂q̇² of a robot whose kinetic energy is its tree's
/// (`urdf_kinetic`): the composite-rigid-body algorithm
/// over the tree, M_ij = S_i · Y_i S_j for j an ancestor of i or i itself.
///
/// A floating base (coordinates p, then the quaternion n, then revolute joints only) has
/// the kinetic energy the URDF writer gives it off the unit sphere too: with s = |n|²
/// and its rotation B(n, n) = s R̂, every arm from the base's origin is s times the rigid
/// tree's (turned by R̂) and every angular velocity s times the rigid tree's whose base
/// turns at W(n) ṅ = 2 Im(ṅ n*) (s times R̂'s rate), so T = s⁴ T_rigid(ṗ / s², W(n) ṅ,
/// θ̇) and M = s⁴ Dᵀ M_rigid D, D = diag(1 / s², W(n), 1), M_rigid that of the rigid tree
/// with the base's spatial velocity at its origin. (A prismatic joint's rate is not
/// scaled the same way: the macro does not take this path for it.)
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
        Some(([w, a, b, c], s)) => {
            let r = crate::centroidal::quaternion([w, a, b, c], [w, a, b, c]);
            r.map(|row| scale(1.0 / s, row))
        }
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
    // The rigid tree's entries, s⁴ times (the joints' block), and its base's with the
    // joints (rows ω, v of Y_i S_i).
    let weight = base.map_or(1.0, |(_, s)| (s * s) * (s * s));
    // W(n), with W(n) ṅ = 2 Im(ṅ n*).
    let wn = base.map(|([w, a, b, c], _)| {
        [
            [-2.0 * a, 2.0 * w, -2.0 * c, 2.0 * b],
            [-2.0 * b, 2.0 * c, 2.0 * w, -2.0 * a],
            [-2.0 * c, -2.0 * b, 2.0 * a, 2.0 * w],
        ]
    });
    for (i, link) in links.iter().enumerate() {
        let Some(ci) = link.coordinate else {
            continue;
        };
        let y = sums[i].apply(&link.column);
        for a in line(robot, &links, i) {
            if let Some(cj) = links[a].coordinate {
                let mij = weight * pair(&y, &links[a].column);
                mass[(ci, cj)] = mij;
                mass[(cj, ci)] = mij;
            }
        }
        if let (Some((_, s)), Some(wn)) = (base, &wn) {
            // M_pθ = s⁴ / s² f, M_nθ = s⁴ Wᵀ n_moment.
            for k in 0..3 {
                let e = s * s * y[3 + k];
                mass[(k, ci)] = e;
                mass[(ci, k)] = e;
            }
            for k in 0..4 {
                let e = weight * (wn[0][k] * y[0] + wn[1][k] * y[1] + wn[2][k] * y[2]);
                mass[(3 + k, ci)] = e;
                mass[(ci, 3 + k)] = e;
            }
        }
    }
    if let (Some((_, s)), Some(wn)) = (base, &wn) {
        // The base's own block from the whole tree's inertia at its origin:
        // T = ½ ωᵀ J ω + ωᵀ [h×] v + ½ m |v|², v = ṗ / s², ω = W(n) ṅ.
        let whole = &sums[0];
        for k in 0..3 {
            mass[(k, k)] = whole.m;
        }
        // M_pn = s⁴ / s² ∂²T/∂v∂ω W = s² (−[h×]) W; M_nn = s⁴ Wᵀ J W.
        let h = whole.h;
        let hx = [[0.0, -h[2], h[1]], [h[2], 0.0, -h[0]], [-h[1], h[0], 0.0]];
        for r in 0..3 {
            for c in 0..4 {
                let e = -(s * s) * (0..3).map(|k| hx[r][k] * wn[k][c]).sum::<f64>();
                mass[(r, 3 + c)] = e;
                mass[(3 + c, r)] = e;
            }
        }
        for a in 0..4 {
            for b in 0..4 {
                let jw: V3 =
                    std::array::from_fn(|k| (0..3).map(|l| whole.j[k][l] * wn[l][b]).sum::<f64>());
                mass[(3 + a, 3 + b)] = weight * (0..3).map(|k| wn[k][a] * jw[k]).sum::<f64>();
            }
        }
    }
    mass
}
