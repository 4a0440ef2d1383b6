# Sourced by the build-cost scripts (compile_cost.sh, urdf_chain_cost.sh,
# robot_build_cost.sh), never run:
#
#   scratch_crate NAME DIR RUNTIME lib|bin [CARGO_BUILD_FLAGS...]
#
# makes DIR a crate NAME of its own (its own workspace) that depends on the
# lagrange-runtime at RUNTIME, moves into it, exports CARGO_TARGET_DIR=DIR/target and
# CARGO_INCREMENTAL=0, and builds the dependencies with an empty library or binary
# (src/lib.rs or src/main.rs, which the caller then writes), so that only the model's
# crate is measured.
scratch_crate() {
    local name=$1 dir=$2 runtime=$3 kind=$4
    shift 4
    mkdir -p "$dir/src"
    cat >"$dir/Cargo.toml" <<EOT
[package]
name = "$name"
version = "0.0.0"
edition = "2021"
publish = false

[workspace]

[dependencies]
lagrange-runtime = { path = "$runtime" }
EOT
    cd "$dir"
    export CARGO_TARGET_DIR="$dir/target" CARGO_INCREMENTAL=0
    if [[ $kind == bin ]]; then
        echo "use lagrange_runtime as _; fn main() {}" >src/main.rs
    else
        echo "use lagrange_runtime as _;" >src/lib.rs
    fi
    cargo build --quiet "$@"
}
