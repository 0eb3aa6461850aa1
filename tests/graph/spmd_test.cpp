// Tests of spmd.cpp: mesh coordinates and groups, and the block moves of the multi-chip ops
// on tensors whose values are written out by hand.
#include "tilesat/graph/spmd.h"

#include <gtest/gtest.h>

namespace tilesat {
namespace {

using IntList = std::vector<int64_t>;

Tensor T(Shape s, std::vector<float> v) {
  return Tensor(TensorType{DType::F32, std::move(s)}, std::move(v));
}

MeshShardSpec devices(IntList shape, std::array<int64_t, 2> dims) {
  MeshShardSpec s;
  s.type = ShardType::Devices;
  s.shard_shape = std::move(shape);
  s.shard_dims = dims;
  return s;
}

TEST(Spmd, CoordinatesAndGroups) {
  MeshShape mesh{2, 4};
  EXPECT_EQ(mesh_coord(mesh, 5, 0), 1);
  EXPECT_EQ(mesh_coord(mesh, 5, 1), 1);
  EXPECT_EQ(cluster_group(mesh, 5, 1), (IntList{4, 5, 6, 7}));
  EXPECT_EQ(cluster_group(mesh, 5, 0), (IntList{1, 5}));
  EXPECT_EQ(mesh_shape_str(mesh), "2x4");
}

TEST(Spmd, ShardsAndReassembly) {
  // 4x2 tensor, rows split over mesh axis 0 (2 chips), columns over axis 1 (2 chips).
  Tensor full = T({4, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  MeshShape mesh{2, 2};
  MeshShardSpec s = devices({2, 2}, {0, 1});
  EXPECT_EQ(take_shard(full, s, mesh, 0).data(), (std::vector<float>{0, 2}));
  EXPECT_EQ(take_shard(full, s, mesh, 1).data(), (std::vector<float>{1, 3}));
  EXPECT_EQ(take_shard(full, s, mesh, 2).data(), (std::vector<float>{4, 6}));
  EXPECT_EQ(take_shard(full, s, mesh, 3).shape(), Shape({2, 1}));
  std::vector<Tensor> shards;
  for (int64_t c = 0; c < 4; ++c) shards.push_back(take_shard(full, s, mesh, c));
  std::vector<const Tensor*> ptrs;
  for (const Tensor& t : shards) ptrs.push_back(&t);
  EXPECT_EQ(assemble_shards(ptrs, s, mesh).data(), full.data());

  // Rows split over axis 1 only: chips of row 1 hold copies, chip 0 and 1's blocks are used.
  MeshShardSpec rows = devices({2, 1}, {-1, 0});
  EXPECT_EQ(take_shard(full, rows, mesh, 3).data(), (std::vector<float>{4, 5, 6, 7}));
  Tensor junk = T({2, 2}, {9, 9, 9, 9});
  Tensor a = take_shard(full, rows, mesh, 0), b = take_shard(full, rows, mesh, 1);
  std::vector<const Tensor*> mixed{&a, &b, &junk, &junk};
  EXPECT_EQ(assemble_shards(mixed, rows, mesh).data(), full.data());

  MeshShardSpec rep;
  rep.shard_shape = {1, 1};
  EXPECT_EQ(take_shard(full, rep, mesh, 3).data(), full.data());
  std::vector<const Tensor*> reps{&full, &junk, &junk, &junk};
  EXPECT_EQ(assemble_shards(reps, rep, mesh).data(), full.data());
}

TEST(Spmd, ShardMustFitTheMesh) {
  try {
    check_shard_fits(devices({8, 1}, {-1, 0}), {2, 4});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostic().message,
              "expected shard_shape[0] = 4 (the chips along mesh axis 1 of a 2x4 mesh), got 8");
  }
  EXPECT_NO_THROW(check_shard_fits(devices({4, 1}, {-1, 0}), {2, 4}));
}

TEST(Spmd, GatherReduceScatter) {
  Tensor a = T({1, 2}, {1, 2}), b = T({1, 2}, {3, 4});
  std::vector<const Tensor*> group{&a, &b};
  EXPECT_EQ(gather_group(group, 0).data(), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(gather_group(group, 1).data(), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(gather_group(group, 1).shape(), Shape({1, 4}));
  EXPECT_EQ(reduce_group(group).data(), (std::vector<float>{4, 6}));
  Tensor x = T({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7});
  EXPECT_EQ(scatter_piece(x, 1, 1, 2).data(), (std::vector<float>{2, 3, 6, 7}));
  EXPECT_EQ(scatter_piece(x, 0, 1, 2).data(), (std::vector<float>{4, 5, 6, 7}));
  // bf16: the sum rounds once, after accumulating in double.
  Tensor c(TensorType{DType::BF16, Shape({1})}, {1.0f}),
      d(TensorType{DType::BF16, Shape({1})}, {0.00390625f});
  std::vector<const Tensor*> bf{&c, &d};
  EXPECT_EQ(reduce_group(bf).data(), (std::vector<float>{1.0f}));
}

} // namespace
} // namespace tilesat
