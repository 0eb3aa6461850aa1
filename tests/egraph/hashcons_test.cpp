#include "tilesat/egraph/hashcons.h"

#include <gtest/gtest.h>
#include <map>
#include <random>
#include <vector>

namespace tilesat::egraph::detail {
namespace {

/// The table against a reference map (id -> hash): every key is found, absent ones are not,
/// for_each lists exactly the entries.
void expect_same(const IdHashTable& t, const std::map<Id, std::uint32_t>& ref) {
  ASSERT_EQ(t.size(), ref.size());
  for (const auto& entry : ref) {
    const Id id = entry.first; // a plain variable: clang 14 cannot capture structured bindings
    ASSERT_EQ(t.find(entry.second, [&](Id cand) { return cand == id; }), id) << "id " << id;
  }
  std::map<Id, std::uint32_t> listed;
  t.for_each([&](std::uint32_t h, Id id) { listed.emplace(id, h); });
  EXPECT_EQ(listed, ref);
}

/// Random insertions (through find_slot + insert_at and through insert), erasures and
/// lookups of `t`, checked against a reference map.
void exercise(IdHashTable& t) {
  std::map<Id, std::uint32_t> ref;
  std::mt19937 rng(7);
  // Few distinct hashes, many equal ones (same tag, same home) and homes near the table's
  // end, so probe runs are long, wrap around, and hold entries whose hashes are equal.
  auto random_hash = [&] {
    switch (rng() % 3) {
    case 0:
      return static_cast<std::uint32_t>(rng() % 16);
    case 1:
      return static_cast<std::uint32_t>(0xfffffff0u + rng() % 16); // last slots of any size
    default:
      return static_cast<std::uint32_t>(rng());
    }
  };
  Id next = 0;
  for (int round = 0; round < 4000; ++round) {
    if (ref.empty() || rng() % 4 != 0) {
      std::uint32_t h = random_hash();
      Id id = next++;
      std::size_t slot = 0;
      ASSERT_EQ(t.find_slot(
                    h, [&](Id cand) { return cand == id; }, slot),
                kNoId);
      if (rng() % 2)
        t.insert_at(slot, h, id);
      else
        t.insert(h, id);
      ref.emplace(id, h);
    } else {
      auto it = ref.begin();
      std::advance(it, static_cast<long>(rng() % ref.size()));
      ASSERT_TRUE(t.erase(it->second, it->first));
      EXPECT_FALSE(t.erase(it->second, it->first));
      EXPECT_EQ(t.find(it->second, [&](Id cand) { return cand == it->first; }), kNoId);
      ref.erase(it);
    }
    if (round % 97 == 0) expect_same(t, ref);
  }
  expect_same(t, ref);
}

TEST(IdHashTable, FindsInsertedEntriesThroughGrowthAndErasure) {
  IdHashTable t;
  exercise(t);
}

TEST(IdHashTable, BigTablesDeferSlotWritesCorrectly) {
  // Tables past 2^18 slots write new entries' slots late (small ones at once): the same
  // checks in a table that big from the start.
  IdHashTable t;
  t.reserve(200'000);
  ASSERT_GT(t.capacity(), std::size_t{1} << 18);
  exercise(t);
  for (Id id = 100'000; id < 100'005; ++id) t.insert(42u, id);
  const IdHashTable& ct = t;
  for (Id id = 100'000; id < 100'005; ++id)
    EXPECT_EQ(ct.find(42u, [&](Id cand) { return cand == id; }), id);
}

TEST(IdHashTable, RecentInsertionsAreVisibleToConstLookups) {
  // In big tables the newest entries' slots are written late (after a prefetch); lookups
  // through the const interface must see them in any table, including entries with equal
  // hashes.
  IdHashTable t;
  for (Id id = 0; id < 5; ++id) t.insert(42u, id);
  const IdHashTable& ct = t;
  for (Id id = 0; id < 5; ++id) EXPECT_EQ(ct.find(42u, [&](Id cand) { return cand == id; }), id);
  std::size_t seen = 0;
  ct.for_each([&](std::uint32_t h, Id) { seen += h == 42u ? 1 : 0; });
  EXPECT_EQ(seen, 5u);
}

TEST(IdHashTable, BigTablesGrowFromZeroPages) {
  // Past the big-block size the tags come from fresh mappings that are not cleared.
  IdHashTable t;
  const Id n = 300'000;
  for (Id id = 0; id < n; ++id) t.insert(id * 2654435761u, id);
  EXPECT_GE(t.capacity(), n);
  for (Id id = 0; id < n; id += 997)
    EXPECT_EQ(t.find(id * 2654435761u, [&](Id cand) { return cand == id; }), id);
  EXPECT_EQ(t.find(12345u, [](Id) { return true; }), kNoId);
}

} // namespace
} // namespace tilesat::egraph::detail
