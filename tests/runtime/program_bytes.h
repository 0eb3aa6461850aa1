// program_bytes.h: helpers of the loader tests: packing an edited program object back into
// bytes, and the error loading some bytes gives.
//
//   fb::ProgramT p; fb::GetProgram(bytes.data())->UnPackTo(&p);
//   p.mesh_rows = 0;
//   error_of(pack(p));   // "p.tsprog: mesh: expected a mesh of 1..64 chips, got 0x2"
#pragma once

#include "tilesat/graph/diagnostic.h"
#include "tilesat/runtime/program.h"

#include <functional>
#include <random>
#include <string>
#include <vector>

namespace tilesat::runtime::testing {

inline std::vector<uint8_t> pack(const fb::ProgramT& p) {
  flatbuffers::FlatBufferBuilder b;
  b.Finish(fb::Program::Pack(b, &p), fb::ProgramIdentifier());
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

/// The message of the error loading `bytes`, or "" when they load.
inline std::string error_of(std::vector<uint8_t> bytes) {
  try {
    Program::parse(std::move(bytes), "p.tsprog");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

/// How many of `trials` copies of `good` with 1 to 3 random bits flipped load and then `run`
/// without a tilesat::Error (a flip the checks cannot see, such as a value or a name, must
/// still run safely); any other failure escapes.
inline int accepted_bit_flips(const std::vector<uint8_t>& good, int trials, uint32_t seed,
                              const std::function<void(const Program&)>& run) {
  std::mt19937 rng(seed);
  int accepted = 0;
  for (int trial = 0; trial < trials; ++trial) {
    std::vector<uint8_t> bad = good;
    int flips = 1 + static_cast<int>(rng() % 3);
    for (int f = 0; f < flips; ++f)
      bad[rng() % bad.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
    try {
      run(Program::parse(std::move(bad), "p.tsprog"));
      ++accepted;
    } catch (const Error&) {
    }
  }
  return accepted;
}

} // namespace tilesat::runtime::testing
