#!/bin/sh
# Installs every build and test dependency of tilesat from Debian 12's packages (run as root).
# python3-torch, python3-torchvision and python3-onnx are for the tests only (the model zoo and
# exported test models); the build does not need them.
set -eu
apt-get update
apt-get install -y --no-install-recommends \
  cmake ninja-build g++ pkg-config python3 python3-numpy clang-format \
  libboost-graph-dev libz3-dev libfmt-dev libflatbuffers-dev flatbuffers-compiler \
  libonnx-dev libprotobuf-dev protobuf-compiler libgtest-dev libgmock-dev libbenchmark-dev \
  llvm-14-tools libcli11-dev nlohmann-json3-dev libtbb-dev clang-14 libclang-rt-14-dev \
  python3-torch python3-torchvision python3-onnx
