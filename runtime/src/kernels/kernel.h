// kernel.h: what every op kernel gets (its op, tensors, memory and the core pool) and the
// driver that runs each core's work list tile by tile.
#pragma once

#include "../memory.h"
#include "tilesat/runtime/thread_pool.h"

#include <cstring>
#include <vector>

namespace tilesat::runtime::detail {

struct OpContext {
  const fb::Program& program;
  const fb::Op& op;
  DeviceMemory& memory;
  ThreadPool& pool;
  std::vector<TensorRef> inputs;
  TensorRef output;

  /// Runs `fill(b, tr, tc, tile)` for every output tile of every core's work list (cores in
  /// parallel), then stores the tile, rounding it to the output's dtype. `fill` must write
  /// the 1024 values of the tile in face order, zero in the padding.
  template <class Fill>
  void for_each_tile(Fill fill) {
    const auto* work = op.work();
    if (work == nullptr) return;
    pool.run(work->size(), [&](size_t c) {
      const fb::CoreWork& cw = *work->Get(static_cast<uint32_t>(c));
      if (cw.items() == nullptr) return;
      alignas(64) float tile[1024];
      for (const fb::WorkItem* w : *cw.items()) {
        for (uint32_t b = w->batch_begin(); b < w->batch_end(); ++b)
          for (uint32_t tr = w->row_begin(); tr < w->row_end(); ++tr)
            for (uint32_t tc = w->col_begin(); tc < w->col_end(); ++tc) {
              fill(int64_t{b}, int64_t{tr}, int64_t{tc}, tile);
              write_tile(memory, output, b, tr, tc, tile);
            }
      }
    });
  }
};

/// Fills the elements of output tile (b, tr, tc) inside the shape with f(flat index of the
/// element in the logical row-major output), the padding with zero.
template <class F>
void fill_elements(const program::TileView& v, int64_t b, int64_t tr, int64_t tc, float* tile,
                   F f) {
  std::memset(tile, 0, 4096);
  int64_t r_end = std::min(program::kTile, v.rows - tr * program::kTile);
  int64_t c_end = std::min(program::kTile, v.cols - tc * program::kTile);
  for (int64_t r = 0; r < r_end; ++r) {
    int64_t base = (b * v.rows + tr * program::kTile + r) * v.cols + tc * program::kTile;
    for (int64_t c = 0; c < c_end; ++c) tile[program::face_offset(r, c)] = f(base + c);
  }
}

/// Zeroes the padding of a tile whose elements outside the shape may hold garbage.
void zero_padding(const program::TileView& v, int64_t tr, int64_t tc, float* tile);

/// For each output dim, the stride of an operand whose dim i maps to output dim map[i]
/// (0 where the operand is broadcast).
std::vector<int64_t> mapped_strides(const std::vector<int64_t>& operand,
                                    const std::vector<int64_t>& out,
                                    const std::vector<int64_t>& map);
/// map for NumPy right alignment of a rank-`rank` operand into a rank-`out_rank` result.
std::vector<int64_t> right_aligned(size_t rank, size_t out_rank);

/// The operand offset of output element `flat` given per-output-dim operand strides.
inline int64_t operand_offset(int64_t flat, const std::vector<int64_t>& out_shape,
                              const std::vector<int64_t>& strides) {
  int64_t off = 0;
  for (size_t d = out_shape.size(); d-- > 0;) {
    int64_t e = out_shape[d];
    int64_t i = flat % e;
    flat /= e;
    off += i * strides[d];
  }
  return off;
}

/// Every input of an op as logical row-major floats, each broadcast to the output's shape by
/// NumPy right alignment (fused elementwise, where).
///   BroadcastInputs in(ctx);  in.at(1, f)  // input 1's element for output element f
struct BroadcastInputs {
  explicit BroadcastInputs(OpContext& ctx);
  float at(size_t input, int64_t flat) const {
    return values[input][static_cast<size_t>(operand_offset(flat, out, strides[input]))];
  }
  std::vector<int64_t> out;
  std::vector<std::vector<float>> values;
  std::vector<std::vector<int64_t>> strides;
};

float apply_unary(fb::UnaryKind k, float x);
float apply_binary(fb::BinaryKind k, float a, float b);

// The kernels, one per family.
void run_copy(OpContext& ctx); // to_layout, typecast
void run_reshape(OpContext& ctx);
void run_unary(OpContext& ctx);
void run_binary(OpContext& ctx);
void run_fused(OpContext& ctx);
void run_matmul(OpContext& ctx); // matmul, linear
void run_reduce(OpContext& ctx);
void run_softmax(OpContext& ctx);
void run_permute(OpContext& ctx);
void run_strided_copy(OpContext& ctx);
void run_broadcast(OpContext& ctx);
void run_concat(OpContext& ctx);
void run_slice(OpContext& ctx);
void run_constant(OpContext& ctx); // constant, full
void run_conv2d(OpContext& ctx);
void run_pool2d(OpContext& ctx); // max and avg
void run_layer_norm(OpContext& ctx);
void run_rms_norm(OpContext& ctx);
void run_take(OpContext& ctx);
void run_where(OpContext& ctx);
void run_attention(OpContext& ctx); // scaled dot-product attention
void run_rotary_embedding(OpContext& ctx);

class Communicator;
/// mesh_shard and the collectives on chip `chip` of the program's mesh, exchanging tensors
/// with the other chips through `comm` (collective.cpp; numerics of graph/spmd.h).
void run_mesh_op(OpContext& ctx, int64_t chip, Communicator& comm);

} // namespace tilesat::runtime::detail
