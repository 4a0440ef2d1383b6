#!/usr/bin/env bash
# lagrange against Pinocchio's C++ on this machine: `accelerations` / `aba`,
# `inverse_dynamics` / `rnea`, `mass_matrix` / `crba`, `jacobians` / a frame Jacobian and
# / `computeJointJacobiansTimeVariation` (every joint's Jacobian and its time variation),
# `linearize` / `computeABADerivatives`, `inverse_dynamics_derivatives` /
# `computeRNEADerivatives` and, for the robots with contacts, `contact_dynamics` /
# `constraintDynamics`, `impulse_dynamics` / `impulseDynamics` and `linearize_contacts` /
# `computeConstraintDynamicsDerivatives`, for every robot of benches/robots.rs, at that bench's states. See README.md beside this
# file. Run by hand from anywhere in the repository (not in CI):
#
#     benches/pinocchio/compare.sh            # ROUNDS=3 by default
#     ROUNDS=5 benches/pinocchio/compare.sh
#
# Settings (environment): ROUNDS, PIN_VERSION (4.1.0, as tests/robots/reference.py),
# PYTHON (python3, for the venv), CXX (g++), PINOCCHIO_CXXFLAGS ("-O3 -DNDEBUG"),
# CPP_MS (time per call and round on the C++ side, 1000 ms), CARGO_TARGET_DIR (the venv,
# the binary and the rounds go to <target>/pinocchio), PINOCCHIO_VENV (a venv that already
# holds pin and cmeel-urdfdom-headers at these versions, used instead of <target>/pinocchio/venv
# and never installed into). About 5 minutes the first time (install and compile),
# 2 minutes after that.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
here=$root/benches/pinocchio
rounds=${ROUNDS:-3}
pin_version=${PIN_VERSION:-4.1.0}
# pin's wheels ship urdfdom's libraries but not the headers of urdfdom_headers, which
# pinocchio/parsers/urdf.hpp includes; pin 4.1.0 was built against 3.0.0 (the
# PINOCCHIO_URDFDOM_HEADERS_*_VERSION definitions below).
urdfdom_headers_version=3.0.0
python=${PYTHON:-python3}
cxx=${CXX:-g++}
cxxflags=${PINOCCHIO_CXXFLAGS:--O3 -DNDEBUG}
cpp_ms=${CPP_MS:-1000}
target=${CARGO_TARGET_DIR:-$root/target}
work=$target/pinocchio
venv=${PINOCCHIO_VENV:-$work/venv}
mkdir -p "$work"
cd "$root"

say() { printf '%s\n' "$*" >&2; }

# 1. Pinocchio from the Python package registry, in a venv of its own.
installed=$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("pin"), m.version("cmeel-urdfdom-headers"))' 2>/dev/null || true)
if [[ $installed != "$pin_version $urdfdom_headers_version" ]]; then
    if [[ -n ${PINOCCHIO_VENV:-} ]]; then
        say "compare.sh: PINOCCHIO_VENV=$venv has not pin==$pin_version and cmeel-urdfdom-headers==$urdfdom_headers_version (it has: ${installed:-neither}); not installing into it"
        exit 1
    fi
    say "== installing pin==$pin_version into $venv"
    "$python" -m venv "$venv"
    "$venv/bin/pip" install --quiet "pin==$pin_version" "cmeel-urdfdom-headers==$urdfdom_headers_version"
fi
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
prefix=$site/cmeel.prefix
for f in include/pinocchio/algorithm/aba.hpp include/urdfdom_headers/urdf_model/model.h lib/libpinocchio_parsers.so; do
    [[ -e $prefix/$f ]] || { say "compare.sh: no $f under $prefix (the wheel's cmeel layout changed?)"; exit 1; }
done

# 2. Eigen: the wheel's if it ships one, else the system's.
eigen=""
for d in "$prefix/include/eigen3" /usr/include/eigen3; do
    if [[ -e $d/Eigen/Core ]]; then eigen=$d; break; fi
done
if [[ -z $eigen ]]; then
    say "compare.sh: Eigen's headers are missing: apt-get install libeigen3-dev"
    exit 1
fi

# 3. The C++ benchmark, header-only for the algorithms: no
# PINOCCHIO_ENABLE_TEMPLATE_INSTANTIATION, so aba/rnea/crba are compiled here with these
# flags rather than taken from libpinocchio_default.so. Only the URDF parser comes from the
# wheel's libraries. The definitions are those of the targets pinocchio_headers and
# pinocchio_parsers in lib/cmake/pinocchio/pinocchioTargets.cmake.
#
# No -march=native by default: the wheel's libraries are built for plain x86-64, and the
# Model the parser fills is laid out by this program; with -march=native (AVX-512 here)
# the program crashed inside the parser, even with EIGEN_MAX_ALIGN_BYTES=16. Plain x86-64
# is also what `cargo bench` compiles lagrange for, so both sides use the same instructions.
defines=(
    -DBOOST_MPL_LIMIT_LIST_SIZE=30 -DBOOST_MPL_LIMIT_VECTOR_SIZE=30
    -DBOOST_MPL_CFG_NO_PREPROCESSED_HEADERS -DBOOST_FUSION_INVOKE_MAX_ARITY=12
    -DPINOCCHIO_WITH_URDFDOM -DPINOCCHIO_URDFDOM_HEADERS_MAJOR_VERSION=3
    -DPINOCCHIO_URDFDOM_HEADERS_MINOR_VERSION=0 -DPINOCCHIO_URDFDOM_HEADERS_PATCH_VERSION=0
)
# shellcheck disable=SC2206 # the flags are words
flags=(-std=c++17 $cxxflags "${defines[@]}" -Wno-stringop-overread)
key=$( { cat "$here/bench.cpp"; echo "$cxx ${flags[*]} $pin_version $eigen"; } | sha256sum | cut -c1-16)
bench=$work/bench-$key
if [[ ! -x $bench ]]; then
    say "== compiling benches/pinocchio/bench.cpp ($cxx ${flags[*]}; a few minutes)"
    "$cxx" "${flags[@]}" -isystem "$prefix/include" -isystem "$prefix/include/urdfdom_headers" \
        -isystem "$eigen" "$here/bench.cpp" -o "$bench.tmp" \
        -L"$prefix/lib" -Wl,-rpath,"$prefix/lib" -lpinocchio_parsers -lpinocchio_default -lurdfdom_model
    mv "$bench.tmp" "$bench"
fi

# 4. The Rust bench, built before any timing; then the robots and their states from it.
say "== building the Rust bench (cargo bench --bench robots --no-run)"
cargo bench --bench robots --no-run --quiet >&2
states=$work/states.txt
LAGRANGE_PINOCCHIO_STATES=$states cargo bench --quiet --bench robots -- --exact no-such-benchmark >/dev/null
say "== checking the values against lagrange's"
"$bench" "$states" "$root" 0 | tee "$work/check.txt" | grep -E '^(joints|value|check)' >&2

# 5. Alternating rounds.
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
rm -rf "$work/rounds"
mkdir -p "$work/rounds"
for ((r = 1; r <= rounds; r++)); do
    say "== round $r/$rounds: lagrange (Criterion)"
    CRITERION_HOME=$work/rounds/criterion-$r cargo bench --quiet --bench robots -- --noplot \
        >"$work/rounds/criterion-$r.log" 2>&1
    say "== round $r/$rounds: Pinocchio"
    "$bench" "$states" "$root" "$cpp_ms" >"$work/rounds/pinocchio-$r.txt"
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# 6. The table: medians over the rounds of Criterion's median and of the C++ median.
"$venv/bin/python" - "$work/rounds" "$rounds" "$pin_version" "$load_before" "$load_after" \
    "$cxx ${flags[*]}" "$(rustc --version)" "$("$cxx" --version | head -n1)" "$states" <<'EOF'
import json, os, platform, statistics, sys

rounds_dir, rounds, pin, load0, load1, cxxflags, rustc, cxx, states = sys.argv[1:]
rounds = int(rounds)
robots = []
for line in open(states):
    w = line.split()
    if w and w[0] == "robot" and w[1] not in robots:
        robots.append(w[1])
pairs = [("accelerations", "aba"), ("inverse_dynamics", "rnea"),
         ("mass_matrix", "crba"), ("jacobians", "jacobian"),
         ("jacobians", "computeJointJacobiansTimeVariation"),
         ("linearize", "computeABADerivatives"),
         ("inverse_dynamics_derivatives", "computeRNEADerivatives"),
         ("contact_dynamics", "constraintDynamics"),
         ("impulse_dynamics", "impulseDynamics"),
         ("linearize_contacts", "computeConstraintDynamicsDerivatives")]

pin_t = {}
for r in range(1, rounds + 1):
    for line in open(os.path.join(rounds_dir, f"pinocchio-{r}.txt")):
        w = line.split()
        if w and w[0] == "time":
            pin_t.setdefault((w[1], w[2]), []).append(float(w[3]))

def lagrange_times(robot, fn):
    out = []
    for r in range(1, rounds + 1):
        p = os.path.join(rounds_dir, f"criterion-{r}", robot, fn, "new", "estimates.json")
        if os.path.exists(p):
            out.append(json.load(open(p))["median"]["point_estimate"])
    return out

def fmt(ns):
    return f"{ns:.0f} ns" if ns < 1000 else f"{ns / 1000:.2f} µs"

cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.machine())
print()
print(f"lagrange / Pinocchio {pin}, median over {rounds} alternating rounds "
      f"(each: Criterion's median for lagrange, the median of ~1 ms batches for Pinocchio)")
print(f"machine: {cpu}, {os.cpu_count()} CPUs; load average {load0} before, {load1} after "
      f"(other work on the machine inflates both sides, not necessarily equally)")
print(f"C++: {cxx}: {cxxflags}")
print(f"Rust: {rustc}, `cargo bench` profile, default target CPU unless RUSTFLAGS says otherwise "
      f"(RUSTFLAGS={os.environ.get('RUSTFLAGS', '')!r})")
print()
print("| robot | call pair | lagrange | Pinocchio | ratio | spread over rounds (lagrange; Pinocchio) |")
print("|---|---|---|---|---|---|")
for robot in robots:
    for fn, call in pairs:
        lt, pt = lagrange_times(robot, fn), pin_t.get((robot, call), [])
        if not lt and not pt:
            continue  # a pair the robot has no part in (contacts of an arm)
        if not lt or not pt:
            print(f"| {robot} | `{fn}` / `{call}` | {'missing' if not lt else fmt(statistics.median(lt))} "
                  f"| {'missing' if not pt else fmt(statistics.median(pt))} | | |")
            continue
        l, p = statistics.median(lt), statistics.median(pt)
        spread = f"{fmt(min(lt))}–{fmt(max(lt))}; {fmt(min(pt))}–{fmt(max(pt))}"
        print(f"| {robot} | `{fn}` / `{call}` | {fmt(l)} | {fmt(p)} | {l / p:.2f}× | {spread} |")
EOF
