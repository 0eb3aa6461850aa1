#!/bin/sh
# The main job on the seed MLP (examples/mlp/mlp.mlir, seed 000 §3.3): print it in canonical
# TTIR, then evaluate it with the reference interpreter on random inputs.
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
tilesat="$build/tools/tilesat"
out="$build/main-job"
echo "== tilesat print examples/mlp/mlp.mlir"
"$tilesat" print examples/mlp/mlp.mlir
echo "== tilesat eval examples/mlp/mlp.mlir --random-inputs 1 --output-dir $out"
"$tilesat" eval examples/mlp/mlp.mlir --random-inputs 1 --output-dir "$out"
ls -l "$out"
