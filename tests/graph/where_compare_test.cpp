// Tests of ops/select.cpp (where) and the comparison ops eq, lt and gt: inferred types, error
// messages and reference values written out by hand.
#include "op_test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tilesat {
namespace {

using ::testing::ElementsAre;
using namespace op_testing;

TEST(Compare, ValuesWithBroadcasting) {
  Tensor a = T({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = T({3}, {2, 2, 7});
  Tensor eq = eval1({a, b}, [](Builder& bb, auto v) { return bb.equal(v[0], v[1]); });
  EXPECT_EQ(eq.shape(), (Shape{2, 3}));
  EXPECT_THAT(eq.data(), ElementsAre(0, 1, 0, 0, 0, 0));
  Tensor lt = eval1({a, b}, [](Builder& bb, auto v) { return bb.less(v[0], v[1]); });
  EXPECT_THAT(lt.data(), ElementsAre(1, 0, 1, 0, 0, 1));
  Tensor gt = eval1({a, b}, [](Builder& bb, auto v) { return bb.greater(v[0], v[1]); });
  EXPECT_THAT(gt.data(), ElementsAre(0, 0, 0, 1, 1, 0));
  // The result keeps the operand dtype: i32 in, i32 out.
  Tensor ieq = eval1({T({2}, {3, -1}, DType::I32), T({}, {3}, DType::I32)},
                     [](Builder& bb, auto v) { return bb.equal(v[0], v[1]); });
  EXPECT_EQ(ieq.dtype(), DType::I32);
  EXPECT_THAT(ieq.data(), ElementsAre(1, 0));
}

TEST(Compare, Traits) {
  // Equality is symmetric; the orderings are not. All three may join fused elementwise kernels.
  EXPECT_TRUE(op_info(OpKind::Equal).has_trait(OpTrait::Commutative));
  EXPECT_FALSE(op_info(OpKind::Less).has_trait(OpTrait::Commutative));
  EXPECT_TRUE(op_info(OpKind::Greater).has_trait(OpTrait::ElementwiseBinary));
  EXPECT_EQ(op_name(OpKind::Where), "where");
  EXPECT_EQ(op_by_name("lt"), OpKind::Less);
}

TEST(Compare, Errors) {
  EXPECT_EQ(error_of([](Builder& b) {
              b.less(b.input("a", {2, 3}), b.input("b", {4}));
            }),
            "'ttir.lt' %2: expected broadcastable shapes, got 2x3 and 4");
  EXPECT_EQ(
      error_of([](Builder& b) { b.greater(b.input("a", {2}), b.input("b", {2}, DType::BF16)); }),
      "'ttir.gt' %2: expected operand dtypes to match, got f32 and bf16");
}

TEST(Where, SelectsWithBroadcasting) {
  // A causal mask [2, 2] picks between scores [1, 2, 2] and a scalar fill.
  Tensor cond = T({2, 2}, {1, 0, 1, 1});
  Tensor scores = T({1, 2, 2}, {10, 20, 30, 40});
  Tensor fill = T({}, {-100});
  Tensor r =
      eval1({cond, scores, fill}, [](Builder& b, auto v) { return b.where(v[0], v[1], v[2]); });
  EXPECT_EQ(r.shape(), (Shape{1, 2, 2}));
  EXPECT_THAT(r.data(), ElementsAre(10, -100, 30, 40));
  // Any nonzero value selects a, including negative ones; an i32 condition works.
  Tensor r2 = eval1({T({3}, {-2, 0, 5}, DType::I32), T({3}, {1, 2, 3}), T({3, 1}, {7, 8, 9})},
                    [](Builder& b, auto v) { return b.where(v[0], v[1], v[2]); });
  EXPECT_EQ(r2.shape(), (Shape{3, 3}));
  EXPECT_THAT(r2.data(), ElementsAre(1, 7, 3, 1, 8, 3, 1, 9, 3));
}

TEST(Where, Errors) {
  EXPECT_EQ(error_of([](Builder& b) {
              b.where(b.input("c", {2}), b.input("a", {2}), b.input("b", {2}, DType::BF16));
            }),
            "'ttir.where' %3: expected operand dtypes to match, got f32 and bf16");
  EXPECT_EQ(error_of([](Builder& b) {
              b.where(b.input("c", {3}), b.input("a", {2}), b.input("b", {2}));
            }),
            "'ttir.where' %3: expected broadcastable shapes, got 3, 2 and 2");
  EXPECT_EQ(error_of([](Builder& b) {
              b.op(OpKind::Where, {b.input("c", {2}), b.input("a", {2})});
            }),
            "'ttir.where' %2: expected 3 operands, got 2");
}

} // namespace
} // namespace tilesat
