#!/usr/bin/env bash
# The build cost of a large model (issue 27): generates a model of LETS scalar `let`s of
# TERMS terms each (c · sin(x_a) · x_b or with cos, over COORDINATES coordinates, a seeded
# random choice), kinetic = Σ ½ dot(e_i)² + Σ dot(x_i)², potential = Σ e_i, in a crate of
# its own that depends on lagrange-runtime, and prints the wall time and the largest
# resident memory of building it in the dev profile (what a user's `cargo build` does),
# without incremental compilation. Run by hand, not in CI:
#
#   benches/compile_cost.sh                    # LETS=60 TERMS=120 COORDINATES=6
#   LETS=20 benches/compile_cost.sh
#   LETS=20 MODE=check benches/compile_cost.sh # `cargo check`: the front end alone
#   LETS=20 PASSES=1 benches/compile_cost.sh   # and rustc's time per pass (-Z time-passes)
#   LETS=20 CALL=1 benches/compile_cost.sh     # with a function that calls `accelerations`
#   LETS=45 CHAIN=1 benches/compile_cost.sh    # each let adds the one before (issue 45)
#
# With CHAIN=1, `let e{i}` starts with `e{i-1} +`: the model's graph is a chain as deep as
# the model is long, which overflowed rustc's stack (45 lets) while the macro recursed
# through it. The macro is built as a user's `cargo build` builds it, at opt-level 0.
#
# Without CALL the crate calls nothing, so that no generic code of the model is
# instantiated: it measures the front end and the macro. With it, the code generation of the
# sweep in `f64` too, as in a program that simulates the model.
#
# The crate and its target directory live in a temporary directory (or $COMPILE_COST_DIR,
# kept between runs so that the dependencies are built once).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
LETS=${LETS:-60}
TERMS=${TERMS:-120}
COORDINATES=${COORDINATES:-6}
MODE=${MODE:-build}
dir=${COMPILE_COST_DIR:-$(mktemp -d)}
source "$repo/benches/scratch_crate.sh"
scratch_crate compile_cost "$dir" "$repo/lagrange-runtime" lib
python3 - "$LETS" "$TERMS" "$COORDINATES" "${CHAIN:-0}" >src/lib.rs <<'EOF'
import random
import sys

lets, terms, n, chain = (int(a) for a in sys.argv[1:])
random.seed(1)
print("use lagrange_runtime::prelude::*;\n\nlagrangian! {\n    pub struct Big {")
print("        coordinates: " + ", ".join(f"x{i}" for i in range(n)) + ";")
for i in range(lets):
    sum_ = " + ".join(
        f"{random.uniform(0.1, 1.0):.3f} * {random.choice(['sin', 'cos'])}"
        f"(x{random.randrange(n)}) * x{random.randrange(n)}"
        for _ in range(terms)
    )
    before = f"e{i - 1} + " if chain and i > 0 else ""
    print(f"        let e{i} = {before}{sum_};")
kinetic = [f"dot(e{i})^2 / 2" for i in range(lets)] + [f"dot(x{i})^2" for i in range(n)]
print("        kinetic = " + " + ".join(kinetic) + ";")
print("        potential = " + " + ".join(f"e{i}" for i in range(lets)) + ";")
print("    }\n}")
EOF
if [ "${CALL:-0}" = 1 ]; then
    cat >>src/lib.rs <<EOF

pub fn accelerations(s: &State<$COORDINATES>) -> SVector<f64, $COORDINATES> {
    Big::default().accelerations(s, &SVector::zeros()).expect("regular")
}
EOF
fi
echo "model: $LETS lets of $TERMS terms over $COORDINATES coordinates ($(wc -c <src/lib.rs) bytes)"
echo "rustc: $(rustc --version); $(nproc) cores, $(free -g | awk '/Mem:/ { print $2 }') GB"
if [ "${PASSES:-0}" = 1 ]; then
    RUSTC_BOOTSTRAP=1 cargo rustc --quiet -- -Z time-passes 2>&1 |
        awk '/time:/ { if ($2 + 0 >= 0.5) print }'
else
    /usr/bin/time -f "cargo $MODE (dev): %e s wall, %M KB largest resident memory" \
        cargo "$MODE" --quiet
fi
