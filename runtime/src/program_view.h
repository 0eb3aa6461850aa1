// program_view.h: small helpers over the verified flatbuffers view (shapes, placements).
#pragma once

#include "program_generated.h"
#include "tilesat/program/int64s.h"
#include "tilesat/program/storage.h"

#include <cstdint>
#include <cstring>
#include <vector>

namespace tilesat::runtime::detail {

/// The length of an optional vector: FlatBuffers leaves an empty vector out of the file, so a
/// program with no ops (an identity) or no inputs has none.
template <class T>
uint32_t count(const flatbuffers::Vector<T>* v) {
  return v != nullptr ? v->size() : 0;
}

/// The elements of an int64 vector, copied (program::int64s: a damaged file may misalign it).
inline std::vector<int64_t> longs(const flatbuffers::Vector<int64_t>* v) {
  return program::int64s(v);
}

/// The elements of a vector of 4-byte integers (aligned by the verifier), widened.
template <class T>
std::vector<int64_t> longs(const flatbuffers::Vector<T>* v) {
  static_assert(sizeof(T) <= 4, "8-byte elements go through the memcpy overload");
  std::vector<int64_t> out;
  if (v != nullptr) out.assign(v->begin(), v->end());
  return out;
}

inline std::vector<int64_t> shape_of(const fb::Tensor& t) {
  return longs(t.shape());
}

inline int64_t numel(const std::vector<int64_t>& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

inline std::vector<int64_t> strides(const std::vector<int64_t>& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * s[i];
  return st;
}

inline program::Placement placement_of(const fb::Tensor& t, const fb::Buffer& b) {
  program::Placement p;
  p.layout = t.layout();
  p.dtype = t.dtype();
  p.buffer = t.buffer_type();
  p.memory = t.memory_layout();
  if (p.buffer == fb::BufferType::L1) {
    if (p.memory == fb::MemoryLayout::Interleaved || t.shard() == nullptr) {
      p.cores = b.cores() != nullptr ? *b.cores() : fb::CoreRange(0, 0, 0, 0);
    } else {
      const fb::ShardSpec& s = *t.shard();
      p.cores = s.cores() != nullptr ? *s.cores() : fb::CoreRange(0, 0, 0, 0);
      p.shard_tile_rows = s.shard_tile_rows();
      p.shard_tile_cols = s.shard_tile_cols();
    }
  }
  return p;
}

inline std::vector<const fb::FusedNode*> fused_nodes(const fb::FusedEltwise& f) {
  std::vector<const fb::FusedNode*> out;
  if (f.nodes() != nullptr) out.assign(f.nodes()->begin(), f.nodes()->end());
  return out;
}

} // namespace tilesat::runtime::detail
