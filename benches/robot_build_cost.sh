#!/usr/bin/env bash
# The build cost of one robot (issue 50, item 2): a crate of its own holding
#
#   lagrangian! { pub struct Robot { urdf: "FILE" [floating] actuated;
#                 kinetic = urdf_kinetic; potential = urdf_potential; } }
#
# that depends on lagrange-runtime, built in release (PROFILE=dev: Cargo's default dev
# profile, what a user's `cargo build` does), without incremental compilation; prints the
# wall time, the CPU time and the largest resident memory of building that crate alone
# (its dependencies are built first). Run by hand, not in CI:
#
#   benches/robot_build_cost.sh tests/robots/g1.urdf floating
#   PROFILE=dev benches/robot_build_cost.sh tests/robots/ur5.urdf
#   benches/robot_build_cost.sh $ROBOTS/talos_data/robots/talos_full_v2.urdf floating
#
# with ROBOTS the `robots` folder of example-robot-data 6.0.0 (pip's `example-robot-data`
# installs it under site-packages/cmeel.prefix/share/example-robot-data/robots). Its
# tiago_dual.urdf is refused as it is: the antennas' inertias are indefinite (principal
# moments -3.5e-8, 3.5e-8, 9.1e-8); measured with those two made diagonal (their ixx, iyy,
# izz kept, the products zero).
#
# The crate and its target directory live in a temporary directory (or $ROBOT_COST_DIR,
# kept between runs so that the dependencies are built once).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
file=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
floating=${2:-}
PROFILE=${PROFILE:-release}
dir=${ROBOT_COST_DIR:-$(mktemp -d)}
flag=--release
[[ $PROFILE == dev ]] && flag=
source "$repo/benches/scratch_crate.sh"
scratch_crate robot_build_cost "$dir" "$repo/lagrange-runtime" lib $flag
cat >src/lib.rs <<EOT
use lagrange_runtime::prelude::*;

lagrangian! {
    pub struct Robot {
        urdf: "$file" $floating actuated;
        kinetic = urdf_kinetic;
        potential = urdf_potential;
    }
}
EOT
/usr/bin/time -f "$(basename "$file") $PROFILE: %e s wall, %U s CPU, %M KB max resident" \
    cargo build --quiet $flag
