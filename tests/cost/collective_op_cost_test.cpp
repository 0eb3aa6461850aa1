// The cost model's prices of the multi-chip ops: collectives as collective_cost.h prices them
// over the device mesh's axis, mesh_shard as the host transfer of one chip's shard, and the
// errors for a graph partitioned for another mesh.
#include "tilesat/cost/collective_cost.h"
#include "tilesat/cost/op_cost.h"
#include "tilesat/cost/placement.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tilesat::cost {
namespace {

TensorType bf16(std::initializer_list<int64_t> dims) {
  return TensorType{DType::BF16, Shape(dims)};
}
Placement dram() {
  return dram_tile_placement();
}
Attrs axis_attrs(int64_t axis, std::optional<int64_t> size = std::nullopt) {
  Attrs a;
  a.set("cluster_axis", axis);
  a.set("reduce_type", std::string("sum"));
  if (size) a.set("cluster_size", *size);
  return a;
}

TEST(CollectiveOpCost, CollectivesPricedOverTheMeshAxis) {
  Device t3k = load_device("t3k"); // 2x4
  CostModel m(t3k);
  TensorType x = bf16({1024, 1024});
  std::vector<TensorUse> in{{x, dram()}};
  OpEstimate ar = m.op(OpKind::AllReduce, axis_attrs(1), in, {x, dram()});
  CollectiveEstimate want =
      collective_cost(Collective::AllReduce, 1024.0 * 1024 * 2, axis_group(t3k, 1));
  EXPECT_DOUBLE_EQ(ar.us, want.us);
  EXPECT_EQ(ar.cost.dominant, "ethernet");
  EXPECT_THAT(ar.cost.detail, ::testing::HasSubstr("all_reduce over 4 chips (mesh axis 1)"));
  // all_gather counts the gathered tensor: 2 chips along axis 0 gather 512 rows into 1024.
  Attrs g = axis_attrs(0, 2);
  g.set("all_gather_dim", int64_t{0});
  std::vector<TensorUse> half{{bf16({512, 1024}), dram()}};
  OpEstimate ag = m.op(OpKind::AllGather, g, half, {x, dram()});
  EXPECT_DOUBLE_EQ(
      ag.us, collective_cost(Collective::AllGather, 1024.0 * 1024 * 2, axis_group(t3k, 0)).us);
  // One chip moves nothing; a group size that is not the mesh's is an error.
  CostModel one(load_device("wormhole_b0"));
  EXPECT_DOUBLE_EQ(one.op(OpKind::AllReduce, axis_attrs(1), in, {x, dram()}).us, 0.0);
  Attrs eight = axis_attrs(1, 8);
  eight.set("all_gather_dim", int64_t{0});
  try {
    m.op(OpKind::AllGather, eight, in, {bf16({8192, 1024}), dram()});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostic().message,
              "'all_gather' over 8 chips (cluster_size), but device 't3k' has 4 along mesh axis 1");
  }
}

TEST(CollectiveOpCost, MeshShardMovesOneShard) {
  CostModel m(load_device("t3k"));
  Attrs a;
  a.set("shard_type", std::string("devices"));
  a.set("shard_direction", std::string("full_to_shard"));
  a.set("shard_shape", std::vector<int64_t>{4, 1});
  a.set("shard_dims", std::vector<int64_t>{-1, 0});
  TensorType full = bf16({4096, 1024}), shard = bf16({1024, 1024});
  std::vector<TensorUse> in{{full, dram()}}, in_shard{{shard, dram()}};
  OpEstimate e = m.op(OpKind::MeshShard, a, in, {shard, dram()});
  // The same as copying one shard.
  OpEstimate copy = m.op(OpKind::Typecast, {}, in_shard, {shard, dram()});
  EXPECT_DOUBLE_EQ(e.us, copy.us);
  EXPECT_THAT(e.cost.detail, ::testing::HasSubstr("host transfer of one chip's shard"));
  a.set("shard_shape", std::vector<int64_t>{8, 1});
  try {
    m.op(OpKind::MeshShard, a, in, {bf16({512, 1024}), dram()});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostic().message,
              "'mesh_shard' on device 't3k': expected shard_shape[0] = 4 (the chips along mesh "
              "axis 1 of a 2x4 mesh), got 8");
  }
}

} // namespace
} // namespace tilesat::cost
