// Every kernel against the reference interpreter, on shapes that are not whole tiles, on
// several core grids and placements.
#include "test_plans.h"
#include "tilesat/lowering/lower.h"
#include "tilesat/runtime/run.h"

namespace tilesat::runtime {
namespace {

using tilesat::testing::expect_close;
using tilesat::testing::plan_for;
using tilesat::testing::PlanSpec;

enum class Where { TileL1, RowMajorDram, TileDram, BlockSharded };

struct Case {
  cost::CoreGrid grid;
  Where where;
};

std::string case_name(const Case& c) {
  const char* w[] = {"tile_l1", "row_major_dram", "tile_dram", "block_sharded"};
  return std::to_string(c.grid.rows) + "x" + std::to_string(c.grid.cols) + "_" +
         w[static_cast<int>(c.where)];
}

PlanSpec spec_for(const Case& c) {
  PlanSpec s;
  s.grid = c.grid;
  s.place = [c](const TensorType& t) {
    switch (c.where) {
    case Where::RowMajorDram:
      return tilesat::testing::host_placement();
    case Where::TileDram:
      return cost::Placement{cost::Layout::Tile,
                             cost::BufferType::DRAM,
                             cost::MemoryLayout::Interleaved,
                             {1, 1},
                             {0, 0}};
    case Where::BlockSharded:
      return tilesat::testing::block_sharded(t, c.grid);
    default:
      return cost::Placement{cost::Layout::Tile,
                             cost::BufferType::L1,
                             cost::MemoryLayout::Interleaved,
                             {1, 1},
                             {0, 0}};
    }
  };
  return s;
}

// Lowers `g` for the case, runs it on random inputs and compares with the interpreter.
void check(const Graph& g, const Case& c, double tol = 1e-5, uint64_t seed = 1) {
  std::vector<uint8_t> bytes =
      lowering::lower_plan(plan_for(g, spec_for(c)), tilesat::testing::test_device(8, 8, 4u << 20));
  Program p = Program::parse(std::move(bytes), "test");
  std::vector<Tensor> args = random_arguments(g, seed);
  // Keep log/sqrt/rsqrt/reciprocal/pow on positive inputs.
  for (Tensor& t : args)
    for (float& x : t.data()) x = x + 1.5f;
  std::vector<Tensor> ref = evaluate(g, args);
  Runner r(p, 2);
  RunResult got = r.run(args);
  ASSERT_EQ(got.outputs.size(), ref.size());
  for (size_t i = 0; i < ref.size(); ++i)
    expect_close(got.outputs[i], ref[i], tol, case_name(c) + " result " + std::to_string(i));
}

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

INSTANTIATE_TEST_SUITE_P(
    Grids, Kernels,
    ::testing::Values(Case{{1, 1}, Where::TileL1}, Case{{1, 2}, Where::TileL1},
                      Case{{2, 3}, Where::TileL1}, Case{{8, 8}, Where::TileL1},
                      Case{{2, 2}, Where::RowMajorDram}, Case{{1, 3}, Where::TileDram},
                      Case{{2, 2}, Where::BlockSharded}, Case{{3, 1}, Where::BlockSharded}),
    [](const ::testing::TestParamInfo<Case>& i) { return case_name(i.param); });

} // namespace
} // namespace tilesat::runtime
