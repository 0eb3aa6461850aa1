// compute_in: a graph computed in bf16 or bfp8_b keeps its signature and rounds every value.
#include "tilesat/graph/builder.h"
#include "tilesat/graph/compute_dtype.h"
#include "tilesat/graph/diagnostic.h"
#include "tilesat/graph/interpreter.h"

#include <gmock/gmock.h>

namespace tilesat {
namespace {

Graph scaled_layer() {
  Graph g("layer");
  Builder b(g);
  Value x = b.input("x", {4, 8});
  Value w = b.weight("w", {8, 3});
  b.output(b.multiply(b.matmul(x, w), b.constant({1}, {0.1})));
  return g;
}

size_t count(const Graph& g, OpKind kind) {
  size_t n = 0;
  for (NodeId id : g.topological_order()) n += g.node(id).kind == kind ? 1 : 0;
  return n;
}

TEST(ComputeIn, KeepsTheSignatureAndComputesInTheDtype) {
  Graph g = scaled_layer();
  Graph bf = compute_in(g, DType::BF16);
  ASSERT_EQ(bf.arguments().size(), 2u);
  EXPECT_EQ(bf.node(bf.arguments()[1]).role, ArgRole::Weight);
  EXPECT_EQ(bf.node(bf.arguments()[0]).type.dtype, DType::F32);
  EXPECT_EQ(bf.node(bf.results()[0].value).type.dtype, DType::F32);
  // x and w on entry, the result on exit; the constant is made in bf16 itself.
  EXPECT_EQ(count(bf, OpKind::Typecast), 3u);
  for (NodeId n : bf.topological_order()) {
    if (bf.node(n).kind == OpKind::Matmul || bf.node(n).kind == OpKind::Constant) {
      EXPECT_EQ(bf.node(n).type.dtype, DType::BF16);
    }
  }
  std::vector<Tensor> args = random_arguments(g, 5);
  Tensor want = evaluate(g, args)[0], got = evaluate(bf, args)[0];
  double worst = 0;
  for (int64_t i = 0; i < want.numel(); ++i)
    worst = std::max(worst, std::abs(double(got[i]) - double(want[i])) /
                                std::max(1.0, std::abs(double(want[i]))));
  EXPECT_GT(worst, 0);    // rounded
  EXPECT_LT(worst, 0.05); // but close
  EXPECT_EQ(compute_in(g, DType::F32).num_nodes(), g.num_nodes());
  EXPECT_THROW(compute_in(g, DType::I32), Error);
}

} // namespace
} // namespace tilesat
