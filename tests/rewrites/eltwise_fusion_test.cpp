// Tests of rules/eltwise-fusion.rules and the fuse-eltwise applier (seed 001's limits).
#include "rewrite_test_support.h"
#include "tilesat/graph/fused_body.h"

#include <fmt/format.h>

namespace tilesat::rewrites {
namespace {

using testing::optimize_with;
using testing::same_values;

constexpr const char* kEltwiseFusionRules = "eltwise-fusion";

REWRITE_TEST(
    EltwiseFusion, AddReluFuses, kEltwiseFusionRules,
    [](Builder& b) {
      b.output(b.relu(b.add(b.input("a", {4, 8}), b.input("b", {4, 8}))));
    },
    "add_relu")

REWRITE_TEST(
    EltwiseFusion, AddReluKeepsBroadcastDims, kEltwiseFusionRules,
    [](Builder& b) {
      b.output(b.relu(b.add(b.input("x", {4, 8}), b.weight("bias", {8}), {.broadcast_dims = {1}})));
    },
    "add_relu")

// The sum is also a result: fusing it into the relu would compute it twice.
REWRITE_TEST(
    EltwiseFusion, SharedAddIsNotFused, kEltwiseFusionRules,
    [](Builder& b) {
      Value s = b.add(b.input("a", {4, 8}), b.input("b", {4, 8}));
      b.output(s);
      b.output(b.relu(s));
    },
    "add relu")

REWRITE_TEST(
    EltwiseFusion, CoshIsOneKernel, kEltwiseFusionRules,
    [](Builder& b) {
      Value x = b.input("x", {32, 32}, DType::BF16);
      b.output(b.multiply(b.add(b.exp(x), b.exp(b.neg(x))), b.scalar(0.5)));
    },
    "fused_eltwise")

REWRITE_TEST(
    EltwiseFusion, UnaryChainIsOneKernel, kEltwiseFusionRules,
    [](Builder& b) {
      b.output(b.sigmoid(b.tanh(b.exp(b.neg(b.input("x", {4, 8}))))));
    },
    "fused_eltwise")

// exp(x) feeds two ops: seed 001 fuses only over op trees.
REWRITE_TEST(
    EltwiseFusion, NoFusionAcrossMultiUseValue, kEltwiseFusionRules,
    [](Builder& b) {
      Value e = b.exp(b.input("x", {4, 8}));
      b.output(b.neg(e));
      b.output(b.abs(e));
    },
    "exp neg abs")

std::vector<size_t> fused_input_counts(const Graph& g) {
  std::vector<size_t> out;
  for (NodeId n : g.topological_order()) {
    if (g.node(n).kind == OpKind::FusedEltwise) out.push_back(g.node(n).operands.size());
  }
  return out;
}

Graph sum_of_inputs(int n, DType dtype) {
  Graph g;
  Builder b(g);
  Value acc = b.input("a0", {4, 8}, dtype);
  for (int i = 1; i < n; ++i) acc = b.add(acc, b.input(fmt::format("a{}", i), {4, 8}, dtype));
  b.output(b.relu(acc));
  return g;
}

TEST(EltwiseFusion, WideTensorsLimitKernelsToSevenInputs) {
  Graph g = sum_of_inputs(9, DType::F32);
  Graph out = optimize_with(g, kEltwiseFusionRules);
  std::vector<size_t> counts = fused_input_counts(out);
  ASSERT_FALSE(counts.empty());
  for (size_t c : counts) EXPECT_LE(c, 7u);
  EXPECT_TRUE(same_values(g, out));
}

TEST(EltwiseFusion, NarrowTensorsFuseUpToTheBufferLimit) {
  Graph g = sum_of_inputs(9, DType::BF16);
  Graph out = optimize_with(g, kEltwiseFusionRules);
  EXPECT_EQ(fused_input_counts(out), std::vector<size_t>{9});
  EXPECT_EQ(out.num_ops(), 1u);
  EXPECT_TRUE(same_values(g, out));
}

TEST(EltwiseFusion, AtMostThirtyTwoCircularBuffers) {
  Graph g = sum_of_inputs(40, DType::BF16);
  Graph out = optimize_with(g, kEltwiseFusionRules);
  for (size_t c : fused_input_counts(out)) EXPECT_LE(c + 1, 32u);
  EXPECT_TRUE(same_values(g, out));
}

} // namespace
} // namespace tilesat::rewrites
