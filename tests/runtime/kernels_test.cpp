// Every kernel against the reference interpreter, on shapes that are not whole tiles, on
// several core grids and placements.
#include "kernel_check.h"

namespace tilesat::runtime {
namespace {

using testing::Case;
using testing::check;

class Kernels : public ::testing::TestWithParam<Case> {};

TEST_P(Kernels, Unary) {
  for (OpKind k : {OpKind::Relu, OpKind::Gelu, OpKind::Exp, OpKind::Log, OpKind::Neg, OpKind::Abs,
                   OpKind::Sin, OpKind::Cos, OpKind::Tanh, OpKind::Sigmoid, OpKind::Sqrt,
                   OpKind::Rsqrt, OpKind::Reciprocal, OpKind::Erf, OpKind::Silu}) {
    Graph g;
    Builder b(g);
    b.output(b.op(k, {b.input("x", {37, 70})}));
    SCOPED_TRACE(std::string(op_name(k)));
    check(g, GetParam());
  }
}

TEST_P(Kernels, BinaryWithBroadcasting) {
  for (OpKind k : {OpKind::Add, OpKind::Subtract, OpKind::Multiply, OpKind::Divide, OpKind::Maximum,
                   OpKind::Minimum, OpKind::AddRelu, OpKind::Pow}) {
    SCOPED_TRACE(std::string(op_name(k)));
    Graph g;
    Builder b(g);
    Value x = b.input("x", {3, 37, 70});
    b.output(b.op(k, {x, b.input("y", {70})}));
    b.output(b.op(k, {b.input("z", {37, 1}), x}));
    b.output(b.op(k, {x, x}));
    check(g, GetParam());
  }
  Graph g;
  Builder b(g);
  b.output(b.add(b.input("x", {33, 40}), b.input("c", {33}), {.broadcast_dims = {0}}));
  check(g, GetParam());
}

TEST_P(Kernels, MatmulAndLinear) {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      Graph g;
      Builder b(g);
      Value a = b.input("a", ta ? Shape{70, 45} : Shape{45, 70});
      Value w = b.input("w", tb ? Shape{33, 70} : Shape{70, 33});
      b.output(b.matmul(a, w, {ta, tb}));
      Attrs attrs;
      attrs.set("transpose_a", ta);
      attrs.set("transpose_b", tb);
      attrs.set("activation", std::string("gelu"));
      b.output(b.op(OpKind::Linear, {a, w, b.input("bias", {33})}, attrs));
      // A matmul with a folded activation and no bias (tt-mlir's matmul activation).
      attrs.set("activation", std::string("silu"));
      b.output(b.op(OpKind::Linear, {a, w}, attrs));
      SCOPED_TRACE(std::to_string(ta) + std::to_string(tb));
      check(g, GetParam());
    }
  }
  Graph g;
  Builder b(g);
  b.output(b.matmul(b.input("a", {2, 3, 45, 70}), b.input("w", {3, 70, 40})));
  check(g, GetParam());
}

TEST_P(Kernels, FusedEltwise) {
  Graph g;
  Builder b(g);
  Value x = b.input("x", {37, 70});
  Value y = b.input("y", {70});
  b.output(b.fused_eltwise(std::vector<Value>{x, y},
                           "(multiply (add (exp %0) (sigmoid (neg %1))) 0.5)"));
  check(g, GetParam());
}

TEST_P(Kernels, Reductions) {
  for (auto [dims, keep] :
       {std::pair{std::vector<int64_t>{1}, false}, {{0, 2}, true}, {{}, false}, {{-1}, true}}) {
    Graph g;
    Builder b(g);
    Value x = b.input("x", {3, 37, 70});
    b.output(b.sum(x, {dims, keep}));
    b.output(b.mean(x, {dims, keep}));
    b.output(b.max(x, {dims, keep}));
    check(g, GetParam());
  }
  Graph g;
  Builder b(g);
  Value x = b.input("x", {3, 37, 70});
  b.output(b.softmax(x, -1));
  b.output(b.softmax(x, 1));
  check(g, GetParam());
}

TEST_P(Kernels, DataMovement) {
  Graph g;
  Builder b(g);
  Value x = b.input("x", {3, 37, 70});
  b.output(b.transpose(x, 1, 2));
  b.output(b.permute(x, {2, 0, 1}));
  b.output(b.reshape(x, {111, 70}));
  b.output(b.broadcast(b.input("v", {37, 1}), Shape{2, 37, 45}));
  b.output(b.concat({x, b.input("y", {3, 5, 70})}, 1));
  b.output(b.slice(x, {1, 3, 5}, {3, 36, 70}, {1, 2, 3}));
  b.output(b.typecast(x, DType::BF16));
  b.output(b.full(Shape{37, 70}, 0.25));
  b.output(b.constant(Shape{2, 3}, {1.0, 2.0, 3.0, 4.0, 5.0, 6.0}));
  check(g, GetParam());
}

TEST_P(Kernels, HeadMoves) {
  Graph g;
  Builder b(g);
  // 3 parts of 5 heads of 7 over 37 positions, batch 2: no extent is a whole tile.
  Value qkv = b.input("qkv", {2, 37, 105});
  for (int64_t part = 0; part < 3; ++part) b.output(b.split_heads(qkv, 5, 3, part, part == 1));
  b.output(b.concatenate_heads(b.input("heads", {2, 5, 37, 7})));
  check(g, GetParam());
}

TEST_P(Kernels, ScaledDotProductAttention) {
  Graph g;
  Builder b(g);
  // 4 query heads over 2 key/value heads, 37 queries over 45 keys (two blocks of keys, neither
  // whole), head dims that are not whole tiles.
  Value q = b.input("q", {2, 4, 37, 20}), k = b.input("k", {2, 2, 45, 20});
  Value v = b.input("v", {2, 2, 45, 24});
  Value add = b.input("add", {2, 1, 1, 45}), keep = b.input("keep", {37, 45});
  b.output(b.scaled_dot_product_attention(q, k, v, &add, {.scale = 0.3}));
  b.output(
      b.scaled_dot_product_attention(q, k, v, &keep, {.mask_kind = "select", .mask_fill = -50}));
  Value s = b.input("s", {1, 3, 40, 16});
  b.output(b.scaled_dot_product_attention(s, s, s, nullptr, {.is_causal = true}));
  check(g, GetParam());
}

TEST_P(Kernels, RotaryEmbedding) {
  Graph g;
  Builder b(g);
  // 3 heads of 37 positions, head_dim 22 (halves of 11, neither a tile); cos and sin per
  // position, broadcast over batch and heads, or whole.
  Value x = b.input("x", {2, 3, 37, 22});
  Value cos = b.input("cos", {1, 1, 37, 22}), sin = b.input("sin", {37, 22});
  b.output(b.rotary_embedding(x, cos, sin));
  Value full = b.input("full", {2, 3, 37, 22});
  b.output(b.rotary_embedding(x, full, full));
  check(g, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Grids, Kernels, testing::all_cases(), testing::param_name);

} // namespace
} // namespace tilesat::runtime
