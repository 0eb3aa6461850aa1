// Tests of ops/take.cpp, ops/normalization.cpp and the erf and pow elementwise ops: inferred
// types, error messages and reference values computed by hand.
#include "op_test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tilesat {
namespace {

using ::testing::ElementsAre;
using namespace op_testing;
using ::testing::FloatNear;
using ::testing::Pointwise;

TEST(Take, InfersAndPicksRows) {
  Tensor table = T({3, 2}, {1, 2, 3, 4, 5, 6});
  Tensor rows = eval1({table, T({2}, {2, 0}, DType::I32)},
                      [](Builder& b, auto v) { return b.take(v[0], v[1]); });
  EXPECT_EQ(rows.shape(), (Shape{2, 2}));
  EXPECT_THAT(rows.data(), ElementsAre(5, 6, 1, 2));
  // A 2x1 index tensor along dim 1, and a negative index counting from the end.
  Tensor cols = eval1({table, T({2, 1}, {1, -2}, DType::I32)},
                      [](Builder& b, auto v) { return b.take(v[0], v[1], 1); });
  EXPECT_EQ(cols.shape(), (Shape{3, 2, 1}));
  EXPECT_THAT(cols.data(), ElementsAre(2, 1, 4, 3, 6, 5));
  // A rank-0 index drops the dim.
  Tensor one = eval1({table, T({}, {-1}, DType::I32)},
                     [](Builder& b, auto v) { return b.take(v[0], v[1]); });
  EXPECT_EQ(one.shape(), (Shape{2}));
  EXPECT_THAT(one.data(), ElementsAre(5, 6));
}

TEST(Take, Errors) {
  EXPECT_EQ(error_of([](Builder& b) {
              b.take(b.input("t", {3, 2}), b.input("i", {2}));
            }),
            "'ttir.take' %2: expected i32 indices, got f32");
  EXPECT_EQ(error_of([](Builder& b) {
              b.take(b.input("t", {3, 2}), b.input("i", {2}, DType::I32), 2);
            }),
            "'ttir.take' %2: expected 'dim' in [-2, 2), got 2");
  Graph g;
  Builder b(g);
  Value t = b.input("t", {3, 2});
  Value i = b.input("i", {1}, DType::I32);
  b.output(b.take(t, i));
  try {
    evaluate(g, std::vector<Tensor>{T({3, 2}, {1, 2, 3, 4, 5, 6}), T({1}, {3}, DType::I32)});
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("expected indices in [-3, 3), got 3"));
  }
}

TEST(LayerNorm, Values) {
  // Mean 2.5, variance 1.25: (x - 2.5) / sqrt(1.25).
  Tensor x = T({1, 4}, {1, 2, 3, 4});
  Tensor y =
      eval1({x}, [](Builder& b, auto v) { return b.layer_norm(v[0], nullptr, nullptr, -1, 0.0); });
  EXPECT_THAT(y.data(),
              Pointwise(FloatNear(1e-6), {-1.3416408f, -0.4472136f, 0.4472136f, 1.3416408f}));
  Tensor ys = eval1({x, T({4}, {1, 2, 1, 1}), T({4}, {0, 0, 0, 1})},
                    [](Builder& b, auto v) { return b.layer_norm(v[0], &v[1], &v[2], -1, 0.0); });
  EXPECT_THAT(ys.data(),
              Pointwise(FloatNear(1e-6), {-1.3416408f, -0.8944272f, 0.4472136f, 2.3416408f}));
  // axis 0 normalizes the whole 2x2 tensor at once; epsilon 1 changes the divisor.
  Tensor all = eval1({T({2, 2}, {1, 2, 3, 4})}, [](Builder& b, auto v) {
    return b.layer_norm(v[0], nullptr, nullptr, 0, 1.0);
  });
  EXPECT_THAT(all.data(), Pointwise(FloatNear(1e-6), {-1.0f, -1.0f / 3, 1.0f / 3, 1.0f}));
}

TEST(LayerNorm, AttributesAndErrors) {
  Graph g;
  Builder b(g);
  Value x = b.input("x", {2, 8});
  Value s = b.weight("s", {8});
  EXPECT_TRUE(g.node(b.layer_norm(x, &s).id).attrs.empty());
  EXPECT_EQ(g.node(b.layer_norm(x, &s, nullptr, 0, 1e-6).id).attrs.get<double>("epsilon"), 1e-6);
  EXPECT_EQ(error_of([](Builder& bb) {
              Value w = bb.weight("w", {4});
              bb.layer_norm(bb.input("x", {2, 8}), &w);
            }),
            "'ttir.layer_norm' %2: expected a scale that broadcasts to the normalized shape 8, "
            "got 4");
  EXPECT_EQ(error_of([](Builder& bb) {
              Value w = bb.weight("w", {8});
              bb.layer_norm(bb.input("x", {2, 8}), nullptr, &w);
            }),
            "'ttir.layer_norm': expected a scale when a bias is given, got none");
}

TEST(RmsNorm, Values) {
  // Mean square 7.5: x / sqrt(7.5), then times the weight.
  Tensor x = T({1, 4}, {1, 2, 3, 4});
  Tensor y = eval1({x}, [](Builder& b, auto v) { return b.rms_norm(v[0], nullptr, -1, 0.0); });
  EXPECT_THAT(y.data(),
              Pointwise(FloatNear(1e-6), {0.3651484f, 0.7302967f, 1.0954451f, 1.4605935f}));
  Tensor yw = eval1({x, T({4}, {1, 2, 0, -1})},
                    [](Builder& b, auto v) { return b.rms_norm(v[0], &v[1], -1, 0.0); });
  EXPECT_THAT(yw.data(), Pointwise(FloatNear(1e-6), {0.3651484f, 1.4605935f, 0.0f, -1.4605935f}));
  // axis 0 normalizes the whole 2x2 tensor (mean square 7.5); epsilon 0.5 makes it 8.
  Tensor all = eval1({T({2, 2}, {1, 2, 3, 4})},
                     [](Builder& b, auto v) { return b.rms_norm(v[0], nullptr, 0, 0.5); });
  EXPECT_THAT(all.data(),
              Pointwise(FloatNear(1e-6), {0.3535534f, 0.7071068f, 1.0606602f, 1.4142135f}));
}

TEST(RmsNorm, AttributesAndErrors) {
  Graph g;
  Builder b(g);
  Value x = b.input("x", {2, 8});
  Value w = b.weight("w", {8});
  const Node& n = g.node(b.rms_norm(x, &w).id);
  EXPECT_EQ(n.kind, OpKind::RmsNorm);
  EXPECT_TRUE(n.attrs.empty()); // defaults are not written
  EXPECT_EQ(g.node(b.rms_norm(x, nullptr, 0, 1e-6).id).attrs.get<double>("epsilon"), 1e-6);
  EXPECT_EQ(error_of([](Builder& bb) {
              Value v = bb.weight("w", {4});
              bb.rms_norm(bb.input("x", {2, 8}), &v);
            }),
            "'ttir.rms_norm' %2: expected a weight that broadcasts to the normalized shape 8, "
            "got 4");
  EXPECT_EQ(error_of([](Builder& bb) {
              bb.rms_norm(bb.input("x", {2, 8}), nullptr, 2);
            }),
            "'ttir.rms_norm' %1: expected 'axis' in [-2, 2), got 2");
  EXPECT_EQ(error_of([](Builder& bb) {
              bb.rms_norm(bb.input("x", {2, 8}), nullptr, -1, -1.0);
            }),
            "'ttir.rms_norm' %1: expected a non-negative 'epsilon', got -1");
}

TEST(ErfPow, Values) {
  Tensor e = eval1({T({3}, {0, 1, -0.5f})}, [](Builder& b, auto v) { return b.erf(v[0]); });
  EXPECT_THAT(e.data(), Pointwise(FloatNear(1e-6), {0.0f, 0.8427008f, -0.5204999f}));
  Tensor p = eval1({T({3}, {2, 9, 4}), T({3}, {3, 0.5f, -1})},
                   [](Builder& b, auto v) { return b.pow(v[0], v[1]); });
  EXPECT_THAT(p.data(), ElementsAre(8, 3, 0.25f));
  // A scalar exponent broadcasts; bf16 rounds 3^0.5 = 1.7320508 to 1.734375.
  Tensor r = eval1({T({2}, {3, 4}, DType::BF16)},
                   [](Builder& b, auto v) { return b.pow(v[0], b.scalar(0.5, DType::BF16)); });
  EXPECT_THAT(r.data(), ElementsAre(1.734375f, 2));
}

} // namespace
} // namespace tilesat
