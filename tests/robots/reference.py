#!/usr/bin/env python3
"""Generate Pinocchio reference values for the URDF robots in this directory.

Run from the repository root:

    /tmp/pinvenv/bin/python tests/robots/reference.py

(/tmp/pinvenv is a virtualenv with `pip install pin example-robot-data`;
see README.md.)  Writes tests/robots/<robot>.json next to this script.

Conventions (all Pinocchio's):
  * fixed base: buildModelFromUrdf(path) with no root joint; <mimic> tags are
    ignored (mimic=False, the default), so every non-fixed joint is a DOF;
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


def main():
    for robot, fname, frame, seed in ROBOTS:
        path = os.path.join(HERE, fname)
        with open(path, "rb") as f:
            sha = hashlib.sha256(f.read()).hexdigest()
        model = pin.buildModelFromUrdf(path)
        data = model.createData()
        assert np.allclose(model.gravity.linear, [0.0, 0.0, -9.81])
        assert not np.any(model.armature), "armature expected to be zero"
        kinds = [joint_kind(model.joints[i]) for i in range(1, model.njoints)]
        fid = model.getFrameId(frame)
        assert fid < len(model.frames) and model.frames[fid].name == frame
        rng = np.random.default_rng(seed)
        out = {
            "robot": robot,
            "urdf": fname,
            "urdf_sha256": sha,
            "pinocchio_version": pin.__version__,
            "numpy_version": np.__version__,
            "python_version": sys.version.split()[0],
            "base": "fixed",
            "mimic": False,
            "gravity_vector": [0.0, 0.0, -9.81],
            "seed": seed,
            "nq": int(model.nq),
            "nv": int(model.nv),
            "joint_names": list(model.names[1:]),
            "joint_kinds": kinds,
            "joint_models": [model.joints[i].shortname() for i in range(1, model.njoints)],
            "joint_parents": [model.names[model.parents[i]] for i in range(1, model.njoints)],
            "frame": frame,
            "frame_parent_joint": model.names[model.frames[fid].parentJoint],
            "states": [],
        }
        for label, q, v, a, tau in states(model, kinds, rng):
            rec = {"label": label, "q": vec(q), "v": vec(v), "a": vec(a), "tau": vec(tau)}
            rec.update(compute(model, data, fid, q, v, a, tau))
            out["states"].append(rec)
        dst = os.path.join(HERE, robot + ".json")
        with open(dst, "w") as f:
            json.dump(out, f, indent=1)
            f.write("\n")
        print(f"wrote {dst}: nq={model.nq} joints={out['joint_names']} frame={frame}")


if __name__ == "__main__":
    main()
