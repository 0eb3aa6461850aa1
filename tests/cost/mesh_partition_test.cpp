// The mesh partition DP: Megatron's column-then-row split with one all_reduce, a CNN split by
// batch, one chip unchanged, and the `mesh` rule lines it reads.
#include "tilesat/cost/device.h"
#include "tilesat/cost/mesh_dims.h"
#include "tilesat/cost/mesh_partition.h"
#include "tilesat/graph/conv_attrs.h"
#include "tilesat/graph/diagnostic.h"
#include "tilesat/rewrites/rule_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tilesat::cost {
namespace {

using ::testing::HasSubstr;
using DK = Distribution::Kind;

struct Mlp {
  Graph g;
  NodeId x, w1, h, a, w2, y, w3, w4, z;
};

// Two MLP blocks, gelu(x @ w) @ w', with weights far larger than the activations (an LLM's
// MLP at a short sequence).
Mlp megatron_mlp() {
  Mlp m;
  m.x = m.g.add_argument("x", {DType::BF16, Shape{32, 2048}});
  m.w1 = m.g.add_argument("w1", {DType::BF16, Shape{2048, 8192}}, ArgRole::Weight);
  m.w2 = m.g.add_argument("w2", {DType::BF16, Shape{8192, 2048}}, ArgRole::Weight);
  m.w3 = m.g.add_argument("w3", {DType::BF16, Shape{2048, 8192}}, ArgRole::Weight);
  m.w4 = m.g.add_argument("w4", {DType::BF16, Shape{8192, 2048}}, ArgRole::Weight);
  m.h = m.g.add_op(OpKind::Matmul, {m.x, m.w1});
  m.a = m.g.add_op(OpKind::Gelu, {m.h});
  m.y = m.g.add_op(OpKind::Matmul, {m.a, m.w2});
  NodeId h2 = m.g.add_op(OpKind::Matmul, {m.y, m.w3});
  NodeId a2 = m.g.add_op(OpKind::Gelu, {h2});
  m.z = m.g.add_op(OpKind::Matmul, {a2, m.w4});
  m.g.add_result(m.z);
  return m;
}

TEST(MeshPartition, MegatronMlpSplitsColumnsThenRowsWithOneAllReduce) {
  Mlp m = megatron_mlp();
  MeshPartition p = partition_for_mesh(m.g, CostModel(load_device("t3k")), *MeshChoice::shipped());
  ASSERT_EQ(p.groups.size(), 1u);
  EXPECT_EQ(p.groups[0].chips, 8);
  EXPECT_EQ(p.dist[m.x], Distribution{});
  EXPECT_EQ(p.dist[m.w1], (Distribution{DK::Sharded, 1, 0}));
  EXPECT_EQ(p.dist[m.h], (Distribution{DK::Sharded, 1, 0}));
  EXPECT_EQ(p.rule[m.h], "matmul-split");
  EXPECT_EQ(p.dist[m.a], (Distribution{DK::Sharded, 1, 0}));
  EXPECT_EQ(p.dist[m.w2], (Distribution{DK::Sharded, 0, 0}));
  EXPECT_EQ(p.dist[m.y], (Distribution{DK::Partial, 0, 0}));
  EXPECT_EQ(p.rule[m.y], "matmul-k-split");
  EXPECT_EQ(p.dist[m.w3], (Distribution{DK::Sharded, 1, 0}));
  EXPECT_EQ(p.dist[m.z], (Distribution{DK::Partial, 0, 0}));
  // One all_reduce between the blocks; the last block's sums are reduced and scattered, and
  // the host joins the blocks.
  ASSERT_EQ(p.conversions.size(), 2u);
  EXPECT_EQ(p.conversions[0].op, Collective::AllReduce);
  EXPECT_EQ(p.conversions[0].value, m.y);
  EXPECT_EQ(p.conversions[0].to, Distribution{});
  EXPECT_GT(p.conversions[0].us, 0);
  EXPECT_DOUBLE_EQ(p.conversions[0].bytes, 32.0 * 2048 * 2);
  EXPECT_EQ(p.conversions[1].op, Collective::ReduceScatter);
  EXPECT_EQ(p.conversions[1].value, m.z);
  EXPECT_EQ(distribution_str(p.dist[m.w2], p.groups), "shard(dim=0, axis=1, chips=8)");
  EXPECT_EQ(distribution_str(p.dist[m.y], p.groups), "partial(axis=1, chips=8)");
}

TEST(MeshPartition, CnnSplitsTheBatch) {
  Graph g;
  NodeId x = g.add_argument("x", {DType::BF16, Shape{16, 32, 32, 64}});
  NodeId w = g.add_argument("w", {DType::BF16, Shape{64, 64, 3, 3}}, ArgRole::Weight);
  Attrs a;
  a.set("padding", std::vector<int64_t>{1, 1, 1, 1});
  NodeId c = g.add_op(OpKind::Conv2d, {x, w}, a);
  NodeId r = g.add_op(OpKind::Relu, {c});
  g.add_result(r);
  for (const char* device : {"n300", "t3k"}) {
    MeshPartition p = partition_for_mesh(g, CostModel(load_device(device)), *MeshChoice::shipped());
    EXPECT_EQ(p.dist[x], (Distribution{DK::Sharded, 0, 0})) << device;
    EXPECT_EQ(p.dist[w], Distribution{}) << device;
    EXPECT_EQ(p.dist[c], (Distribution{DK::Sharded, 0, 0})) << device;
    EXPECT_EQ(p.dist[r], (Distribution{DK::Sharded, 0, 0})) << device;
    EXPECT_EQ(p.rule[c], "conv-split") << device;
    EXPECT_TRUE(p.conversions.empty()) << device;
  }
}

TEST(MeshPartition, OneChipReplicatesEverything) {
  Mlp m = megatron_mlp();
  MeshPartition p =
      partition_for_mesh(m.g, CostModel(load_device("wormhole_b0")), *MeshChoice::shipped());
  EXPECT_TRUE(p.groups.empty());
  for (const Distribution& d : p.dist) EXPECT_EQ(d, Distribution{});
  EXPECT_TRUE(p.conversions.empty());
}

TEST(MeshPartition, WithoutRulesEveryValueIsReplicated) {
  Mlp m = megatron_mlp();
  MeshPartition p = partition_for_mesh(m.g, CostModel(load_device("t3k")), MeshChoice{});
  for (const Distribution& d : p.dist) EXPECT_EQ(d, Distribution{});
  EXPECT_TRUE(p.conversions.empty());
}

TEST(MeshPartition, GalaxySplitsAlongOneAxis) {
  std::vector<MeshGroup> groups = mesh_groups(load_device("galaxy"));
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].axis, 0);
  EXPECT_EQ(groups[0].chips, 8);
  EXPECT_EQ(groups[1].chips, 4);
  EXPECT_EQ(mesh_view(load_device("t3k")), (std::array<int64_t, 2>{1, 8}));
}

TEST(MeshDims, ReshapeCarriesADimWhenTheDimsBeforeHoldTheSameElements) {
  Graph g;
  NodeId x = g.add_argument("x", {DType::BF16, Shape{1, 128, 4096}});
  Attrs a;
  a.set("shape", std::vector<int64_t>{1, 128, 32, 128});
  NodeId r = g.add_op(OpKind::Reshape, {x}, a);
  EXPECT_EQ(operand_dim_flow(g, r, 0, 2).kind, DimFlow::Kind::Carried);
  EXPECT_EQ(operand_dim_flow(g, r, 0, 2).dim, 2);
  EXPECT_EQ(operand_dim_flow(g, r, 0, 3).kind, DimFlow::Kind::Mixed);
  Attrs local = local_attrs(g, r, {DType::BF16, Shape{1, 128, 4, 128}}, 2);
  EXPECT_EQ(local.get<std::vector<int64_t>>("shape"), (std::vector<int64_t>{1, 128, 4, 128}));
}

// A flattened NHWC conv [1, 1, N*H*W, C] splits its pixels image by image: each chip's
// batch_size is its share of the images, and a split inside an image is no valid block.
TEST(MeshDims, FlatConvSplitsWholeImages) {
  Graph g;
  NodeId x = g.add_argument("x", {DType::BF16, Shape{1, 1, 4 * 6 * 6, 8}});
  NodeId w = g.add_argument("w", {DType::BF16, Shape{16, 8, 3, 3}});
  Attrs a;
  a.set("padding", int64_t{1});
  set_flat_image(a, FlatImage{4, 6, 6});
  NodeId c = g.add_op(OpKind::Conv2d, {x, w}, a);
  ASSERT_TRUE(is_flat_image_op(g.node(c)));
  EXPECT_EQ(operand_dim_flow(g, c, 0, 2).kind, DimFlow::Kind::Carried);
  EXPECT_EQ(operand_dim_flow(g, c, 0, 2).dim, 2);
  EXPECT_EQ(operand_dim_flow(g, c, 1, 2).kind, DimFlow::Kind::Broadcast);
  EXPECT_EQ(operand_dim_flow(g, c, 1, 3).dim, 0); // output channels from the weight's rows
  Attrs two = local_attrs(g, c, {DType::BF16, Shape{1, 1, 2 * 36, 16}}, 2);
  EXPECT_EQ(two.get<int64_t>("batch_size"), 2);
  // Half an image per chip: the attributes stay, so the local conv does not type-check.
  Attrs half = local_attrs(g, c, {DType::BF16, Shape{1, 1, 18, 16}}, 2);
  EXPECT_EQ(half.get<int64_t>("batch_size"), 4);
}

TEST(MeshDims, SoftmaxDoesNotCarryItsDimension) {
  Graph g;
  NodeId x = g.add_argument("x", {DType::BF16, Shape{1, 32, 128, 128}});
  NodeId s = g.add_op(OpKind::Softmax, {x});
  EXPECT_EQ(operand_dim_flow(g, s, 0, 1).kind, DimFlow::Kind::Carried);
  EXPECT_EQ(operand_dim_flow(g, s, 0, 3).kind, DimFlow::Kind::Mixed);
}

TEST(MeshRules, ParseAndReportErrors) {
  rewrites::RuleFile f =
      rewrites::parse_rule_file("mesh k: matmul => shard(-1), shard(-2) -> partial\n"
                                "mesh e: add => shard(d)... -> shard(d)\n",
                                "x.rules");
  ASSERT_EQ(f.meshes.size(), 2u);
  EXPECT_TRUE(f.meshes[0].matches(OpKind::Matmul, 2));
  EXPECT_FALSE(f.meshes[0].matches(OpKind::Matmul, 3));
  EXPECT_EQ(f.meshes[0].operand(1).dim, -2);
  EXPECT_TRUE(f.meshes[1].repeat_last);
  EXPECT_TRUE(f.meshes[1].matches(OpKind::Add, 2));
  auto error_of = [](const char* text) {
    try {
      rewrites::parse_rule_file(text, "bad.rules");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(error_of("mesh a: add => shard(d), shard(e) -> shard(d)\n"),
              HasSubstr("one dim variable"));
  EXPECT_THAT(error_of("mesh a: add => split(0) -> replicated\n"), HasSubstr("'shard(DIM)'"));
  EXPECT_THAT(error_of("mesh a: add => replicated\n"), HasSubstr("'-> RESULT'"));
  EXPECT_THAT(error_of("mesh a: add => replicated -> shard(d)\n"),
              HasSubstr("needs an operand split by it"));
  EXPECT_THAT(error_of("mesh a: add => shard(d)..., replicated -> shard(d)\n"),
              HasSubstr("'...' follows the last operand"));
  EXPECT_THAT(error_of("mesh a: add => shard(d) -> partial\n"),
              HasSubstr("operand's 'shard(d)' needs the result"));
}

} // namespace
} // namespace tilesat::cost
