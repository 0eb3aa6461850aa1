#include "tilesat/egraph/id_vec.h"
#include "tilesat/egraph/pod_vec.h"
#include "tilesat/egraph/unionfind.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <vector>

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

TEST(UnionFind, RootsCarryAPayload) {
  UnionFind uf;
  Id a = uf.make_set(7), b = uf.make_set(9), c = uf.make_set();
  EXPECT_EQ(uf.payload(a), 7u);
  EXPECT_EQ(uf.payload(b), 9u);
  EXPECT_EQ(uf.payload(c), 0u);
  uf.union_roots(b, a); // a's payload goes with it
  EXPECT_EQ(uf.find(a), b);
  EXPECT_EQ(uf.payload(uf.find(a)), 9u);
  uf.set_payload(b, (1u << 31) - 1); // the largest payload
  EXPECT_TRUE(uf.is_root(b));
  EXPECT_EQ(uf.payload(b), (1u << 31) - 1);
  // Path halving never takes a payload for a parent.
  uf.union_roots(c, b);
  for (Id i : {a, b, c}) EXPECT_EQ(uf.find_mut(i), c);
  EXPECT_EQ(uf.find(a), c);
}

TEST(IdVec, InlineThenHeapThenShrink) {
  IdVec v;
  v.push_back(3);
  v.push_back(7);
  v.push_back(9);
  EXPECT_EQ(v.heap_bytes(), 0u); // three ids fit inline
  v.truncate(2);
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

TEST(IdVec, AbsorbMovesEveryIdAndEmptiesTheOther) {
  auto sorted = [](const IdVec& v) {
    std::vector<std::uint32_t> out(v.begin(), v.end());
    std::sort(out.begin(), out.end());
    return out;
  };
  IdVec small = IdVec::of(1), big;
  for (std::uint32_t i = 10; i < 40; ++i) big.push_back(i);
  small.absorb(big); // takes over big's block
  EXPECT_TRUE(big.empty());
  EXPECT_EQ(big.heap_bytes(), 0u);
  std::vector<std::uint32_t> want{1};
  for (std::uint32_t i = 10; i < 40; ++i) want.push_back(i);
  EXPECT_EQ(sorted(small), want);
  IdVec tiny;
  tiny.push_back(7);
  tiny.push_back(8);
  small.absorb(tiny); // copies into small's spare capacity
  want.push_back(7);
  want.push_back(8);
  std::sort(want.begin(), want.end());
  EXPECT_EQ(sorted(small), want);
  EXPECT_TRUE(tiny.empty());
  IdVec a = IdVec::of(5), b = IdVec::of(6);
  a.absorb(b); // both inline
  EXPECT_EQ(sorted(a), (std::vector<std::uint32_t>{5, 6}));
}

TEST(PodVec, GrowsPastTheBigBlockSizeKeepingItsEntries) {
  PodVec<std::uint32_t> v;
  const std::uint32_t n = 3 * (1u << 20) / sizeof(std::uint32_t); // three big blocks' worth
  for (std::uint32_t i = 0; i < n; ++i) v.push_back(i * 7);
  ASSERT_EQ(v.size(), n);
  EXPECT_GE(v.memory_bytes(), n * sizeof(std::uint32_t));
  EXPECT_EQ(v[0], 0u);
  EXPECT_EQ(v[n / 2], n / 2 * 7);
  EXPECT_EQ(v.back(), (n - 1) * 7);
  PodVec<std::uint32_t> w = std::move(v);
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(w.size(), n);
  w.resize(10);
  w.resize(12, 5);
  EXPECT_EQ(w[9], 63u);
  EXPECT_EQ(w[11], 5u);
}

TEST(PodVec, GrowsPastItsReservationKeepingItsEntries) {
  // A big block reserves 64 MiB at first; 80 MiB of entries make it move to a larger one.
  PodVec<std::uint64_t> v;
  const std::size_t n = (80u << 20) / sizeof(std::uint64_t);
  for (std::size_t i = 0; i < n; ++i) v.push_back(i * 3);
  ASSERT_EQ(v.size(), n);
  EXPECT_GE(v.capacity(), n);
  EXPECT_GE(v.memory_bytes(), n * sizeof(std::uint64_t));
  EXPECT_LT(v.memory_bytes(), n * sizeof(std::uint64_t) + (4u << 20)); // the reserve is not counted
  for (std::size_t i = 0; i < n; i += 4099) ASSERT_EQ(v[i], i * 3);
  EXPECT_EQ(v.back(), (n - 1) * 3);
}

TEST(PodVec, ReusedBigBlocksStartZeroed) {
  // A freed big block is kept for the next one, with its old contents: assign_zero must clear
  // it, and a plain resize must not rely on zero pages.
  const std::size_t n = (3u << 20) / sizeof(std::uint32_t);
  for (int round = 0; round < 3; ++round) {
    PodVec<std::uint32_t> dirty;
    dirty.resize(n, 0xdeadbeefu);
  }
  PodVec<std::uint32_t> zeros;
  zeros.assign_zero(n);
  ASSERT_EQ(zeros.size(), n);
  for (std::size_t i = 0; i < n; i += 1021) ASSERT_EQ(zeros[i], 0u);
  EXPECT_EQ(zeros.back(), 0u);
  PodVec<std::uint32_t> filled;
  filled.resize(n, 7);
  for (std::size_t i = 0; i < n; i += 1021) ASSERT_EQ(filled[i], 7u);
}

TEST(PodVec, DestroysOwningElements) {
  PodVec<IdVec> lists; // IdVec owns a heap block: ASan reports a leak if it is not freed
  for (std::uint32_t i = 0; i < 1000; ++i) {
    IdVec& l = lists.emplace_back();
    for (std::uint32_t k = 0; k <= i % 9; ++k) l.push_back(k);
  }
  EXPECT_EQ(lists[8].size(), 9u);
  EXPECT_EQ(lists[8][8], 8u);
  lists.pop_back();
  EXPECT_EQ(lists.size(), 999u);
}

} // namespace tilesat::egraph
