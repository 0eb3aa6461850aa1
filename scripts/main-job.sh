#!/bin/sh
# The main job on the seed MLP (examples/mlp/mlp.mlir, seed 000 §3.3): print it as canonical
# TTIR and evaluate it with the reference interpreter; optimize it with the rewrite rules; plan
# it for a Wormhole n150 (placements, predicted times); lower it to a device program file; run
# that program on the CPU model of the device; and check the device results against the
# reference interpreter on the unoptimized graph.
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
tilesat="$build/tools/tilesat"
out="$build/main-job"
mlp=examples/mlp/mlp.mlir
rm -rf "$out"
mkdir -p "$out"
step() { printf '\n== tilesat %s\n' "$*"; "$tilesat" "$@"; }
step print "$mlp"
step eval "$mlp" --random-inputs 1 --output-dir "$out/reference"
step opt "$mlp" --stats
step opt "$mlp" --device wormhole_b0 --emit plan --report "$out/plan.json"
step opt "$mlp" --device wormhole_b0 --emit program -o "$out/mlp.tsprog"
step run "$out/mlp.tsprog" --random-inputs 1 --output-dir "$out/device" --profile -
step check "$mlp" --device wormhole_b0
