// elementwise.cpp: unary, binary and fused elementwise kernels, and tile copies (to_layout,
// typecast). Formulas follow the reference interpreter's (graph/src/ops/elementwise.cpp).
#include "kernel.h"
#include "tilesat/runtime/numerics.h"

#include <cmath>
#include <numbers>

namespace tilesat::runtime::detail {

float apply_unary(fb::UnaryKind k, float x) {
  switch (k) {
  case fb::UnaryKind::Relu:
    return x > 0.0f ? x : 0.0f;
  case fb::UnaryKind::Gelu: {
    double d = x;
    return static_cast<float>(0.5 * d * (1.0 + std::erf(d / std::numbers::sqrt2)));
  }
  case fb::UnaryKind::Exp:
    return std::exp(x);
  case fb::UnaryKind::Log:
    return std::log(x);
  case fb::UnaryKind::Neg:
    return -x;
  case fb::UnaryKind::Abs:
    return std::fabs(x);
  case fb::UnaryKind::Sin:
    return std::sin(x);
  case fb::UnaryKind::Cos:
    return std::cos(x);
  case fb::UnaryKind::Tanh:
    return std::tanh(x);
  case fb::UnaryKind::Sigmoid:
    return static_cast<float>(1.0 / (1.0 + std::exp(-double{x})));
  case fb::UnaryKind::Sqrt:
    return std::sqrt(x);
  case fb::UnaryKind::Rsqrt:
    return static_cast<float>(1.0 / std::sqrt(double{x}));
  case fb::UnaryKind::Reciprocal:
    return 1.0f / x;
  case fb::UnaryKind::Erf:
    return std::erf(x);
  case fb::UnaryKind::Silu:
    return static_cast<float>(double{x} / (1.0 + std::exp(-double{x})));
  }
  return x;
}

float apply_binary(fb::BinaryKind k, float a, float b) {
  switch (k) {
  case fb::BinaryKind::Add:
    return a + b;
  case fb::BinaryKind::Subtract:
    return a - b;
  case fb::BinaryKind::Multiply:
    return a * b;
  case fb::BinaryKind::Divide:
    return a / b;
  case fb::BinaryKind::Maximum:
    return std::max(a, b);
  case fb::BinaryKind::Minimum:
    return std::min(a, b);
  case fb::BinaryKind::Pow:
    return std::pow(a, b);
  case fb::BinaryKind::AddRelu: {
    float s = a + b;
    return s > 0.0f ? s : 0.0f;
  }
  case fb::BinaryKind::Equal:
    return a == b ? 1.0f : 0.0f;
  case fb::BinaryKind::Less:
    return a < b ? 1.0f : 0.0f;
  case fb::BinaryKind::Greater:
    return a > b ? 1.0f : 0.0f;
  }
  return a;
}

void zero_padding(const program::TileView& v, int64_t tr, int64_t tc, float* tile) {
  int64_t r_end = std::min(program::kTile, v.rows - tr * program::kTile);
  int64_t c_end = std::min(program::kTile, v.cols - tc * program::kTile);
  if (r_end == program::kTile && c_end == program::kTile) return;
  for (int64_t r = 0; r < program::kTile; ++r)
    for (int64_t c = 0; c < program::kTile; ++c)
      if (r >= r_end || c >= c_end) tile[program::face_offset(r, c)] = 0.0f;
}

std::vector<int64_t> mapped_strides(const std::vector<int64_t>& operand,
                                    const std::vector<int64_t>& out,
                                    const std::vector<int64_t>& map) {
  std::vector<int64_t> st = strides(operand);
  std::vector<int64_t> res(out.size(), 0);
  for (size_t i = 0; i < map.size(); ++i)
    if (operand[i] != 1) res[static_cast<size_t>(map[i])] = st[i];
  return res;
}

std::vector<int64_t> right_aligned(size_t rank, size_t out_rank) {
  std::vector<int64_t> m;
  for (size_t i = 0; i < rank; ++i) m.push_back(static_cast<int64_t>(out_rank - rank + i));
  return m;
}

BroadcastInputs::BroadcastInputs(OpContext& ctx) : out(ctx.output.shape) {
  for (const TensorRef& in : ctx.inputs) {
    values.push_back(read_logical(ctx.memory, in));
    strides.push_back(mapped_strides(in.shape, out, right_aligned(in.shape.size(), out.size())));
  }
}

void run_copy(OpContext& ctx) {
  const TensorRef& in = ctx.inputs[0];
  ctx.for_each_tile([&](int64_t b, int64_t tr, int64_t tc, float* tile) {
    read_tile(ctx.memory, in, b, tr, tc, tile);
  });
}

void run_unary(OpContext& ctx) {
  const TensorRef& in = ctx.inputs[0];
  fb::UnaryKind k = ctx.op.params_as_Unary()->kind();
  const program::TileView& v = ctx.output.view;
  ctx.for_each_tile([&](int64_t b, int64_t tr, int64_t tc, float* tile) {
    read_tile(ctx.memory, in, b, tr, tc, tile);
    for (int i = 0; i < 1024; ++i) tile[i] = apply_unary(k, tile[i]);
    zero_padding(v, tr, tc, tile);
  });
}

void run_binary(OpContext& ctx) {
  const fb::Binary& p = *ctx.op.params_as_Binary();
  const TensorRef &a = ctx.inputs[0], &b = ctx.inputs[1];
  const std::vector<int64_t>& out = ctx.output.shape;
  const program::TileView& v = ctx.output.view;
  fb::BinaryKind k = p.kind();
  if (a.shape == out && b.shape == out) {
    // Same shapes: tile by tile.
    ctx.for_each_tile([&](int64_t bi, int64_t tr, int64_t tc, float* tile) {
      alignas(64) float rhs[1024];
      read_tile(ctx.memory, a, bi, tr, tc, tile);
      read_tile(ctx.memory, b, bi, tr, tc, rhs);
      for (int i = 0; i < 1024; ++i) tile[i] = apply_binary(k, tile[i], rhs[i]);
      zero_padding(v, tr, tc, tile);
    });
    return;
  }
  std::vector<float> av = read_logical(ctx.memory, a), bv = read_logical(ctx.memory, b);
  std::vector<int64_t> as = mapped_strides(a.shape, out, longs(p.lhs_dims()));
  std::vector<int64_t> bs = mapped_strides(b.shape, out, longs(p.rhs_dims()));
  ctx.for_each_tile([&](int64_t bi, int64_t tr, int64_t tc, float* tile) {
    fill_elements(v, bi, tr, tc, tile, [&](int64_t f) {
      return apply_binary(k, av[static_cast<size_t>(operand_offset(f, out, as))],
                          bv[static_cast<size_t>(operand_offset(f, out, bs))]);
    });
  });
}

void run_fused(OpContext& ctx) {
  std::vector<const fb::FusedNode*> nodes = fused_nodes(*ctx.op.params_as_FusedEltwise());
  BroadcastInputs in(ctx);
  // Inner results round to the dtype as the unfused ops would (bfp8_b rounds as bf16 between
  // ops, as the reference interpreter does).
  fb::DType dt = ctx.output.dtype();
  auto round = [dt](float x) {
    if (dt == fb::DType::BF16 || dt == fb::DType::BFP8_B) return round_bf16(x);
    if (dt == fb::DType::I32) return static_cast<float>(to_i32(x));
    return x;
  };
  const program::TileView& v = ctx.output.view;
  ctx.for_each_tile([&](int64_t b, int64_t tr, int64_t tc, float* tile) {
    std::vector<float> val(nodes.size());
    fill_elements(v, b, tr, tc, tile, [&](int64_t f) {
      for (size_t i = 0; i < nodes.size(); ++i) {
        const fb::FusedNode& n = *nodes[i];
        switch (n.kind()) {
        case fb::FusedNodeKind::Input:
          val[i] = in.at(n.input(), f);
          break;
        case fb::FusedNodeKind::Literal:
          val[i] = n.literal();
          break;
        case fb::FusedNodeKind::Unary:
          val[i] = round(apply_unary(n.unary(), val[n.args()->Get(0)]));
          break;
        case fb::FusedNodeKind::Binary:
          val[i] = round(apply_binary(n.binary(), val[n.args()->Get(0)], val[n.args()->Get(1)]));
          break;
        }
      }
      return val.back();
    });
  });
}

} // namespace tilesat::runtime::detail
