#!/usr/bin/env bash
# Edit-to-run time of a user's crate (issue 30), five models with a binary each: for each
# profile, a cold build of the crate, then ROUNDS times: edit the Furuta model (a
# parameter's default toggles in src/furuta.rs), rebuild its binary (what `cargo run`
# builds), run it to the PNG and GIF, and rebuild the crate's other binaries. Prints wall
# and CPU seconds of each step (GNU time) and their medians.
#
#   benches/edit_to_run/measure.sh            # profiles: quick dev release
#   PROFILES="quick" ROUNDS=5 benches/edit_to_run/measure.sh
#
# The crate is not in the workspace and has its own target directory
# (benches/edit_to_run/target, or $CARGO_TARGET_DIR).
set -euo pipefail
cd "$(dirname "$0")"
PROFILES=${PROFILES:-"quick dev release"}
ROUNDS=${ROUNDS:-3}
log=$(mktemp)
model=src/furuta.rs
trap 'rm -f "$log"; sed -i "s/bp = 2.1e-5/bp = 2e-5/" $model' EXIT

# GNU time of a command: prints "wall cpu" (seconds) on stdout, the command's output to $log.
timed() {
    /usr/bin/time -f "%e %U %S" -o "$log.t" "$@" >>"$log" 2>&1
    awk '{ printf "%.2f %.2f\n", $1, $2 + $3 }' "$log.t"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "cpu: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "rustc: $(rustc --version)"
for profile in $PROFILES; do
    dir=$([ "$profile" = dev ] && echo debug || echo "$profile")
    target=${CARGO_TARGET_DIR:-target}
    rm -rf "$target/$dir"
    read -r wall cpu < <(timed cargo build --profile "$profile")
    echo "$profile: cold build ${wall} s wall, ${cpu} s cpu"
    builds=() runs=() totals=() others=()
    for _ in $(seq "$ROUNDS"); do
        if grep -q "bp = 2e-5" $model; then
            sed -i "s/bp = 2e-5/bp = 2.1e-5/" $model
        else
            sed -i "s/bp = 2.1e-5/bp = 2e-5/" $model
        fi
        read -r bwall bcpu < <(timed cargo build --profile "$profile" --bin edit_to_run)
        read -r rwall rcpu < <(timed "$target/$dir/edit_to_run")
        read -r owall ocpu < <(timed cargo build --profile "$profile")
        echo "  edit: rebuild ${bwall} s (cpu ${bcpu}), run ${rwall} s (cpu ${rcpu}); the other four binaries ${owall} s (cpu ${ocpu})"
        builds+=("$bwall") runs+=("$rwall") others+=("$owall")
        totals+=("$(echo "$bwall + $rwall" | bc)")
    done
    echo "$profile: median rebuild $(printf '%s\n' "${builds[@]}" | median) s, run $(printf '%s\n' "${runs[@]}" | median) s, edit to PNG and GIF $(printf '%s\n' "${totals[@]}" | median) s; the other binaries $(printf '%s\n' "${others[@]}" | median) s"
done
