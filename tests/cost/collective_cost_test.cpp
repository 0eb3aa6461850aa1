// The collective cost model: its formulas, the groups a mesh offers, and bad input.
#include "tilesat/cost/collective_cost.h"
#include "tilesat/graph/diagnostic.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tilesat::cost {
namespace {

using ::testing::HasSubstr;

CollectiveGroup group(int64_t chips, MeshTopology t, int64_t links = 1) {
  return CollectiveGroup{.chips = chips,
                         .topology = t,
                         .links = links,
                         .link_bandwidth_gb_s = 12.5,
                         .hop_latency_us = 0.65,
                         .launch_us = 7.5};
}

constexpr Collective kAll[] = {Collective::AllGather, Collective::ReduceScatter,
                               Collective::AllReduce};

TEST(CollectiveCost, OneChipMovesNothing) {
  for (Collective c : kAll) {
    CollectiveEstimate e = collective_cost(c, 1 << 20, group(1, MeshTopology::Line));
    EXPECT_EQ(e.us, 0) << collective_name(c);
    EXPECT_EQ(e.transfer_us, 0);
    EXPECT_EQ(e.link_bytes, 0);
    EXPECT_EQ(e.steps, 0);
  }
}

TEST(CollectiveCost, RingAllGatherFormula) {
  // 8 chips, 8 MB gathered: each link direction carries 7/8 * 8e6 / 2 = 3.5e6 bytes at
  // 12.5 GB/s = 280 us, after 7 hops of 0.65 us and a 7.5 us launch.
  CollectiveEstimate e = collective_cost(Collective::AllGather, 8e6, group(8, MeshTopology::Ring));
  EXPECT_DOUBLE_EQ(e.link_bytes, 3.5e6);
  EXPECT_DOUBLE_EQ(e.transfer_us, 280);
  EXPECT_DOUBLE_EQ(e.latency_us, 7 * 0.65);
  EXPECT_DOUBLE_EQ(e.us, 280 + 7 * 0.65 + 7.5);
  EXPECT_EQ(e.steps, 7);
  EXPECT_EQ(e.dominant, "transfer");
  EXPECT_THAT(e.detail, HasSubstr("all_gather ring of 8 chips"));
}

TEST(CollectiveCost, LineCarriesTwiceTheRingsBytes) {
  for (Collective c : kAll) {
    CollectiveEstimate ring = collective_cost(c, 64e6, group(8, MeshTopology::Ring));
    CollectiveEstimate line = collective_cost(c, 64e6, group(8, MeshTopology::Line));
    EXPECT_DOUBLE_EQ(line.transfer_us, 2 * ring.transfer_us) << collective_name(c);
    EXPECT_LT(ring.us, line.us) << collective_name(c);
  }
}

TEST(CollectiveCost, RingBeatsLineMoreForMoreChips) {
  // The gap (line - ring) grows with the number of chips for a fixed tensor.
  double prev_gap = 0;
  for (int64_t n : {3, 4, 8, 16, 32}) {
    double ring = collective_cost(Collective::AllGather, 32e6, group(n, MeshTopology::Ring)).us;
    double line = collective_cost(Collective::AllGather, 32e6, group(n, MeshTopology::Line)).us;
    EXPECT_GT(line - ring, prev_gap) << n;
    prev_gap = line - ring;
  }
}

TEST(CollectiveCost, AllReduceIsReduceScatterThenAllGather) {
  for (MeshTopology t : {MeshTopology::Line, MeshTopology::Ring}) {
    for (int64_t n : {3, 4, 8}) {
      for (double bytes : {0.0, 2048.0, 1e6, 1e9}) {
        CollectiveGroup g = group(n, t, 2);
        CollectiveEstimate ar = collective_cost(Collective::AllReduce, bytes, g);
        CollectiveEstimate rs = collective_cost(Collective::ReduceScatter, bytes, g);
        CollectiveEstimate ag = collective_cost(Collective::AllGather, bytes, g);
        EXPECT_DOUBLE_EQ(ar.us, rs.us + ag.us);
        EXPECT_DOUBLE_EQ(ar.launch_us, 2 * g.launch_us);
        EXPECT_EQ(ar.steps, 2 * (n - 1));
      }
    }
  }
}

TEST(CollectiveCost, MoreLinksMoveBytesFaster) {
  CollectiveEstimate one =
      collective_cost(Collective::AllGather, 1e7, group(4, MeshTopology::Line, 1));
  CollectiveEstimate three =
      collective_cost(Collective::AllGather, 1e7, group(4, MeshTopology::Line, 3));
  EXPECT_DOUBLE_EQ(one.transfer_us, 3 * three.transfer_us);
  EXPECT_DOUBLE_EQ(one.latency_us, three.latency_us);
}

TEST(CollectiveCost, SmallMessagesAreLaunchAndLatency) {
  CollectiveEstimate e = collective_cost(Collective::AllGather, 2048, group(4, MeshTopology::Line));
  EXPECT_EQ(e.dominant, "launch");
  EXPECT_LT(e.transfer_us, 1);
}

TEST(CollectiveCost, BadInput) {
  EXPECT_THAT(
      [] { collective_cost(Collective::AllGather, -1, group(2, MeshTopology::Line)); },
      ::testing::ThrowsMessage<Error>(HasSubstr("all_gather: expected a size of zero or more")));
  CollectiveGroup no_links = group(2, MeshTopology::Line, 0);
  EXPECT_THAT([&] { collective_cost(Collective::ReduceScatter, 1, no_links); },
              ::testing::ThrowsMessage<Error>(HasSubstr("expected at least one link")));
  EXPECT_EQ(parse_collective("all_reduce"), Collective::AllReduce);
  EXPECT_THAT([] { parse_collective("all_scatter"); },
              ::testing::ThrowsMessage<Error>(HasSubstr("unknown collective 'all_scatter'")));
}

TEST(CollectiveGroups, FromMeshDescriptors) {
  Device t3k = load_device("t3k");
  CollectiveGroup all = all_chips_group(t3k);
  EXPECT_EQ(all.chips, 8);
  EXPECT_EQ(all.topology, MeshTopology::Ring);
  EXPECT_EQ(all.links, 1);
  EXPECT_EQ(all.launch_us, t3k.launch_us);
  CollectiveGroup row = axis_group(t3k, 1);
  EXPECT_EQ(row.chips, 4);
  EXPECT_EQ(row.topology, MeshTopology::Line);

  Device galaxy = load_device("galaxy");
  EXPECT_EQ(axis_group(galaxy, 0).chips, 8);
  EXPECT_EQ(axis_group(galaxy, 0).links, 4);
  EXPECT_EQ(axis_group(galaxy, 1, 2).links, 2);
  EXPECT_THAT([&] { axis_group(galaxy, 1, 4); },
              ::testing::ThrowsMessage<Error>(HasSubstr("4 links asked for, the mesh has 3")));
  EXPECT_THAT([&] { all_chips_group(galaxy); },
              ::testing::ThrowsMessage<Error>(HasSubstr("no ring through every chip")));
  EXPECT_THAT([&] { axis_group(galaxy, 2); },
              ::testing::ThrowsMessage<Error>(HasSubstr("mesh axis 2")));

  CollectiveGroup n300 = all_chips_group(load_device("n300"));
  EXPECT_EQ(n300.chips, 2);
  EXPECT_EQ(n300.topology, MeshTopology::Line);

  Device one = load_device("wormhole_b0");
  EXPECT_EQ(axis_group(one, 0).chips, 1);
  EXPECT_EQ(collective_cost(Collective::AllReduce, 1e6, all_chips_group(one)).us, 0);
}

} // namespace
} // namespace tilesat::cost
