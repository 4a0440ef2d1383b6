#!/usr/bin/env python3
"""Generate Pinocchio reference values for the URDF robots in this directory.

Run from the repository root:

    /tmp/pinvenv/bin/python tests/robots/reference.py                # every file
    /tmp/pinvenv/bin/python tests/robots/reference.py --centroidal   # *_centroidal.json only
    /tmp/pinvenv/bin/python tests/robots/reference.py --derivatives  # *_derivatives.json only
                                                                     # (fixed and floating)
    /tmp/pinvenv/bin/python tests/robots/reference.py --contacts     # *_contacts.json only

(/tmp/pinvenv is a virtualenv with `pip install pin example-robot-data`;
see README.md.)  Writes tests/robots/<robot>.json next to this script.

Conventions (all Pinocchio's):
  * fixed base (UR5, Panda): buildModelFromUrdf(path) with no root joint;
    <mimic> tags are ignored (mimic=False, the default), so every non-fixed
    joint is a DOF;
  * floating base (Solo-12, G1): buildModelFromUrdf(path, JointModelFreeFlyer()),
    q = (x y z qx qy qz qw, joints), v = (base linear and angular velocity in
    the base frame, joint rates); each state also carries lagrange's state and
    accelerations for it (see `floating_map` and README.md, "Floating base");
  * gravity (0, 0, -9.81);
  * joint order = model.names[1:] (depth-first from the root link);
  * mass_matrix = crba with the upper triangle copied to the lower one;
  * nle = C(q, v) v + g(q);  gravity = g(q);  rnea = M a + nle;
    aba = M^-1 (tau - nle);
  * kinetic = 1/2 v^T M v;  potential = -sum_i m_i g . c_i over the moving
    bodies (masses attached to the world/universe do not count), zero at the
    world origin;
  * frame_position = data.oMf[frame].translation (world frame);
  * frame_jacobian = getFrameJacobian(..., LOCAL_WORLD_ALIGNED), 6 x nv,
    rows 0..2 linear velocity of the frame origin, rows 3..5 angular velocity,
    both expressed in world axes.
  * centroidal quantities, in <robot>_centroidal.json (a file of their own,
    at the same states, each with its label, q and v): mass = data.mass[0] (the moving bodies: a
    mass attached to the world is not in it), com = centerOfMass(q),
    com_velocity and com_acceleration (centerOfMass(q, v, a)),
    com_jacobian = jacobianCenterOfMass (3 x nv), centroidal_matrix =
    ccrba's A_G (6 x nv: linear momentum rows first, then the angular
    momentum about the com, world axes), centroidal_momentum =
    computeCentroidalMomentum (h_G = A_G v, linear first),
    centroidal_drift = dccrba's dA_G times v and centroidal_momentum_rate =
    computeCentroidalMomentumTimeVariation (dh_G = A_G a + dA_G v);
  * <dynamics damping/friction> in the URDF are NOT used by any of these
    algorithms (rnea/aba/nle contain no damping term); armature is zero.
"""

import hashlib
import json
import os
import sys

import numpy as np
import pinocchio as pin

HERE = os.path.dirname(os.path.abspath(__file__))

# (robot, urdf file, frame whose origin/Jacobian is recorded, rng seed)
ROBOTS = [
    ("ur5", "ur5.urdf", "tool0", 5),
    ("panda", "panda.urdf", "panda_hand", 7),
]

# The same for robots with a free-flyer root joint.
FLOATING = [
    ("solo12", "solo12.urdf", "FL_FOOT", 12),
    ("g1", "g1.urdf", "left_ankle_roll_link", 29),
]


def joint_kind(jm):
    """'revolute' or 'prismatic' for a one-DOF joint model, else raise."""
    name = jm.shortname()
    if jm.nq != 1 or jm.nv != 1:
        raise ValueError(f"unsupported joint {name} (nq={jm.nq}, nv={jm.nv})")
    if name.startswith("JointModelR"):  # RX/RY/RZ/RevoluteUnaligned
        return "revolute"
    if name.startswith("JointModelP"):  # PX/PY/PZ/PrismaticUnaligned
        return "prismatic"
    raise ValueError(f"unsupported joint {name}")


def random_q(model, kinds, rng):
    q = np.zeros(model.nq)
    for i in range(1, model.njoints):
        k = model.joints[i].idx_q
        if kinds[i - 1] == "revolute":
            q[k] = rng.uniform(-1.5, 1.5)
        else:
            q[k] = rng.uniform(0.0, 0.03)
    return q


def states(model, kinds, rng):
    """Six (label, q, v, a, tau). a and tau are random in every state."""
    nv = model.nv
    out = []
    for label in ["q0_v0", "q0_vrand", "qrand_v0", "rand1", "rand2", "rand3"]:
        q = np.zeros(model.nq) if label.startswith("q0") else random_q(model, kinds, rng)
        v = np.zeros(nv) if label.endswith("v0") else rng.uniform(-1.0, 1.0, nv)
        a = rng.uniform(-1.0, 1.0, nv)
        tau = rng.uniform(-5.0, 5.0, nv)
        out.append((label, q, v, a, tau))
    return out


def mat(m):
    return [list(map(float, row)) for row in np.asarray(m)]


def vec(x):
    return list(map(float, np.asarray(x).ravel()))


def compute(model, data, fid, q, v, a, tau):
    M = pin.crba(model, data, q).copy()
    M = np.triu(M) + np.triu(M, 1).T
    rnea = pin.rnea(model, data, q, v, a).copy()
    nle = pin.nonLinearEffects(model, data, q, v).copy()
    aba = pin.aba(model, data, q, v, tau).copy()
    g = pin.computeGeneralizedGravity(model, data, q).copy()
    # computeKineticEnergy(model, data, q, v) runs forwardKinematics itself.
    ke = float(pin.computeKineticEnergy(model, data, q, v))
    pe = float(pin.computePotentialEnergy(model, data, q))
    pin.forwardKinematics(model, data, q)
    pin.updateFramePlacements(model, data)
    pos = data.oMf[fid].translation.copy()
    rot = data.oMf[fid].rotation.copy()
    J = pin.computeFrameJacobian(model, data, q, fid, pin.LOCAL_WORLD_ALIGNED).copy()

    # Self-consistency checks (cheap, catch misuse of the API).
    tol = 1e-9
    assert np.allclose(M, M.T, atol=0)
    assert np.all(np.linalg.eigvalsh(M) > 0), "mass matrix not positive definite"
    assert np.allclose(rnea, M @ a + nle, atol=tol, rtol=tol), "rnea != M a + nle"
    assert np.allclose(M @ aba + nle, tau, atol=1e-8, rtol=1e-8), "M aba + nle != tau"
    assert np.allclose(pin.nonLinearEffects(model, data, q, 0 * v), g, atol=tol)
    assert abs(ke - 0.5 * v @ M @ v) < tol * max(1.0, abs(ke))
    # linear Jacobian vs central finite difference of the frame position
    eps = 1e-6
    Jfd = np.zeros((3, model.nv))
    for k in range(model.nv):
        dq = np.zeros(model.nv)
        dq[k] = eps
        p = []
        for s in (1, -1):
            pin.framesForwardKinematics(model, data, pin.integrate(model, q, s * dq))
            p.append(data.oMf[fid].translation.copy())
        Jfd[:, k] = (p[0] - p[1]) / (2 * eps)
    assert np.allclose(J[:3], Jfd, atol=1e-7), "frame Jacobian != finite difference"

    return {
        "mass_matrix": mat(M),
        "rnea": vec(rnea),
        "nle": vec(nle),
        "gravity": vec(g),
        "aba": vec(aba),
        "kinetic": ke,
        "potential": pe,
        "frame_position": vec(pos),
        "frame_rotation": mat(rot),
        "frame_jacobian": mat(J),
    }


# `--centroidal`: write the *_centroidal.json files only. The other files were written
# before them; regenerated on another machine, three numbers of the Solo-12's and of the
# G1's `lagrange.qdd` came out one unit in the last place apart (numpy's matrix product),
# so the centroidal values went to files of their own and those were left as they were.
CENTROIDAL_ONLY = "--centroidal" in sys.argv[1:]

# `--derivatives`: write the fixed-base robots' *_derivatives.json files only, for the
# same reason.
DERIVATIVES_ONLY = "--derivatives" in sys.argv[1:]

# `--contacts`: write the floating robots' *_contacts.json files only (same reason).
CONTACTS_ONLY = "--contacts" in sys.argv[1:]


def derivatives(model, data, label, q, v, a, tau):
    """The derivatives of the inverse dynamics at (q, v, a) (computeRNEADerivatives:
    dtau/dq, dtau/dv, dtau/da = M with the lower triangle filled) and of the forward
    dynamics at (q, v, tau) (computeABADerivatives: dqdd/dq, dqdd/dv, dqdd/dtau = M^-1),
    checked against each other: d(aba) = -M^-1 d(rnea) at qdd = aba(q, v, tau)."""
    def rnea_derivatives(acc):
        pin.computeRNEADerivatives(model, data, q, v, acc)
        M = np.triu(data.M) + np.triu(data.M, 1).T
        return data.dtau_dq.copy(), data.dtau_dv.copy(), M
    dtau_dq, dtau_dv, M = rnea_derivatives(a)
    pin.computeABADerivatives(model, data, q, v, tau)
    dqdd_dq, dqdd_dv = data.ddq_dq.copy(), data.ddq_dv.copy()
    Minv = np.triu(data.Minv) + np.triu(data.Minv, 1).T
    qdd = pin.aba(model, data, q, v, tau).copy()
    at_qdd_dq, at_qdd_dv, _ = rnea_derivatives(qdd)
    tol = 1e-8
    assert np.allclose(M @ dqdd_dq, -at_qdd_dq, atol=tol), "M dqdd/dq != -dtau/dq"
    assert np.allclose(M @ dqdd_dv, -at_qdd_dv, atol=tol), "M dqdd/dv != -dtau/dv"
    assert np.allclose(M @ Minv, np.eye(model.nv), atol=tol), "M Minv != I"
    return {
        "label": label,
        "q": vec(q),
        "v": vec(v),
        "a": vec(a),
        "tau": vec(tau),
        "aba": vec(qdd),
        "rnea_dq": mat(dtau_dq),
        "rnea_dv": mat(dtau_dv),
        "rnea_da": mat(M),
        "aba_dq": mat(dqdd_dq),
        "aba_dv": mat(dqdd_dv),
        "aba_dtau": mat(Minv),
    }


def centroidal_header(out):
    """The top level of a robot's `_centroidal.json`: the main file's, without its frame."""
    keep = ["robot", "urdf", "urdf_sha256", "pinocchio_version", "numpy_version",
            "python_version", "base", "seed", "nq", "nv", "joint_names"]
    return {**{k: out[k] for k in keep}, "states": []}


def centroidal(model, data, label, q, v, a):
    """The centre of mass, its Jacobian and the centroidal momentum matrix with their
    rates at a state (the keys of the module's docstring), checked against each other."""
    com = pin.centerOfMass(model, data, q, v, a).copy()
    vcom, acom = data.vcom[0].copy(), data.acom[0].copy()
    mass = float(data.mass[0])
    Jcom = pin.jacobianCenterOfMass(model, data, q).copy()
    Ag = pin.ccrba(model, data, q, v).copy()
    hg = pin.computeCentroidalMomentum(model, data, q, v)
    hg = np.concatenate([hg.linear, hg.angular])
    dAg = pin.dccrba(model, data, q, v).copy()
    assert np.allclose(data.Ag, Ag, atol=0)
    dhg = pin.computeCentroidalMomentumTimeVariation(model, data, q, v, a)
    dhg = np.concatenate([dhg.linear, dhg.angular])
    tol = 1e-9
    assert np.allclose(Jcom @ v, vcom, atol=tol), "J_com v != com velocity"
    assert np.allclose(mass * Jcom, Ag[:3], atol=tol), "m J_com != A_G's linear rows"
    assert np.allclose(Ag @ v, hg, atol=tol), "A_G v != h_G"
    assert np.allclose(Ag @ a + dAg @ v, dhg, atol=tol), "A_G a + dA_G v != dh_G"
    assert np.allclose(mass * acom, dhg[:3], atol=tol), "m com acceleration != dh_G linear"
    return {
        "label": label,
        "q": vec(q),
        "v": vec(v),
        "a": vec(a),
        "mass": mass,
        "com": vec(com),
        "com_velocity": vec(vcom),
        "com_acceleration": vec(acom),
        "com_jacobian": mat(Jcom),
        "centroidal_matrix": mat(Ag),
        "centroidal_momentum": vec(hg),
        "centroidal_drift": vec(dAg @ v),
        "centroidal_momentum_rate": vec(dhg),
    }


def load(fname, frame, *root_joint):
    """The URDF's sha256, Pinocchio's model (with `root_joint` if given) and data, and the
    frame's id, after checking the conventions the comparison assumes."""
    path = os.path.join(HERE, fname)
    with open(path, "rb") as f:
        sha = hashlib.sha256(f.read()).hexdigest()
    model = pin.buildModelFromUrdf(path, *root_joint)
    data = model.createData()
    assert np.allclose(model.gravity.linear, [0.0, 0.0, -9.81])
    assert not np.any(model.armature), "armature expected to be zero"
    fid = model.getFrameId(frame)
    assert fid < len(model.frames) and model.frames[fid].name == frame
    return sha, model, data, fid


def header(robot, fname, sha, seed, model, kinds, fid, base, extra):
    """The top level of a robot's JSON file, `extra` before the frame, no states yet."""
    return {
        "robot": robot,
        "urdf": fname,
        "urdf_sha256": sha,
        "pinocchio_version": pin.__version__,
        "numpy_version": np.__version__,
        "python_version": sys.version.split()[0],
        "base": base,
        "mimic": False,
        "gravity_vector": [0.0, 0.0, -9.81],
        "seed": seed,
        "nq": int(model.nq),
        "nv": int(model.nv),
        "joint_names": list(model.names[1:]),
        "joint_kinds": kinds,
        "joint_models": [model.joints[i].shortname() for i in range(1, model.njoints)],
        "joint_parents": [model.names[model.parents[i]] for i in range(1, model.njoints)],
        **extra,
        "frame": model.frames[fid].name,
        "frame_parent_joint": model.names[model.frames[fid].parentJoint],
        "states": [],
    }


def write(robot, out):
    """Writes `out` as `<robot>.json` next to this script; returns the path."""
    dst = os.path.join(HERE, robot + ".json")
    with open(dst, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    return dst


def main():
    if CONTACTS_ONLY:
        for robot, fname, contacts, kind, seed in CONTACTS:
            contacts_robot(robot, fname, contacts, kind, seed)
        return
    for robot, fname, frame, seed in ROBOTS:
        sha, model, data, fid = load(fname, frame)
        kinds = [joint_kind(model.joints[i]) for i in range(1, model.njoints)]
        rng = np.random.default_rng(seed)
        out = header(robot, fname, sha, seed, model, kinds, fid, "fixed", {})
        centroids = centroidal_header(out)
        derivs = centroidal_header(out)
        for label, q, v, a, tau in states(model, kinds, rng):
            rec = {"label": label, "q": vec(q), "v": vec(v), "a": vec(a), "tau": vec(tau)}
            rec.update(compute(model, data, fid, q, v, a, tau))
            out["states"].append(rec)
            centroids["states"].append(centroidal(model, data, label, q, v, a))
            derivs["states"].append(derivatives(model, data, label, q, v, a, tau))
        if not DERIVATIVES_ONLY:
            write(robot + "_centroidal", centroids)
        if not CENTROIDAL_ONLY:
            write(robot + "_derivatives", derivs)
        if CENTROIDAL_ONLY or DERIVATIVES_ONLY:
            continue
        dst = write(robot, out)
        print(f"wrote {dst}: nq={model.nq} joints={out['joint_names']} frame={frame}")

    for robot, fname, frame, seed, count in FLOATING_DERIVATIVES:
        floating_derivatives(robot, fname, frame, seed, count)
    if DERIVATIVES_ONLY:
        return
    for robot, fname, frame, seed in FLOATING:
        floating_robot(robot, fname, frame, seed)


# ---------------------------------------------------------------------------
# Floating base: Pinocchio's free flyer and lagrange's `urdf: "..." floating;`.
#
# lagrange's coordinates are (p, n, joints) with p the root link's origin in the
# world frame and n = (w, x, y, z) its unit quaternion, scalar first, R = R(n);
# its velocities are their time derivatives, 7 + nj of them, and the constraint
# base_unit is |n|^2 = 1.  Pinocchio's are q = (p, x, y, z, w, joints) and
# v = (Rᵀ ṗ, ω_b, q̇_joints), 6 + nj, with ω_b the base's angular velocity in its
# own frame.  With r = (x, y, z) and
#
#     G(n) = 2 [-r, w I - [r]×]          (3 x 4; ω_b = G ṅ, G n = 0, G Gᵀ = 4 |n|² I)
#     H(n) = Gᵀ / 4                      (4 x 3; ṅ = H ω_b = ½ n ⊗ (0, ω_b))
#
# the maps are, for unit n (J = ∂v/∂q̇, L = its right inverse, J L = I):
#
#     v   = J q̇,   J = blockdiag(Rᵀ, G, I)
#     q̇   = L v,   L = blockdiag(R,  H, I)
#     q̈   from Pinocchio's a = v̇:  p̈ = R (a_lin + ω_b × v_lin),
#                                  n̈ = H ω̇_b − ¼ |ω_b|² n,  joints unchanged.
# ---------------------------------------------------------------------------


def skew(r):
    return np.array([[0.0, -r[2], r[1]], [r[2], 0.0, -r[0]], [-r[1], r[0], 0.0]])


def quat_G(n):
    w, r = n[0], np.asarray(n[1:])
    return 2.0 * np.column_stack([-r, w * np.eye(3) - skew(r)])


def quat_R(n):
    """lagrange's quat(w, x, y, z): the homogeneous form, a rotation for |n| = 1."""
    w, x, y, z = n
    return np.array([
        [w * w + x * x - y * y - z * z, 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), w * w - x * x + y * y - z * z, 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), w * w - x * x - y * y + z * z],
    ])


def lagrange_q(q):
    """Pinocchio's (p, x, y, z, w, joints) as lagrange's (p, w, x, y, z, joints)."""
    return np.concatenate([q[:3], [q[6]], q[3:6], q[7:]])


def floating_map(q, v, a):
    """lagrange's q, q̇ and q̈ for Pinocchio's q, v and a = v̇; and J, L."""
    ql = lagrange_q(q)
    n = ql[3:7]
    R, G = quat_R(n), quat_G(n)
    H = G.T / 4.0
    nj = len(v) - 6
    J = np.zeros((6 + nj, 7 + nj))
    L = np.zeros((7 + nj, 6 + nj))
    J[:3, :3], J[3:6, 3:7], J[6:, 7:] = R.T, G, np.eye(nj)
    L[:3, :3], L[3:7, 3:6], L[7:, 6:] = R, H, np.eye(nj)
    vlin, w = v[:3], v[3:6]
    qd = L @ v
    qdd = np.concatenate([
        R @ (a[:3] + np.cross(w, vlin)),
        H @ a[3:6] - 0.25 * (w @ w) * n,
        a[6:],
    ])
    return ql, qd, qdd, J, L


def random_floating_q(model, rng, flipped=False):
    """Base position in [-1, 1]³, a uniform random unit quaternion (or the half
    turn about x, w = 0, with `flipped`), joints in [-1.5, 1.5]."""
    q = pin.neutral(model)
    q[:3] = rng.uniform(-1.0, 1.0, 3)
    if flipped:
        q[3:7] = [1.0, 0.0, 0.0, 0.0]  # x y z w
    else:
        n = rng.normal(size=4)
        q[3:7] = n / np.linalg.norm(n)
    q[7:] = rng.uniform(-1.5, 1.5, model.nq - 7)
    return q


def floating_states(model, rng):
    """(label, q, v, a, tau); a and tau random in every state. q0 is
    pin.neutral (base at the origin, identity quaternion, joints zero)."""
    nv = model.nv
    out = []
    for label in ["q0_v0", "q0_vrand", "qrand_v0", "flipped_vrand", "rand1", "rand2", "rand3"]:
        if label.startswith("q0"):
            q = pin.neutral(model)
        else:
            q = random_floating_q(model, rng, flipped=label.startswith("flipped"))
        v = np.zeros(nv) if label.endswith("v0") else rng.uniform(-1.0, 1.0, nv)
        a = rng.uniform(-1.0, 1.0, nv)
        tau = rng.uniform(-5.0, 5.0, nv)
        out.append((label, q, v, a, tau))
    return out


def check_floating_map(model, q, v, a, fid):
    """The maps of `floating_map` against central differences along Pinocchio's
    own motion q(t) = integrate(q, v t + ½ a t²) (whose v̇ at t = 0 is a), and
    R(n) against Pinocchio's base rotation."""
    ql, qd, qdd, J, L = floating_map(q, v, a)
    data = model.createData()
    pin.forwardKinematics(model, data, q)
    assert np.allclose(data.oMi[1].rotation, quat_R(ql[3:7]), atol=1e-14)
    assert np.allclose(data.oMi[1].translation, ql[:3], atol=0)
    assert np.allclose(J @ L, np.eye(model.nv), atol=1e-14)
    h = 1e-4
    at = [lagrange_q(pin.integrate(model, q, v * t + 0.5 * a * t * t)) for t in (-h, 0.0, h)]
    assert np.allclose((at[2] - at[0]) / (2 * h), qd, atol=1e-7), "q̇ = L v"
    assert np.allclose((at[2] - 2 * at[1] + at[0]) / (h * h), qdd, atol=1e-5), "q̈ from a"


def floating_robot(robot, fname, frame, seed):
    sha, model, data, fid = load(fname, frame, pin.JointModelFreeFlyer())
    assert model.joints[1].shortname() == "JointModelFreeFlyer"
    kinds = ["free_flyer"] + [joint_kind(model.joints[i]) for i in range(2, model.njoints)]
    rng = np.random.default_rng(seed)
    joints = list(model.names[2:])
    base = ["base_x", "base_y", "base_z", "base_qw", "base_qx", "base_qy", "base_qz"]
    out = header(robot, fname, sha, seed, model, kinds, fid, "free_flyer",
                 {"lagrange_coordinates": base + joints})
    centroids = centroidal_header(out)
    for label, q, v, a, tau in floating_states(model, rng):
        rec = {"label": label, "q": vec(q), "v": vec(v), "a": vec(a), "tau": vec(tau)}
        rec.update(compute(model, data, fid, q, v, a, tau))
        check_floating_map(model, q, v, a, fid)
        ql, qd, qdd, _, _ = floating_map(q, v, a)
        _, _, qdd_aba, _, _ = floating_map(q, v, np.asarray(rec["aba"]))
        rec["lagrange"] = {
            "q": vec(ql),
            "qd": vec(qd),
            "qdd": vec(qdd),
            "qdd_aba": vec(qdd_aba),
        }
        out["states"].append(rec)
        centroids["states"].append(centroidal(model, data, label, q, v, a))
    write(robot + "_centroidal", centroids)
    if CENTROIDAL_ONLY:
        return
    dst = write(robot, out)
    print(f"wrote {dst}: nq={model.nq} nv={model.nv} joints={out['joint_names']} frame={frame}")


# (robot, urdf, frame, seed, number of states): the floating robots' derivatives, in
# <robot>_derivatives.json, at the first `count` of `floating_states` (the G1's matrices
# are 35 x 35: three states keep its file small).
FLOATING_DERIVATIVES = [
    ("solo12", "solo12.urdf", "FL_FOOT", 47, 7),
    ("g1", "g1.urdf", "left_ankle_roll_link", 46, 3),
]


def floating_derivatives(robot, fname, frame, seed, count):
    """computeRNEADerivatives and computeABADerivatives of a free-flyer robot at
    (q, v, a, tau), in Pinocchio's tangent (q + δ = integrate(q, δ), v and a held),
    with rnea(q, v, a) and lagrange's state; `tests/urdf_robots.rs` maps them."""
    sha, model, data, fid = load(fname, frame, pin.JointModelFreeFlyer())
    kinds = ["free_flyer"] + [joint_kind(model.joints[i]) for i in range(2, model.njoints)]
    rng = np.random.default_rng(seed)
    out = centroidal_header(header(robot, fname, sha, seed, model, kinds, fid, "free_flyer", {}))
    for label, q, v, a, tau in floating_states(model, rng)[:count]:
        rec = derivatives(model, data, label, q, v, a, tau)
        rec["rnea"] = vec(pin.rnea(model, data, q, v, a))
        ql, qd, qdd, _, _ = floating_map(q, v, a)
        rec["lagrange"] = {"q": vec(ql), "qd": vec(qd), "qdd": vec(qdd)}
        out["states"].append(rec)
    dst = write(robot + "_derivatives", out)
    print(f"wrote {dst}: {len(out['states'])} states")


# ---------------------------------------------------------------------------
# Contacts: constraintDynamics and impulseDynamics, in <robot>_contacts.json.
#
# Each contact is a RigidConstraintModel on a frame (its placement on its parent joint) in
# LOCAL_WORLD_ALIGNED, CONTACT_3D for a point (the Solo-12's feet) or CONTACT_6D for a flat
# sole (the G1's ankle roll links), solved exactly (ProximalSettings with mu = 0). Pinocchio's
# convention, checked below: M a + nle = tau + Jᵀ λ, so λ is the force on the robot, in world
# axes at the frame's origin; for 6D, linear first. lagrange's is the same force, a frame
# contact's moment first: "forces" here are lagrange's order. A 6D contact holds the spatial
# acceleration of the frame, which differs from the point's p̈ by ω × ṗ: the G1's states have
# both soles at rest (v projected onto the null space of their Jacobians), where the two
# agree. impulseDynamics: M (v⁺ − v) = Jᵀ Λ, J v⁺ = −e J v; "qd_after" is lagrange's q̇⁺.
# ---------------------------------------------------------------------------

# (robot, urdf, {contact name in the test model: frame}, kind, seed)
CONTACTS = [
    ("solo12", "solo12.urdf",
     {"fl": "FL_FOOT", "fr": "FR_FOOT", "hl": "HL_FOOT", "hr": "HR_FOOT"}, "3d", 48),
    ("g1", "g1.urdf",
     {"left_sole": "left_ankle_roll_link", "right_sole": "right_ankle_roll_link"}, "6d", 49),
]

CONTACT_SETS = {
    "solo12": [["fl"], ["fl", "fr"], ["fr", "hl"], ["fl", "fr", "hl"], ["fl", "fr", "hl", "hr"]],
    "g1": [["left_sole"], ["left_sole", "right_sole"]],
}


def contact_models(model, frames, kind):
    ctype = pin.ContactType.CONTACT_3D if kind == "3d" else pin.ContactType.CONTACT_6D
    cms = pin.StdVec_RigidConstraintModel()
    for frame in frames:
        fr = model.frames[model.getFrameId(frame)]
        cms.append(pin.RigidConstraintModel(ctype, model, fr.parentJoint, fr.placement,
                                            pin.ReferenceFrame.LOCAL_WORLD_ALIGNED))
    cds = pin.StdVec_RigidConstraintData()
    for cm in cms:
        cds.append(cm.createData())
    return cms, cds


def stacked_jacobian(model, data, q, frames, rows):
    pin.computeJointJacobians(model, data, q)
    pin.framesForwardKinematics(model, data, q)
    return np.vstack([pin.getFrameJacobian(model, data, model.getFrameId(f),
                                           pin.LOCAL_WORLD_ALIGNED)[:rows] for f in frames])


def lagrange_forces(lam, names, kind):
    """λ by contact, in lagrange's order (a 6D contact's moment first)."""
    size = 3 if kind == "3d" else 6
    out = {}
    for k, name in enumerate(names):
        f = np.asarray(lam[size * k:size * (k + 1)])
        out[name] = vec(f if kind == "3d" else np.concatenate([f[3:], f[:3]]))
    return out


def contacts_robot(robot, fname, contacts, kind, seed):
    sha, model, data, _ = load(fname, next(iter(contacts.values())), pin.JointModelFreeFlyer())
    rng = np.random.default_rng(seed)
    rows = 3 if kind == "3d" else 6
    out = {
        "robot": robot, "urdf": fname, "urdf_sha256": sha,
        "pinocchio_version": pin.__version__, "numpy_version": np.__version__,
        "python_version": sys.version.split()[0], "base": "free_flyer", "seed": seed,
        "nq": int(model.nq), "nv": int(model.nv), "contact_kind": kind,
        "contact_frames": contacts, "states": [],
    }
    every = list(contacts.values())
    for label, q, v, _, tau in floating_states(model, rng):
        if kind == "6d":
            J = stacked_jacobian(model, data, q, every, rows)
            null = np.eye(model.nv) - np.linalg.pinv(J) @ J
            v = null @ v
        ql, qd, _, _, L = floating_map(q, v, np.zeros(model.nv))
        rec = {"label": label, "q": vec(q), "v": vec(v), "tau": vec(tau),
               "lagrange": {"q": vec(ql), "qd": vec(qd)}, "sets": []}
        for names in CONTACT_SETS[robot]:
            frames = [contacts[n] for n in names]
            cms, cds = contact_models(model, frames, kind)
            pin.initConstraintDynamics(model, data, cms, cds)
            prox = pin.ProximalSettings(1e-14, 0.0, 1)
            a = pin.constraintDynamics(model, data, q, v, tau, cms, cds, prox).copy()
            lam = data.lambda_c.copy()
            M = pin.crba(model, data, q)
            M = np.triu(M) + np.triu(M, 1).T
            nle = pin.nonLinearEffects(model, data, q, v)
            J = stacked_jacobian(model, data, q, frames, rows)
            assert np.allclose(M @ a + nle, tau + J.T @ lam, rtol=0, atol=1e-9), "sign of λ"
            _, _, qdd, _, _ = floating_map(q, v, a)
            entry = {"active": names, "a": vec(a), "qdd": vec(qdd),
                     "forces": lagrange_forces(lam, names, kind), "impacts": []}
            for e in [0.0, 0.5]:
                cms, cds = contact_models(model, frames, kind)
                pin.initConstraintDynamics(model, data, cms, cds)
                v_after = pin.impulseDynamics(model, data, q, v, cms, cds, e, prox).copy()
                impulse = data.impulse_c.copy()
                assert np.allclose(M @ (v_after - v), J.T @ impulse, rtol=0, atol=1e-9)
                assert np.allclose(J @ v_after, -e * (J @ v), rtol=0, atol=1e-9)
                entry["impacts"].append({"restitution": e, "v_after": vec(v_after),
                                         "qd_after": vec(L @ v_after),
                                         "impulses": lagrange_forces(impulse, names, kind)})
            rec["sets"].append(entry)
        out["states"].append(rec)
    dst = write(robot + "_contacts", out)
    print(f"wrote {dst}")


if __name__ == "__main__":
    main()
