// Strongly connected components, operands first (cost/src/components.h), which order the
// extraction DP's classes.
#include "components.h"

#include <algorithm>
#include <gtest/gtest.h>

namespace tilesat::cost {
namespace {

TEST(Components, ACycleIsOneComponentAfterWhatItReads) {
  // 0 <-> 1 read each other and read 2; 3 reads 0.
  std::vector<uint32_t> c = components_operands_first({{1, 2}, {0}, {}, {0}});
  EXPECT_EQ(c[0], c[1]);
  EXPECT_LT(c[2], c[0]);
  EXPECT_GT(c[3], c[0]);
  EXPECT_EQ(*std::max_element(c.begin(), c.end()), 2u);
}

TEST(Components, EveryEdgeLeadsToAnEarlierComponentOrItsOwn) {
  // Cycles of three chained, each reading the one before: 3k -> 3k+1 -> 3k+2 -> 3k, and
  // 3k -> 3(k-1).
  const uint32_t n = 3 * 50;
  std::vector<std::vector<uint32_t>> reads(n);
  for (uint32_t k = 0; k < n / 3; ++k) {
    reads[3 * k] = {3 * k + 1};
    reads[3 * k + 1] = {3 * k + 2};
    reads[3 * k + 2] = {3 * k};
    if (k > 0) reads[3 * k].push_back(3 * (k - 1));
  }
  std::vector<uint32_t> c = components_operands_first(reads);
  for (uint32_t k = 0; k < n / 3; ++k) {
    EXPECT_EQ(c[3 * k], c[3 * k + 1]);
    EXPECT_EQ(c[3 * k], c[3 * k + 2]);
    EXPECT_EQ(c[3 * k], k);
  }
}

TEST(Components, ADeepChainNeedsNoRecursion) {
  // A million nodes, each reading the next: as many components, the last read first.
  const uint32_t n = 1'000'000;
  std::vector<std::vector<uint32_t>> reads(n);
  for (uint32_t i = 0; i + 1 < n; ++i) reads[i] = {i + 1};
  std::vector<uint32_t> c = components_operands_first(reads);
  EXPECT_EQ(c[n - 1], 0u);
  EXPECT_EQ(c[0], n - 1);
}

TEST(Components, EmptyGraph) {
  EXPECT_TRUE(components_operands_first({}).empty());
}

} // namespace
} // namespace tilesat::cost
