# Every third-party dependency, found once for the whole build (Debian 12 packages).
find_package(Threads REQUIRED)
find_package(Boost 1.74 REQUIRED CONFIG COMPONENTS graph)
find_package(fmt 9 REQUIRED CONFIG)
find_package(CLI11 2 REQUIRED CONFIG)
find_package(nlohmann_json 3.11 REQUIRED CONFIG)
# Debian's libz3-dev ships no CMake config, only z3.pc.
find_package(PkgConfig REQUIRED)
pkg_check_modules(Z3 REQUIRED IMPORTED_TARGET GLOBAL z3>=4.8.12)
# FlatBuffers 2.0.8: link flatbuffers_shared (the static archive is not PIC); run the imported
# flatc, never one from PATH (generated headers static_assert its exact version).
find_package(FlatBuffers 2.0.8 REQUIRED CONFIG)
# ONNX's config links protobuf::libprotobuf without finding it: Protobuf first.
find_package(Protobuf REQUIRED)
find_package(ONNX 1.12 REQUIRED CONFIG)
if(TILESAT_BUILD_TESTS)
  find_package(GTest REQUIRED CONFIG)
  include(GoogleTest)
  # Debian's python3; a pyenv shim on PATH would not see Debian's python packages.
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
  set(LLVM_TOOLS_DIR /usr/lib/llvm-14/bin CACHE PATH "Directory with FileCheck, not, count")
  find_program(FILECHECK_EXECUTABLE FileCheck PATHS ${LLVM_TOOLS_DIR} NO_DEFAULT_PATH REQUIRED)
  find_file(LIT_PY lit.py PATHS /usr/lib/llvm-14/build/utils/lit NO_DEFAULT_PATH REQUIRED)
endif()
if(TILESAT_BUILD_BENCH)
  find_package(benchmark REQUIRED CONFIG)
endif()
