#!/usr/bin/env bash
# The build cost of a URDF robot as its number of links grows (issue 45, item 9): generates
# a serial chain of LINKS links on revolute joints (axes turning through z, y, x; each
# joint's origin offset and turned; every link with a full, non-diagonal inertia about an
# offset centre of mass), a crate of its own that depends on lagrange-runtime and whose
# `main` calls `accelerations` of the model
#
#   urdf: "chain.urdf"; kinetic = urdf_kinetic; potential = urdf_potential;
#
# and prints the wall time and the largest resident memory of building it in the dev
# profile (what a user's `cargo build` does: Cargo's default profiles, no incremental
# compilation; the CPU time beside the wall time, which builds sharing the machine stretch).
# Run by hand, not in CI:
#
#   benches/urdf_chain_cost.sh                   # LINKS=50
#   LINKS=200 benches/urdf_chain_cost.sh
#   LINKS=100 MODE=check benches/urdf_chain_cost.sh  # `cargo check`: the front end alone
#   LINKS=100 RUNTIME=/path/to/lagrange-runtime benches/urdf_chain_cost.sh  # another tree
#
# The crate and its target directory live in a temporary directory (or $URDF_CHAIN_DIR,
# kept between runs so that the dependencies are built once).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
LINKS=${LINKS:-50}
MODE=${MODE:-build}
RUNTIME=${RUNTIME:-$repo/lagrange-runtime}
dir=${URDF_CHAIN_DIR:-$(mktemp -d)}
source "$repo/benches/scratch_crate.sh"
scratch_crate urdf_chain_cost "$dir" "$RUNTIME" bin
python3 - "$LINKS" >chain.urdf <<'EOF'
import random
import sys

links = int(sys.argv[1])
random.seed(1)
u = random.uniform
print('<?xml version="1.0"?>')
print(f'<robot name="chain{links}">')
print('  <link name="base"/>')
for k in range(links):
    ixx, iyy, izz = u(0.05, 0.1), u(0.05, 0.1), u(0.05, 0.1)
    # Off-diagonal entries well inside the diagonal's: positive definite.
    ixy, ixz, iyz = u(-0.01, 0.01), u(-0.01, 0.01), u(-0.01, 0.01)
    print(f'''  <link name="l{k}">
    <inertial>
      <origin xyz="{u(-0.05, 0.05):.4f} {u(-0.05, 0.05):.4f} {u(0.1, 0.2):.4f}" rpy="0 0 0"/>
      <mass value="{u(0.5, 2.0):.4f}"/>
      <inertia ixx="{ixx:.5f}" ixy="{ixy:.5f}" ixz="{ixz:.5f}" iyy="{iyy:.5f}" iyz="{iyz:.5f}" izz="{izz:.5f}"/>
    </inertial>
  </link>''')
    parent = "base" if k == 0 else f"l{k - 1}"
    axis = ["0 0 1", "0 1 0", "1 0 0"][k % 3]
    print(f'''  <joint name="j{k}" type="revolute">
    <parent link="{parent}"/>
    <child link="l{k}"/>
    <origin xyz="{u(-0.02, 0.02):.4f} {u(-0.02, 0.02):.4f} 0.3000" rpy="{u(-0.3, 0.3):.4f} {u(-0.3, 0.3):.4f} {u(-0.3, 0.3):.4f}"/>
    <axis xyz="{axis}"/>
    <limit lower="-3" upper="3" effort="100" velocity="10"/>
  </joint>''')
print('</robot>')
EOF
cat >src/main.rs <<EOF
use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Chain {
        urdf: "chain.urdf";
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}

fn main() {
    let s = State::new(0.0, SVector::<f64, $LINKS>::from_fn(|i, _| 0.1 * i as f64), SVector::zeros());
    let a = Chain::default().accelerations(&s, &SVector::zeros()).expect("regular");
    println!("{}", a.norm());
}
EOF
echo "model: a URDF chain of $LINKS links ($(wc -c <chain.urdf) bytes)"
echo "rustc: $(rustc --version); $(nproc) cores, $(free -g | awk '/Mem:/ { print $2 }') GB"
/usr/bin/time -f "cargo $MODE (dev): %e s wall (%U s user, %S s system), %M KB largest resident memory" \
    cargo "$MODE" --quiet
if [ "$MODE" = build ]; then
    echo "‖accelerations‖ at q_i = 0.1 i, at rest: $("$dir/target/debug/urdf_chain_cost")"
fi
