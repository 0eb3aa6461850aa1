#!/bin/sh
# The whole test suite, as CI runs it (dependencies must be installed: scripts/install-deps.sh).
#  1. Release build with warnings as errors; the model zoo exported (scripts/make-zoo.py); unit,
#     lit, model-zoo and benchmark-smoke tests (ctest).
#  2. clang-format check of every C++ file.
#  3. Install into a staging prefix and build every example as an outside project against
#     the installed CMake package, then run it.
#  4. One clang-14 build with AddressSanitizer + UndefinedBehaviorSanitizer and the libFuzzer
#     targets: the same tests under the sanitizers, then each fuzzer for a short time.
# Both builds are unity builds (CMAKE_UNITY_BUILD: eight sources compiled as one, about half the
# compile time of building source by source; the sanitizer build compiles the test bodies at
# -O0, tests/CMakeLists.txt); the
# Release build's configuration is scripts/bootstrap.sh's, so the tests reuse the build the
# first README command made.
set -eu
cd "$(dirname "$0")/.."
jobs=${JOBS:-2}

start=$(date +%s)
# Each step's heading says when it began (seconds since the start), for the time CI spends where.
step() { printf '\n==== %s (at %d s)\n' "$*" $(($(date +%s) - start)); }

step "1. build and test (Release, -Werror)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_UNITY_BUILD=ON -DTILESAT_WERROR=ON
# The model zoo the zoo_plans test plans (structure-only ONNX exported from torch, about 7 MB),
# exported while the build runs.
mkdir -p build
/usr/bin/python3 scripts/make-zoo.py build/zoo > build/zoo.log 2>&1 &
zoo=$!
cmake --build build -j"$jobs"
wait "$zoo" || { cat build/zoo.log; exit 1; }
ctest --test-dir build --output-on-failure -j"$jobs"

step "2. clang-format"
git ls-files '*.cpp' '*.h' | xargs clang-format --dry-run -Werror

step "3. install and build the examples against the installed package"
rm -rf build/stage
cmake --install build --prefix build/stage
for ex in examples/*/; do
  [ -f "$ex/CMakeLists.txt" ] || continue
  name=$(basename "$ex")
  cmake -S "$ex" -B "build/examples/$name" -G Ninja -DCMAKE_PREFIX_PATH="$PWD/build/stage"
  cmake --build "build/examples/$name" -j"$jobs"
  ctest --test-dir "build/examples/$name" --output-on-failure
done

step "4. sanitizers and fuzzers (clang-14: AddressSanitizer, UndefinedBehaviorSanitizer, libFuzzer)"
# One clang build serves both: every test runs under ASan + UBSan, and each libFuzzer target
# (labelled fuzz) runs for a short time. -O1 with line tables only: stack traces name the
# lines, at less compile time than full debug information.
cmake -S . -B build-san -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" -DCMAKE_UNITY_BUILD=ON \
  -DTILESAT_WERROR=ON -DTILESAT_SANITIZE=address,undefined -DTILESAT_FUZZ=ON -DTILESAT_BUILD_BENCH=OFF
cmake --build build-san -j"$jobs"
# Left to the Release run: the tests labelled slow (whole models, the zoo), and the planner's
# 720-op spill test, which takes about 2 minutes here (the test bodies are built at -O0,
# tests/CMakeLists.txt, and the binary takes the planner's inline helpers from them).
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-san --output-on-failure -j"$jobs" -LE slow \
  -E 'LongLivedValuesAreSpilledWhereReplanningWouldReachFarBack'

step "all checks passed"
