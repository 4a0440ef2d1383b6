//! Reading `tests/robots/<robot>.json` (Pinocchio's reference values, written by
//! `tests/robots/reference.py`) and comparing with it: a module of the `robots` binary,
//! shared by its files (`urdf_robots.rs`, `g1.rs`).

use lagrange_runtime::jacobian::Jacobian;
use lagrange_runtime::prelude::*;
use lagrange_test_models::FreeFlyer;
use serde_json::Value;

pub fn reference(robot: &str) -> Value {
    let path = format!("{}/tests/robots/{robot}.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).expect("the reference data")).expect("JSON")
}

pub fn vector<const N: usize>(v: &Value) -> SVector<f64, N> {
    let a = v.as_array().expect("an array");
    assert_eq!(a.len(), N);
    SVector::from_fn(|i, _| a[i].as_f64().expect("a number"))
}

pub fn matrix<const R: usize, const C: usize>(v: &Value) -> SMatrix<f64, R, C> {
    let rows = v.as_array().expect("rows");
    assert_eq!(rows.len(), R);
    SMatrix::from_fn(|i, j| rows[i][j].as_f64().expect("a number"))
}

/// |got − want| ≤ 1e-12 · max(1, |want|), entry by entry.
pub fn agree<const R: usize, const C: usize>(
    got: &SMatrix<f64, R, C>,
    want: &SMatrix<f64, R, C>,
    what: &str,
) {
    let scale = want.amax().max(1.0);
    let err = (got - want).amax();
    assert!(
        err <= 1e-12 * scale,
        "{what}: off by {err:e} (scale {scale:e})\n got {got}\nwant {want}"
    );
}

/// The end effector of a robot at a state: its frame's origin and orientation, and the
/// Jacobians of its origin and of its angular velocity in the world frame, with respect to
/// N velocities: lagrange's q̇, or for a floating base Pinocchio's v (see [`FreeFlyer`]).
pub struct Frame<const N: usize> {
    pub position: SVector<f64, 3>,
    pub rotation: SMatrix<f64, 3, 3>,
    pub linear: SMatrix<f64, 3, N>,
    pub angular: SMatrix<f64, 3, N>,
}

/// The energies and the end-effector frame against a state of the reference data
/// (`frame_jacobian`: LOCAL_WORLD_ALIGNED, linear rows first, V = Pinocchio's nv columns).
pub fn agree_energies_and_frame<
    T: Dynamics<N, M>,
    const N: usize,
    const M: usize,
    const V: usize,
>(
    model: &T,
    s: &State<N>,
    state: &Value,
    frame: &Frame<V>,
    label: &str,
) {
    let none = SVector::<f64, M>::zeros();
    let energies = SVector::from([
        model.kinetic_energy(s, &none),
        model.potential_energy(s, &none),
    ]);
    let want = SVector::from([
        state["kinetic"].as_f64().unwrap(),
        state["potential"].as_f64().unwrap(),
    ]);
    agree(&energies, &want, &format!("energies, {label}"));
    agree(
        &frame.position,
        &vector(&state["frame_position"]),
        &format!("frame position, {label}"),
    );
    agree(
        &frame.rotation,
        &matrix(&state["frame_rotation"]),
        &format!("frame rotation, {label}"),
    );
    let jacobian: SMatrix<f64, 6, V> = matrix(&state["frame_jacobian"]);
    agree(
        &frame.linear,
        &jacobian.fixed_rows::<3>(0).into_owned(),
        &format!("linear Jacobian, {label}"),
    );
    agree(
        &frame.angular,
        &jacobian.fixed_rows::<3>(3).into_owned(),
        &format!("angular Jacobian, {label}"),
    );
}

/// A robot on a floating base against Pinocchio's free flyer, at the states of
/// `<robot>.json`: the model takes Pinocchio's `tau` as its inputs (M = V, the base wrench
/// in base axes first), and `frame` gives its recorded frame at a state, its Jacobians in
/// lagrange's velocities (3 × N).
///
/// Compared, each with [`agree`] (1e-12 relative to the largest entry, at least 1): the
/// energies at the same state; lagrange's mass matrix seen through the velocity map,
/// Lᵀ M L = `crba` (and L J M L J = Jᵀ `crba` J, its part on the constraint's tangent
/// space); its Euler–Lagrange residual at λ = 0 (`inverse_dynamics` with no input), Lᵀ E =
/// `rnea`, `nonLinearEffects` and the gravity, where E differs from Jᵀ `rnea` only along the
/// constraint's gradient (0, n, 0); the constrained accelerations with the inputs = `tau`,
/// mapped to v̇, against `aba`; and the frame's position, orientation and
/// Jacobians times L against its LOCAL_WORLD_ALIGNED frame Jacobian. The maps of the
/// script (its `lagrange` record, checked there against differences along
/// `pin.integrate`) agree with [`FreeFlyer`]'s to rounding.
pub fn floating_matches_pinocchio<T, const N: usize, const V: usize>(
    model: &T,
    robot: &str,
    frame: impl Fn(&State<N>) -> Frame<N>,
) where
    T: Dynamics<N, V> + lagrange_runtime::model::Model<N, V>,
{
    let data = reference(robot);
    let names: Vec<&str> = data["lagrange_coordinates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert_eq!(<T as Dynamics<N, V>>::COORDINATES.to_vec(), names);
    let joints: Vec<&str> = data["joint_names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert_eq!(joints[0], "root_joint");
    assert_eq!(joints[1..], names[7..]);
    assert_eq!(
        <T as lagrange_runtime::model::Model<N, V>>::CONSTRAINT_NAMES,
        ["base_unit"]
    );
    let none = SVector::<f64, V>::zeros();
    for state in data["states"].as_array().unwrap() {
        let label = state["label"].as_str().unwrap();
        let (v, a, tau) = (
            vector::<V>(&state["v"]),
            vector::<V>(&state["a"]),
            vector::<V>(&state["tau"]),
        );
        let pinocchio_q = vector::<N>(&state["q"]);
        let base = FreeFlyer::<N, V>::at(&pinocchio_q);
        assert_eq!(base.pinocchio_q(), pinocchio_q);
        let s = base.state(&v);
        let qdd = base.qdd(&v, &a);
        let mapped = &state["lagrange"];
        agree(&s.q, &vector(&mapped["q"]), &format!("q, {label}"));
        agree(&s.qd, &vector(&mapped["qd"]), &format!("q̇ = L v, {label}"));
        agree(&qdd, &vector(&mapped["qdd"]), &format!("q̈ from a, {label}"));
        model
            .check_start(&s, &tau)
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        let (j, l) = (base.j(), base.l());
        agree(&(j * l), &SMatrix::identity(), "J L");

        let mass = model.mass_matrix(&s, &none);
        let crba: SMatrix<f64, V, V> = matrix(&state["mass_matrix"]);
        agree(
            &(l.transpose() * mass * l),
            &crba,
            &format!("Lᵀ M L = crba, {label}"),
        );
        let p = base.tangent();
        agree(
            &(p.transpose() * mass * p),
            &(j.transpose() * crba * j),
            &format!("P M P = Jᵀ crba J, {label}"),
        );

        let residual = model.inverse_dynamics(&s, &qdd, &none);
        let rnea = vector::<V>(&state["rnea"]);
        agree(
            &(l.transpose() * residual),
            &rnea,
            &format!("Lᵀ E = rnea, {label}"),
        );
        // E − Jᵀ rnea is a multiple of the constraint's gradient (0, 2n, 0): P E = Jᵀ rnea
        // (P Jᵀ = Jᵀ, as J P = J).
        agree(
            &(p.transpose() * residual),
            &(j.transpose() * rnea),
            &format!("P E = Jᵀ rnea, {label}"),
        );
        let coasting = base.qdd(&v, &SVector::zeros());
        agree(
            &(l.transpose() * model.inverse_dynamics(&s, &coasting, &none)),
            &vector(&state["nle"]),
            &format!("nonLinearEffects, {label}"),
        );
        let rest = State::new(0.0, s.q, SVector::zeros());
        agree(
            &(l.transpose() * model.inverse_dynamics(&rest, &SVector::zeros(), &none)),
            &vector(&state["gravity"]),
            &format!("gravity, {label}"),
        );

        let qdd = model.accelerations(&s, &tau).expect("regular");
        agree(
            &qdd,
            &vector(&mapped["qdd_aba"]),
            &format!("q̈ = aba mapped, {label}"),
        );
        agree(
            &base.a(&s, &qdd),
            &vector(&state["aba"]),
            &format!("aba, {label}"),
        );

        let lagrange = frame(&s);
        let frame = Frame {
            position: lagrange.position,
            rotation: lagrange.rotation,
            linear: lagrange.linear * l,
            angular: lagrange.angular * l,
        };
        agree_energies_and_frame(model, &s, state, &frame, label);
    }
}

/// A URDF model's centroidal `let`s at a state, with their Jacobians (`urdf_mass`,
/// `urdf_com`, and `urdf_momentum` over `urdf_angular_momentum`: h_G, its matrix A_G and its
/// drift, 6 rows), in lagrange's N velocities.
pub struct Centroidal<const N: usize> {
    pub mass: f64,
    pub com: SVector<f64, 3>,
    pub com_jacobian: SMatrix<f64, 3, N>,
    pub com_drift: SVector<f64, 3>,
    pub momentum: SVector<f64, 6>,
    pub matrix: SMatrix<f64, 6, N>,
    pub drift: SVector<f64, 6>,
}

impl<const N: usize> Centroidal<N> {
    /// From the values of `urdf_mass`, `urdf_com`, `urdf_momentum` and
    /// `urdf_angular_momentum`, and the Jacobians of the last three.
    pub fn new(
        (mass, com, linear, angular): (f64, SVector<f64, 3>, SVector<f64, 3>, SVector<f64, 3>),
        [com_jacobian, linear_jacobian, angular_jacobian]: [&Jacobian<3, N>; 3],
    ) -> Self {
        let stack = |a: SMatrix<f64, 3, N>, b: SMatrix<f64, 3, N>| {
            SMatrix::<f64, 6, N>::from_fn(|i, j| if i < 3 { a[(i, j)] } else { b[(i - 3, j)] })
        };
        let join = |a: SVector<f64, 3>, b: SVector<f64, 3>| {
            SVector::<f64, 6>::from_fn(|i, _| if i < 3 { a[i] } else { b[i - 3] })
        };
        Centroidal {
            mass,
            com,
            com_jacobian: com_jacobian.matrix,
            com_drift: com_jacobian.drift,
            momentum: join(linear, angular),
            matrix: stack(linear_jacobian.matrix, angular_jacobian.matrix),
            drift: join(linear_jacobian.drift, angular_jacobian.drift),
        }
    }
}

/// The centroidal `let`s of a URDF model (`centroidal` gives them at a state) against
/// Pinocchio's at the states of `<robot>.json`, from `<robot>_centroidal.json` (each to
/// [`agree`]'s 1e-12 of its largest entry): `data.mass[0]`, `centerOfMass`, its velocity
/// J_com q̇ and acceleration J_com q̈ + drift, `jacobianCenterOfMass` (J_com L), h_G
/// (`computeCentroidalMomentum`), A_G (`ccrba`: A L), dA_G v (`dccrba`) and ḣ_G = A q̈ +
/// drift (`computeCentroidalMomentumTimeVariation`). With `floating`, lagrange's state and
/// q̈ are Pinocchio's mapped by [`FreeFlyer`] (q̇ = L v, q̈ = L v̇ + L̇ v); then ḣ_G = A (L a +
/// L̇ v) + drift = A_G a + dA_G v, so dA_G v = drift + A L̇ v, L̇ v being q̈ at a = 0. A
/// fixed base has N = V and L = I.
pub fn centroidal_matches_pinocchio<const N: usize, const V: usize>(
    robot: &str,
    floating: bool,
    centroidal: impl Fn(&State<N>) -> Centroidal<N>,
) {
    let (data, pinocchio) = (reference(robot), reference(&format!("{robot}_centroidal")));
    let states = data["states"].as_array().unwrap();
    let values = pinocchio["states"].as_array().unwrap();
    assert_eq!(states.len(), values.len());
    for (state, want) in states.iter().zip(values) {
        let label = state["label"].as_str().unwrap();
        assert_eq!(want["label"], state["label"]);
        assert_eq!(want["q"], state["q"]);
        let (q, v, a) = (
            vector::<N>(&state["q"]),
            vector::<V>(&state["v"]),
            vector::<V>(&state["a"]),
        );
        let (s, l, qdd, coasting) = if floating {
            let base = FreeFlyer::<N, V>::at(&q);
            let zero = SVector::zeros();
            (
                base.state(&v),
                base.l(),
                base.qdd(&v, &a),
                base.qdd(&v, &zero),
            )
        } else {
            assert_eq!(N, V);
            let l = SMatrix::<f64, N, V>::identity();
            (State::new(0.0, q, l * v), l, l * a, SVector::zeros())
        };
        let c = centroidal(&s);
        let what = |w: &str| format!("{w}, {robot} {label}");
        agree(
            &SVector::from([c.mass]),
            &SVector::from([want["mass"].as_f64().unwrap()]),
            &what("total mass"),
        );
        agree(&c.com, &vector(&want["com"]), &what("centerOfMass"));
        agree(
            &(c.com_jacobian * l),
            &matrix(&want["com_jacobian"]),
            &what("jacobianCenterOfMass"),
        );
        agree(
            &(c.com_jacobian * s.qd),
            &vector(&want["com_velocity"]),
            &what("centre of mass velocity"),
        );
        agree(
            &(c.com_jacobian * qdd + c.com_drift),
            &vector(&want["com_acceleration"]),
            &what("centre of mass acceleration"),
        );
        agree(
            &c.momentum,
            &vector(&want["centroidal_momentum"]),
            &what("computeCentroidalMomentum"),
        );
        agree(
            &(c.matrix * l),
            &matrix(&want["centroidal_matrix"]),
            &what("ccrba's A_G"),
        );
        agree(
            &(c.matrix * s.qd),
            &c.momentum,
            &what("A q̇ = h_G (affine in q̇, no constant)"),
        );
        agree(
            &(c.drift + c.matrix * coasting),
            &vector(&want["centroidal_drift"]),
            &what("dccrba's dA_G v"),
        );
        agree(
            &(c.matrix * qdd + c.drift),
            &vector(&want["centroidal_momentum_rate"]),
            &what("computeCentroidalMomentumTimeVariation"),
        );
    }
}
