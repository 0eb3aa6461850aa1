#!/bin/sh
# One command from a fresh Debian 12 machine to the main job: installs the dependencies,
# builds tilesat into build/, then runs the seed MLP (scripts/main-job.sh).
set -eu
cd "$(dirname "$0")/.."
if [ "$(id -u)" = 0 ]; then scripts/install-deps.sh; fi
# The configuration scripts/check.sh tests (a unity build: eight sources compiled as one).
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_UNITY_BUILD=ON -DTILESAT_WERROR=ON
cmake --build build -j2
scripts/main-job.sh build
