// fold_repeat_interleave: torch's exported repeat_interleave (a slice, reshape, broadcast and
// reshape per index, then a concat) becomes one reshape -> broadcast -> reshape of the whole
// tensor, computing the same values; concats of other pieces stay as they are.
#include "rewrite_test_support.h"
#include "tilesat/graph/builder.h"
#include "tilesat/graph/interpreter.h"
#include "tilesat/rewrites/repeat_interleave.h"

#include <gtest/gtest.h>

namespace tilesat::rewrites::testing {
namespace {

// x.repeat_interleave(times, dim) as torch 1.13 exports it, for x of shape `shape`; `order`
// permutes the pieces (the identity gives repeat_interleave).
Value exported_repeat(Builder& b, Value x, int64_t dim, int64_t times,
                      const std::vector<int64_t>& order) {
  std::vector<int64_t> s = b.type(x).shape.dims();
  std::vector<Value> pieces;
  for (int64_t i : order) {
    std::vector<int64_t> begins(s.size(), 0), ends = s;
    begins[static_cast<size_t>(dim)] = i;
    ends[static_cast<size_t>(dim)] = i + 1;
    Value piece = b.slice(x, begins, ends);
    std::vector<int64_t> inserted = b.type(piece).shape.dims();
    inserted.insert(inserted.begin() + dim + 1, 1);
    Value r = b.reshape(piece, inserted);
    std::vector<int64_t> repeated = inserted;
    repeated[static_cast<size_t>(dim + 1)] = times;
    Value bc = b.broadcast(r, Shape(repeated));
    std::vector<int64_t> merged = b.type(piece).shape.dims();
    merged[static_cast<size_t>(dim)] = times;
    pieces.push_back(b.reshape(bc, merged));
  }
  return b.concat(pieces, dim);
}

TEST(RepeatInterleave, ExportedChainsFoldToOneBroadcast) {
  Graph bg("gqa");
  Builder b(bg);
  Value k = b.input("k", {1, 4, 6, 8});
  Value q = b.input("q", {1, 8, 6, 8});
  Value kk = exported_repeat(b, k, 1, 2, {0, 1, 2, 3});
  b.output(b.matmul(q, kk, {.transpose_b = true}));
  const Graph& g = bg;
  Graph folded = fold_repeat_interleave(g);
  EXPECT_NE(op_list(g).find("concat"), std::string::npos);
  EXPECT_EQ(op_list(folded), "reshape broadcast reshape matmul");
  EXPECT_TRUE(same_values(g, folded, 0.0));
}

TEST(RepeatInterleave, LastDim) {
  Graph bg("last");
  Builder b(bg);
  Value x = b.input("x", {3, 5});
  Value kk = exported_repeat(b, x, 1, 3, {0, 1, 2, 3, 4});
  b.output(b.relu(kk));
  Graph folded = fold_repeat_interleave(bg);
  EXPECT_EQ(op_list(folded), "reshape broadcast reshape relu");
  EXPECT_TRUE(same_values(bg, folded, 0.0));
}

TEST(RepeatInterleave, OtherConcatsStay) {
  // Pieces out of order: a permutation of the heads, not repeat_interleave.
  Graph bg("shuffled");
  Builder b(bg);
  Value x = b.input("x", {1, 3, 2, 2});
  b.output(exported_repeat(b, x, 1, 2, {0, 2, 1}));
  EXPECT_EQ(op_list(fold_repeat_interleave(bg)), op_list(bg));
  // Two repeats joined: each folds, the concat joining them stays.
  Graph cg("two");
  Builder c(cg);
  Value y = c.input("y", {1, 2, 2});
  Value z = c.input("z", {1, 2, 2});
  c.output(c.concat({exported_repeat(c, y, 1, 2, {0, 1}), exported_repeat(c, z, 1, 2, {0, 1})}, 1));
  Graph folded = fold_repeat_interleave(cg);
  EXPECT_EQ(op_list(folded), "reshape broadcast reshape reshape broadcast reshape concat");
  EXPECT_TRUE(same_values(cg, folded, 0.0));
}

} // namespace
} // namespace tilesat::rewrites::testing
