// program_view.h: small helpers over the verified flatbuffers view (shapes, placements).
#pragma once

#include "program_generated.h"
#include "tilesat/program/storage.h"

#include <cstdint>
#include <vector>

namespace tilesat::runtime::detail {

inline std::vector<int64_t> shape_of(const fb::Tensor& t) {
  std::vector<int64_t> s;
  if (t.shape() != nullptr) s.assign(t.shape()->begin(), t.shape()->end());
  return s;
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

template <class V>
std::vector<int64_t> longs(const V* v) {
  std::vector<int64_t> out;
  if (v != nullptr) out.assign(v->begin(), v->end());
  return out;
}

} // namespace tilesat::runtime::detail
