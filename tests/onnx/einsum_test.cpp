// Einsum (onnx/src/einsum.cpp): products, sums, transposes, diagonals and ellipsis broadcasting
// worked by hand, the ops each becomes, and errors naming the equation's fault.
#include "test_util.h"

#include <gmock/gmock.h>

namespace tilesat::onnx::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// An Einsum of inputs x0, x1, ... with the given shapes.
OnnxModel einsum(const std::string& equation, const std::vector<std::vector<int64_t>>& shapes) {
  OnnxModel m(12);
  std::vector<std::string> names;
  for (size_t i = 0; i < shapes.size(); ++i) {
    names.push_back("x" + std::to_string(i));
    m.input(names.back(), shapes[i]);
  }
  OnnxModel::attr_s(m.node("Einsum", names, {"y"}), "equation", equation);
  m.output("y");
  return m;
}

TEST(Einsum, ProductsAreMatmulsOverTheSharedBatch) {
  // b=2 batches of [1x2] @ [2x1]^T-style products: y[b][q][k] = sum_d x0[b][q][d] x1[b][k][d].
  ImportedModel im = import(einsum("bqd,bkd->bqk", {{2, 1, 2}, {2, 3, 2}}));
  Tensor y = run(im, {{"x0", T({2, 1, 2}, {1, 2, 3, 4})},
                      {"x1", T({2, 3, 2}, {1, 0, 0, 1, 1, 1, 2, 0, 0, 2, 1, -1})}});
  EXPECT_EQ(y.shape(), Shape({2, 1, 3}));
  // batch 0: (1,2).(1,0)=1, (1,2).(0,1)=2, (1,2).(1,1)=3; batch 1: (3,4).(2,0)=6, 8, -1.
  EXPECT_THAT(y.data(), ElementsAre(1, 2, 3, 6, 8, -1));
  EXPECT_EQ(count_ops(im.graph, OpKind::Matmul), 1u);

  // Three operands, left to right: (x0 x1) x2.
  Tensor chain =
      run(import(einsum("ij,jk,kl->il", {{1, 2}, {2, 2}, {2, 1}})),
          {{"x0", T({1, 2}, {1, 2})}, {"x1", T({2, 2}, {1, 1, 0, 1})}, {"x2", T({2, 1}, {1, 10})}});
  EXPECT_THAT(chain.data(), ElementsAre(31)); // (1, 3) . (1, 10)
}

TEST(Einsum, SumsTransposesAndImplicitOutputs) {
  Tensor x = T({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_THAT(run(import(einsum("ij->j", {{2, 3}})), {{"x0", x}}).data(), ElementsAre(5, 7, 9));
  EXPECT_THAT(run(import(einsum("ij->ji", {{2, 3}})), {{"x0", x}}).data(),
              ElementsAre(1, 4, 2, 5, 3, 6));
  // Without "->" the output is the labels used once, in alphabetical order: "ba" is "ab"
  // transposed back.
  EXPECT_THAT(run(import(einsum("ba", {{2, 3}})), {{"x0", x}}).data(),
              ElementsAre(1, 4, 2, 5, 3, 6));
  Tensor dot = run(import(einsum("i,i", {{3}, {3}})),
                   {{"x0", T({3}, {1, 2, 3})}, {"x1", T({3}, {4, 5, 6})}});
  EXPECT_EQ(dot.shape().rank(), 0);
  EXPECT_THAT(dot.data(), ElementsAre(32));
}

TEST(Einsum, DiagonalsAndEllipsisBroadcasting) {
  Tensor m = T({2, 2}, {1, 2, 3, 4});
  EXPECT_THAT(run(import(einsum("ii->", {{2, 2}})), {{"x0", m}}).data(), ElementsAre(5));
  EXPECT_THAT(run(import(einsum("ii->i", {{2, 2}})), {{"x0", m}}).data(), ElementsAre(1, 4));
  // The ellipsis dim of extent 1 broadcasts against 2.
  Tensor y = run(import(einsum("...i,...i->...", {{1, 2}, {2, 2}})),
                 {{"x0", T({1, 2}, {1, 1})}, {"x1", T({2, 2}, {1, 2, 3, 4})}});
  EXPECT_THAT(y.data(), ElementsAre(3, 7));
}

TEST(Einsum, BadEquationsAreNamed) {
  EXPECT_THAT(import_error(einsum("ij,jk->ik", {{2, 3}, {4, 5}})),
              HasSubstr("the label 'j' has extent 3 in one operand and 4 in another"));
  EXPECT_THAT(import_error(einsum("ij->ik", {{2, 3}})),
              HasSubstr("the output label 'k' names no operand dim"));
  EXPECT_THAT(import_error(einsum("i1->i", {{2, 3}})), HasSubstr("unexpected character '1'"));
}

} // namespace
} // namespace tilesat::onnx::testing
