// matmul.cpp: matmul and linear, one output tile at a time: gather the row panel of A and
// the column panel of B as f32 tiles (stored f32 tiles are used in place, others decoded or
// transposed into scratch), run the tile micro-kernel over the full inner dimension, then
// add the bias and apply the activation.
#include "kernel.h"
#include "tilesat/runtime/tile_matmul.h"

namespace tilesat::runtime::detail {
namespace {

void transpose_tile(const float* in, float* out) {
  for (int r = 0; r < 32; ++r)
    for (int c = 0; c < 32; ++c) out[program::face_offset(c, r)] = in[program::face_offset(r, c)];
}

// Pointers to the k-tiles of one panel, decoding into `scratch` when needed.
struct Panel {
  std::vector<const float*> tiles;
  std::vector<float> scratch;
  int64_t key0 = -1, key1 = -1;
};

// Tile (row, col) of a matrix operand `t` (batch `b`), seen transposed when `trans`.
const float* operand_tile(DeviceMemory& m, const TensorRef& t, int64_t b, int64_t row, int64_t col,
                          bool trans, float* scratch) {
  if (!trans) {
    if (t.layout() == fb::Layout::Tile && t.dtype() == fb::DType::F32) {
      return reinterpret_cast<const float*>(
          page_ptr(m, t, (b * t.view.tile_rows + row) * t.view.tile_cols + col));
    }
    read_tile(m, t, b, row, col, scratch);
    return scratch;
  }
  alignas(64) float tmp[1024];
  read_tile(m, t, b, col, row, tmp);
  transpose_tile(tmp, scratch);
  return scratch;
}

} // namespace

void run_matmul(OpContext& ctx) {
  const fb::Matmul* mm = ctx.op.params_type() == fb::OpParams::Linear
                             ? ctx.op.params_as_Linear()->matmul()
                             : ctx.op.params_as_Matmul();
  bool act = false;
  fb::UnaryKind activation = fb::UnaryKind::Relu;
  if (ctx.op.params_type() == fb::OpParams::Linear) {
    act = ctx.op.params_as_Linear()->has_activation();
    activation = ctx.op.params_as_Linear()->activation();
  }
  const TensorRef &a = ctx.inputs[0], &b = ctx.inputs[1];
  bool ta = mm->transpose_a(), tb = mm->transpose_b();
  int64_t k = ta ? a.view.rows : a.view.cols;
  int64_t kt_count = (k + program::kTile - 1) / program::kTile;
  std::vector<int64_t> a_batch = longs(mm->a_batch()), b_batch = longs(mm->b_batch());
  const std::vector<int64_t>& out = ctx.output.shape;
  bool has_bias = ctx.inputs.size() == 3;
  std::vector<float> bias;
  std::vector<int64_t> bias_st;
  if (has_bias) {
    bias = read_logical(ctx.memory, ctx.inputs[2]);
    bias_st = mapped_strides(ctx.inputs[2].shape, out,
                             right_aligned(ctx.inputs[2].shape.size(), out.size()));
  }
  const program::TileView& v = ctx.output.view;
  const auto* work = ctx.op.work();
  if (work == nullptr) return;
  ctx.pool.run(work->size(), [&](size_t c) {
    const fb::CoreWork& cw = *work->Get(static_cast<uint32_t>(c));
    if (cw.items() == nullptr) return;
    Panel pa, pb;
    pa.tiles.resize(static_cast<size_t>(kt_count));
    pb.tiles.resize(static_cast<size_t>(kt_count));
    pa.scratch.resize(static_cast<size_t>(kt_count) * 1024);
    pb.scratch.resize(static_cast<size_t>(kt_count) * 1024);
    alignas(64) float tile[1024];
    for (const fb::WorkItem* w : *cw.items()) {
      for (uint32_t bo = w->batch_begin(); bo < w->batch_end(); ++bo) {
        int64_t ab = a_batch[bo], bb = b_batch[bo];
        for (uint32_t i = w->row_begin(); i < w->row_end(); ++i) {
          if (pa.key0 != ab || pa.key1 != i) {
            for (int64_t kt = 0; kt < kt_count; ++kt)
              pa.tiles[static_cast<size_t>(kt)] = operand_tile(
                  ctx.memory, a, ab, i, kt, ta, &pa.scratch[static_cast<size_t>(kt) * 1024]);
            pa.key0 = ab;
            pa.key1 = i;
          }
          for (uint32_t j = w->col_begin(); j < w->col_end(); ++j) {
            if (pb.key0 != bb || pb.key1 != j) {
              for (int64_t kt = 0; kt < kt_count; ++kt)
                pb.tiles[static_cast<size_t>(kt)] = operand_tile(
                    ctx.memory, b, bb, kt, j, tb, &pb.scratch[static_cast<size_t>(kt) * 1024]);
              pb.key0 = bb;
              pb.key1 = j;
            }
            std::memset(tile, 0, sizeof tile);
            tile_matmul(tile, pa.tiles.data(), pb.tiles.data(), kt_count);
            if (has_bias || act) {
              int64_t r_end = std::min(program::kTile, v.rows - int64_t{i} * program::kTile);
              int64_t c_end = std::min(program::kTile, v.cols - int64_t{j} * program::kTile);
              for (int64_t r = 0; r < r_end; ++r) {
                int64_t base = (bo * v.rows + i * program::kTile + r) * v.cols + j * program::kTile;
                for (int64_t cc = 0; cc < c_end; ++cc) {
                  float& x = tile[program::face_offset(r, cc)];
                  if (has_bias)
                    x += bias[static_cast<size_t>(operand_offset(base + cc, out, bias_st))];
                  if (act) x = apply_unary(activation, x);
                }
              }
            }
            zero_padding(v, i, j, tile);
            write_tile(ctx.memory, ctx.output, bo, i, j, tile);
          }
        }
      }
    }
  });
}

} // namespace tilesat::runtime::detail
