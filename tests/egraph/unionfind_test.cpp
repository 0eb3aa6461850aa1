#include "tilesat/egraph/id_vec.h"
#include "tilesat/egraph/unionfind.h"

#include <gtest/gtest.h>

namespace tilesat::egraph {

TEST(UnionFind, SingletonsAreTheirOwnRoots) {
  UnionFind uf;
  for (int i = 0; i < 5; ++i) EXPECT_EQ(uf.make_set(), static_cast<Id>(i));
  for (Id i = 0; i < 5; ++i) EXPECT_EQ(uf.find(i), i);
}

TEST(UnionFind, UnionChoosesTheGivenRootAndCompressesPaths) {
  UnionFind uf;
  for (int i = 0; i < 6; ++i) uf.make_set();
  uf.union_roots(0, 1);
  uf.union_roots(2, 3);
  uf.union_roots(0, 2);
  uf.union_roots(4, 0);
  for (Id i : {0u, 1u, 2u, 3u, 4u}) EXPECT_EQ(uf.find_mut(i), 4u);
  EXPECT_EQ(uf.find(5), 5u);
  EXPECT_FALSE(uf.is_root(3));
  EXPECT_TRUE(uf.is_root(4));
}

TEST(IdVec, InlineThenHeapThenShrink) {
  IdVec v;
  v.push_back(3);
  v.push_back(7);
  EXPECT_EQ(v.heap_bytes(), 0u);
  for (std::uint32_t i = 0; i < 100; ++i) v.push_back(i);
  ASSERT_EQ(v.size(), 102u);
  EXPECT_EQ(v[0], 3u);
  EXPECT_EQ(v[101], 99u);
  IdVec w = v; // copy
  IdVec m = std::move(v);
  EXPECT_EQ(m.size(), 102u);
  EXPECT_TRUE(v.empty());
  m.truncate(2);
  m.shrink_if_sparse();
  EXPECT_EQ(m.heap_bytes(), 0u);
  EXPECT_EQ(m[1], 7u);
  EXPECT_EQ(w[101], 99u);
}

} // namespace tilesat::egraph
