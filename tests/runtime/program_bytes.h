// program_bytes.h: helpers of the loader tests: packing an edited program object back into
// bytes, and the error loading some bytes gives.
//
//   fb::ProgramT p; fb::GetProgram(bytes.data())->UnPackTo(&p);
//   p.mesh_rows = 0;
//   error_of(pack(p));   // "p.tsprog: mesh: expected a mesh of 1..64 chips, got 0x2"
#pragma once

#include "tilesat/graph/diagnostic.h"
#include "tilesat/runtime/program.h"

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

} // namespace tilesat::runtime::testing
