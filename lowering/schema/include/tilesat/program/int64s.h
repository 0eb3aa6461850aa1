// Reading a program's int64 vectors (shapes, dims, shard specs) without misaligned loads.
//
// The FlatBuffers verifier checks a vector's length word only for 4-byte alignment, so a damaged
// file can hold an int64 vector at an address that is 4 mod 8; loading its elements is then
// undefined behaviour. Its bytes are copied instead (FlatBuffers stores them little-endian, as
// x86 does). Every reader of a program's int64 vectors (runtime, verifier, dump) goes through
// this function.
//
//   std::vector<int64_t> shape = int64s(tensor.shape());   // {} when the vector is absent
#pragma once

#include <cstdint>
#include <cstring>
#include <flatbuffers/flatbuffers.h>
#include <vector>

namespace tilesat::program {

inline std::vector<int64_t> int64s(const flatbuffers::Vector<int64_t>* v) {
  std::vector<int64_t> out;
  if (v != nullptr && v->size() > 0) {
    out.resize(v->size());
    std::memcpy(out.data(), v->Data(), out.size() * sizeof(int64_t));
  }
  return out;
}

} // namespace tilesat::program
